import type { FastifyInstance, InjectOptions } from 'fastify';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRunner } from '../../src/jobs.js';
import { recordEvent } from '../../src/domains/events/events.service.js';
import { WebhookEngine, leaseMsFor } from '../../src/domains/webhooks/delivery-engine.js';
import * as repo from '../../src/domains/webhooks/webhooks.repository.js';
import { createTestApp, freshPostgresDatabase, newWorkspace, onPostgres, type TestApp } from '../helpers/app.js';
import { HttpsReceiver, signedWith } from '../helpers/https-receiver.js';

let receiver: HttpsReceiver;
beforeAll(async () => {
  receiver = await HttpsReceiver.start();
});
afterAll(async () => receiver.close());

interface Delivery {
  id: string;
  status: 'pending' | 'succeeded' | 'failed';
  attempts: { number: number; responseStatus: number | null }[];
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`condition not met in ${timeoutMs} ms: ${JSON.stringify(value)}`);
    await sleep(20);
  }
}

/** Calls the API of `app` with a token (a token stays valid across a restart: the signing keys are in the database). */
const as =
  (app: FastifyInstance, token: string) =>
  (method: InjectOptions['method'], url: string, body?: unknown) =>
    app.inject({ method, url, headers: { authorization: `Bearer ${token}` }, ...(body === undefined ? {} : { payload: body as object }) });

