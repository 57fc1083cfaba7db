import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '../../../src/platform/http/errors.js';
import { createRunner } from '../../../src/jobs.js';
import type { JobRunner } from '../../../src/platform/jobs/runner.js';
import { recordEvent } from '../../../src/domains/events/events.service.js';
import { createTestApp, type Caller, type TestApp } from '../../../test/helpers/app.js';
import { HttpsReceiver } from '../../../test/helpers/https-receiver.js';
import { ADA, fund, payingWorkspace, ref } from '../../../test/payouts/helpers.js';
import { Corridor, CorridorError, type CorridorOptions, type PayoutRequest } from '../src/index.js';

let t: TestApp;
let runner: JobRunner;
let base: string;
let c: Caller;
/** How often each test route has been called, by key. */
const calls = new Map<string, number>();
const bump = (key: string): number => {
  const n = (calls.get(key) ?? 0) + 1;
  calls.set(key, n);
  return n;
};

beforeAll(async () => {
  t = await createTestApp({
    env: { JOB_POLL_MS: '20', SANDBOX_STEP_MS: '40', FX_QUOTE_LIFETIME_MS: '3000', EVENT_STREAM_POLL_MS: '50' },
    beforeReady: (app) => {
      // Test routes: a legacy 429 with Retry-After, a problem 503 retryable, each the first time per key.
      app.get<{ Querystring: { key: string } }>('/v1/test/limited', { config: { auth: 'workspace' } }, async (req, reply) =>
        bump(req.query.key) === 1
          ? reply.code(429).header('retry-after', '1').send({ statusCode: 429, message: 'Too Many Requests', error: 'TOO_MANY_REQUESTS' })
          : { ok: true },
      );
      app.get<{ Querystring: { key: string } }>('/v1/test/legacy-500', { config: { auth: 'workspace' } }, async (req, reply) => {
        bump(req.query.key);
        return reply.code(500).send({ statusCode: 500, message: 'Internal Server Error', error: 'INTERNAL_SERVER_ERROR' });
      });
      // Problem details (a /v1/webhooks path): a retryable 503 the first time per key.
      app.post<{ Querystring: { key: string } }>('/v1/webhooks/sdk-unavailable', { config: { auth: 'workspace' } }, async (req) => {
        if (bump(req.query.key) === 1) throw new AppError({ status: 503, code: 'PAYOUT_PROVIDER_UNAVAILABLE', retryable: true });
        return { ok: true, key: req.headers['idempotency-key'] };
      });
      // A killed connection after the answer is decided: the first keyed request's answer never arrives.
      app.addHook('onSend', async (req, reply, payload) => {
        const drop = req.headers['x-test-drop-answer'];
        if (typeof drop === 'string' && bump(`drop:${drop}`) === 1) reply.raw.socket?.destroy();
        return payload;
      });
    },
  });
  base = await t.app.listen({ port: 0, host: '127.0.0.1' });
  runner = createRunner(t.ctx);
  runner.start();
  c = await payingWorkspace(t);
  await fund(c, 'EUR', '100000');
  await fund(c, 'USD', '100000');
});
afterAll(async () => {
  await runner.stop();
  await t.close();
});

/** A client of the test workspace, counting its token requests and the requests it sends. */
function client(extra: Partial<CorridorOptions> = {}, caller: Caller = c) {
  const counts = { token: 0, requests: [] as { method: string; url: string; headers: Headers }[] };
  const corridor = new Corridor({
    baseUrl: base,
    clientId: caller.clientId,
    clientSecret: caller.clientSecret,
    audience: 'corridor-api',
    retryBaseDelayMs: 20,
    ...extra,
    fetch: async (input, init) => {
      const url = String(input);
      if (url.endsWith('/oauth/token')) counts.token++;
      counts.requests.push({ method: init?.method ?? 'GET', url, headers: new Headers(init?.headers) });
      return (extra.fetch ?? fetch)(input, init);
    },
  });
  return { corridor, counts };
}

