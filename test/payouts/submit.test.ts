import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, operator, type Caller, type TestApp } from '../helpers/app.js';
import { ADDRESSES, mobileNumber } from '../helpers/corridor-fixtures.js';
import { ADA, balance, eventTypesOf, fund, payingWorkspace, ref, saveBeneficiary, type PayoutView } from './helpers.js';

let t: TestApp;
let c: Caller;
let beneficiaryId: string;

beforeAll(async () => {
  // Steps far apart: nothing moves on its own during these tests.
  t = await createTestApp({ env: { SANDBOX_STEP_MS: '600000' } });
  c = await payingWorkspace(t);
  await fund(c, 'EUR', '500');
  beneficiaryId = await saveBeneficiary(c);
});
afterAll(async () => t.close());

const eur = (amount = '10.00', extra: Record<string, unknown> = {}) => ({ clientRef: ref(), amount, currency: 'EUR', beneficiary: { id: beneficiaryId }, ...extra });

async function count(sql: string, params: unknown[] = []): Promise<number> {
  const [row] = await t.ctx.db.query<{ n: number }>(sql, params);
  return row?.n ?? 0;
}

describe('POST /v1/payouts refusals', () => {
  it('refuses a JSON number amount, a negative, an exponent and too many decimals, naming the field', async () => {
    for (const amount of [10, '-1.00', '1e3', '1.001', '+1']) {
      const res = await c.request('POST', '/v1/payouts', eur(amount as string));
      expect(res.statusCode, String(amount)).toBe(400);
      expect(res.json().details[0].field).toBe('amount');
    }
  });

  it('refuses a currency the workspace has not enabled with CORRIDOR_NOT_ENABLED', async () => {
    const res = await c.request('POST', '/v1/payouts', { ...eur(), currency: 'XOF', amount: '1000' });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ statusCode: 400, message: 'CORRIDOR_NOT_ENABLED', code: 'CORRIDOR_NOT_ENABLED', error: 'BAD_REQUEST' });
  });

  it('refuses mobile-money amounts outside the spec bounds with AMOUNT_OUT_OF_BOUNDS (XAF 500 to 1,000,000)', async () => {
    const cm = await payingWorkspace(t);
    await operator(t.app, 'PUT', `/operator/v1/workspaces/${cm.workspaceId}/currencies/XAF`, { enabled: true });
    await operator(t.app, 'POST', `/operator/v1/workspaces/${cm.workspaceId}/balances/adjust`, { currency: 'XAF', amount: '5000000', reason: 'test funds' });
    const beneficiary = { name: 'Jean Mballa', country: 'CM', accounts: [{ type: 'mobile_money', currency: 'XAF', data: { phoneNumber: mobileNumber('CM'), network: 'mtn' } }] };
    const senderInfo = { type: 'individual', firstName: 'Paul', lastName: 'Biya', phoneNumber: mobileNumber('CM'), country: 'CM' };
    for (const [amount, status] of [['499', 400], ['1000001', 400], ['500', 201], ['1000000', 201]] as const) {
      const res = await cm.request('POST', '/v1/payouts', { clientRef: ref(), amount, currency: 'XAF', route: 'mobile_money', beneficiary, senderInfo });
      expect(res.statusCode, `${amount}: ${res.body}`).toBe(status);
      if (status === 400) expect(res.json().message).toBe('AMOUNT_OUT_OF_BOUNDS');
    }
    // Cameroon needs the sender's phone: without senderInfo the payout is incomplete.
    const missing = await cm.request('POST', '/v1/payouts', { clientRef: ref(), amount: '600', currency: 'XAF', route: 'mobile_money', beneficiary });
    expect(missing.statusCode).toBe(400);
    expect(missing.json().details[0].code).toBe('SENDER_INFO_INCOMPLETE');
  });

  it('refuses payouts when the operator has not permitted them, with PAYOUT_NOT_PERMITTED', async () => {
    const w = await payingWorkspace(t, { payoutsPermitted: false });
    await fund(w, 'EUR', '10');
    const res = await w.request('POST', '/v1/payouts', { ...eur('1.00'), beneficiary: ADA });
    expect(res.json()).toMatchObject({ statusCode: 400, message: 'PAYOUT_NOT_PERMITTED' });
  });

  it('enforces per-transaction and daily limits with LIMIT_EXCEEDED', async () => {
    const w = await payingWorkspace(t, { payoutLimits: { EUR: { perTransaction: '50.00', daily: '80.00' } } });
    await fund(w, 'EUR', '1000');
    const big = await w.request('POST', '/v1/payouts', { ...eur('50.01'), beneficiary: ADA });
    expect(big.json()).toMatchObject({ statusCode: 400, message: 'LIMIT_EXCEEDED' });
    const first = await w.request('POST', '/v1/payouts', { ...eur('50.00'), beneficiary: ADA });
    expect(first.statusCode).toBe(201);
    const second = await w.request('POST', '/v1/payouts', { ...eur('30.01'), beneficiary: ADA });
    expect(second.json()).toMatchObject({ statusCode: 400, message: 'LIMIT_EXCEEDED' });
    const fits = await w.request('POST', '/v1/payouts', { ...eur('30.00'), beneficiary: ADA });
    expect(fits.statusCode).toBe(201);
  });

  it('reports recipient problems before sender problems, one check per round trip', async () => {
    const badIban = { ...ADA, accounts: [{ type: 'iban', currency: 'EUR', data: { iban: 'DE89370400440532013001' } }] };
    const res = await c.request('POST', '/v1/payouts', { ...eur(), beneficiary: badIban, senderInfo: { type: 'business', dateOfBirth: '1990-01-01', companyName: 'X' } });
    expect(res.statusCode).toBe(400);
    expect(res.json().details.map((d: { code?: string }) => d.code)).toEqual(['INVALID_IBAN']);
    const sender = await c.request('POST', '/v1/payouts', { ...eur(), senderInfo: { type: 'business', dateOfBirth: '1990-01-01', companyName: 'X' } });
    expect(sender.statusCode).toBe(400);
    expect(sender.json().details[0].code).toBe('SENDER_INFO_INVALID');
  });

  it('refuses a payout without senderInfo from a workspace with no business identity: ORIGINATOR_NOT_ON_RECORD', async () => {
    const { newWorkspace } = await import('../helpers/app.js');
    const w = await newWorkspace(t.app);
    await fund(w, 'EUR', '10');
    const res = await w.request('POST', '/v1/payouts', { ...eur('1.00'), beneficiary: ADA });
    expect(res.json().details[0].code).toBe('ORIGINATOR_NOT_ON_RECORD');
  });

  it('refuses senderInfo keys outside the corridor lists, naming them, and keeps only the listed keys in the stored identity', async () => {
    const refused = await c.request('POST', '/v1/payouts', eur('1.00', { senderInfo: { type: 'individual', firstName: 'Grace', lastName: 'Hopper', country: 'DE', nickname: 'Amazing Grace' } }));
    expect(refused.statusCode, refused.body).toBe(400);
    expect(refused.json().details).toEqual([expect.objectContaining({ field: 'senderInfo.nickname', code: 'UNKNOWN_FIELD' })]);
    const res = await c.request('POST', '/v1/payouts', eur('1.00', { senderInfo: { type: 'individual', firstName: 'Grace', lastName: 'Hopper', country: 'DE', gender: 'female', fundOrigin: 'salary' } }));
    expect(res.statusCode, res.body).toBe(201);
    // The sender is stored sealed (lib/crypto-box): opened here with the app's key.
    const [sealed] = await t.ctx.db.query<{ sender: string }>('SELECT sender FROM payouts WHERE id = $1', [res.json().id]);
    const row = sealed && { sender: t.ctx.box.openJson<Record<string, string>>(sealed.sender) };
    expect(row?.sender.type).toBe('individual');
    for (const key of Object.keys(row?.sender ?? {})) expect(['type', 'firstName', 'lastName', 'dateOfBirth', 'address', 'postalCode', 'city', 'country', 'phoneNumber', 'fundOrigin', 'gender', 'companyName', 'registrationNumber']).toContain(key);
  });

  it('refuses a beneficiary id that is unknown, another workspace\'s, or inactive, naming beneficiary.id', async () => {
    const other = await payingWorkspace(t);
    const theirs = await saveBeneficiary(other);
    const retired = await saveBeneficiary(c);
    expect((await c.request('DELETE', `/v1/beneficiaries/${retired}`)).statusCode).toBe(200);
    for (const id of ['00000000-0000-4000-8000-000000000000', theirs, retired]) {
      const res = await c.request('POST', '/v1/payouts', { ...eur('1.00'), beneficiary: { id } });
      expect(res.statusCode, id).toBe(400);
      expect(res.json().details[0].field).toBe('beneficiary.id');
    }
  });

  it('answers a duplicate clientRef with 400 and the spec message, without the original', async () => {
    const body = eur('2.00');
    expect((await c.request('POST', '/v1/payouts', body)).statusCode).toBe(201);
    const again = await c.request('POST', '/v1/payouts', body);
    expect(again.statusCode).toBe(400);
    expect(again.json()).toMatchObject({ statusCode: 400, message: 'Payout with this client reference already exists' });
    expect(again.json().id).toBeUndefined();
    const found = await c.request('GET', `/v1/payouts?clientRef=${body.clientRef}`);
    expect(found.json().data).toHaveLength(1);
  });

  it('replays a payout for a repeated Idempotency-Key and creates one', async () => {
    const body = eur('3.00');
    const first = await c.request('POST', '/v1/payouts', body, { 'idempotency-key': `k-${body.clientRef}` });
    const second = await c.request('POST', '/v1/payouts', body, { 'idempotency-key': `k-${body.clientRef}` });
    expect(first.statusCode).toBe(201);
    expect(second.statusCode).toBe(201);
    expect(second.headers['idempotent-replayed']).toBe('true');
    expect(second.body).toBe(first.body);
    expect(await count('SELECT count(*)::int AS n FROM payouts WHERE client_ref = $1', [body.clientRef])).toBe(1);
  });
});