describe('restart in the middle of a retry schedule', () => {
  it('loses no pending delivery, continues its attempt count, and repeats none that succeeded', async () => {
    // The same database for both processes: a fresh PostgreSQL database, or an embedded one in a directory.
    const pgdb = onPostgres ? await freshPostgresDatabase() : undefined;
    const dataDir = pgdb ? undefined : fs.mkdtempSync(path.join(os.tmpdir(), 'corridor-restart-'));
    const env = {
      CORRIDOR_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
      WEBHOOK_RETRY_DELAYS_MS: '1500,1500,1500,1500,1500',
      WEBHOOK_TIMEOUT_MS: '2000',
      JOB_POLL_MS: '20',
      ...(dataDir ? { CORRIDOR_DATA_DIR: dataDir } : {}),
    };
    const paths = { ok: `/restart-ok-${randomBytes(3).toString('hex')}`, flaky: `/restart-flaky-${randomBytes(3).toString('hex')}` };
    let flakyUp = false;
    receiver.on(paths.flaky, () => (flakyUp ? { status: 200 } : { status: 500 }));
    try {
      // First process: the flaky endpoint fails twice, then the process stops between attempts.
      const first = await createTestApp({ env, ...(pgdb ? { databaseUrl: pgdb.url } : {}) });
      const runner1 = createRunner(first.ctx);
      const c = await newWorkspace(first.app);
      const ok = (await c.request('POST', '/v1/webhooks', { url: receiver.url(paths.ok) })).json<{ id: string; secret: string }>();
      const flaky = (await c.request('POST', '/v1/webhooks', { url: receiver.url(paths.flaky) })).json<{ id: string; secret: string }>();
      runner1.start();
      expect((await c.request('POST', '/v1/accounts', { name: 'Shop', country: 'DE' })).statusCode).toBe(201);
      await receiver.waitFor(paths.ok, 1);
      const read1 = as(first.app, c.token);
      await until(
        async () => (await read1('GET', `/v1/webhooks/${flaky.id}/deliveries`)).json<{ data: Delivery[] }>().data[0],
        (d) => (d?.attempts.length ?? 0) >= 2,
      );
      await runner1.stop();
      await first.close();
      const sentBeforeRestart = receiver.requests(paths.flaky).length;
      expect(sentBeforeRestart).toBe(2);

      // Second process on the same database: the schedule goes on where it stopped.
      flakyUp = true;
      const second = await createTestApp({ env, ...(pgdb ? { databaseUrl: pgdb.url } : {}) });
      const runner2 = createRunner(second.ctx);
      runner2.start();
      try {
        const read2 = as(second.app, c.token);
        const done = await until(
          async () => (await read2('GET', `/v1/webhooks/${flaky.id}/deliveries`)).json<{ data: Delivery[] }>().data[0],
          (d) => d?.status === 'succeeded',
        );
        expect(done!.attempts.map((a) => [a.number, a.responseStatus])).toEqual([
          [1, 500],
          [2, 500],
          [3, 200],
        ]);
        const got = receiver.requests(paths.flaky);
        expect(got).toHaveLength(3);
        expect(new Set(got.map((r) => JSON.parse(r.body).id)).size).toBe(1);
        expect(signedWith(got[2]!.body, got[2]!.headers, flaky.secret)).toBe(true);

        await sleep(600);
        expect(receiver.requests(paths.ok)).toHaveLength(1);
        const okDeliveries = (await read2('GET', `/v1/webhooks/${ok.id}/deliveries`)).json<{ data: Delivery[] }>().data;
        expect(okDeliveries.map((d) => [d.status, d.attempts.length])).toEqual([['succeeded', 1]]);
      } finally {
        await runner2.stop();
        await second.close();
      }
    } finally {
      await pgdb?.drop();
      if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe('one database, several workers', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({
      env: { WEBHOOK_TIMEOUT_MS: '1000', WEBHOOK_RETRY_DELAYS_MS: '100,100,100,100,100', WEBHOOK_ENDPOINT_CONCURRENCY: '4', JOB_POLL_MS: '20' },
    });
  });
  afterAll(async () => t.close());

  it('attempts again, after its lease, a delivery whose worker died mid-attempt, and ignores that worker’s late write', async () => {
    const c = await newWorkspace(t.app);
    const hook = `/dead-worker-${randomBytes(3).toString('hex')}`;
    const endpoint = (await c.request('POST', '/v1/webhooks', { url: receiver.url(hook) })).json<{ id: string }>();
    await c.request('POST', '/v1/accounts', { name: 'Shop', country: 'DE' });
    // A worker takes the delivery and dies before recording anything.
    await repo.dispatchEvents(t.ctx.db, 500);
    const leaseMs = leaseMsFor(t.config.webhookTimeoutMs);
    const [taken] = await repo.claimDueDeliveries(t.ctx.db, 'w_dead', [{ endpoint_id: endpoint.id, free: 10 }], 10, leaseMs);
    expect(taken).toBeDefined();
    const takenAt = Date.now();

    const runner = createRunner(t.ctx);
    runner.start();
    try {
      const [got] = await receiver.waitFor(hook, 1, leaseMs + 5000);
      expect(got!.at - takenAt).toBeGreaterThanOrEqual(leaseMs - 100);
      const d = await until(
        async () => (await c.request('GET', `/v1/webhooks/${endpoint.id}/deliveries/${taken!.id}`)).json<Delivery>(),
        (x) => x.status === 'succeeded',
      );
      expect(d.attempts.map((a) => a.number)).toEqual([1]);
      const late = await repo.recordAttempts(t.ctx.db, 'w_dead', [
        { id: taken!.id, number: 1, status: 'failed', next_attempt_at: null, attempt: { number: 1, at: new Date().toISOString(), responseStatus: 500, durationMs: 1, error: null, responseExcerpt: null } },
      ]);
      expect(late).toBe(0);
      expect((await c.request('GET', `/v1/webhooks/${endpoint.id}/deliveries/${taken!.id}`)).json<Delivery>().status).toBe('succeeded');
    } finally {
      await runner.stop();
    }
  });

  it('attempts again, after its lease, a delivery dispatched leased to a worker that died before sending it, and ignores that worker’s late write', async () => {
    const c = await newWorkspace(t.app);
    const hook = `/dead-dispatcher-${randomBytes(3).toString('hex')}`;
    const endpoint = (await c.request('POST', '/v1/webhooks', { url: receiver.url(hook) })).json<{ id: string }>();
    await c.request('POST', '/v1/accounts', { name: 'Shop', country: 'DE' });
    // A worker dispatches the event, its delivery created leased to it, and dies before sending it.
    const leaseMs = leaseMsFor(t.config.webhookTimeoutMs);
    const dispatched = await repo.dispatchEvents(t.ctx.db, 500, { workerId: 'w_dead', leaseMs, free: [], depth: 8, room: 8 });
    const dispatchedAt = Date.now();
    const mine = dispatched.leased.filter((d) => d.endpoint_id === endpoint.id);
    expect(mine).toHaveLength(1);
    expect(dispatched.endpointIds).not.toContain(endpoint.id);
    const [taken] = mine;
    // Recorded before any attempt: pending, leased, not due (so no claim takes it while the lease runs).
    const [row] = await t.ctx.db.query<{ status: string; locked_by: string; next_attempt_at: Date | null }>(
      'SELECT status, locked_by, next_attempt_at FROM webhook_deliveries WHERE id = $1',
      [taken!.id],
    );
    expect(row).toEqual({ status: 'pending', locked_by: 'w_dead', next_attempt_at: null });
    expect(await repo.claimDueDeliveries(t.ctx.db, 'w_other', [{ endpoint_id: endpoint.id, free: 10 }], 10, leaseMs)).toEqual([]);
    const shown = (await c.request('GET', `/v1/webhooks/${endpoint.id}/deliveries/${taken!.id}`)).json<Delivery & { nextAttemptAt: string | null }>();
    expect(shown.status).toBe('pending');
    expect(shown.nextAttemptAt).not.toBeNull();

    const runner = createRunner(t.ctx);
    runner.start();
    try {
      const [got] = await receiver.waitFor(hook, 1, leaseMs + 5000);
      expect(got!.at - dispatchedAt).toBeGreaterThanOrEqual(leaseMs - 100);
      expect(JSON.parse(got!.body).id).toBe(taken!.event_id);
      const d = await until(
        async () => (await c.request('GET', `/v1/webhooks/${endpoint.id}/deliveries/${taken!.id}`)).json<Delivery>(),
        (x) => x.status === 'succeeded',
      );
      expect(d.attempts.map((a) => a.number)).toEqual([1]);
      const late = await repo.recordAttempts(t.ctx.db, 'w_dead', [
        { id: taken!.id, number: 1, status: 'failed', next_attempt_at: null, attempt: { number: 1, at: new Date().toISOString(), responseStatus: 500, durationMs: 1, error: null, responseExcerpt: null } },
      ]);
      expect(late).toBe(0);
      expect((await c.request('GET', `/v1/webhooks/${endpoint.id}/deliveries/${taken!.id}`)).json<Delivery>().status).toBe('succeeded');
      expect(await t.ctx.db.query('SELECT 1 FROM webhook_leases WHERE worker_id = $1', ['w_dead'])).toEqual([]);
    } finally {
      await runner.stop();
    }
  });

  it('dispatches leased only what the worker has room for, per endpoint and in all; the rest is created due for any worker', async () => {
    const c = await newWorkspace(t.app);
    const hooks = [0, 1].map((i) => `/room-${i}-${randomBytes(3).toString('hex')}`);
    const [a, b] = await Promise.all(hooks.map(async (hook) => (await c.request('POST', '/v1/webhooks', { url: receiver.url(hook) })).json<{ id: string }>()));
    await until(() => repo.dispatchEvents(t.ctx.db, 500), (r) => r.events === 0); // an empty outbox, whatever other tests left
    await t.ctx.db.tx(async (tx) => {
      for (let i = 0; i < 4; i++) await recordEvent(tx, { workspaceId: c.workspaceId, type: 'account.created', data: { n: i } });
    });
    const leaseMs = leaseMsFor(t.config.webhookTimeoutMs);
    // Endpoint a may take 1 more here, b up to the depth (8); 3 in all.
    const dispatched = await repo.dispatchEvents(t.ctx.db, 500, { workerId: 'w_room', leaseMs, free: [{ endpoint_id: a!.id, free: 1 }], depth: 8, room: 3 });
    const mine = dispatched.leased.filter((d) => d.endpoint_id === a!.id || d.endpoint_id === b!.id);
    expect(mine.filter((d) => d.endpoint_id === a!.id)).toHaveLength(1);
    expect(mine.filter((d) => d.endpoint_id === b!.id)).toHaveLength(2);
    expect(new Set(dispatched.endpointIds)).toEqual(new Set([a!.id, b!.id]));
    const rows = await t.ctx.db.query<{ endpoint_id: string; leased: boolean; due: boolean }>(
      `SELECT endpoint_id, locked_by IS NOT NULL AS leased, next_attempt_at IS NOT NULL AS due
         FROM webhook_deliveries WHERE endpoint_id = ANY($1::uuid[])`,
      [[a!.id, b!.id]],
    );
    expect(rows).toHaveLength(8);
    // Each delivery either leased (in its first attempt, not due) or due (unleased), never both or neither.
    expect(rows.every((r) => r.leased !== r.due)).toBe(true);
    expect(rows.filter((r) => r.leased).length).toBe(3);
    const [lease] = await t.ctx.db.query<{ delivery_ids: string[] }>('SELECT delivery_ids FROM webhook_leases WHERE id = $1', [dispatched.leaseId]);
    expect(new Set(lease!.delivery_ids)).toEqual(new Set(mine.map((d) => d.id)));
    // Handed back (as a stopping worker does): due at once, for any worker, and the lease row goes with the last one.
    await repo.releaseDeliveries(t.ctx.db, 'w_room', mine.map((d) => d.id), [dispatched.leaseId!]);
    const after = await t.ctx.db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM webhook_deliveries WHERE endpoint_id = ANY($1::uuid[]) AND next_attempt_at IS NOT NULL AND locked_by IS NULL`,
      [[a!.id, b!.id]],
    );
    expect(after).toEqual([{ n: 8 }]);
    expect(await t.ctx.db.query('SELECT 1 FROM webhook_leases WHERE id = $1', [dispatched.leaseId])).toEqual([]);
    // Delivered by a runner as any due deliveries are.
    const runner = createRunner(t.ctx);
    runner.start();
    try {
      for (const hook of hooks) await receiver.waitFor(hook, 4);
    } finally {
      await runner.stop();
    }
  });

  it('sends a dispatched delivery only once it is committed, and leaves no lease behind once its outcome is recorded', async () => {
    const c = await newWorkspace(t.app);
    const hook = `/committed-first-${randomBytes(3).toString('hex')}`;
    // The receiver holds its answer until the delivery has been read, while the attempt is under way.
    let answer = () => {};
    const answered = new Promise<void>((resolve) => (answer = resolve));
    receiver.on(hook, () => ({ status: 200, after: answered }));
    const endpoint = (await c.request('POST', '/v1/webhooks', { url: receiver.url(hook) })).json<{ id: string }>();
    const engine = new WebhookEngine(t.ctx);
    engine.start();
    try {
      await c.request('POST', '/v1/accounts', { name: 'Shop', country: 'DE' });
      const [got] = await receiver.waitFor(hook, 1);
      const eventId = JSON.parse(got!.body).id as string;
      // Read on another connection while the receiver has not answered yet.
      const during = await t.ctx.db.query<{ status: string; locked_by: string | null; attempt_count: number; next_attempt_at: Date | null }>(
        'SELECT status, locked_by, attempt_count, next_attempt_at FROM webhook_deliveries WHERE endpoint_id = $1 AND event_id = $2',
        [endpoint.id, eventId],
      );
      answer();
      expect(during).toEqual([{ status: 'pending', locked_by: engine.workerId, attempt_count: 0, next_attempt_at: null }]);
      const done = await until(
        () => t.ctx.db.query<{ status: string; attempt_count: number; locked_by: string | null }>(
          'SELECT status, attempt_count, locked_by FROM webhook_deliveries WHERE endpoint_id = $1', [endpoint.id]),
        (rows) => rows[0]?.status === 'succeeded',
      );
      expect(done).toEqual([{ status: 'succeeded', attempt_count: 1, locked_by: null }]);
      await until(
        () => t.ctx.db.query('SELECT 1 FROM webhook_leases WHERE worker_id = $1', [engine.workerId]),
        (rows) => rows.length === 0,
      );
      expect(receiver.requests(hook)).toHaveLength(1);
    } finally {
      answer();
      await engine.stop();
    }
  });
});

// Its own app, with a deadline long enough that a loaded machine does not turn an attempt into a
// timeout six times over (the delivery would then be final and failed): the test is about creating
// and sending each delivery once, not about deadlines.
describe('one database, three workers at once', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({
      env: { WEBHOOK_TIMEOUT_MS: '15000', WEBHOOK_RETRY_DELAYS_MS: '100,100,100,100,100', WEBHOOK_ENDPOINT_CONCURRENCY: '4', JOB_POLL_MS: '20' },
    });
  });
  afterAll(async () => t.close());

  it('creates each (endpoint, event) delivery once, and sends it only as recorded attempts, with three workers at once', async () => {
    const c = await newWorkspace(t.app);
    const hooks = [0, 1].map((i) => `/many-${i}-${randomBytes(3).toString('hex')}`);
    const endpoints: { id: string }[] = [];
    for (const hook of hooks) endpoints.push((await c.request('POST', '/v1/webhooks', { url: receiver.url(hook) })).json<{ id: string }>());
    const eventCount = 150;
    const ids: string[] = [];
    for (let batch = 0; batch < 3; batch++) {
      await t.ctx.db.tx(async (tx) => {
        for (let i = 0; i < eventCount / 3; i++) ids.push(await recordEvent(tx, { workspaceId: c.workspaceId, type: 'account.created', data: { n: ids.length } }));
      });
    }
    // Concurrent dispatchers first (small batches, so they overlap), then three engines.
    await Promise.all([1, 2, 3].map(() => until(() => repo.dispatchEvents(t.ctx.db, 7), (r) => r.events === 0, 30_000)));
    const engines = [1, 2, 3].map(() => new WebhookEngine(t.ctx));
    for (const e of engines) e.start();
    try {
      const byEndpoint = () =>
        t.ctx.db.query<{ endpoint_id: string; n: number; succeeded: number; attempts: number }>(
          `SELECT endpoint_id, count(*)::int AS n, count(*) FILTER (WHERE status = 'succeeded')::int AS succeeded,
                  sum(attempt_count)::int AS attempts
             FROM webhook_deliveries WHERE endpoint_id = ANY($1::uuid[]) GROUP BY endpoint_id ORDER BY endpoint_id`,
          [endpoints.map((e) => e.id)],
        );
      const rows = await until(byEndpoint, (r) => r.length === 2 && r.every((x) => x.succeeded === eventCount), 60_000);
      await sleep(300);
      for (const [i, hook] of hooks.entries()) {
        const row = rows.find((r) => r.endpoint_id === endpoints[i]!.id)!;
        expect(row.n).toBe(eventCount);
        const sent = receiver.requests(hook).map((r) => JSON.parse(r.body).id as string);
        // Every event arrived, and every request the receiver saw is an attempt in the history (an attempt
        // that timed out may have arrived or not; it is retried: at least once, as receivers are told to expect).
        expect(new Set(sent)).toEqual(new Set(ids));
        expect(sent.length).toBeLessThanOrEqual(row.attempts);
      }
    } finally {
      await Promise.all(engines.map((e) => e.stop()));
    }
  });
});
