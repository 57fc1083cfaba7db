import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { advisoryKey } from '../../src/platform/db/db.js';
import { fieldError } from '../../src/platform/lib/errors.js';
import { deleteExpiredIdempotencyKeys, keyName, runIdempotent } from '../../src/platform/http/idempotency.js';
import { jobHandlers } from '../../src/jobs.js';
import type { Job } from '../../src/platform/jobs/queue.js';
import type { JobHandler } from '../../src/platform/jobs/runner.js';
import { accountData, createSubAccount } from '../../src/domains/accounts/accounts.service.js';
import { createTestApp, newWorkspace, onPostgres, type Caller, type TestApp } from '../helpers/app.js';

interface Account {
  id: string;
  name: string;
  clientRef?: string;
}

/** How many times each test route has been called with a given Idempotency-Key. */
const calls = new Map<string, number>();
function callNumber(route: string, key: string | string[] | undefined): number {
  const id = `${route}:${String(key)}`;
  const n = (calls.get(id) ?? 0) + 1;
  calls.set(id, n);
  return n;
}

let t: TestApp;

beforeAll(async () => {
  t = await createTestApp({
    beforeReady: (app, ctx) => {
      // Writes an account, then fails with a 500 on the first call for a key; succeeds afterwards.
      app.post<{ Body: { name: string } }>('/v1/test-flaky-500', { config: { auth: 'workspace' } }, async (req, reply) => {
        const n = callNumber('500', req.headers['idempotency-key']);
        return runIdempotent(ctx, req, reply, async (tx) => {
          const row = await createSubAccount(tx, req.auth.workspaceId, { name: req.body.name, country: 'GB' });
          if (n === 1) throw new Error('transient failure after a write');
          return { status: 201, body: accountData(row) };
        });
      });
      // Writes an account, then refuses with a 400 on the first call for a key; succeeds afterwards.
      app.post<{ Body: { name: string } }>('/v1/test-flaky-400', { config: { auth: 'workspace' } }, async (req, reply) => {
        const n = callNumber('400', req.headers['idempotency-key']);
        return runIdempotent(ctx, req, reply, async (tx) => {
          const row = await createSubAccount(tx, req.auth.workspaceId, { name: req.body.name, country: 'GB' });
          if (n === 1) throw fieldError('name', 'name is refused on the first attempt');
          return { status: 201, body: accountData(row) };
        });
      });
      // A refusal that must still commit its writes, answered as an Outcome.
      app.post<{ Body: { name: string } }>('/v1/test-outcome-422', { config: { auth: 'workspace' } }, async (req, reply) =>
        runIdempotent(ctx, req, reply, async (tx) => {
          await createSubAccount(tx, req.auth.workspaceId, { name: req.body.name, country: 'GB' });
          return { status: 422, body: { statusCode: 422, message: 'RECORDED_REFUSAL' } };
        }),
      );
    },
  });
});
afterAll(async () => t.close());

async function subAccounts(caller: Caller): Promise<Account[]> {
  const res = await caller.request('GET', '/v1/accounts?limit=100');
  expect(res.statusCode).toBe(200);
  return res.json<{ data: Account[] }>().data;
}

async function createdEvents(app: TestApp, workspaceId: string): Promise<number> {
  const [row] = await app.ctx.db.query<{ n: number }>(
    "SELECT count(*)::int AS n FROM events WHERE workspace_id = $1 AND type = 'account.created'",
    [workspaceId],
  );
  return row?.n ?? -1;
}

async function storedKeys(app: TestApp, workspaceId: string): Promise<{ key: string; status_code: number }[]> {
  return app.ctx.db.query('SELECT key, status_code FROM idempotency_keys WHERE owner_id = $1 ORDER BY key', [workspaceId]);
}