describe('funding', () => {
  it('records a fiat payout without a quote that the balance cannot cover as failed, with payout.failed as its only event, and answers 400 INSUFFICIENT_BALANCE', async () => {
    const w = await payingWorkspace(t);
    await fund(w, 'EUR', '5');
    const body = { ...eur('5.01'), beneficiary: ADA };
    const res = await w.request('POST', '/v1/payouts', body);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ message: 'INSUFFICIENT_BALANCE', code: 'INSUFFICIENT_BALANCE' });
    const list = (await w.request('GET', `/v1/payouts?clientRef=${body.clientRef}`)).json<{ data: PayoutView[] }>().data;
    expect(list).toHaveLength(1);
    expect(list[0]).toMatchObject({ status: 'failed', failureReason: 'insufficient_balance' });
    expect(await eventTypesOf(t, list[0]?.id as string)).toEqual(['payout.failed']);
    expect(await balance(w, 'EUR')).toMatchObject({ balance: '5.00', pendingOut: '0.00' });
  });

  it('creates nothing for a crypto payout the balance cannot cover', async () => {
    const w = await payingWorkspace(t);
    await fund(w, 'USDC', '1');
    const before = await count('SELECT count(*)::int AS n FROM payouts WHERE workspace_id = $1', [w.workspaceId]);
    const beneficiary = { name: 'Satoshi Nakamoto', country: 'JP', dateOfBirth: '1975-04-05', accounts: [{ type: 'crypto', currency: 'USDC', data: { network: 'ethereum', address: ADDRESSES.ethereum.valid } }] };
    const res = await w.request('POST', '/v1/payouts', { clientRef: ref(), amount: '10', currency: 'USDC', route: 'crypto', beneficiary });
    expect(res.statusCode).toBe(400);
    expect(res.json().code).toBe('INSUFFICIENT_BALANCE');
    expect(await count('SELECT count(*)::int AS n FROM payouts WHERE workspace_id = $1', [w.workspaceId])).toBe(before);
    expect(await count("SELECT count(*)::int AS n FROM beneficiaries WHERE workspace_id = $1", [w.workspaceId])).toBe(0);
  });

  it('holds the amount plus the operator-configured fee, and returns both on cancel', async () => {
    const w = await payingWorkspace(t, { payoutFees: { EUR: '0.50' } });
    await fund(w, 'EUR', '20');
    const res = await w.request('POST', '/v1/payouts', { ...eur('10.00'), beneficiary: ADA });
    expect(res.json()).toMatchObject({ fee: '0.50' });
    expect(await balance(w, 'EUR')).toMatchObject({ balance: '9.50', pendingOut: '10.50' });
    await w.request('POST', `/v1/payouts/${res.json().id}/cancel`);
    expect(await balance(w, 'EUR')).toMatchObject({ balance: '20.00', pendingOut: '0.00' });
  });

  it('consumes a payout quote: the payout currency is funded from another balance', async () => {
    const w = await payingWorkspace(t);
    await fund(w, 'USD', '100');
    const quote = await w.request('POST', '/v1/fx/quotes', { fromCurrency: 'USD', toCurrency: 'EUR', toAmount: '10.00', intent: 'payout' });
    expect(quote.statusCode, quote.body).toBe(201);
    const q = quote.json<{ id: string; fromAmount: string }>();
    const res = await w.request('POST', '/v1/payouts', { ...eur('10.00'), beneficiary: ADA, quoteId: q.id });
    expect(res.statusCode, res.body).toBe(201);
    expect(await balance(w, 'USD')).toMatchObject({ pendingOut: q.fromAmount });
    const reuse = await w.request('POST', '/v1/payouts', { ...eur('10.00'), beneficiary: ADA, quoteId: q.id });
    expect(reuse.statusCode).toBe(400);
    expect(reuse.json().code).toBe('QUOTE_ALREADY_USED');
  });
});

