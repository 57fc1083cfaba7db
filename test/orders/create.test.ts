import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, newWorkspace, onPostgres, operator, type Caller, type TestApp } from '../helpers/app.js';
import { balance, eventsOf, fund, ORDER_EVENT_FIELDS, placeOrder, ref, transfersOf, US_BENEFICIARY, type OrderView } from './helpers.js';

let t: TestApp;
let c: Caller;

beforeAll(async () => {
  t = await createTestApp();
  c = await newWorkspace(t.app);
  await fund(c, 'EUR', '10000.00');
});
afterAll(async () => t.close());

async function quote(body: Record<string, unknown>): Promise<{ fromAmount: string; toAmount: string; inverseRate: string }> {
  const res = await c.request('POST', '/v1/fx/quotes', { fromCurrency: 'EUR', toCurrency: 'USD', intent: 'conversion', ...body });
  expect(res.statusCode, res.body).toBe(201);
  return res.json();
}

describe('POST /v1/orders: create', () => {
  it('answers 201 with every order field of the spec, priced from the FX rate source (rate = fromCurrency per 1 toCurrency, all-in)', async () => {
    const clientRef = ref();
    const order = await placeOrder(c, { clientRef, fromAmount: '1000.00' });
    const priced = await quote({ fromAmount: '1000.00' });
    expect(Object.keys(order)).toEqual(expect.arrayContaining(ORDER_EVENT_FIELDS));
    expect(order).toMatchObject({
      clientRef,
      status: 'funds_received',
      funding: 'balance',
      fromCurrency: 'EUR',
      toCurrency: 'USD',
      fromAmount: '1000.00',
      toAmount: priced.toAmount,
      rate: priced.inverseRate,
      failureReason: null,
      uetr: null,
      settlement: null,
      beneficiaryId: null,
      completedAt: null,
    });
    expect(Number(order.rate)).toBeGreaterThan(0.92); // EUR per USD, spread included
    expect(order.fundedAt).not.toBeNull();
    expect(Date.parse(order.executionDeadlineAt!)).toBeGreaterThan(Date.parse(order.createdAt));
    expect(Date.parse(order.fundingDeadlineAt) - Date.parse(order.createdAt)).toBeGreaterThan(86_000_000);
    expect((await c.request('GET', `/v1/orders/${order.id}`)).json()).toEqual(order);
  });

  it('prices a toAmount order: delivers exactly toAmount and debits the least fromAmount that covers it; clientRef is optional (null)', async () => {
    const order = await placeOrder(c, { toAmount: '500.00' });
    const priced = await quote({ toAmount: '500.00' });
    expect(order).toMatchObject({ clientRef: null, toAmount: '500.00', fromAmount: priced.fromAmount });
  });

  it('refuses a JSON number amount, both or neither amount, too many decimals, unknown or equal currencies: 400 validation envelope', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ fromAmount: 100 }, 'fromAmount'],
      [{ toAmount: 1.5 }, 'toAmount'],
      [{ fromAmount: '100.00', toAmount: '100.00' }, 'toAmount'],
      [{}, 'fromAmount'],
      [{ fromAmount: '100.001' }, 'fromAmount'],
      [{ fromAmount: '0' }, 'fromAmount'],
      [{ fromAmount: '10', toCurrency: 'XYZ' }, 'toCurrency'],
      [{ fromAmount: '10', toCurrency: 'EUR' }, 'toCurrency'],
      [{ fromAmount: '10', funding: 'card' }, 'funding'],
    ];
    for (const [body, field] of cases) {
      const res = await c.request('POST', '/v1/orders', { fromCurrency: 'EUR', toCurrency: 'USD', ...body });
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      const envelope = res.json<{ statusCode: number; error: string; details: { field: string }[]; path: string }>();
      expect(envelope).toMatchObject({ statusCode: 400, error: 'BAD_REQUEST', path: '/v1/orders' });
      expect(envelope.details.map((d) => d.field)).toContain(field);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
    }
    const xof = await newWorkspace(t.app);
    expect((await operator(t.app, 'PUT', `/operator/v1/workspaces/${xof.workspaceId}/currencies/XOF`, { enabled: true })).statusCode).toBe(200);
    const scale = await xof.request('POST', '/v1/orders', { fromCurrency: 'EUR', toCurrency: 'XOF', toAmount: '1000.5' });
    expect(scale.statusCode).toBe(400);
    expect(scale.json().details[0]).toMatchObject({ field: 'toAmount', message: 'toAmount must be a whole number for XOF' });
    const usdc = await xof.request('POST', '/v1/orders', { fromCurrency: 'USDC', toCurrency: 'EUR', fromAmount: '1.123456' });
    expect(usdc.statusCode, usdc.body).toBe(201);
    expect(usdc.json().fromAmount).toBe('1.123456');
  });

  it('serves an amount above every corridor cap (no corridor maximum), but a workspace per-transaction limit applies (400 LIMIT_EXCEEDED)', async () => {
    const big = await newWorkspace(t.app);
    const order = await placeOrder(big, { fromAmount: '25000000.00' });
    expect(order).toMatchObject({ status: 'awaiting_funds', fromAmount: '25000000.00' });
    expect((await operator(t.app, 'PUT', `/operator/v1/workspaces/${big.workspaceId}/settings`, { payoutLimits: { EUR: { perTransaction: '1000000.00' } } })).statusCode).toBe(200);
    const refused = await big.request('POST', '/v1/orders', { fromCurrency: 'EUR', toCurrency: 'USD', fromAmount: '1000000.01' });
    expect(refused.statusCode).toBe(400);
    expect(refused.json()).toMatchObject({ message: 'LIMIT_EXCEEDED', code: 'LIMIT_EXCEEDED' });
    expect((await big.request('POST', '/v1/orders', { fromCurrency: 'EUR', toCurrency: 'USD', fromAmount: '1000000.00' })).statusCode).toBe(201);
  });
});

