import { createHmac } from 'node:crypto';
import type { LookupAddress } from 'node:dns';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DeliveryClient } from '../../src/domains/webhooks/delivery-client.js';
import { WebhookEngine } from '../../src/domains/webhooks/delivery-engine.js';
import { decideOutcome, retryDelayMs } from '../../src/domains/webhooks/schedule.js';
import { blockedAddressReason, guardedLookup, type Resolver } from '../../src/domains/webhooks/ssrf-guard.js';
import { signWebhook, verifyWebhook } from '../../packages/sdk/src/webhooks.js';
import { signPayload } from '../../src/domains/webhooks/signature.js';
import { createTestApp, newWorkspace, type TestApp } from '../helpers/app.js';
import { HttpsReceiver } from '../helpers/https-receiver.js';

let receiver: HttpsReceiver;
beforeAll(async () => {
  receiver = await HttpsReceiver.start();
});
afterAll(async () => receiver.close());

/** A resolver that answers every name with the given addresses: DNS pointing a public-looking name inward. */
const resolvingTo =
  (...addresses: string[]): Resolver =>
  async () =>
    addresses.map((address): LookupAddress => ({ address, family: address.includes(':') ? 6 : 4 }));

const client = (allowPrivateNetworks: boolean, resolve?: Resolver) =>
  new DeliveryClient({ timeoutMs: 2000, excerptBytesMax: 4096, allowPrivateNetworks, resolve });

describe('blockedAddressReason', () => {
  it('refuses every non-public range, IPv4-mapped forms included, and passes public unicast', () => {
    const blocked: Record<string, string> = {
      '127.0.0.1': 'loopback',
      '127.255.0.9': 'loopback',
      '10.1.2.3': 'private',
      '172.16.0.1': 'private',
      '192.168.1.1': 'private',
      '169.254.169.254': 'linkLocal',
      '100.64.0.1': 'carrierGradeNat',
      '0.0.0.0': 'unspecified',
      '224.0.0.1': 'multicast',
      '255.255.255.255': 'broadcast',
      '240.0.0.1': 'reserved',
      '192.0.2.1': 'reserved',
      '::1': 'loopback',
      '::': 'unspecified',
      'fc00::1': 'uniqueLocal',
      'fd12:3456::1': 'uniqueLocal',
      'fe80::1': 'linkLocal',
      'ff02::1': 'multicast',
      '::ffff:127.0.0.1': 'loopback',
      '::ffff:169.254.169.254': 'linkLocal',
      '::ffff:10.0.0.1': 'private',
      '[::ffff:7f00:1]': 'loopback',
      '64:ff9b::7f00:1': 'rfc6052',
      '2002:7f00:1::': '6to4',
      '2001:db8::1': 'reserved',
    };
    for (const [address, reason] of Object.entries(blocked)) expect(blockedAddressReason(address), address).toBe(reason);
    for (const address of ['8.8.8.8', '1.1.1.1', '2606:4700::1111', '::ffff:8.8.8.8']) expect(blockedAddressReason(address), address).toBeUndefined();
    expect(blockedAddressReason('example.com')).toBe('not an IP address');
  });
});

describe('guardedLookup', () => {
  const lookup = (resolve: Resolver, all: boolean) =>
    new Promise<{ err: Error | null; result: unknown }>((done) =>
      guardedLookup(resolve)('api.example.com', { all }, (err, address) => done({ err, result: address })),
    );

  it('refuses a name resolving to a private address, or to a mix of public and private', async () => {
    for (const addresses of [['169.254.169.254'], ['10.0.0.5'], ['::1'], ['93.184.216.34', '127.0.0.1']]) {
      const { err } = await lookup(resolvingTo(...addresses), true);
      expect(err?.message, addresses.join()).toMatch(/refused to connect to api\.example\.com/);
    }
  });

  it('passes a name resolving to public addresses through, in both lookup forms', async () => {
    expect((await lookup(resolvingTo('93.184.216.34'), false)).result).toBe('93.184.216.34');
    expect((await lookup(resolvingTo('93.184.216.34', '2606:2800::1'), true)).result).toEqual([
      { address: '93.184.216.34', family: 4 },
      { address: '2606:2800::1', family: 6 },
    ]);
  });
});

