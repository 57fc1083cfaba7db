import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, newWorkspace, onPostgres, operator, type Caller, type TestApp } from '../helpers/app.js';
import { activeAccount, approveOnboarding, asSub, createSubAccount, eventsOfType, expectCode, expectProblem, receivingWorkspace, requestAccount } from '../virtual-accounts/helpers.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t.close());

interface Deposit {
  id: string;
  clientRef: string;
  amount: string;
  serviceFee: string | null;
  creditedAmount: string | null;
  currency: string;
  status: string;
  rail: string;
  virtualAccountId: string | null;
  accountId: string | null;
}

async function deposit(c: Caller, body: Record<string, unknown>, expected = 201): Promise<Deposit> {
  const res = await c.request('POST', '/v1/sandbox/deposits', body);
  expect(res.statusCode, res.body).toBe(expected);
  return res.json<Deposit>();
}

async function balance(c: Caller, currency: string): Promise<string | undefined> {
  const res = await c.request('GET', '/v1/ledger/balances');
  expect(res.statusCode, res.body).toBe(200);
  return res.json<{ balances: { currency: string; balance: string }[] }>().balances.find((b) => b.currency === currency)?.balance;
}

async function pendingIn(c: Caller, currency: string): Promise<string | undefined> {
  const res = await c.request('GET', '/v1/ledger/balances');
  return res.json<{ balances: { currency: string; pendingIn: string }[] }>().balances.find((b) => b.currency === currency)?.pendingIn;
}

async function setDepositFee(c: Caller, currency: string, fee: string): Promise<void> {
  const res = await operator(t.app, 'PUT', `/operator/v1/workspaces/${c.workspaceId}/settings`, { depositFees: { [currency]: fee } });
  expect(res.statusCode, res.body).toBe(200);
}