describe('funding', () => {
  it('holds a balance-funded order in the create transaction: funds_received, order.created + order.funds_received, the hold pending', async () => {
    const w = await newWorkspace(t.app);
    await fund(w, 'EUR', '300.00');
    const order = await placeOrder(w, { fromAmount: '120.00' });
    expect(order).toMatchObject({ status: 'funds_received', funding: 'balance', settlement: null });
    expect(await balance(w, 'EUR')).toMatchObject({ balance: '180.00', pendingOut: '120.00', totalBalance: '300.00' });
    const events = await eventsOf(t, order.id);
    expect(events.map((e) => e.type)).toEqual(['order.created', 'order.funds_received']);
    for (const e of events) expect(Object.keys(e.data).sort()).toEqual(ORDER_EVENT_FIELDS);
    expect(events[0]!.data).toMatchObject({ id: order.id, status: 'funds_received', settlement: null, fromAmount: '120.00' });
    expect(await transfersOf(t, order.id)).toEqual([{ currency: 'EUR', amount_minor: '12000', status: 'pending' }]);
  });

  it('funds from settlement when the balance does not cover: awaiting_funds, the settlement object, order.created + order.awaiting_funds, nothing held', async () => {
    const w = await newWorkspace(t.app);
    await fund(w, 'EUR', '50.00');
    const order = await placeOrder(w, { fromAmount: '120.00', clientRef: ref() });
    expect(order).toMatchObject({ status: 'awaiting_funds', funding: 'settlement', fundedAt: null, executionDeadlineAt: null });
    expect(order.settlement).toMatchObject({
      method: 'bank_transfer',
      requiredAmount: '120.00',
      currency: 'EUR',
      status: 'pending',
      expiresAt: order.fundingDeadlineAt,
      requirements: { proofOfPayment: true },
    });
    expect(order.settlement!.reference).toMatch(/^ORD-[0-9A-F]{10}$/);
    expect(order.settlement!.instructions).toMatchObject({ iban: expect.any(String), bic: expect.any(String), accountHolderName: expect.any(String) });
    expect(Object.keys(order.settlement!).sort()).toEqual(['currency', 'expiresAt', 'instructions', 'method', 'reference', 'requiredAmount', 'requirements', 'settlementId', 'status']);
    const events = await eventsOf(t, order.id);
    expect(events.map((e) => e.type)).toEqual(['order.created', 'order.awaiting_funds']);
    expect(events[1]!.data.settlement).toEqual(order.settlement);
    expect(await balance(w, 'EUR')).toMatchObject({ balance: '50.00', pendingOut: '0.00' });
    expect(await transfersOf(t, order.id)).toEqual([]);
  });

  it('settles a crypto source to a deposit address with no proof of payment required', async () => {
    const w = await newWorkspace(t.app);
    const order = await placeOrder(w, { fromCurrency: 'USDC', toCurrency: 'EUR', fromAmount: '5000' });
    expect(order.settlement).toMatchObject({ method: 'crypto', currency: 'USDC', requiredAmount: '5000.000000', requirements: { proofOfPayment: false } });
    expect(order.settlement!.instructions).toMatchObject({ network: expect.any(String), address: expect.any(String) });
  });

  it('settles explicitly when asked even though the balance covers', async () => {
    const order = await placeOrder(c, { fromAmount: '10.00', funding: 'settlement' });
    expect(order).toMatchObject({ status: 'awaiting_funds', funding: 'settlement' });
  });

  it('refuses funding "balance" the balance cannot cover: 422 INSUFFICIENT_BALANCE, nothing created, never INSUFFICIENT_FUNDS', async () => {
    const w = await newWorkspace(t.app);
    await fund(w, 'EUR', '50.00');
    const clientRef = ref();
    const res = await w.request('POST', '/v1/orders', { clientRef, fromCurrency: 'EUR', toCurrency: 'USD', fromAmount: '50.01', funding: 'balance' });
    expect(res.statusCode).toBe(422);
    expect(res.json()).toMatchObject({ statusCode: 422, message: 'INSUFFICIENT_BALANCE', code: 'INSUFFICIENT_BALANCE' });
    expect(res.body).not.toContain('INSUFFICIENT_FUNDS');
    expect((await w.request('GET', `/v1/orders?clientRef=${clientRef}`)).json().data).toEqual([]);
    const [{ n }] = (await t.ctx.db.query<{ n: number }>('SELECT count(*)::int AS n FROM events WHERE workspace_id = $1', [w.workspaceId])) as [{ n: number }];
    expect(n).toBe(0);
    expect(await balance(w, 'EUR')).toMatchObject({ balance: '50.00', pendingOut: '0.00' });
    // A balance with no account in the currency at all is the same refusal.
    expect((await w.request('POST', '/v1/orders', { fromCurrency: 'GBP', toCurrency: 'USD', fromAmount: '1.00', funding: 'balance' })).statusCode).toBe(422);
    expect((await w.request('POST', '/v1/orders', { clientRef, fromCurrency: 'EUR', toCurrency: 'USD', fromAmount: '50.00', funding: 'balance' })).statusCode).toBe(201);
  });
});

