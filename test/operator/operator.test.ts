import { randomUUID } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALL_SCOPES } from '../../src/domains/auth/scopes.js';
import { createTestApp, getToken, OPERATOR_KEY, onPostgres, operator, type TestApp } from '../helpers/app.js';

let t: TestApp;

beforeAll(async () => {
  t = await createTestApp({
    beforeReady: (app) => {
      // An operator route that takes any body: exercises the audit log's redaction.
      app.post('/operator/v1/test-echo', { config: { auth: 'operator' } }, async () => ({ ok: true }));
    },
  });
});
afterAll(async () => t.close());

/** The embedded database's clock ticks in milliseconds: space rows whose order a test observes. */
const tick = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 3));

interface Workspace {
  id: string;
  name: string;
  country: string;
  status: string;
  enabledCurrencies: string[];
  capabilities: Record<string, boolean>;
  settings: Record<string, unknown>;
  createdAt: string;
  updatedAt: string;
}

interface AuditEntry {
  id: string;
  at: string;
  operatorKeyId: string | null;
  method: string;
  path: string;
  statusCode: number;
  requestId: string;
  workspaceId: string | null;
  body: unknown;
}

async function createWorkspace(name = 'Operated Ltd', country = 'GB'): Promise<Workspace> {
  const res = await operator(t.app, 'POST', '/operator/v1/workspaces', { name, country });
  expect(res.statusCode).toBe(201);
  return res.json<Workspace>();
}

function expectProblem(res: LightMyRequestResponse, status: number, code?: string): Record<string, unknown> {
  expect(res.statusCode).toBe(status);
  expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
  const body = res.json<Record<string, unknown>>();
  expect(body).toMatchObject({ status, ...(code ? { code } : {}), request_id: res.headers['x-request-id'] });
  return body;
}

async function auditLog(query = ''): Promise<{ object: string; data: AuditEntry[]; hasMore: boolean; nextCursor: string | null }> {
  const res = await operator(t.app, 'GET', `/operator/v1/audit-log${query}`);
  expect(res.statusCode).toBe(200);
  return res.json();
}

describe('operator authentication', () => {
  it('refuses a call without an operator key with 401 {statusCode, message}', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/operator/v1/workspaces' });
    expect(res.statusCode).toBe(401);
    expect(Object.keys(res.json()).sort()).toEqual(['message', 'statusCode']);
  });

  it('refuses a wrong operator key with 401', async () => {
    for (const authorization of [`Bearer ${OPERATOR_KEY}x`, 'Bearer op_nope', `Basic ${Buffer.from(`x:${OPERATOR_KEY}`).toString('base64')}`, OPERATOR_KEY]) {
      const res = await t.app.inject({ method: 'GET', url: '/operator/v1/workspaces', headers: { authorization } });
      expect(res.statusCode).toBe(401);
      expect(res.json()).toEqual({ statusCode: 401, message: expect.any(String) });
    }
  });

  it("refuses a workspace's access token on the operator API", async () => {
    const ws = await createWorkspace('Token Holder Ltd');
    const cred = (await operator(t.app, 'POST', `/operator/v1/workspaces/${ws.id}/credentials`, {})).json<{ clientId: string; clientSecret: string }>();
    const token = await getToken(t.app, cred.clientId, cred.clientSecret);
    const res = await t.app.inject({ method: 'GET', url: '/operator/v1/workspaces', headers: { authorization: `Bearer ${token}` } });
    expect(res.statusCode).toBe(401);
  });

  it('refuses the operator key on the workspace API', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/v1/account', headers: { authorization: `Bearer ${OPERATOR_KEY}` } });
    expect(res.statusCode).toBe(401);
  });
});

