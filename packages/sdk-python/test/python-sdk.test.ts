/**
 * The Python SDK (issue 38, point 5) against a live Corridor, run by the machine's `python3`: the
 * token cache, a beneficiary and a payout in the sandbox, a list over several pages, a 404 as
 * CorridorError, POSTs retried with their Idempotency-Key (a 503 without problem details, an answer
 * lost on the way back: both through a local proxy in front of the server), and a real webhook
 * delivery verified (altered ones refused). The SDK's pure parts: its unittest suite.
 */
import { execFile, execFileSync, spawn } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRunner } from '../../../src/jobs.js';
import type { JobRunner } from '../../../src/platform/jobs/runner.js';
import { listeningTestApp, type Caller, type TestApp } from '../../../test/helpers/app.js';
import { HttpsReceiver } from '../../../test/helpers/https-receiver.js';
import { payingWorkspace } from '../../../test/payouts/helpers.js';

const SDK_DIR = path.resolve(import.meta.dirname, '..');

/** Whether `python3` runs here; the test is skipped (saying so) only when it does not. */
const python3 = ((): string | undefined => {
  try {
    return execFileSync('python3', ['--version'], { encoding: 'utf8' }).trim();
  } catch {
    return undefined;
  }
})();
if (!python3) console.warn('python-sdk.test.ts: skipped, python3 is not installed on this machine');

/** Runs `python3 args` in packages/sdk-python (the `corridor` package importable), `stdin` given; its stdout. */
function runPython(args: string[], env: Record<string, string>, stdin = ''): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn('python3', args, { cwd: SDK_DIR, env: { ...process.env, PYTHONPATH: SDK_DIR, PYTHONDONTWRITEBYTECODE: '1', ...env } });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(out) : reject(new Error(`python3 ${args.join(' ')} exited ${code}\n${err}`))));
    child.stdin.end(stdin);
  });
}

interface Seen {
  method: string;
  url: string;
  idempotencyKey: string | undefined;
}

/**
 * A proxy in front of the server that records each request and, once per `x-test-fault` value,
 * answers `503-…` itself with a legacy 503 (no problem details), or forwards `drop-…` and cuts the
 * connection instead of answering (the server has decided it: the answer is lost on the way back).
 */
