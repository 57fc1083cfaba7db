import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, getToken, newWorkspace, onPostgres, operator, type Caller, type TestApp } from '../helpers/app.js';
import { secondApiProcess } from '../helpers/processes.js';

/**
 * The credential lifecycle through the operator API (DESIGN §4 "Credentials lifecycle"): rotation
 * with a grace period, revocation that ends a credential's tokens at once (in every API process),
 * the list with status and last use, and the audit log of each call.
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

interface ApiKey {
  clientId: string;
  scopes: string[];
  status: 'active' | 'revoked';
  label: string | null;
  createdAt: string;
  lastUsedAt: string | null;
}

interface Rotated {
  clientId: string;
  clientSecret: string;
  previousSecretExpiresAt: string;
}

function tokenRequest(clientId: string, clientSecret: string) {
  return t.app.inject({
    method: 'POST',
    url: '/oauth/token',
    payload: { client_id: clientId, client_secret: clientSecret, audience: 'corridor-api', grant_type: 'client_credentials' },
  });
}

async function expectTokenRefused(clientId: string, clientSecret: string): Promise<void> {
  const res = await tokenRequest(clientId, clientSecret);
  expect(res.statusCode, res.body).toBe(401);
  expect(res.json()).toMatchObject({ error: 'access_denied' });
}

async function rotate(c: { workspaceId: string; clientId: string }, body: unknown) {
  return operator(t.app, 'POST', `/operator/v1/workspaces/${c.workspaceId}/credentials/${c.clientId}/rotate`, body);
}

async function operatorList(workspaceId: string): Promise<ApiKey[]> {
  const res = await operator(t.app, 'GET', `/operator/v1/workspaces/${workspaceId}/credentials`);
  expect(res.statusCode, res.body).toBe(200);
  const page = res.json<{ object: string; data: ApiKey[] }>();
  expect(page.object).toBe('api_key.list');
  return page.data;
}

async function workspaceList(c: Caller): Promise<ApiKey[]> {
  const res = await c.request('GET', '/v1/api-keys');
  expect(res.statusCode, res.body).toBe(200);
  return res.json<{ data: ApiKey[] }>().data;
}

describe('rotation', () => {
  it('with graceSeconds 0 (the default) ends the old secret at once; the new one works and is shown only once', async () => {
    const c = await newWorkspace(t.app, { name: 'Rotate Zero Ltd' });
    const res = await rotate(c, { graceSeconds: 0 });
    expect(res.statusCode, res.body).toBe(200);
    const rotated = res.json<Rotated>();
    expect(Object.keys(rotated).sort()).toEqual(['clientId', 'clientSecret', 'previousSecretExpiresAt']);
    expect(rotated.clientId).toBe(c.clientId);
    expect(rotated.clientSecret).toMatch(/^cs_/);
    expect(rotated.clientSecret).not.toBe(c.clientSecret);
    expect(Math.abs(Date.parse(rotated.previousSecretExpiresAt) - Date.now())).toBeLessThan(60_000);

    await expectTokenRefused(c.clientId, c.clientSecret);
    const token = await getToken(t.app, c.clientId, rotated.clientSecret);
    expect(token).toBeTruthy();
    // A token issued before the rotation stays valid until it expires (rotation is not revocation).
    expect((await c.request('GET', '/v1/account')).statusCode).toBe(200);

    // Shown once: neither list carries a secret.
    const listed = [JSON.stringify(await operatorList(c.workspaceId)), JSON.stringify(await workspaceList(c))];
    for (const text of listed) {
      expect(text).not.toContain(rotated.clientSecret);
      expect(text).not.toContain(c.clientSecret);
      expect(text).not.toMatch(/secret/i);
    }

    // Without graceSeconds the grace period is 0 too.
    const again = await rotate(c, {});
    expect(again.statusCode, again.body).toBe(200);
    await expectTokenRefused(c.clientId, rotated.clientSecret);
    await getToken(t.app, c.clientId, again.json<Rotated>().clientSecret);
  });

  it('with a grace period keeps the old secret working until previousSecretExpiresAt, then refuses it', async () => {
    const c = await newWorkspace(t.app, { name: 'Rotate Grace Ltd' });
    const res = await rotate(c, { graceSeconds: 3600 });
    expect(res.statusCode, res.body).toBe(200);
    const rotated = res.json<Rotated>();
    expect(Math.abs(Date.parse(rotated.previousSecretExpiresAt) - (Date.now() + 3600_000))).toBeLessThan(60_000);

    await getToken(t.app, c.clientId, c.clientSecret);
    await getToken(t.app, c.clientId, rotated.clientSecret);

    // The grace period ends (moved into the past rather than waited for).
    await t.ctx.db.query(`UPDATE credentials SET previous_secret_expires_at = now() - interval '1 second' WHERE client_id = $1`, [c.clientId]);
    await expectTokenRefused(c.clientId, c.clientSecret);
    await getToken(t.app, c.clientId, rotated.clientSecret);
  });

  it('a second rotation within the grace period ends the oldest secret at once', async () => {
    const c = await newWorkspace(t.app, { name: 'Rotate Twice Ltd' });
    const first = (await rotate(c, { graceSeconds: 600 })).json<Rotated>();
    const second = (await rotate(c, { graceSeconds: 600 })).json<Rotated>();
    await expectTokenRefused(c.clientId, c.clientSecret);
    await getToken(t.app, c.clientId, first.clientSecret);
    await getToken(t.app, c.clientId, second.clientSecret);
  });

  it('validates graceSeconds: an integer from 0 to 604800 (7 days)', async () => {
    const c = await newWorkspace(t.app, { name: 'Rotate Bounds Ltd' });
    for (const graceSeconds of [-1, 604_801, 1.5, '60', null]) {
      const res = await rotate(c, { graceSeconds });
      expect(res.statusCode, `${String(graceSeconds)}: ${res.body}`).toBe(400);
      expect(res.body).toContain('graceSeconds');
    }
    // Nothing was rotated by the refused calls.
    await getToken(t.app, c.clientId, c.clientSecret);
    const max = await rotate(c, { graceSeconds: 604_800 });
    expect(max.statusCode, max.body).toBe(200);
    expect(Math.abs(Date.parse(max.json<Rotated>().previousSecretExpiresAt) - (Date.now() + 604_800_000))).toBeLessThan(60_000);
    await getToken(t.app, c.clientId, c.clientSecret);
  });
});

describe('revocation', () => {
  it('refuses a token issued before it on the next request, and refuses new tokens', async () => {
    const c = await newWorkspace(t.app, { name: 'Revoke Ltd' });
    // Authenticated and remembered by the credential cache.
    for (let i = 0; i < 3; i++) expect((await c.request('GET', '/v1/account')).statusCode).toBe(200);
    const res = await operator(t.app, 'DELETE', `/operator/v1/workspaces/${c.workspaceId}/credentials/${c.clientId}`);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json<ApiKey>()).toMatchObject({ clientId: c.clientId, status: 'revoked' });

    expect((await c.request('GET', '/v1/account')).statusCode).toBe(401);
    await expectTokenRefused(c.clientId, c.clientSecret);
    expect((await operatorList(c.workspaceId)).find((k) => k.clientId === c.clientId)?.status).toBe('revoked');

    // Revoking again answers it unchanged; a revoked credential cannot be rotated.
    const again = await operator(t.app, 'DELETE', `/operator/v1/workspaces/${c.workspaceId}/credentials/${c.clientId}`);
    expect(again.statusCode).toBe(200);
    expect(again.json<ApiKey>().status).toBe('revoked');
    const rotated = await rotate(c, { graceSeconds: 0 });
    expect(rotated.statusCode).toBe(409);
    expect(rotated.json()).toMatchObject({ code: 'CREDENTIAL_REVOKED' });
    await expectTokenRefused(c.clientId, c.clientSecret);
  });

  it('ends a secret still in its grace period too', async () => {
    const c = await newWorkspace(t.app, { name: 'Revoke Grace Ltd' });
    const rotated = (await rotate(c, { graceSeconds: 3600 })).json<Rotated>();
    expect((await operator(t.app, 'DELETE', `/operator/v1/workspaces/${c.workspaceId}/credentials/${c.clientId}`)).statusCode).toBe(200);
    await expectTokenRefused(c.clientId, c.clientSecret);
    await expectTokenRefused(c.clientId, rotated.clientSecret);
  });

  it('leaves the workspace\'s other credentials working, and GET /v1/api-keys shows the revoked one', async () => {
    const c = await newWorkspace(t.app, { name: 'Revoke Other Ltd' });
    const second = await operator(t.app, 'POST', `/operator/v1/workspaces/${c.workspaceId}/credentials`, { label: 'second' });
    const { clientId } = second.json<{ clientId: string }>();
    expect((await operator(t.app, 'DELETE', `/operator/v1/workspaces/${c.workspaceId}/credentials/${clientId}`)).statusCode).toBe(200);
    const keys = await workspaceList(c);
    expect(keys.find((k) => k.clientId === clientId)).toMatchObject({ status: 'revoked', label: 'second' });
    expect(keys.find((k) => k.clientId === c.clientId)).toMatchObject({ status: 'active' });
  });
});

describe('isolation and reach', () => {
  it("answers 404 for another workspace's credential, an unknown workspace or an unknown credential", async () => {
    const acme = await newWorkspace(t.app, { name: 'Iso Acme Ltd' });
    const globex = await newWorkspace(t.app, { name: 'Iso Globex Ltd' });
    const wrong = { workspaceId: acme.workspaceId, clientId: globex.clientId };
    expect((await rotate(wrong, { graceSeconds: 0 })).statusCode).toBe(404);
    expect((await operator(t.app, 'DELETE', `/operator/v1/workspaces/${acme.workspaceId}/credentials/${globex.clientId}`)).statusCode).toBe(404);
    expect((await rotate({ workspaceId: acme.workspaceId, clientId: 'not-a-uuid' }, {})).statusCode).toBe(404);
    expect((await rotate({ workspaceId: acme.workspaceId, clientId: '00000000-0000-4000-8000-000000000000' }, {})).statusCode).toBe(404);
    expect((await operator(t.app, 'GET', '/operator/v1/workspaces/00000000-0000-4000-8000-000000000000/credentials')).statusCode).toBe(404);
    // Globex's credential was untouched.
    await getToken(t.app, globex.clientId, globex.clientSecret);
    expect((await operatorList(acme.workspaceId)).map((k) => k.clientId)).toEqual([acme.clientId]);
  });

  it('offers a workspace token no way to mint, rotate or revoke a credential', async () => {
    const c = await newWorkspace(t.app, { name: 'No Mint Ltd' });
    const attempts = [
      await c.request('POST', '/v1/api-keys', {}),
      await c.request('POST', `/v1/api-keys/${c.clientId}/rotate`, { graceSeconds: 0 }),
      await c.request('DELETE', `/v1/api-keys/${c.clientId}`),
    ];
    for (const res of attempts) expect(res.statusCode).toBe(404);
    // The operator routes refuse a workspace token.
    const viaToken = await c.request('POST', `/operator/v1/workspaces/${c.workspaceId}/credentials/${c.clientId}/rotate`, { graceSeconds: 0 });
    expect(viaToken.statusCode).toBe(401);
    await getToken(t.app, c.clientId, c.clientSecret);
  });
});

describe('last use', () => {
  it('is null until a token is issued, then set, and written at most once a minute', async () => {
    const ws = await newWorkspace(t.app, { name: 'Last Used Ltd' });
    const created = await operator(t.app, 'POST', `/operator/v1/workspaces/${ws.workspaceId}/credentials`, { label: 'fresh' });
    const fresh = created.json<{ clientId: string; clientSecret: string }>();
    const find = async () => (await operatorList(ws.workspaceId)).find((k) => k.clientId === fresh.clientId);
    expect((await find())?.lastUsedAt).toBeNull();

    await getToken(t.app, fresh.clientId, fresh.clientSecret);
    const first = (await find())?.lastUsedAt;
    expect(first).toBeTruthy();
    expect(Math.abs(Date.parse(first!) - Date.now())).toBeLessThan(60_000);
    expect((await workspaceList(ws)).find((k) => k.clientId === fresh.clientId)?.lastUsedAt).toBe(first);

    // Within the minute: no write.
    await getToken(t.app, fresh.clientId, fresh.clientSecret);
    expect((await find())?.lastUsedAt).toBe(first);

    // A minute later (moved back rather than waited for): written again.
    await t.ctx.db.query(`UPDATE credentials SET last_used_at = last_used_at - interval '2 minutes' WHERE client_id = $1`, [fresh.clientId]);
    const moved = (await find())?.lastUsedAt;
    await getToken(t.app, fresh.clientId, fresh.clientSecret);
    const second = (await find())?.lastUsedAt;
    expect(Date.parse(second!)).toBeGreaterThan(Date.parse(moved!));
  });

  it('is not written by a refused token request', async () => {
    const ws = await newWorkspace(t.app, { name: 'Last Used Refused Ltd' });
    const created = await operator(t.app, 'POST', `/operator/v1/workspaces/${ws.workspaceId}/credentials`, {});
    const { clientId } = created.json<{ clientId: string }>();
    await expectTokenRefused(clientId, 'cs_wrong');
    expect((await operatorList(ws.workspaceId)).find((k) => k.clientId === clientId)?.lastUsedAt).toBeNull();
  });
});

describe('audit', () => {
  it('records rotate, revoke and list calls with the workspace, and never a secret', async () => {
    const c = await newWorkspace(t.app, { name: 'Audit Creds Ltd' });
    const rotated = (await rotate(c, { graceSeconds: 120 })).json<Rotated>();
    await operatorList(c.workspaceId);
    expect((await operator(t.app, 'DELETE', `/operator/v1/workspaces/${c.workspaceId}/credentials/${c.clientId}`)).statusCode).toBe(200);

    const res = await operator(t.app, 'GET', `/operator/v1/audit-log?workspaceId=${c.workspaceId}&limit=100`);
    expect(res.statusCode, res.body).toBe(200);
    const entries = res.json<{ data: { method: string; path: string; statusCode: number; workspaceId: string; body: unknown }[] }>().data;
    const base = `/operator/v1/workspaces/${c.workspaceId}/credentials`;
    expect(entries.find((e) => e.method === 'POST' && e.path === `${base}/${c.clientId}/rotate`)).toMatchObject({
      statusCode: 200,
      workspaceId: c.workspaceId,
      body: { graceSeconds: 120 },
    });
    expect(entries.find((e) => e.method === 'DELETE' && e.path === `${base}/${c.clientId}`)).toMatchObject({ statusCode: 200, workspaceId: c.workspaceId });
    expect(entries.find((e) => e.method === 'GET' && e.path === base)).toMatchObject({ statusCode: 200 });
    const text = JSON.stringify(entries);
    expect(text).not.toContain(rotated.clientSecret);
    expect(text).not.toContain(c.clientSecret);
  });
});

describe.skipIf(!onPostgres)('two API processes over one PostgreSQL database', () => {
  it('refuses at once, through the other process, a token of a credential revoked through this one', async () => {
    const c = await newWorkspace(t.app, { name: 'Revoke Two Ltd' });
    const via = () => fetch(`${otherBase}/v1/account`, { headers: { authorization: `Bearer ${c.token}` } });
    for (let i = 0; i < 3; i++) expect((await via()).status).toBe(200);
    expect((await operator(t.app, 'DELETE', `/operator/v1/workspaces/${c.workspaceId}/credentials/${c.clientId}`)).statusCode).toBe(200);
    expect((await via()).status).toBe(401);
    const token = await fetch(`${otherBase}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ client_id: c.clientId, client_secret: c.clientSecret, audience: 'corridor-api', grant_type: 'client_credentials' }),
    });
    expect(token.status).toBe(401);
  });
});
