import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordEvent } from '../../src/domains/events/events.service.js';
import { createTestApp, newWorkspace, onPostgres, operator, type Caller, type TestApp } from '../helpers/app.js';
import { openSse, type SseConnection } from '../helpers/sse.js';

let t: TestApp;
let base: string;
let c: Caller;
const open: SseConnection[] = [];

beforeAll(async () => {
  t = await createTestApp({ env: { EVENT_STREAMS_PER_WORKSPACE_MAX: '3', EVENT_STREAM_HEARTBEAT_MS: '200', EVENT_STREAM_POLL_MS: '50' } });
  base = await t.app.listen({ port: 0, host: '127.0.0.1' });
  c = await newWorkspace(t.app);
});
afterAll(async () => {
  for (const s of open) s.close();
  await t.close();
});

async function stream(caller: Caller, headers: Record<string, string> = {}, query = ''): Promise<SseConnection> {
  const s = await openSse(`${base}/v1/events/stream${query}`, { authorization: `Bearer ${caller.token}`, ...headers });
  open.push(s);
  return s;
}

async function record(workspaceId: string, type = 'payout.paid', data: Record<string, unknown> = {}, accountId?: string): Promise<string> {
  return t.ctx.db.tx((tx) => recordEvent(tx, { workspaceId, accountId, type, data }));
}

