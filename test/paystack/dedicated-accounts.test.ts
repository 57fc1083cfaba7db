/**
 * NGN virtual accounts issued by the operator through Paystack's dedicated virtual accounts, and the
 * credits to them (`charge.success`, channel `dedicated_nuban`) taken in as deposits, end to end:
 * Corridor → `prism proxy paystack.yaml <simulator> --errors` → the simulator, and the simulator's
 * signed webhooks back to Corridor. The last test fails on any violation Prism logged.
 */
import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPERATOR_KEY, operator } from '../helpers/app.js';
import { until } from '../helpers/until.js';
import { balance } from '../payouts/helpers.js';
import { paystackRig, SECRET_KEY, type PaystackRig } from './helpers.js';

let rig: PaystackRig;
beforeAll(async () => {
  rig = await paystackRig();
}, 300_000);
afterAll(async () => rig?.close());

interface Deposit {
  id: string;
  clientRef: string;
  amount: string;
  creditedAmount: string | null;
  currency: string;
  status: string;
  rail: string;
  virtualAccountId: string | null;
}
interface Issued {
  virtualAccountId: string;
  workspaceId: string;
  accountNumber: string;
  bankName: string;
  status: string;
}

const sign = (body: string, key = SECRET_KEY) => createHmac('sha512', key).update(body).digest('hex');
const deposits = async () => (await rig.c.request('GET', '/v1/deposits?limit=100')).json<{ data: Deposit[] }>().data.filter((d) => d.clientRef.startsWith('paystack:'));
const exceptions = async () => (await operator(rig.t.app, 'GET', '/operator/v1/paystack/balance')).json<{ exceptions: { source: string; reference: string | null; reason: string }[] }>().exceptions;
const depositEvents = async () => (await rig.t.ctx.db.query<{ n: number }>("SELECT count(*)::int AS n FROM events WHERE workspace_id = $1 AND type = 'deposit.completed'", [rig.c.workspaceId]))[0]?.n;

async function postWebhook(body: string, signature: string | undefined): Promise<{ status: number; outcome?: string }> {
  const res = await fetch(`${rig.base}/connectors/paystack/webhook`, { method: 'POST', headers: { 'content-type': 'application/json', ...(signature ? { 'x-paystack-signature': signature } : {}) }, body });
  return { status: res.status, outcome: ((await res.json()) as { outcome?: string }).outcome };
}

async function issue(key?: string, email = `treasury+${rig.c.workspaceId.slice(0, 8)}@example.test`) {
  return rig.t.app.inject({
    method: 'POST',
    url: '/operator/v1/paystack/dedicated-accounts',
    headers: { authorization: `Bearer ${OPERATOR_KEY}`, ...(key ? { 'idempotency-key': key } : {}) },
    payload: { workspaceId: rig.c.workspaceId, email, preferredBank: 'wema-bank' },
  });
}

let account: Issued;