describe('workspaces', () => {
  it('creates a workspace with the default currencies, every capability on and its primary currency', async () => {
    const res = await operator(t.app, 'POST', '/operator/v1/workspaces', { name: 'Fresh Ltd', country: 'NG' });
    expect(res.statusCode).toBe(201);
    const ws = res.json<Workspace>();
    expect(ws).toMatchObject({ id: expect.stringMatching(/^[0-9a-f-]{36}$/), name: 'Fresh Ltd', country: 'NG', status: 'active' });
    expect(ws.enabledCurrencies).toEqual(['EUR', 'GBP', 'NGN', 'USD', 'USDC']);
    expect(ws.capabilities).toEqual({ payouts: true, crypto_payouts: true, orders: true, fx: true, virtual_accounts: true, deposits: true, applications: true });
    expect(ws.settings).toMatchObject({ primaryCurrency: 'NGN', travelRuleScreening: true });
  });

  it('refuses an invalid workspace with 400 problem details', async () => {
    const res = await operator(t.app, 'POST', '/operator/v1/workspaces', { name: 'X', country: 'nigeria' });
    const body = expectProblem(res, 400);
    expect((body.errors as Array<{ field: string }>).map((e) => e.field).sort()).toEqual(['country', 'name']);
  });

  it('reads one workspace and lists workspaces newest first', async () => {
    const a = await createWorkspace('List A Ltd');
    await tick();
    const b = await createWorkspace('List B Ltd');
    const one = await operator(t.app, 'GET', `/operator/v1/workspaces/${a.id}`);
    expect(one.statusCode).toBe(200);
    expect(one.json()).toEqual(a);

    const list = await operator(t.app, 'GET', '/operator/v1/workspaces?limit=100');
    expect(list.statusCode).toBe(200);
    const page = list.json<{ object: string; data: Workspace[]; hasMore: boolean; nextCursor: string | null }>();
    expect(page.object).toBe('workspace.list');
    const ids = page.data.map((w) => w.id);
    expect(ids.indexOf(b.id)).toBeGreaterThanOrEqual(0);
    expect(ids.indexOf(b.id)).toBeLessThan(ids.indexOf(a.id));
    // The sandbox demo workspace is there too.
    expect(page.data.some((w) => w.name === 'Demo workspace')).toBe(true);

    const small = (await operator(t.app, 'GET', '/operator/v1/workspaces?limit=1')).json<{ data: Workspace[]; hasMore: boolean; nextCursor: string | null }>();
    expect(small.data).toHaveLength(1);
    expect(small.hasMore).toBe(true);
    expect(small.nextCursor).toEqual(expect.any(String));
  });

  it('answers 404 problem details for an unknown workspace on every workspace route', async () => {
    const id = randomUUID();
    const calls: Array<[string, string, unknown]> = [
      ['GET', `/operator/v1/workspaces/${id}`, undefined],
      ['POST', `/operator/v1/workspaces/${id}/credentials`, {}],
      ['PUT', `/operator/v1/workspaces/${id}/currencies/XOF`, { enabled: true }],
      ['PUT', `/operator/v1/workspaces/${id}/capabilities/payouts`, { enabled: false }],
      ['PUT', `/operator/v1/workspaces/${id}/settings`, { travelRuleScreening: false }],
    ];
    for (const [method, url, body] of calls) {
      expectProblem(await operator(t.app, method as 'GET', url, body), 404, 'NOT_FOUND');
    }
  });
});

describe('credentials', () => {
  it('issues a credential with every scope, shows its secret once, and the credential gets a token', async () => {
    const ws = await createWorkspace('Cred Ltd', 'GH');
    const res = await operator(t.app, 'POST', `/operator/v1/workspaces/${ws.id}/credentials`, {});
    expect(res.statusCode).toBe(201);
    const cred = res.json<{ clientId: string; clientSecret: string; scopes: string[] }>();
    expect(cred.clientId).toMatch(/^[0-9a-f-]{36}$/);
    expect(cred.clientSecret.length).toBeGreaterThanOrEqual(32);
    expect([...cred.scopes].sort()).toEqual([...ALL_SCOPES].sort());

    const token = await getToken(t.app, cred.clientId, cred.clientSecret);
    const account = await t.app.inject({ method: 'GET', url: '/v1/account', headers: { authorization: `Bearer ${token}` } });
    expect(account.statusCode).toBe(200);
    expect(account.json()).toMatchObject({ id: ws.id, name: 'Cred Ltd', accountType: 'master', primaryCurrency: 'GHS' });

    // The secret is never shown again.
    const keys = await t.app.inject({ method: 'GET', url: '/v1/api-keys', headers: { authorization: `Bearer ${token}` } });
    expect(keys.statusCode).toBe(200);
    expect(keys.body).not.toContain(cred.clientSecret);
    expect((await operator(t.app, 'GET', `/operator/v1/workspaces/${ws.id}`)).body).not.toContain(cred.clientSecret);
    const [stored] = await t.ctx.db.query<{ secret_hash: string }>('SELECT secret_hash FROM credentials WHERE client_id = $1', [cred.clientId]);
    expect(stored?.secret_hash).toMatch(/^hmac-sha256\$/);
    expect(stored?.secret_hash).not.toContain(cred.clientSecret);
  });

  it('issues a credential with exactly the scopes asked for', async () => {
    const ws = await createWorkspace('Narrow Ltd');
    const res = await operator(t.app, 'POST', `/operator/v1/workspaces/${ws.id}/credentials`, { scopes: ['read:accounts', 'read:balances'] });
    expect(res.statusCode).toBe(201);
    const cred = res.json<{ clientId: string; clientSecret: string; scopes: string[] }>();
    expect(cred.scopes).toEqual(['read:accounts', 'read:balances']);
    const token = await getToken(t.app, cred.clientId, cred.clientSecret);
    const auth = { authorization: `Bearer ${token}` };
    expect((await t.app.inject({ method: 'GET', url: '/v1/account', headers: auth })).statusCode).toBe(200);
    const write = await t.app.inject({ method: 'POST', url: '/v1/accounts', headers: auth, payload: { name: 'Nope', country: 'GB' } });
    expect(write.statusCode).toBe(403);
    expect(write.json()).toMatchObject({ code: 'METHOD_NOT_ENTITLED' });
  });

  it('refuses an unknown scope with 400 problem details and issues nothing', async () => {
    const ws = await createWorkspace('Bad Scope Ltd');
    const res = await operator(t.app, 'POST', `/operator/v1/workspaces/${ws.id}/credentials`, { scopes: ['read:accounts', 'root:everything'] });
    const body = expectProblem(res, 400);
    expect(body.errors).toEqual([expect.objectContaining({ field: 'scopes.1' })]);
    const rows = await t.ctx.db.query('SELECT 1 FROM credentials WHERE workspace_id = $1', [ws.id]);
    expect(rows).toHaveLength(0);
  });
});

