import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, getToken, type Caller, type TestApp } from '../helpers/app.js';
import { invite, PASSWORD } from '../helpers/browser.js';
import { WebClient } from '../helpers/web-client.js';
import { ADA, fund, payingWorkspace, ref } from '../payouts/helpers.js';

/**
 * Issue 33 point 12: the maker of a payout is a person, whichever credential or session they use. A
 * dashboard admin who creates credentials in the dashboard cannot approve their own payout with one
 * of them; someone else can.
 */

let t: TestApp;
let owner: Caller;
let admin: WebClient;

beforeAll(async () => {
  t = await createTestApp();
  owner = await payingWorkspace(t);
  await fund(owner, 'EUR', '500.00');
  expect((await owner.request('POST', '/v1/approval-rules', { type: 'every_payout' })).statusCode).toBe(201);
  admin = new WebClient(t.app);
  const { done } = await admin.acceptInvitation(await invite(t, owner.workspaceId, 'maker@corridor.test', 'admin'), PASSWORD);
  expect(done?.statusCode, done?.body).toBe(303);
}, 60_000);
afterAll(async () => {
  await t?.close();
});

/** A credential the signed-in admin creates on the dashboard's Credentials page (its secret shown once). */
async function dashboardCredential(): Promise<Caller> {
  await admin.get('/dashboard/credentials');
  const res = await admin.post('/dashboard/credentials', { scopes: ['write:payouts', 'write:approvals'], label: 'mine' });
  expect(res.statusCode, res.body).toBe(201);
  const clientId = /\/dashboard\/credentials\/([0-9a-f-]{36})/.exec(res.body)?.[1] as string;
  const clientSecret = /(cs_[A-Za-z0-9_-]+)/.exec(res.body)?.[1] as string;
  const token = await getToken(t.app, clientId, clientSecret);
  return {
    workspaceId: owner.workspaceId,
    clientId,
    clientSecret,
    token,
    request: (method, url, body, headers = {}) => t.app.inject({ method, url, headers: { authorization: `Bearer ${token}`, ...headers }, ...(body === undefined ? {} : { payload: body as object }) }),
  };
}

describe('the maker is a person, whichever credential they use', () => {
  it('refuses a dashboard admin approving, with a second credential they created, a payout made with their first (403 APPROVER_IS_CREATOR); someone else approves it', async () => {
    const first = await dashboardCredential();
    const second = await dashboardCredential();
    expect(second.clientId).not.toBe(first.clientId);
    const made = await first.request('POST', '/v1/payouts', { clientRef: ref('mk'), amount: '10.00', currency: 'EUR', beneficiary: ADA });
    expect(made.statusCode, made.body).toBe(201);
    const payout = made.json<{ id: string; approval: { status: string } }>();
    expect(payout.approval.status).toBe('pending');

    const own = await second.request('POST', `/v1/payouts/${payout.id}/approve`, {});
    expect(own.statusCode, own.body).toBe(403);
    expect(own.body).toContain('APPROVER_IS_CREATOR');
    expect((await second.request('POST', `/v1/payouts/${payout.id}/reject`, {})).statusCode).toBe(403);

    // The workspace's own credential, issued by the operator, is another person's: it may approve.
    const other = await owner.request('POST', `/v1/payouts/${payout.id}/approve`, {});
    expect(other.statusCode, other.body).toBe(200);
    expect(other.json()).toMatchObject({ approval: { status: 'approved' } });
  });

  it('lets a credential an admin created approve a payout someone else made', async () => {
    const mine = await dashboardCredential();
    const made = await owner.request('POST', '/v1/payouts', { clientRef: ref('mk'), amount: '5.00', currency: 'EUR', beneficiary: ADA });
    const payout = made.json<{ id: string }>();
    // Made by someone else: the admin's credential approves it.
    const approved = await mine.request('POST', `/v1/payouts/${payout.id}/approve`, {});
    expect(approved.statusCode, approved.body).toBe(200);
  });
});
