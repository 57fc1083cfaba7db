import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, newWorkspace, operator, OPERATOR_KEY, type Caller, type TestApp } from '../helpers/app.js';
import { WebClient } from '../helpers/web-client.js';

const PASSWORD = 'a long enough passphrase';

let t: TestApp;
let caller: Caller;

beforeAll(async () => {
  t = await createTestApp();
  caller = await newWorkspace(t.app);
});
afterAll(async () => t.close());

/** A date PostgreSQL has no day for (there is no year 0), and one it has, in the same shape. */
const YEAR_ZERO = '0000-01-01T00:00:00Z';
const YEAR_ONE = '0001-01-01T00:00:00Z';

function expectFieldRefusal(res: { statusCode: number; json: <T>() => T; body: string }, field: string): void {
  expect(res.statusCode, res.body).toBe(400);
  const body = res.json<{ retryable?: boolean; details?: { field: string }[]; errors?: { field: string }[] }>();
  expect(body.retryable ?? false).toBe(false);
  expect([...(body.details ?? []), ...(body.errors ?? [])].map((d) => d.field)).toContain(field);
}

describe('date filters out of the database range are refused with a 400 naming the field', () => {
  it('on GET /v1/payouts (createdFrom, createdTo)', async () => {
    for (const field of ['createdFrom', 'createdTo']) {
      expectFieldRefusal(await caller.request('GET', `/v1/payouts?${field}=${YEAR_ZERO}`), field);
      expect((await caller.request('GET', `/v1/payouts?${field}=${YEAR_ONE}`)).statusCode).toBe(200);
    }
  });

  it('on GET /v1/events (createdFrom, createdTo)', async () => {
    for (const field of ['createdFrom', 'createdTo']) {
      expectFieldRefusal(await caller.request('GET', `/v1/events?${field}=${YEAR_ZERO}`), field);
      expect((await caller.request('GET', `/v1/events?${field}=${YEAR_ONE}`)).statusCode).toBe(200);
    }
  });

  it('on GET /operator/v1/audit-log (from, to)', async () => {
    for (const field of ['from', 'to']) {
      expectFieldRefusal(await operator(t.app, 'GET', `/operator/v1/audit-log?${field}=${YEAR_ZERO}`), field);
      expect((await operator(t.app, 'GET', `/operator/v1/audit-log?${field}=${YEAR_ONE}`)).statusCode).toBe(200);
    }
  });

  it('on the console audit page: a form error beside the field, not an error page', async () => {
    const client = new WebClient(t.app);
    await client.get('/console/sign-in');
    expect((await client.post('/console/sign-in/key', { operatorKey: OPERATOR_KEY })).statusCode).toBe(303);
    for (const field of ['from', 'to']) {
      const res = await client.get(`/console/audit?${field}=${YEAR_ZERO}`);
      expect(res.statusCode).toBe(400);
      expect(res.body).toContain(`${field} must be a date-time`);
      expect(res.body).toContain('name="pathContains"');
    }
  });

  it('on the dashboard payouts page: a form error beside the field, not an error page', async () => {
    const invited = await operator(t.app, 'POST', `/operator/v1/workspaces/${caller.workspaceId}/users`, { email: 'viewer@dates.example', role: 'viewer' });
    const client = new WebClient(t.app);
    const { done } = await client.acceptInvitation(invited.json<{ invitationUrl: string }>().invitationUrl, PASSWORD);
    expect(done?.statusCode).toBe(303);
    for (const field of ['createdFrom', 'createdTo']) {
      const res = await client.get(`/dashboard/payouts?${field}=0000-01-01`);
      expect(res.statusCode).toBe(400);
      expect(res.body).toContain(`${field} must be a day`);
      expect(res.body).toContain('name="createdTo"');
      expect((await client.get(`/dashboard/payouts?${field}=0001-01-01`)).statusCode).toBe(200);
    }
  });
});
