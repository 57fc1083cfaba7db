import { randomUUID } from 'node:crypto';
import { Writable } from 'node:stream';
import { decodeJwt, decodeProtectedHeader, generateKeyPair, importJWK, SignJWT, type JWK } from 'jose';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, getToken, newWorkspace, OPERATOR_KEY, operator, type Caller, type TestApp } from '../helpers/app.js';

let t: TestApp;
let caller: Caller;

beforeAll(async () => {
  t = await createTestApp({
    beforeReady: (app) => {
      app.get('/v1/test-gated', { config: { auth: 'workspace', capability: 'payouts' } }, async () => ({ ok: true }));
    },
  });
  caller = await newWorkspace(t.app, { name: 'Auth Ltd', country: 'GB' });
});
afterAll(async () => t.close());

const AUDIENCE = 'corridor-api';
const ISSUER = 'http://127.0.0.1:8080';

function tokenRequest(payload: Record<string, unknown>): Promise<LightMyRequestResponse> {
  return t.app.inject({ method: 'POST', url: '/oauth/token', payload });
}

function basicHeader(id: string, secret: string): string {
  return `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`;
}

function formRequest(form: string, authorization?: string): Promise<LightMyRequestResponse> {
  return t.app.inject({
    method: 'POST',
    url: '/oauth/token',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...(authorization ? { authorization } : {}) },
    payload: form,
  });
}

function bearer(token: string, url = '/v1/account', method: 'GET' | 'POST' = 'GET', payload?: object): Promise<LightMyRequestResponse> {
  return t.app.inject({ method, url, headers: { authorization: `Bearer ${token}` }, ...(payload ? { payload } : {}) });
}

/** A 401 from a protected endpoint carries only statusCode and message. */
function expectBare401(res: LightMyRequestResponse): void {
  expect(res.statusCode).toBe(401);
  const body = res.json<Record<string, unknown>>();
  expect(Object.keys(body).sort()).toEqual(['message', 'statusCode']);
  expect(body.statusCode).toBe(401);
  expect(typeof body.message).toBe('string');
  expect((body.message as string).length).toBeGreaterThan(0);
}

const b64url = (value: object): string => Buffer.from(JSON.stringify(value)).toString('base64url');

