import { randomUUID } from 'node:crypto';
import { verifyAuditChain } from '../../src/controls/audit/audit.service.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppContext } from '../../src/platform/context.js';
import { jobHandlers } from '../../src/jobs.js';
import type { Job } from '../../src/platform/jobs/queue.js';
import type { JobHandler } from '../../src/platform/jobs/runner.js';
import { recordEvent } from '../../src/domains/events/events.service.js';
import { dispatchEvents } from '../../src/domains/webhooks/webhooks.repository.js';
import { createTestApp, newWorkspace, type Caller, type TestApp } from '../helpers/app.js';

/** Issue 14.8: old rows of the append-only tables are deleted in bounded batches, in foreign-key order. */
let t: TestApp;
let caller: Caller;

beforeAll(async () => {
  // Two rows per statement, so a backlog of a few dozen rows needs more than one run.
  t = await createTestApp({ env: { RETENTION_BATCH_ROWS: '2' } });
  caller = await newWorkspace(t.app);
});
afterAll(async () => t.close());

const JOB: Job = { id: '0', kind: 'retention.sweep', payload: {}, attempts: 1, max_attempts: 3 };

/** One run of the retention job, as a worker would run it; its answer is when to run again (a backlog is left). */
async function sweep(ctx: AppContext = t.ctx): Promise<Date | void> {
  const handler = jobHandlers.get('retention.sweep') as JobHandler | undefined;
  if (!handler) throw new Error('no retention.sweep job');
  return handler(ctx, JOB);
}

/** Sweeps until no backlog is left, at most `runsMax` runs. */
async function sweepAll(ctx: AppContext = t.ctx, runsMax = 20): Promise<number> {
  for (let run = 1; run <= runsMax; run++) if (!(await sweep(ctx))) return run;
  throw new Error('retention still has a backlog');
}

const db = () => t.ctx.db;
const ageDays = (table: string, column: string, ids: string[], days: number) =>
  db().query(`UPDATE ${table} SET ${column} = now() - $2::int * interval '1 day' WHERE id::text = ANY($1::text[])`, [ids, days]);
const existing = async (table: string, ids: string[]) =>
  (await db().query<{ id: string }>(`SELECT id::text AS id FROM ${table} WHERE id::text = ANY($1::text[])`, [ids])).map((r) => r.id).sort();

async function newEvent(): Promise<string> {
  return db().tx((tx) => recordEvent(tx, { workspaceId: caller.workspaceId, type: 'payout.paid', data: { id: 'x' } }));
}

async function deliveryOf(eventId: string): Promise<string> {
  const [row] = await db().query<{ id: string }>('SELECT id::text AS id FROM webhook_deliveries WHERE event_id = $1', [eventId]);
  return row!.id;
}

