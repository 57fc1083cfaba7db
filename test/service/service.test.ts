import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, newWorkspace, type TestApp } from '../helpers/app.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t.close());

describe('service endpoints', () => {
  it('answers /healthz and /readyz with status ok', async () => {
    for (const url of ['/healthz', '/readyz']) {
      const res = await t.app.inject({ method: 'GET', url });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({ status: 'ok' });
    }
  });

  it('reads GET /v1/account with a token from POST /oauth/token', async () => {
    const caller = await newWorkspace(t.app, { name: 'Acme Ltd', country: 'NG' });
    const res = await caller.request('GET', '/v1/account');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ id: caller.workspaceId, name: 'Acme Ltd', country: 'NG', accountType: 'master', status: 'active', primaryCurrency: 'NGN' });
    expect(res.headers['x-request-id']).toMatch(/^req_/);
  });
});
