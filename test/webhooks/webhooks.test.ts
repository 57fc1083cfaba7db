import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRunner } from '../../src/jobs.js';
import type { JobRunner } from '../../src/platform/jobs/runner.js';
import { EVENT_TYPES } from '../../src/domains/webhooks/event-types.js';
import { createTestApp, newWorkspace, type Caller, type TestApp } from '../helpers/app.js';
import { HttpsReceiver, type Received, signedWith } from '../helpers/https-receiver.js';
import { completeBusiness } from '../applications/helpers.js';
import { fund, payingWorkspace, ref, saveBeneficiary } from '../payouts/helpers.js';

/** Short retry delays and deadline so a whole retry schedule fits in a few seconds. */
const DELAYS_MS = [50, 100, 200, 400, 800];
const TIMEOUT_MS = 1000;

let t: TestApp;
let runner: JobRunner;
let receiver: HttpsReceiver;
let caller: Caller;

beforeAll(async () => {
  t = await createTestApp({
    env: { WEBHOOK_RETRY_DELAYS_MS: DELAYS_MS.join(','), WEBHOOK_TIMEOUT_MS: String(TIMEOUT_MS), JOB_POLL_MS: '20', SANDBOX_STEP_MS: '40' },
  });
  receiver = await HttpsReceiver.start();
  runner = createRunner(t.ctx);
  runner.start();
  caller = await newWorkspace(t.app);
});
afterAll(async () => {
  await runner.stop();
  await receiver.close();
  await t.close();
});

interface Endpoint {
  id: string;
  url: string;
  description: string | null;
  events: string[] | null;
  status: 'enabled' | 'disabled';
  createdAt: string;
  updatedAt: string;
  secret?: string;
}

interface Attempt {
  number: number;
  at: string;
  responseStatus: number | null;
  durationMs: number;
  error: string | null;
  responseExcerpt?: string | null;
}

interface Delivery {
  id: string;
  endpointId: string;
  eventId: string;
  eventType: string;
  status: 'pending' | 'succeeded' | 'failed';
  attempts: Attempt[];
  nextAttemptAt: string | null;
  createdAt: string;
}

interface Envelope {
  id: string;
  type: string;
  createdAt: string;
  test: boolean;
  data: Record<string, unknown>;
}

interface Problem {
  status: number;
  code: string;
  errors?: { field: string; message: string; code?: string }[];
}

let pathSeq = 0;
const uniquePath = (name: string) => `/${name}-${++pathSeq}`;

async function createEndpoint(c: Caller, body: Record<string, unknown>): Promise<Endpoint & { secret: string }> {
  const res = await c.request('POST', '/v1/webhooks', body);
  expect(res.statusCode, res.body).toBe(201);
  return res.json<Endpoint & { secret: string }>();
}

async function createSubAccount(c: Caller, name = 'Shop Berlin'): Promise<string> {
  const res = await c.request('POST', '/v1/accounts', { name, country: 'DE' });
  expect(res.statusCode, res.body).toBe(201);
  return res.json<{ id: string }>().id;
}

async function deliveries(c: Caller, endpointId: string, query = ''): Promise<Delivery[]> {
  const res = await c.request('GET', `/v1/webhooks/${endpointId}/deliveries${query}`);
  expect(res.statusCode, res.body).toBe(200);
  return res.json<{ data: Delivery[] }>().data;
}

async function delivery(c: Caller, endpointId: string, id: string): Promise<Delivery> {
  const res = await c.request('GET', `/v1/webhooks/${endpointId}/deliveries/${id}`);
  expect(res.statusCode, res.body).toBe(200);
  return res.json<Delivery>();
}

