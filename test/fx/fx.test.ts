import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consumeQuote } from '../../src/domains/fx/fx.service.js';
import { createTestApp, newWorkspace, operator, type Caller, type TestApp } from '../helpers/app.js';

let t: TestApp;
let caller: Caller;

beforeAll(async () => {
  t = await createTestApp();
  caller = await newWorkspace(t.app);
});
afterAll(async () => t.close());

interface Quote {
  id: string;
  fromCurrency: string;
  toCurrency: string;
  fromAmount: string;
  toAmount: string;
  rate: string;
  inverseRate: string;
  midRate: string;
  spreadBps: number;
  fee: string;
  intent: 'payout' | 'conversion';
  status: 'open' | 'used' | 'expired';
  expiresAt: string;
  createdAt: string;
}

interface Problem {
  type: string;
  status: number;
  code: string;
  errors?: { field: string; message: string; code?: string }[];
}

async function quote(c: Caller, body: Record<string, unknown>, headers: Record<string, string> = {}): Promise<Quote> {
  const res = await c.request('POST', '/v1/fx/quotes', body, headers);
  expect(res.statusCode, res.body).toBe(201);
  return res.json<Quote>();
}

async function fund(c: Caller, currency: string, amount: string, headers: Record<string, string> = {}): Promise<void> {
  const res = await c.request('POST', '/v1/sandbox/balances/fund', { currency, amount }, headers);
  expect(res.statusCode, res.body).toBe(201);
}

/** Each currency's available balance, as the client reads it. */
async function balances(c: Caller, headers: Record<string, string> = {}): Promise<Record<string, string>> {
  const res = await c.request('GET', '/v1/ledger/balances', undefined, headers);
  expect(res.statusCode).toBe(200);
  const body = res.json<{ balances: { currency: string; balance: string }[] }>();
  return Object.fromEntries(body.balances.map((b) => [b.currency, b.balance]));
}

/** A decimal string as an exact fraction, to check amounts against the rate without floating point. */
function fraction(decimal: string): { n: bigint; d: bigint } {
  const [units = '0', digits = ''] = decimal.split('.');
  return { n: BigInt(units + digits), d: 10n ** BigInt(digits.length) };
}

function expectProblem(res: { statusCode: number; headers: Record<string, unknown>; json: () => unknown }, status: number, code: string): Problem {
  expect(res.statusCode).toBe(status);
  expect(String(res.headers['content-type'])).toMatch(/^application\/problem\+json/);
  const body = res.json() as Problem;
  expect(body.code).toBe(code);
  return body;
}

describe('GET /v1/fx/rates', () => {
  it('lists every priced pair with the all-in rate, the mid rate and the spread', async () => {
    const res = await caller.request('GET', '/v1/fx/rates');
    expect(res.statusCode).toBe(200);
    const body = res.json<{ object: string; data: { from: string; to: string; rate: string; midRate: string; spreadBps: number }[] }>();
    expect(body.object).toBe('fx_rate.list');
    expect(body.data).toHaveLength(13 * 12);
    expect(body.data.every((r) => r.from !== r.to && r.spreadBps === 50)).toBe(true);
  });

  it('answers one pair: rate is `to` per 1 `from`, the mid rate less 50 bps', async () => {
    const res = await caller.request('GET', '/v1/fx/rates?from=USD&to=EUR');
    expect(res.statusCode).toBe(200);
    const [pair, ...rest] = res.json<{ data: unknown[] }>().data;
    expect(rest).toEqual([]);
    expect(pair).toMatchObject({ from: 'USD', to: 'EUR', midRate: '0.92', rate: '0.9154', inverseRate: '1.092418614813', spreadBps: 50 });
    const inverse = await caller.request('GET', '/v1/fx/rates?from=EUR&to=GBP');
    expect(inverse.json<{ data: unknown[] }>().data[0]).toMatchObject({ midRate: '0.8547008547', rate: '0.850427350427' });
  });

  it('filters by one side', async () => {
    const res = await caller.request('GET', '/v1/fx/rates?from=GBP');
    const data = res.json<{ data: { from: string; to: string }[] }>().data;
    expect(data).toHaveLength(12);
    expect(data.every((r) => r.from === 'GBP')).toBe(true);
  });

  it('refuses an unknown currency with a problem naming the field', async () => {
    const res = await caller.request('GET', '/v1/fx/rates?from=ABC');
    const body = expectProblem(res, 400, 'VALIDATION_ERROR');
    expect(body.errors?.[0]).toMatchObject({ field: 'from', code: 'UNSUPPORTED_CURRENCY' });
  });

  it('serves the deprecated /fx/rates alias with Deprecation and Link headers', async () => {
    const res = await caller.request('GET', '/fx/rates?from=USD&to=EUR');
    expect(res.statusCode).toBe(200);
    expect(res.headers.deprecation).toBe('true');
    expect(res.headers.link).toBe('</v1/fx/rates?from=USD&to=EUR>; rel="successor-version"');
    expect(res.json()).toMatchObject({ data: [{ from: 'USD', to: 'EUR', rate: '0.9154' }] });
  });
});

