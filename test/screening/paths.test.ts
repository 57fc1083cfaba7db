import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Corridor } from '../../packages/sdk/src/index.js';
import { importPayouts } from '../../src/cli/payouts-import.js';
import { listeningTestApp, operator, OPERATOR_KEY, type Caller, type TestApp } from '../helpers/app.js';
import { WebClient } from '../helpers/web-client.js';
import { balance, placeOrder, US_BENEFICIARY } from '../orders/helpers.js';
import { ADA, fund, payingWorkspace, ref, saveBeneficiary } from '../payouts/helpers.js';
import { loadAll, operatorPost } from './helpers.js';

/**
 * Issue 33 point 4: every path that sends money to a beneficiary screens it and holds on a match,
 * one test per path: a single payout, a batch, a CSV import, a trade-desk order. (Corridor has no
 * scheduled payouts and no refunds to a beneficiary.) The names are those the probe sent,
 * look-alike letters and split names included.
 */

/** "Vladimir Putin" with a Cyrillic Р: came back clear before. */
const LOOKALIKE = 'Vladimir \u0420utin';

let t: TestApp;
let c: Caller;

interface Screened {
  id: string;
  status: string;
  screening: { status: string; hits: { list: string; entryId: string }[] };
}

beforeAll(async () => {
  t = await listeningTestApp();
  c = await payingWorkspace(t);
  await fund(c, 'EUR', '5000.00');
  await loadAll(t);
}, 180_000);
afterAll(async () => {
  await t?.close();
});

const payoutRead = async (id: string) => (await c.request('GET', `/v1/payouts/${id}`)).json<Screened>();

describe('payouts', () => {
  it('a single payout to a saved beneficiary with a listed name (a look-alike letter in it) is held', async () => {
    const beneficiaryId = await saveBeneficiary(c, { ...ADA, name: LOOKALIKE });
    const res = await c.request('POST', '/v1/payouts', { clientRef: ref('one'), amount: '10.00', currency: 'EUR', beneficiary: { id: beneficiaryId } });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json<Screened>()).toMatchObject({ status: 'queued', screening: { status: 'held', hits: [expect.objectContaining({ list: 'ofac-sdn', entryId: '9647' })] } });
  });

  it('a batch: the payouts to listed names are held, the others go on', async () => {
    const listed = await saveBeneficiary(c, { ...ADA, type: 'business', name: 'Kim Jong Un Trading' });
    const clear = await saveBeneficiary(c);
    const res = await c.request('POST', '/v1/payouts', [
      { clientRef: ref('b1'), amount: '5.00', currency: 'EUR', beneficiary: { id: listed } },
      { clientRef: ref('b2'), amount: '5.00', currency: 'EUR', beneficiary: { id: clear } },
      { clientRef: ref('b3'), amount: '5.00', currency: 'EUR', beneficiary: { ...ADA, name: 'Vladimir Pu-tin' } },
    ]);
    expect(res.statusCode, res.body).toBe(201);
    const made = res.json<{ data: Screened[] } | Screened[]>();
    const rows = Array.isArray(made) ? made : made.data;
    expect(rows.map((p) => p.screening.status)).toEqual(['held', 'clear', 'held']);
  });

  it('a CSV import (corridor payouts import): the rows paying a listed beneficiary are held', async () => {
    const listed = await saveBeneficiary(c, { ...ADA, type: 'business', name: 'Vladimir Putin Foundation' });
    const clear = await saveBeneficiary(c);
    const dir = mkdtempSync(path.join(tmpdir(), 'corridor-screen-import-'));
    const file = path.join(dir, 'payouts.csv');
    const run = `csv${Date.now().toString(36)}`;
    writeFileSync(file, `clientRef,amount,currency,beneficiaryId\n${run}-1,3.00,EUR,${listed}\n${run}-2,3.00,EUR,${clear}\n`);
    const corridor = new Corridor({ baseUrl: t.config.publicBaseUrl, clientId: c.clientId, clientSecret: c.clientSecret, audience: 'corridor-api' });
    const out: string[] = [];
    const summary = await importPayouts(corridor, file, (text) => out.push(text), () => undefined);
    expect(summary).toMatchObject({ rows: 2, sent: 2 });
    const ids = await t.ctx.db.query<{ id: string; client_ref: string }>('SELECT id, client_ref FROM payouts WHERE workspace_id = $1 AND client_ref LIKE $2 ORDER BY client_ref', [c.workspaceId, `${run}-%`]);
    expect(ids).toHaveLength(2);
    expect((await payoutRead(ids[0]!.id)).screening).toMatchObject({ status: 'held', hits: [expect.objectContaining({ entryId: '9647' })] });
    expect((await payoutRead(ids[1]!.id)).screening.status).toBe('clear');
  });
});

