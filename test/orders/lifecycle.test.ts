import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRunner } from '../../src/jobs.js';
import type { JobRunner } from '../../src/platform/jobs/runner.js';
import { ledgerInvariantViolations } from '../../src/domains/ledger/ledger.service.js';
import { createTestApp, newWorkspace, operator, type Caller, type TestApp } from '../helpers/app.js';
import { balance, eventsOf, fund, ORDER_EVENT_FIELDS, placeOrder, transfersOf, US_BENEFICIARY, type OrderView } from './helpers.js';

let t: TestApp;
let short: TestApp;
let runner: JobRunner;
let c: Caller;

beforeAll(async () => {
  t = await createTestApp();
  // Windows short enough to pass during a test, and a worker to run the deadline jobs.
  short = await createTestApp({ env: { ORDER_FUNDING_WINDOW_MS: '400', ORDER_EXECUTION_WINDOW_MS: '400', JOB_POLL_MS: '20' } });
  runner = createRunner(short.ctx);
  runner.start();
  c = await newWorkspace(t.app);
});
afterAll(async () => {
  await runner.stop();
  await short.close();
  await t.close();
});

const sandbox = (w: Caller, id: string, move: string, body?: unknown) => w.request('POST', `/v1/sandbox/orders/${id}/${move}`, body);
const desk = (app: TestApp, id: string, move: string, body?: unknown) => operator(app.app, 'POST', `/operator/v1/orders/${id}/${move}`, body);

async function expectBalanced(app: TestApp = t): Promise<void> {
  expect(await ledgerInvariantViolations(app.ctx.db)).toEqual([]);
}

