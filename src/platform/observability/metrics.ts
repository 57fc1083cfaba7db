import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

/**
 * The process's Prometheus metrics (prom-client), served by GET /operator/v1/metrics. One registry
 * per process, like the process itself: the counters are incremented at the central places (the
 * HTTP layer, the payout moves, the webhook attempts, the job runner), and the gauges read from the
 * database are set when a scrape finds them older than METRICS_SAMPLE_MS (src/faces/metrics/sample.ts).
 */
export const registry = new Registry();
collectDefaultMetrics({ register: registry, prefix: 'corridor_' });

const DURATION_BUCKETS_S = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export const metrics = {
  httpRequests: new Histogram({
    name: 'corridor_http_request_duration_seconds',
    help: 'HTTP requests by method, route (the route pattern, not the path) and status, with their latency',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: DURATION_BUCKETS_S,
    registers: [registry],
  }),
  payoutsCreated: new Counter({
    name: 'corridor_payouts_created_total',
    help: 'Payouts created, by status at creation, rail (route) and connector',
    labelNames: ['status', 'rail', 'connector'] as const,
    registers: [registry],
  }),
  payoutsMoved: new Counter({
    name: 'corridor_payouts_moved_total',
    help: 'Payout moves, by the status moved to, rail (route) and connector',
    labelNames: ['status', 'rail', 'connector'] as const,
    registers: [registry],
  }),
  payoutsUnfinished: new Gauge({
    name: 'corridor_payouts_unfinished',
    help: 'Payouts in a non-final status (created, queued, processing), by connector and status',
    labelNames: ['connector', 'status'] as const,
    registers: [registry],
  }),
  payoutOldestAge: new Gauge({
    name: 'corridor_payout_oldest_age_seconds',
    help: 'Seconds since the oldest payout in a non-final status last moved, by connector and status',
    labelNames: ['connector', 'status'] as const,
    registers: [registry],
  }),
  webhookAttempts: new Counter({
    name: 'corridor_webhook_attempts_total',
    help: 'Webhook delivery attempts by this worker, by outcome (succeeded, failed)',
    labelNames: ['outcome'] as const,
    registers: [registry],
  }),
  webhookAttemptDuration: new Histogram({
    name: 'corridor_webhook_attempt_duration_seconds',
    help: 'Webhook delivery attempt latency (the endpoint answering)',
    buckets: DURATION_BUCKETS_S,
    registers: [registry],
  }),
  webhookLag: new Histogram({
    name: 'corridor_webhook_delivery_lag_seconds',
    help: 'Seconds from an event to the attempt that delivered it',
    buckets: [0.05, 0.1, 0.5, 1, 5, 30, 60, 300, 900, 3600, 21600, 86400],
    registers: [registry],
  }),
  jobsQueued: new Gauge({ name: 'corridor_jobs_queued', help: 'Jobs waiting or running, by kind', labelNames: ['kind'] as const, registers: [registry] }),
  jobOldestAge: new Gauge({
    name: 'corridor_job_oldest_age_seconds',
    help: 'Seconds the oldest due job of a kind has been due (0: none overdue)',
    labelNames: ['kind'] as const,
    registers: [registry],
  }),
  jobsFailed: new Gauge({ name: 'corridor_jobs_failed', help: 'Jobs that failed for good (kept RETENTION_FAILED_JOBS_DAYS), by kind', labelNames: ['kind'] as const, registers: [registry] }),
  jobRuns: new Counter({ name: 'corridor_job_runs_total', help: 'Job runs by this worker, by kind and outcome (done, failed)', labelNames: ['kind', 'outcome'] as const, registers: [registry] }),
  dbPool: new Gauge({ name: 'corridor_db_pool_connections', help: 'PostgreSQL pool connections by state (total, idle, waiting requests)', labelNames: ['state'] as const, registers: [registry] }),
  dbTransactionDuration: new Histogram({
    name: 'corridor_db_transaction_duration_seconds',
    help: 'Database transactions, from BEGIN to COMMIT or ROLLBACK, by outcome',
    labelNames: ['outcome'] as const,
    buckets: DURATION_BUCKETS_S,
    registers: [registry],
  }),
  screeningListAge: new Gauge({ name: 'corridor_screening_list_age_seconds', help: 'Seconds since the active version of each sanctions list was loaded', labelNames: ['list'] as const, registers: [registry] }),
  alertsOpen: new Gauge({ name: 'corridor_alerts_open', help: 'Open alerts by condition source', labelNames: ['source'] as const, registers: [registry] }),
  ledgerInvariantViolations: new Gauge({ name: 'corridor_ledger_invariant_violations', help: 'Ledger invariant violations found by the last alert evaluation', registers: [registry] }),
  sampleErrors: new Counter({ name: 'corridor_metrics_sample_errors_total', help: 'Scrapes whose database sample failed (the previous values are served)', registers: [registry] }),
};

/** Payout moves as counted: the moved payouts' status, route and connector. */
export function countPayoutMoves(counter: Counter<'status' | 'rail' | 'connector'>, rows: readonly ({ status: string; route: string; provider: string } | undefined)[]): void {
  for (const row of rows) if (row) counter.inc({ status: row.status, rail: row.route, connector: row.provider });
}

/** One webhook attempt: its outcome, how long the endpoint took, and how long after its event it ended. */
export function observeAttempt(ok: boolean, durationMs: number, eventAt: Date, endedAt: Date): void {
  metrics.webhookAttempts.inc({ outcome: ok ? 'succeeded' : 'failed' });
  metrics.webhookAttemptDuration.observe(durationMs / 1000);
  if (ok) metrics.webhookLag.observe(Math.max(0, endedAt.getTime() - eventAt.getTime()) / 1000);
}