describe('sandbox deposits', () => {
  it('credits a completed deposit by creditedAmount = amount - serviceFee in the same move, with deposit.completed once', async () => {
    const c = await receivingWorkspace(t.app);
    const eur = await activeAccount(c, 'EUR');
    await setDepositFee(c, 'EUR', '1.50');
    const d = await deposit(c, { virtualAccountId: eur.id, amount: '100.00', clientRef: 'inv-1001' });
    expect(d).toMatchObject({ clientRef: 'inv-1001', amount: '100.00', serviceFee: '1.50', creditedAmount: '98.50', currency: 'EUR', status: 'completed', rail: 'bank_transfer', virtualAccountId: eur.id, accountId: null });
    expect(await balance(c, 'EUR')).toBe('98.50');
    // Completing again (simulated twice) changes nothing.
    const again = await c.request('POST', `/v1/sandbox/deposits/${d.id}/complete`);
    expect(again.statusCode, again.body).toBe(200);
    expect(again.json().status).toBe('completed');
    expect(await balance(c, 'EUR')).toBe('98.50');
    const events = await eventsOfType(c, 'deposit.');
    expect(events.map((e) => e.type)).toEqual(['deposit.completed']);
    expect(events[0]!.data).toEqual({ id: d.id, clientRef: 'inv-1001', amount: '100.00', serviceFee: '1.50', creditedAmount: '98.50', currency: 'EUR', status: 'completed' });
    // The movement feed names the deposit.
    const feed = await c.request('GET', '/v1/ledger/transactions');
    expect(feed.json().data.some((tx: { objectType: string; objectId: string }) => tx.objectType === 'deposit' && tx.objectId === d.id)).toBe(true);
  });

  it('fails a declined deposit with deposit.failed, crediting nothing (serviceFee and creditedAmount null)', async () => {
    const c = await receivingWorkspace(t.app);
    const xof = await activeAccount(c, 'XOF');
    const d = await deposit(c, { virtualAccountId: xof.id, amount: '5000', rail: 'mobile_money', outcome: 'failed' });
    expect(d).toMatchObject({ status: 'failed', serviceFee: null, creditedAmount: null, amount: '5000', rail: 'mobile_money', failureReason: 'payer_declined' });
    expect(await balance(c, 'XOF')).toBe('0');
    expect(await pendingIn(c, 'XOF')).toBe('0');
    const events = await eventsOfType(c, 'deposit.');
    expect(events.map((e) => e.type)).toEqual(['deposit.failed']);
    expect(events[0]!.data).toMatchObject({ id: d.id, serviceFee: null, creditedAmount: null, status: 'failed' });
    expectCode(await c.request('POST', `/v1/sandbox/deposits/${d.id}/complete`), 409, 'INVALID_DEPOSIT_STATE');
  });

  it('completes or fails an in_review deposit on the review outcome', async () => {
    const c = await receivingWorkspace(t.app);
    const gbp = await activeAccount(c, 'GBP');
    const cleared = await deposit(c, { virtualAccountId: gbp.id, amount: '40.00', outcome: 'in_review' });
    expect(cleared).toMatchObject({ status: 'in_review', creditedAmount: '40.00' });
    // On its way in: pending in the balance, not available.
    expect(await balance(c, 'GBP')).toBe('0.00');
    expect(await pendingIn(c, 'GBP')).toBe('40.00');
    expect(await eventsOfType(c, 'deposit.')).toEqual([]);
    expect((await c.request('POST', `/v1/sandbox/deposits/${cleared.id}/complete`)).json().status).toBe('completed');
    expect(await balance(c, 'GBP')).toBe('40.00');
    expect(await pendingIn(c, 'GBP')).toBe('0.00');
    const rejected = await deposit(c, { virtualAccountId: gbp.id, amount: '7.00', outcome: 'in_review' });
    const failed = await c.request('POST', `/v1/sandbox/deposits/${rejected.id}/fail`, { reason: 'compliance_rejected' });
    expect(failed.json()).toMatchObject({ status: 'failed', serviceFee: null, creditedAmount: null, failureReason: 'compliance_rejected' });
    expect(await balance(c, 'GBP')).toBe('40.00');
    expect(await pendingIn(c, 'GBP')).toBe('0.00');
    expect((await eventsOfType(c, 'deposit.')).map((e) => e.type)).toEqual(['deposit.completed', 'deposit.failed']);
  });

  it('lands on every rail the spec lists', async () => {
    const c = await receivingWorkspace(t.app);
    const usd = await activeAccount(c, 'USD');
    const ghs = await activeAccount(c, 'GHS');
    expect((await deposit(c, { virtualAccountId: usd.id, amount: '10.00', rail: 'account_credit' })).rail).toBe('account_credit');
    expect((await deposit(c, { virtualAccountId: ghs.id, amount: '10.00', rail: 'paybill' })).rail).toBe('paybill');
    // By currency: the owner's active account in it.
    expect((await deposit(c, { currency: 'GHS', amount: '1.00', rail: 'mobile_money' })).virtualAccountId).toBe(ghs.id);
    // Without a virtual account: an STK-push collection and an on-chain deposit credit the balance.
    expect(await deposit(c, { currency: 'EUR', amount: '3.00', rail: 'mpesa_stk_push' })).toMatchObject({ rail: 'mpesa_stk_push', virtualAccountId: null });
    expect(await deposit(c, { currency: 'USDC', amount: '25.5' })).toMatchObject({ rail: 'crypto', amount: '25.500000', virtualAccountId: null });
    expect(await balance(c, 'USDC')).toBe('25.500000');
    expect(await balance(c, 'USD')).toBe('10.00');
  });

  it('refuses a deposit that cannot land: currency not enabled, no active account of the owner, wrong rail, bad amount', async () => {
    const c = await receivingWorkspace(t.app);
    const pending = await requestAccount(c, 'XAF');
    expectCode(await c.request('POST', '/v1/sandbox/deposits', { virtualAccountId: pending.id, amount: '100' }), 409, 'VIRTUAL_ACCOUNT_NOT_ACTIVE');
    expectCode(await c.request('POST', '/v1/sandbox/deposits', { currency: 'EUR', amount: '1.00' }), 409, 'VIRTUAL_ACCOUNT_REQUIRED');
    const plain = await newWorkspace(t.app);
    const notEnabled = await plain.request('POST', '/v1/sandbox/deposits', { currency: 'USDT', amount: '1' });
    expect(notEnabled.statusCode).toBe(400);
    expect(notEnabled.json().details[0]).toMatchObject({ field: 'currency', code: 'CURRENCY_NOT_ENABLED' });
    expect((await c.request('POST', '/v1/sandbox/deposits', { currency: 'USDC', amount: '1', rail: 'bank_transfer' })).statusCode).toBe(400);
    const eur = await activeAccount(c, 'EUR');
    expect((await c.request('POST', '/v1/sandbox/deposits', { virtualAccountId: eur.id, amount: '1.001' })).json().details[0].field).toBe('amount');
    expect((await c.request('POST', '/v1/sandbox/deposits', { virtualAccountId: eur.id, amount: 5 })).statusCode).toBe(400);
    expect((await c.request('POST', '/v1/sandbox/deposits', { amount: '5.00' })).statusCode).toBe(400);
    // Deactivated: no more deposits.
    await c.request('POST', `/v1/sandbox/virtual-accounts/${eur.id}/deactivate`);
    expectCode(await c.request('POST', '/v1/sandbox/deposits', { virtualAccountId: eur.id, amount: '1.00' }), 409, 'VIRTUAL_ACCOUNT_DEACTIVATED');
    expect(await balance(c, 'EUR')).toBeUndefined();
  });
});

