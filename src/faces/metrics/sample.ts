import type { AppContext } from '../../platform/context.js';
import { jobQueueStats } from '../../platform/jobs/queue.js';
import { openAlertCounts } from '../../controls/alerts/alerts.service.js';
import { unfinishedPayouts } from '../../domains/payouts/payouts.service.js';
import { activeListAges } from '../../controls/screening/screening.service.js';
import { metrics, registry } from '../../platform/observability/metrics.js';

let sampledAt = 0;
let sampling: Promise<void> | undefined;

/**
 * Sets the gauges read from the database (payouts unfinished and their oldest age, the job queue,
 * sanctions list ages, open alerts) and the pool's, at most once per METRICS_SAMPLE_MS: a scrape
 * reads a few grouped counts, never once per request. A failed sample keeps the previous values
 * and is counted.
 */
async function sampleDatabase(ctx: AppContext): Promise<void> {
  const [payouts, jobs, lists, alerts] = await Promise.all([unfinishedPayouts(ctx.db), jobQueueStats(ctx.db), activeListAges(ctx.db), openAlertCounts(ctx.db)]);
  metrics.payoutsUnfinished.reset();
  metrics.payoutOldestAge.reset();
  for (const p of payouts) {
    metrics.payoutsUnfinished.set({ connector: p.connector, status: p.status }, p.count);
    metrics.payoutOldestAge.set({ connector: p.connector, status: p.status }, p.oldestAgeSeconds);
  }
  metrics.jobsQueued.reset();
  metrics.jobOldestAge.reset();
  metrics.jobsFailed.reset();
  for (const j of jobs) {
    metrics.jobsQueued.set({ kind: j.kind }, j.queued);
    metrics.jobOldestAge.set({ kind: j.kind }, j.oldestDueSeconds);
    metrics.jobsFailed.set({ kind: j.kind }, j.failed);
  }
  metrics.screeningListAge.reset();
  for (const l of lists) metrics.screeningListAge.set({ list: l.list }, l.ageSeconds);
  metrics.alertsOpen.reset();
  for (const a of alerts) metrics.alertsOpen.set({ source: a.source }, a.count);
}

/** The exposition text of every metric of this process, the database sample refreshed when stale. */
export async function metricsText(ctx: AppContext): Promise<{ contentType: string; text: string }> {
  const pool = ctx.db.poolStats();
  if (pool) for (const [state, value] of Object.entries(pool)) metrics.dbPool.set({ state }, value);
  if (Date.now() - sampledAt >= ctx.config.observability.metricsSampleMs) {
    sampling ??= sampleDatabase(ctx)
      .then(() => void (sampledAt = Date.now()))
      .catch((err: unknown) => {
        metrics.sampleErrors.inc();
        ctx.log.warn({ err }, 'metrics sample failed');
      })
      .finally(() => (sampling = undefined));
    await sampling;
  }
  return { contentType: registry.contentType, text: await registry.metrics() };
}
