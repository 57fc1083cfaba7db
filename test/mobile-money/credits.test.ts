import { describe, expect, it } from 'vitest';
import { operator } from '../helpers/app.js';
import { balance, eventTypesOf } from '../payouts/helpers.js';
import { activeAccount, receivingWorkspace } from '../virtual-accounts/helpers.js';
import { ghWallet, useMomoWorld } from './helpers.js';

interface CreditException {
  transactionReference: string;
  amount: string | null;
  currency: string | null;
  payerReference: string | null;
  reason: string;
}

/**
 * Payments a payer makes to Corridor's merchant (paybill) number with a reference, pushed by the
 * GSMA simulator as the operator's notification: matched by the reference to the workspace's GHS
 * virtual account they become a deposit once; unmatched they go to the operator's exceptions list
 * with the reason, nothing credited.
 */
describe('mobile-money credits pushed to the merchant number', () => {
  const world = useMomoWorld({ GHS: '10' });
  const creditsUrl = () => `${String(world.w.section.callbackBaseUrl)}/callbacks/mobile-money/credits`;
  const exceptions = async () => (await operator(world.w.t.app, 'GET', '/operator/v1/mobile-money/exceptions')).json<{ data: CreditException[] }>().data;

  it('credits a paybill payment whose reference is the workspace\'s GHS virtual account, once however often it is pushed', async () => {
    const c = await receivingWorkspace(world.w.t.app);
    const account = await activeAccount(c, 'GHS');
    const before = await balance(c, 'GHS');
    const pushed = await world.w.sim.pushCredit(creditsUrl(), { payer: ghWallet('3000'), account: '2000023', reference: account.id, amount: '40.00', currency: 'GHS' });
    expect(pushed.status).toBe(204);
    const deposits = (await c.request('GET', `/v1/deposits?virtualAccountId=${account.id}`)).json<{ data: { id: string; clientRef: string; status: string; rail: string; amount: string; creditedAmount: string }[] }>().data;
    expect(deposits).toHaveLength(1);
    const deposit = deposits[0];
    expect(deposit).toMatchObject({ clientRef: `momo:${pushed.transactionReference}`, status: 'completed', rail: 'paybill', amount: '40.00', creditedAmount: '40.00' });
    expect(Number((await balance(c, 'GHS'))?.balance ?? 0) - Number(before?.balance ?? 0)).toBeCloseTo(40, 2);
    // The operator pushes the same payment again: nothing changes.
    expect(await world.w.sim.deliver(`${creditsUrl()}/${pushed.transactionReference}`, 'again', pushed.body)).toBe(204);
    expect((await c.request('GET', `/v1/deposits?virtualAccountId=${account.id}`)).json<{ data: unknown[] }>().data).toHaveLength(1);
    expect(await eventTypesOf(world.w.t, deposit?.id ?? '')).toEqual(['deposit.completed']);
    expect(Number((await balance(c, 'GHS'))?.balance ?? 0) - Number(before?.balance ?? 0)).toBeCloseTo(40, 2);
  }, 120_000);

  it('puts a payment whose reference names no virtual account on the operator\'s exceptions list with the reason, crediting nothing', async () => {
    const unknownRef = '7c9e6679-7425-40de-944b-e07fc1f90ae7';
    const pushed = await world.w.sim.pushCredit(creditsUrl(), { payer: ghWallet('3001'), account: '2000023', reference: unknownRef, amount: '15.00', currency: 'GHS' });
    expect(pushed.status).toBe(204);
    const listed = (await exceptions()).find((e) => e.transactionReference === pushed.transactionReference);
    expect(listed).toMatchObject({ amount: '15.00', currency: 'GHS', payerReference: unknownRef });
    expect(listed?.reason).toContain(unknownRef);
    expect(listed?.reason).toContain('nothing credited');
    const [landed] = await world.w.t.ctx.db.query<{ n: number }>("SELECT count(*)::int AS n FROM deposits WHERE client_ref = $1", [`momo:${pushed.transactionReference}`]);
    expect(landed?.n).toBe(0);
  }, 120_000);

  it('puts a payment without a reference, or to another merchant account, on the exceptions list rather than guess', async () => {
    const noRef = await world.w.sim.pushCredit(creditsUrl(), { payer: ghWallet('3002'), account: '2000023', amount: '9.00', currency: 'GHS' });
    const other = await world.w.sim.pushCredit(creditsUrl(), { payer: ghWallet('3003'), account: '9999999', reference: 'anything', amount: '9.00', currency: 'GHS' });
    expect([noRef.status, other.status]).toEqual([204, 204]);
    const list = await exceptions();
    expect(list.find((e) => e.transactionReference === noRef.transactionReference)?.reason).toContain('no reference');
    expect(list.find((e) => e.transactionReference === other.transactionReference)?.reason).toContain('9999999');
  }, 120_000);

  it('refuses a pushed credit without the callback secret: 401, nothing recorded', async () => {
    const body = JSON.stringify({ transactionReference: 'FORGED-1', transactionStatus: 'completed', amount: '500.00', currency: 'GHS', type: 'merchantpay', creditParty: [{ key: 'accountid', value: '2000023' }, { key: 'consumerno', value: 'x' }] });
    expect(await world.w.sim.deliver(`${creditsUrl()}/FORGED-1`, 'forged', body, { 'X-API-Key': 'not-the-secret' })).toBe(401);
    const [row] = await world.w.t.ctx.db.query<{ n: number }>("SELECT count(*)::int AS n FROM momo_credits WHERE transaction_reference = 'FORGED-1'");
    expect(row?.n).toBe(0);
  }, 120_000);
});