describe('POST /v1/fx/quotes', () => {
  it('quotes a fromAmount: toAmount is fromAmount × rate rounded toward zero, open until expiresAt', async () => {
    const before = Date.now();
    const q = await quote(caller, { fromCurrency: 'USD', toCurrency: 'EUR', fromAmount: '100', intent: 'conversion' });
    expect(q).toMatchObject({
      fromCurrency: 'USD',
      toCurrency: 'EUR',
      fromAmount: '100.00',
      toAmount: '91.54',
      rate: '0.9154',
      midRate: '0.92',
      spreadBps: 50,
      fee: '0.00',
      intent: 'conversion',
      status: 'open',
    });
    const lifetimeMs = new Date(q.expiresAt).getTime() - new Date(q.createdAt).getTime();
    expect(lifetimeMs).toBe(30_000);
    expect(new Date(q.createdAt).getTime()).toBeGreaterThanOrEqual(before - 5_000);

    const truncated = await quote(caller, { fromCurrency: 'EUR', toCurrency: 'USD', fromAmount: '10.01', intent: 'conversion' });
    // 10.01 × 1.08152173913 = 10.8260326086913 → 10.82
    expect(truncated).toMatchObject({ rate: '1.08152173913', toAmount: '10.82' });
  });

  it('quotes a toAmount: delivers exactly toAmount for the least fromAmount that covers it', async () => {
    const q = await quote(caller, { fromCurrency: 'USD', toCurrency: 'EUR', toAmount: '50', intent: 'payout' });
    // 50 / 0.9154 = 54.6209...: 54.63 USD covers it (50.008302), 54.62 does not (49.999148)
    expect(q).toMatchObject({ fromAmount: '54.63', toAmount: '50.00', rate: '0.9154', intent: 'payout' });

    // GBP pennies are coarser than NGN kobo: the least covering fromAmount converts to more than asked.
    const coarse = await quote(caller, { fromCurrency: 'GBP', toCurrency: 'NGN', toAmount: '1000', intent: 'conversion' });
    expect(coarse).toMatchObject({ fromAmount: '0.50', toAmount: '1000.00' });
    const rate = fraction(coarse.rate);
    const toMinor = 100_000n;
    const deliveredBy = (fromMinor: bigint) => (fromMinor * rate.n * 100n) / (rate.d * 100n);
    expect(deliveredBy(50n)).toBeGreaterThanOrEqual(toMinor);
    expect(deliveredBy(49n)).toBeLessThan(toMinor);
  });

  it('refuses both amounts or neither', async () => {
    const both = await caller.request('POST', '/v1/fx/quotes', { fromCurrency: 'USD', toCurrency: 'EUR', fromAmount: '1', toAmount: '1', intent: 'conversion' });
    expect(expectProblem(both, 400, 'VALIDATION_ERROR').errors?.[0]?.field).toBe('toAmount');
    const neither = await caller.request('POST', '/v1/fx/quotes', { fromCurrency: 'USD', toCurrency: 'EUR', intent: 'conversion' });
    expect(expectProblem(neither, 400, 'VALIDATION_ERROR').errors?.map((e) => e.field)).toEqual(['fromAmount', 'toAmount']);
  });

  it('refuses unknown, disabled and identical currencies, and amounts the currency cannot carry', async () => {
    const cases: [Record<string, unknown>, string, string | undefined][] = [
      [{ fromCurrency: 'ABC', toCurrency: 'EUR', fromAmount: '1' }, 'fromCurrency', 'UNSUPPORTED_CURRENCY'],
      [{ fromCurrency: 'EUR', toCurrency: 'XOF', fromAmount: '1' }, 'toCurrency', 'CURRENCY_NOT_ENABLED'],
      [{ fromCurrency: 'EUR', toCurrency: 'EUR', fromAmount: '1' }, 'toCurrency', 'SAME_CURRENCY'],
      [{ fromCurrency: 'EUR', toCurrency: 'USD', fromAmount: '1.001' }, 'fromAmount', undefined],
      [{ fromCurrency: 'EUR', toCurrency: 'USD', fromAmount: 5 }, 'fromAmount', undefined],
      [{ fromCurrency: 'NGN', toCurrency: 'GBP', fromAmount: '0.01' }, 'fromAmount', undefined],
    ];
    for (const [body, field, code] of cases) {
      const res = await caller.request('POST', '/v1/fx/quotes', { ...body, intent: 'conversion' });
      const problem = expectProblem(res, 400, 'VALIDATION_ERROR');
      expect(problem.errors?.[0], JSON.stringify(body)).toMatchObject({ field, ...(code ? { code } : {}) });
    }
    const badIntent = await caller.request('POST', '/v1/fx/quotes', { fromCurrency: 'EUR', toCurrency: 'USD', fromAmount: '1', intent: 'order' });
    expect(expectProblem(badIntent, 400, 'VALIDATION_ERROR').errors?.[0]?.field).toBe('intent');
  });

  it('quotes a currency once the operator enables it', async () => {
    const c = await newWorkspace(t.app);
    const on = await operator(t.app, 'PUT', `/operator/v1/workspaces/${c.workspaceId}/currencies/XOF`, { enabled: true });
    expect(on.statusCode).toBe(200);
    const q = await quote(c, { fromCurrency: 'EUR', toCurrency: 'XOF', fromAmount: '10', intent: 'conversion' });
    expect(q).toMatchObject({ toAmount: '6526', fromAmount: '10.00' });
  });

  it('needs the write:fx scope and the fx capability', async () => {
    const reader = await newWorkspace(t.app, { scopes: ['read:fx'] });
    expect((await reader.request('GET', '/v1/fx/rates')).statusCode).toBe(200);
    const denied = await reader.request('POST', '/v1/fx/quotes', { fromCurrency: 'USD', toCurrency: 'EUR', fromAmount: '1', intent: 'conversion' });
    expectProblem(denied, 403, 'METHOD_NOT_ENTITLED');

    const c = await newWorkspace(t.app);
    const off = await operator(t.app, 'PUT', `/operator/v1/workspaces/${c.workspaceId}/capabilities/fx`, { enabled: false });
    expect(off.statusCode).toBe(200);
    expectProblem(await c.request('GET', '/v1/fx/rates'), 403, 'CAPABILITY_DISABLED');
  });

  it('answers at the /fx/quotes alias too', async () => {
    const res = await caller.request('POST', '/fx/quotes', { fromCurrency: 'USD', toCurrency: 'EUR', fromAmount: '1', intent: 'conversion' });
    expect(res.statusCode).toBe(201);
    expect(res.headers.deprecation).toBe('true');
    const read = await caller.request('GET', `/v1/fx/quotes/${res.json<Quote>().id}`);
    expect(read.json()).toMatchObject({ toAmount: '0.91', status: 'open' });
  });
});