describe('batch', () => {
  it('creates the valid rows and reports recipient or sender refusals per row as {error, clientRef}', async () => {
    const rows = [eur('1.00'), { ...eur('1.00'), beneficiary: { ...ADA, accounts: [{ type: 'iban', currency: 'EUR', data: { iban: 'DE89370400440532013001' } }] } }, eur('1.00')];
    const res = await c.request('POST', '/v1/payouts', rows);
    expect(res.statusCode, res.body).toBe(201);
    const body = res.json<Record<string, string>[]>();
    expect(body).toHaveLength(3);
    expect(body[0]).toMatchObject({ clientRef: rows[0]?.clientRef, status: 'queued' });
    expect(body[1]).toEqual({ error: expect.stringContaining('beneficiary.accounts.0'), clientRef: rows[1]?.clientRef });
    expect(body[2]).toMatchObject({ clientRef: rows[2]?.clientRef, status: 'queued' });
  });

  it('rejects the whole array with one 400 when any row has a field-format error, creating nothing', async () => {
    const ng = { name: 'Chidi Okeke', country: 'NG', accounts: [{ type: 'bank_account', currency: 'NGN', data: { bankCode: '044', crAccount: '0690000031' } }] };
    const rows = [eur('1.00'), { clientRef: ref(), amount: '100', currency: 'NGN', route: 'bank_transfer', beneficiary: ng }];
    const res = await c.request('POST', '/v1/payouts', rows);
    expect(res.statusCode).toBe(400);
    expect(res.json().details[0].field).toBe('1.beneficiary.accounts.0.data');
    expect(res.json().details[0].code).toBeUndefined();
    expect(await count('SELECT count(*)::int AS n FROM payouts WHERE client_ref = $1', [rows[0]?.clientRef])).toBe(0);
  });

  it('refuses an array over the named maximum of rows', async () => {
    const rows = Array.from({ length: 101 }, () => eur('1.00'));
    const res = await c.request('POST', '/v1/payouts', rows);
    expect(res.statusCode).toBe(400);
  });
});