describe('the SDK against a running Corridor: tokens', () => {
  it('requests one token for 100 calls, 50 of them concurrent', async () => {
    const { corridor, counts } = client();
    await Promise.all(Array.from({ length: 50 }, () => corridor.balances.get()));
    for (let i = 0; i < 50; i++) await corridor.payouts.list({ limit: 1 });
    expect(counts.token).toBe(1);
    expect(counts.requests.filter((r) => !r.url.endsWith('/oauth/token'))).toHaveLength(100);
  });

  it('withAccount sends Service-Account-Id and shares the token', async () => {
    const { corridor, counts } = client();
    const sub = await corridor.accounts.create({ name: 'Branch', country: 'GB' });
    const other = await recordOn(c.workspaceId, sub.id);
    const listed = await corridor.withAccount(sub.id).events.list();
    expect(listed.data.map((e) => e.id)).toContain(other);
    expect(new Set(listed.data.map((e) => e.accountId))).toEqual(new Set([sub.id]));
    expect(counts.requests.at(-1)?.headers.get('service-account-id')).toBe(sub.id);
    expect(counts.token).toBe(1);
  });

  it('renews the token shortly before it expires, once for concurrent calls', async () => {
    let tokens = 0;
    const fakeFetch: typeof fetch = async (input) => {
      if (String(input).endsWith('/oauth/token')) {
        tokens++;
        await new Promise((r) => setTimeout(r, 20));
        return Response.json({ access_token: `tok${tokens}`, token_type: 'Bearer', expires_in: 1 });
      }
      return Response.json({ data: [], hasMore: false, nextCursor: null });
    };
    const corridor = new Corridor({ baseUrl: 'http://sdk.invalid', clientId: 'a', clientSecret: 'b', tokenRenewBeforeMs: 400, fetch: fakeFetch });
    await Promise.all(Array.from({ length: 10 }, () => corridor.accessToken()));
    expect(tokens).toBe(1);
    await new Promise((r) => setTimeout(r, 650)); // past renewal (1 s lifetime, renewed 400 ms before)
    const renewed = await Promise.all(Array.from({ length: 10 }, () => corridor.accessToken()));
    expect(tokens).toBe(2);
    expect(new Set(renewed)).toEqual(new Set(['tok2']));
  });
});

async function recordOn(workspaceId: string, accountId?: string): Promise<string> {
  return t.ctx.db.tx((tx) => recordEvent(tx, { workspaceId, accountId, type: 'payout.paid', data: {} }));
}

function payoutBody(extra: Partial<PayoutRequest> = {}): PayoutRequest {
  return { clientRef: ref('sdk'), amount: '10.00', currency: 'EUR', beneficiary: ADA as PayoutRequest['beneficiary'], ...extra } as PayoutRequest;
}

describe('the SDK against a running Corridor: retries', () => {
  it('retries a POST whose answer was lost with the same Idempotency-Key, creating one payout', async () => {
    const { corridor, counts } = client();
    const body = payoutBody();
    const payout = await corridor.payouts.create(body, { headers: { 'x-test-drop-answer': body.clientRef } });
    const posts = counts.requests.filter((r) => r.method === 'POST' && r.url.endsWith('/v1/payouts'));
    expect(posts).toHaveLength(2);
    expect(posts[0]?.headers.get('idempotency-key')).toMatch(/^[0-9a-f-]{36}$/);
    expect(posts[1]?.headers.get('idempotency-key')).toBe(posts[0]?.headers.get('idempotency-key'));
    const found = await corridor.payouts.list({ clientRef: body.clientRef });
    expect(found.data.map((p) => p.id)).toEqual([(payout as { id: string }).id]);
  });

  it('gives each logical POST its own Idempotency-Key', async () => {
    const { corridor, counts } = client();
    await corridor.payouts.create(payoutBody());
    await corridor.payouts.create(payoutBody());
    const keys = counts.requests.filter((r) => r.method === 'POST' && r.url.endsWith('/v1/payouts')).map((r) => r.headers.get('idempotency-key'));
    expect(new Set(keys).size).toBe(2);
  });

  it('createBatch sends an array and answers each payout in order', async () => {
    const { corridor } = client();
    const bodies = [payoutBody(), payoutBody({ amount: '12.00' })];
    const answers = await corridor.payouts.createBatch(bodies);
    expect(answers).toHaveLength(2);
    expect(answers.map((a) => (a as { clientRef?: string }).clientRef)).toEqual(bodies.map((b) => b.clientRef));
  });

  it('retries a problem-details 503 that says retryable: true, with the same Idempotency-Key', async () => {
    const { corridor, counts } = client();
    const answer = await corridor.request<{ ok: boolean; key: string }>('post', '/v1/webhooks/sdk-unavailable', { query: { key: 'p503' }, body: {} });
    expect(calls.get('p503')).toBe(2);
    const keys = counts.requests.filter((r) => r.url.includes('sdk-unavailable')).map((r) => r.headers.get('idempotency-key'));
    expect(keys).toHaveLength(2);
    expect(keys[1]).toBe(keys[0]);
    expect(answer).toEqual({ ok: true, key: keys[0] });
  });

  it('honours Retry-After on a 429', async () => {
    const { corridor } = client();
    const started = Date.now();
    const answer = await corridor.request<{ ok: boolean }>('get', '/v1/test/limited', { query: { key: 'ra' } });
    expect(answer).toEqual({ ok: true });
    expect(calls.get('ra')).toBe(2);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
  });

  it('does not retry a 500 without problem details (only 429, 502, 503, 504), nor a refusal that is not retryable', async () => {
    const { corridor } = client();
    await expect(corridor.request('get', '/v1/test/legacy-500', { query: { key: 'l500' } })).rejects.toMatchObject({ status: 500, retryable: false });
    expect(calls.get('l500')).toBe(1);
    const { corridor: c2, counts } = client();
    await expect(c2.webhooks.get({ id: '00000000-0000-4000-8000-000000000000' })).rejects.toMatchObject({ status: 404, shape: 'problem', retryable: false });
    expect(counts.requests.filter((r) => r.url.includes('/v1/webhooks/'))).toHaveLength(1);
  });

  it('retries network errors a bounded number of times, then throws a CorridorError with status 0', async () => {
    const { corridor, counts } = client({ maxRetries: 2, baseUrl: 'http://127.0.0.1:9', tokenUrl: `${base}/oauth/token` });
    const err = await corridor.balances.get().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CorridorError);
    expect(err).toMatchObject({ status: 0, code: 'NETWORK_ERROR', retryable: true, shape: 'network' });
    expect(counts.requests.filter((r) => r.url.includes('/v1/ledger/balances'))).toHaveLength(3);
  });
});

