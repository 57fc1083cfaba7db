import { signedWith } from '../helpers/https-receiver.js';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Webhook } from 'standardwebhooks';
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Corridor } from '../../packages/sdk/src/index.js';
import { listen } from '../../src/cli/listen.js';
import { parseOverrides, trigger } from '../../src/cli/trigger.js';
import { createTestApp, newWorkspace, onPostgres, type Caller, type TestApp } from '../helpers/app.js';
import { CORRIDOR_BIN, corridorFreeEnv } from '../helpers/processes.js';

interface Got {
  headers: http.IncomingHttpHeaders;
  body: string;
}

let t: TestApp;
let base: string;
let c: Caller;
let receiver: http.Server;
let receiverUrl: string;
const received: Got[] = [];
const streamSockets = new Set<Socket>();

async function freePort(): Promise<number> {
  const s = http.createServer();
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  const { port } = s.address() as AddressInfo;
  await new Promise((resolve) => s.close(resolve));
  return port;
}

function runCli(args: string[], env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [CORRIDOR_BIN, ...args], { env: { ...corridorFreeEnv(), ...env }, timeout: 30_000 }, (err, stdout, stderr) =>
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

beforeAll(async () => {
  // Upload URLs (the application trigger PUTs a document) point at PUBLIC_BASE_URL: the port the app listens on.
  const port = await freePort();
  t = await createTestApp({
    env: { PUBLIC_BASE_URL: `http://127.0.0.1:${port}`, EVENT_STREAM_POLL_MS: '50' },
    beforeReady: (app) => {
      app.addHook('onRequest', async (req) => {
        if (req.url.startsWith('/v1/events/stream')) streamSockets.add(req.raw.socket);
      });
    },
  });
  base = await t.app.listen({ port, host: '127.0.0.1' });
  c = await newWorkspace(t.app);
  receiver = http.createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    req.on('end', () => {
      received.push({ headers: req.headers, body });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  receiverUrl = `http://localhost:${(receiver.address() as AddressInfo).port}/hooks`;
});
afterAll(async () => {
  await new Promise((resolve) => receiver.close(resolve));
  await t.close();
});

const sdk = (caller: Caller = c) => new Corridor({ baseUrl: base, clientId: caller.clientId, clientSecret: caller.clientSecret, retryBaseDelayMs: 20 });

async function until(check: () => boolean, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 25));
  }
}

const typesOf = (list: Got[]) => list.map((g) => (JSON.parse(g.body) as { type: string }).type);

