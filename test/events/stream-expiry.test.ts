import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Corridor, CorridorError, type CorridorEvent } from '../../packages/sdk/src/index.js';
import { listen } from '../../src/cli/listen.js';
import { recordEvent } from '../../src/domains/events/events.service.js';
import { createTestApp, newWorkspace, type Caller, type TestApp } from '../helpers/app.js';
import { openSse, type SseConnection, type SseMessage } from '../helpers/sse.js';

// Tokens of this app live 2 s (TOKEN_LIFETIME_SEC; a JWT's exp is in whole seconds, so 1 to 2 s):
// an open stream ends at its token's expiry, and the SDK and `corridor listen` resume with a new one.
let t: TestApp;
let base: string;
const open: SseConnection[] = [];

beforeAll(async () => {
  t = await createTestApp({ env: { EVENT_STREAM_POLL_MS: '50', EVENT_STREAM_HEARTBEAT_MS: '200', TOKEN_LIFETIME_SEC: '2' } });
  base = await t.app.listen({ port: 0, host: '127.0.0.1' });
});
afterAll(async () => {
  for (const s of open) s.close();
  await t.close();
});

async function record(workspaceId: string, type = 'payout.paid', data: Record<string, unknown> = {}): Promise<string> {
  return t.ctx.db.tx((tx) => recordEvent(tx, { workspaceId, type, data }));
}

const sdk = (caller: Caller) => new Corridor({ baseUrl: base, clientId: caller.clientId, clientSecret: caller.clientSecret, retryBaseDelayMs: 20 });

/** Records `count` events, one every `everyMs`, spanning several token lifetimes; resolves to their ids in order. */
async function recordSpread(workspaceId: string, count: number, everyMs: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    ids.push(await record(workspaceId, 'payout.paid', { n: i }));
    await new Promise((r) => setTimeout(r, everyMs));
  }
  return ids;
}

async function until(check: () => boolean, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe('GET /v1/events/stream at its token\'s expiry', () => {
  it("closes the stream at its token's expiry with a retryable TOKEN_EXPIRED error event, and sends nothing after it", async () => {
    const w = await newWorkspace(t.app);
    const openedAt = Date.now();
    const s = await openSse(`${base}/v1/events/stream`, { authorization: `Bearer ${w.token}` });
    open.push(s);
    expect(s.status).toBe(200);
    const got: SseMessage[] = [];
    const deadline = openedAt + 4000;
    for (let msg = await s.next(4000); msg; msg = await s.next(Math.max(1, deadline - Date.now()))) if (msg.comment === undefined) got.push(msg);
    expect(Date.now() - openedAt).toBeLessThan(3500);
    expect(got).toHaveLength(1);
    expect(got[0]?.event).toBe('error');
    expect(got[0]?.id).toBeUndefined();
    expect(JSON.parse(got[0]?.data ?? '{}')).toMatchObject({ status: 401, code: 'TOKEN_EXPIRED', category: 'authentication', retryable: true });
    await record(w.workspaceId);
    expect(await s.next(500)).toBeUndefined();
  });

  it('the SDK resumes with a new token and Last-Event-ID at each expiry, losing and repeating nothing', async () => {
    const w = await newWorkspace(t.app);
    const start = await record(w.workspaceId, 'payout.processing');
    const reconnects: unknown[] = [];
    const controller = new AbortController();
    const received: CorridorEvent[] = [];
    const following = (async () => {
      const stream = sdk(w).events.stream({ lastEventId: start, signal: controller.signal, onReconnect: (reason) => reconnects.push(reason) });
      for await (const event of stream) received.push(event);
    })();
    const ids = await recordSpread(w.workspaceId, 25, 200); // about 5 s: two or more expiries
    await until(() => received.length >= ids.length);
    await new Promise((r) => setTimeout(r, 300)); // nothing more arrives
    controller.abort();
    await following;
    expect(received.map((e) => e.id)).toEqual(ids);
    const expired = reconnects.filter((r) => r instanceof CorridorError && r.code === 'TOKEN_EXPIRED');
    expect(expired.length).toBeGreaterThanOrEqual(2);
  });

  it('corridor listen resumes with a new token at each expiry, forwarding every event once, in order', async () => {
    const w = await newWorkspace(t.app);
    const forwarded: string[] = [];
    const receiver = http.createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
      req.on('end', () => {
        forwarded.push((JSON.parse(body) as { id: string }).id);
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const start = await record(w.workspaceId, 'payout.processing');
    const lines: string[] = [];
    const controller = new AbortController();
    const forwardTo = `http://localhost:${(receiver.address() as AddressInfo).port}/hooks`;
    const following = listen({ corridor: sdk(w), forwardTo, lastEventId: start, signal: controller.signal, write: (l) => lines.push(l) });
    try {
      const ids = await recordSpread(w.workspaceId, 20, 200);
      await until(() => forwarded.length >= ids.length);
      await new Promise((r) => setTimeout(r, 300));
      controller.abort();
      await following;
      expect(forwarded).toEqual(ids);
      expect(lines.filter((l) => /^Token expired; resuming with a new token after evt_\S+$/.test(l)).length).toBeGreaterThanOrEqual(1);
      expect(lines.find((l) => l.startsWith('Stream dropped'))).toBeUndefined();
    } finally {
      controller.abort();
      await new Promise((resolve) => receiver.close(resolve));
    }
  });
});
