/**
 * Standard Webhooks beside the spec's signature (issue 38, point 4): every delivery carries
 * webhook-id, webhook-timestamp and webhook-signature, which the npm `standardwebhooks` library
 * verifies with the endpoint's secret as it is, while X-Service-Signature and X-Service-Timestamp stay
 * as the spec says; `v1a` Ed25519 signatures when the endpoint opts in; a rotation with a grace
 * period during which both secrets sign; "retry now" on a delivery waiting for its next attempt.
 * Against a real HTTPS receiver and the real delivery workers.
 */
import { createPublicKey, verify } from 'node:crypto';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRunner } from '../../src/jobs.js';
import type { JobRunner } from '../../src/platform/jobs/runner.js';
import { createTestApp, newWorkspace, type Caller, type TestApp } from '../helpers/app.js';
import { HttpsReceiver, signedWith, type Received } from '../helpers/https-receiver.js';

/** Retries an hour apart: a failed first attempt leaves its delivery waiting, for "retry now" to cut short. */
const HOUR_MS = 3_600_000;

let t: TestApp;
let runner: JobRunner;
let receiver: HttpsReceiver;
let caller: Caller;

beforeAll(async () => {
  t = await createTestApp({ env: { WEBHOOK_RETRY_DELAYS_MS: Array(5).fill(HOUR_MS).join(','), WEBHOOK_TIMEOUT_MS: '10000', JOB_POLL_MS: '20' } });
  receiver = await HttpsReceiver.start();
  runner = createRunner(t.ctx);
  runner.start();
  caller = await newWorkspace(t.app);
}, 180_000);
afterAll(async () => {
  await runner?.stop();
  await receiver?.close();
  await t?.close();
});

interface Endpoint {
  id: string;
  secret: string;
  ed25519PublicKey: string | null;
}

async function endpoint(path: string, body: Record<string, unknown> = {}): Promise<Endpoint> {
  const res = await caller.request('POST', '/v1/webhooks', { url: receiver.url(path), ...body }, { 'idempotency-key': `ep-${path}` });
  expect(res.statusCode, res.body).toBe(201);
  return res.json();
}

/** Sends a test event to the endpoint and waits for the receiver to have `count` requests on `path`. */
async function testEvent(ep: Endpoint, path: string, count: number, key: string): Promise<Received> {
  const res = await caller.request('POST', `/v1/webhooks/${ep.id}/test`, {}, { 'idempotency-key': key });
  expect(res.statusCode, res.body).toBe(201);
  return (await receiver.waitFor(path, count, 120_000))[count - 1] as Received;
}

/** What the `standardwebhooks` library makes of a request with this secret: the event, or its refusal. */
function standardVerify(secret: string, got: Received): unknown {
  try {
    return new Webhook(secret).verify(got.body, got.headers as Record<string, string>);
  } catch (err) {
    if (err instanceof WebhookVerificationError) return 'refused';
    throw err;
  }
}

/** Standard Webhooks' v1a: an Ed25519 signature of `<id>.<timestamp>.<body>`, checked with the `whpk_` public key. */
function ed25519Verified(publicKey: string, got: Received): boolean {
  const key = createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: Buffer.from(publicKey.replace(/^whpk_/, ''), 'base64').toString('base64url') }, format: 'jwk' });
  const content = `${String(got.headers['webhook-id'])}.${String(got.headers['webhook-timestamp'])}.${got.body}`;
  const signatures = String(got.headers['webhook-signature']).split(' ').filter((s) => s.startsWith('v1a,'));
  return signatures.length > 0 && signatures.every((s) => verify(null, Buffer.from(content), key, Buffer.from(s.slice(4), 'base64')));
}