describe('POST /v1/fx/conversions', () => {
  it('moves fromAmount out of one balance and toAmount into the other, once', async () => {
    const c = await newWorkspace(t.app);
    await fund(c, 'USD', '200');
    await fund(c, 'EUR', '1');
    const q = await quote(c, { fromCurrency: 'USD', toCurrency: 'EUR', fromAmount: '100', intent: 'conversion' });
    const res = await c.request('POST', '/v1/fx/conversions', { quoteId: q.id, clientRef: 'conv-1' });
    expect(res.statusCode, res.body).toBe(201);
    const conversion = res.json<{ id: string }>();
    expect(conversion).toMatchObject({
      quoteId: q.id,
      clientRef: 'conv-1',
      fromCurrency: 'USD',
      toCurrency: 'EUR',
      fromAmount: '100.00',
      toAmount: '91.54',
      rate: '0.9154',
      status: 'completed',
    });
    expect(await balances(c)).toEqual({ USD: '100.00', EUR: '92.54' });

    const read = await c.request('GET', `/v1/fx/conversions/${conversion.id}`);
    expect(read.statusCode).toBe(200);
    expect(read.json()).toEqual(res.json());
    expect((await c.request('GET', `/v1/fx/quotes/${q.id}`)).json()).toMatchObject({ status: 'used' });

    const feed = await c.request('GET', '/v1/ledger/transactions?limit=2');
    const moves = feed.json<{ data: { objectType: string; objectId: string; currency: string; direction: string; amount: string }[] }>().data;
    expect(moves.map((m) => [m.objectType, m.objectId, m.currency, m.direction, m.amount]).sort()).toEqual([
      ['conversion', conversion.id, 'EUR', 'credit', '91.54'],
      ['conversion', conversion.id, 'USD', 'debit', '100.00'],
    ]);

    const again = await c.request('POST', '/v1/fx/conversions', { quoteId: q.id });
    expectProblem(again, 400, 'QUOTE_ALREADY_USED');
    expect(await balances(c)).toEqual({ USD: '100.00', EUR: '92.54' });
  });

  it('converts a toAmount quote into exactly toAmount', async () => {
    const c = await newWorkspace(t.app);
    await fund(c, 'GBP', '1');
    const q = await quote(c, { fromCurrency: 'GBP', toCurrency: 'NGN', toAmount: '1000', intent: 'conversion' });
    expect((await c.request('POST', '/v1/fx/conversions', { quoteId: q.id })).statusCode).toBe(201);
    expect(await balances(c)).toEqual({ GBP: '0.50', NGN: '1000.00' });
  });

  it('refuses a payout quote with QUOTE_INTENT_MISMATCH and leaves it open', async () => {
    const c = await newWorkspace(t.app);
    await fund(c, 'USD', '10');
    const q = await quote(c, { fromCurrency: 'USD', toCurrency: 'EUR', fromAmount: '10', intent: 'payout' });
    expectProblem(await c.request('POST', '/v1/fx/conversions', { quoteId: q.id }), 400, 'QUOTE_INTENT_MISMATCH');
    expect((await c.request('GET', `/v1/fx/quotes/${q.id}`)).json()).toMatchObject({ status: 'open' });
    expect(await balances(c)).toEqual({ USD: '10.00' });
  });

  it('refuses a balance that cannot cover fromAmount with INSUFFICIENT_BALANCE, writes nothing, and keeps the quote usable', async () => {
    const c = await newWorkspace(t.app);
    await fund(c, 'EUR', '10');
    const q = await quote(c, { fromCurrency: 'EUR', toCurrency: 'USD', fromAmount: '20', intent: 'conversion' });
    const transfers = await t.ctx.db.query('SELECT count(*)::int AS n FROM ledger_transfers');
    const refused = await c.request('POST', '/v1/fx/conversions', { quoteId: q.id, clientRef: 'short' });
    expectProblem(refused, 400, 'INSUFFICIENT_BALANCE');
    expect(await t.ctx.db.query('SELECT count(*)::int AS n FROM ledger_transfers')).toEqual(transfers);
    expect(await balances(c)).toEqual({ EUR: '10.00' });
    expect((await c.request('GET', `/v1/fx/quotes/${q.id}`)).json()).toMatchObject({ status: 'open' });

    await fund(c, 'EUR', '10');
    const done = await c.request('POST', '/v1/fx/conversions', { quoteId: q.id, clientRef: 'short' });
    expect(done.statusCode, done.body).toBe(201);
    expect(await balances(c)).toEqual({ EUR: '0.00', USD: '21.63' });
  });

  it("answers 404 for another workspace's quote and conversion, and for another account's", async () => {
    const owner = await newWorkspace(t.app);
    const stranger = await newWorkspace(t.app);
    await fund(owner, 'USD', '10');
    await fund(stranger, 'USD', '10');
    const q = await quote(owner, { fromCurrency: 'USD', toCurrency: 'EUR', fromAmount: '1', intent: 'conversion' });
    expectProblem(await stranger.request('POST', '/v1/fx/conversions', { quoteId: q.id }), 404, 'NOT_FOUND');
    expectProblem(await stranger.request('GET', `/v1/fx/quotes/${q.id}`), 404, 'NOT_FOUND');
    expectProblem(await stranger.request('POST', '/v1/fx/conversions', { quoteId: '00000000-0000-4000-8000-000000000000' }), 404, 'NOT_FOUND');

    const sub = await owner.request('POST', '/v1/accounts', { name: 'Sub one', country: 'DE' });
    const asSub = { 'service-account-id': sub.json<{ id: string }>().id };
    expectProblem(await owner.request('POST', '/v1/fx/conversions', { quoteId: q.id }, asSub), 404, 'NOT_FOUND');

    const conversion = await owner.request('POST', '/v1/fx/conversions', { quoteId: q.id });
    expect(conversion.statusCode).toBe(201);
    const id = conversion.json<{ id: string }>().id;
    expectProblem(await stranger.request('GET', `/v1/fx/conversions/${id}`), 404, 'NOT_FOUND');
    expect(await balances(stranger)).toEqual({ USD: '10.00' });
  });

  it('converts the balances of the Service-Account-Id sub-account', async () => {
    const c = await newWorkspace(t.app);
    const sub = await c.request('POST', '/v1/accounts', { name: 'Sub two', country: 'DE' });
    const asSub = { 'service-account-id': sub.json<{ id: string }>().id };
    await fund(c, 'EUR', '5', asSub);
    const q = await quote(c, { fromCurrency: 'EUR', toCurrency: 'GBP', fromAmount: '5', intent: 'conversion' }, asSub);
    expect((await c.request('POST', '/v1/fx/conversions', { quoteId: q.id }, asSub)).statusCode).toBe(201);
    expect(await balances(c, asSub)).toEqual({ EUR: '0.00', GBP: '4.25' });
    expect(await balances(c)).toEqual({});
  });

  it('refuses a second conversion with the same clientRef', async () => {
    const c = await newWorkspace(t.app);
    await fund(c, 'USD', '10');
    const first = await quote(c, { fromCurrency: 'USD', toCurrency: 'EUR', fromAmount: '1', intent: 'conversion' });
    const second = await quote(c, { fromCurrency: 'USD', toCurrency: 'EUR', fromAmount: '1', intent: 'conversion' });
    expect((await c.request('POST', '/v1/fx/conversions', { quoteId: first.id, clientRef: 'dup' })).statusCode).toBe(201);
    expectProblem(await c.request('POST', '/v1/fx/conversions', { quoteId: second.id, clientRef: 'dup' }), 409, 'DUPLICATE_CLIENT_REF');
    expect((await c.request('GET', `/v1/fx/quotes/${second.id}`)).json()).toMatchObject({ status: 'open' });
  });

  it('lets only one of several simultaneous conversions consume a quote', async () => {
    const c = await newWorkspace(t.app);
    await fund(c, 'USD', '100');
    const q = await quote(c, { fromCurrency: 'USD', toCurrency: 'EUR', fromAmount: '10', intent: 'conversion' });
    const results = await Promise.all(Array.from({ length: 5 }, () => c.request('POST', '/v1/fx/conversions', { quoteId: q.id })));
    expect(results.map((r) => r.statusCode).sort()).toEqual([201, 400, 400, 400, 400]);
    for (const r of results.filter((r) => r.statusCode === 400)) expect(r.json<Problem>().code).toBe('QUOTE_ALREADY_USED');
    expect(await balances(c)).toEqual({ USD: '90.00', EUR: '9.15' });
  });

  it('replays a repeated Idempotency-Key and converts once', async () => {
    const c = await newWorkspace(t.app);
    await fund(c, 'USD', '10');
    const q = await quote(c, { fromCurrency: 'USD', toCurrency: 'EUR', fromAmount: '10', intent: 'conversion' });
    const headers = { 'idempotency-key': 'conv-key-1' };
    const first = await c.request('POST', '/v1/fx/conversions', { quoteId: q.id }, headers);
    expect(first.statusCode).toBe(201);
    const replay = await c.request('POST', '/v1/fx/conversions', { quoteId: q.id }, headers);
    expect(replay.statusCode).toBe(201);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.json()).toEqual(first.json());
    const rows = await t.ctx.db.query<{ n: number }>('SELECT count(*)::int AS n FROM fx_conversions WHERE quote_id = $1', [q.id]);
    expect(rows[0]?.n).toBe(1);
    expect(await balances(c)).toEqual({ USD: '0.00', EUR: '9.15' });
  });

  it('answers at the /fx/conversions alias too', async () => {
    const c = await newWorkspace(t.app);
    await fund(c, 'USD', '1');
    const q = await quote(c, { fromCurrency: 'USD', toCurrency: 'EUR', fromAmount: '1', intent: 'conversion' });
    const res = await c.request('POST', '/fx/conversions', { quoteId: q.id });
    expect(res.statusCode).toBe(201);
    expect(res.headers.deprecation).toBe('true');
    const read = await c.request('GET', `/fx/conversions/${res.json<{ id: string }>().id}`);
    expect(read.statusCode).toBe(200);
    expect(read.headers.link).toMatch(/^<\/v1\/fx\/conversions\/[0-9a-f-]+>; rel="successor-version"$/);
  });
});