describe('operator deposits', () => {
  it('credits an inbound payment, and a rejection in review after the credit landed carries its figures and takes it back', async () => {
    const c = await receivingWorkspace(t.app);
    const eur = await activeAccount(c, 'EUR');
    await setDepositFee(c, 'EUR', '0.25');
    const res = await operator(t.app, 'POST', '/operator/v1/deposits', { virtualAccountId: eur.id, amount: '20.00', clientRef: 'bank-ref-9' });
    expect(res.statusCode, res.body).toBe(201);
    const d = res.json<Deposit>();
    expect(d).toMatchObject({ status: 'completed', serviceFee: '0.25', creditedAmount: '19.75' });
    expect(await balance(c, 'EUR')).toBe('19.75');
    expect((await operator(t.app, 'POST', `/operator/v1/deposits/${d.id}/review`)).json().status).toBe('in_review');
    expect(await balance(c, 'EUR')).toBe('19.75');
    const rejected = await operator(t.app, 'POST', `/operator/v1/deposits/${d.id}/fail`, { reason: 'compliance_rejected' });
    expect(rejected.statusCode, rejected.body).toBe(200);
    expect(rejected.json()).toMatchObject({ status: 'failed', serviceFee: '0.25', creditedAmount: '19.75' });
    expect(await balance(c, 'EUR')).toBe('0.00');
    const events = await eventsOfType(c, 'deposit.');
    expect(events.map((e) => e.type)).toEqual(['deposit.completed', 'deposit.failed']);
    expect(events[1]!.data).toMatchObject({ id: d.id, status: 'failed', serviceFee: '0.25', creditedAmount: '19.75' });
    const audit = await operator(t.app, 'GET', `/operator/v1/audit-log?limit=100`);
    expect(audit.json<{ data: { path: string }[] }>().data.some((e) => e.path === '/operator/v1/deposits')).toBe(true);
  });

  it('clears a review of a completed deposit without a second credit or event', async () => {
    const c = await receivingWorkspace(t.app);
    const gbp = await activeAccount(c, 'GBP');
    const d = await deposit(c, { virtualAccountId: gbp.id, amount: '12.00' });
    await operator(t.app, 'POST', `/operator/v1/deposits/${d.id}/review`);
    expect((await operator(t.app, 'POST', `/operator/v1/deposits/${d.id}/complete`)).json().status).toBe('completed');
    expect(await balance(c, 'GBP')).toBe('12.00');
    expect((await eventsOfType(c, 'deposit.')).map((e) => e.type)).toEqual(['deposit.completed']);
  });

  it('reverses a completed deposit, taking the credit back with no deposit.failed; refunds emit nothing', async () => {
    const c = await receivingWorkspace(t.app);
    const usd = await activeAccount(c, 'USD');
    const reversed = await deposit(c, { virtualAccountId: usd.id, amount: '30.00' });
    const refunded = await deposit(c, { virtualAccountId: usd.id, amount: '5.00' });
    expect(await balance(c, 'USD')).toBe('35.00');
    const r = await operator(t.app, 'POST', `/operator/v1/deposits/${reversed.id}/reverse`);
    expect(r.statusCode, r.body).toBe(200);
    expect(r.json()).toMatchObject({ status: 'failed', creditedAmount: '30.00', failureReason: 'reversed' });
    expect(await balance(c, 'USD')).toBe('5.00');
    expect((await operator(t.app, 'POST', `/operator/v1/deposits/${refunded.id}/refund`)).json().status).toBe('refunding');
    expect(await balance(c, 'USD')).toBe('0.00');
    expect((await operator(t.app, 'POST', `/operator/v1/deposits/${refunded.id}/refunded`)).json().status).toBe('refunded');
    expect((await eventsOfType(c, 'deposit.')).map((e) => e.type)).toEqual(['deposit.completed', 'deposit.completed']);
    expectProblem(await operator(t.app, 'POST', `/operator/v1/deposits/${refunded.id}/fail`), 409, 'INVALID_DEPOSIT_STATE');
  });

  it('refuses to take back a credit already spent', async () => {
    const c = await receivingWorkspace(t.app);
    const eur = await activeAccount(c, 'EUR');
    const d = await deposit(c, { virtualAccountId: eur.id, amount: '10.00' });
    const spend = await operator(t.app, 'POST', `/operator/v1/workspaces/${c.workspaceId}/balances/adjust`, { currency: 'EUR', amount: '-8.00', reason: 'spent' });
    expect(spend.statusCode, spend.body).toBe(201);
    const r = await operator(t.app, 'POST', `/operator/v1/deposits/${d.id}/reverse`);
    expect(r.statusCode).toBe(400);
    expect(r.json().code).toBe('INSUFFICIENT_BALANCE');
    expect((await c.request('GET', `/v1/deposits/${d.id}`)).json().status).toBe('completed');
  });

  it('credits a sub-account through the workspace and accountId, and 404s an unknown deposit', async () => {
    const c = await receivingWorkspace(t.app);
    const subId = await createSubAccount(c, 'Shop Lagos');
    const res = await operator(t.app, 'POST', '/operator/v1/deposits', { workspaceId: c.workspaceId, accountId: subId, currency: 'USDC', amount: '2' });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json()).toMatchObject({ accountId: subId, rail: 'crypto' });
    expect(await balance(asSub(c, subId), 'USDC')).toBe('2.000000');
    expect(await balance(c, 'USDC')).toBeUndefined();
    expectProblem(await operator(t.app, 'POST', '/operator/v1/deposits/00000000-0000-4000-8000-000000000000/complete'), 404, 'NOT_FOUND');
  });
});