describe('Standard Webhooks headers', () => {
  it('every delivery carries them, the standardwebhooks library verifies them with the secret as given, and the spec headers are unchanged', { timeout: 300_000 }, async () => {
    const ep = await endpoint('/standard');
    const got = await testEvent(ep, '/standard', 1, 'test-standard');
    const event = JSON.parse(got.body) as { id: string; type: string };
    expect(got.headers['webhook-id']).toBe(event.id);
    expect(got.headers['webhook-timestamp']).toBe(got.headers['x-service-timestamp']);
    expect(got.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
    expect(got.headers['x-service-signature']).toMatch(/^[0-9a-f]{64}$/);
    expect(signedWith(got.body, got.headers, ep.secret)).toBe(true);
    expect(standardVerify(ep.secret, got)).toEqual(JSON.parse(got.body));
    expect(standardVerify(ep.secret, { ...got, body: got.body.replace('"test":true', '"test":false') })).toBe('refused');
    expect(standardVerify(ep.secret, { ...got, headers: { ...got.headers, 'webhook-id': 'evt_other' } })).toBe('refused');
    expect(ep.ed25519PublicKey).toBeNull();
    expect(String(got.headers['webhook-signature'])).not.toMatch(/v1a,/);
  });

  it('signs with Ed25519 (v1a) when the endpoint opts in, verified with its public key; opting out stops it', { timeout: 300_000 }, async () => {
    const ep = await endpoint('/ed25519', { ed25519: true });
    expect(ep.ed25519PublicKey).toMatch(/^whpk_[A-Za-z0-9+/]{43}=$/);
    const read = (await caller.request('GET', `/v1/webhooks/${ep.id}`)).json<Endpoint>();
    expect(read.ed25519PublicKey).toBe(ep.ed25519PublicKey);
    const got = await testEvent(ep, '/ed25519', 1, 'test-ed-1');
    expect(String(got.headers['webhook-signature'])).toMatch(/^v1,\S+ v1a,\S+$/);
    expect(ed25519Verified(ep.ed25519PublicKey as string, got)).toBe(true);
    expect(ed25519Verified(ep.ed25519PublicKey as string, { ...got, body: `${got.body} ` })).toBe(false);
    expect(standardVerify(ep.secret, got)).toEqual(JSON.parse(got.body));

    const off = await caller.request('PATCH', `/v1/webhooks/${ep.id}`, { ed25519: false });
    expect(off.json<Endpoint>().ed25519PublicKey).toBeNull();
    const after = await testEvent(ep, '/ed25519', 2, 'test-ed-2');
    expect(String(after.headers['webhook-signature'])).toMatch(/^v1,\S+$/);
    const on = await caller.request('PATCH', `/v1/webhooks/${ep.id}`, { ed25519: true });
    expect(on.json<Endpoint>().ed25519PublicKey).not.toBe(ep.ed25519PublicKey);
  });

  it('a rotation with graceSeconds has both secrets sign until it ends; without, the previous one stops at once', { timeout: 300_000 }, async () => {
    const ep = await endpoint('/rotate');
    const rotated = await caller.request('POST', `/v1/webhooks/${ep.id}/rotate-secret`, { graceSeconds: 3600 }, { 'idempotency-key': 'rotate-1' });
    expect(rotated.statusCode, rotated.body).toBe(200);
    const { secret, previousSecretExpiresAt } = rotated.json<{ secret: string; previousSecretExpiresAt: string }>();
    expect(Date.parse(previousSecretExpiresAt) - Date.now()).toBeGreaterThan(3000 * 1000);
    const during = await testEvent(ep, '/rotate', 1, 'test-rotate-1');
    expect(String(during.headers['webhook-signature']).split(' ')).toHaveLength(2);
    expect(standardVerify(secret, during)).toEqual(JSON.parse(during.body));
    expect(standardVerify(ep.secret, during)).toEqual(JSON.parse(during.body));
    // The spec's single signature is the new secret's.
    expect(signedWith(during.body, during.headers, secret)).toBe(true);

    const again = await caller.request('POST', `/v1/webhooks/${ep.id}/rotate-secret`, undefined, { 'idempotency-key': 'rotate-2' });
    expect(again.statusCode, again.body).toBe(200);
    const third = again.json<{ secret: string; previousSecretExpiresAt: string }>();
    expect(Date.parse(third.previousSecretExpiresAt)).toBeLessThanOrEqual(Date.now());
    const after = await testEvent(ep, '/rotate', 2, 'test-rotate-2');
    expect(String(after.headers['webhook-signature']).split(' ')).toHaveLength(1);
    expect(standardVerify(third.secret, after)).toEqual(JSON.parse(after.body));
    expect(standardVerify(secret, after)).toBe('refused');
    expect(standardVerify(ep.secret, after)).toBe('refused');

    const tooLong = await caller.request('POST', `/v1/webhooks/${ep.id}/rotate-secret`, { graceSeconds: 604_801 }, { 'idempotency-key': 'rotate-3' });
    expect(tooLong.statusCode).toBe(400);
  });
});

describe('retry now', () => {
  it('a delivery waiting for its next attempt is attempted at once on resend, as its next scheduled attempt', { timeout: 300_000 }, async () => {
    let fixed = false;
    receiver.on('/retry-now', () => (fixed ? { status: 200 } : { status: 500 }));
    const ep = await endpoint('/retry-now');
    const sent = await caller.request('POST', `/v1/webhooks/${ep.id}/test`, {}, { 'idempotency-key': 'test-retry' });
    const deliveryId = sent.json<{ id: string }>().id;
    const path = `/v1/webhooks/${ep.id}/deliveries/${deliveryId}`;
    let waiting: { status: string; attempts: unknown[]; nextAttemptAt: string | null };
    for (;;) {
      waiting = (await caller.request('GET', path)).json();
      if (waiting.attempts.length === 1) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(waiting.status).toBe('pending');
    expect(Date.parse(waiting.nextAttemptAt as string) - Date.now()).toBeGreaterThan(30 * 60 * 1000);

    fixed = true;
    const retried = await caller.request('POST', `${path}/resend`, undefined, { 'idempotency-key': 'retry-now' });
    expect(retried.statusCode, retried.body).toBe(202);
    await receiver.waitFor('/retry-now', 2, 120_000);
    let done: { status: string; attempts: { number: number; responseStatus: number }[] };
    for (;;) {
      done = (await caller.request('GET', path)).json();
      if (done.status !== 'pending') break;
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(done.status).toBe('succeeded');
    expect(done.attempts.map((a) => [a.number, a.responseStatus])).toEqual([
      [1, 500],
      [2, 200],
    ]);
  });
});