function expectProblem(res: { statusCode: number; headers: Record<string, unknown>; json: () => unknown }, status: number, code: string) {
  expect(res.statusCode).toBe(status);
  expect(String(res.headers['content-type'])).toMatch(/^application\/problem\+json/);
  const body = res.json() as Record<string, unknown>;
  expect(body).toMatchObject({ status, code });
  for (const member of ['type', 'title', 'detail', 'category', 'retryable', 'request_id']) expect(body).toHaveProperty(member);
  expect(body.request_id).toBe(res.headers['x-request-id']);
  return body;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('replay', () => {
  it('keeps stored answers encrypted at rest (an answer may carry a secret shown once)', async () => {
    const caller = await newWorkspace(t.app);
    const res = await caller.request('POST', '/v1/webhooks', { url: 'https://hooks.example.com/corridor' }, { 'idempotency-key': 'secret-once' });
    expect(res.statusCode, res.body).toBe(201);
    const secret = res.json<{ secret: string }>().secret;
    const [row] = await t.ctx.db.query<{ response_body: string }>('SELECT response_body FROM idempotency_keys WHERE owner_id = $1 AND key = $2', [caller.workspaceId, 'secret-once']);
    expect(row?.response_body).not.toContain(secret);
    expect(row?.response_body).not.toContain('whsec_');
    const replay = await caller.request('POST', '/v1/webhooks', { url: 'https://hooks.example.com/corridor' }, { 'idempotency-key': 'secret-once' });
    expect(replay.body).toBe(res.body);
  });

  it('same key and same body replays the stored status and body byte for byte and creates nothing', async () => {
    const caller = await newWorkspace(t.app);
    const body = { name: 'Replay Ltd', country: 'GB', clientRef: 'replay-1' };
    const first = await caller.request('POST', '/v1/accounts', body, { 'idempotency-key': 'key-replay' });
    expect(first.statusCode).toBe(201);
    expect(first.headers['idempotent-replayed']).toBeUndefined();

    for (let i = 0; i < 3; i++) {
      const again = await caller.request('POST', '/v1/accounts', body, { 'idempotency-key': 'key-replay' });
      expect(again.statusCode).toBe(201);
      expect(again.headers['idempotent-replayed']).toBe('true');
      expect(again.body).toBe(first.body);
      expect(again.headers['content-type']).toBe(first.headers['content-type']);
      // A replay is still a request of its own.
      expect(again.headers['x-request-id']).not.toBe(first.headers['x-request-id']);
    }
    const accounts = await subAccounts(caller);
    expect(accounts).toHaveLength(1);
    expect(accounts[0]?.id).toBe(first.json<Account>().id);
    expect(await createdEvents(t, caller.workspaceId)).toBe(1);
    expect(await storedKeys(t, caller.workspaceId)).toEqual([{ key: 'key-replay', status_code: 201 }]);
  });

  it('without a key, two identical POSTs create two accounts', async () => {
    const caller = await newWorkspace(t.app);
    const a = await caller.request('POST', '/v1/accounts', { name: 'No Key Ltd', country: 'GB' });
    const b = await caller.request('POST', '/v1/accounts', { name: 'No Key Ltd', country: 'GB' });
    expect([a.statusCode, b.statusCode]).toEqual([201, 201]);
    expect(a.json<Account>().id).not.toBe(b.json<Account>().id);
    expect(b.headers['idempotent-replayed']).toBeUndefined();
    expect(await subAccounts(caller)).toHaveLength(2);
    expect(await storedKeys(t, caller.workspaceId)).toEqual([]);
  });

  it('same key with a different body is 422 IDEMPOTENCY_KEY_REUSED and creates nothing', async () => {
    const caller = await newWorkspace(t.app);
    const first = await caller.request('POST', '/v1/accounts', { name: 'First Body', country: 'GB' }, { 'idempotency-key': 'key-reuse' });
    expect(first.statusCode).toBe(201);

    const other = await caller.request('POST', '/v1/accounts', { name: 'Second Body', country: 'GB' }, { 'idempotency-key': 'key-reuse' });
    const problem = expectProblem(other, 422, 'IDEMPOTENCY_KEY_REUSED');
    expect(problem.retryable).toBe(false);
    expect(other.headers['idempotent-replayed']).toBeUndefined();

    // The same key on another path is another request too.
    const otherPath = await caller.request('POST', '/v1/test-flaky-400', { name: 'First Body', country: 'GB' }, { 'idempotency-key': 'key-reuse' });
    expectProblem(otherPath, 422, 'IDEMPOTENCY_KEY_REUSED');

    // The original still replays.
    const again = await caller.request('POST', '/v1/accounts', { name: 'First Body', country: 'GB' }, { 'idempotency-key': 'key-reuse' });
    expect(again.statusCode).toBe(201);
    expect(again.body).toBe(first.body);

    const accounts = await subAccounts(caller);
    expect(accounts.map((a) => a.name)).toEqual(['First Body']);
    expect(await createdEvents(t, caller.workspaceId)).toBe(1);
  });

  it('the fingerprint includes Service-Account-Id', async () => {
    const caller = await newWorkspace(t.app);
    const sub = (await caller.request('POST', '/v1/accounts', { name: 'Owned Sub', country: 'GB' })).json<Account>();
    const body = { name: 'Child Ltd', country: 'GB' };
    const first = await caller.request('POST', '/v1/accounts', body, { 'idempotency-key': 'key-sub' });
    expect(first.statusCode).toBe(201);
    const asSub = await caller.request('POST', '/v1/accounts', body, { 'idempotency-key': 'key-sub', 'service-account-id': sub.id });
    expectProblem(asSub, 422, 'IDEMPOTENCY_KEY_REUSED');
  });

  it('keys are scoped to the workspace', async () => {
    const alpha = await newWorkspace(t.app, { name: 'Alpha Ltd' });
    const beta = await newWorkspace(t.app, { name: 'Beta Ltd' });
    const body = { name: 'Shared Key Ltd', country: 'GB' };
    const a = await alpha.request('POST', '/v1/accounts', body, { 'idempotency-key': 'shared-key' });
    const b = await beta.request('POST', '/v1/accounts', body, { 'idempotency-key': 'shared-key' });
    expect([a.statusCode, b.statusCode]).toEqual([201, 201]);
    expect(b.headers['idempotent-replayed']).toBeUndefined();
    expect(a.json<Account>().id).not.toBe(b.json<Account>().id);

    // A different body under the same key in the other workspace is not a reuse either.
    const gamma = await newWorkspace(t.app, { name: 'Gamma Ltd' });
    const c = await gamma.request('POST', '/v1/accounts', { name: 'Something Else', country: 'FR' }, { 'idempotency-key': 'shared-key' });
    expect(c.statusCode).toBe(201);

    // Each workspace replays its own.
    const a2 = await alpha.request('POST', '/v1/accounts', body, { 'idempotency-key': 'shared-key' });
    const b2 = await beta.request('POST', '/v1/accounts', body, { 'idempotency-key': 'shared-key' });
    expect(a2.body).toBe(a.body);
    expect(b2.body).toBe(b.body);
    expect(await subAccounts(alpha)).toHaveLength(1);
    expect(await subAccounts(beta)).toHaveLength(1);
    expect(await subAccounts(gamma)).toHaveLength(1);
  });

  it('refuses a key that is not 1 to 255 printable ASCII characters', async () => {
    const caller = await newWorkspace(t.app);
    for (const key of ['x'.repeat(256), 'has space', 'caf\u00e9']) {
      const res = await caller.request('POST', '/v1/accounts', { name: 'Bad Key Ltd', country: 'GB' }, { 'idempotency-key': key });
      const body = expectProblem(res, 400, 'IDEMPOTENCY_KEY_INVALID');
      expect(body.category).toBe('invalid_request');
    }
    expect(await subAccounts(caller)).toHaveLength(0);

    const longest = 'k'.repeat(255);
    const ok = await caller.request('POST', '/v1/accounts', { name: 'Long Key Ltd', country: 'GB' }, { 'idempotency-key': longest });
    expect(ok.statusCode).toBe(201);
    const again = await caller.request('POST', '/v1/accounts', { name: 'Long Key Ltd', country: 'GB' }, { 'idempotency-key': longest });
    expect(again.headers['idempotent-replayed']).toBe('true');
    const punct = await caller.request('POST', '/v1/accounts', { name: 'Punct Key Ltd', country: 'GB' }, { 'idempotency-key': '!~{}/:;"' });
    expect(punct.statusCode).toBe(201);
  });
});

describe('what is stored', () => {
  it('a 4xx from the work (duplicate clientRef 409) is stored and replayed', async () => {
    const caller = await newWorkspace(t.app);
    const body = { name: 'Dup Ltd', country: 'GB', clientRef: 'dup-ref' };
    expect((await caller.request('POST', '/v1/accounts', body, { 'idempotency-key': 'dup-a' })).statusCode).toBe(201);

    const conflict = await caller.request('POST', '/v1/accounts', body, { 'idempotency-key': 'dup-b' });
    expect(conflict.statusCode).toBe(409);
    expect(conflict.headers['content-type']).toMatch(/^application\/json/);
    expect(conflict.json()).toMatchObject({ statusCode: 409, code: 'DUPLICATE_CLIENT_REF', path: '/v1/accounts' });
    expect(conflict.headers['idempotent-replayed']).toBeUndefined();

    await sleep(5);
    const replay = await caller.request('POST', '/v1/accounts', body, { 'idempotency-key': 'dup-b' });
    expect(replay.statusCode).toBe(409);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body).toBe(conflict.body); // same timestamp: the stored answer, not a new refusal
    expect(replay.headers['content-type']).toBe(conflict.headers['content-type']);
    expect(await storedKeys(t, caller.workspaceId)).toEqual([
      { key: 'dup-a', status_code: 201 },
      { key: 'dup-b', status_code: 409 },
    ]);
  });

  it('a 4xx thrown by the work is stored and replayed even when a retry would now succeed; its writes are undone', async () => {
    const caller = await newWorkspace(t.app);
    const first = await caller.request('POST', '/v1/test-flaky-400', { name: 'Flaky Four' }, { 'idempotency-key': 'k-400' });
    expect(first.statusCode).toBe(400);
    expect(first.json()).toMatchObject({ statusCode: 400, error: 'BAD_REQUEST', details: [{ field: 'name' }] });
    expect(await subAccounts(caller)).toHaveLength(0);

    const replay = await caller.request('POST', '/v1/test-flaky-400', { name: 'Flaky Four' }, { 'idempotency-key': 'k-400' });
    expect(replay.statusCode).toBe(400);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body).toBe(first.body);
    expect(await subAccounts(caller)).toHaveLength(0);

    // A new key runs anew (and this time the route succeeds).
    const fresh = await caller.request('POST', '/v1/test-flaky-400', { name: 'Flaky Four' }, { 'idempotency-key': 'k-400-b' });
    expect(fresh.statusCode).toBe(400); // first call for this key
    const fresh2 = await caller.request('POST', '/v1/test-flaky-400', { name: 'Flaky Four' }, { 'idempotency-key': 'k-400-c' });
    expect(fresh2.statusCode).toBe(400);
    expect(await storedKeys(t, caller.workspaceId)).toHaveLength(3);
  });

  it('a 4xx outcome that commits its writes is stored with them', async () => {
    const caller = await newWorkspace(t.app);
    const first = await caller.request('POST', '/v1/test-outcome-422', { name: 'Outcome Ltd' }, { 'idempotency-key': 'k-422' });
    expect(first.statusCode).toBe(422);
    expect(first.json()).toEqual({ statusCode: 422, message: 'RECORDED_REFUSAL' });
    const replay = await caller.request('POST', '/v1/test-outcome-422', { name: 'Outcome Ltd' }, { 'idempotency-key': 'k-422' });
    expect(replay.statusCode).toBe(422);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body).toBe(first.body);
    expect(await subAccounts(caller)).toHaveLength(1);
  });

  it('a 5xx is not stored: its writes roll back and the retry runs anew', async () => {
    const caller = await newWorkspace(t.app);
    const body = { name: 'Flaky Five' };
    const first = await caller.request('POST', '/v1/test-flaky-500', body, { 'idempotency-key': 'k-500' });
    const problem = expectProblem(first, 500, 'INTERNAL_ERROR');
    expect(problem.retryable).toBe(true);
    expect(first.body).not.toContain('transient failure');
    expect(await subAccounts(caller)).toHaveLength(0);
    expect(await createdEvents(t, caller.workspaceId)).toBe(0);
    expect(await storedKeys(t, caller.workspaceId)).toEqual([]);

    const second = await caller.request('POST', '/v1/test-flaky-500', body, { 'idempotency-key': 'k-500' });
    expect(second.statusCode).toBe(201);
    expect(second.headers['idempotent-replayed']).toBeUndefined();
    const created = second.json<Account>();
    expect(created.name).toBe('Flaky Five');

    const third = await caller.request('POST', '/v1/test-flaky-500', body, { 'idempotency-key': 'k-500' });
    expect(third.statusCode).toBe(201);
    expect(third.headers['idempotent-replayed']).toBe('true');
    expect(third.body).toBe(second.body);

    const accounts = await subAccounts(caller);
    expect(accounts.map((a) => a.id)).toEqual([created.id]);
    expect(await createdEvents(t, caller.workspaceId)).toBe(1);
  });

  it('stores a request refused by schema validation under its key and replays it (DESIGN: completed 4xx answers are stored)', async () => {
    const caller = await newWorkspace(t.app);
    const bad = await caller.request('POST', '/v1/accounts', { name: 'X', country: 'GB' }, { 'idempotency-key': 'k-fix' });
    expect(bad.statusCode).toBe(400);
    const again = await caller.request('POST', '/v1/accounts', { name: 'X', country: 'GB' }, { 'idempotency-key': 'k-fix' });
    expect(again.statusCode).toBe(400);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toBe(bad.body);
    const corrected = await caller.request('POST', '/v1/accounts', { name: 'Fixed Ltd', country: 'GB' }, { 'idempotency-key': 'k-fix' });
    expect(corrected.statusCode).toBe(422);
    expect(corrected.json()).toMatchObject({ code: 'IDEMPOTENCY_KEY_REUSED' });
    const fresh = await caller.request('POST', '/v1/accounts', { name: 'Fixed Ltd', country: 'GB' }, { 'idempotency-key': 'k-fix-2' });
    expect(fresh.statusCode).toBe(201);
  });

  it('stores a payout refused by schema validation (single and batch) and replays it with its first timestamp', async () => {
    const caller = await newWorkspace(t.app);
    for (const [key, body] of [
      ['k-schema-one', { clientRef: 'schema-1', amount: 10, currency: 'EUR', beneficiary: { id: '00000000-0000-4000-8000-000000000000' } }],
      ['k-schema-many', [{ clientRef: 'schema-2', amount: '10.00', currency: 'EUR' }]],
    ] as const) {
      const first = await caller.request('POST', '/v1/payouts', body, { 'idempotency-key': key });
      expect(first.statusCode).toBe(400);
      const second = await caller.request('POST', '/v1/payouts', body, { 'idempotency-key': key });
      expect(second.statusCode).toBe(400);
      expect(second.headers['idempotent-replayed']).toBe('true');
      expect(second.json().timestamp).toBe(first.json().timestamp);
      expect(second.body).toBe(first.body);
    }
  });
});