async function waitForDelivery(c: Caller, endpointId: string, done: (d: Delivery) => boolean, timeoutMs = 15_000): Promise<Delivery> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = (await deliveries(c, endpointId)).find(done);
    if (found) return delivery(c, endpointId, found.id);
    if (Date.now() > deadline) throw new Error(`no delivery of ${endpointId} reached the expected state in ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 30));
  }
}

function expectProblem(res: { statusCode: number; headers: Record<string, unknown>; json: () => unknown }, status: number, code: string): Problem {
  expect(res.statusCode).toBe(status);
  expect(String(res.headers['content-type'])).toMatch(/^application\/problem\+json/);
  const body = res.json() as Problem;
  expect(body.code).toBe(code);
  return body;
}

const envelopeOf = (r: Received) => JSON.parse(r.body) as Envelope;

describe('POST /v1/webhooks', () => {
  it('registers an HTTPS endpoint and shows its whsec_ secret once, stored encrypted', async () => {
    const created = await createEndpoint(caller, { url: receiver.url(uniquePath('create')), description: 'orders' });
    expect(created).toMatchObject({ status: 'enabled', events: null, description: 'orders' });
    expect(created.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);

    const read = await caller.request('GET', `/v1/webhooks/${created.id}`);
    expect(read.statusCode).toBe(200);
    expect(read.json()).not.toHaveProperty('secret');
    expect(read.body).not.toContain(created.secret);

    const [row] = await t.ctx.db.query<{ secret_encrypted: string }>('SELECT secret_encrypted FROM webhook_endpoints WHERE id = $1', [created.id]);
    expect(row?.secret_encrypted).not.toContain(created.secret.slice(6));
    expect(t.ctx.box.decrypt(row!.secret_encrypted)).toBe(created.secret);
  });

  it('refuses an http:// URL with 400', async () => {
    const res = await caller.request('POST', '/v1/webhooks', { url: 'http://example.com/hook' });
    const problem = expectProblem(res, 400, 'VALIDATION_ERROR');
    expect(problem.errors).toEqual([expect.objectContaining({ field: 'url', code: 'URL_NOT_HTTPS' })]);
  });

  it('checks the URL syntax and length, and the event types', async () => {
    for (const url of ['not a url', '/relative/path', 'https://user:pass@example.com/hook', 'https://example.com/hook#frag', `https://example.com/${'a'.repeat(2040)}`]) {
      const res = await caller.request('POST', '/v1/webhooks', { url });
      expect(expectProblem(res, 400, 'VALIDATION_ERROR').errors?.[0]?.field, url).toBe('url');
    }
    const badType = await caller.request('POST', '/v1/webhooks', { url: 'https://example.com/hook', events: ['payout.exploded'] });
    expect(expectProblem(badType, 400, 'VALIDATION_ERROR').errors?.[0]?.field).toMatch(/^events/);
    const testType = await caller.request('POST', '/v1/webhooks', { url: 'https://example.com/hook', events: ['webhook.test'] });
    expectProblem(testType, 400, 'VALIDATION_ERROR');
  });

  it('limits the endpoints of a workspace', async () => {
    const c = await newWorkspace(t.app);
    for (let i = 0; i < t.config.limits.webhookEndpointsMax; i++) await createEndpoint(c, { url: `https://example.com/hook/${i}` });
    expectProblem(await c.request('POST', '/v1/webhooks', { url: 'https://example.com/one-more' }), 409, 'WEBHOOK_ENDPOINT_LIMIT');
  });

  it('replays the same answer, secret included, for a repeated Idempotency-Key and creates one endpoint', async () => {
    const c = await newWorkspace(t.app);
    const body = { url: 'https://example.com/idem' };
    const first = await c.request('POST', '/v1/webhooks', body, { 'idempotency-key': 'wh-create-1' });
    const second = await c.request('POST', '/v1/webhooks', body, { 'idempotency-key': 'wh-create-1' });
    expect(second.statusCode).toBe(201);
    expect(second.headers['idempotent-replayed']).toBe('true');
    expect(second.json()).toEqual(first.json());
    const list = await c.request('GET', '/v1/webhooks');
    expect(list.json<{ data: unknown[] }>().data).toHaveLength(1);
  });
});

