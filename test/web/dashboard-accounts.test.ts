import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, newWorkspace, operator, type Caller, type TestApp } from '../helpers/app.js';
import { WebClient } from '../helpers/web-client.js';
import { createSubAccount } from '../virtual-accounts/helpers.js';
import { ADA, saveBeneficiary } from '../payouts/helpers.js';

const PASSWORD = 'a long enough passphrase';

/** A workspace user invited through the operator API, signed in by accepting the link. */
async function member(t: TestApp, workspaceId: string, email: string, role: 'admin' | 'viewer'): Promise<WebClient> {
  const res = await operator(t.app, 'POST', `/operator/v1/workspaces/${workspaceId}/users`, { email, role });
  expect(res.statusCode, res.body).toBe(201);
  const client = new WebClient(t.app);
  expect((await client.acceptInvitation(res.json<{ invitationUrl: string }>().invitationUrl, PASSWORD)).done?.statusCode).toBe(303);
  return client;
}

async function balances(c: Caller, subAccountId?: string): Promise<Record<string, string>> {
  const res = await c.request('GET', '/v1/ledger/balances', undefined, subAccountId ? { 'service-account-id': subAccountId } : {});
  return Object.fromEntries(res.json<{ balances: { currency: string; balance: string }[] }>().balances.map((b) => [b.currency, b.balance]));
}

describe('the dashboard acting on a sub-account', () => {
  let t: TestApp;
  let c: Caller;
  let sub: string;
  let admin: WebClient;

  beforeAll(async () => {
    t = await createTestApp();
    c = await newWorkspace(t.app);
    sub = await createSubAccount(c, 'Shop Lagos');
    expect((await c.request('POST', '/v1/sandbox/balances/fund', { currency: 'EUR', amount: '100.00' })).statusCode).toBe(201);
    expect((await c.request('POST', '/v1/sandbox/balances/fund', { currency: 'EUR', amount: '7.25' }, { 'service-account-id': sub })).statusCode).toBe(201);
    admin = await member(t, c.workspaceId, 'admin@acting.example', 'admin');
  });
  afterAll(async () => t?.close());

  it('shows the master account until told otherwise, then the chosen sub-account, as the API does with Service-Account-Id', async () => {
    const master = await admin.get('/dashboard');
    expect(master.body).toContain('Master account');
    expect(master.body).toContain('100.00');

    const list = await admin.get('/dashboard/accounts');
    expect(list.statusCode).toBe(200);
    expect(list.body).toContain('Shop Lagos');
    const switched = await admin.post('/dashboard/accounts/acting', { accountId: sub });
    expect(switched.statusCode).toBe(303);

    const overview = await admin.get('/dashboard');
    expect(overview.body).toContain('Sub-account: Shop Lagos');
    expect(overview.body).toContain('7.25');
    expect(overview.body).not.toContain('100.00');
    expect(await balances(c, sub)).toEqual({ EUR: '7.25' });

    // A beneficiary of the sub-account shows while acting on it; the master's does not.
    await saveBeneficiary(c);
    const res = await c.request('POST', '/v1/beneficiaries', { ...ADA, name: 'Grace Hopper' }, { 'service-account-id': sub });
    expect(res.statusCode, res.body).toBe(201);
    const subsOwn = await admin.get('/dashboard/beneficiaries');
    expect(subsOwn.body).toContain('Grace Hopper');
    expect(subsOwn.body).not.toContain('Ada Lovelace');
  });

  it('funds the sub-account it acts on from the sandbox tools, and leaves the master alone', async () => {
    await admin.get('/dashboard/sandbox');
    const funded = await admin.post('/dashboard/sandbox/fund', { currency: 'EUR', amount: '2.75' });
    expect(funded.statusCode, funded.body).toBe(303);
    expect(await balances(c, sub)).toEqual({ EUR: '10.00' });
    expect((await balances(c)).EUR).toBe('100.00');
  });

  it('refuses an account the workspace does not own, keeping the one it acts on; and goes back to the master', async () => {
    const other = await newWorkspace(t.app);
    const foreign = await createSubAccount(other, 'Not Yours');
    await admin.get('/dashboard/accounts');
    for (const accountId of [foreign, c.workspaceId, '0b7a3e1e-4a8b-4b7e-9d1e-000000000000', 'not-an-id']) {
      expect((await admin.post('/dashboard/accounts/acting', { accountId })).statusCode, accountId).toBe(404);
    }
    expect((await admin.get('/dashboard')).body).toContain('Sub-account: Shop Lagos');
    await admin.get('/dashboard/accounts');
    expect((await admin.post('/dashboard/accounts/acting', { accountId: '' })).statusCode).toBe(303);
    const back = await admin.get('/dashboard');
    expect(back.body).toContain('Master account');
    expect(back.body).toContain('100.00');
    // The master's view mixes in its sub-accounts' rows: an Account column says whose each is.
    const rowOf = (body: string, text: string) => body.split('<tr>').find((row) => row.includes(text)) ?? '';
    const mixed = (await admin.get('/dashboard/beneficiaries')).body;
    expect(mixed).toContain('<th scope="col" class="opt">Account</th>');
    expect(rowOf(mixed, 'Grace Hopper')).toContain(`<span title="${sub}">sub-account</span>`);
    expect(rowOf(mixed, 'Ada Lovelace')).toContain('>master</td>');
  });

  it('lets a viewer choose the account they read (a choice of the session, not a change)', async () => {
    const viewer = await member(t, c.workspaceId, 'viewer@acting.example', 'viewer');
    await viewer.get('/dashboard/accounts');
    expect((await viewer.post('/dashboard/accounts/acting', { accountId: sub })).statusCode).toBe(303);
    expect((await viewer.get('/dashboard')).body).toContain('Sub-account: Shop Lagos');
    // The admin's session still acts on the master: the choice is per session.
    expect((await admin.get('/dashboard')).body).toContain('Master account');
  });
});