describe('NGN dedicated accounts over Paystack, through Prism', () => {
  it('issues the workspace an NGN virtual account through Paystack once: a repeat (keyed or not) answers the same account', async () => {
    const first = await issue('dva-1');
    expect(first.statusCode, first.body).toBe(201);
    account = first.json<Issued>();
    expect(account).toMatchObject({ workspaceId: rig.c.workspaceId, status: 'active', bankName: 'Wema Bank', accountNumber: expect.stringMatching(/^[0-9]{10}$/) });
    const replayed = await issue('dva-1');
    expect(replayed.statusCode).toBe(201);
    expect(replayed.headers['idempotent-replayed']).toBe('true');
    expect(replayed.json()).toEqual(account);
    const again = await issue();
    expect(again.statusCode).toBe(200);
    expect(again.json()).toEqual(account);
    // One customer, one account at Paystack; the workspace reads its account number like any other account's details.
    expect(rig.sim.state.customers.size).toBe(1);
    expect([...rig.sim.state.dedicatedAccounts.keys()]).toEqual([account.accountNumber]);
    const listed = (await rig.c.request('GET', '/v1/virtual-accounts?currency=NGN')).json<{ data: { id: string; accountNumber?: string; bankName?: string }[] }>().data;
    expect(listed).toEqual([expect.objectContaining({ id: account.virtualAccountId, accountNumber: account.accountNumber, bankName: 'Wema Bank' })]);
  }, 180_000);

  it('NGN deposits to a dedicated account credited once: charge.success lands a deposit, and its repeats and replays change nothing', async () => {
    const start = BigInt((await balance(rig.c, 'NGN'))?.balance.replace('.', '') ?? '0');
    const reference = await rig.sim.credit(account.accountNumber, 2_500_000);
    if (!reference) throw new Error('the simulator did not credit the account');
    const [deposit] = await until('the deposit', deposits, (d) => d.length === 1 && d[0]?.status === 'completed');
    expect(deposit).toMatchObject({ amount: '25000.00', currency: 'NGN', rail: 'bank_transfer', virtualAccountId: account.virtualAccountId, clientRef: `paystack:${reference}` });
    const credited = BigInt((deposit?.creditedAmount ?? '0').replace('.', ''));
    expect(credited).toBeGreaterThan(0n);
    expect(BigInt((await balance(rig.c, 'NGN'))?.balance.replace('.', '') ?? '0')).toBe(start + credited);

    // Paystack's retry sends the same body again; another delivery of the charge comes with another body.
    await rig.sim.resend(reference);
    const charge = rig.sim.state.charges.get(reference);
    const other = JSON.stringify({ event: 'charge.success', data: { reference, amount: 2_500_000, currency: 'NGN', channel: 'dedicated_nuban', status: 'success', authorization: { channel: 'dedicated_nuban', receiver_bank_account_number: account.accountNumber }, customer: { customer_code: charge?.account.customer.code }, redelivered: true } });
    expect(await postWebhook(other, sign(other))).toEqual({ status: 200, outcome: 'unchanged' });
    const last = rig.sim.state.webhooks.at(-1);
    expect(last).toMatchObject({ event: 'charge.success', reference, delivered: true });
    expect(await deposits()).toHaveLength(1);
    expect(await depositEvents()).toBe(1);
    expect(BigInt((await balance(rig.c, 'NGN'))?.balance.replace('.', '') ?? '0')).toBe(start + credited);
  }, 180_000);

  it('puts a credit to an account number it never issued on the operator\'s exceptions list with its reason, crediting nobody', async () => {
    const before = await deposits();
    const body = JSON.stringify({ event: 'charge.success', data: { reference: 'unmatched-0001', amount: 700_000, currency: 'NGN', channel: 'dedicated_nuban', status: 'success', authorization: { channel: 'dedicated_nuban', receiver_bank_account_number: '9912345678' }, customer: { customer_code: 'CUS_unknown' } } });
    expect(await postWebhook(body, sign(body))).toEqual({ status: 200, outcome: 'exception' });
    expect(await exceptions()).toContainEqual(expect.objectContaining({ source: 'webhook charge.success', reference: 'unmatched-0001', reason: expect.stringContaining('to the account 9912345678, which is no dedicated account Corridor issued: nothing credited') }));
    // Named to the right account but for another Paystack customer: not guessed either.
    const wrong = JSON.stringify({ event: 'charge.success', data: { reference: 'unmatched-0002', amount: 700_000, currency: 'NGN', channel: 'dedicated_nuban', status: 'success', authorization: { channel: 'dedicated_nuban', receiver_bank_account_number: account.accountNumber }, customer: { customer_code: 'CUS_someoneelse' } } });
    expect(await postWebhook(wrong, sign(wrong))).toEqual({ status: 200, outcome: 'exception' });
    expect((await exceptions()).find((e) => e.reference === 'unmatched-0002')?.reason).toContain('names the customer CUS_someoneelse');
    // Sent again, the exception is not listed twice.
    const again = JSON.stringify({ ...(JSON.parse(body) as object), again: true });
    expect(await postWebhook(again, sign(again))).toEqual({ status: 200, outcome: 'unchanged' });
    expect((await exceptions()).filter((e) => e.reference === 'unmatched-0001')).toHaveLength(1);
    expect(await deposits()).toEqual(before);
  }, 120_000);

  it('refuses a forged charge.success (not signed with the secret key): 401, nothing credited or recorded', async () => {
    const before = await deposits();
    const body = JSON.stringify({ event: 'charge.success', data: { reference: 'forged-0001', amount: 900_000_00, currency: 'NGN', channel: 'dedicated_nuban', status: 'success', authorization: { channel: 'dedicated_nuban', receiver_bank_account_number: account.accountNumber }, customer: { customer_code: rig.sim.state.dedicatedAccounts.get(account.accountNumber)?.customer.code } } });
    expect((await postWebhook(body, sign(body, 'sk_test_not_the_key'))).status).toBe(401);
    expect((await postWebhook(body, undefined)).status).toBe(401);
    expect(await deposits()).toEqual(before);
    expect(await rig.t.ctx.db.query("SELECT reference FROM paystack_charges WHERE reference = 'forged-0001'")).toEqual([]);
  }, 120_000);

  it('asked Paystack only as paystack.yaml says, and got answers as it says (no Prism violation either way)', async () => {
    expect(rig.prism.violations()).toEqual([]);
    const paths = new Set(rig.sim.state.requests.map((r) => `${r.method} ${r.path}`));
    expect([...paths]).toEqual(expect.arrayContaining(['POST /customer', 'GET /dedicated_account', 'POST /dedicated_account']));
  }, 60_000);
});