async function faultyProxy(target: string): Promise<{ url: string; seen: Seen[]; close: () => Promise<void> }> {
  const seen: Seen[] = [];
  const faulted = new Set<string>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const key = req.headers['idempotency-key'];
      seen.push({ method: req.method ?? 'GET', url: req.url ?? '/', idempotencyKey: typeof key === 'string' ? key : undefined });
      const fault = req.headers['x-test-fault'];
      const first = typeof fault === 'string' && !faulted.has(fault);
      if (first) faulted.add(fault);
      if (first && fault.startsWith('503-')) {
        res.writeHead(503, { 'content-type': 'application/json', 'retry-after': '0' }).end(JSON.stringify({ statusCode: 503, message: 'Service Unavailable', error: 'SERVICE_UNAVAILABLE' }));
        return;
      }
      const headers = { ...req.headers };
      delete headers.host;
      const upstream = http.request(new URL(req.url ?? '/', target), { method: req.method, headers }, (answer) => {
        const body: Buffer[] = [];
        answer.on('data', (c: Buffer) => body.push(c));
        answer.on('end', () => {
          if (first && fault.startsWith('drop-')) {
            req.socket.destroy();
            return;
          }
          res.writeHead(answer.statusCode ?? 502, answer.headers).end(Buffer.concat(body));
        });
      });
      upstream.on('error', () => req.socket.destroy());
      upstream.end(Buffer.concat(chunks));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

describe.skipIf(!python3)('the Python SDK (packages/sdk-python) against a live Corridor', () => {
  let t: TestApp;
  let runner: JobRunner;
  let caller: Caller;
  let proxy: Awaited<ReturnType<typeof faultyProxy>>;
  let receiver: HttpsReceiver;

  beforeAll(async () => {
    t = await listeningTestApp({ JOB_POLL_MS: '20' });
    runner = createRunner(t.ctx);
    runner.start();
    caller = await payingWorkspace(t);
    proxy = await faultyProxy(t.config.publicBaseUrl);
    receiver = await HttpsReceiver.start();
  }, 300_000);
  afterAll(async () => {
    await receiver?.close();
    await proxy?.close();
    await runner?.stop();
    await t?.close();
  });

  it('passes its unittest suite (errors, Retry-After, backoff, webhook signatures, paging) on this python3', async () => {
    const out = await new Promise<string>((resolve, reject) =>
      execFile('python3', ['-m', 'unittest', 'discover', '-s', 'tests'], { cwd: SDK_DIR, env: { ...process.env, PYTHONDONTWRITEBYTECODE: '1' } }, (err, _stdout, stderr) =>
        err ? reject(new Error(stderr)) : resolve(stderr),
      ),
    );
    expect(out).toMatch(/Ran \d+ tests/);
    expect(out.trim().split('\n').at(-1)).toBe('OK');
  });

  it('gets a token once, creates a beneficiary and a payout, retries POSTs with their key, pages a list, raises a 404 as CorridorError, and verifies a real delivery', async () => {
    const run = Date.now().toString(36);
    const out = JSON.parse(
      await runPython(['test/integration.py', 'api'], {
        CORRIDOR_BASE_URL: proxy.url,
        CORRIDOR_CLIENT_ID: caller.clientId,
        CORRIDOR_CLIENT_SECRET: caller.clientSecret,
        WEBHOOK_URL: receiver.url('/python-hook'),
        RUN: run,
      }),
    ) as {
      token: string;
      sameToken: boolean;
      beneficiaries: string[];
      beneficiaryRequestId: string | null;
      payout: { id: string; status: string; amount: string; clientRef: string };
      payoutsWithRef: string[];
      firstPage: { size: number; hasMore: boolean };
      listed: string[];
      notFound: { status: number; code: string; requestId: string; retryable: boolean; isException: boolean } | null;
      webhookSecret: string;
    };

    // One token for every call of the run (cached), and it is a token the server accepts.
    expect(out.sameToken).toBe(true);
    expect(proxy.seen.filter((r) => r.url === '/oauth/token')).toHaveLength(1);
    expect((await t.app.inject({ method: 'GET', url: '/v1/account', headers: { authorization: `Bearer ${out.token}` } })).statusCode).toBe(200);

    // The 503 (no problem details) was retried with the same Idempotency-Key; one beneficiary made.
    const beneficiaryPosts = proxy.seen.filter((r) => r.method === 'POST' && r.url === '/v1/beneficiaries');
    expect(beneficiaryPosts).toHaveLength(6);
    expect(beneficiaryPosts[0]!.idempotencyKey).toMatch(/^[0-9a-f-]{36}$/);
    expect(beneficiaryPosts[1]!.idempotencyKey).toBe(beneficiaryPosts[0]!.idempotencyKey);
    expect(new Set(beneficiaryPosts.map((r) => r.idempotencyKey)).size).toBe(5);
    expect(out.beneficiaryRequestId).toMatch(/^req_/);

    // The payout whose answer was lost: sent twice with one key, made once, answered on the retry.
    const payoutPosts = proxy.seen.filter((r) => r.method === 'POST' && r.url === '/v1/payouts');
    expect(payoutPosts).toHaveLength(2);
    expect(payoutPosts[1]!.idempotencyKey).toBe(payoutPosts[0]!.idempotencyKey);
    expect(out.payout).toMatchObject({ amount: '10.00', clientRef: `py-${run}` });
    expect(out.payoutsWithRef).toEqual([out.payout.id]);
    const stored = await caller.request('GET', `/v1/payouts/${out.payout.id}`);
    expect(stored.json<{ beneficiaryId: string }>().beneficiaryId).toBe(out.beneficiaries[0]);

    // Five beneficiaries, two a page: every one listed once, from three pages.
    expect(out.firstPage).toEqual({ size: 2, hasMore: true });
    expect([...out.listed].sort()).toEqual([...out.beneficiaries].sort());
    expect(proxy.seen.filter((r) => r.method === 'GET' && r.url.startsWith('/v1/beneficiaries?'))).toHaveLength(3);

    expect(out.notFound).toMatchObject({ status: 404, code: expect.stringMatching(/NOT_FOUND/), retryable: false, isException: true });
    expect(out.notFound?.requestId).toMatch(/^req_/);

    // The webhook.test delivery the script asked for, as the receiver got it, verified by the SDK.
    expect(out.webhookSecret).toMatch(/^whsec_/);
    const [delivery] = await receiver.waitFor('/python-hook', 1, 60_000);
    if (!delivery) throw new Error('no delivery');
    const verified = JSON.parse(await runPython(['test/integration.py', 'verify'], {}, JSON.stringify({ body: delivery.body, headers: delivery.headers, secret: out.webhookSecret })));
    expect(verified).toEqual({
      verified: true,
      asBytes: true,
      eventType: JSON.parse(delivery.body).type,
      tamperedBody: false,
      wrongSecret: false,
      oldTimestamp: false,
      onlyStandardHeaders: true,
      onlySpecHeaders: true,
      constructTampered: 'refused',
    });
  });
});
