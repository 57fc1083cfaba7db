import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Corridor, CorridorError, type CorridorEvent } from '../../packages/sdk/src/index.js';
import { listen } from '../../src/cli/listen.js';
import { recordEvent } from '../../src/domains/events/events.service.js';
import { createTestApp, newWorkspace, operator, type Caller, type TestApp } from '../helpers/app.js';
import { openSse, type SseConnection, type SseMessage } from '../helpers/sse.js';

// An open event stream keeps obeying its credential: revoked, or its read:webhooks scope removed
// (the token's expiry: stream-expiry.test.ts).
let t: TestApp;
let base: string;
const open: SseConnection[] = [];

beforeAll(async () => {
  t = await createTestApp({ env: { EVENT_STREAM_POLL_MS: '50', EVENT_STREAM_HEARTBEAT_MS: '200'} });
  base = await t.app.listen({ port: 0, host: '127.0.0.1' });
});
afterAll(async () => {
  for (const s of open) s.close();
  await t.close();
});

async function stream(caller: Caller): Promise<SseConnection> {
  const s = await openSse(`${base}/v1/events/stream`, { authorization: `Bearer ${caller.token}` });
  open.push(s);
  expect(s.status).toBe(200);
  return s;
}

async function record(workspaceId: string, type = 'payout.paid'): Promise<string> {
  return t.ctx.db.tx((tx) => recordEvent(tx, { workspaceId, type, data: { id: 'p1', settlement: 'instructions' } }));
}

/** Every message until the stream ends (heartbeats skipped); fails if it does not end within `timeoutMs`. */
async function untilEnd(s: SseConnection, timeoutMs = 5000): Promise<SseMessage[]> {
  const deadline = Date.now() + timeoutMs;
  const got: SseMessage[] = [];
  for (;;) {
    const msg = await s.next(Math.max(1, deadline - Date.now()));
    if (!msg) return got;
    if (msg.comment === undefined) got.push(msg);
  }
}

function errorEvent(got: SseMessage[]): Record<string, unknown> {
  const last = got.at(-1);
  expect(last?.event).toBe('error');
  expect(last?.id).toBeUndefined();
  return JSON.parse(last?.data ?? '{}') as Record<string, unknown>;
}

describe('GET /v1/events/stream while its credential changes', () => {
  it("ends a revoked credential's open stream with an error event, and sends it nothing more", async () => {
    const w = await newWorkspace(t.app);
    const s = await stream(w);
    const before = await record(w.workspaceId);
    expect((await s.events(1))[0]?.id).toBe(before);

    // Ended as soon as the revocation is announced, with no event to send.
    const revoked = await operator(t.app, 'DELETE', `/operator/v1/workspaces/${w.workspaceId}/credentials/${w.clientId}`);
    expect(revoked.statusCode, revoked.body).toBe(200);
    const got = await untilEnd(s);
    expect(got.filter((m) => m.event !== 'error')).toEqual([]);
    expect(errorEvent(got)).toMatchObject({ status: 401, code: 'CREDENTIAL_REVOKED', category: 'authentication', retryable: false });
    await record(w.workspaceId, 'payout.failed');
    expect(await s.next(300)).toBeUndefined();
  });

  it('ends the stream with METHOD_NOT_ENTITLED once read:webhooks is removed from its credential', async () => {
    const w = await newWorkspace(t.app, { scopes: ['read:webhooks', 'write:api_keys'] });
    const s = await stream(w);
    const before = await record(w.workspaceId);
    expect((await s.events(1))[0]?.id).toBe(before);

    const narrowed = await w.request('PUT', `/v1/api-keys/${w.clientId}/scopes`, { scopes: ['write:api_keys'] });
    expect(narrowed.statusCode, narrowed.body).toBe(200);
    await record(w.workspaceId, 'payout.failed');
    const got = await untilEnd(s);
    expect(got.filter((m) => m.event !== 'error')).toEqual([]);
    expect(errorEvent(got)).toMatchObject({ status: 403, code: 'METHOD_NOT_ENTITLED', retryable: false });
  });

  it('the SDK stops with CorridorError METHOD_NOT_ENTITLED when read:webhooks is removed, after the events it could read', async () => {
    const w = await newWorkspace(t.app, { scopes: ['read:webhooks', 'write:api_keys'] });
    const start = await record(w.workspaceId, 'payout.processing');
    const first = await record(w.workspaceId);
    const corridor = new Corridor({ baseUrl: base, clientId: w.clientId, clientSecret: w.clientSecret, retryBaseDelayMs: 20 });
    const received: CorridorEvent[] = [];
    const reconnects: unknown[] = [];
    const following = (async () => {
      for await (const event of corridor.events.stream({ lastEventId: start, onReconnect: (reason) => reconnects.push(reason) })) {
        received.push(event);
        if (received.length === 1) {
          const narrowed = await w.request('PUT', `/v1/api-keys/${w.clientId}/scopes`, { scopes: ['write:api_keys'] });
          expect(narrowed.statusCode, narrowed.body).toBe(200);
          await record(w.workspaceId, 'payout.failed');
        }
      }
    })();
    const err = await following.then(() => undefined, (e: unknown) => e);
    expect(err).toBeInstanceOf(CorridorError);
    expect(err).toMatchObject({ status: 403, code: 'METHOD_NOT_ENTITLED', retryable: false });
    expect(received.map((e) => e.id)).toEqual([first]);
    expect(reconnects).toEqual([]);
  });

  it('corridor listen stops with a clear error once its credential is revoked, forwarding nothing more', async () => {
    const w = await newWorkspace(t.app);
    const start = await record(w.workspaceId, 'payout.processing');
    const lines: string[] = [];
    const corridor = new Corridor({ baseUrl: base, clientId: w.clientId, clientSecret: w.clientSecret, retryBaseDelayMs: 20 });
    // Nothing listens at the forwarding address: each forwarded event is one line with its error.
    const following = listen({ corridor, forwardTo: 'http://127.0.0.1:9/hooks', lastEventId: start, write: (l) => lines.push(l) });
    const outcome = following.then(() => undefined, (e: unknown) => e);
    await record(w.workspaceId);
    for (let i = 0; i < 400 && !lines.some((l) => / -> /.test(l)); i++) await new Promise((r) => setTimeout(r, 25));
    const revoked = await operator(t.app, 'DELETE', `/operator/v1/workspaces/${w.workspaceId}/credentials/${w.clientId}`);
    expect(revoked.statusCode, revoked.body).toBe(200);
    await record(w.workspaceId, 'payout.failed');
    const err = await outcome;
    expect(err).toBeInstanceOf(Error);
    expect((err as Error).message).toBe('Stream ended: The credential was revoked (CREDENTIAL_REVOKED); not reconnecting');
    expect(lines.filter((l) => / -> /.test(l))).toHaveLength(1);
    expect(lines.find((l) => l.startsWith('Stream dropped') || l.startsWith('Token expired'))).toBeUndefined();
  });
});