describe('retention job', () => {
  it('deletes finished deliveries, then events no delivery references; keeps pending, undispatched and recent ones', async () => {
    const hook = await caller.request('POST', '/v1/webhooks', { url: 'https://example.com/retention' });
    expect(hook.statusCode, hook.body).toBe(201);
    const [gone, pendingOld, deliveredRecently, young] = [await newEvent(), await newEvent(), await newEvent(), await newEvent()];
    await dispatchEvents(db(), 100);
    const undispatched = await newEvent();
    const [dGone, dPending, dRecent, dYoung] = (await Promise.all([gone, pendingOld, deliveredRecently, young].map(deliveryOf))) as [string, string, string, string];
    await db().query(
      "UPDATE webhook_deliveries SET status = 'succeeded', next_attempt_at = NULL WHERE id::text = ANY($1::text[])",
      [[dGone, dRecent, dYoung]],
    );
    await ageDays('events', 'created_at', [gone, pendingOld, undispatched], 100);
    await ageDays('events', 'created_at', [deliveredRecently], 20);
    await ageDays('webhook_deliveries', 'created_at', [dGone, dPending, dRecent], 40);

    await sweepAll();

    // 30-day deliveries: the finished old ones go, the pending one stays whatever its age.
    expect(await existing('webhook_deliveries', [dGone, dPending, dRecent, dYoung])).toEqual([dPending, dYoung].sort());
    // 90-day events: gone only when dispatched and no delivery references it any more.
    expect(await existing('events', [gone, pendingOld, deliveredRecently, young, undispatched])).toEqual(
      [pendingOld, deliveredRecently, young, undispatched].sort(),
    );
    const events = await caller.request('GET', '/v1/events?limit=100');
    expect(events.json<{ data: { id: string }[] }>().data.map((e) => e.id)).not.toContain(gone);
  });

  it('deletes spent and expired quotes, but keeps a quote its conversion references and a recent one', async () => {
    await caller.request('POST', '/v1/sandbox/balances/fund', { currency: 'USD', amount: '100.00' });
    const quote = async (intent: string) => {
      const res = await caller.request('POST', '/v1/fx/quotes', { fromCurrency: 'USD', toCurrency: 'EUR', fromAmount: '1.00', intent });
      expect(res.statusCode, res.body).toBe(201);
      return res.json<{ id: string }>().id;
    };
    const [converted, usedByPayout, expired, recent] = [await quote('conversion'), await quote('payout'), await quote('payout'), await quote('payout')];
    const conversion = await caller.request('POST', '/v1/fx/conversions', { quoteId: converted });
    expect(conversion.statusCode, conversion.body).toBe(201);
    await db().query("UPDATE fx_quotes SET status = 'used', used_at = now() WHERE id = $1", [usedByPayout]);
    await db().query("UPDATE fx_quotes SET expires_at = now() - interval '1 minute' WHERE id::text = ANY($1::text[])", [[expired, recent]]);
    await ageDays('fx_quotes', 'created_at', [converted, usedByPayout, expired], 8);

    await sweepAll();

    expect(await existing('fx_quotes', [converted, usedByPayout, expired, recent])).toEqual([converted, recent].sort());
    expect((await caller.request('GET', `/v1/fx/conversions/${conversion.json<{ id: string }>().id}`)).statusCode).toBe(200);
  });

  it('deletes failed jobs after 30 days, never queued ones, in bounded batches over several runs', async () => {
    const insert = (status: string, n: number) =>
      db().query<{ id: string }>(
        `INSERT INTO jobs (kind, status, max_attempts, last_error)
         SELECT 'test.retention', $1, 1, 'boom' FROM generate_series(1, $2::int) RETURNING id::text AS id`,
        [status, n],
      );
    const oldFailed = (await insert('failed', 45)).map((r) => r.id);
    const recentFailed = (await insert('failed', 1)).map((r) => r.id);
    const oldQueued = (await insert('queued', 1)).map((r) => r.id);
    await db().query("UPDATE jobs SET run_at = now() + interval '1 year' WHERE id::text = ANY($1::text[])", [oldQueued]);
    await ageDays('jobs', 'updated_at', [...oldFailed, ...oldQueued], 31);

    // 2 rows per statement, 20 statements per run: 40 rows, then the job asks to run again soon.
    const again = await sweep();
    expect(again).toBeInstanceOf(Date);
    expect((again as Date).getTime() - Date.now()).toBeLessThan(60_000);
    expect(await existing('jobs', oldFailed)).toHaveLength(5);
    expect(await sweep()).toBeUndefined();
    expect(await existing('jobs', [...oldFailed, ...recentFailed, ...oldQueued])).toEqual([...recentFailed, ...oldQueued].sort());
    await db().query('DELETE FROM jobs WHERE id::text = ANY($1::text[])', [[...recentFailed, ...oldQueued]]);
  });

  it('keeps the audit log by default, and deletes it past RETENTION_AUDIT_LOG_DAYS when set', async () => {
    // Kept: the newest entry of one chain; a chain is only ever cut from its start.
    const ids = (await db().query<{ id: string }>('SELECT id::text AS id FROM operator_audit_log ORDER BY chain DESC, seq DESC')).map((r) => r.id);
    expect(ids.length).toBeGreaterThan(1);
    await ageDays('operator_audit_log', 'at', ids.slice(1), 400);
    await sweepAll();
    expect(await existing('operator_audit_log', ids)).toHaveLength(ids.length);

    const auditKept365: AppContext = { ...t.ctx, config: { ...t.ctx.config, retention: { ...t.ctx.config.retention, auditLogDays: 365 } } };
    await sweepAll(auditKept365);
    expect(await existing('operator_audit_log', ids)).toEqual([ids[0]!]);
    // Each chain still verifies from where retention cut it.
    const chains = (await db().query<{ chain: string }>('SELECT chain FROM audit_chains')).map((r) => r.chain);
    for (const chain of chains) {
      const verified = await verifyAuditChain(db(), chain === 'operator' ? undefined : chain);
      expect(verified, chain).toMatchObject({ valid: true });
    }
  });

  it('deletes mobile-money callbacks that moved nothing (refused, unknown) after 30 days, and keeps applied and unchanged ones for good', async () => {
    const { insertCallback } = await import('../../src/connectors/mobile-money/mobile-money.repository.js');
    const outcomes = ['refused', 'unknown', 'applied', 'unchanged'] as const;
    const ids = { old: [] as string[], young: [] as string[] };
    for (const age of ['old', 'young'] as const) {
      for (const outcome of outcomes) {
        for (let i = 0; i < 3; i++) {
          const id = randomUUID();
          await insertCallback(db(), { id, correlationId: `${age}-${outcome}-${i}`, contentSha256: id, outcome, reason: outcome === 'refused' ? 'bad signature' : null, body: null });
          ids[age].push(id);
        }
      }
    }
    await db().query(`UPDATE momo_callbacks SET received_at = now() - interval '31 days' WHERE id::text = ANY($1::text[])`, [ids.old]);
    await sweepAll(); // three rows of each outcome, two per statement
    const left = await db().query<{ correlation_id: string }>('SELECT correlation_id FROM momo_callbacks WHERE id::text = ANY($1::text[]) ORDER BY correlation_id', [[...ids.old, ...ids.young]]);
    const kept = left.map((r) => r.correlation_id);
    expect(kept.filter((c) => c.startsWith('old-')).sort()).toEqual(['applied', 'unchanged'].flatMap((o) => [0, 1, 2].map((i) => `old-${o}-${i}`)));
    expect(kept.filter((c) => c.startsWith('young-'))).toHaveLength(12);
  });

  it('is a recurring job of every worker', async () => {
    const { recurringJobs } = await import('../../src/jobs.js');
    expect(recurringJobs.map((r) => r.kind)).toContain('retention.sweep');
  });
});

describe('retention settings', () => {
  it('keep events 90 days, deliveries and failed jobs 30, quotes 7 and the audit log for ever by default', () => {
    expect(t.config.retention).toMatchObject({ eventsDays: 90, webhookDeliveriesDays: 30, failedJobsDays: 30, fxQuotesDays: 7, auditLogDays: 0, unappliedCallbacksDays: 30 });
  });

  it('refuse to keep events less than 30 days', async () => {
    const { loadConfig } = await import('../../src/platform/config.js');
    expect(() => loadConfig({ RETENTION_EVENTS_DAYS: '7' })).toThrow(/RETENTION_EVENTS_DAYS/);
    expect(loadConfig({ RETENTION_EVENTS_DAYS: '0' }).retention.eventsDays).toBe(0);
    expect(loadConfig({ RETENTION_EVENTS_DAYS: '45' }).retention.eventsDays).toBe(45);
  });
});
