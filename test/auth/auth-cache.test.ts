import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LISTENER_APPLICATION_NAME } from '../../src/platform/db/db.js';
import { createTestApp, getToken, newWorkspace, onPostgres, operator, type Caller, type TestApp } from '../helpers/app.js';
import { secondApiProcess } from '../helpers/processes.js';

/**
 * Authentication remembers credentials between requests; a change announced by the database makes
 * every process forget them at once. On PostgreSQL a second API process shares the database.
 */
let t: TestApp;
let other: { base: string; stop: () => void } | undefined;
let otherBase = '';

beforeAll(async () => {
  t = await createTestApp();
  if (onPostgres) {
    other = await secondApiProcess(t.env);
    otherBase = other.base;
  }
}, 90_000);
afterAll(async () => {
  other?.stop();
  await t.close();
});

/** The same request through the second process, over HTTP. */
async function viaOther(c: Caller, method: string, url: string, headers: Record<string, string> = {}): Promise<{ statusCode: number; body: { code?: string } }> {
  const res = await fetch(`${otherBase}${url}`, { method, headers: { authorization: `Bearer ${c.token}`, ...headers } });
  return { statusCode: res.status, body: (await res.json()) as { code?: string } };
}

/** A second credential of the caller's workspace, with every scope: a credential may grant only scopes it holds. */
const admins = new Map<string, string>();
async function adminToken(c: Caller): Promise<string> {
  const known = admins.get(c.workspaceId);
  if (known) return known;
  const created = await operator(t.app, 'POST', `/operator/v1/workspaces/${c.workspaceId}/credentials`, {});
  expect(created.statusCode, created.body).toBe(201);
  const { clientId, clientSecret } = created.json<{ clientId: string; clientSecret: string }>();
  const token = await getToken(t.app, clientId, clientSecret);
  admins.set(c.workspaceId, token);
  return token;
}

/** The workspace's admin credential changes the caller's scopes. */
async function setScopes(c: Caller, scopes: string[]): Promise<void> {
  const res = await t.app.inject({ method: 'PUT', url: `/v1/api-keys/${c.clientId}/scopes`, headers: { authorization: `Bearer ${await adminToken(c)}` }, payload: { scopes } });
  expect(res.statusCode, res.body).toBe(200);
}

describe('one process', () => {
  it('applies a scope change to the next request although the credential was remembered', async () => {
    const c = await newWorkspace(t.app, { name: 'Cache One Ltd' });
    for (let i = 0; i < 3; i++) expect((await c.request('GET', '/v1/account')).statusCode).toBe(200);
    await setScopes(c, ['read:balances', 'write:api_keys']);
    const res = await c.request('GET', '/v1/account');
    expect(res.statusCode).toBe(403);
    expect(res.json()).toMatchObject({ code: 'METHOD_NOT_ENTITLED' });
  });

  it('remembers only owned sub-accounts: a sub-account created later is accepted, another workspace\'s refused', async () => {
    const acme = await newWorkspace(t.app, { name: 'Cache Acme Ltd' });
    const globex = await newWorkspace(t.app, { name: 'Cache Globex Ltd' });
    expect((await acme.request('GET', '/v1/account')).statusCode).toBe(200);
    const mine = (await acme.request('POST', '/v1/accounts', { name: 'Acme Sub', country: 'GB' })).json<{ id: string }>().id;
    const theirs = (await globex.request('POST', '/v1/accounts', { name: 'Globex Sub', country: 'GB' })).json<{ id: string }>().id;
    for (let i = 0; i < 2; i++) {
      const own = await acme.request('GET', '/v1/account', undefined, { 'service-account-id': mine });
      expect(own.statusCode).toBe(200);
      expect(own.json()).toMatchObject({ id: mine });
      const shouted = await acme.request('GET', '/v1/account', undefined, { 'service-account-id': mine.toUpperCase() });
      expect(shouted.statusCode).toBe(200);
      expect(shouted.json()).toMatchObject({ id: mine });
      const foreign = await acme.request('GET', '/v1/account', undefined, { 'service-account-id': theirs });
      expect(foreign.statusCode).toBe(403);
      expect(foreign.json()).toMatchObject({ code: 'not_account_owner' });
    }
  });
});

