import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Caller } from '../helpers/app.js';
import type { PayoutView } from '../payouts/helpers.js';
import { ALAN, clearBankWorld, type ClearBankWorld } from './harness.js';

type Read = PayoutView & { recipientCheck?: { status: string; result: string | null; name: string; railName: string | null; reason?: string | null } };

/**
 * Confirmation of Payee before a Faster Payment, end to end: the recipient-check control holds the
 * payout on anything but a match, with the answer ClearBank's CoP API gave (through Prism holding it
 * to ClearBank's CoP definition), until the workspace confirms or cancels.
 */
describe('Confirmation of Payee before a Faster Payment', () => {
  let w: ClearBankWorld;
  let c: Caller;

  beforeAll(async () => {
    w = await clearBankWorld();
    c = await w.caller();
  }, 300_000);

  afterAll(async () => {
    await w?.close();
  });

  const read = async (id: string) => (await c.request('GET', `/v1/payouts/${id}`)).json<Read>();
  const waitRead = async (id: string, until: (p: Read) => boolean) => (await w.waitFor(c, id, (p) => until(p as Read))) as Read;

  it('pays a payout whose name CoP matches, without a hold', async () => {
    const id = await w.payout(c, ALAN());
    const paid = await waitRead(id, (p) => p.status === 'paid');
    expect(paid.recipientCheck).toMatchObject({ status: 'passed', result: 'match', name: 'Alan Turing' });
  }, 180_000);

  it('holds a close match with the name the bank returned, and pays it once the workspace confirms', async () => {
    const id = await w.payout(c, ALAN('00000501'));
    const held = await waitRead(id, (p) => p.recipientCheck?.status === 'held');
    expect(held.status).toBe('queued');
    expect(held.recipientCheck).toMatchObject({ result: 'close_match', name: 'Alan Turing', railName: 'Alan M Turing' });
    expect(w.sim.payments.has(id.replace(/-/g, ''))).toBe(false);
    const confirmed = await c.request('POST', `/v1/payouts/${id}/recipient-check/confirm`);
    expect(confirmed.statusCode, confirmed.body).toBe(200);
    const paid = await waitRead(id, (p) => p.status === 'paid');
    expect(paid.recipientCheck).toMatchObject({ status: 'confirmed', result: 'close_match' });
    expect(w.sim.payments.get(id.replace(/-/g, ''))).toMatchObject({ status: 'settled' });
  }, 180_000);

  it('holds a payout CoP says does not match, and nothing reaches the bank', async () => {
    const id = await w.payout(c, ALAN('00000502'));
    const held = await waitRead(id, (p) => p.recipientCheck?.status === 'held');
    expect(held.status).toBe('queued');
    expect(held.recipientCheck).toMatchObject({ result: 'no_match', railName: null });
    expect(held.recipientCheck?.reason).toContain('ANNM');
    expect((await read(id)).status).toBe('queued');
    expect(w.sim.payments.has(id.replace(/-/g, ''))).toBe(false);
  }, 180_000);

  it('broke neither ClearBank definition (Prism logged no violation)', () => {
    expect(w.violations()).toEqual([]);
  });
});