describe('GET, PATCH, DELETE /v1/webhooks', () => {
  it('lists endpoints newest first, a page at a time', async () => {
    const c = await newWorkspace(t.app);
    const a = await createEndpoint(c, { url: 'https://example.com/a' });
    const b = await createEndpoint(c, { url: 'https://example.com/b' });
    const page1 = (await c.request('GET', '/v1/webhooks?limit=1')).json<{ object: string; data: Endpoint[]; hasMore: boolean; nextCursor: string }>();
    expect(page1).toMatchObject({ object: 'webhook_endpoint.list', hasMore: true });
    expect(page1.data.map((e) => e.id)).toEqual([b.id]);
    const page2 = (await c.request('GET', `/v1/webhooks?limit=1&cursor=${page1.nextCursor}`)).json<{ data: Endpoint[]; hasMore: boolean; nextCursor: null }>();
    expect(page2).toMatchObject({ hasMore: false, nextCursor: null });
    expect(page2.data.map((e) => e.id)).toEqual([a.id]);
    expect(JSON.stringify(page1) + JSON.stringify(page2)).not.toContain('whsec_');
  });

  it('updates the URL, the event types, the status and the description; absent fields keep their values', async () => {
    const e = await createEndpoint(caller, { url: 'https://example.com/before', description: 'x' });
    const res = await caller.request('PATCH', `/v1/webhooks/${e.id}`, {
      url: 'https://example.com/after',
      events: ['payout.paid', 'account.created', 'payout.paid'],
      status: 'disabled',
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ url: 'https://example.com/after', events: ['account.created', 'payout.paid'], status: 'disabled', description: 'x' });
    const cleared = await caller.request('PATCH', `/v1/webhooks/${e.id}`, { events: null, description: null, status: 'enabled' });
    expect(cleared.json()).toMatchObject({ url: 'https://example.com/after', events: null, description: null, status: 'enabled' });
    expectProblem(await caller.request('PATCH', `/v1/webhooks/${e.id}`, { url: 'http://example.com/x' }), 400, 'VALIDATION_ERROR');
    expectProblem(await caller.request('PATCH', `/v1/webhooks/${e.id}`, { status: 'paused' }), 400, 'VALIDATION_ERROR');
  });

  it('deletes an endpoint, after which it is 404', async () => {
    const e = await createEndpoint(caller, { url: 'https://example.com/gone' });
    const res = await caller.request('DELETE', `/v1/webhooks/${e.id}`);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ id: e.id, deleted: true });
    expectProblem(await caller.request('GET', `/v1/webhooks/${e.id}`), 404, 'NOT_FOUND');
    expectProblem(await caller.request('DELETE', `/v1/webhooks/${e.id}`), 404, 'NOT_FOUND');
  });

  it("answers 404 for another workspace's endpoint, whatever the operation", async () => {
    const e = await createEndpoint(caller, { url: 'https://example.com/mine' });
    const other = await newWorkspace(t.app);
    for (const [method, url, body] of [
      ['GET', `/v1/webhooks/${e.id}`],
      ['PATCH', `/v1/webhooks/${e.id}`, { status: 'disabled' }],
      ['DELETE', `/v1/webhooks/${e.id}`],
      ['POST', `/v1/webhooks/${e.id}/rotate-secret`],
      ['POST', `/v1/webhooks/${e.id}/test`],
      ['GET', `/v1/webhooks/${e.id}/deliveries`],
    ] as const) {
      expectProblem(await other.request(method, url, body), 404, 'NOT_FOUND');
    }
    expect((await caller.request('GET', `/v1/webhooks/${e.id}`)).json()).toMatchObject({ status: 'enabled' });
  });

  it('needs write:webhooks to change endpoints and read:webhooks to read them', async () => {
    const reader = await newWorkspace(t.app, { scopes: ['read:webhooks'] });
    expect((await reader.request('GET', '/v1/webhooks')).statusCode).toBe(200);
    expectProblem(await reader.request('POST', '/v1/webhooks', { url: 'https://example.com/x' }), 403, 'METHOD_NOT_ENTITLED');
    const none = await newWorkspace(t.app, { scopes: ['read:accounts'] });
    expectProblem(await none.request('GET', '/v1/webhooks'), 403, 'METHOD_NOT_ENTITLED');
    expectProblem(await none.request('GET', '/v1/events'), 403, 'METHOD_NOT_ENTITLED');
  });
});

