import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ledger, ledgerInvariantViolations } from '../../src/domains/ledger/ledger.service.js';
import { createTestApp, newWorkspace, operator, type Caller, type TestApp } from '../helpers/app.js';

let t: TestApp;
let caller: Caller;

beforeAll(async () => {
  t = await createTestApp();
  caller = await newWorkspace(t.app);
});
afterAll(async () => t.close());

interface Balances {
  userId: string;
  clientId: string;
  balances: { currency: string; balance: string; pendingIn: string; pendingOut: string; totalBalance: string; isActive: boolean; lastTransactionAt: string }[];
  totalValueEur: string;
  primaryCurrency: string;
  calculatedAt: string;
}

async function balances(c: Caller, headers: Record<string, string> = {}): Promise<Balances> {
  const res = await c.request('GET', '/v1/ledger/balances', undefined, headers);
  expect(res.statusCode).toBe(200);
  return res.json<Balances>();
}

describe('GET /v1/ledger/balances', () => {
  it('answers an empty array for a workspace that never moved money', async () => {
    const fresh = await newWorkspace(t.app);
    const body = await balances(fresh);
    expect(body).toMatchObject({ userId: fresh.workspaceId, clientId: fresh.clientId, balances: [], totalValueEur: '0.00', primaryCurrency: 'GBP' });
    expect(new Date(body.calculatedAt).toString()).not.toBe('Invalid Date');
  });

  it('shows sandbox funding as posted balance formatted to the currency scale', async () => {
    const res = await caller.request('POST', '/v1/sandbox/balances/fund', { currency: 'EUR', amount: '100.5' });
    expect(res.statusCode).toBe(201);
    const eur = (await balances(caller)).balances.find((b) => b.currency === 'EUR');
    expect(eur).toMatchObject({ currency: 'EUR', balance: '100.50', totalBalance: '100.50', pendingIn: '0.00', pendingOut: '0.00', isActive: true });
  });

  it('reports a hold as pendingOut and removes it from the available balance, then posts or voids it once', async () => {
    const c = await newWorkspace(t.app);
    await c.request('POST', '/v1/sandbox/balances/fund', { currency: 'USD', amount: '50' });
    const holdId = await t.ctx.db.tx((tx) =>
      ledger.hold(tx, {
        debit: { customer: c.workspaceId, workspaceId: c.workspaceId },
        credit: { system: 'provider_clearing', code: 'ach' },
        currency: 'USD',
        amountMinor: 1234n,
        reference: { type: 'payout', id: 'p1' },
      }),
    );
    let usd = (await balances(c)).balances.find((b) => b.currency === 'USD');
    expect(usd).toMatchObject({ balance: '37.66', pendingOut: '12.34', totalBalance: '50.00' });

    await t.ctx.db.tx((tx) => ledger.post(tx, holdId));
    usd = (await balances(c)).balances.find((b) => b.currency === 'USD');
    expect(usd).toMatchObject({ balance: '37.66', pendingOut: '0.00', totalBalance: '37.66' });
    await expect(t.ctx.db.tx((tx) => ledger.void(tx, holdId))).rejects.toThrow(/resolves exactly once/);

    const second = await t.ctx.db.tx((tx) =>
      ledger.hold(tx, {
        debit: { customer: c.workspaceId, workspaceId: c.workspaceId },
        credit: { system: 'provider_clearing', code: 'ach' },
        currency: 'USD',
        amountMinor: 3766n,
        reference: { type: 'payout', id: 'p2' },
      }),
    );
    expect((await balances(c)).balances[0]).toMatchObject({ balance: '0.00', pendingOut: '37.66' });
    await t.ctx.db.tx((tx) => ledger.void(tx, second));
    expect((await balances(c)).balances[0]).toMatchObject({ balance: '37.66', pendingOut: '0.00' });
    expect(await ledgerInvariantViolations(t.ctx.db)).toEqual([]);
  });

  it('refuses a hold beyond the available balance with INSUFFICIENT_BALANCE and writes nothing', async () => {
    const c = await newWorkspace(t.app);
    await c.request('POST', '/v1/sandbox/balances/fund', { currency: 'GBP', amount: '10' });
    const before = await t.ctx.db.query('SELECT count(*)::int AS n FROM ledger_transfers');
    await expect(
      t.ctx.db.tx((tx) =>
        ledger.hold(tx, {
          debit: { customer: c.workspaceId, workspaceId: c.workspaceId },
          credit: { system: 'provider_clearing', code: 'swift' },
          currency: 'GBP',
          amountMinor: 1001n,
          reference: { type: 'payout' },
        }),
      ),
    ).rejects.toMatchObject({ category: 'invalid_request', code: 'INSUFFICIENT_BALANCE' });
    expect(await t.ctx.db.query('SELECT count(*)::int AS n FROM ledger_transfers')).toEqual(before);
    expect((await balances(c)).balances[0]).toMatchObject({ balance: '10.00' });
  });

  it('honours Service-Account-Id: a fresh sub-account has no balances', async () => {
    const sub = await caller.request('POST', '/v1/accounts', { name: 'Sub one', country: 'DE' });
    const subId = sub.json<{ id: string }>().id;
    const body = await balances(caller, { 'service-account-id': subId });
    expect(body.userId).toBe(subId);
    expect(body.balances).toEqual([]);
    await caller.request('POST', '/v1/sandbox/balances/fund', { currency: 'EUR', amount: '5' }, { 'service-account-id': subId });
    expect((await balances(caller, { 'service-account-id': subId })).balances).toHaveLength(1);
  });

  it('converts totalValueEur at mid rates', async () => {
    const c = await newWorkspace(t.app);
    await c.request('POST', '/v1/sandbox/balances/fund', { currency: 'EUR', amount: '10' });
    await c.request('POST', '/v1/sandbox/balances/fund', { currency: 'USD', amount: '100' });
    expect((await balances(c)).totalValueEur).toBe('102.00'); // 10 + 100 × 0.92
  });

  it('serves the deprecated /ledger/balances alias with Deprecation and Link headers', async () => {
    const res = await caller.request('GET', '/ledger/balances');
    expect(res.statusCode).toBe(200);
    expect(res.headers.deprecation).toBe('true');
    expect(res.headers.link).toBe('</v1/ledger/balances>; rel="successor-version"');
    expect(res.json()).toMatchObject({ userId: caller.workspaceId });
  });
});