describe('DeliveryClient connect-time guard', () => {
  it('with the guard on, refuses loopback by host name and by literal address, sending nothing', async () => {
    const guarded = client(false);
    const before = receiver.received.length;
    for (const host of ['localhost', '127.0.0.1', '[::1]', '[::ffff:127.0.0.1]']) {
      const result = await guarded.send({ url: receiver.url('/guarded', host), body: '{}', eventId: 'evt_guard', signing: { secret: 'whsec_x' } });
      expect(result, host).toMatchObject({ ok: false, responseStatus: null });
      expect(result.error, host).toMatch(/refused to connect .*loopback address/);
    }
    expect(receiver.received.length).toBe(before);
    await guarded.close();
  });

  it('checks the address a name resolves to when connecting, so a rebinding name cannot reach inside', async () => {
    const before = receiver.requests('/rebind').length;
    const guarded = client(false, resolvingTo('127.0.0.1'));
    const refused = await guarded.send({ url: receiver.url('/rebind', 'rebind.test'), body: '{}', eventId: 'evt_guard', signing: { secret: 'whsec_x' } });
    expect(refused.error).toBe('WEBHOOK_ADDRESS_BLOCKED: refused to connect to rebind.test (127.0.0.1): loopback address');
    expect(receiver.requests('/rebind')).toHaveLength(before);
    await guarded.close();

    // The same name and resolver with the guard off reach the receiver: the refusal was the guard's.
    const open = client(true, resolvingTo('127.0.0.1'));
    const delivered = await open.send({ url: receiver.url('/rebind', 'rebind.test'), body: '{}', eventId: 'evt_guard', signing: { secret: 'whsec_x' } });
    expect(delivered).toMatchObject({ ok: true, responseStatus: 200 });
    expect(receiver.requests('/rebind')).toHaveLength(before + 1);
    await open.close();
  });

  it('with private networks allowed (the sandbox default), delivers to localhost over the trusted test CA', async () => {
    const open = client(true);
    for (const host of ['localhost', '127.0.0.1']) {
      const result = await open.send({ url: receiver.url('/open', host), body: '{"a":1}', eventId: 'evt_guard', signing: { secret: 'whsec_x' } });
      expect(result, host).toMatchObject({ ok: true, responseStatus: 200, responseExcerpt: 'ok', error: null });
    }
    await open.close();
  });
});

describe('with WEBHOOK_ALLOW_PRIVATE_NETWORKS=false', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ env: { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'false', JOB_POLL_MS: '20', WEBHOOK_RETRY_DELAYS_MS: '60000' } });
  });
  afterAll(async () => t.close());

  it('refuses to register a literal private address or localhost', async () => {
    const c = await newWorkspace(t.app);
    for (const url of [
      'https://127.0.0.1/hook',
      'https://127.1/hook',
      'https://0x7f000001/hook',
      'https://[::1]/hook',
      'https://[::ffff:127.0.0.1]/hook',
      'https://10.0.0.1/hook',
      'https://169.254.169.254/latest/meta-data',
      'https://100.64.0.1/hook',
      'https://[fd00::1]/hook',
      'https://localhost/hook',
      'https://LOCALHOST./hook',
      'https://api.localhost/hook',
    ]) {
      const res = await c.request('POST', '/v1/webhooks', { url });
      expect(res.statusCode, url).toBe(400);
      expect(res.json<{ errors: { code: string }[] }>().errors[0]?.code, url).toBe('URL_NOT_ALLOWED');
    }
    expect((await c.request('POST', '/v1/webhooks', { url: 'https://93.184.216.34/hook' })).statusCode).toBe(201);
  });

  it('records a refused connection as a failed attempt when a registered name resolves to a private address', async () => {
    const c = await newWorkspace(t.app);
    const res = await c.request('POST', '/v1/webhooks', { url: receiver.url('/rebind-engine', 'rebind.test') });
    expect(res.statusCode, res.body).toBe(201);
    const endpoint = res.json<{ id: string }>();
    const engine = new WebhookEngine(
      t.ctx,
      new DeliveryClient({ timeoutMs: 2000, excerptBytesMax: 4096, allowPrivateNetworks: false, resolve: resolvingTo('127.0.0.1') }),
    );
    engine.start();
    try {
      await c.request('POST', '/v1/accounts', { name: 'Shop', country: 'DE' });
      let attempts: { error: string | null; responseStatus: number | null }[] = [];
      for (const deadline = Date.now() + 10_000; attempts.length === 0 && Date.now() < deadline; ) {
        await new Promise((r) => setTimeout(r, 25));
        const page = (await c.request('GET', `/v1/webhooks/${endpoint.id}/deliveries`)).json<{ data: { attempts: typeof attempts }[] }>();
        attempts = page.data[0]?.attempts ?? [];
      }
      expect(attempts[0]).toMatchObject({ responseStatus: null, error: expect.stringMatching(/rebind\.test \(127\.0\.0\.1\): loopback/) });
      expect(receiver.requests('/rebind-engine')).toHaveLength(0);
    } finally {
      await engine.stop();
    }
  });
});

