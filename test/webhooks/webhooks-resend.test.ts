/**
 * Resending a delivery (issue 25, point 6): after fixing a broken receiver, a failed (or succeeded)
 * delivery is sent again as one fresh attempt, signed anew with the endpoint's current secret, and
 * recorded as the delivery's next attempt; through the API (with an Idempotency-Key) and the
 * dashboard's button. Against a real HTTPS receiver and the real delivery workers.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRunner } from '../../src/jobs.js';
import type { JobRunner } from '../../src/platform/jobs/runner.js';
import { createTestApp, newWorkspace, operator, type Caller, type TestApp } from '../helpers/app.js';
import { HttpsReceiver, signedWith } from '../helpers/https-receiver.js';
import { WebClient } from '../helpers/web-client.js';
import { Corridor } from '../../packages/sdk/src/index.js';
import { resendEvent } from '../../src/cli/events.js';

const DELAYS_MS = [20, 20, 20, 20, 20];

interface Delivery {
  id: string;
  status: 'pending' | 'succeeded' | 'failed';
  eventId: string;
  attempts: { number: number; responseStatus: number | null }[];
}

let t: TestApp;
let runner: JobRunner;
let receiver: HttpsReceiver;
let caller: Caller;

beforeAll(async () => {
  t = await createTestApp({ env: { WEBHOOK_RETRY_DELAYS_MS: DELAYS_MS.join(','), WEBHOOK_TIMEOUT_MS: '2000', JOB_POLL_MS: '20' } });
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

async function endpoint(path: string): Promise<{ id: string; secret: string }> {
  const res = await caller.request('POST', '/v1/webhooks', { url: receiver.url(path) }, { 'idempotency-key': `ep-${path}` });
  expect(res.statusCode, res.body).toBe(201);
  return res.json();
}

async function delivery(endpointId: string, id: string): Promise<Delivery> {
  return (await caller.request('GET', `/v1/webhooks/${endpointId}/deliveries/${id}`)).json<Delivery>();
}

async function settled(endpointId: string, id: string, attempts: number): Promise<Delivery> {
  for (;;) {
    const d = await delivery(endpointId, id);
    if (d.status !== 'pending' && d.attempts.length >= attempts) return d;
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** A test event to `path`, which answers 500 until `fixed()` says otherwise; waits for the delivery to fail (6 attempts). */
async function failedDelivery(path: string, fixed: () => boolean): Promise<{ endpoint: { id: string; secret: string }; delivery: Delivery }> {
  receiver.on(path, () => (fixed() ? { status: 200, body: 'ok' } : { status: 500, body: 'broken' }));
  const ep = await endpoint(path);
  const sent = await caller.request('POST', `/v1/webhooks/${ep.id}/test`, undefined, { 'idempotency-key': `test-${path}` });
  expect(sent.statusCode).toBe(201);
  const failed = await settled(ep.id, sent.json<Delivery>().id, 6);
  expect(failed.status).toBe('failed');
  return { endpoint: ep, delivery: failed };
}