describe('beneficiary delivery', () => {
  it('takes a saved beneficiary with an account in toCurrency; refuses one without, or another workspace\'s', async () => {
    const ben = await c.request('POST', '/v1/beneficiaries', US_BENEFICIARY);
    expect(ben.statusCode, ben.body).toBe(201);
    const beneficiaryId = ben.json<{ id: string }>().id;
    const order = await placeOrder(c, { fromAmount: '100.00', beneficiary: { id: beneficiaryId } });
    expect(order.beneficiaryId).toBe(beneficiaryId);
    const gbp = await c.request('POST', '/v1/orders', { fromCurrency: 'EUR', toCurrency: 'GBP', fromAmount: '100.00', beneficiary: { id: beneficiaryId } });
    expect(gbp.statusCode).toBe(400);
    expect(gbp.json().details[0]).toMatchObject({ field: 'beneficiary.id' });
    const other = await newWorkspace(t.app);
    const foreign = await other.request('POST', '/v1/orders', { fromCurrency: 'EUR', toCurrency: 'USD', fromAmount: '100.00', beneficiary: { id: beneficiaryId } });
    expect(foreign.statusCode).toBe(400);
  });
});

describe('reads, clientRef, Idempotency-Key, isolation', () => {
  it('lists newest first with status and clientRef filters and pages', async () => {
    const w = await newWorkspace(t.app);
    await fund(w, 'EUR', '100.00');
    const a = await placeOrder(w, { fromAmount: '10.00', clientRef: 'list-a' });
    const b = await placeOrder(w, { fromAmount: '1000.00', clientRef: 'list-b' });
    const cOrder = await placeOrder(w, { fromAmount: '20.00', clientRef: 'list-c' });
    const all = (await w.request('GET', '/v1/orders')).json<{ object: string; data: OrderView[]; hasMore: boolean; nextCursor: string | null }>();
    expect(all).toMatchObject({ object: 'order.list', hasMore: false, nextCursor: null });
    expect(all.data.map((o) => o.id)).toEqual([cOrder.id, b.id, a.id]);
    expect((await w.request('GET', '/v1/orders?status=awaiting_funds')).json<{ data: OrderView[] }>().data.map((o) => o.id)).toEqual([b.id]);
    expect((await w.request('GET', '/v1/orders?clientRef=list-a')).json<{ data: OrderView[] }>().data.map((o) => o.id)).toEqual([a.id]);
    const page = (await w.request('GET', '/v1/orders?limit=2')).json<{ data: OrderView[]; nextCursor: string }>();
    expect(page.data).toHaveLength(2);
    const next = (await w.request('GET', `/v1/orders?limit=2&cursor=${page.nextCursor}`)).json<{ data: OrderView[]; hasMore: boolean }>();
    expect(next.data.map((o) => o.id)).toEqual([a.id]);
    expect((await w.request('GET', '/v1/orders?status=done')).statusCode).toBe(400);
  });

  it('refuses a duplicate clientRef (400 DUPLICATE_CLIENT_REF) and replays a repeated Idempotency-Key', async () => {
    const clientRef = ref();
    await placeOrder(c, { fromAmount: '5.00', clientRef });
    const dup = await c.request('POST', '/v1/orders', { fromCurrency: 'EUR', toCurrency: 'USD', fromAmount: '5.00', clientRef });
    expect(dup.statusCode).toBe(400);
    expect(dup.json()).toMatchObject({ code: 'DUPLICATE_CLIENT_REF', message: 'Order with this client reference already exists' });

    const body = { fromCurrency: 'EUR', toCurrency: 'USD', fromAmount: '7.00', clientRef: ref() };
    const first = await c.request('POST', '/v1/orders', body, { 'idempotency-key': 'order-key-1' });
    const again = await c.request('POST', '/v1/orders', body, { 'idempotency-key': 'order-key-1' });
    expect(first.statusCode).toBe(201);
    expect(again.statusCode).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.json()).toEqual(first.json());
    expect((await c.request('GET', `/v1/orders?clientRef=${body.clientRef}`)).json().data).toHaveLength(1);
    const reused = await c.request('POST', '/v1/orders', { ...body, fromAmount: '8.00' }, { 'idempotency-key': 'order-key-1' });
    expect(reused.statusCode).toBe(422);
    expect(reused.json().code).toBe('IDEMPOTENCY_KEY_REUSED');
  });

  it('answers 404 for another workspace\'s order on read, cancel, uploads and sandbox moves', async () => {
    const order = await placeOrder(c, { fromAmount: '3.00', funding: 'settlement' });
    const other = await newWorkspace(t.app);
    const calls: [string, string, unknown][] = [
      ['GET', `/v1/orders/${order.id}`, undefined],
      ['POST', `/v1/orders/${order.id}/cancel`, undefined],
      ['POST', `/v1/orders/${order.id}/settlement/proof-upload-url`, { contentType: 'application/pdf', contentLength: 100 }],
      ['POST', `/v1/orders/${order.id}/settlement/proof`, { proofKey: 'upl_aaaaaaaaaaaaaaaaaaaaaaaa' }],
      ['POST', `/v1/sandbox/orders/${order.id}/confirm-funds`, undefined],
      ['POST', `/v1/sandbox/orders/${order.id}/expire`, undefined],
    ];
    for (const [method, url, body] of calls) {
      const res = await other.request(method as 'GET' | 'POST', url, body);
      expect(res.statusCode, url).toBe(404);
      expect(res.json()).toMatchObject({ statusCode: 404, code: 'NOT_FOUND' });
    }
    expect((await other.request('GET', '/v1/orders')).json().data).toEqual([]);
    expect((await c.request('GET', `/v1/orders/${order.id}`)).json().status).toBe('awaiting_funds');
  });

  it('applies the read:orders / write:orders scopes and the orders capability', async () => {
    const reader = await newWorkspace(t.app, { scopes: ['read:orders'] });
    expect((await reader.request('GET', '/v1/orders')).statusCode).toBe(200);
    const denied = await reader.request('POST', '/v1/orders', { fromCurrency: 'EUR', toCurrency: 'USD', fromAmount: '1.00' });
    expect(denied.statusCode).toBe(403);
    expect(denied.json()).toMatchObject({ code: 'METHOD_NOT_ENTITLED' });
    const none = await newWorkspace(t.app, { scopes: ['read:payouts'] });
    expect((await none.request('GET', '/v1/orders')).json()).toMatchObject({ code: 'METHOD_NOT_ENTITLED' });
    const off = await newWorkspace(t.app);
    expect((await operator(t.app, 'PUT', `/operator/v1/workspaces/${off.workspaceId}/capabilities/orders`, { enabled: false })).statusCode).toBe(200);
    const disabled = await off.request('POST', '/v1/orders', { fromCurrency: 'EUR', toCurrency: 'USD', fromAmount: '1.00' });
    expect(disabled.statusCode).toBe(403);
    expect(disabled.json()).toMatchObject({ code: 'CAPABILITY_DISABLED', message: 'CAPABILITY_DISABLED' });
  });

  it('acts on a sub-account with Service-Account-Id: its balance, its list; the master roll-up shows it with accountId', async () => {
    const w = await newWorkspace(t.app);
    const sub = await w.request('POST', '/v1/accounts', { name: 'Desk sub', country: 'GB' });
    expect(sub.statusCode, sub.body).toBe(201);
    const subId = sub.json<{ id: string }>().id;
    const as = { 'service-account-id': subId };
    await fund(w, 'EUR', '200.00', as);
    const order = await placeOrder(w, { fromAmount: '150.00' }, as);
    expect(order).toMatchObject({ status: 'funds_received', accountId: subId });
    expect(await balance(w, 'EUR', as)).toMatchObject({ balance: '50.00', pendingOut: '150.00' });
    expect(await balance(w, 'EUR')).toBeUndefined();
    const [created] = await eventsOf(t, order.id);
    expect(created!.account_id).toBe(subId);
    expect((await w.request('GET', '/v1/orders', undefined, as)).json().data.map((o: OrderView) => o.id)).toEqual([order.id]);
    expect((await w.request('GET', '/v1/orders')).json().data.map((o: OrderView) => o.accountId)).toEqual([subId]);
    const stranger = await newWorkspace(t.app);
    expect((await stranger.request('GET', '/v1/orders', undefined, as)).json()).toMatchObject({ statusCode: 403, code: 'not_account_owner' });
  });
});