describe.skipIf(!onPostgres)('two API processes over one PostgreSQL database', () => {
  it('refuses at once, through the other process, a scope removed through this one', async () => {
    const c = await newWorkspace(t.app, { name: 'Cache Two Ltd' });
    for (let i = 0; i < 3; i++) expect((await viaOther(c, 'GET', '/v1/account')).statusCode).toBe(200);
    await setScopes(c, ['read:balances', 'write:api_keys']);
    const res = await viaOther(c, 'GET', '/v1/account');
    expect(res.statusCode).toBe(403);
    expect(res.body.code).toBe('METHOD_NOT_ENTITLED');
  });

  it('refuses at once, through the other process, a capability the operator disabled', async () => {
    const c = await newWorkspace(t.app, { name: 'Cache Caps Ltd' });
    // Authenticated (and remembered), then refused for its empty body.
    expect((await viaOther(c, 'POST', '/v1/payouts')).statusCode).toBe(400);
    const off = await operator(t.app, 'PUT', `/operator/v1/workspaces/${c.workspaceId}/capabilities/payouts`, { enabled: false });
    expect(off.statusCode, off.body).toBe(200);
    const res = await viaOther(c, 'POST', '/v1/payouts');
    expect(res.statusCode).toBe(403);
    expect(res.body.code).toBe('CAPABILITY_DISABLED');
  });

  it('checks sub-account ownership through the other process', async () => {
    const acme = await newWorkspace(t.app, { name: 'Cache Acme Two Ltd' });
    const globex = await newWorkspace(t.app, { name: 'Cache Globex Two Ltd' });
    const mine = (await acme.request('POST', '/v1/accounts', { name: 'Acme Sub', country: 'GB' })).json<{ id: string }>().id;
    const theirs = (await globex.request('POST', '/v1/accounts', { name: 'Globex Sub', country: 'GB' })).json<{ id: string }>().id;
    for (let i = 0; i < 2; i++) {
      expect((await viaOther(acme, 'GET', '/v1/account', { 'service-account-id': mine })).statusCode).toBe(200);
      const foreign = await viaOther(acme, 'GET', '/v1/account', { 'service-account-id': theirs });
      expect(foreign.statusCode).toBe(403);
      expect(foreign.body.code).toBe('not_account_owner');
    }
  });

  it('reads every request while its listening connection is lost, and remembers again once it listens again', async () => {
    const c = await newWorkspace(t.app, { name: 'Cache Drop Ltd' });
    expect((await viaOther(c, 'GET', '/v1/account')).statusCode).toBe(200);
    const listeners = async () =>
      (
        await t.ctx.db.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND application_name = $1', [
          LISTENER_APPLICATION_NAME,
        ])
      ).map((r) => r.pid);
    const before = await listeners();
    expect(before.length).toBe(2); // this process's and the other's
    await t.ctx.db.query('SELECT pg_terminate_backend(pid) FROM unnest($1::int[]) AS pid', [before]);
    // Whether or not it listens again yet, a change applies at once.
    await setScopes(c, ['read:balances', 'write:api_keys']);
    expect((await viaOther(c, 'GET', '/v1/account')).statusCode).toBe(403);
    await setScopes(c, ['read:accounts', 'write:api_keys']);
    expect((await viaOther(c, 'GET', '/v1/account')).statusCode).toBe(200);
    // Both listen again on connections of their own.
    const deadline = Date.now() + 10_000;
    while ((await listeners()).filter((pid) => !before.includes(pid)).length < 2) {
      if (Date.now() > deadline) throw new Error('did not listen again');
      await new Promise((r) => setTimeout(r, 50));
    }
    for (let i = 0; i < 3; i++) expect((await viaOther(c, 'GET', '/v1/account')).statusCode).toBe(200);
    await setScopes(c, ['read:balances', 'write:api_keys']);
    expect((await viaOther(c, 'GET', '/v1/account')).statusCode).toBe(403);
  });
});