describe('currencies, capabilities and settings', () => {
  it('enables an on-request currency (XOF) and disables it again', async () => {
    const ws = await createWorkspace('Franc Ltd', 'SN');
    const on = await operator(t.app, 'PUT', `/operator/v1/workspaces/${ws.id}/currencies/XOF`, { enabled: true });
    expect(on.statusCode).toBe(200);
    expect(on.json<Workspace>().enabledCurrencies).toEqual(['EUR', 'GBP', 'NGN', 'USD', 'USDC', 'XOF']);
    expect((await operator(t.app, 'GET', `/operator/v1/workspaces/${ws.id}`)).json<Workspace>().enabledCurrencies).toContain('XOF');

    const again = await operator(t.app, 'PUT', `/operator/v1/workspaces/${ws.id}/currencies/XOF`, { enabled: true });
    expect(again.json<Workspace>().enabledCurrencies.filter((c) => c === 'XOF')).toHaveLength(1);

    const off = await operator(t.app, 'PUT', `/operator/v1/workspaces/${ws.id}/currencies/XOF`, { enabled: false });
    expect(off.statusCode).toBe(200);
    expect(off.json<Workspace>().enabledCurrencies).toEqual(['EUR', 'GBP', 'NGN', 'USD', 'USDC']);
  });

  it('disables a default currency', async () => {
    const ws = await createWorkspace('No Naira Ltd');
    const off = await operator(t.app, 'PUT', `/operator/v1/workspaces/${ws.id}/currencies/NGN`, { enabled: false });
    expect(off.json<Workspace>().enabledCurrencies).not.toContain('NGN');
  });

  it('enables a sandbox-only currency (ZMW) in the sandbox', async () => {
    const ws = await createWorkspace('Kwacha Ltd', 'ZM');
    const on = await operator(t.app, 'PUT', `/operator/v1/workspaces/${ws.id}/currencies/ZMW`, { enabled: true });
    expect(on.statusCode).toBe(200);
    expect(on.json<Workspace>().enabledCurrencies).toContain('ZMW');
  });

  it('refuses an unknown currency with 400', async () => {
    const ws = await createWorkspace('Unknown Cur Ltd');
    const body = expectProblem(await operator(t.app, 'PUT', `/operator/v1/workspaces/${ws.id}/currencies/ABC`, { enabled: true }), 400);
    expect(body.errors).toEqual([expect.objectContaining({ field: 'code', code: 'UNSUPPORTED_CURRENCY' })]);
    expectProblem(await operator(t.app, 'PUT', `/operator/v1/workspaces/${ws.id}/currencies/xof`, { enabled: true }), 400);
    expectProblem(await operator(t.app, 'PUT', `/operator/v1/workspaces/${ws.id}/currencies/XOF`, { enabled: 'yes' }), 400);
    expect((await operator(t.app, 'GET', `/operator/v1/workspaces/${ws.id}`)).json<Workspace>().enabledCurrencies).toEqual(['EUR', 'GBP', 'NGN', 'USD', 'USDC']);
  });

  it('switches a capability off and on', async () => {
    const ws = await createWorkspace('Cap Ltd');
    const off = await operator(t.app, 'PUT', `/operator/v1/workspaces/${ws.id}/capabilities/orders`, { enabled: false });
    expect(off.statusCode).toBe(200);
    expect(off.json<Workspace>().capabilities).toMatchObject({ orders: false, payouts: true });
    const on = await operator(t.app, 'PUT', `/operator/v1/workspaces/${ws.id}/capabilities/orders`, { enabled: true });
    expect(on.json<Workspace>().capabilities.orders).toBe(true);
  });

  it('refuses an unknown capability with 400', async () => {
    const ws = await createWorkspace('Teleport Ltd');
    expectProblem(await operator(t.app, 'PUT', `/operator/v1/workspaces/${ws.id}/capabilities/teleport`, { enabled: false }), 400);
  });

  it('updates settings, keeping the others', async () => {
    const ws = await createWorkspace('Settings Ltd', 'DE');
    const res = await operator(t.app, 'PUT', `/operator/v1/workspaces/${ws.id}/settings`, { travelRuleScreening: false });
    expect(res.statusCode).toBe(200);
    expect(res.json<Workspace>().settings).toMatchObject({ travelRuleScreening: false, primaryCurrency: 'EUR' });
    const read = await operator(t.app, 'GET', `/operator/v1/workspaces/${ws.id}`);
    expect(read.json<Workspace>().settings).toMatchObject({ travelRuleScreening: false, primaryCurrency: 'EUR' });
    expectProblem(await operator(t.app, 'PUT', `/operator/v1/workspaces/${ws.id}/settings`, { travelRuleScreening: 'no' }), 400);
  });

  // Production refuses to start on the embedded database, so this case runs only on PostgreSQL.
  it.skipIf(!onPostgres)('refuses a sandbox-only currency (ZMW) in production', async () => {
    const prod = await createTestApp({ env: { CORRIDOR_ENV: 'production' } });
    try {
      const created = await operator(prod.app, 'POST', '/operator/v1/workspaces', { name: 'Prod Ltd', country: 'ZM' });
      expect(created.statusCode).toBe(201);
      const id = created.json<Workspace>().id;
      const res = await operator(prod.app, 'PUT', `/operator/v1/workspaces/${id}/currencies/ZMW`, { enabled: true });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({ status: 400, errors: [expect.objectContaining({ field: 'code', code: 'CURRENCY_SANDBOX_ONLY' })] });
      expect((await operator(prod.app, 'GET', `/operator/v1/workspaces/${id}`)).json<Workspace>().enabledCurrencies).not.toContain('ZMW');
      // On-request currencies are fine in production.
      expect((await operator(prod.app, 'PUT', `/operator/v1/workspaces/${id}/currencies/XOF`, { enabled: true })).statusCode).toBe(200);
      // Disabling a sandbox-only currency is always allowed.
      expect((await operator(prod.app, 'PUT', `/operator/v1/workspaces/${id}/currencies/ZMW`, { enabled: false })).statusCode).toBe(200);
    } finally {
      await prod.close();
    }
  });
});

