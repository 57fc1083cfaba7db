import { generateKeyPairSync } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Connector } from '../../src/connectors/connector.js';
import { signBody } from '../../src/connectors/clearbank/signature.js';
import { WEBHOOK_PATH } from '../../src/connectors/clearbank/clearbank.routes.js';
import { balance, eventTypesOf, ref } from '../payouts/helpers.js';
import type { Caller } from '../helpers/app.js';
import { ALAN, clearBankWorld, type ClearBankWorld } from './harness.js';

/**
 * GBP Faster Payments over the ClearBank connector, end to end: Corridor's API, its worker's jobs,
 * signed requests through Prism holding them (and the answers) to ClearBank's published FPS and CoP
 * definitions, the sandbox ClearBank, and its signed webhooks back to Corridor.
 */
describe('GBP Faster Payments over ClearBank', () => {
  let w: ClearBankWorld;
  let c: Caller;

  beforeAll(async () => {
    w = await clearBankWorld();
    c = await w.caller();
  }, 300_000);

  afterAll(async () => {
    await w?.close();
  });

  const webhookRows = async (payoutId: string) => w.t.ctx.db.query<{ type: string; outcome: string }>('SELECT type, outcome FROM clearbank_webhooks WHERE payout_id = $1 ORDER BY received_at', [payoutId]);
  const count = (events: string[], type: string) => events.filter((e) => e === type).length;

  it('pays: accepted by the bank (processing), then paid by its signed TransactionSettled webhook', async () => {
    const id = await w.payout(c, ALAN());
    const paid = await w.waitFor(c, id, (p) => p.status === 'paid');
    expect(paid.failureReason).toBeNull();
    expect(await eventTypesOf(w.t, id)).toEqual(expect.arrayContaining(['payout.processing', 'payout.paid']));
    const sent = w.sim.payments.get(id.replace(/-/g, ''));
    expect(sent).toMatchObject({ sortCode: '700000', accountNumber: '12345601', name: 'Alan Turing', amount: 10 });
    expect(await webhookRows(id)).toEqual([{ type: 'TransactionSettled', outcome: 'applied' }]);
  }, 180_000);

  it('turns a GB IBAN into its sort code and account number', async () => {
    const id = await w.payout(c, { ...ALAN(), accounts: [{ type: 'iban', currency: 'GBP', country: 'GB', data: { iban: 'GB29 NWBK 6016 1331 9268 19' } }] });
    await w.waitFor(c, id, (p) => p.status === 'paid');
    expect(w.sim.payments.get(id.replace(/-/g, ''))).toMatchObject({ sortCode: '601613', accountNumber: '31926819' });
  }, 180_000);

  it('refuses at submit a sort code and account number that fail the modulus check, naming the field', async () => {
    const res = await c.request('POST', '/v1/payouts', { clientRef: ref('mod'), amount: '5.00', currency: 'GBP', route: 'bank_transfer', beneficiary: ALAN('31926818', '601613') });
    expect(res.statusCode, res.body).toBe(400);
    expect(res.body).toMatch(/modulus check/);
  });

  it('fails a payment the bank refuses in its answer, with the reason in words and who must act', async () => {
    const id = await w.payout(c, ALAN('00000101'));
    const failed = await w.waitFor(c, id, (p) => p.status === 'failed');
    expect(failed.failureReason).toBe("Refused by ClearBank: InvalidAccount the payee's sort code and account number are not a reachable account. Who must act: the workspace corrects the beneficiary's details");
  }, 180_000);

  it('fails a payment Faster Payments rejects (TransactionRejected AC04), with the code in words', async () => {
    const id = await w.payout(c, ALAN('00000201'));
    const failed = await w.waitFor(c, id, (p) => p.status === 'failed');
    expect(failed.failureReason).toBe("Rejected by Faster Payments: AC04 the payee's account is closed. Who must act: the workspace corrects the beneficiary's details");
    expect(await eventTypesOf(w.t, id)).toEqual(expect.arrayContaining(['payout.processing', 'payout.failed']));
  }, 180_000);

  it('reverts a paid payout the payee\'s bank returns (an inbound FPS return), the funds back once', async () => {
    const before = await balance(c, 'GBP');
    const id = await w.payout(c, ALAN('00000301'));
    // A reverted payout is failed, its payout.reverted event beside payout.paid.
    const reverted = await w.waitFor(c, id, (p) => p.status === 'failed');
    expect(await eventTypesOf(w.t, id)).toEqual(expect.arrayContaining(['payout.paid', 'payout.reverted']));
    expect(reverted.failureReason).toMatch(/^Returned by the payee's bank: AC04 the payee's account is closed/);
    expect((await balance(c, 'GBP'))?.balance).toBe(before?.balance);
    // Whatever order the settlement and the return arrive in, the payout was paid once and reverted once.
    expect(count(await eventTypesOf(w.t, id), 'payout.paid')).toBe(1);
    expect(count(await eventTypesOf(w.t, id), 'payout.reverted')).toBe(1);
    expect((await balance(c, 'GBP'))?.balance).toBe(before?.balance);
  }, 180_000);

  it('recovers the outcome of a webhook lost on its way: the bank delivers it again until Corridor acknowledges it', async () => {
    const id = await w.payout(c, ALAN('00000401'));
    await w.waitFor(c, id, (p) => p.status === 'paid');
    const hook = w.sim.webhooks.find((h) => h.endToEndId === id.replace(/-/g, ''));
    expect(hook).toMatchObject({ type: 'TransactionSettled', lost: 1 });
    expect(await webhookRows(id)).toEqual([{ type: 'TransactionSettled', outcome: 'applied' }]);
  }, 180_000);

  it('takes a webhook delivered twice once: the repeat is acknowledged and changes nothing', async () => {
    const before = await balance(c, 'GBP');
    const id = await w.payout(c, ALAN('00000402'));
    await w.waitFor(c, id, (p) => p.status === 'paid');
    const deadline = Date.now() + 60_000;
    while ((w.sim.webhooks.find((h) => h.endToEndId === id.replace(/-/g, ''))?.delivered ?? 0) < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    expect(w.sim.webhooks.find((h) => h.endToEndId === id.replace(/-/g, ''))?.delivered).toBe(2);
    expect(count(await eventTypesOf(w.t, id), 'payout.paid')).toBe(1);
    expect(await webhookRows(id)).toEqual([{ type: 'TransactionSettled', outcome: 'applied' }]);
    const after = await balance(c, 'GBP');
    expect(Number(before?.balance) - Number(after?.balance)).toBeGreaterThanOrEqual(10);
    expect(Number(before?.balance) - Number(after?.balance)).toBeLessThan(20);
  }, 180_000);

  it('refuses a forged webhook (signed by another key) with 401, and nothing moves', async () => {
    const id = await w.payout(c, ALAN('00000403'));
    await w.waitFor(c, id, (p) => p.status === 'processing');
    const forger = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const body = JSON.stringify({ Type: 'TransactionRejected', Version: 2, Nonce: 42, Payload: { TransactionId: 'f0f0f0f0-0000-4000-8000-000000000001', Status: 'Rejected', Scheme: 'FasterPayments', EndToEndTransactionId: id.replace(/-/g, ''), DebitCreditCode: 'Debit', IsReturn: false, CancellationCode: 'AC04' } });
    const forged = await w.t.app.inject({ method: 'POST', url: WEBHOOK_PATH, headers: { 'content-type': 'application/json', digitalsignature: signBody(forger.privateKey, body) }, payload: body });
    expect(forged.statusCode).toBe(401);
    const unsigned = await w.t.app.inject({ method: 'POST', url: WEBHOOK_PATH, headers: { 'content-type': 'application/json' }, payload: body });
    expect(unsigned.statusCode).toBe(401);
    expect((await c.request('GET', `/v1/payouts/${id}`)).json<{ status: string }>().status).toBe('processing');
    expect(await webhookRows(id)).toEqual([]);
  }, 180_000);

  it('sends a batch of 25 payouts as requests of at most 10, the two the bank refuses failed and the 23 others paid', async () => {
    const callsBefore = w.sim.calls.filter((call) => call.path === '/v3/payments/fps').length;
    const ids: string[] = [];
    for (let i = 0; i < 25; i++) ids.push(await w.payout(c, ALAN(i === 7 ? '00000101' : i === 18 ? '00000102' : `2000${String(i).padStart(4, '0')}`), '1.00'));
    const final = await Promise.all(ids.map((id) => w.waitFor(c, id, (p) => p.status === 'paid' || p.status === 'failed')));
    expect(final.filter((p) => p.status === 'failed').map((p) => p.id).sort()).toEqual([ids[7], ids[18]].sort());
    expect(final.filter((p) => p.status === 'paid')).toHaveLength(23);
    expect(final.find((p) => p.id === ids[18])?.failureReason).toMatch(/^Refused by ClearBank: Rejected /);
    const batches = await w.t.ctx.db.query<{ payments: number }>('SELECT b.payments::int AS payments FROM clearbank_batches b WHERE b.id IN (SELECT batch_id FROM clearbank_payments WHERE payout_id = ANY($1::uuid[]))', [ids]);
    expect(batches.every((b) => b.payments <= 10)).toBe(true);
    expect(batches.reduce((n, b) => n + b.payments, 0)).toBe(25);
    expect(w.sim.calls.filter((call) => call.path === '/v3/payments/fps').length - callsBefore).toBe(batches.length);
  }, 300_000);

  describe('Confirmation of Payee (verifyRecipient)', () => {
    const check = (accountNumber: string, name = 'Alan Turing', type = 'individual') => {
      const connector = w.t.ctx.connectors.get('clearbank') as Connector;
      return connector.verifyRecipient?.({ rail: 'bank_transfer', currency: 'GBP', beneficiary: { ...ALAN(accountNumber), type }, name, reference: `chk-${accountNumber}-${Date.now()}` });
    };

    it('answers a match', async () => {
      expect(await check('12345601')).toEqual({ kind: 'verdict', result: 'match' });
    });

    it('answers a close match with the name the payee\'s bank holds', async () => {
      expect(await check('00000501')).toEqual({ kind: 'verdict', result: 'close_match', suggestedName: 'Alan M Turing', reason: "MBAM: the name is close to the account holder's" });
      expect(await check('00000506', 'Turing Holdings', 'business')).toMatchObject({ kind: 'verdict', result: 'close_match', suggestedName: 'Turing Holdings Ltd' });
    });

    it('answers no match', async () => {
      expect(await check('00000502')).toEqual({ kind: 'verdict', result: 'no_match', reason: 'ANNM: the name does not match the account holder' });
    });

    it('answers an unknown account as not found, without asking when the modulus check fails', async () => {
      expect(await check('00000503')).toEqual({ kind: 'account_not_found', reason: 'AC01: no account with this sort code and account number' });
      const calls = w.sim.calls.length;
      const connector = w.t.ctx.connectors.get('clearbank') as Connector;
      expect(await connector.verifyRecipient?.({ rail: 'bank_transfer', currency: 'GBP', beneficiary: ALAN('31926818', '601613'), name: 'Alan Turing', reference: 'mod' })).toMatchObject({ kind: 'account_not_found' });
      expect(w.sim.calls.length).toBe(calls);
    });

    it("answers unavailable when the payee's bank fails (424) or the account opted out", async () => {
      expect(await check('00000504')).toEqual({ kind: 'unavailable', reason: "the payee's bank failed to answer the Confirmation of Payee check" });
      expect(await check('00000505')).toEqual({ kind: 'unavailable', reason: 'OPTO: the account holder opted out of Confirmation of Payee' });
    });
  });

  it('broke neither ClearBank definition in any request or answer (Prism logged no violation)', () => {
    expect(w.violations()).toEqual([]);
  });
});