describe('the SDK against a running Corridor: errors, lists, quotes, webhooks', () => {
  it('throws one typed error for each shape: legacy, validation, problem details, OAuth', async () => {
    const { corridor } = client();
    const body = payoutBody();
    await corridor.payouts.create(body);
    const legacy = await corridor.payouts.create({ ...body, amount: '11.00' }).catch((e: unknown) => e);
    expect(legacy).toBeInstanceOf(CorridorError);
    expect(legacy).toMatchObject({ status: 400, shape: 'legacy', message: 'Payout with this client reference already exists', retryable: false });
    expect((legacy as CorridorError).requestId).toMatch(/.+/);

    const validation = (await corridor.beneficiaries.create({ ...ADA, accounts: [{ type: 'iban', currency: 'EUR', data: { iban: 'DE00' } }] } as never).catch((e: unknown) => e)) as CorridorError;
    expect(validation).toMatchObject({ status: 400, shape: 'validation' });
    expect(validation.details.length).toBeGreaterThan(0);
    expect(validation.details[0]).toHaveProperty('field');

    const problem = (await corridor.fx.quotes.get({ id: '00000000-0000-4000-8000-000000000000' }).catch((e: unknown) => e)) as CorridorError;
    expect(problem).toMatchObject({ status: 404, shape: 'problem', code: 'NOT_FOUND', retryable: false });
    expect(problem.requestId).toMatch(/.+/);

    const { corridor: wrong } = client({ clientSecret: 'not-the-secret' });
    const oauth = (await wrong.balances.get().catch((e: unknown) => e)) as CorridorError;
    expect(oauth).toMatchObject({ status: 401, shape: 'oauth', code: 'access_denied' });
  });

  it('covers orders, virtual accounts, deposits and capabilities with the same typed groups', async () => {
    const { corridor } = client();
    const order = await corridor.orders.create({ clientRef: ref('sdk-order'), fromCurrency: 'USD', toCurrency: 'EUR', fromAmount: '100.00', funding: 'balance' });
    expect(order).toMatchObject({ status: 'funds_received', fromCurrency: 'USD', fromAmount: '100.00' });
    expect((await corridor.orders.get({ id: order.id })).id).toBe(order.id);
    const ids: string[] = [];
    for await (const o of corridor.orders.list({ limit: 1 })) ids.push(o.id);
    expect(ids).toContain(order.id);
    expect(await corridor.orders.cancel({ id: order.id }, undefined)).toMatchObject({ status: 'cancelled' });
    await corridor.sandbox.orders.confirmFunds({ id: order.id }, undefined).then(
      () => expect.unreachable('a cancelled order takes no desk move'),
      (err: unknown) => expect(err).toBeInstanceOf(CorridorError),
    );
    const capabilities = await corridor.capabilities.get();
    expect(capabilities.currencies.map((x) => x.code)).toContain('EUR');
    const requirements = await corridor.virtualAccounts.requirements({ currency: 'EUR' });
    expect(requirements).toMatchObject({ currency: 'EUR' });
    const refused = await corridor.virtualAccounts.create({ currency: 'EUR' }).catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(CorridorError);
    expect(refused).toMatchObject({ status: 409, code: 'KYB_INCOMPLETE' });
    const deposits = await corridor.deposits.list();
    expect(deposits.data).toEqual([]);
  });

  it('iterates over 250 events across cursor pages with for await', async () => {
    const w = await payingWorkspace(t);
    const { corridor: mine } = client({}, w);
    for (let i = 0; i < 250; i++) await recordOn(w.workspaceId);
    const ids: string[] = [];
    for await (const event of mine.events.list({ limit: 100 })) ids.push(event.id);
    expect(ids).toHaveLength(250);
    expect(new Set(ids).size).toBe(250);
    const first = await mine.events.list({ limit: 100 });
    expect(first.data).toHaveLength(100);
    expect(first.hasMore).toBe(true);
  });

  it('quoteAndPay requests a fresh quote when the first expires before the payout is sent', async () => {
    let delayed = false;
    const { corridor, counts } = client({
      fetch: async (input, init) => {
        // The first payout waits past the quote's lifetime (FX_QUOTE_LIFETIME_MS 3000).
        if (String(input).endsWith('/v1/payouts') && !delayed) {
          delayed = true;
          await new Promise((r) => setTimeout(r, 3200));
        }
        return fetch(input, init);
      },
    });
    const { quote, payout } = await corridor.quoteAndPay({
      quote: { fromCurrency: 'USD', toCurrency: 'EUR', toAmount: '25.00', intent: 'payout' },
      payout: { clientRef: ref('qp'), amount: '25.00', currency: 'EUR', beneficiary: ADA as PayoutRequest['beneficiary'] },
    });
    expect(counts.requests.filter((r) => r.url.endsWith('/v1/fx/quotes'))).toHaveLength(2);
    expect(payout).toMatchObject({ amount: '25.00', currency: 'EUR' });
    expect(quote.id).toBeDefined();
  });

  it('webhooks.verify accepts a real delivery and refuses a tampered body or an old timestamp', async () => {
    const receiver = await HttpsReceiver.start();
    try {
      const { corridor } = client();
      const endpoint = await corridor.webhooks.create({ url: receiver.url('/hook'), events: ['payout.paid'] });
      const secret = (endpoint as { secret: string }).secret;
      await corridor.webhooks.test({ id: endpoint.id });
      const [delivery] = await receiver.waitFor('/hook', 1);
      if (!delivery) throw new Error('no delivery');
      expect(await corridor.webhooks.verify(delivery.body, delivery.headers, secret)).toBe(true);
      // Any delivery (a payout.paid of an earlier test may come before the webhook.test): the type altered by one letter.
      const tampered = delivery.body.replace('"type":"', '"type":"x');
      expect(tampered).not.toBe(delivery.body);
      expect(await corridor.webhooks.verify(tampered, delivery.headers, secret)).toBe(false);
      expect(await corridor.webhooks.verify(delivery.body, delivery.headers, `${secret}x`)).toBe(false);
      const oldTimestamp = String(Math.floor(Date.now() / 1000) - 301);
      const old = { ...delivery.headers, 'x-service-timestamp': oldTimestamp, 'webhook-timestamp': oldTimestamp };
      expect(await corridor.webhooks.verify(delivery.body, old, secret)).toBe(false);
      // Within a wider tolerance the signature itself is still checked over the old timestamp.
      expect(await corridor.webhooks.verify(delivery.body, old, secret, 1000)).toBe(false);
      await corridor.webhooks.delete({ id: endpoint.id });
    } finally {
      await receiver.close();
    }
  });
});

describe('the SDK against a running Corridor: the event stream', () => {
  it('yields events as an async iterator and resumes after the last one with lastEventId', async () => {
    const w = await payingWorkspace(t);
    const { corridor } = client({}, w);
    // Started after an event recorded first, so what follows is streamed however long the connection takes.
    const start = await recordOn(w.workspaceId);
    const controller = new AbortController();
    const stream = corridor.events.stream({ signal: controller.signal, lastEventId: start });
    const firstTwo = (async () => {
      const got: string[] = [];
      for await (const e of stream) {
        got.push(e.id);
        if (got.length === 2) break;
      }
      return got;
    })();
    const ids = [await recordOn(w.workspaceId), await recordOn(w.workspaceId), await recordOn(w.workspaceId)];
    expect(await firstTwo).toEqual(ids.slice(0, 2));
    const resumed: string[] = [];
    for await (const e of corridor.events.stream({ lastEventId: ids[1] as string })) {
      resumed.push(e.id);
      break;
    }
    expect(resumed).toEqual([ids[2]]);
  });
});