describe('GET /v1/deposits', () => {
  it('lists newest first with filters status and virtualAccountId, and reads one', async () => {
    const c = await receivingWorkspace(t.app);
    const eur = await activeAccount(c, 'EUR');
    const gbp = await activeAccount(c, 'GBP');
    const a = await deposit(c, { virtualAccountId: eur.id, amount: '1.00' });
    const b = await deposit(c, { virtualAccountId: eur.id, amount: '2.00', outcome: 'failed' });
    const g = await deposit(c, { virtualAccountId: gbp.id, amount: '3.00', outcome: 'in_review' });
    const all = await c.request('GET', '/v1/deposits');
    expect(all.statusCode, all.body).toBe(200);
    expect(all.json()).toMatchObject({ object: 'deposit.list', hasMore: false, nextCursor: null });
    expect(all.json().data.map((d: Deposit) => d.id)).toEqual([g.id, b.id, a.id]);
    expect((await c.request('GET', '/v1/deposits?status=failed')).json().data.map((d: Deposit) => d.id)).toEqual([b.id]);
    expect((await c.request('GET', `/v1/deposits?virtualAccountId=${eur.id}`)).json().data.map((d: Deposit) => d.id)).toEqual([b.id, a.id]);
    const paged = await c.request('GET', '/v1/deposits?limit=2');
    expect(paged.json()).toMatchObject({ hasMore: true });
    expect((await c.request('GET', `/v1/deposits?limit=2&cursor=${paged.json().nextCursor}`)).json().data.map((d: Deposit) => d.id)).toEqual([a.id]);
    const one = await c.request('GET', `/v1/deposits/${a.id}`);
    expect(one.statusCode).toBe(200);
    expect(one.json()).toMatchObject({ id: a.id, status: 'completed', creditedAmount: '1.00' });
    expectProblem(await c.request('GET', '/v1/deposits?status=lost'), 400, 'VALIDATION_ERROR');
  });

  it('answers another workspace\'s deposit 404 and keeps sub-accounts apart', async () => {
    const a = await receivingWorkspace(t.app);
    const b = await receivingWorkspace(t.app);
    const eur = await activeAccount(a, 'EUR');
    const d = await deposit(a, { virtualAccountId: eur.id, amount: '1.00' });
    expectProblem(await b.request('GET', `/v1/deposits/${d.id}`), 404, 'NOT_FOUND');
    expect((await b.request('GET', '/v1/deposits')).json().data).toEqual([]);
    expectCode(await b.request('POST', `/v1/sandbox/deposits/${d.id}/fail`), 404, 'NOT_FOUND');
    expectCode(await b.request('POST', '/v1/sandbox/deposits', { virtualAccountId: eur.id, amount: '1.00' }), 404, 'NOT_FOUND');

    const subId = await createSubAccount(a, 'Shop Accra');
    const sub = asSub(a, subId);
    await approveOnboarding(t.app, sub);
    // The master's account is not the sub-account's.
    expectCode(await sub.request('POST', '/v1/sandbox/deposits', { virtualAccountId: eur.id, amount: '1.00' }), 404, 'NOT_FOUND');
    const subEur = await activeAccount(sub, 'EUR');
    const subDeposit = await deposit(sub, { virtualAccountId: subEur.id, amount: '4.00' });
    expect(subDeposit.accountId).toBe(subId);
    const [completed] = (await eventsOfType(a, 'deposit.')).filter((e) => e.data.id === subDeposit.id);
    expect(completed!.accountId).toBe(subId);
    expect((await sub.request('GET', '/v1/deposits')).json().data.map((x: Deposit) => x.id)).toEqual([subDeposit.id]);
    expectProblem(await sub.request('GET', `/v1/deposits/${d.id}`), 404, 'NOT_FOUND');
    expect((await a.request('GET', '/v1/deposits')).json().data).toHaveLength(2);
    expect(await balance(sub, 'EUR')).toBe('4.00');
  });

  it('needs read:deposits, and the deposits capability to simulate one', async () => {
    const c = await newWorkspace(t.app, { scopes: ['read:payouts'] });
    expectProblem(await c.request('GET', '/v1/deposits'), 403, 'METHOD_NOT_ENTITLED');
    const off = await receivingWorkspace(t.app);
    const eur = await activeAccount(off, 'EUR');
    await operator(t.app, 'PUT', `/operator/v1/workspaces/${off.workspaceId}/capabilities/deposits`, { enabled: false });
    expectCode(await off.request('POST', '/v1/sandbox/deposits', { virtualAccountId: eur.id, amount: '1.00' }), 403, 'CAPABILITY_DISABLED');
  });
});