describe('settlement funding availability (ORDER_SETTLEMENT_INSTRUCTIONS)', () => {
  let configured: TestApp;
  const eur = { accountHolderName: 'Desk Ltd', iban: 'GB33BUKB20201555555555', bic: 'BUKBGB22' };
  beforeAll(async () => {
    configured = await createTestApp({ env: { ORDER_SETTLEMENT_INSTRUCTIONS: JSON.stringify({ EUR: eur }) } });
  });
  afterAll(async () => configured.close());

  it('settles with the configured details; a currency without them cannot settle: 422 INSUFFICIENT_BALANCE or SETTLEMENT_UNAVAILABLE', async () => {
    const w = await newWorkspace(configured.app);
    const order = await placeOrder(w, { fromAmount: '100.00' });
    expect(order.settlement).toMatchObject({ method: 'bank_transfer', instructions: eur });
    const uncovered = await w.request('POST', '/v1/orders', { fromCurrency: 'GBP', toCurrency: 'USD', fromAmount: '100.00' });
    expect(uncovered.statusCode).toBe(422);
    expect(uncovered.json()).toMatchObject({ code: 'INSUFFICIENT_BALANCE' });
    const asked = await w.request('POST', '/v1/orders', { fromCurrency: 'GBP', toCurrency: 'USD', fromAmount: '100.00', funding: 'settlement' });
    expect(asked.statusCode).toBe(422);
    expect(asked.json()).toMatchObject({ code: 'SETTLEMENT_UNAVAILABLE' });
    await fund(w, 'GBP', '100.00');
    expect((await placeOrder(w, { fromCurrency: 'GBP', fromAmount: '100.00' })).status).toBe('funds_received');
    expect((await w.request('GET', '/v1/orders')).json().data).toHaveLength(2);
  });

  it('refuses a malformed setting at start', async () => {
    const { loadConfig } = await import('../../src/platform/config.js');
    expect(() => loadConfig({ ORDER_SETTLEMENT_INSTRUCTIONS: '{"EUR": "DE89"}' })).toThrow(/ORDER_SETTLEMENT_INSTRUCTIONS/);
    expect(() => loadConfig({ ORDER_SETTLEMENT_INSTRUCTIONS: 'nope' })).toThrow(/ORDER_SETTLEMENT_INSTRUCTIONS/);
  });
});

