import { describe, expect, it } from 'vitest';
import { runPoll } from '../../src/connectors/mobile-money/service.js';
import { operator } from '../helpers/app.js';
import { balance, eventTypesOf, ref } from '../payouts/helpers.js';
import { ghWallet, until, useMomoWorld } from './helpers.js';

interface DepositRead {
  id: string;
  clientRef: string;
  status: string;
  rail: string;
  amount: string;
  serviceFee: string | null;
  creditedAmount: string | null;
  failureReason: string | null;
}

/**
 * Collections (`POST /v1/collections`): a request to pay (`POST /transactions/type/merchantpay`) sent
 * to the payer's phone through the GSMA simulator behind Prism, which holds every exchange to GSMA's
 * published v1.2.0 definition; the payer approves, declines, enters a wrong PIN or never answers,
 * and the outcome becomes a deposit once, whether it comes by callback or by polling.
 */
describe('mobile-money collections over the GSMA Mobile Money API', () => {
  const world = useMomoWorld({ GHS: '10' }, async (w, c) => {
    const fee = await operator(w.t.app, 'PUT', `/operator/v1/workspaces/${c.workspaceId}/settings`, { depositFees: { GHS: '0.50' } });
    expect(fee.statusCode, fee.body).toBe(200);
  });

  const collect = async (phoneNumber: string, amount = '25.00', clientRef = ref('col')) => {
    const res = await world.c.request('POST', '/v1/collections', { clientRef, amount, currency: 'GHS', phoneNumber, description: 'Order 5531' });
    expect(res.statusCode, res.body).toBe(201);
    return res.json<DepositRead>();
  };
  const read = async (id: string) => (await world.c.request('GET', `/v1/deposits/${id}`)).json<DepositRead>();
  const settled = (id: string) => until(`deposit ${id} final`, () => read(id), (d) => d.status === 'completed' || d.status === 'failed', 60_000);

  it('credits an approved collection by creditedAmount after the service fee, with deposit.completed once, listed in GET /v1/deposits', async () => {
    const before = await balance(world.c, 'GHS');
    const created = await collect(ghWallet('2000'), '25.00');
    expect(created).toMatchObject({ status: 'pending', rail: 'mobile_money_collection', amount: '25.00' });
    await world.w.work();
    const done = await settled(created.id);
    expect(done).toMatchObject({ status: 'completed', serviceFee: '0.50', creditedAmount: '24.50', failureReason: null });
    const sent = world.w.sim.requestsOf('merchantpay', created.id);
    expect(sent).toHaveLength(1);
    expect(JSON.parse(sent[0]?.body ?? '{}')).toMatchObject({ amount: '25.00', currency: 'GHS', debitParty: [{ key: 'msisdn', value: ghWallet('2000') }], creditParty: [{ key: 'accountid', value: '2000023' }], requestingOrganisationTransactionReference: created.clientRef, descriptionText: 'Order 5531' });
    expect(world.w.sim.transactionOf(created.id)?.callbackUrl).toBe(`${String(world.w.section.callbackBaseUrl)}/callbacks/mobile-money/${created.id}`);
    expect(await eventTypesOf(world.w.t, created.id)).toEqual(['deposit.completed']);
    expect(Number((await balance(world.c, 'GHS'))?.balance) - Number(before?.balance)).toBeCloseTo(24.5, 2);
    const list = (await world.c.request('GET', '/v1/deposits?status=completed')).json<{ data: DepositRead[] }>();
    expect(list.data.map((d) => d.id)).toContain(created.id);
    expect(world.w.prism.violations()).toEqual([]);
  }, 120_000);

  it('fails a collection the payer declines as payer_declined with deposit.failed, nothing credited', async () => {
    const before = await balance(world.c, 'GHS');
    const created = await collect(ghWallet('0003'));
    await world.w.work();
    const done = await settled(created.id);
    expect(done).toMatchObject({ status: 'failed', failureReason: 'payer_declined', serviceFee: null, creditedAmount: null });
    expect(await eventTypesOf(world.w.t, created.id)).toEqual(['deposit.failed']);
    expect((await balance(world.c, 'GHS'))?.balance).toBe(before?.balance);
    expect(world.w.prism.violations()).toEqual([]);
  }, 120_000);

  it('fails a collection whose payer enters a wrong PIN as wrong_pin', async () => {
    const created = await collect(ghWallet('0005'));
    await world.w.work();
    expect(await settled(created.id)).toMatchObject({ status: 'failed', failureReason: 'wrong_pin' });
    expect(await eventTypesOf(world.w.t, created.id)).toEqual(['deposit.failed']);
  }, 120_000);

  it('recovers a timed-out collection whose callback was lost by polling the provider: failed as timeout, once', async () => {
    world.w.sim.loseCallbacks(1);
    const created = await collect(ghWallet('0004'));
    await world.w.work();
    await until('the lost callback', async () => world.w.sim.lastCallback(created.id)?.status, (s) => s === 'lost');
    expect((await read(created.id)).status).toBe('pending');
    const done = await until('failed by polling', async () => {
      await runPoll(world.w.t.ctx, world.mm.runtime);
      return read(created.id);
    }, (d) => d.status === 'failed');
    expect(done.failureReason).toBe('timeout');
    expect(world.w.sim.requests.some((r) => r.method === 'GET' && r.path === `/responses/${created.id}`)).toBe(true);
    // The provider's callback arrives late after all: it changes nothing.
    const last = world.w.sim.lastCallback(created.id);
    expect(await world.w.sim.deliver(last?.url ?? '', created.id, last?.body ?? '')).toBe(204);
    expect(await eventTypesOf(world.w.t, created.id)).toEqual(['deposit.failed']);
    expect(world.w.prism.violations()).toEqual([]);
  }, 120_000);

  it('applies a collection callback delivered twice once: one deposit.completed, the balance credited once', async () => {
    const created = await collect(ghWallet('2001'), '12.00');
    await world.w.work();
    expect((await settled(created.id)).status).toBe('completed');
    const credited = await balance(world.c, 'GHS');
    // The simulator records Corridor's answer once it has it (the deposit may be read completed before).
    const last = await until('the callback answered', async () => world.w.sim.lastCallback(created.id), (cb) => cb?.status === 204);
    expect(await world.w.sim.deliver(last?.url ?? '', created.id, last?.body ?? '')).toBe(204);
    expect(await eventTypesOf(world.w.t, created.id)).toEqual(['deposit.completed']);
    expect((await balance(world.c, 'GHS'))?.balance).toBe(credited?.balance);
  }, 120_000);

  it('answers the same Idempotency-Key with the same collection and refuses its clientRef again: one request to pay', async () => {
    const clientRef = ref('col');
    const body = { clientRef, amount: '5.00', currency: 'GHS', phoneNumber: ghWallet('2002') };
    const headers = { 'idempotency-key': `idem-${clientRef}` };
    const first = await world.c.request('POST', '/v1/collections', body, headers);
    const again = await world.c.request('POST', '/v1/collections', body, headers);
    expect(first.statusCode, first.body).toBe(201);
    expect(again.json<DepositRead>().id).toBe(first.json<DepositRead>().id);
    const other = await world.c.request('POST', '/v1/collections', body);
    expect(other.statusCode, other.body).toBe(409);
    expect(other.json<{ code: string }>().code).toBe('DUPLICATE_CLIENT_REF');
    await world.w.work();
    expect(world.w.sim.requestsOf('merchantpay', first.json<DepositRead>().id)).toHaveLength(1);
  }, 120_000);

  it('refuses a payer phone number that is not a valid E.164 mobile number, naming the field', async () => {
    const res = await world.c.request('POST', '/v1/collections', { clientRef: ref('col'), amount: '5.00', currency: 'GHS', phoneNumber: '+23300000' });
    expect(res.statusCode, res.body).toBe(400);
    expect(res.body).toContain('phoneNumber');
  }, 120_000);
});