describe('delivery', () => {
  it('POSTs each event, signed with the endpoint secret, to every subscribed endpoint of the workspace (sub-account events too)', async () => {
    const c = await newWorkspace(t.app);
    const all = await createEndpoint(c, { url: receiver.url(uniquePath('all')) });
    const accountsOnly = await createEndpoint(c, { url: receiver.url(uniquePath('accounts')), events: ['account.created'] });
    const payoutsOnly = await createEndpoint(c, { url: receiver.url(uniquePath('payouts')), events: ['payout.paid'] });
    const disabled = await createEndpoint(c, { url: receiver.url(uniquePath('disabled')) });
    await c.request('PATCH', `/v1/webhooks/${disabled.id}`, { status: 'disabled' });
    const subAccountId = await createSubAccount(c);

    const [got] = await receiver.waitFor(new URL(all.url).pathname, 1);
    const [alsoGot] = await receiver.waitFor(new URL(accountsOnly.url).pathname, 1);
    expect(signedWith(got!.body, got!.headers, all.secret)).toBe(true);
    expect(signedWith(alsoGot!.body, alsoGot!.headers, accountsOnly.secret)).toBe(true);
    expect(signedWith(got!.body, got!.headers, accountsOnly.secret)).toBe(false);
    expect(got!.headers['content-type']).toBe('application/json');
    expect(got!.headers['x-service-signature']).toMatch(/^[0-9a-f]{64}$/);
    expect(Math.abs(Number(got!.headers['x-service-timestamp']) - Date.now() / 1000)).toBeLessThan(10);

    const event = envelopeOf(got!);
    expect(Object.keys(event)).toEqual(['id', 'type', 'createdAt', 'test', 'data']);
    expect(event).toMatchObject({ type: 'account.created', test: false, data: { id: subAccountId, accountType: 'sub', status: 'pending', country: 'DE' } });
    expect(event.id).toMatch(/^evt_/);
    expect(envelopeOf(alsoGot!).id).toBe(event.id);
    const stored = await c.request('GET', `/v1/events/${event.id}`);
    expect(stored.json()).toMatchObject({ id: event.id, type: 'account.created', createdAt: event.createdAt, data: event.data, accountId: subAccountId });

    const d = await waitForDelivery(c, all.id, (x) => x.status === 'succeeded');
    expect(d).toMatchObject({ endpointId: all.id, eventId: event.id, eventType: 'account.created', nextAttemptAt: null });
    expect(d.attempts).toEqual([{ number: 1, at: expect.any(String), responseStatus: 200, durationMs: expect.any(Number), error: null, responseExcerpt: 'ok' }]);

    await new Promise((r) => setTimeout(r, 200));
    expect(receiver.requests(new URL(payoutsOnly.url).pathname)).toHaveLength(0);
    expect(receiver.requests(new URL(disabled.url).pathname)).toHaveLength(0);
    expect(await deliveries(c, payoutsOnly.id)).toHaveLength(0);
    expect(await deliveries(c, disabled.id)).toHaveLength(0);
  });

  it('keeps the first 4 KiB of a response body in the history', async () => {
    const c = await newWorkspace(t.app);
    const path = uniquePath('big');
    receiver.on(path, () => ({ status: 200, body: 'é'.repeat(2000) + 'x'.repeat(20_000) }));
    const e = await createEndpoint(c, { url: receiver.url(path) });
    await createSubAccount(c);
    const d = await waitForDelivery(c, e.id, (x) => x.status === 'succeeded');
    const excerpt = d.attempts[0]?.responseExcerpt ?? '';
    expect(Buffer.byteLength(excerpt)).toBeLessThanOrEqual(4096 + 3);
    expect(excerpt.startsWith('é'.repeat(2000))).toBe(true);
    expect(excerpt.length).toBeGreaterThan(2000);
    const [listed] = await deliveries(c, e.id);
    expect(listed?.attempts[0]).not.toHaveProperty('responseExcerpt');
  });

  it('retries a 500, a timeout and a 302 with growing gaps, then marks the delivery failed after 6 attempts', async () => {
    const c = await newWorkspace(t.app);
    const paths = { error: uniquePath('500'), timeout: uniquePath('slow'), redirect: uniquePath('302') };
    receiver.on(paths.error, () => ({ status: 500, body: 'boom' }));
    receiver.on(paths.timeout, () => ({ status: 200, body: 'late', delayMs: TIMEOUT_MS + 1000 }));
    receiver.on(paths.redirect, () => ({ status: 302, headers: { location: receiver.url(uniquePath('elsewhere')) } }));
    const endpoints = {
      error: await createEndpoint(c, { url: receiver.url(paths.error) }),
      timeout: await createEndpoint(c, { url: receiver.url(paths.timeout) }),
      redirect: await createEndpoint(c, { url: receiver.url(paths.redirect) }),
    };
    await createSubAccount(c);

    for (const [kind, path] of Object.entries(paths) as [keyof typeof paths, string][]) {
      const got = await receiver.waitFor(path, 6, 40_000);
      expect(new Set(got.map((r) => envelopeOf(r).id)).size, kind).toBe(1);
      for (const r of got) expect(signedWith(r.body, r.headers, endpoints[kind].secret), kind).toBe(true);
      const stamps = got.map((r) => Number(r.headers['x-service-timestamp']));
      expect([...stamps].sort((a, b) => a - b), kind).toEqual(stamps);

      const d = await waitForDelivery(c, endpoints[kind].id, (x) => x.status === 'failed', 20_000);
      expect(d.nextAttemptAt).toBeNull();
      expect(d.attempts.map((a) => a.number)).toEqual([1, 2, 3, 4, 5, 6]);
      const starts = d.attempts.map((a) => Date.parse(a.at));
      for (let i = 1; i < 6; i++) {
        const previous = d.attempts[i - 1]!;
        // Each delay counts from the end of the failed attempt: at least its base, under twice it (plus polling).
        const gap = starts[i]! - (starts[i - 1]! + previous.durationMs);
        expect(gap, `${kind}: gap before attempt ${i + 1}`).toBeGreaterThanOrEqual(DELAYS_MS[i - 1]! - 5);
        expect(gap, `${kind}: gap before attempt ${i + 1}`).toBeLessThan(2 * DELAYS_MS[i - 1]! + 2000);
      }
      const first = d.attempts[0]!;
      if (kind === 'error') expect(first).toMatchObject({ responseStatus: 500, error: null, responseExcerpt: 'boom' });
      if (kind === 'timeout') {
        expect(first).toMatchObject({ responseStatus: null, error: expect.stringMatching(/timeout/) });
        expect(first.durationMs).toBeGreaterThanOrEqual(TIMEOUT_MS - 5);
      }
      if (kind === 'redirect') expect(first).toMatchObject({ responseStatus: 302, error: 'redirect not followed' });
    }
    expect(receiver.received.filter((r) => r.path.startsWith('/elsewhere'))).toHaveLength(0);
    await new Promise((r) => setTimeout(r, 300));
    for (const path of Object.values(paths)) expect(receiver.requests(path)).toHaveLength(6);
  });

  it('stops at the first 2xx: a delivery that failed twice succeeds on its third attempt and is not sent again', async () => {
    const c = await newWorkspace(t.app);
    const path = uniquePath('flaky');
    receiver.on(path, (_req, n) => (n <= 2 ? { status: 503 } : { status: 204 }));
    const e = await createEndpoint(c, { url: receiver.url(path) });
    await createSubAccount(c);
    const d = await waitForDelivery(c, e.id, (x) => x.status === 'succeeded');
    expect(d.attempts.map((a) => a.responseStatus)).toEqual([503, 503, 204]);
    await new Promise((r) => setTimeout(r, 400));
    expect(receiver.requests(path)).toHaveLength(3);
  });

  it('signs with the new secret at once after a rotation, retries of older events included', async () => {
    const c = await newWorkspace(t.app);
    const path = uniquePath('rotate');
    // Fails until an attempt is signed with the rotated secret: an attempt sent while the rotation
    // was committing may still carry the old signature, and is answered 500 like the first.
    let rotatedSecret: string | undefined = undefined;
    receiver.on(path, (r) => (rotatedSecret && signedWith(r.body, r.headers, rotatedSecret) ? { status: 200 } : { status: 500 }));
    const e = await createEndpoint(c, { url: receiver.url(path) });
    await createSubAccount(c);
    const [first] = await receiver.waitFor(path, 1);
    expect(signedWith(first!.body, first!.headers, e.secret)).toBe(true);

    const rotated = await c.request('POST', `/v1/webhooks/${e.id}/rotate-secret`);
    expect(rotated.statusCode, rotated.body).toBe(200);
    const { secret } = rotated.json<{ secret: string }>();
    expect(secret).toMatch(/^whsec_/);
    expect(secret).not.toBe(e.secret);
    rotatedSecret = secret;

    const got = await receiver.waitUntil(path, (all) => all.length >= 2 && signedWith(all[all.length - 1]!.body, all[all.length - 1]!.headers, secret));
    const retry = got[got.length - 1]!;
    expect(envelopeOf(retry).id).toBe(envelopeOf(first!).id);
    expect(signedWith(retry.body, retry.headers, secret)).toBe(true);
    expect(signedWith(retry.body, retry.headers, e.secret)).toBe(false);
    expect((await c.request('GET', `/v1/webhooks/${e.id}`)).body).not.toContain(secret);
  });

  it('POST /v1/webhooks/{id}/test sends a signed webhook.test with test: true to that endpoint only', async () => {
    const c = await newWorkspace(t.app);
    const target = await createEndpoint(c, { url: receiver.url(uniquePath('test-target')) });
    const bystander = await createEndpoint(c, { url: receiver.url(uniquePath('test-bystander')) });
    const res = await c.request('POST', `/v1/webhooks/${target.id}/test`);
    expect(res.statusCode, res.body).toBe(201);
    const answered = res.json<Delivery>();
    expect(answered).toMatchObject({ endpointId: target.id, eventType: 'webhook.test', status: 'pending', attempts: [] });

    const [got] = await receiver.waitFor(new URL(target.url).pathname, 1);
    expect(signedWith(got!.body, got!.headers, target.secret)).toBe(true);
    expect(envelopeOf(got!)).toMatchObject({ id: answered.eventId, type: 'webhook.test', test: true });
    const d = await waitForDelivery(c, target.id, (x) => x.id === answered.id && x.status === 'succeeded');
    expect(d.attempts).toHaveLength(1);
    await new Promise((r) => setTimeout(r, 200));
    expect(receiver.requests(new URL(bystander.url).pathname)).toHaveLength(0);

    await c.request('PATCH', `/v1/webhooks/${target.id}`, { status: 'disabled' });
    expectProblem(await c.request('POST', `/v1/webhooks/${target.id}/test`), 409, 'WEBHOOK_ENDPOINT_DISABLED');
  });
});