describe('expiry and cleanup', () => {
  let short: TestApp;
  beforeAll(async () => {
    short = await createTestApp({ env: { IDEMPOTENCY_TTL_MS: '300' } });
  });
  afterAll(async () => short.close());

  it('after the TTL the same key runs as a new request', async () => {
    const caller = await newWorkspace(short.app);
    const body = { name: 'Expiring Ltd', country: 'GB' };
    const first = await caller.request('POST', '/v1/accounts', body, { 'idempotency-key': 'k-exp' });
    expect(first.statusCode).toBe(201);
    await sleep(450);
    const later = await caller.request('POST', '/v1/accounts', body, { 'idempotency-key': 'k-exp' });
    expect(later.statusCode).toBe(201);
    expect(later.headers['idempotent-replayed']).toBeUndefined();
    expect(later.json<Account>().id).not.toBe(first.json<Account>().id);

    // After expiry a different body is a new request too, not a reuse.
    await sleep(450);
    const other = await caller.request('POST', '/v1/accounts', { name: 'Other Ltd', country: 'GB' }, { 'idempotency-key': 'k-exp' });
    expect(other.statusCode).toBe(201);
    expect(await subAccounts(caller)).toHaveLength(3);
  });

  it('the cleanup deletes expired keys only, bounded per run', async () => {
    const caller = await newWorkspace(short.app);
    for (const key of ['c1', 'c2', 'c3']) {
      const res = await caller.request('POST', '/v1/accounts', { name: `Cleanup ${key}`, country: 'GB' }, { 'idempotency-key': key });
      expect(res.statusCode).toBe(201);
    }
    // A key that has not expired.
    await short.ctx.db.query(
      `INSERT INTO idempotency_keys (owner_id, key, fingerprint, status_code, response_body, content_type, expires_at)
       VALUES ($1, 'live', 'f', 201, '{}', 'application/json', now() + interval '1 hour')`,
      [caller.workspaceId],
    );
    await sleep(450);
    expect((await storedKeys(short, caller.workspaceId)).map((k) => k.key)).toEqual(['c1', 'c2', 'c3', 'live']);

    const countAll = async () => (await short.ctx.db.query<{ n: number }>('SELECT count(*)::int AS n FROM idempotency_keys'))[0]?.n;
    const before = await countAll();
    expect(before).toBeGreaterThanOrEqual(4);
    expect(await deleteExpiredIdempotencyKeys(short.ctx, 2)).toBe(2);
    expect(await countAll()).toBe((before ?? 0) - 2);
    // The job handler finishes the rest.
    const handler = jobHandlers.get('idempotency.cleanup') as JobHandler | undefined;
    expect(handler).toBeDefined();
    await handler?.(short.ctx, { id: '1', kind: 'idempotency.cleanup', payload: {}, attempts: 0, max_attempts: 3 } satisfies Job);
    expect((await storedKeys(short, caller.workspaceId)).map((k) => k.key)).toEqual(['live']);
    expect(await countAll()).toBe(1);
    expect(await deleteExpiredIdempotencyKeys(short.ctx)).toBe(0);

    // A deleted key is free again.
    const again = await caller.request('POST', '/v1/accounts', { name: 'Cleanup c1', country: 'GB' }, { 'idempotency-key': 'c1' });
    expect(again.statusCode).toBe(201);
    expect(again.headers['idempotent-replayed']).toBeUndefined();
  });
});