describe('audit log', () => {
  it('records every operator call, newest first, with method, path, status and request id', async () => {
    const created = await operator(t.app, 'POST', '/operator/v1/workspaces', { name: 'Audited Ltd', country: 'GB' });
    const ws = created.json<Workspace>();
    await tick();
    const cred = await operator(t.app, 'POST', `/operator/v1/workspaces/${ws.id}/credentials`, { scopes: ['read:accounts'], label: 'ci' });
    const secret = cred.json<{ clientSecret: string }>().clientSecret;
    await tick();
    const missing = await operator(t.app, 'GET', `/operator/v1/workspaces/${randomUUID()}`);
    expect(missing.statusCode).toBe(404);
    await tick();
    const currency = await operator(t.app, 'PUT', `/operator/v1/workspaces/${ws.id}/currencies/XOF`, { enabled: true });

    const log = await auditLog('?limit=100');
    expect(log.object).toBe('audit_entry.list');
    const ours = [currency, missing, cred, created].map((r) => log.data.find((e) => e.requestId === r.headers['x-request-id']));
    for (const entry of ours) expect(entry).toBeDefined();
    const [eCurrency, eMissing, eCred, eCreated] = ours as [AuditEntry, AuditEntry, AuditEntry, AuditEntry];
    // Newest first.
    const positions = ours.map((e) => log.data.indexOf(e as AuditEntry));
    expect([...positions].sort((a, b) => a - b)).toEqual(positions);

    const [key] = await t.ctx.db.query<{ id: string }>('SELECT id FROM operator_keys WHERE revoked_at IS NULL');
    expect(eCreated).toMatchObject({ method: 'POST', path: '/operator/v1/workspaces', statusCode: 201, operatorKeyId: key?.id, body: { name: 'Audited Ltd', country: 'GB' } });
    expect(eCred).toMatchObject({ method: 'POST', path: `/operator/v1/workspaces/${ws.id}/credentials`, statusCode: 201, workspaceId: ws.id, body: { scopes: ['read:accounts'], label: 'ci' } });
    expect(eMissing).toMatchObject({ method: 'GET', statusCode: 404 });
    expect(eCurrency).toMatchObject({ method: 'PUT', path: `/operator/v1/workspaces/${ws.id}/currencies/XOF`, statusCode: 200, workspaceId: ws.id, body: { enabled: true } });
    expect(new Date(eCurrency.at).getTime()).toBeGreaterThanOrEqual(new Date(eCreated.at).getTime());

    // The secret issued by the credentials call appears nowhere in the log.
    expect(JSON.stringify(log)).not.toContain(secret);
  });

  it('records refused calls too, including ones without a valid operator key', async () => {
    const refused = await t.app.inject({ method: 'GET', url: '/operator/v1/workspaces', headers: { authorization: 'Bearer op_wrong' } });
    expect(refused.statusCode).toBe(401);
    const entry = (await auditLog('?limit=100')).data.find((e) => e.requestId === refused.headers['x-request-id']);
    expect(entry).toMatchObject({ method: 'GET', path: '/operator/v1/workspaces', statusCode: 401, operatorKeyId: null });
  });

  it('redacts secret-like fields of request bodies', async () => {
    const res = await operator(t.app, 'POST', '/operator/v1/test-echo', {
      clientSecret: 'cs_topsecret_value',
      nested: { password: 'hunter2_value', apiKey: 'key_value_123', accessToken: 'tok_value_456', note: 'kept' },
      list: [{ client_secret: 'cs_in_list_value' }],
    });
    expect(res.statusCode).toBe(200);
    const log = await auditLog('?limit=100');
    const entry = log.data.find((e) => e.requestId === res.headers['x-request-id']);
    expect(entry?.body).toEqual({
      clientSecret: '[redacted]',
      nested: { password: '[redacted]', apiKey: '[redacted]', accessToken: '[redacted]', note: 'kept' },
      list: [{ client_secret: '[redacted]' }],
    });
    const text = JSON.stringify(log);
    for (const value of ['cs_topsecret_value', 'hunter2_value', 'key_value_123', 'tok_value_456', 'cs_in_list_value']) expect(text).not.toContain(value);
  });

  it('filters by workspace and pages with a cursor', async () => {
    const ws = await createWorkspace('Paged Audit Ltd');
    for (const code of ['XOF', 'XAF', 'GHS']) {
      await operator(t.app, 'PUT', `/operator/v1/workspaces/${ws.id}/currencies/${code}`, { enabled: true });
      await tick();
    }
    const all = await auditLog(`?workspaceId=${ws.id}`);
    expect(all.data.map((e) => e.path)).toEqual([
      `/operator/v1/workspaces/${ws.id}/currencies/GHS`,
      `/operator/v1/workspaces/${ws.id}/currencies/XAF`,
      `/operator/v1/workspaces/${ws.id}/currencies/XOF`,
    ]);
    for (const e of all.data) expect(e.workspaceId).toBe(ws.id);

    const p1 = await auditLog(`?workspaceId=${ws.id}&limit=2`);
    expect(p1.data).toHaveLength(2);
    expect(p1.hasMore).toBe(true);
    const p2 = await auditLog(`?workspaceId=${ws.id}&limit=2&cursor=${encodeURIComponent(p1.nextCursor as string)}`);
    expect(p2.data.map((e) => e.path)).toEqual([`/operator/v1/workspaces/${ws.id}/currencies/XOF`]);
    expect(p2.hasMore).toBe(false);
    expect(p2.nextCursor).toBeNull();
  });
});