describe('corridor listen and corridor trigger', () => {
  it('forwards the triggered events, signed with the printed secret, one line each, only the types asked for, and resumes after a dropped connection', async () => {
    const lines: string[] = [];
    const controller = new AbortController();
    const following = listen({ corridor: sdk(), forwardTo: receiverUrl, types: ['payout.paid', 'payout.cancelled', 'application.approved'], signal: controller.signal, write: (l) => lines.push(l) });
    await until(() => streamSockets.size > 0);
    const secret = /Signing secret: (whsec_\S+)/.exec(lines.join('\n'))?.[1];
    expect(secret).toBeDefined();

    const paid = await trigger(sdk(), 'payout.paid', () => undefined);
    expect(paid.find((o) => o.object === 'payout' && o.status === 'paid')).toBeDefined();
    await until(() => received.length >= 1);

    // The stream connection drops: listen reconnects with Last-Event-ID and misses nothing.
    for (const socket of streamSockets) socket.destroy();
    streamSockets.clear();
    await trigger(sdk(), 'payout.cancelled', () => undefined);
    await trigger(sdk(), 'application.approved', () => undefined);
    await until(() => received.length >= 3);
    await new Promise((r) => setTimeout(r, 300)); // nothing more arrives
    expect(typesOf(received)).toEqual(['payout.paid', 'payout.cancelled', 'application.approved']);
    expect(streamSockets.size).toBeGreaterThan(0); // it reconnected
    expect(lines.find((l) => l.startsWith('Stream dropped'))).toMatch(/reconnecting in [\d.]+ s after evt_/);

    for (const got of received) {
      expect(got.headers['content-type']).toBe('application/json');
      expect(signedWith(got.body, got.headers, secret as string)).toBe(true);
      expect(signedWith(got.body.replace('"', ' "'), got.headers, secret as string)).toBe(false);
      expect(Object.keys(JSON.parse(got.body) as object)).toEqual(['id', 'type', 'createdAt', 'test', 'data']);
    }
    const forwarded = lines.filter((l) => / -> /.test(l));
    expect(forwarded).toHaveLength(3);
    expect(forwarded[0]).toMatch(/payout\.paid\s+evt_\S+ {2}-> 204 in \d+ ms$/);
    controller.abort();
    await following;
  });

  it('trigger prints the objects it created and the event of each payout move it knows', async () => {
    const lines: string[] = [];
    const created = await trigger(sdk(), 'payout.failed', (l) => lines.push(l));
    expect(created.map((o) => o.object)).toEqual(['beneficiary', 'payout', 'payout']);
    expect(created.at(-1)).toMatchObject({ status: 'failed' });
    expect(lines.at(-1)).toBe('Triggered payout.failed');
    const events = await sdk().events.list({ type: 'payout.failed' });
    expect(events.data.map((e) => (e.data as { id: string }).id)).toContain(created.at(-1)?.id);
  });

  it('runs as `corridor trigger <type>` with the credentials from the environment, and refuses to run without them', async () => {
    const ok = await runCli(['trigger', 'payout.cancelled'], { CORRIDOR_BASE_URL: base, CORRIDOR_CLIENT_ID: c.clientId, CORRIDOR_CLIENT_SECRET: c.clientSecret });
    expect(ok.stderr).toBe('');
    expect(ok.code).toBe(0);
    expect(ok.stdout).toMatch(/^payout [0-9a-f-]{36} cancelled$/m);
    expect(ok.stdout.trim().split('\n').at(-1)).toBe('Triggered payout.cancelled');
    const missing = await runCli(['listen', '--forward-to', receiverUrl], { CORRIDOR_BASE_URL: base });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/credentials needed/);
  });

  it('signs forwards with the Standard Webhooks headers too, with a secret kept across restarts', async () => {
    const stateFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'corridor-listen-')), 'listen.json');
    const secrets: string[] = [];
    for (const run of [1, 2]) {
      const lines: string[] = [];
      const before = received.length;
      const controller = new AbortController();
      const following = listen({ corridor: sdk(), forwardTo: receiverUrl, types: ['payout.cancelled'], stateFile, signal: controller.signal, write: (l) => lines.push(l) });
      await until(() => streamSockets.size > 0 && lines.some((l) => l.startsWith('Signing secret')));
      await trigger(sdk(), 'payout.cancelled', () => undefined);
      await until(() => received.length > before);
      controller.abort();
      await following;
      const secret = /Signing secret: (whsec_\S+)/.exec(lines.join('\n'))?.[1] as string;
      secrets.push(secret);
      const got = received.at(-1) as Got;
      expect(new Webhook(secret).verify(got.body, got.headers as Record<string, string>), `run ${run}`).toEqual(JSON.parse(got.body));
      expect(signedWith(got.body, got.headers, secret)).toBe(true);
      streamSockets.clear();
    }
    expect(secrets[1]).toBe(secrets[0]);
    fs.rmSync(path.dirname(stateFile), { recursive: true, force: true });
  });

  it('says that payout.reverted is recorded but not delivered, as the spec says', async () => {
    const lines: string[] = [];
    await trigger(sdk(), 'payout.reverted', (l) => lines.push(l));
    expect(lines.at(-1)).toMatch(/^Recorded payout\.reverted, not delivered: per the spec/);
    expect(lines.join('\n')).not.toMatch(/Triggered/);
  });

  it('sets the fields --override names in the requests it sends (the event\'s object by default), and refuses others before sending anything', async () => {
    const created = await trigger(sdk(), 'payout.paid', () => undefined, {
      overrides: ['clientRef=inv-override-7', 'payout:amount=12.14', 'beneficiary:name=Mary Somerville'],
    });
    const payout = created.filter((o) => o.object === 'payout').at(-1) as unknown as { id: string; clientRef: string; status: string };
    expect(payout).toMatchObject({ clientRef: 'inv-override-7', status: 'paid' });
    expect(await sdk().payouts.get({ id: payout.id })).toMatchObject({ clientRef: 'inv-override-7', amount: '12.14', status: 'paid' });
    expect(created.find((o) => o.object === 'beneficiary')).toMatchObject({ name: 'Mary Somerville' });

    expect(() => parseOverrides('payout.paid', ['order:fromAmount=5'])).toThrow('trigger payout.paid creates payout, beneficiary, not order');
    expect(() => parseOverrides('payout.paid', ['clientRef'])).toThrow(/--override takes \[resource:\]field=value/);
    const refused = await runCli(['trigger', 'payout.paid', '--override', 'deposit:amount=1'], { CORRIDOR_BASE_URL: base, CORRIDOR_CLIENT_ID: c.clientId, CORRIDOR_CLIENT_SECRET: c.clientSecret });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/creates payout, beneficiary, not deposit/);
  });

  it('refuses an event type it cannot cause', async () => {
    await expect(trigger(sdk(), 'payout.unknown', () => undefined)).rejects.toThrow(/cannot trigger payout\.unknown/);
  });

  it('causes order, virtual account and deposit events through the public API and the sandbox moves', async () => {
    for (const [type, object] of [
      ['order.completed', 'order'],
      ['order.expired', 'order'],
      ['virtual_account.active', 'virtual_account'],
      ['deposit.completed', 'deposit'],
    ] as const) {
      const created = await trigger(sdk(), type, () => undefined);
      const subject = created.filter((o) => o.object === object).at(-1);
      expect(subject, type).toBeDefined();
      const events = await sdk().events.list({ type, limit: 100 });
      expect(events.data.map((e) => (e.data as { id: string }).id), type).toContain(subject?.id);
    }
  });
});

describe.skipIf(!onPostgres)('corridor trigger outside the sandbox', () => {
  it('is refused in production', async () => {
    const prod = await createTestApp({ env: { CORRIDOR_ENV: 'production' } });
    try {
      const prodBase = await prod.app.listen({ port: 0, host: '127.0.0.1' });
      const w = await newWorkspace(prod.app);
      const corridor = new Corridor({ baseUrl: prodBase, clientId: w.clientId, clientSecret: w.clientSecret });
      await expect(trigger(corridor, 'payout.paid', () => undefined)).rejects.toThrow(/only against a sandbox/);
    } finally {
      await prod.close();
    }
  });
});