describe('concurrency', () => {
  it.skipIf(!onPostgres)('a repeat while the first holds the key is 409 IDEMPOTENCY_KEY_PROCESSING, retryable', async () => {
    const caller = await newWorkspace(t.app);
    const key = 'k-in-flight';
    const holder = new pg.Client({ connectionString: t.env.DATABASE_URL });
    await holder.connect();
    try {
      await holder.query('BEGIN');
      await holder.query('SELECT pg_advisory_xact_lock($1::bigint)', [advisoryKey(`idempotency:${keyName({ scope: 'workspace', ownerId: caller.workspaceId, key })}`)]);
      const body = { name: 'In Flight Ltd', country: 'GB' };
      const res = await caller.request('POST', '/v1/accounts', body, { 'idempotency-key': key });
      const problem = expectProblem(res, 409, 'IDEMPOTENCY_KEY_PROCESSING');
      expect(problem.retryable).toBe(true);
      expect(problem.category).toBe('conflict');
      expect(res.headers['idempotent-replayed']).toBeUndefined();
      // Another key is not held up.
      const other = await caller.request('POST', '/v1/accounts', { name: 'Other Key Ltd', country: 'GB' }, { 'idempotency-key': 'k-other' });
      expect(other.statusCode).toBe(201);
      await holder.query('ROLLBACK');

      const retry = await caller.request('POST', '/v1/accounts', body, { 'idempotency-key': key });
      expect(retry.statusCode).toBe(201);
      expect(retry.headers['idempotent-replayed']).toBeUndefined();
      expect((await subAccounts(caller)).map((a) => a.name).sort()).toEqual(['In Flight Ltd', 'Other Key Ltd']);
    } finally {
      await holder.end();
    }
  });

  // Required on PostgreSQL; on the embedded database transactions are serial, so every answer is 201.
  it('20 concurrent identical POSTs over HTTP create one account and one event', async () => {
    const address = await t.app.listen({ port: 0, host: '127.0.0.1' });
    const port = (t.app.server.address() as AddressInfo).port;
    expect(address).toContain(String(port));
    for (let round = 0; round < 3; round++) {
      const caller = await newWorkspace(t.app);
      const key = `race-${round}`;
      const body = JSON.stringify({ name: `Race ${round} Ltd`, country: 'GB', clientRef: `race-${round}` });
      const send = async () => {
        const res = await fetch(`http://127.0.0.1:${port}/v1/accounts`, {
          method: 'POST',
          headers: { authorization: `Bearer ${caller.token}`, 'content-type': 'application/json', 'idempotency-key': key },
          body,
        });
        return { status: res.status, type: res.headers.get('content-type') ?? '', replayed: res.headers.get('idempotent-replayed'), requestId: res.headers.get('x-request-id'), text: await res.text() };
      };
      const results = await Promise.all(Array.from({ length: 20 }, send));

      const created = results.filter((r) => r.status === 201);
      const processing = results.filter((r) => r.status === 409);
      expect(created.length + processing.length, JSON.stringify(results.map((r) => [r.status, r.text]))).toBe(20);
      expect(created.length).toBeGreaterThanOrEqual(1);
      const ids = new Set(created.map((r) => (JSON.parse(r.text) as Account).id));
      expect(ids.size).toBe(1);
      expect(new Set(created.map((r) => r.text)).size).toBe(1);
      expect(created.filter((r) => r.replayed !== 'true')).toHaveLength(1);
      for (const r of processing) {
        expect(r.type).toMatch(/^application\/problem\+json/);
        const problem = JSON.parse(r.text) as { code: string; retryable: boolean; request_id: string };
        expect(problem.code).toBe('IDEMPOTENCY_KEY_PROCESSING');
        expect(problem.retryable).toBe(true);
        expect(problem.request_id).toBe(r.requestId);
      }
      if (!onPostgres) expect(processing).toHaveLength(0);

      const accounts = await subAccounts(caller);
      expect(accounts).toHaveLength(1);
      const [id] = [...ids];
      expect(accounts[0]?.id).toBe(id);
      expect(await createdEvents(t, caller.workspaceId)).toBe(1);

      const retry = await send();
      expect(retry.status).toBe(201);
      expect(retry.replayed).toBe('true');
      expect((JSON.parse(retry.text) as Account).id).toBe(id);
      expect(retry.text).toBe(created[0]?.text);
    }
  });

  it('concurrent POSTs with one key and different bodies create at most one account', async () => {
    const port = (t.app.server.address() as AddressInfo | null)?.port;
    expect(port).toBeDefined();
    const caller = await newWorkspace(t.app);
    const results = await Promise.all(
      Array.from({ length: 10 }, async (_, i) => {
        const res = await fetch(`http://127.0.0.1:${port}/v1/accounts`, {
          method: 'POST',
          headers: { authorization: `Bearer ${caller.token}`, 'content-type': 'application/json', 'idempotency-key': 'race-mixed' },
          body: JSON.stringify({ name: `Mixed ${i} Ltd`, country: 'GB' }),
        });
        return res.status;
      }),
    );
    expect(results.filter((s) => s === 201)).toHaveLength(1);
    for (const s of results) expect([201, 409, 422]).toContain(s);
    expect(await subAccounts(caller)).toHaveLength(1);
    expect(await createdEvents(t, caller.workspaceId)).toBe(1);
  });
});