describe('GET /v1/webhooks/{id}/deliveries', () => {
  it('pages the history newest first and filters it by status and event type', async () => {
    const c = await newWorkspace(t.app);
    const path = uniquePath('history');
    receiver.on(path, (req) => (JSON.parse(req.body).type === 'webhook.test' ? { status: 200 } : { status: 500 }));
    const e = await createEndpoint(c, { url: receiver.url(path) });
    await createSubAccount(c, 'One');
    await createSubAccount(c, 'Two');
    for (const deadline = Date.now() + 10_000; (await deliveries(c, e.id)).length < 2; ) {
      if (Date.now() > deadline) throw new Error('the account.created deliveries were not created');
      await new Promise((r) => setTimeout(r, 20));
    }
    const test = (await c.request('POST', `/v1/webhooks/${e.id}/test`)).json<Delivery>();
    await waitForDelivery(c, e.id, (x) => x.id === test.id && x.status === 'succeeded');

    const page = (await c.request('GET', `/v1/webhooks/${e.id}/deliveries?limit=2`)).json<{ object: string; data: Delivery[]; hasMore: boolean; nextCursor: string }>();
    expect(page).toMatchObject({ object: 'webhook_delivery.list', hasMore: true });
    expect(page.data[0]?.id).toBe(test.id);
    const rest = (await c.request('GET', `/v1/webhooks/${e.id}/deliveries?limit=2&cursor=${page.nextCursor}`)).json<{ data: Delivery[]; hasMore: boolean }>();
    expect(rest.hasMore).toBe(false);
    expect([...page.data, ...rest.data].map((d) => d.eventType).sort()).toEqual(['account.created', 'account.created', 'webhook.test']);

    expect((await deliveries(c, e.id, '?status=succeeded')).map((d) => d.id)).toEqual([test.id]);
    expect((await deliveries(c, e.id, '?eventType=account.created')).every((d) => d.eventType === 'account.created')).toBe(true);
    expect(await deliveries(c, e.id, '?eventType=account.created')).toHaveLength(2);
    expect(await deliveries(c, e.id, '?eventType=payout.paid')).toHaveLength(0);
    expectProblem(await c.request('GET', `/v1/webhooks/${e.id}/deliveries?status=lost`), 400, 'VALIDATION_ERROR');
    expectProblem(await c.request('GET', `/v1/webhooks/${e.id}/deliveries/${e.id}`), 404, 'NOT_FOUND');
  });
});