describe.skipIf(!onPostgres)('orders in production (PostgreSQL)', () => {
  let prod: TestApp;
  beforeAll(async () => {
    prod = await createTestApp({ env: { CORRIDOR_ENV: 'production' } });
  });
  afterAll(async () => prod?.close());

  it('has no settlement funding without configured details, and no sandbox moves', async () => {
    const w = await newWorkspace(prod.app);
    const res = await w.request('POST', '/v1/orders', { fromCurrency: 'EUR', toCurrency: 'USD', fromAmount: '100.00' });
    expect(res.statusCode).toBe(422);
    expect(res.json()).toMatchObject({ code: 'INSUFFICIENT_BALANCE' });
    expect((await operator(prod.app, 'POST', `/operator/v1/workspaces/${w.workspaceId}/balances/adjust`, { currency: 'EUR', amount: '100.00', reason: 'prefunding' })).statusCode).toBe(201);
    const order = await placeOrder(w, { fromAmount: '100.00' });
    expect(order.status).toBe('funds_received');
    expect((await w.request('POST', `/v1/sandbox/orders/${order.id}/complete`)).statusCode).toBe(404);
    expect((await operator(prod.app, 'POST', `/operator/v1/orders/${order.id}/complete`)).json()).toMatchObject({ status: 'completed' });
  });
});
