/**
 * One route, a connector per currency (CORRIDOR_CONNECTORS_FILE `"bank_transfer": {"NGN": "paystack",
 * "*": "simulated"}`): an NGN payout goes to Paystack through Prism and is paid by its webhook, a GBP
 * payout on the same route to the other connector, each stored with the connector that serves it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { referenceOf } from '../../src/connectors/paystack/service.js';
import { ALAN } from '../clearbank/harness.js';
import { fund, ref, waitFor } from '../payouts/helpers.js';
import { ngnPayout, paystackRig, type PaystackRig } from './helpers.js';

describe('a route served by a connector per currency', () => {
  let rig: PaystackRig;
  beforeAll(async () => {
    rig = await paystackRig({ routes: { bank_transfer: { NGN: 'paystack', '*': 'simulated' } } });
  }, 300_000);
  afterAll(async () => rig?.close());

  const providerOf = async (id: string) => (await rig.t.ctx.db.query<{ provider: string }>('SELECT provider FROM payouts WHERE id = $1', [id]))[0]?.provider;

  it('pays NGN through Paystack and GBP through the route\'s other connector, each payout keeping the connector that served it', async () => {
    const ngn = await ngnPayout(rig.c, '0000000018', '2500.00');
    await fund(rig.c, 'GBP', '100.00');
    const res = await rig.c.request('POST', '/v1/payouts', { clientRef: ref('gbp'), amount: '10.00', currency: 'GBP', route: 'bank_transfer', beneficiary: ALAN() });
    expect(res.statusCode, res.body).toBe(201);
    const gbp = res.json<{ id: string }>().id;
    expect(await providerOf(ngn)).toBe('paystack');
    expect(await providerOf(gbp)).toBe('simulated');
    await waitFor(rig.c, ngn, (p) => p.status === 'paid', 90_000);
    await waitFor(rig.c, gbp, (p) => p.status === 'paid', 90_000);
    expect(rig.sim.state.transfers.has(referenceOf(ngn))).toBe(true);
    expect([...rig.sim.state.transfers.values()].some((t) => t.reference === referenceOf(gbp))).toBe(false);
    expect(rig.prism.violations()).toEqual([]);
  }, 180_000);
});