describe('GET /v1/events/stream', () => {
  // Each test that expects exact events from "now" streams a workspace of its own: a stream starts
  // before every transaction still running anywhere on the server, so events committed just before
  // it opened may come first when another transaction is long (see docs/guides/webhooks.md, Live event stream).
  it('streams each event as it commits, with the event id as the SSE id and the event as data', async () => {
    const w = await newWorkspace(t.app);
    const s = await stream(w);
    expect(s.status).toBe(200);
    expect(s.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const id = await record(w.workspaceId, 'payout.paid', { id: 'p1', amount: '10.00' });
    const [msg] = await s.events(1);
    expect(msg?.id).toBe(id);
    expect(msg?.event).toBe('payout.paid');
    expect(JSON.parse(msg?.data ?? '')).toMatchObject({ id, type: 'payout.paid', test: false, data: { id: 'p1', amount: '10.00' }, accountId: null });
    s.close();
  });

  it('resumes after Last-Event-ID with every later event and none twice', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push(await record(c.workspaceId, 'payout.processing', { n: i }));
    const s = await stream(c, { 'last-event-id': ids[1] as string });
    const got = await s.events(3);
    expect(got.map((m) => m.id)).toEqual(ids.slice(2));
    const later = await record(c.workspaceId, 'payout.paid', { n: 5 });
    expect((await s.events(1))[0]?.id).toBe(later);
    s.close();
  });

  it('answers 400 for a Last-Event-ID that is not an event of the workspace', async () => {
    const other = await newWorkspace(t.app);
    const foreign = await record(other.workspaceId);
    const s = await stream(c, { 'last-event-id': foreign });
    expect(s.status).toBe(400);
    expect(JSON.parse(await s.text())).toMatchObject({ code: 'LAST_EVENT_ID_UNKNOWN', retryable: false });
  });

  it("sends only the caller's workspace's events, only the types asked for, and heartbeats while idle", async () => {
    const other = await newWorkspace(t.app);
    const s = await stream(c, {}, '?types=payout.failed,payout.cancelled');
    await record(other.workspaceId, 'payout.failed');
    await record(c.workspaceId, 'payout.paid');
    const wanted = await record(c.workspaceId, 'payout.cancelled');
    const [msg] = await s.events(1);
    expect(msg?.id).toBe(wanted);
    let heartbeat = false;
    for (let i = 0; i < 10 && !heartbeat; i++) heartbeat = (await s.next(2000))?.comment === 'heartbeat';
    expect(heartbeat).toBe(true);
    s.close();
  });

  it('with Service-Account-Id, streams only the events of that sub-account', async () => {
    const sub = await c.request('POST', '/v1/accounts', { name: 'Branch', country: 'GB' });
    expect(sub.statusCode, sub.body).toBe(201);
    const accountId = sub.json<{ id: string }>().id;
    const s = await stream(c, { 'service-account-id': accountId });
    await record(c.workspaceId, 'payout.paid');
    const mine = await record(c.workspaceId, 'payout.paid', {}, accountId);
    // Its account.created may come first (committed just before the stream opened).
    const got = await s.events(1);
    if (got[0]?.id !== mine) got.push(...(await s.events(1)));
    expect(got.at(-1)?.id).toBe(mine);
    for (const msg of got) expect(JSON.parse(msg.data ?? '').accountId).toBe(accountId);
    s.close();
  });

  it('needs a token with read:webhooks', async () => {
    const noToken = await openSse(`${base}/v1/events/stream`, {});
    expect(noToken.status).toBe(401);
    const narrow = await newWorkspace(t.app, { scopes: ['read:payouts'] });
    const refused = await stream(narrow);
    expect(refused.status).toBe(403);
    expect(JSON.parse(await refused.text())).toMatchObject({ code: 'METHOD_NOT_ENTITLED' });
  });

  it('refuses a stream past the per-workspace limit with 429 problem details, and takes one again once a stream closes', async () => {
    const w = await newWorkspace(t.app);
    const streams = [await stream(w), await stream(w), await stream(w)];
    expect(streams.map((s) => s.status)).toEqual([200, 200, 200]);
    const fourth = await stream(w);
    expect(fourth.status).toBe(429);
    expect(fourth.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(JSON.parse(await fourth.text())).toMatchObject({ code: 'EVENT_STREAMS_EXCEEDED', retryable: true });
    streams[0]?.close();
    let again: SseConnection | undefined;
    for (let i = 0; i < 250; i++) {
      again = await stream(w);
      if (again.status === 200) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(again?.status).toBe(200);
    for (const s of [...streams, again]) s?.close();
  });

  it('is documented in the OpenAPI document as text/event-stream', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json<{ paths: Record<string, { get: { responses: Record<string, { content: Record<string, unknown> }> } }> }>();
    expect(Object.keys(doc.paths['/v1/events/stream']?.get.responses['200']?.content ?? {})).toEqual(['text/event-stream']);
  });
});

describe.runIf(onPostgres)('GET /v1/events/stream over several processes on one PostgreSQL', () => {
  it('never skips an event whose transaction commits after one with a later seq', async () => {
    const w = await newWorkspace(t.app);
    const s = await stream(w);
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let slowId = '';
    const slow = t.ctx.db.tx(async (tx) => {
      slowId = await recordEvent(tx, { workspaceId: w.workspaceId, type: 'payout.processing', data: { slow: true } });
      await held;
    });
    await new Promise((r) => setTimeout(r, 100));
    const fast = await record(w.workspaceId, 'payout.paid', { fast: true });
    await new Promise((r) => setTimeout(r, 300)); // several polls while the slow transaction is open
    release();
    await slow;
    const got = await s.events(2);
    expect(new Set(got.map((m) => m.id))).toEqual(new Set([slowId, fast]));
    s.close();
  });

  /**
   * A stream of `w` opened on a second API process on the same database that polls once a minute:
   * what it streams at once came from a notification (or its own quick look-again).
   */
  async function onQuietSecondProcess(w: Caller, run: (s: SseConnection) => Promise<void>): Promise<void> {
    const second = await createTestApp({ databaseUrl: t.config.databaseUrl as string, env: { ...t.env, EVENT_STREAM_POLL_MS: '60000' } });
    try {
      const secondBase = await second.app.listen({ port: 0, host: '127.0.0.1' });
      const s = await openSse(`${secondBase}/v1/events/stream`, { authorization: `Bearer ${w.token}` });
      open.push(s);
      expect(s.status).toBe(200);
      await new Promise((r) => setTimeout(r, 200)); // its listener is connected
      await run(s);
      s.close();
    } finally {
      await second.app.close();
      await second.ctx.db.close();
    }
  }

  it("ends a stream on another API process as soon as its credential is revoked here, without waiting for an event or a poll", async () => {
    const w = await newWorkspace(t.app);
    await onQuietSecondProcess(w, async (s) => {
      const revoked = await operator(t.app, 'DELETE', `/operator/v1/workspaces/${w.workspaceId}/credentials/${w.clientId}`);
      expect(revoked.statusCode, revoked.body).toBe(200);
      const deadline = Date.now() + 5000;
      let msg = await s.next(5000);
      while (msg?.comment !== undefined) msg = await s.next(Math.max(1, deadline - Date.now()));
      expect(msg?.event).toBe('error');
      expect(JSON.parse(msg?.data ?? '{}')).toMatchObject({ code: 'CREDENTIAL_REVOKED', retryable: false });
      expect(await s.next(1000)).toBeUndefined();
    });
  });

  it('delivers events committed by another API process, woken by NOTIFY, and resumes on the other process', async () => {
    const w = await newWorkspace(t.app);
    await onQuietSecondProcess(w, async (s) => {
      const first = await record(w.workspaceId, 'payout.paid', { from: 'first process' });
      const [msg] = await s.events(1, 5000);
      expect(msg?.id).toBe(first);
      s.close();
      const more = [await record(w.workspaceId, 'payout.failed'), await record(w.workspaceId, 'payout.cancelled')];
      const resumed = await stream(w, { 'last-event-id': first });
      expect((await resumed.events(2)).map((m) => m.id)).toEqual(more);
      resumed.close();
    });
  });

  it('delivers an event held behind an older open transaction as soon as that transaction ends, not at the next poll', async () => {
    const w = await newWorkspace(t.app);
    await onQuietSecondProcess(w, async (s) => {
      // An older transaction (no event in it) is open when the event commits: the event waits behind it.
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      const older = t.ctx.db.tx(async (tx) => {
        await tx.query('SELECT pg_current_xact_id()');
        await held;
      });
      await new Promise((r) => setTimeout(r, 50));
      const id = await record(w.workspaceId, 'payout.paid', { behind: 'an older transaction' });
      await expect(s.events(1, 500)).rejects.toThrow('no SSE message in time');
      release();
      await older;
      const [msg] = await s.events(1, 5000);
      expect(msg?.id).toBe(id);
    });
  });

  it('keeps streaming by polling while its LISTEN connection is down, and listens again', async () => {
    const w = await newWorkspace(t.app);
    const s = await stream(w);
    const listeners = async () =>
      t.ctx.db.query<{ pid: number }>(
        "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND query = 'LISTEN corridor_events'",
      );
    for (let i = 0; i < 100 && (await listeners()).length === 0; i++) await new Promise((r) => setTimeout(r, 20));
    const [listener] = await listeners();
    expect(listener).toBeDefined();
    await t.ctx.db.query('SELECT pg_terminate_backend($1)', [listener?.pid]);
    const id = await record(w.workspaceId, 'payout.paid', { while: 'listener down' });
    expect((await s.events(1, 5000))[0]?.id).toBe(id);
    let back = false;
    for (let i = 0; i < 200 && !back; i++) {
      back = (await listeners()).some((l) => l.pid !== listener?.pid);
      if (!back) await new Promise((r) => setTimeout(r, 25));
    }
    expect(back).toBe(true);
    s.close();
  });
});
