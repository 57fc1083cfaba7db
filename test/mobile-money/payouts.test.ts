import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MobileMoneyConnector } from '../../src/connectors/mobile-money/index.js';
import { runPoll } from '../../src/connectors/mobile-money/service.js';
import type { Caller } from '../helpers/app.js';
import { balance, eventTypesOf } from '../payouts/helpers.js';
import { CALLBACK_SECRET, GH_PERSON, ghWallet, momoPayout, momoWorkspace, momoWorld, until, type MomoWorld } from './helpers.js';

interface PayoutRead {
  status: string;
  recipientCheck?: { status: string; result: string | null; name: string; railName: string | null; reason?: string | null } | null;
  failureReason: string | null;
  returnReason?: { code: string; description: string } | null;
}

/**
 * Mobile-money payouts through the connector, the GSMA simulator behind Prism holding every exchange
 * to GSMA's published v1.2.0 definition: paid, failed with the provider's reason, reversed, a lost
 * callback recovered by polling, callbacks twice, forged and unknown, the timeout wallet, the
 * account-name lookup, and the corridors' bounds at submit.
 */
describe('mobile-money payouts over the GSMA Mobile Money API', () => {
  let w: MomoWorld;
  let c: Caller;
  let mm: MobileMoneyConnector;

  beforeAll(async () => {
    w = await momoWorld();
    mm = w.t.ctx.connectors.get('mobile-money') as MobileMoneyConnector;
    c = await momoWorkspace(w.t);
  }, 600_000);
  afterAll(async () => {
    await w?.close();
  });

  const read = async (id: string) => (await c.request('GET', `/v1/payouts/${id}`)).json<PayoutRead>();
  const settled = (id: string) => until(`payout ${id} final`, () => read(id), (p) => p.status === 'paid' || p.status === 'failed', 60_000);

  it('pays a GHS payout: one disbursement with the payout id as X-CorrelationID and its callback URL, paid by the callback', async () => {
    const before = await balance(c, 'GHS');
    const id = await momoPayout(c, { amount: '25.00', beneficiary: GH_PERSON(ghWallet('1000')), senderInfo: { type: 'individual', firstName: 'Grace', lastName: 'Hopper', country: 'DE', phoneNumber: '+4915123456789' } });
    await w.work();
    const paid = await settled(id);
    expect(paid.status).toBe('paid');
    const sent = w.sim.disbursementsOf(id);
    expect(sent).toHaveLength(1);
    const body = JSON.parse(sent[0]?.body ?? '{}') as Record<string, unknown>;
    expect(body).toMatchObject({ amount: '25.00', currency: 'GHS', creditParty: [{ key: 'msisdn', value: ghWallet('1000') }], debitParty: [{ key: 'accountid', value: '2000023' }], recipientKyc: { subjectName: { fullName: 'Kofi Mensah' } }, senderKyc: { contactPhone: '+4915123456789' } });
    expect(w.sim.transactionOf(id)?.callbackUrl).toBe(`${String(w.section.callbackBaseUrl)}/callbacks/mobile-money/${id}`);
    expect(await eventTypesOf(w.t, id)).toEqual(expect.arrayContaining(['payout.processing', 'payout.paid']));
    const after = await balance(c, 'GHS');
    expect(Number(after?.balance)).toBeLessThan(Number(before?.balance));
    expect(w.prism.violations()).toEqual([]);
  }, 120_000);

  it('fails an amount of 30.00 to 39.99 (the GSMA simulator\'s rule) with the provider\'s reason in words and the funds back', async () => {
    const before = await balance(c, 'GHS');
    const id = await momoPayout(c, { amount: '35.00', beneficiary: GH_PERSON(ghWallet('1001')) });
    await w.work();
    const failed = await settled(id);
    expect(failed.status).toBe('failed');
    expect(failed.failureReason).toBe('mobile_money_genericError');
    expect(failed.returnReason?.code).toBe('genericError');
    expect(failed.returnReason?.description).toContain('Payee FSP has insufficient liquidity to perform the transfer');
    expect(failed.returnReason?.description).toContain('to act: operator');
    expect((await balance(c, 'GHS'))?.balance).toBe(before?.balance);
    expect(w.prism.violations()).toEqual([]);
  }, 120_000);

  it('fails a payout the recipient\'s provider declines, the beneficiary to act', async () => {
    const id = await momoPayout(c, { amount: '12.00', beneficiary: GH_PERSON(ghWallet('0003')) });
    await w.work();
    const failed = await settled(id);
    expect(failed.returnReason).toMatchObject({ code: 'requestDeclined' });
    expect(failed.returnReason?.description).toMatch(/declined.*to act: beneficiary/);
  }, 120_000);

  it('holds a payout to a number without a wallet (the name lookup answers identifierError), sends nothing, refuses to confirm it, and gives the funds back when cancelled', async () => {
    const before = await balance(c, 'GHS');
    const id = await momoPayout(c, { amount: '12.00', beneficiary: GH_PERSON(ghWallet('0002')) });
    await w.work();
    const held = await until(`payout ${id} held`, () => read(id), (p) => p.recipientCheck?.status === 'held');
    expect(held.status).toBe('queued');
    expect(held.recipientCheck).toMatchObject({ result: 'account_not_found' });
    expect(held.recipientCheck?.reason).toContain('identifierError');
    expect(w.sim.disbursementsOf(id)).toHaveLength(0);
    const confirm = await c.request('POST', `/v1/payouts/${id}/recipient-check/confirm`, {});
    expect(confirm.statusCode, confirm.body).toBe(409);
    expect(confirm.json()).toMatchObject({ code: 'RECIPIENT_ACCOUNT_NOT_FOUND' });
    const cancelled = await c.request('POST', `/v1/payouts/${id}/cancel`, {});
    expect(cancelled.statusCode, cancelled.body).toBe(200);
    expect((await read(id)).status).toBe('cancelled');
    expect((await balance(c, 'GHS'))?.balance).toBe(before?.balance);
    expect(w.sim.disbursementsOf(id)).toHaveLength(0);
  }, 120_000);

  it('fails a payout whose wallet never answers, once the provider times it out', async () => {
    const id = await momoPayout(c, { amount: '12.00', beneficiary: GH_PERSON(ghWallet('0004')) });
    await w.work();
    const failed = await settled(id);
    expect(failed.returnReason?.description).toContain('did not answer in time');
  }, 120_000);

  it('reverts a paid payout the provider reverses, the funds back once, however often the reversal is called back', async () => {
    const before = await balance(c, 'GHS');
    const id = await momoPayout(c, { amount: '40.00', beneficiary: GH_PERSON(ghWallet('1002')) });
    await w.work();
    expect((await settled(id)).status).toBe('paid');
    await w.sim.reverse(id);
    const reverted = await until('reverted', () => eventTypesOf(w.t, id), (e) => e.includes('payout.reverted'));
    expect(reverted.filter((e) => e === 'payout.reverted')).toHaveLength(1);
    const last = w.sim.lastCallback(id);
    expect(last?.status).toBe(204);
    expect(await w.sim.deliver(last?.url ?? '', id, last?.body ?? '')).toBe(204);
    expect((await eventTypesOf(w.t, id)).filter((e) => e === 'payout.reverted')).toHaveLength(1);
    expect((await balance(c, 'GHS'))?.balance).toBe(before?.balance);
    const p = await read(id);
    expect(p.status).toBe('failed');
    expect(p.returnReason?.code).toBe('reversed');
  }, 120_000);

  it('recovers the outcome of a payout whose callback was lost by asking the provider (GET /responses, then the transaction)', async () => {
    w.sim.loseCallbacks(1);
    const id = await momoPayout(c, { amount: '20.00', beneficiary: GH_PERSON(ghWallet('1003')) });
    await w.work();
    await until('the lost callback', async () => w.sim.lastCallback(id)?.status, (s) => s === 'lost');
    expect((await read(id)).status).toBe('processing');
    // The section's callbackWaitSeconds (1 s) passes; then the poll asks the provider.
    await until('paid by polling', async () => {
      await runPoll(w.t.ctx, mm.runtime);
      return (await read(id)).status;
    }, (s) => s === 'paid');
    expect(w.sim.requests.some((r) => r.method === 'GET' && r.path === `/responses/${id}`)).toBe(true);
    expect(w.prism.violations()).toEqual([]);
  }, 120_000);

  it('applies a callback delivered twice once', async () => {
    const id = await momoPayout(c, { amount: '21.00', beneficiary: GH_PERSON(ghWallet('1004')) });
    await w.work();
    expect((await settled(id)).status).toBe('paid');
    const events = await eventTypesOf(w.t, id);
    const last = w.sim.lastCallback(id);
    expect(await w.sim.deliver(last?.url ?? '', id, last?.body ?? '')).toBe(204);
    expect(await eventTypesOf(w.t, id)).toEqual(events);
    const rows = await w.t.ctx.db.query<{ outcome: string }>('SELECT outcome FROM momo_callbacks WHERE correlation_id = $1', [id]);
    expect(rows.map((r) => r.outcome)).toEqual(['applied']);
  }, 120_000);

  it('refuses a forged callback (wrong secret, wrong content hash, stale X-Date): nothing moves, each refusal recorded', async () => {
    w.sim.loseCallbacks(1);
    const id = await momoPayout(c, { amount: '22.00', beneficiary: GH_PERSON(ghWallet('1005')) });
    await w.work();
    await until('the lost callback', async () => w.sim.lastCallback(id)?.status, (s) => s === 'lost');
    const url = `${String(w.section.callbackBaseUrl)}/callbacks/mobile-money/${id}`;
    const forged = JSON.stringify({ transactionReference: 'X', transactionStatus: 'completed', amount: '22.00', currency: 'GHS', type: 'disbursement', creditParty: [{ key: 'msisdn', value: ghWallet('1005') }] });
    expect(await w.sim.deliver(url, id, forged, { 'X-API-Key': 'guessed' })).toBe(401);
    expect(await w.sim.deliver(url, id, forged, { 'X-Content-Hash': '0'.repeat(64) })).toBe(401);
    expect(await w.sim.deliver(url, id, forged, { 'X-Date': new Date(Date.now() - 3_600_000).toISOString() })).toBe(401);
    expect((await read(id)).status).toBe('processing');
    const refused = await w.t.ctx.db.query<{ outcome: string; body: string | null }>('SELECT outcome, body FROM momo_callbacks WHERE correlation_id = $1', [id]);
    expect(refused).toEqual([
      { outcome: 'refused', body: null },
      { outcome: 'refused', body: null },
      { outcome: 'refused', body: null },
    ]);
    // The genuine outcome still comes, by polling.
    await until('paid by polling', async () => {
      await runPoll(w.t.ctx, mm.runtime);
      return (await read(id)).status;
    }, (s) => s === 'paid');
  }, 120_000);

  it('records a callback for a correlation id Corridor never sent and answers 404', async () => {
    const stranger = '0b7f7a52-2f5e-4f4e-9a53-3a0c2b8f0001';
    const url = `${String(w.section.callbackBaseUrl)}/callbacks/mobile-money/${stranger}`;
    expect(await w.sim.deliver(url, stranger, JSON.stringify({ transactionReference: 'Y', transactionStatus: 'completed', amount: '1.00', currency: 'GHS', type: 'disbursement' }))).toBe(404);
    const rows = await w.t.ctx.db.query<{ outcome: string }>('SELECT outcome FROM momo_callbacks WHERE correlation_id = $1', [stranger]);
    expect(rows).toEqual([{ outcome: 'unknown' }]);
    expect(CALLBACK_SECRET).not.toBe('');
  }, 60_000);

  it('looks the wallet holder\'s name up: the name, a mismatching name, no wallet, or unavailable when the section turns the lookup off', async () => {
    w.sim.register(ghWallet('2001'), 'Kofi Mensah');
    const ask = (phone: string) => mm.verifyRecipient({ rail: 'mobile_money', currency: 'GHS', beneficiary: GH_PERSON(phone), name: 'Kofi Mensah', reference: crypto.randomUUID() });
    expect(await ask(ghWallet('2001'))).toEqual({ kind: 'account_name', accountName: 'Kofi Mensah' });
    expect(await ask(ghWallet('0001'))).toEqual({ kind: 'account_name', accountName: 'Mismatched Holder' });
    expect(await ask(ghWallet('0002'))).toMatchObject({ kind: 'account_not_found' });
    const off = new (mm.constructor as typeof MobileMoneyConnector)({ ...mm.runtime.config, accountNameLookup: false }, mm.runtime.box);
    expect(await off.verifyRecipient({ rail: 'mobile_money', currency: 'GHS', beneficiary: GH_PERSON(ghWallet('2001')), name: 'Kofi Mensah', reference: crypto.randomUUID() })).toMatchObject({ kind: 'unavailable' });
    expect(w.prism.violations()).toEqual([]);
  }, 60_000);
  it('enforces the corridors\' bounds at submit: XOF 200 to 2,000,000, XAF 500 to 1,000,000, GHS 5 to 50,000; Cameroon needs the sender\'s phone', async () => {
    const x = await momoWorkspace(w.t, { XOF: '5000000', XAF: '5000000', GHS: '100000' });
    const ci = { type: 'individual', name: 'Awa Traore', country: 'CI', accounts: [{ type: 'mobile_money', currency: 'XOF', country: 'CI', data: { phoneNumber: '+2250701231000', network: 'orange' } }] };
    const cm = { type: 'individual', name: 'Paul Biya', country: 'CM', accounts: [{ type: 'mobile_money', currency: 'XAF', country: 'CM', data: { phoneNumber: '+237671231000', network: 'mtn' } }] };
    w.sim.register('+2250701231000', 'Awa Traore');
    w.sim.register('+237671231000', 'Paul Biya');
    const cmSender = { type: 'individual', firstName: 'Grace', lastName: 'Hopper', country: 'DE', phoneNumber: '+4915123456789' };
    const submit = (amount: string, currency: string, beneficiary: Record<string, unknown>, senderInfo?: Record<string, unknown>) =>
      x.request('POST', '/v1/payouts', { clientRef: `bounds-${currency}-${amount}-${Math.random()}`, amount, currency, route: 'mobile_money', beneficiary, ...(senderInfo ? { senderInfo } : {}) });
    for (const [amount, currency, beneficiary] of [
      ['199', 'XOF', ci],
      ['2000001', 'XOF', ci],
      ['499', 'XAF', cm],
      ['1000001', 'XAF', cm],
      ['4.99', 'GHS', GH_PERSON(ghWallet('1006'))],
      ['50000.01', 'GHS', GH_PERSON(ghWallet('1006'))],
    ] as const) {
      const res = await submit(amount, currency, beneficiary, currency === 'XAF' ? cmSender : undefined);
      expect(res.statusCode, `${amount} ${currency}: ${res.body}`).toBeGreaterThanOrEqual(400);
      expect(res.statusCode).toBeLessThan(500);
      expect(res.body, `${amount} ${currency}`).toContain('AMOUNT_OUT_OF_BOUNDS');
    }
    const noSender = await submit('500', 'XAF', cm);
    expect(noSender.statusCode, noSender.body).toBeGreaterThanOrEqual(400);
    expect(noSender.body).toContain('senderInfo');
    const ids: string[] = [];
    for (const [amount, currency, beneficiary] of [
      ['200', 'XOF', ci],
      ['500', 'XAF', cm],
      ['5.00', 'GHS', GH_PERSON(ghWallet('1006'))],
    ] as const) {
      const res = await submit(amount, currency, beneficiary, currency === 'XAF' ? cmSender : undefined);
      expect(res.statusCode, `${amount} ${currency}: ${res.body}`).toBe(201);
      ids.push(res.json<{ id: string }>().id);
    }
    await w.work();
    for (const id of ids) await until(`payout ${id} paid`, async () => (await x.request('GET', `/v1/payouts/${id}`)).json<PayoutRead>().status, (s) => s === 'paid');
    const xaf = JSON.parse(w.sim.disbursementsOf(ids[1] as string)[0]?.body ?? '{}') as Record<string, unknown>;
    expect(xaf).toMatchObject({ amount: '500', currency: 'XAF', creditParty: [{ key: 'msisdn', value: '+237671231000' }], senderKyc: { contactPhone: '+4915123456789', subjectName: { firstName: 'Grace', lastName: 'Hopper' } } });
    expect(w.prism.violations()).toEqual([]);
  }, 120_000);
  it('holds a payout whose wallet holder\'s name does not match (both names shown), sends nothing, and pays it once the workspace confirms', async () => {
    const id = await momoPayout(c, { amount: '15.00', beneficiary: GH_PERSON(ghWallet('0001')) });
    await w.work();
    const held = await until('held by the recipient check', () => read(id), (p) => p.recipientCheck?.status === 'held');
    expect(held.recipientCheck).toMatchObject({ result: 'no_match', name: 'Kofi Mensah', railName: 'Mismatched Holder' });
    expect(w.sim.requests.some((r) => r.method === 'GET' && r.path === `/accounts/msisdn/${ghWallet('0001')}/accountname`)).toBe(true);
    await w.work();
    expect(w.sim.disbursementsOf(id)).toHaveLength(0);
    const confirmed = await c.request('POST', `/v1/payouts/${id}/recipient-check/confirm`, {});
    expect(confirmed.statusCode, confirmed.body).toBe(200);
    await w.work();
    expect((await settled(id)).status).toBe('paid');
    expect(w.sim.disbursementsOf(id)).toHaveLength(1);
    expect(w.prism.violations()).toEqual([]);
  }, 120_000);
});