describe('GET /v1/ledger/transactions', () => {
  it('lists each movement newest first with the object that caused it', async () => {
    const c = await newWorkspace(t.app);
    await c.request('POST', '/v1/sandbox/balances/fund', { currency: 'EUR', amount: '1' });
    await c.request('POST', '/v1/sandbox/balances/fund', { currency: 'EUR', amount: '2' });
    const res = await c.request('GET', '/v1/ledger/transactions?limit=1');
    expect(res.statusCode).toBe(200);
    const page = res.json<{ object: string; data: { amount: string; direction: string; objectType: string; status: string }[]; hasMore: boolean; nextCursor: string }>();
    expect(page).toMatchObject({ object: 'ledger_transaction.list', hasMore: true });
    expect(page.data[0]).toMatchObject({ amount: '2.00', direction: 'credit', objectType: 'funding', status: 'posted' });
    const next = await c.request('GET', `/v1/ledger/transactions?limit=1&cursor=${page.nextCursor}`);
    expect(next.json()).toMatchObject({ hasMore: false, nextCursor: null, data: [{ amount: '1.00' }] });
    const legacy = await c.request('GET', '/ledger/transactions');
    expect(legacy.headers.deprecation).toBe('true');
  });
});

describe('funding', () => {
  it('opens the demo workspace with CORRIDOR_SANDBOX_FUNDING', async () => {
    const [demo] = await t.ctx.db.query<{ value: { workspaceId: string } }>("SELECT value FROM settings WHERE key = 'bootstrap.demo'");
    const rows = await t.ctx.db.query<{ currency: string; credits: string }>(
      "SELECT currency, (credits_posted - debits_posted)::text AS credits FROM ledger_accounts WHERE account_id = $1 ORDER BY currency",
      [demo?.value.workspaceId],
    );
    expect(rows).toEqual([
      { currency: 'EUR', credits: '10000000' },
      { currency: 'GBP', credits: '10000000' },
      { currency: 'NGN', credits: '5000000000' },
      { currency: 'USD', credits: '10000000' },
      { currency: 'USDC', credits: '100000000000' },
    ]);
  });

  it('refuses funding in a currency the workspace has not enabled, and an amount with too many decimals', async () => {
    const a = await caller.request('POST', '/v1/sandbox/balances/fund', { currency: 'XOF', amount: '100' });
    expect(a.statusCode).toBe(400);
    expect(a.json().details[0]).toMatchObject({ field: 'currency', code: 'CURRENCY_NOT_ENABLED' });
    const b = await caller.request('POST', '/v1/sandbox/balances/fund', { currency: 'EUR', amount: '1.001' });
    expect(b.statusCode).toBe(400);
    expect(b.json().details[0].field).toBe('amount');
    const c = await caller.request('POST', '/v1/sandbox/balances/fund', { currency: 'EUR', amount: 5 });
    expect(c.statusCode).toBe(400);
  });

  it('lets the operator adjust a balance up and down, never below zero, and audits it', async () => {
    const c = await newWorkspace(t.app);
    const up = await operator(t.app, 'POST', `/operator/v1/workspaces/${c.workspaceId}/balances/adjust`, { currency: 'USD', amount: '25.00', reason: 'goodwill credit' });
    expect(up.statusCode).toBe(201);
    expect(up.json()).toMatchObject({ currency: 'USD', balance: '25.00' });
    const down = await operator(t.app, 'POST', `/operator/v1/workspaces/${c.workspaceId}/balances/adjust`, { currency: 'USD', amount: '-5', reason: 'fee correction' });
    expect(down.json()).toMatchObject({ balance: '20.00' });
    const over = await operator(t.app, 'POST', `/operator/v1/workspaces/${c.workspaceId}/balances/adjust`, { currency: 'USD', amount: '-20.01', reason: 'too much' });
    expect(over.statusCode).toBe(400);
    expect(over.json().code).toBe('INSUFFICIENT_BALANCE');
    const audit = await operator(t.app, 'GET', `/operator/v1/audit-log?workspaceId=${c.workspaceId}`);
    expect(audit.json().data.filter((e: { path: string }) => e.path.endsWith('/balances/adjust'))).toHaveLength(3);
  });
});
