/**
 * The Paystack connector end to end: Corridor → `prism proxy paystack.yaml <simulator> --errors` →
 * the simulator, and the simulator's signed webhooks back to Corridor. Every test's calls go through
 * Prism; the last test fails on any violation it logged in either direction.
 */
import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { paystackConnectorOf } from '../../src/connectors/paystack/index.js';
import { referenceOf } from '../../src/connectors/paystack/service.js';
import { SIM_ACCOUNTS, SIM_MISMATCH_NAME } from '../../src/connectors/paystack/simulator.js';
import { balanceLow } from '../../src/connectors/paystack/conditions.js';
import { registryOf } from '../../src/connectors/registry.js';
import { OPERATOR_KEY, operator } from '../helpers/app.js';
import { startSmtp } from '../helpers/smtp.js';
import { dashboardUser } from '../helpers/web-client.js';
import { until } from '../helpers/until.js';
import { balance, eventTypesOf, waitFor } from '../payouts/helpers.js';
import { ngnPayout, NG_PERSON, paystackRig, SECRET_KEY, type PaystackRig } from './helpers.js';

let rig: PaystackRig;
let smtp: Awaited<ReturnType<typeof startSmtp>>;
const TREASURY = 'treasury@example.test';
beforeAll(async () => {
  smtp = await startSmtp();
  // Alerts are evaluated by the worker every second and mailed to the treasury, as in production.
  rig = await paystackRig({ env: { ALERT_EMAIL_TO: TREASURY, SMTP_URL: `smtp://127.0.0.1:${smtp.port}`, ALERT_EVALUATE_MS: '1000' } });
}, 300_000);
afterAll(async () => {
  await rig?.close();
  await smtp?.close();
});

const OK_ACCOUNT = '0000000018';
const transfersTo = (account: string) => [...rig.sim.state.transfers.values()].filter((t) => t.recipient.accountNumber === account);
const transferRow = async (id: string) => (await rig.t.ctx.db.query<{ status: string; reference: string; failure_reason: string | null }>('SELECT status, reference, failure_reason FROM paystack_transfers WHERE payout_id = $1', [id]))[0];
const payoutJson = async (id: string) => (await rig.c.request('GET', `/v1/payouts/${id}`)).json<{ status: string; failureReason: string | null; returnReason?: { code: string; description: string } }>();
const sign = (body: string, key = SECRET_KEY) => createHmac('sha512', key).update(body).digest('hex');

async function postWebhook(body: string, signature: string | undefined): Promise<{ status: number; json: { outcome?: string } }> {
  const res = await fetch(`${rig.base}/connectors/paystack/webhook`, { method: 'POST', headers: { 'content-type': 'application/json', ...(signature ? { 'x-paystack-signature': signature } : {}) }, body });
  return { status: res.status, json: (await res.json()) as { outcome?: string } };
}