async function waitForStatus(w: Caller, id: string, status: string, timeoutMs = 10_000): Promise<OrderView> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const order = (await w.request('GET', `/v1/orders/${id}`)).json<OrderView>();
    if (order.status === status) return order;
    if (Date.now() > deadline) throw new Error(`order ${id} still ${order.status}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe('desk moves through the sandbox: a settlement-funded order delivered to the own balance', () => {
  it('confirm-funds → funds_received (credited and held), execute → executing (no event), complete → completed with the final figures', async () => {
    const order = await placeOrder(c, { fromAmount: '1000.00' });
    expect(order.status).toBe('awaiting_funds');

    const funded = (await sandbox(c, order.id, 'confirm-funds')).json<OrderView>();
    expect(funded).toMatchObject({ status: 'funds_received', settlement: { status: 'received' } });
    expect(funded.fundedAt).not.toBeNull();
    expect(Date.parse(funded.executionDeadlineAt!)).toBeGreaterThan(Date.parse(funded.fundedAt!));
    expect(await balance(c, 'EUR')).toMatchObject({ totalBalance: '1000.00', pendingOut: '1000.00', balance: '0.00' });
    await expectBalanced();

    const executing = await sandbox(c, order.id, 'execute');
    expect(executing.statusCode).toBe(200);
    expect(executing.json().status).toBe('executing');

    const done = await sandbox(c, order.id, 'complete', { toAmount: '1080.00', rate: '0.925925925926' });
    expect(done.statusCode, done.body).toBe(200);
    const completed = done.json<OrderView>();
    expect(completed).toMatchObject({ status: 'completed', toAmount: '1080.00', rate: '0.925925925926', uetr: null, failureReason: null });
    expect(completed.completedAt).not.toBeNull();
    expect(await balance(c, 'EUR')).toMatchObject({ totalBalance: '0.00', pendingOut: '0.00' });
    expect(await balance(c, 'USD')).toMatchObject({ totalBalance: '1080.00', balance: '1080.00' });
    expect(await transfersOf(t, order.id)).toEqual([
      { currency: 'EUR', amount_minor: '100000', status: 'posted' }, // settlement credited
      { currency: 'EUR', amount_minor: '100000', status: 'posted' }, // hold, posted to the desk
      { currency: 'USD', amount_minor: '108000', status: 'posted' }, // desk delivers to the balance
    ]);
    await expectBalanced();

    const events = await eventsOf(t, order.id);
    expect(events.map((e) => e.type)).toEqual(['order.created', 'order.awaiting_funds', 'order.funds_received', 'order.completed']);
    for (const e of events) expect(Object.keys(e.data).sort()).toEqual(ORDER_EVENT_FIELDS);
    expect(events[3]!.data).toMatchObject({ status: 'completed', toAmount: '1080.00', uetr: null });
  });

  it('completes at the amounts priced at creation when the desk gives none; toAmount without rate is a 400', async () => {
    await fund(c, 'EUR', '50.00');
    const order = await placeOrder(c, { fromAmount: '50.00' });
    expect(order.status).toBe('funds_received');
    const half = await sandbox(c, order.id, 'complete', { toAmount: '54.00' });
    expect(half.statusCode).toBe(400);
    expect(half.json().details[0].field).toBe('rate');
    expect((await sandbox(c, order.id, 'complete', { toAmount: 54 })).statusCode).toBe(400);
    const done = (await sandbox(c, order.id, 'complete')).json<OrderView>();
    expect(done).toMatchObject({ status: 'completed', toAmount: order.toAmount, rate: order.rate });
    await expectBalanced();
  });

  it('fails a funded order: failed with execution_failed, held funds returned, order.failed', async () => {
    await fund(c, 'EUR', '70.00');
    const before = await balance(c, 'EUR');
    const order = await placeOrder(c, { fromAmount: '70.00' });
    await sandbox(c, order.id, 'execute');
    const failed = (await sandbox(c, order.id, 'fail')).json<OrderView>();
    expect(failed).toMatchObject({ status: 'failed', failureReason: 'execution_failed', completedAt: null });
    expect(await balance(c, 'EUR')).toMatchObject({ balance: before?.balance, pendingOut: '0.00' });
    expect((await eventsOf(t, order.id)).map((e) => e.type)).toEqual(['order.created', 'order.funds_received', 'order.failed']);
    expect((await eventsOf(t, order.id))[2]!.data).toMatchObject({ failureReason: 'execution_failed' });
    await expectBalanced();
  });

  it('answers 409 for a move from the wrong state, leaving the order as it was', async () => {
    const awaiting = await placeOrder(c, { fromAmount: '5.00', funding: 'settlement' });
    for (const move of ['execute', 'complete', 'fail']) {
      const res = await sandbox(c, awaiting.id, move);
      expect(res.statusCode, move).toBe(409);
      expect(res.json()).toMatchObject({ code: 'INVALID_ORDER_STATE' });
    }
    await fund(c, 'EUR', '5.00');
    const funded = await placeOrder(c, { fromAmount: '5.00' });
    expect((await sandbox(c, funded.id, 'confirm-funds')).json()).toMatchObject({ code: 'ORDER_NOT_SETTLEMENT_FUNDED' });
    expect((await sandbox(c, funded.id, 'expire')).statusCode).toBe(409);
    await sandbox(c, funded.id, 'complete');
    for (const move of ['execute', 'complete', 'fail']) expect((await sandbox(c, funded.id, move)).statusCode).toBe(409);
    expect((await c.request('GET', `/v1/orders/${funded.id}`)).json().status).toBe('completed');
  });
});

describe('desk moves through the operator API (any workspace, audited)', () => {
  it('confirms, executes and completes a wire delivery to a beneficiary with its uetr; the payout leaves through the desk', async () => {
    const w = await newWorkspace(t.app);
    const ben = await w.request('POST', '/v1/beneficiaries', US_BENEFICIARY);
    expect(ben.statusCode, ben.body).toBe(201);
    const order = await placeOrder(w, { toAmount: '2000.00', beneficiary: { id: ben.json().id } });
    expect((await desk(t, order.id, 'confirm-funds')).json()).toMatchObject({ status: 'funds_received' });
    expect((await desk(t, order.id, 'execute')).json()).toMatchObject({ status: 'executing' });
    const uetr = 'e2c6b5d4-1f2a-4c3b-8d9e-0a1b2c3d4e5f';
    const res = await desk(t, order.id, 'complete', { toAmount: '2000.00', rate: '0.93', uetr });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ status: 'completed', uetr, rate: '0.93', toAmount: '2000.00' });
    const completedEvent = (await eventsOf(t, order.id)).find((e) => e.type === 'order.completed');
    expect(completedEvent?.data).toMatchObject({ uetr, status: 'completed' });
    // Delivered to the beneficiary, not to the balance: the workspace holds no USD.
    expect(await balance(w, 'USD')).toBeUndefined();
    expect(await balance(w, 'EUR')).toMatchObject({ totalBalance: '0.00', pendingOut: '0.00' });
    await expectBalanced();

    const feed = (await w.request('GET', '/v1/ledger/transactions')).json<{ data: { objectType: string; objectId: string }[] }>();
    expect(feed.data.filter((x) => x.objectId === order.id).every((x) => x.objectType === 'order')).toBe(true);
    const audit = (await operator(t.app, 'GET', '/operator/v1/audit-log')).json<{ data: { path: string; statusCode: number }[] }>();
    expect(audit.data.map((e) => e.path)).toEqual(expect.arrayContaining([`/operator/v1/orders/${order.id}/confirm-funds`, `/operator/v1/orders/${order.id}/complete`]));
  });

  it('lists every workspace\'s orders for the desk, filtered by status and workspace', async () => {
    const a = await newWorkspace(t.app);
    const b = await newWorkspace(t.app);
    const oa = await placeOrder(a, { fromAmount: '12.00' });
    const ob = await placeOrder(b, { fromAmount: '13.00' });
    const queue = (await operator(t.app, 'GET', '/operator/v1/orders?status=awaiting_funds&limit=100')).json<{ object: string; data: OrderView[] }>();
    expect(queue.object).toBe('order.list');
    expect(queue.data.map((o) => o.id)).toEqual(expect.arrayContaining([oa.id, ob.id]));
    expect(queue.data.every((o) => o.status === 'awaiting_funds')).toBe(true);
    const onlyB = (await operator(t.app, 'GET', `/operator/v1/orders?workspaceId=${b.workspaceId}`)).json<{ data: OrderView[] }>();
    expect(onlyB.data.map((o) => o.id)).toEqual([ob.id]);
    expect((await b.request('GET', '/operator/v1/orders')).statusCode).toBe(401);
  });

  it('generates a uetr for a wire delivery the desk completes without one; refuses a uetr on an own-balance delivery', async () => {
    const w = await newWorkspace(t.app);
    await fund(w, 'EUR', '100.00');
    const ben = (await w.request('POST', '/v1/beneficiaries', US_BENEFICIARY)).json<{ id: string }>();
    const wire = await placeOrder(w, { fromAmount: '40.00', beneficiary: { id: ben.id } });
    const done = (await desk(t, wire.id, 'complete')).json<OrderView>();
    expect(done.uetr).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    const own = await placeOrder(w, { fromAmount: '40.00' });
    const refused = await desk(t, own.id, 'complete', { uetr: 'e2c6b5d4-1f2a-4c3b-8d9e-0a1b2c3d4e5f' });
    expect(refused.statusCode).toBe(400);
    expect(refused.headers['content-type']).toMatch(/application\/problem\+json/);
    expect((await desk(t, own.id, 'fail')).json()).toMatchObject({ status: 'failed', failureReason: 'execution_failed' });
    expect(await balance(w, 'EUR')).toMatchObject({ balance: '60.00', pendingOut: '0.00' });
    expect((await desk(t, '00000000-0000-4000-8000-000000000000', 'execute')).statusCode).toBe(404);
    await expectBalanced();
  });
});

describe('cancel', () => {
  it('cancels an order awaiting funds synchronously, with no event', async () => {
    const order = await placeOrder(c, { fromAmount: '9.00', funding: 'settlement' });
    const res = await c.request('POST', `/v1/orders/${order.id}/cancel`);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ status: 'cancelled', settlement: { status: 'cancelled' } });
    expect((await eventsOf(t, order.id)).map((e) => e.type)).toEqual(['order.created', 'order.awaiting_funds']);
  });

  it('cancels a funded order and returns its held funds; 409 once executing or final', async () => {
    const w = await newWorkspace(t.app);
    await fund(w, 'EUR', '100.00');
    const order = await placeOrder(w, { fromAmount: '60.00' });
    expect(await balance(w, 'EUR')).toMatchObject({ balance: '40.00' });
    expect((await w.request('POST', `/v1/orders/${order.id}/cancel`)).json()).toMatchObject({ status: 'cancelled' });
    expect(await balance(w, 'EUR')).toMatchObject({ balance: '100.00', pendingOut: '0.00' });
    expect((await eventsOf(t, order.id)).map((e) => e.type)).toEqual(['order.created', 'order.funds_received']);
    const again = await w.request('POST', `/v1/orders/${order.id}/cancel`);
    expect(again.statusCode).toBe(409);
    expect(again.json()).toMatchObject({ statusCode: 409, code: 'INVALID_ORDER_STATE' });

    const executing = await placeOrder(w, { fromAmount: '60.00' });
    await sandbox(w, executing.id, 'execute');
    expect((await w.request('POST', `/v1/orders/${executing.id}/cancel`)).statusCode).toBe(409);
    await sandbox(w, executing.id, 'complete');
    expect((await w.request('POST', `/v1/orders/${executing.id}/cancel`)).statusCode).toBe(409);
    await expectBalanced();
  });
});

describe('expiry by the funding window', () => {
  it('expires an order still awaiting funds at fundingDeadlineAt through the deadline job: order.expired', async () => {
    const w = await newWorkspace(short.app);
    const order = await placeOrder(w, { fromAmount: '25.00' });
    expect(order.status).toBe('awaiting_funds');
    expect(Date.parse(order.fundingDeadlineAt) - Date.parse(order.createdAt)).toBeLessThan(1000);
    const expired = await waitForStatus(w, order.id, 'expired');
    expect(expired.settlement).toMatchObject({ status: 'expired' });
    const events = await eventsOf(short, order.id);
    expect(events.map((e) => e.type)).toEqual(['order.created', 'order.awaiting_funds', 'order.expired']);
    expect(Object.keys(events[2]!.data).sort()).toEqual(ORDER_EVENT_FIELDS);
  });

  it('credits funds confirmed after expiry to the balance instead, once; the order stays expired with no new event', async () => {
    const w = await newWorkspace(short.app);
    const order = await placeOrder(w, { fromAmount: '25.00' });
    await waitForStatus(w, order.id, 'expired');
    const late = await desk(short, order.id, 'confirm-funds');
    expect(late.statusCode, late.body).toBe(200);
    expect(late.json()).toMatchObject({ status: 'expired', fundedAt: null, settlement: { status: 'received' } });
    expect(await balance(w, 'EUR')).toMatchObject({ balance: '25.00', totalBalance: '25.00', pendingOut: '0.00' });
    expect((await desk(short, order.id, 'confirm-funds')).statusCode).toBe(409);
    expect(await balance(w, 'EUR')).toMatchObject({ totalBalance: '25.00' });
    expect((await eventsOf(short, order.id)).map((e) => e.type)).toEqual(['order.created', 'order.awaiting_funds', 'order.expired']);
    await expectBalanced(short);
  });

  it('fails a funded order the desk has not completed by executionDeadlineAt with review_expired, funds returned', async () => {
    const w = await newWorkspace(short.app);
    await fund(w, 'EUR', '30.00');
    const order = await placeOrder(w, { fromAmount: '30.00' });
    expect(order.status).toBe('funds_received');
    await sandbox(w, order.id, 'execute');
    const failed = await waitForStatus(w, order.id, 'failed');
    expect(failed.failureReason).toBe('review_expired');
    expect(await balance(w, 'EUR')).toMatchObject({ balance: '30.00', pendingOut: '0.00' });
    expect((await eventsOf(short, order.id)).map((e) => e.type)).toEqual(['order.created', 'order.funds_received', 'order.failed']);
    await expectBalanced(short);
  });

  it('ends the window now with sandbox expire: expired, fundingDeadlineAt moved to now, order.expired; 409 once expired', async () => {
    const order = await placeOrder(c, { fromAmount: '11.00', funding: 'settlement' });
    const res = await sandbox(c, order.id, 'expire');
    expect(res.statusCode).toBe(200);
    const expired = res.json<OrderView>();
    expect(expired.status).toBe('expired');
    expect(Date.parse(expired.fundingDeadlineAt)).toBeLessThan(Date.parse(order.fundingDeadlineAt));
    expect(expired.settlement!.expiresAt).toBe(expired.fundingDeadlineAt);
    expect((await eventsOf(t, order.id)).map((e) => e.type)).toEqual(['order.created', 'order.awaiting_funds', 'order.expired']);
    expect((await sandbox(c, order.id, 'expire')).statusCode).toBe(409);
    expect((await c.request('POST', `/v1/orders/${order.id}/cancel`)).statusCode).toBe(409);
  });
});