describe('POST /v1/webhooks/{id}/deliveries/{deliveryId}/resend', () => {
  it('sends a failed delivery again once the receiver is fixed: a 7th attempt, signed with the current secret, recorded on the delivery', async () => {
    let fixed = false;
    const { endpoint: ep, delivery: failed } = await failedDelivery('/broken-then-fixed', () => fixed);
    expect(receiver.requests('/broken-then-fixed')).toHaveLength(6);

    fixed = true;
    const rotated = await caller.request('POST', `/v1/webhooks/${ep.id}/rotate-secret`, undefined, { 'idempotency-key': 'rotate-1' });
    const newSecret = rotated.json<{ secret: string }>().secret;

    const key = { 'idempotency-key': 'resend-1' };
    const resent = await caller.request('POST', `/v1/webhooks/${ep.id}/deliveries/${failed.id}/resend`, undefined, key);
    expect(resent.statusCode, resent.body).toBe(202);
    expect(resent.json<Delivery>()).toMatchObject({ id: failed.id, status: 'pending' });

    const got = await receiver.waitFor('/broken-then-fixed', 7);
    const last = got[6]!;
    expect(signedWith(last.body, last.headers, newSecret)).toBe(true);
    expect(signedWith(last.body, last.headers, ep.secret)).toBe(false);
    expect(JSON.parse(last.body)).toMatchObject({ id: failed.eventId, type: 'webhook.test' });

    const after = await settled(ep.id, failed.id, 7);
    expect(after.status).toBe('succeeded');
    expect(after.attempts.map((a) => [a.number, a.responseStatus])).toEqual([[1, 500], [2, 500], [3, 500], [4, 500], [5, 500], [6, 500], [7, 200]]);

    // The same key again is the same answer, not a second resend.
    const replay = await caller.request('POST', `/v1/webhooks/${ep.id}/deliveries/${failed.id}/resend`, undefined, key);
    expect(replay.statusCode).toBe(202);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    await new Promise((r) => setTimeout(r, 200));
    expect(receiver.requests('/broken-then-fixed')).toHaveLength(7);
  });

  it('sends a succeeded delivery again too; refuses one still pending, one of a disabled endpoint, and another workspace\'s', async () => {
    receiver.on('/fine', () => ({ status: 200, body: 'ok' }));
    const ep = await endpoint('/fine');
    const sent = (await caller.request('POST', `/v1/webhooks/${ep.id}/test`, undefined, { 'idempotency-key': 'test-fine' })).json<Delivery>();
    const ok = await settled(ep.id, sent.id, 1);
    expect(ok.status).toBe('succeeded');
    const again = await caller.request('POST', `/v1/webhooks/${ep.id}/deliveries/${ok.id}/resend`, undefined, { 'idempotency-key': 'resend-fine' });
    expect(again.statusCode).toBe(202);
    const twice = await settled(ep.id, ok.id, 2);
    expect(twice.attempts.map((a) => [a.number, a.responseStatus])).toEqual([[1, 200], [2, 200]]);
    expect(twice.status).toBe('succeeded');

    await caller.request('PATCH', `/v1/webhooks/${ep.id}`, { status: 'disabled' });
    const disabled = await caller.request('POST', `/v1/webhooks/${ep.id}/deliveries/${ok.id}/resend`, undefined, { 'idempotency-key': 'resend-disabled' });
    expect(disabled.statusCode).toBe(409);
    expect(disabled.json()).toMatchObject({ code: 'WEBHOOK_ENDPOINT_DISABLED' });

    const other = await newWorkspace(t.app, { name: 'Other Ltd' });
    const theirs = await other.request('POST', `/v1/webhooks/${ep.id}/deliveries/${ok.id}/resend`, undefined, { 'idempotency-key': 'resend-theirs' });
    expect(theirs.statusCode).toBe(404);
  });

  it('refuses a delivery whose attempt is under way (or due this moment) with 409 WEBHOOK_DELIVERY_PENDING', async () => {
    // Each attempt takes a second to be answered: six of them cannot be over before the resend.
    receiver.on('/slow', () => ({ status: 500, body: 'no', delayMs: 1000 }));
    const ep = await endpoint('/slow');
    const sent = (await caller.request('POST', `/v1/webhooks/${ep.id}/test`, undefined, { 'idempotency-key': 'test-slow' })).json<Delivery>();
    const res = await caller.request('POST', `/v1/webhooks/${ep.id}/deliveries/${sent.id}/resend`, undefined, { 'idempotency-key': 'resend-slow' });
    expect(res.statusCode).toBe(409);
    expect(res.json()).toMatchObject({ code: 'WEBHOOK_DELIVERY_PENDING' });
    await caller.request('PATCH', `/v1/webhooks/${ep.id}`, { status: 'disabled' });
  });
});