describe('sub-accounts', () => {
  it('a payout with Service-Account-Id debits that sub-account and is listed only with its header, or in the roll-up', async () => {
    const sub = (await c.request('POST', '/v1/accounts', { name: 'Payouts desk', country: 'DE' })).json<{ id: string }>().id;
    const h = { 'service-account-id': sub };
    await c.request('POST', '/v1/sandbox/balances/fund', { currency: 'EUR', amount: '40' }, h);
    const master = await balance(c, 'EUR');
    const res = await c.request('POST', '/v1/payouts', { ...eur('15.00'), beneficiary: ADA }, h);
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json()).toMatchObject({ accountId: sub });
    const subBalance = (await c.request('GET', '/v1/ledger/balances', undefined, h)).json<{ balances: { balance: string; pendingOut: string }[] }>().balances[0];
    expect(subBalance).toMatchObject({ balance: '25.00', pendingOut: '15.00' });
    expect(await balance(c, 'EUR')).toEqual(master);
    const mine = (await c.request('GET', '/v1/payouts?limit=100', undefined, h)).json<{ data: { id: string }[] }>().data;
    expect(mine.map((p) => p.id)).toEqual([res.json().id]);
    const rollUp = (await c.request('GET', '/v1/payouts?limit=100')).json<{ data: { id: string }[] }>().data;
    expect(rollUp.map((p) => p.id)).toContain(res.json().id);
    const tooMuch = await c.request('POST', '/v1/payouts', { ...eur('25.01'), beneficiary: ADA }, h);
    expect(tooMuch.json().code).toBe('INSUFFICIENT_BALANCE');
  });
});

describe('GET /v1/payouts', () => {
  it('filters by status and creation time, newest first, and hides other workspaces', async () => {
    const other = await payingWorkspace(t);
    const res = await c.request('GET', '/v1/payouts?status=queued&limit=100');
    const data = res.json<{ data: (PayoutView & { createdAt: string })[] }>().data;
    expect(data.length).toBeGreaterThan(0);
    expect(data.every((p) => p.status === 'queued')).toBe(true);
    const sorted = [...data].sort((a, b) => b.createdAt.localeCompare(a.createdAt));
    expect(data.map((p) => p.createdAt)).toEqual(sorted.map((p) => p.createdAt));
    const future = await c.request('GET', `/v1/payouts?createdFrom=${new Date(Date.now() + 60_000).toISOString()}`);
    expect(future.json().data).toEqual([]);
    expect((await other.request('GET', `/v1/payouts/${data[0]?.id}`)).statusCode).toBe(404);
  });
});