describe('trade-desk orders', () => {
  let listedBeneficiary: string;
  let clearBeneficiary: string;

  beforeAll(async () => {
    listedBeneficiary = await saveBeneficiary(c, { ...US_BENEFICIARY, type: 'individual', name: 'Vladimir Putin' });
    clearBeneficiary = await saveBeneficiary(c, US_BENEFICIARY);
  });

  const desk = (id: string, move: string, body: unknown = {}) => operator(t.app, 'POST', `/operator/v1/orders/${id}/${move}`, body);

  it('an order to a listed beneficiary is held: the desk cannot execute or complete it until an operator releases it', async () => {
    const order = await placeOrder(c, { clientRef: ref('ord'), fromAmount: '500.00', beneficiary: { id: listedBeneficiary }, funding: 'balance' });
    expect(order.status).toBe('funds_received');
    const hold = await operator(t.app, 'GET', `/operator/v1/screening/order-holds/${order.id}`);
    expect(hold.statusCode, hold.body).toBe(200);
    expect(hold.json()).toMatchObject({ orderId: order.id, beneficiaryId: listedBeneficiary, status: 'held', hits: [expect.objectContaining({ list: 'ofac-sdn', entryId: '9647' })] });

    for (const move of ['execute', 'complete']) {
      const refused = await desk(order.id, move);
      expect(refused.statusCode, refused.body).toBe(409);
      expect(refused.body).toContain('ORDER_HELD');
    }
    // The sandbox's simulation of the desk is held the same way.
    const simulated = await c.request('POST', `/v1/sandbox/orders/${order.id}/complete`, {});
    expect(simulated.statusCode, simulated.body).toBe(409);
    expect((await c.request('GET', `/v1/orders/${order.id}`)).json()).toMatchObject({ status: 'funds_received', completedAt: null });

    const released = await operatorPost(t, `/operator/v1/screening/order-holds/${order.id}/release`);
    expect(released.statusCode, released.body).toBe(200);
    expect(released.json()).toMatchObject({ status: 'released', decidedBy: expect.stringMatching(/^key:/) });
    expect((await desk(order.id, 'execute')).statusCode).toBe(200);
    const completed = await desk(order.id, 'complete');
    expect(completed.statusCode, completed.body).toBe(200);
    expect(completed.json()).toMatchObject({ status: 'completed' });
    expect((await operatorPost(t, `/operator/v1/screening/order-holds/${order.id}/release`)).statusCode).toBe(409);
  });

  it('an order to a clear beneficiary is not held, and the desk completes it', async () => {
    const order = await placeOrder(c, { clientRef: ref('ord'), fromAmount: '20.00', beneficiary: { id: clearBeneficiary }, funding: 'balance' });
    expect((await operator(t.app, 'GET', `/operator/v1/screening/order-holds/${order.id}`)).statusCode).toBe(404);
    expect((await desk(order.id, 'complete')).statusCode).toBe(200);
  });

  it('rejected, a held order fails and its funds return; cancelled meanwhile, its hold is withdrawn', async () => {
    const before = (await balance(c, 'EUR'))?.balance;
    const order = await placeOrder(c, { clientRef: ref('ord'), fromAmount: '30.00', beneficiary: { id: listedBeneficiary }, funding: 'balance' });
    const rejected = await operatorPost(t, `/operator/v1/screening/order-holds/${order.id}/reject`);
    expect(rejected.statusCode, rejected.body).toBe(200);
    expect(rejected.json()).toMatchObject({ status: 'rejected' });
    expect((await c.request('GET', `/v1/orders/${order.id}`)).json()).toMatchObject({ status: 'failed', failureReason: 'execution_failed' });
    expect((await balance(c, 'EUR'))?.balance).toBe(before);

    const cancelled = await placeOrder(c, { clientRef: ref('ord'), fromAmount: '30.00', beneficiary: { id: listedBeneficiary }, funding: 'balance' });
    expect((await c.request('POST', `/v1/orders/${cancelled.id}/cancel`, {})).statusCode).toBe(200);
    expect((await operator(t.app, 'GET', `/operator/v1/screening/order-holds/${cancelled.id}`)).json()).toMatchObject({ status: 'withdrawn', decidedBy: 'system', hits: [expect.objectContaining({ entryId: '9647' })] });
  });

  it("the console's order page shows the beneficiary and the match, and releases the order", async () => {
    const order = await placeOrder(c, { clientRef: ref('ord'), fromAmount: '40.00', beneficiary: { id: listedBeneficiary }, funding: 'balance' });
    const client = new WebClient(t.app, new URL(t.config.publicBaseUrl).origin);
    await client.get('/console/sign-in');
    expect((await client.post('/console/sign-in/key', { operatorKey: OPERATOR_KEY })).statusCode).toBe(303);
    const page = await client.get(`/console/orders/${order.id}`);
    expect(page.statusCode, page.body).toBe(200);
    expect(page.body).toContain('Vladimir Putin');
    expect(page.body).toContain(listedBeneficiary);
    expect(page.body).toContain('9647');
    expect(page.body).toContain('PUTIN');
    const refused = await client.post(`/console/orders/${order.id}/complete`, {});
    expect(refused.statusCode).toBe(409);
    const released = await client.post(`/console/orders/${order.id}/screening/release`, {});
    expect(released.statusCode, released.body).toBe(303);
    expect((await operator(t.app, 'GET', `/operator/v1/screening/order-holds/${order.id}`)).json()).toMatchObject({ status: 'released', decidedBy: expect.stringMatching(/^key:/) });
  });
});