describe('Idempotency-Key on the operator API', () => {
  const keyed = (method: 'POST', url: string, key: string, body: unknown, token = OPERATOR_KEY) =>
    t.app.inject({ method, url, headers: { authorization: `Bearer ${token}`, 'idempotency-key': key }, payload: body as object });
  const depositsOf = async (workspaceId: string) => (await t.ctx.db.query<{ n: number }>('SELECT count(*)::int AS n FROM deposits WHERE workspace_id = $1', [workspaceId]))[0]?.n;
  const adjustmentsOf = async (workspaceId: string) =>
    (
      await t.ctx.db.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM ledger_transfers t JOIN ledger_accounts a ON a.id = t.credit_account_id WHERE a.workspace_id = $1 AND t.reference_type = 'adjustment'",
        [workspaceId],
      )
    )[0]?.n;

  it('credits a deposit once when the same key is sent twice, and replays the first answer', async () => {
    const ws = (await operator(t.app, 'POST', '/operator/v1/workspaces', { name: 'Keyed Deposits', country: 'GB' })).json<Workspace>();
    const body = { workspaceId: ws.id, currency: 'USDC', amount: '25.00', rail: 'crypto', clientRef: 'wire-1' };
    const first = await keyed('POST', '/operator/v1/deposits', 'credit-wire-1', body);
    expect(first.statusCode, first.body).toBe(201);
    const again = await keyed('POST', '/operator/v1/deposits', 'credit-wire-1', body);
    expect(again.statusCode).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.json()).toEqual(first.json());
    expect(await depositsOf(ws.id)).toBe(1);
  });

  it('adjusts a balance once per key; the same key with another body is refused with 422 IDEMPOTENCY_KEY_REUSED', async () => {
    const ws = (await operator(t.app, 'POST', '/operator/v1/workspaces', { name: 'Keyed Adjust', country: 'GB' })).json<Workspace>();
    const url = `/operator/v1/workspaces/${ws.id}/balances/adjust`;
    const body = { currency: 'EUR', amount: '10.00', reason: 'goodwill credit' };
    const first = await keyed('POST', url, 'adjust-1', body);
    expect(first.statusCode, first.body).toBe(201);
    const again = await keyed('POST', url, 'adjust-1', body);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.json()).toEqual(first.json());
    const other = await keyed('POST', url, 'adjust-1', { ...body, amount: '11.00' });
    expect(other.statusCode).toBe(422);
    expect(other.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(other.json()).toMatchObject({ code: 'IDEMPOTENCY_KEY_REUSED' });
    expect(await adjustmentsOf(ws.id)).toBe(1);
  });

  it('stores a refusal decided before the handler (schema) under the key too', async () => {
    const first = await keyed('POST', '/operator/v1/workspaces', 'bad-workspace', { name: 'X', country: 'gb' });
    expect(first.statusCode).toBe(400);
    const again = await keyed('POST', '/operator/v1/workspaces', 'bad-workspace', { name: 'X', country: 'gb' });
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toBe(first.body);
  });

  it("keys the operator's answers apart from a workspace's: the same key string in both scopes runs both", async () => {
    const ws = (await operator(t.app, 'POST', '/operator/v1/workspaces', { name: 'Shared Key', country: 'GB' })).json<Workspace>();
    const cred = (await operator(t.app, 'POST', `/operator/v1/workspaces/${ws.id}/credentials`, {})).json<{ clientId: string; clientSecret: string }>();
    const token = await getToken(t.app, cred.clientId, cred.clientSecret);
    const funded = await t.app.inject({ method: 'POST', url: '/v1/sandbox/balances/fund', headers: { authorization: `Bearer ${token}`, 'idempotency-key': 'same-key' }, payload: { currency: 'EUR', amount: '5.00' } });
    expect(funded.statusCode, funded.body).toBe(201);
    const credited = await keyed('POST', '/operator/v1/deposits', 'same-key', { workspaceId: ws.id, currency: 'USDC', amount: '7.00', rail: 'crypto' });
    expect(credited.statusCode, credited.body).toBe(201);
    expect(credited.headers['idempotent-replayed']).toBeUndefined();
    const rows = await t.ctx.db.query<{ scope: string }>("SELECT scope FROM idempotency_keys WHERE key = 'same-key' ORDER BY scope");
    expect(rows.map((r) => r.scope)).toEqual(['operator', 'workspace']);
  });
});