describe('GET /v1/events', () => {
  it('lists the events of the workspace by type and time, reads one by id, and never another workspace’s', async () => {
    const c = await newWorkspace(t.app);
    const first = await createSubAccount(c, 'First');
    const between = new Date().toISOString();
    await new Promise((r) => setTimeout(r, 5));
    const second = await createSubAccount(c, 'Second');

    const all = (await c.request('GET', '/v1/events?type=account.created')).json<{ object: string; data: { id: string; accountId: string }[] }>();
    expect(all.object).toBe('event.list');
    expect(all.data.map((e) => e.accountId)).toEqual([second, first]);
    const after = (await c.request('GET', `/v1/events?createdFrom=${encodeURIComponent(between)}`)).json<{ data: { accountId: string }[] }>();
    expect(after.data.map((e) => e.accountId)).toEqual([second]);
    const before = (await c.request('GET', `/v1/events?createdTo=${encodeURIComponent(between)}`)).json<{ data: { accountId: string }[] }>();
    expect(before.data.map((e) => e.accountId)).toEqual([first]);
    const page = (await c.request('GET', '/v1/events?limit=1')).json<{ data: unknown[]; hasMore: boolean }>();
    expect(page).toMatchObject({ hasMore: true });
    const asSub = (await c.request('GET', '/v1/events', undefined, { 'service-account-id': first })).json<{ data: { accountId: string }[] }>();
    expect(asSub.data.map((e) => e.accountId)).toEqual([first]);

    const id = all.data[0]!.id;
    expect((await c.request('GET', `/v1/events/${id}`)).statusCode).toBe(200);
    const other = await newWorkspace(t.app);
    expectProblem(await other.request('GET', `/v1/events/${id}`), 404, 'NOT_FOUND');
    expect((await other.request('GET', '/v1/events')).json<{ data: unknown[] }>().data).toHaveLength(0);
    expectProblem(await c.request('GET', '/v1/events/evt_doesNotExist'), 404, 'NOT_FOUND');
    expectProblem(await c.request('GET', '/v1/events?createdFrom=yesterday'), 400, 'VALIDATION_ERROR');
  });
});