describe('verifyWebhook (the SDK\'s, the one verifier)', () => {
  const secret = 'whsec_c2VjcmV0LXNlY3JldA';
  const body = '{"id":"evt_1","type":"payout.paid","createdAt":"2025-01-01T00:00:00.000Z","test":false,"data":{"amount":"10.00"}}';
  const sign = (ts: number, payload = body, key = secret) => createHmac('sha256', Buffer.from(key, 'utf8')).update(`${ts}.${payload}`).digest('hex');
  const now = () => Math.floor(Date.now() / 1000);
  const headersAt = (ts: number, signature = sign(ts)) => ({ 'x-service-signature': signature, 'x-service-timestamp': String(ts) });

  it('accepts a signature over `<timestamp>.<raw body>` keyed by the whole whsec_ string, from a string or bytes', async () => {
    const ts = now();
    expect(await verifyWebhook(body, headersAt(ts), secret)).toBe(true);
    expect(await verifyWebhook(Buffer.from(body), headersAt(ts), secret)).toBe(true);
    expect(await verifyWebhook(body, { 'X-Service-Signature': sign(ts), 'X-Service-Timestamp': String(ts) }, secret)).toBe(true);
    expect(await verifyWebhook(body, new Headers(headersAt(ts)), secret)).toBe(true);
    expect(await verifyWebhook(body, headersAt(ts, sign(ts).toUpperCase()), secret)).toBe(true);
  });

  it('refuses a changed body, another secret, a key without its whsec_ prefix, or a malformed or missing header', async () => {
    const ts = now();
    expect(await verifyWebhook(body.replace('10.00', '1000.00'), headersAt(ts), secret)).toBe(false);
    expect(await verifyWebhook(body, headersAt(ts), 'whsec_other')).toBe(false);
    expect(await verifyWebhook(body, headersAt(ts, sign(ts, body, secret.slice(6))), secret)).toBe(false);
    expect(await verifyWebhook(body, headersAt(ts, 'abc'), secret)).toBe(false);
    expect(await verifyWebhook(body, headersAt(ts, 'z'.repeat(64)), secret)).toBe(false);
    expect(await verifyWebhook(body, { 'x-service-timestamp': String(ts) }, secret)).toBe(false);
    expect(await verifyWebhook(body, { 'x-service-signature': sign(ts) }, secret)).toBe(false);
    expect(await verifyWebhook(body, { 'x-service-signature': sign(ts), 'x-service-timestamp': `${ts}.5` }, secret)).toBe(false);
  });

  it('refuses a timestamp more than the tolerance (300 s by default) away from this clock, either way', async () => {
    expect(await verifyWebhook(body, headersAt(now() - 290), secret)).toBe(true);
    expect(await verifyWebhook(body, headersAt(now() - 310), secret)).toBe(false);
    expect(await verifyWebhook(body, headersAt(now() + 310), secret)).toBe(false);
    expect(await verifyWebhook(body, headersAt(now() - 310), secret, 600)).toBe(true);
    expect(await verifyWebhook(body, headersAt(now() - 20), secret, 10)).toBe(false);
  });

  it('the SDK signs exactly as the server does', async () => {
    for (const payload of [body, '', '{"é":"ü ✓"}']) {
      expect(await signWebhook(secret, 1_700_000_000, payload)).toBe(signPayload(secret, 1_700_000_000, payload));
      expect(await signWebhook(secret, 1_700_000_000, Buffer.from(payload))).toBe(signPayload(secret, 1_700_000_000, Buffer.from(payload)));
    }
  });
});

describe('retry schedule', () => {
  const rules = { attemptsMax: 6, retryDelaysMs: [60_000, 120_000, 240_000, 480_000, 960_000] };
  const end = new Date('2025-01-01T00:00:00Z');

  it('waits at least the base delay and less than twice it, counted from the end of the failed attempt', async () => {
    for (let n = 1; n <= 5; n++) {
      const base = rules.retryDelaysMs[n - 1]!;
      expect(retryDelayMs(n, rules.retryDelaysMs, () => 0)).toBe(base);
      expect(retryDelayMs(n, rules.retryDelaysMs, () => 0.5)).toBe(1.5 * base);
      expect(retryDelayMs(n, rules.retryDelaysMs, () => 1)).toBeLessThan(2 * base);
      const outcome = decideOutcome(n, false, end, rules, () => 0.25);
      expect(outcome).toEqual({ status: 'pending', nextAttemptAt: new Date(end.getTime() + 1.25 * base) });
    }
  });

  it('succeeds on a 2xx at any attempt and fails for good after the sixth', async () => {
    expect(decideOutcome(1, true, end, rules)).toEqual({ status: 'succeeded', nextAttemptAt: null });
    expect(decideOutcome(6, true, end, rules)).toEqual({ status: 'succeeded', nextAttemptAt: null });
    expect(decideOutcome(6, false, end, rules)).toEqual({ status: 'failed', nextAttemptAt: null });
  });
});