describe('NGN bank transfers over Paystack, through Prism', () => {
  it('pays a payout: one recipient created and kept, one transfer with the payout-derived reference, paid on transfer.success', async () => {
    const before = rig.sim.state.balanceMinor;
    const first = await ngnPayout(rig.c, OK_ACCOUNT, '1500.00');
    await waitFor(rig.c, first, (p) => p.status === 'paid', 120_000);
    const second = await ngnPayout(rig.c, OK_ACCOUNT, '250.50');
    await waitFor(rig.c, second, (p) => p.status === 'paid', 120_000);
    expect(transfersTo(OK_ACCOUNT).map((t) => t.reference).sort()).toEqual([referenceOf(first), referenceOf(second)].sort());
    expect(transfersTo(OK_ACCOUNT).map((t) => t.amount).sort((a, b) => a - b)).toEqual([25050, 150000]);
    expect(rig.sim.state.requests.filter((r) => r.method === 'POST' && r.path === '/transferrecipient')).toHaveLength(1);
    expect(rig.sim.state.balanceMinor).toBe(before - 150000n - 25050n);
    expect(await transferRow(first)).toMatchObject({ status: 'success', reference: referenceOf(first) });
    expect(await eventTypesOf(rig.t, first)).toEqual(['payout.processing', 'payout.paid']);
  }, 180_000);

  it('fails a payout Paystack fails, with the reason in words and who must act', async () => {
    const id = await ngnPayout(rig.c, SIM_ACCOUNTS.failure);
    await waitFor(rig.c, id, (p) => p.status === 'failed', 120_000);
    const p = await payoutJson(id);
    expect(p.failureReason).toBe('paystack_account_closed');
    expect(p.returnReason).toEqual({ code: 'account_closed', description: "the beneficiary's account has been closed by the bank (beneficiary must act)" });
    expect((await transferRow(id))?.status).toBe('failed');
  }, 180_000);

  it('reverts a reversed transfer: payout.reverted once, the funds back once', async () => {
    const start = await balance(rig.c, 'NGN');
    const id = await ngnPayout(rig.c, SIM_ACCOUNTS.reversal, '3000.00');
    await waitFor(rig.c, id, (p) => p.status === 'failed', 120_000);
    expect(await eventTypesOf(rig.t, id)).toEqual(['payout.processing', 'payout.paid', 'payout.reverted']);
    expect((await payoutJson(id)).returnReason?.code).toBe('transfer_reversed');
    // Sent again by Paystack's retries, the reversal changes nothing.
    await rig.sim.resend(referenceOf(id));
    expect(await eventTypesOf(rig.t, id)).toEqual(['payout.processing', 'payout.paid', 'payout.reverted']);
    expect((await balance(rig.c, 'NGN'))?.balance).toBe(start?.balance);
  }, 180_000);

  it('recovers the outcome of a transfer whose webhook was lost, by verifying it by reference', async () => {
    rig.sim.loseNext(1);
    const id = await ngnPayout(rig.c, OK_ACCOUNT, '700.00');
    await waitFor(rig.c, id, (p) => p.status === 'paid', 120_000);
    expect(rig.sim.state.webhooks.filter((w) => w.reference === referenceOf(id))).toEqual([{ event: 'transfer.success', reference: referenceOf(id), delivered: false }]);
    expect(rig.sim.state.requests.some((r) => r.method === 'GET' && r.path === `/transfer/verify/${referenceOf(id)}`)).toBe(true);
  }, 180_000);

  it('applies a webhook sent twice once', async () => {
    rig.sim.repeatNext(1);
    const id = await ngnPayout(rig.c, OK_ACCOUNT, '800.00');
    await waitFor(rig.c, id, (p) => p.status === 'paid', 120_000);
    const until = Date.now() + 60_000;
    while (rig.sim.state.webhooks.filter((w) => w.reference === referenceOf(id)).length < 2 && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
    expect(rig.sim.state.webhooks.filter((w) => w.reference === referenceOf(id)).map((w) => w.delivered)).toEqual([true, true]);
    expect(await eventTypesOf(rig.t, id)).toEqual(['payout.processing', 'payout.paid']);
    const [row] = await rig.t.ctx.db.query<{ n: number }>('SELECT count(*)::int AS n FROM paystack_webhooks WHERE reference = $1', [referenceOf(id)]);
    expect(row?.n).toBe(1);
  }, 180_000);

  it('refuses a forged webhook (wrong key, no signature, body changed after signing), applying nothing', async () => {
    const id = await ngnPayout(rig.c, OK_ACCOUNT, '900.00');
    await waitFor(rig.c, id, (p) => p.status === 'paid', 120_000);
    const body = JSON.stringify({ event: 'transfer.reversed', data: { reference: referenceOf(id), amount: 90000, status: 'reversed', transfer_code: 'TRF_forged', gateway_response: 'Transfer reversed' } });
    expect((await postWebhook(body, sign(body, 'sk_test_someone_else'))).status).toBe(401);
    expect((await postWebhook(body, undefined)).status).toBe(401);
    expect((await postWebhook(body.replace('90000', '90001'), sign(body))).status).toBe(401);
    expect((await payoutJson(id)).status).toBe('paid');
    expect(await eventTypesOf(rig.t, id)).toEqual(['payout.processing', 'payout.paid']);
    // A genuine event naming a reference Corridor never sent is kept for the operator, applied to nothing.
    const stranger = JSON.stringify({ event: 'transfer.success', data: { reference: 'corridor-unknown-reference-000', amount: 100, status: 'success', transfer_code: 'TRF_x' } });
    expect((await postWebhook(stranger, sign(stranger))).json.outcome).toBe('exception');
    const view = await rig.t.app.inject({ method: 'GET', url: '/operator/v1/paystack/balance', headers: { authorization: `Bearer ${OPERATOR_KEY}` } });
    expect(view.statusCode, view.body).toBe(200);
    expect(view.json<{ exceptions: { reference: string }[] }>().exceptions.map((e) => e.reference)).toContain('corridor-unknown-reference-000');
  }, 180_000);

  it('holds a payout the provider balance cannot cover in the queue, and sends it once the balance allows', async () => {
    const kept = rig.sim.state.balanceMinor;
    rig.sim.state.balanceMinor = 10_000n;
    const id = await ngnPayout(rig.c, OK_ACCOUNT, '2000.00');
    const until = Date.now() + 120_000;
    while ((await transferRow(id))?.status !== 'awaiting_balance' && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
    expect((await transferRow(id))?.status).toBe('awaiting_balance');
    expect((await payoutJson(id)).status).toBe('queued');
    expect(transfersTo(OK_ACCOUNT).some((t) => t.reference === referenceOf(id))).toBe(false);
    const view = await rig.t.app.inject({ method: 'GET', url: '/operator/v1/paystack/balance', headers: { authorization: `Bearer ${OPERATOR_KEY}` } });
    expect(view.json<{ data: { currency: string; balance: string }[]; lowBalance: string }>()).toMatchObject({ data: [{ currency: 'NGN', balance: '100.00' }], lowBalance: '10000.00' });
    rig.sim.state.balanceMinor = kept;
    await waitFor(rig.c, id, (p) => p.status === 'paid', 120_000);
  }, 240_000);

  it('alerts the treasury by e-mail when the Paystack balance falls under paystack.lowBalance, names the payouts waiting for it, and closes when topped up', async () => {
    expect(registryOf(rig.t.ctx.connectors).alertSources().map((s) => s.name)).toContain('paystack.balance_low');
    type Alert = { id: string; conditionId: string; subject: string; status: string; summary: string };
    const openLow = async () => (await operator(rig.t.app, 'GET', '/operator/v1/alerts?status=open')).json<{ data: Alert[] }>().data.filter((a) => a.conditionId === 'paystack.balance_low');
    // Whatever an earlier test left low has been topped up: no alert open.
    await until('no open low-balance alert', openLow, (open) => open.length === 0);
    const mailsBefore = smtp.mails.length;
    const kept = rig.sim.state.balanceMinor;
    rig.sim.state.balanceMinor = 500_000n; // NGN 5,000.00, under the rig's lowBalance of 10,000.00

    const id = await ngnPayout(rig.c, OK_ACCOUNT, '6000.00');
    const [alert] = await until('the low-balance alert to open', openLow, (open) => open.length === 1);
    expect(alert).toMatchObject({ subject: 'NGN', status: 'open' });
    expect(alert?.summary).toMatch(/^The Paystack balance is NGN 5000\.00 \(read at .*\), under the low-balance threshold of NGN 10000\.00/);
    const opened = await until('the alert e-mail', async () => smtp.mails.slice(mailsBefore), (mails) => mails.some((m) => m.raw.includes('Alert opened: The Paystack balance is NGN 5000.00')));
    const mail = opened.find((m) => m.raw.includes('Alert opened: The Paystack balance'));
    expect(mail?.to).toEqual([TREASURY]);
    expect(mail?.raw).toContain('docs/operations.md#alert-paystack-balance-low');
    // The payout the balance cannot cover waits, and the finding says so.
    await until('the payout to wait for the balance', () => transferRow(id), (row) => row?.status === 'awaiting_balance');
    expect((await payoutJson(id)).status).toBe('queued');
    const [finding] = await balanceLow.check(rig.t.ctx, { threshold: 0, filter: {} });
    expect(finding?.summary).toContain('1 payout(s) for NGN 6000.00 wait for it');
    expect(finding?.details).toMatchObject({ balance: '5000.00', lowBalance: '10000.00', stale: false, awaitingBalance: { count: 1, amount: '6000.00' } });

    // Topped up: the payout is sent, the alert closes, and the treasury is told.
    rig.sim.state.balanceMinor = kept;
    await waitFor(rig.c, id, (p) => p.status === 'paid', 120_000);
    await until('the low-balance alert to close', openLow, (open) => open.length === 0);
    const closed = await operator(rig.t.app, 'GET', `/operator/v1/alerts/${alert?.id}`);
    expect(closed.json()).toMatchObject({ status: 'closed', closedAt: expect.any(String) });
    const after = await until('the closing e-mail', async () => smtp.mails.slice(mailsBefore), (mails) => mails.some((m) => m.raw.includes('Alert closed (the condition cleared): The Paystack balance is NGN 5000.00')));
    // This alert's two e-mails, opened then closed, to the treasury (an earlier test's alert may close in the same window).
    const aboutThis = after.filter((m) => m.raw.includes('The Paystack balance is NGN 5000.00'));
    expect(aboutThis.map((m) => [m.to, m.raw.includes('Alert opened:') ? 'opened' : 'closed'])).toEqual([[[TREASURY], 'opened'], [[TREASURY], 'closed']]);
    expect(await balanceLow.check(rig.t.ctx, { threshold: 0, filter: {} })).toEqual([]);
  }, 300_000);

  it('answers name enquiries: the holder\'s name, a different name for a mismatch, not found for an unknown account', async () => {
    const connector = paystackConnectorOf(rig.t.ctx);
    if (!connector) throw new Error('no paystack connector');
    const ask = (account: string) => connector.verifyRecipient({ rail: 'bank_transfer', currency: 'NGN', beneficiary: NG_PERSON(account), name: 'Adaeze Okafor', reference: `check-${account}` });
    expect(await ask(SIM_ACCOUNTS.mismatch)).toEqual({ kind: 'account_name', accountName: SIM_MISMATCH_NAME });
    expect(await ask(SIM_ACCOUNTS.unknown)).toMatchObject({ kind: 'account_not_found' });
    expect(await ask(OK_ACCOUNT)).toEqual({ kind: 'account_name', accountName: 'ADAEZE OKAFOR' });
  }, 120_000);

  it('holds a name mismatch with both names, and pays it once the workspace confirms (a name mismatch held, confirmed, paid)', async () => {
    const id = await ngnPayout(rig.c, SIM_ACCOUNTS.mismatch, '1100.00');
    type Check = { status: string; result: string | null; name: string; railName: string | null };
    const read = async () => (await rig.c.request('GET', `/v1/payouts/${id}`)).json<{ status: string; recipientCheck?: Check }>();
    const until = Date.now() + 120_000;
    let p = await read();
    while (p.recipientCheck?.status !== 'held' && Date.now() < until) {
      await new Promise((r) => setTimeout(r, 50));
      p = await read();
    }
    expect(p).toMatchObject({ status: 'queued', recipientCheck: { status: 'held', result: 'no_match', name: 'Adaeze Okafor', railName: SIM_MISMATCH_NAME } });
    expect(rig.sim.state.transfers.has(referenceOf(id))).toBe(false);
    const confirmed = await rig.c.request('POST', `/v1/payouts/${id}/recipient-check/confirm`, {});
    expect(confirmed.statusCode, confirmed.body).toBe(200);
    await waitFor(rig.c, id, (x) => x.status === 'paid', 120_000);
    expect((await read()).recipientCheck).toMatchObject({ status: 'confirmed' });
    expect(transfersTo(SIM_ACCOUNTS.mismatch).map((t) => t.reference)).toEqual([referenceOf(id)]);
    // The workspace's payout page keeps the answer: which check, the name NIP holds, who confirmed.
    const web = await dashboardUser(rig.t.app, rig.c.workspaceId, `admin-${Date.now()}@example.com`);
    const page = (await web.get(`/dashboard/payouts/${id}`)).body;
    expect(page).toContain(`no match: the account holder&#39;s name is different (NIP name enquiry (Paystack)) · the rail holds the name ${SIM_MISMATCH_NAME}`);
    expect(page).toContain(`confirmed by client:${rig.c.clientId}`);
  }, 240_000);

  it('sent every request and got every answer as paystack.yaml says (no Prism violation either way), and Prism does catch one', async () => {
    expect(rig.prism.violations()).toEqual([]);
    expect(rig.sim.state.requests.filter((r) => r.status === 401)).toEqual([]);
    // The control: a transfer without its required reference is refused by Prism and logged as a violation.
    const from = rig.prism.log().length;
    const res = await fetch(`${rig.prism.url}/transfer`, { method: 'POST', headers: { authorization: `Bearer ${SECRET_KEY}`, 'content-type': 'application/json' }, body: JSON.stringify({ source: 'balance', amount: 100, recipient: 'RCP_x' }) });
    expect(res.status).toBe(422);
    const until = Date.now() + 30_000;
    while (rig.prism.violations(from).length === 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
    expect(rig.prism.violations(from).length).toBeGreaterThan(0);
  }, 60_000);
});