describe('event types', () => {
  /**
   * Which of the spec's event types fire today, each with the calls that make it fire. A module wires
   * its events in its own issue and moves them from `pending` to a scenario here.
   */
  const scenarios: { types: string[]; run: (c: Caller, endpointId: string) => Promise<unknown> }[] = [
    { types: ['account.created'], run: (c) => createSubAccount(c) },
    {
      types: ['application.under_review', 'application.more_info_requested', 'application.under_review', 'application.approved'],
      run: async (c) => {
        const { application } = await completeBusiness(t.app, c);
        await c.request('POST', `/v2/applications/${application.id}/submit`);
        await c.request('POST', `/v1/sandbox/applications/${application.id}/review`, { decision: 'request_info', reason: 'Need more', editableSections: ['persons'] });
        await c.request('POST', `/v2/applications/${application.id}/submit`);
        expect((await c.request('POST', `/v1/sandbox/applications/${application.id}/review`, { decision: 'approve' })).json().status).toBe('approved');
      },
    },
    {
      types: ['application.under_review', 'application.rejected'],
      run: async (c) => {
        const { application } = await completeBusiness(t.app, c);
        await c.request('POST', `/v2/applications/${application.id}/submit`);
        expect((await c.request('POST', `/v1/sandbox/applications/${application.id}/review`, { decision: 'reject' })).json().status).toBe('rejected');
      },
    },
    { types: ['webhook.test'], run: (c, endpointId) => c.request('POST', `/v1/webhooks/${endpointId}/test`) },
    {
      // After the approval above: EUR is active at once; USD is pending, then refused after issuance.
      types: ['virtual_account.active', 'virtual_account.failed', 'deposit.completed', 'deposit.failed'],
      run: async (c) => {
        const eur = await c.request('POST', '/v1/virtual-accounts', { currency: 'EUR' });
        expect(eur.json().status).toBe('active');
        const usd = await c.request('POST', '/v1/virtual-accounts', { currency: 'USD' });
        expect((await c.request('POST', `/v1/sandbox/virtual-accounts/${usd.json().id}/fail`)).json().status).toBe('failed');
        expect((await c.request('POST', '/v1/sandbox/deposits', { virtualAccountId: eur.json().id, amount: '5.00' })).json().status).toBe('completed');
        expect((await c.request('POST', '/v1/sandbox/deposits', { virtualAccountId: eur.json().id, amount: '6.00', outcome: 'failed' })).json().status).toBe('failed');
      },
    },
    { types: ['payout.processing', 'payout.paid'], run: (c) => payout(c, '10.00') },
    { types: ['payout.processing', 'payout.failed'], run: (c) => payout(c, '20.13') },
    {
      types: ['payout.processing', 'payout.cancelled'],
      run: async (c) => {
        const p = await payout(c, '30.14'); // stays in processing until moved
        await waitForPayout(c, p.id, 'processing');
        expect((await c.request('POST', `/v1/payouts/${p.id}/cancel`)).statusCode).toBe(200);
      },
    },
    {
      types: ['order.created', 'order.funds_received', 'order.completed'],
      run: async (c) => {
        const o = await order(c, 'balance');
        expect((await c.request('POST', `/v1/sandbox/orders/${o.id}/complete`)).json().status).toBe('completed');
      },
    },
    {
      types: ['order.created', 'order.awaiting_funds', 'order.funds_received', 'order.failed'],
      run: async (c) => {
        const o = await order(c, 'settlement');
        expect((await c.request('POST', `/v1/sandbox/orders/${o.id}/confirm-funds`)).statusCode).toBe(200);
        expect((await c.request('POST', `/v1/sandbox/orders/${o.id}/fail`)).json().status).toBe('failed');
      },
    },
    {
      types: ['order.created', 'order.awaiting_funds', 'order.expired'],
      run: async (c) => {
        const o = await order(c, 'settlement');
        expect((await c.request('POST', `/v1/sandbox/orders/${o.id}/expire`)).json().status).toBe('expired');
      },
    },
    {
      // An approval rule holds the payout (no provider step); its creator cancels it while it waits.
      types: ['payout.approval_required', 'payout.cancelled'],
      run: async (c) => {
        const rule = await c.request('POST', '/v1/approval-rules', { type: 'amount_over', currency: 'EUR', amount: '45.00' });
        const p = await payout(c, '50.00');
        expect((await c.request('POST', `/v1/payouts/${p.id}/cancel`)).statusCode).toBe(200);
        expect((await c.request('DELETE', `/v1/approval-rules/${rule.json().id}`)).statusCode).toBe(200);
      },
    },
  ];
  /** Recorded, but the spec says not (yet) delivered. */
  const notDelivered = ['payout.reverted'];
  const pending: string[] = [];
  /**
   * Delivered only where a connector checks the recipient (verifyRecipient), which the sandbox's
   * simulator does not: test/events/delivered-events.test.ts and test/recipient-checks/ deliver it
   * through a test connector. beneficiary.updated is delivered only when a rail corrects a saved
   * beneficiary's account (an ACH notification of change): test/ach/flow.test.ts and
   * test/events/delivered-events.test.ts deliver it.
   */
  const deliveredElsewhere = ['payout.recipient_check_required', 'beneficiary.updated'];
  const covered = [...new Set(scenarios.flatMap((x) => x.types))];

  async function payout(c: Caller, amount: string): Promise<{ id: string; clientRef: string }> {
    const res = await c.request('POST', '/v1/payouts', { clientRef: ref('wh'), amount, currency: 'EUR', beneficiary: { id: beneficiaries.get(c)! } });
    expect(res.statusCode, res.body).toBe(201);
    return res.json();
  }
  async function waitForPayout(c: Caller, id: string, status: string): Promise<void> {
    for (const deadline = Date.now() + 15_000; (await c.request('GET', `/v1/payouts/${id}`)).json<{ status: string }>().status !== status; ) {
      if (Date.now() > deadline) throw new Error(`payout ${id} never reached ${status}`);
      await new Promise((r) => setTimeout(r, 20));
    }
  }
  const beneficiaries = new Map<Caller, string>();
  async function order(c: Caller, funding: 'balance' | 'settlement'): Promise<{ id: string }> {
    const res = await c.request('POST', '/v1/orders', { fromCurrency: 'EUR', toCurrency: 'USD', fromAmount: '5.00', funding });
    expect(res.statusCode, res.body).toBe(201);
    return res.json();
  }

  it('lists every type of the spec as covered, not delivered or pending, and delivers each covered one with its data', async () => {
    expect([...covered, ...notDelivered, ...pending, ...deliveredElsewhere].sort()).toEqual([...EVENT_TYPES].sort());
    const c = await payingWorkspace(t);
    await fund(c, 'EUR', '1000');
    beneficiaries.set(c, await saveBeneficiary(c));
    const path = uniquePath('types');
    const e = await createEndpoint(c, { url: receiver.url(path) });
    for (const scenario of scenarios) await scenario.run(c, e.id);
    const reverted = await payout(c, '40.15'); // paid, then reverted downstream

    // Every scenario's events, and the reverted payout's payout.processing and payout.paid (delivered before the revert).
    const expected = scenarios.reduce((n, x) => n + x.types.length, 0) + 2;
    // Counted by event id: a delivery answered late on a loaded machine is retried, so it may arrive twice.
    const got = await receiver.waitForDistinct(path, expected, (r) => envelopeOf(r).id, 30_000);
    expect([...new Set(got.map((r) => envelopeOf(r).type))].sort()).toEqual([...covered].sort());
    for (const r of got) expect(signedWith(r.body, r.headers, e.secret)).toBe(true);
    for (const r of got.filter((x) => envelopeOf(x).type.startsWith('payout.'))) {
      // Payout data: the spec's fields and nothing else (no failureReason, nothing secret).
      // payout.approval_required adds the approval the payout waits for (additive).
      const approval = envelopeOf(r).type === 'payout.approval_required' ? ['approval'] : [];
      expect(Object.keys(envelopeOf(r).data).sort()).toEqual(['amount', ...approval, 'clientRef', 'completedAt', 'currency', 'id', 'status']);
    }
    for (const r of got.filter((x) => envelopeOf(x).type.startsWith('virtual_account.'))) {
      // Virtual account events identify the account and never carry bank details.
      expect(Object.keys(envelopeOf(r).data).sort()).toEqual(['accountId', 'currency', 'id', 'status']);
    }
    for (const r of got.filter((x) => envelopeOf(x).type.startsWith('deposit.'))) {
      expect(Object.keys(envelopeOf(r).data).sort()).toEqual(['amount', 'clientRef', 'creditedAmount', 'currency', 'id', 'serviceFee', 'status']);
    }
    for (const r of got.filter((x) => envelopeOf(x).type.startsWith('order.'))) {
      // Order data: the spec's order fields, exactly.
      expect(Object.keys(envelopeOf(r).data).sort()).toEqual(
        ['clientRef', 'completedAt', 'createdAt', 'executionDeadlineAt', 'failureReason', 'fromAmount', 'fromCurrency', 'fundedAt', 'fundingDeadlineAt', 'id', 'rate', 'settlement', 'status', 'toAmount', 'toCurrency', 'uetr'],
      );
    }
    for (const r of got.filter((x) => envelopeOf(x).type.startsWith('application.'))) {
      // Application data: the spec's application object (nothing personal).
      expect(Object.keys(envelopeOf(r).data).sort()).toEqual(
        ['accountId', 'applicationType', 'createdAt', 'editableSections', 'id', 'moreInfoReason', 'registeredName', 'riskLevel', 'screeningStatus', 'status'],
      );
    }

    // payout.reverted is recorded with the payout, but neither sent nor listed.
    await waitForPayout(c, reverted.id, 'failed');
    for (const deadline = Date.now() + 15_000; ; ) {
      const [row] = await t.ctx.db.query<{ n: number }>("SELECT count(*)::int AS n FROM events WHERE type = 'payout.reverted' AND data->>'id' = $1", [reverted.id]);
      if (row?.n === 1) break;
      if (Date.now() > deadline) throw new Error('payout.reverted was not recorded');
      await new Promise((r) => setTimeout(r, 20));
    }
    await new Promise((r) => setTimeout(r, 500));
    expect(receiver.requests(path).map((r) => envelopeOf(r).type)).not.toContain('payout.reverted');
    expect((await c.request('GET', '/v1/events?type=payout.reverted')).json<{ data: unknown[] }>().data).toHaveLength(0);
  });
});
