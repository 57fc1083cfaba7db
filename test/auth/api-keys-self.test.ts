import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, newWorkspace, operator, type TestApp } from '../helpers/app.js';

let t: TestApp;

beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t.close());

const scopesOf = async (workspaceId: string, clientId: string) =>
  (await operator(t.app, 'GET', `/operator/v1/workspaces/${workspaceId}/credentials`)).json<{ data: { clientId: string; scopes: string[] }[] }>().data.find((c) => c.clientId === clientId)?.scopes;

describe('a credential changing its own scopes', () => {
  it('may not remove write:api_keys from itself (it could then restore nothing): 400 naming scopes, with a code', async () => {
    const keyAdmin = await newWorkspace(t.app, { name: 'Self Ltd', scopes: ['write:api_keys', 'write:accounts'] });
    for (const scopes of [['write:accounts'], ['read:api_keys', 'write:accounts'], []]) {
      const res = await keyAdmin.request('PUT', `/v1/api-keys/${keyAdmin.clientId}/scopes`, { scopes });
      expect(res.statusCode, JSON.stringify(scopes)).toBe(400);
      const body = res.json<{ errors?: { field: string; code?: string; message: string }[]; details?: { field: string; code?: string; message: string }[] }>();
      const detail = [...(body.errors ?? []), ...(body.details ?? [])][0];
      expect(detail).toMatchObject({ field: 'scopes', code: 'OWN_API_KEYS_SCOPE_REQUIRED' });
      expect(detail?.message).toContain('write:api_keys');
    }
    expect((await scopesOf(keyAdmin.workspaceId, keyAdmin.clientId))?.sort()).toEqual(['write:accounts', 'write:api_keys']);
    // Narrowing itself while keeping write:api_keys is fine, and so is removing it from another credential.
    expect((await keyAdmin.request('PUT', `/v1/api-keys/${keyAdmin.clientId}/scopes`, { scopes: ['write:api_keys'] })).statusCode).toBe(200);
    const peer = (await operator(t.app, 'POST', `/operator/v1/workspaces/${keyAdmin.workspaceId}/credentials`, { scopes: ['write:api_keys'] })).json<{ clientId: string }>().clientId;
    expect((await keyAdmin.request('PUT', `/v1/api-keys/${peer}/scopes`, { scopes: [] })).statusCode).toBe(200);
  });
});