describe('deposit fees', () => {
  it('refuses a fee that does not fit its currency', async () => {
    const c = await newWorkspace(t.app);
    const res = await operator(t.app, 'PUT', `/operator/v1/workspaces/${c.workspaceId}/settings`, { depositFees: { XOF: '1.5' } });
    expect(res.statusCode).toBe(400);
    expect(JSON.stringify(res.json())).toContain('depositFees.XOF');
  });
});

describe.runIf(onPostgres)('concurrency on PostgreSQL', () => {
  it('credits once for 50 parallel completions of one deposit', async () => {
    const c = await receivingWorkspace(t.app);
    const eur = await activeAccount(c, 'EUR');
    const d = await deposit(c, { virtualAccountId: eur.id, amount: '10.00', outcome: 'in_review' });
    const answers = await Promise.all(Array.from({ length: 50 }, (_, i) => (i % 2 ? c.request('POST', `/v1/sandbox/deposits/${d.id}/complete`) : operator(t.app, 'POST', `/operator/v1/deposits/${d.id}/complete`))));
    for (const r of answers) expect(r.statusCode, r.body).toBe(200);
    expect(await balance(c, 'EUR')).toBe('10.00');
    expect((await eventsOfType(c, 'deposit.')).map((e) => e.type)).toEqual(['deposit.completed']);
  });
});