describe('corridor events resend', () => {
  it('sends an event again to the endpoint that had it, names the endpoint that never did, and refuses an unknown event', async () => {
    const w = await newWorkspace(t.app, { name: 'Resend CLI Ltd' });
    let fixed = false;
    receiver.on('/cli-resend', () => (fixed ? { status: 200, body: 'ok' } : { status: 500, body: 'broken' }));
    const ep = (await w.request('POST', '/v1/webhooks', { url: receiver.url('/cli-resend') }, { 'idempotency-key': 'ep-cli' })).json<{ id: string }>();
    const account = await w.request('POST', '/v1/accounts', { name: 'Resent Ltd', country: 'GB' }, { 'idempotency-key': 'acct-cli' });
    expect(account.statusCode, account.body).toBe(201);
    const event = (await w.request('GET', '/v1/events?type=account.created')).json<{ data: { id: string }[] }>().data[0] as { id: string };
    let failed: Delivery | undefined;
    while (failed?.status !== 'failed') {
      await new Promise((r) => setTimeout(r, 25));
      failed = (await w.request('GET', `/v1/webhooks/${ep.id}/deliveries?eventId=${event.id}`)).json<{ data: Delivery[] }>().data[0];
    }
    const late = (await w.request('POST', '/v1/webhooks', { url: receiver.url('/cli-late') }, { 'idempotency-key': 'ep-cli-late' })).json<{ id: string }>();

    fixed = true;
    const base = await t.app.listen({ port: 0, host: '127.0.0.1' });
    const sdk = new Corridor({ baseUrl: base, clientId: w.clientId, clientSecret: w.clientSecret, retryBaseDelayMs: 20 });
    const lines: string[] = [];
    const summary = await resendEvent(sdk, event.id, undefined, (l) => lines.push(l));
    expect(summary.resent).toEqual([{ endpointId: ep.id, url: receiver.url('/cli-resend'), deliveryId: failed.id }]);
    expect(lines.join('\n')).toContain(`${receiver.url('/cli-late')}: never had ${event.id} (account.created)`);
    const read = async () => (await w.request('GET', `/v1/webhooks/${ep.id}/deliveries/${failed?.id}`)).json<Delivery>();
    let after = await read();
    while (after.attempts.length < 7 || after.status === 'pending') {
      await new Promise((r) => setTimeout(r, 25));
      after = await read();
    }
    expect(after.status).toBe('succeeded');
    expect(after.attempts.at(-1)?.responseStatus).toBe(200);

    // Only the endpoint named, and an event that is not there.
    const only = await resendEvent(sdk, event.id, late.id, () => undefined);
    expect(only.resent).toEqual([]);
    await expect(resendEvent(sdk, 'evt_nothere', undefined, () => undefined)).rejects.toThrow(/no event evt_nothere in this workspace/);
  });
});

describe('the dashboard', () => {
  it('shows a Resend button on a finished delivery that sends it again', async () => {
    let fixed = false;
    const { endpoint: ep, delivery: failed } = await failedDelivery('/dashboard-resend', () => fixed);
    const invited = await operator(t.app, 'POST', `/operator/v1/workspaces/${caller.workspaceId}/users`, { email: 'admin@resend.example', role: 'admin' });
    const admin = new WebClient(t.app);
    const { done } = await admin.acceptInvitation(invited.json<{ invitationUrl: string }>().invitationUrl, 'a long enough passphrase');
    expect(done?.statusCode).toBe(303);

    const page = await admin.get(`/dashboard/webhooks/${ep.id}`);
    const action = `/dashboard/webhooks/${ep.id}/deliveries/${failed.id}/resend`;
    expect(page.body).toContain(`action="${action}"`);
    fixed = true;
    const res = await admin.post(action, {});
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe(`/dashboard/webhooks/${ep.id}?done=resent`);
    const after = await settled(ep.id, failed.id, 7);
    expect(after.status).toBe('succeeded');
    const shown = await admin.get(String(res.headers.location));
    expect(shown.body).toContain('being sent again');
  });
});
