import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ledgerInvariantViolations } from '../../src/domains/ledger/ledger.service.js';
import { createTestApp, newWorkspace, onPostgres, type TestApp } from '../helpers/app.js';
import { canRunOwnPostgres, startOwnPostgres } from '../helpers/postgres-server.js';
import { fund, payingWorkspace, saveBeneficiary } from '../payouts/helpers.js';

/** A database outage is answered as an outage, and recovered from without a restart. PostgreSQL only. */

const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c().catch(() => undefined);
});

function expectUnavailable(res: LightMyRequestResponse, retryable: boolean): void {
  expect(res.statusCode, res.body).toBe(503);
  expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
  expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1);
  expect(res.json()).toMatchObject({ status: 503, code: 'SERVICE_UNAVAILABLE', category: 'provider', retryable, request_id: res.headers['x-request-id'] });
  // Nothing of the database's failure leaks: its error, its address. (doc_url is the API's own address, the catalogue's link.)
  const { doc_url: _link, ...rest } = res.json() as Record<string, unknown>;
  expect(JSON.stringify(rest)).not.toMatch(/ECONNREFUSED|127\.0\.0\.1|terminat/i);
}

describe.skipIf(!onPostgres || !canRunOwnPostgres)('a PostgreSQL outage (a server this test owns)', () => {
  it('answers 503 with Retry-After while the database is down, fails /readyz, recovers without a restart, and loses or doubles no keyed payout', async () => {
    const server = await startOwnPostgres();
    cleanups.push(server.destroy);
    // A request waits DB_CONNECT_TIMEOUT_MS for a connection (retried with backoff) before its 503: short here.
    const t = await createTestApp({ databaseUrl: server.url, env: { SANDBOX_STEP_MS: '600000', DB_CONNECT_TIMEOUT_MS: '1000' } });
    let closed = false;
    cleanups.push(async () => {
      if (!closed) await t.close();
    });
    const c = await payingWorkspace(t);
    await fund(c, 'EUR', '1000');
    const beneficiaryId = await saveBeneficiary(c);
    const payout = (key: string) =>
      c.request('POST', '/v1/payouts', { clientRef: key, amount: '1.00', currency: 'EUR', beneficiary: { id: beneficiaryId } }, { 'idempotency-key': key });
    const answered = new Map<string, string>(); // key (= clientRef) → payout id from a 201
    const keys: string[] = [];
    const send = async (key: string) => {
      if (!keys.includes(key)) keys.push(key);
      const res = await payout(key);
      if (res.statusCode === 201) {
        const id = res.json<{ id: string }>().id;
        if (answered.has(key)) expect(id).toBe(answered.get(key));
        answered.set(key, id);
      }
      return res;
    };

    // Before: served.
    for (const key of ['before-1', 'before-2']) expect((await send(key)).statusCode).toBe(201);

    // Load in flight when the server stops: eight clients sending keyed payouts one after another.
    // Each answer is a payout or an outage; a request cut off mid-commit is settled by its retry below.
    const statuses: number[] = [];
    let stopping = false;
    let sent = 0;
    const client = async () => {
      while (!stopping && sent < 2000) statuses.push((await send(`load-${sent++}`)).statusCode);
    };
    const load = Promise.all(Array.from({ length: 8 }, client));
    const loadDeadline = Date.now() + 30_000;
    while (statuses.filter((s) => s === 201).length < 20) {
      if (Date.now() > loadDeadline) throw new Error(`no load got through: ${statuses.join(',')}`);
      await new Promise((r) => setTimeout(r, 5));
    }
    await server.stop('immediate');
    await new Promise((r) => setTimeout(r, 200));
    stopping = true;
    await load;
    expect(statuses.filter((s) => s !== 201 && s !== 503)).toEqual([]);
    expect(statuses).toContain(503);

    // During: every answer is 503 problem details with Retry-After, and the probe fails.
    const ready = await t.app.inject({ method: 'GET', url: '/readyz' });
    expect(ready.statusCode).toBe(503);
    expect(Number(ready.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect((await t.app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
    expectUnavailable(await c.request('GET', '/v1/account'), true);
    for (const key of ['during-1', 'during-2']) expectUnavailable(await send(key), true);
    // A POST without Idempotency-Key is not safe to retry blindly (spec: retryable is forced to false).
    expectUnavailable(await c.request('POST', '/v1/accounts', { name: 'Sub', country: 'GB' }), false);

    // The server comes back: the same process serves again, without a restart.
    await server.start();
    const deadline = Date.now() + 30_000;
    while ((await t.app.inject({ method: 'GET', url: '/readyz' })).statusCode !== 200) {
      if (Date.now() > deadline) throw new Error('/readyz did not recover');
      await new Promise((r) => setTimeout(r, 100));
    }
    expect((await c.request('GET', '/v1/account')).statusCode).toBe(200);

    // After: every key is retried with the same body until answered; answered keys replay their payout.
    for (const key of keys) {
      let res = await send(key);
      for (let attempt = 1; res.statusCode !== 201 && attempt < 20; attempt++) {
        expect([409, 503], res.body).toContain(res.statusCode);
        await new Promise((r) => setTimeout(r, 100));
        res = await send(key);
      }
      expect(res.statusCode, `${key}: ${res.body}`).toBe(201);
    }
    for (const key of ['after-1', 'after-2']) expect((await send(key)).statusCode).toBe(201);

    const rows = await t.ctx.db.query<{ id: string; client_ref: string; holds: number }>(
      `SELECT p.id, p.client_ref,
              (SELECT count(*)::int FROM ledger_transfers tr WHERE tr.reference_type = 'payout' AND tr.reference_id = p.id::text AND tr.two_phase) AS holds
         FROM payouts p WHERE p.workspace_id = $1`,
      [c.workspaceId],
    );
    expect(rows).toHaveLength(keys.length);
    for (const row of rows) {
      expect(answered.get(row.client_ref)).toBe(row.id);
      expect(row.holds).toBe(1);
    }
    expect(await ledgerInvariantViolations(t.ctx.db)).toEqual([]);
    closed = true;
    await t.close();
  }, 120_000);
});

describe('which failures are an outage', () => {
  /** Errors as the drivers throw them when the server cannot be reached, and ones that are bugs. */
  const withCode = (message: string, code: string) => Object.assign(new Error(message), { code });
  const outages: Record<string, () => Error> = {
    refused: () => withCode('connect ECONNREFUSED 127.0.0.1:5432', 'ECONNREFUSED'),
    'refused on every address': () => new AggregateError([withCode('connect ECONNREFUSED ::1:5432', 'ECONNREFUSED'), withCode('connect ECONNREFUSED 127.0.0.1:5432', 'ECONNREFUSED')]),
    'admin shutdown (57P01)': () => withCode('terminating connection due to administrator command', '57P01'),
    'starting up (57P03)': () => withCode('the database system is starting up', '57P03'),
    'connection failure (08006)': () => withCode('connection failure', '08006'),
    'connection lost mid-query': () => new Error('Connection terminated unexpectedly'),
    'no pooled connection in time': () => new Error('timeout exceeded when trying to connect'),
  };
  const bugs: Record<string, () => Error> = {
    'undefined table (42P01)': () => withCode('relation "nope" does not exist', '42P01'),
    'unique violation (23505)': () => withCode('duplicate key value violates unique constraint "x"', '23505'),
    'a plain Error': () => new Error('boom'),
  };
  let app: TestApp;
  let token: string;
  beforeAll(async () => {
    app = await createTestApp({
      beforeReady: (a) => {
        a.get<{ Querystring: { kind: string } }>('/v1/test-fail', { config: { auth: 'workspace' } }, async (req) => {
          throw (outages[req.query.kind] ?? bugs[req.query.kind])!();
        });
      },
    });
    token = (await newWorkspace(app.app)).token;
  });
  afterAll(async () => app.close());
  const fail = (kind: string) => app.app.inject({ method: 'GET', url: `/v1/test-fail?kind=${encodeURIComponent(kind)}`, headers: { authorization: `Bearer ${token}` } });

  for (const kind of Object.keys(outages)) {
    it(`${kind}: 503 SERVICE_UNAVAILABLE with Retry-After`, async () => expectUnavailable(await fail(kind), true));
  }
  for (const kind of Object.keys(bugs)) {
    it(`${kind}: an opaque 500, no Retry-After`, async () => {
      const res = await fail(kind);
      expect(res.statusCode).toBe(500);
      expect(res.json()).toMatchObject({ code: 'INTERNAL_ERROR' });
      expect(res.headers['retry-after']).toBeUndefined();
    });
  }
});