describe('POST /oauth/token', () => {
  it('exchanges client credentials sent as JSON for a bearer token valid 86400 s', async () => {
    const res = await tokenRequest({ client_id: caller.clientId, client_secret: caller.clientSecret, audience: AUDIENCE, grant_type: 'client_credentials' });
    expect(res.statusCode).toBe(200);
    const body = res.json<{ access_token: string; token_type: string; expires_in: number }>();
    expect(body).toEqual({ access_token: expect.any(String), token_type: 'Bearer', expires_in: 86400 });
    expect(res.headers['cache-control']).toBe('no-store');
    expect((await bearer(body.access_token)).statusCode).toBe(200);
  });

  it('accepts a JSON request without audience (it defaults to the API audience)', async () => {
    const res = await tokenRequest({ client_id: caller.clientId, client_secret: caller.clientSecret, grant_type: 'client_credentials' });
    expect(res.statusCode).toBe(200);
  });

  it('exchanges a form-encoded request with HTTP Basic client authentication', async () => {
    const res = await formRequest(`grant_type=client_credentials&audience=${AUDIENCE}`, basicHeader(caller.clientId, caller.clientSecret));
    expect(res.statusCode).toBe(200);
    const body = res.json<{ access_token: string; token_type: string; expires_in: number }>();
    expect(body.token_type).toBe('Bearer');
    expect(body.expires_in).toBe(86400);
    expect(res.headers['cache-control']).toBe('no-store');
    expect((await bearer(body.access_token)).statusCode).toBe(200);
  });

  it('exchanges a form-encoded request with the client id and secret in the form', async () => {
    const form = new URLSearchParams({ grant_type: 'client_credentials', client_id: caller.clientId, client_secret: caller.clientSecret });
    const res = await formRequest(form.toString());
    expect(res.statusCode).toBe(200);
  });

  it('refuses a wrong secret with 401 access_denied', async () => {
    const res = await tokenRequest({ client_id: caller.clientId, client_secret: 'cs_wrong', audience: AUDIENCE, grant_type: 'client_credentials' });
    expect(res.statusCode).toBe(401);
    expect(res.json()).toEqual({ error: 'access_denied', error_description: 'Unauthorized', error_uri: expect.stringMatching(/\/docs\/errors#access_denied$/) });
    expect(res.headers['cache-control']).toBe('no-store');
  });

  it('refuses an unknown client id (UUID or not) with the same 401 access_denied', async () => {
    for (const clientId of [randomUUID(), 'not-a-client']) {
      const res = await tokenRequest({ client_id: clientId, client_secret: caller.clientSecret, audience: AUDIENCE, grant_type: 'client_credentials' });
      expect(res.statusCode).toBe(401);
      expect(res.json()).toEqual({ error: 'access_denied', error_description: 'Unauthorized', error_uri: expect.stringMatching(/\/docs\/errors#access_denied$/) });
    }
  });

  it('refuses missing credentials with 401 access_denied', async () => {
    const res = await tokenRequest({ grant_type: 'client_credentials' });
    expect(res.statusCode).toBe(401);
    expect(res.json()).toEqual({ error: 'access_denied', error_description: 'Unauthorized', error_uri: expect.stringMatching(/\/docs\/errors#access_denied$/) });
  });

  it('refuses a grant_type other than client_credentials with 400 invalid_grant', async () => {
    for (const grant of ['password', undefined]) {
      const res = await tokenRequest({ client_id: caller.clientId, client_secret: caller.clientSecret, audience: AUDIENCE, ...(grant ? { grant_type: grant } : {}) });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({ error: 'invalid_grant' });
      expect(res.headers['cache-control']).toBe('no-store');
    }
  });

  it('refuses another audience with 400 invalid_audience', async () => {
    const res = await tokenRequest({ client_id: caller.clientId, client_secret: caller.clientSecret, audience: 'someone-else', grant_type: 'client_credentials' });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ error: 'invalid_audience' });
    expect(res.headers['cache-control']).toBe('no-store');
  });

  it('answers a failed HTTP Basic client authentication with 401 and WWW-Authenticate: Basic', async () => {
    const res = await formRequest('grant_type=client_credentials', basicHeader(caller.clientId, 'cs_wrong'));
    expect(res.statusCode).toBe(401);
    expect(res.json()).toEqual({ error: 'access_denied', error_description: 'Unauthorized', error_uri: expect.stringMatching(/\/docs\/errors#access_denied$/) });
    expect(res.headers['www-authenticate']).toMatch(/^Basic\b/);
    expect(res.headers['cache-control']).toBe('no-store');
  });

  it('sends Cache-Control: no-store even on a malformed request', async () => {
    const invalid = await tokenRequest({ client_id: 12345, grant_type: 'client_credentials' });
    expect(invalid.statusCode).toBe(400);
    expect(invalid.headers['cache-control']).toBe('no-store');
    const badJson = await t.app.inject({ method: 'POST', url: '/oauth/token', headers: { 'content-type': 'application/json' }, payload: '{"client_id":' });
    expect(badJson.statusCode).toBe(400);
    expect(badJson.headers['cache-control']).toBe('no-store');
  });

  it('limits token requests per IP with TOKEN_RATE_LIMIT_PER_MINUTE, still answering no-store', async () => {
    const limited = await createTestApp({ env: { TOKEN_RATE_LIMIT_PER_MINUTE: '2' } });
    try {
      const send = () => limited.app.inject({ method: 'POST', url: '/oauth/token', payload: { client_id: randomUUID(), client_secret: 'x', grant_type: 'client_credentials' } });
      expect((await send()).statusCode).toBe(401);
      expect((await send()).statusCode).toBe(401);
      const res = await send();
      expect(res.statusCode).toBe(429);
      expect(res.headers['cache-control']).toBe('no-store');
      // Other endpoints keep their own (global) limit.
      expect((await limited.app.inject({ method: 'GET', url: '/.well-known/jwks.json' })).statusCode).toBe(200);
    } finally {
      await limited.close();
    }
  });

  it('issues an EdDSA JWT whose kid is published at /.well-known/jwks.json and whose claims name the credential', async () => {
    const header = decodeProtectedHeader(caller.token);
    expect(header.alg).toBe('EdDSA');
    expect(header.kid).toEqual(expect.any(String));
    const jwks = await t.app.inject({ method: 'GET', url: '/.well-known/jwks.json' });
    expect(jwks.statusCode).toBe(200);
    const keys = jwks.json<{ keys: Array<Record<string, unknown>> }>().keys;
    const key = keys.find((k) => k.kid === header.kid);
    expect(key).toMatchObject({ kty: 'OKP', crv: 'Ed25519', alg: 'EdDSA', use: 'sig', x: expect.any(String) });
    expect(key).not.toHaveProperty('d'); // never the private half
    for (const k of keys) expect(k).not.toHaveProperty('d');

    const claims = decodeJwt(caller.token);
    expect(claims).toMatchObject({ iss: ISSUER, aud: AUDIENCE, sub: caller.clientId, wid: caller.workspaceId, jti: expect.any(String) });
    expect((claims.exp as number) - (claims.iat as number)).toBe(86400);
  });

  it('gives each token its own jti', async () => {
    const a = decodeJwt(await getToken(t.app, caller.clientId, caller.clientSecret));
    const b = decodeJwt(await getToken(t.app, caller.clientId, caller.clientSecret));
    expect(a.jti).not.toBe(b.jti);
  });

  it('publishes authorization server metadata at /.well-known/oauth-authorization-server', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/.well-known/oauth-authorization-server' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      issuer: ISSUER,
      token_endpoint: `${ISSUER}/oauth/token`,
      jwks_uri: `${ISSUER}/.well-known/jwks.json`,
      grant_types_supported: ['client_credentials'],
      token_endpoint_auth_methods_supported: expect.arrayContaining(['client_secret_basic', 'client_secret_post']),
    });
  });
});

describe('bearer token check', () => {
  it('refuses a request without Authorization with 401 {statusCode, message}', async () => {
    expectBare401(await t.app.inject({ method: 'GET', url: '/v1/account' }));
  });

  it('refuses a malformed Authorization header', async () => {
    for (const authorization of ['Token abc', 'Bearer', 'Bearer a b', basicHeader(caller.clientId, caller.clientSecret)]) {
      expectBare401(await t.app.inject({ method: 'GET', url: '/v1/account', headers: { authorization } }));
    }
  });

  it('refuses a garbage token', async () => {
    expectBare401(await bearer('not.a.jwt'));
    expectBare401(await bearer('garbage'));
  });

  it('refuses a token signed by another Ed25519 key with the same kid and claims', async () => {
    const header = decodeProtectedHeader(caller.token);
    const claims = decodeJwt(caller.token);
    const { privateKey } = await generateKeyPair('EdDSA', { crv: 'Ed25519' });
    const forged = await new SignJWT({ ...claims })
      .setProtectedHeader({ alg: 'EdDSA', kid: header.kid as string, typ: 'JWT' })
      .sign(privateKey);
    expectBare401(await bearer(forged));
  });

  it('refuses a token with alg none', async () => {
    const header = decodeProtectedHeader(caller.token);
    const claims = decodeJwt(caller.token);
    const unsigned = `${b64url({ alg: 'none', typ: 'JWT', kid: header.kid })}.${b64url(claims)}.`;
    expectBare401(await bearer(unsigned));
  });

  it('refuses a token with its payload altered', async () => {
    const [h, , s] = caller.token.split('.');
    const other = await newWorkspace(t.app, { name: 'Other Ltd' });
    const altered = `${h}.${b64url({ ...decodeJwt(caller.token), wid: other.workspaceId })}.${s}`;
    expectBare401(await bearer(altered));
  });

  it('refuses an expired token', async () => {
    const expired = await t.ctx.keys.sign({ sub: caller.clientId, wid: caller.workspaceId, jti: randomUUID() }, ISSUER, AUDIENCE, -60);
    expect(decodeJwt(expired).exp as number).toBeLessThan(Date.now() / 1000);
    expectBare401(await bearer(expired));
  });

  it('refuses a token for another audience or another issuer', async () => {
    const claims = { sub: caller.clientId, wid: caller.workspaceId, jti: randomUUID() };
    expectBare401(await bearer(await t.ctx.keys.sign(claims, ISSUER, 'another-api', 3600)));
    expectBare401(await bearer(await t.ctx.keys.sign(claims, 'https://evil.example', AUDIENCE, 3600)));
    // The same key and claims with the right issuer and audience pass: only those differed.
    expect((await bearer(await t.ctx.keys.sign(claims, ISSUER, AUDIENCE, 3600))).statusCode).toBe(200);
  });

  it('refuses a validly signed token whose credential is unknown or belongs to another workspace', async () => {
    const other = await newWorkspace(t.app, { name: 'Elsewhere Ltd' });
    expectBare401(await bearer(await t.ctx.keys.sign({ sub: randomUUID(), wid: caller.workspaceId, jti: randomUUID() }, ISSUER, AUDIENCE, 3600)));
    expectBare401(await bearer(await t.ctx.keys.sign({ sub: caller.clientId, wid: other.workspaceId, jti: randomUUID() }, ISSUER, AUDIENCE, 3600)));
  });

  it("refuses a revoked credential's token at once, and its token exchange", async () => {
    const victim = await newWorkspace(t.app, { name: 'Revoked Ltd' });
    expect((await victim.request('GET', '/v1/account')).statusCode).toBe(200);
    // No revoke endpoint exists yet: revoke in the table.
    await t.ctx.db.query("UPDATE credentials SET status = 'revoked' WHERE client_id = $1", [victim.clientId]);
    expectBare401(await victim.request('GET', '/v1/account'));
    const res = await tokenRequest({ client_id: victim.clientId, client_secret: victim.clientSecret, audience: AUDIENCE, grant_type: 'client_credentials' });
    expect(res.statusCode).toBe(401);
    expect(res.json()).toEqual({ error: 'access_denied', error_description: 'Unauthorized', error_uri: expect.stringMatching(/\/docs\/errors#access_denied$/) });
  });

  it('answers 401 with the bare body on problem-details routes too', async () => {
    expectBare401(await t.app.inject({ method: 'GET', url: '/v1/api-keys' }));
  });

  it('refuses a token signed with the real key that lacks exp, iat, aud or iss', async () => {
    const [row] = await t.ctx.db.query<{ kid: string; private_jwk_encrypted: string }>(
      'SELECT kid, private_jwk_encrypted FROM signing_keys WHERE retired_at IS NULL ORDER BY created_at DESC LIMIT 1',
    );
    const privateKey = await importJWK(JSON.parse(t.ctx.box.decrypt(row!.private_jwk_encrypted)) as JWK, 'EdDSA');
    const now = Math.floor(Date.now() / 1000);
    const full: Record<string, unknown> = { sub: caller.clientId, wid: caller.workspaceId, jti: randomUUID(), iss: ISSUER, aud: AUDIENCE, iat: now, exp: now + 3600 };
    const sign = (claims: Record<string, unknown>) => new SignJWT(claims).setProtectedHeader({ alg: 'EdDSA', kid: row!.kid, typ: 'JWT' }).sign(privateKey);
    // The same key and the full set of claims pass: only the missing claim differs.
    expect((await bearer(await sign(full))).statusCode).toBe(200);
    for (const missing of ['exp', 'iat', 'aud', 'iss']) {
      const { [missing]: _dropped, ...claims } = full;
      expectBare401(await bearer(await sign({ ...claims, jti: randomUUID() })));
    }
  });

  it('accepts the bearer scheme in any case (RFC 7235)', async () => {
    for (const scheme of ['bearer', 'BEARER', 'BeArEr']) {
      const res = await t.app.inject({ method: 'GET', url: '/v1/account', headers: { authorization: `${scheme} ${caller.token}` } });
      expect(res.statusCode).toBe(200);
    }
    const op = await t.app.inject({ method: 'GET', url: '/operator/v1/workspaces', headers: { authorization: `bearer ${OPERATOR_KEY}` } });
    expect(op.statusCode).toBe(200);
  });
});

describe('scopes', () => {
  it('refuses a call outside the credential scopes with 403 METHOD_NOT_ENTITLED', async () => {
    const reader = await newWorkspace(t.app, { name: 'Reader Ltd', scopes: ['read:accounts'] });
    expect((await reader.request('GET', '/v1/account')).statusCode).toBe(200);
    const res = await reader.request('POST', '/v1/accounts', { name: 'Sub One', country: 'GB' });
    expect(res.statusCode).toBe(403);
    expect(res.json()).toMatchObject({ statusCode: 403, code: 'METHOD_NOT_ENTITLED', message: 'METHOD_NOT_ENTITLED', error: 'FORBIDDEN' });
  });

  it('applies a scope change to an already issued token at once', async () => {
    const reader = await newWorkspace(t.app, { name: 'Grow Ltd', scopes: ['read:accounts'] });
    const admin = await operator(t.app, 'POST', `/operator/v1/workspaces/${reader.workspaceId}/credentials`, {});
    const { clientId, clientSecret } = admin.json<{ clientId: string; clientSecret: string }>();
    const adminToken = await getToken(t.app, clientId, clientSecret);
    const put = (scopes: string[]) =>
      t.app.inject({ method: 'PUT', url: `/v1/api-keys/${reader.clientId}/scopes`, headers: { authorization: `Bearer ${adminToken}` }, payload: { scopes } });

    expect((await reader.request('POST', '/v1/accounts', { name: 'Sub One', country: 'GB' })).statusCode).toBe(403);

    const granted = await put(['read:accounts', 'write:accounts']);
    expect(granted.statusCode).toBe(200);
    expect(granted.json()).toEqual({ message: 'Scopes updated', clientId: reader.clientId, scopes: ['read:accounts', 'write:accounts'] });
    expect((await reader.request('POST', '/v1/accounts', { name: 'Sub One', country: 'GB' })).statusCode).toBe(201);

    const revoked = await put(['read:accounts']);
    expect(revoked.statusCode).toBe(200);
    expect((await reader.request('POST', '/v1/accounts', { name: 'Sub Two', country: 'GB' })).statusCode).toBe(403);
  });

  it('lets write:<resource> read the same resource', async () => {
    const writer = await newWorkspace(t.app, { name: 'Writer Ltd', scopes: ['write:accounts'] });
    expect((await writer.request('GET', '/v1/account')).statusCode).toBe(200);
    expect((await writer.request('GET', '/v1/accounts')).statusCode).toBe(200);
  });

  it('refuses PUT scopes without write:api_keys', async () => {
    const reader = await newWorkspace(t.app, { name: 'NoKeys Ltd', scopes: ['read:accounts', 'read:api_keys'] });
    const res = await reader.request('PUT', `/v1/api-keys/${reader.clientId}/scopes`, { scopes: ['write:accounts'] });
    expect(res.statusCode).toBe(403);
    expect(res.json()).toMatchObject({ status: 403, code: 'METHOD_NOT_ENTITLED' });
  });

  it('lets a credential grant or remove only scopes it holds itself: write:api_keys alone cannot reach write:payouts', async () => {
    const keyAdmin = await newWorkspace(t.app, { name: 'KeyAdmin Ltd', scopes: ['write:api_keys', 'write:accounts'] });
    const peer = await operator(t.app, 'POST', `/operator/v1/workspaces/${keyAdmin.workspaceId}/credentials`, { scopes: ['read:accounts'] });
    const peerId = peer.json<{ clientId: string }>().clientId;
    const scopesOf = async (clientId: string) =>
      (await keyAdmin.request('GET', '/v1/api-keys')).json<{ data: Array<{ clientId: string; scopes: string[] }> }>().data.find((k) => k.clientId === clientId)?.scopes;

    for (const target of [keyAdmin.clientId, peerId]) {
      const before = await scopesOf(target);
      const res = await keyAdmin.request('PUT', `/v1/api-keys/${target}/scopes`, { scopes: [...(before ?? []), 'write:payouts'] });
      expect(res.statusCode).toBe(403);
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(res.json()).toMatchObject({ status: 403, code: 'METHOD_NOT_ENTITLED', category: 'permission' });
      expect(res.json<{ detail: string }>().detail).toContain('write:payouts');
      expect(await scopesOf(target)).toEqual(before);
    }
    // The self-granted scope does not work either.
    expect((await keyAdmin.request('GET', '/v1/payouts')).statusCode).toBe(403);

    // Within its own scopes it may grant (write:accounts includes read:accounts) and remove.
    const granted = await keyAdmin.request('PUT', `/v1/api-keys/${peerId}/scopes`, { scopes: ['write:accounts', 'read:api_keys'] });
    expect(granted.statusCode).toBe(200);
    expect((await keyAdmin.request('PUT', `/v1/api-keys/${peerId}/scopes`, { scopes: ['read:accounts'] })).statusCode).toBe(200);

    // A scope the target holds and the caller does not can be kept, but not removed.
    await t.ctx.db.query('UPDATE credentials SET scopes = $2 WHERE client_id = $1', [peerId, ['read:accounts', 'write:payouts']]);
    expect((await keyAdmin.request('PUT', `/v1/api-keys/${peerId}/scopes`, { scopes: ['write:accounts', 'write:payouts'] })).statusCode).toBe(200);
    const removal = await keyAdmin.request('PUT', `/v1/api-keys/${peerId}/scopes`, { scopes: ['write:accounts'] });
    expect(removal.statusCode).toBe(403);
    expect(await scopesOf(peerId)).toEqual(['write:accounts', 'write:payouts']);
  });

  it('refuses an unknown scope with 400 problem details listing each one', async () => {
    const res = await caller.request('PUT', `/v1/api-keys/${caller.clientId}/scopes`, { scopes: ['read:accounts', 'write:nothing', 'read:teleport'] });
    expect(res.statusCode).toBe(400);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    const body = res.json<{ status: number; errors: Array<{ field: string; message: string }> }>();
    expect(body.status).toBe(400);
    expect(body.errors.map((e) => e.field)).toEqual(['scopes.1', 'scopes.2']);
    // Nothing changed.
    const list = await caller.request('GET', '/v1/api-keys');
    const mine = list.json<{ data: Array<{ clientId: string; scopes: string[] }> }>().data.find((k) => k.clientId === caller.clientId);
    expect(mine?.scopes).toContain('write:api_keys');
  });

  it('refuses a scope not of the form <action>:<resource> with 400 problem details', async () => {
    const res = await caller.request('PUT', `/v1/api-keys/${caller.clientId}/scopes`, { scopes: ['admin'] });
    expect(res.statusCode).toBe(400);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.json<{ errors: unknown[] }>().errors).toEqual([expect.objectContaining({ field: 'scopes.0' })]);
  });

  it("answers 404 for another workspace's client id, and changes nothing", async () => {
    const other = await newWorkspace(t.app, { name: 'Foreign Ltd' });
    const res = await caller.request('PUT', `/v1/api-keys/${other.clientId}/scopes`, { scopes: ['read:accounts'] });
    expect(res.statusCode).toBe(404);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.json()).toMatchObject({ status: 404, code: 'NOT_FOUND' });
    expect((await other.request('POST', '/v1/accounts', { name: 'Still Allowed', country: 'GB' })).statusCode).toBe(201);
  });

  it('answers 404 for an unknown or malformed client id', async () => {
    for (const id of [randomUUID(), 'nope']) {
      const res = await caller.request('PUT', `/v1/api-keys/${id}/scopes`, { scopes: ['read:accounts'] });
      expect(res.statusCode).toBe(404);
    }
  });

  it("lists the workspace's credentials without any secret", async () => {
    const extra = await operator(t.app, 'POST', `/operator/v1/workspaces/${caller.workspaceId}/credentials`, { scopes: ['read:balances'] });
    const extraCred = extra.json<{ clientId: string; clientSecret: string }>();
    const other = await newWorkspace(t.app, { name: 'Not Listed Ltd' });

    const res = await caller.request('GET', '/v1/api-keys');
    expect(res.statusCode).toBe(200);
    const body = res.json<{ object: string; data: Array<Record<string, unknown>>; hasMore: boolean; nextCursor: string | null }>();
    expect(body.object).toBe('api_key.list');
    expect(body.hasMore).toBe(false);
    expect(body.nextCursor).toBeNull();
    const ids = body.data.map((k) => k.clientId);
    expect(ids).toEqual(expect.arrayContaining([caller.clientId, extraCred.clientId]));
    expect(ids).not.toContain(other.clientId);
    expect(body.data.find((k) => k.clientId === extraCred.clientId)).toMatchObject({ scopes: ['read:balances'], status: 'active', createdAt: expect.any(String) });
    for (const key of body.data) {
      for (const field of Object.keys(key)) expect(field.toLowerCase()).not.toMatch(/secret|hash/);
    }
    expect(res.body).not.toContain(caller.clientSecret);
    expect(res.body).not.toContain(extraCred.clientSecret);
    expect(res.body).not.toContain('scrypt');
  });
});

describe('capabilities', () => {
  it('refuses a capability switched off with 403 CAPABILITY_DISABLED, and serves it again once on', async () => {
    const ws = await newWorkspace(t.app, { name: 'Gated Ltd' });
    expect((await ws.request('GET', '/v1/test-gated')).statusCode).toBe(200);

    const off = await operator(t.app, 'PUT', `/operator/v1/workspaces/${ws.workspaceId}/capabilities/payouts`, { enabled: false });
    expect(off.statusCode).toBe(200);
    const refused = await ws.request('GET', '/v1/test-gated');
    expect(refused.statusCode).toBe(403);
    expect(refused.json()).toMatchObject({ statusCode: 403, code: 'CAPABILITY_DISABLED' });
    // Only that workspace is affected.
    expect((await caller.request('GET', '/v1/test-gated')).statusCode).toBe(200);

    const on = await operator(t.app, 'PUT', `/operator/v1/workspaces/${ws.workspaceId}/capabilities/payouts`, { enabled: true });
    expect(on.statusCode).toBe(200);
    const served = await ws.request('GET', '/v1/test-gated');
    expect(served.statusCode).toBe(200);
    expect(served.json()).toEqual({ ok: true });
  });
});

describe('logging', () => {
  it('never writes a client secret or an access token to the logs, and tags request lines with the request id', async () => {
    const chunks: string[] = [];
    const logStream = new Writable({
      write(chunk: Buffer, _enc, done) {
        chunks.push(chunk.toString('utf8'));
        done();
      },
    });
    const logged = await createTestApp({ env: { LOG_LEVEL: 'info' }, logStream });
    try {
      const ws = await newWorkspace(logged.app, { name: 'Logged Ltd' });
      const form = await logged.app.inject({
        method: 'POST',
        url: '/oauth/token',
        headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: basicHeader(ws.clientId, ws.clientSecret) },
        payload: 'grant_type=client_credentials',
      });
      expect(form.statusCode).toBe(200);
      const formToken = form.json<{ access_token: string }>().access_token;
      const wrong = await logged.app.inject({
        method: 'POST',
        url: '/oauth/token',
        payload: { client_id: ws.clientId, client_secret: ws.clientSecret, grant_type: 'refresh_token' },
      });
      expect(wrong.statusCode).toBe(400);
      const account = await ws.request('GET', '/v1/account');
      expect(account.statusCode).toBe(200);
      expect((await ws.request('POST', '/v1/accounts', { name: 'X' })).statusCode).toBe(400);
      expect((await logged.app.inject({ method: 'GET', url: '/v1/account', headers: { authorization: `Bearer ${formToken}x` } })).statusCode).toBe(401);

      const text = chunks.join('');
      expect(text.length).toBeGreaterThan(0);
      expect(text).not.toContain(ws.clientSecret);
      expect(text).not.toContain(ws.token);
      expect(text).not.toContain(formToken);
      expect(text).not.toContain(Buffer.from(`${ws.clientId}:${ws.clientSecret}`).toString('base64'));

      const lines = text
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as Record<string, unknown>);
      const requestId = account.headers['x-request-id'];
      expect(requestId).toMatch(/^req_/);
      const tagged = lines.filter((l) => l.reqId === requestId);
      expect(tagged.length).toBeGreaterThan(0);
      expect(tagged.some((l) => l.msg === 'request completed')).toBe(true);
    } finally {
      await logged.close();
    }
  });
});