describe('quote expiry', () => {
  it('refuses a quote past expiresAt with QUOTE_EXPIRED and reads it as expired', async () => {
    const short = await createTestApp({ env: { FX_QUOTE_LIFETIME_MS: '300' } });
    try {
      const c = await newWorkspace(short.app);
      await fund(c, 'USD', '10');
      const q = await quote(c, { fromCurrency: 'USD', toCurrency: 'EUR', fromAmount: '1', intent: 'conversion' });
      expect(new Date(q.expiresAt).getTime() - new Date(q.createdAt).getTime()).toBe(300);
      await new Promise((resolve) => setTimeout(resolve, 400));
      expectProblem(await c.request('POST', '/v1/fx/conversions', { quoteId: q.id }), 400, 'QUOTE_EXPIRED');
      expect((await c.request('GET', `/v1/fx/quotes/${q.id}`)).json()).toMatchObject({ status: 'expired' });
      expect(await balances(c)).toEqual({ USD: '10.00' });
    } finally {
      await short.close();
    }
  });
});

describe('consumeQuote (the payouts module funds a payout from another currency with it)', () => {
  it('consumes a payout quote once and returns its amounts in minor units', async () => {
    const c = await newWorkspace(t.app);
    const q = await quote(c, { fromCurrency: 'USD', toCurrency: 'EUR', toAmount: '50', intent: 'payout' });
    const scope = { workspaceId: c.workspaceId, accountId: c.workspaceId, quoteId: q.id, intent: 'payout' as const };
    const consumed = await t.ctx.db.tx((tx) => consumeQuote(tx, scope));
    expect(consumed).toEqual({
      id: q.id,
      intent: 'payout',
      fromCurrency: 'USD',
      toCurrency: 'EUR',
      fromAmountMinor: 5463n,
      toAmountMinor: 5000n,
      feeMinor: 0n,
      rate: '0.9154',
    });
    await expect(t.ctx.db.tx((tx) => consumeQuote(tx, scope))).rejects.toMatchObject({ category: 'invalid_request', code: 'QUOTE_ALREADY_USED' });
    expect((await c.request('GET', `/v1/fx/quotes/${q.id}`)).json()).toMatchObject({ status: 'used' });
  });

  it('refuses a conversion quote, an unknown id, and leaves the quote open when the payout rolls back', async () => {
    const c = await newWorkspace(t.app);
    const conversionQuote = await quote(c, { fromCurrency: 'USD', toCurrency: 'EUR', fromAmount: '1', intent: 'conversion' });
    const base = { workspaceId: c.workspaceId, accountId: c.workspaceId, intent: 'payout' as const };
    await expect(t.ctx.db.tx((tx) => consumeQuote(tx, { ...base, quoteId: conversionQuote.id }))).rejects.toMatchObject({
      category: 'invalid_request',
      code: 'QUOTE_INTENT_MISMATCH',
    });
    await expect(t.ctx.db.tx((tx) => consumeQuote(tx, { ...base, quoteId: 'not-a-uuid' }))).rejects.toMatchObject({ category: 'not_found' });

    const payoutQuote = await quote(c, { fromCurrency: 'USD', toCurrency: 'EUR', fromAmount: '1', intent: 'payout' });
    await expect(
      t.ctx.db.tx(async (tx) => {
        await consumeQuote(tx, { ...base, quoteId: payoutQuote.id });
        throw new Error('payout refused later in the same transaction');
      }),
    ).rejects.toThrow(/payout refused/);
    expect((await c.request('GET', `/v1/fx/quotes/${payoutQuote.id}`)).json()).toMatchObject({ status: 'open' });
  });
});
