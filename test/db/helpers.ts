import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CORRIDOR_BIN, corridorFreeEnv, freePort } from '../helpers/processes.js';
import { ADA } from '../payouts/helpers.js';

/** Corridor processes run as an operator runs them (`corridor start --role …`), for test/operations/. */

export interface CorridorSetup {
  env: NodeJS.ProcessEnv;
  clientId: string;
  clientSecret: string;
  dataDir: string;
  cleanup: () => void;
}

/** The environment of Corridor processes sharing one database (one encryption key, the bootstrap credential). */
export function corridorEnv(databaseUrl: string, extra: Record<string, string> = {}): CorridorSetup {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'corridor-ops-'));
  const clientId = randomUUID();
  const clientSecret = `cs_ops_${randomBytes(12).toString('hex')}`;
  const env: NodeJS.ProcessEnv = {
    ...corridorFreeEnv(),
    DATABASE_URL: databaseUrl,
    CORRIDOR_DATA_DIR: dataDir,
    CORRIDOR_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    HOST: '127.0.0.1',
    LOG_LEVEL: 'error',
    SANDBOX_STEP_MS: '100',
    JOB_POLL_MS: '50',
    JOB_LEASE_MS: '3000',
    WEBHOOK_RETRY_DELAYS_MS: '200,400,800,1600,3200',
    RATE_LIMIT_PER_SECOND: '100000',
    CORRIDOR_BOOTSTRAP_CLIENT_ID: clientId,
    CORRIDOR_BOOTSTRAP_CLIENT_SECRET: clientSecret,
    CORRIDOR_BOOTSTRAP_OPERATOR_KEY: `op_ops_${randomBytes(12).toString('hex')}`,
    ...extra,
  };
  return { env, clientId, clientSecret, dataDir, cleanup: () => fs.rmSync(dataDir, { recursive: true, force: true }) };
}

export interface Running {
  child: ChildProcess;
  /** The API's base URL (api and all roles), or the metrics URL of a worker. */
  base: string;
  stop: () => Promise<void>;
}

/**
 * `corridor start --role <role>`: ready when /readyz answers (api, all) or /metrics on its
 * METRICS_PORT (worker). Generous deadline: migrations on a loaded machine.
 */
export async function startRole(role: 'all' | 'api' | 'worker', env: NodeJS.ProcessEnv, readyTimeoutMs = 180_000): Promise<Running> {
  const port = await freePort();
  const roleEnv = role === 'worker' ? { METRICS_PORT: String(port), METRICS_HOST: '127.0.0.1' } : { PORT: String(port) };
  const child = spawn(process.execPath, [CORRIDOR_BIN, 'start', '--role', role], { env: { ...env, ...roleEnv }, stdio: ['ignore', 'ignore', 'inherit'] });
  const base = `http://127.0.0.1:${port}`;
  const probe = role === 'worker' ? `${base}/metrics` : `${base}/readyz`;
  const deadline = Date.now() + readyTimeoutMs;
  for (;;) {
    try {
      if ((await fetch(probe)).ok) break;
    } catch {
      // not up yet
    }
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`corridor start --role ${role} did not become ready (exit ${child.exitCode})`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
    await exited;
    clearTimeout(timer);
  };
  return { child, base, stop };
}

export async function tokenFor(base: string, clientId: string, clientSecret: string): Promise<string> {
  const res = await fetch(`${base}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ client_id: clientId, client_secret: clientSecret, audience: 'corridor-api', grant_type: 'client_credentials' }),
  });
  if (!res.ok) throw new Error(`token: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { access_token: string }).access_token;
}

export async function post(base: string, token: string, url: string, body: unknown, key: string): Promise<Response> {
  return fetch(`${base}${url}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'idempotency-key': key },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(60_000),
  });
}

/**
 * A keyed POST retried with the same key and body, with backoff, until it is answered 2xx (as a
 * client does through an outage: 503, 409 while the first attempt is still held, no answer at all).
 * A 4xx other than 409 is an answer, not an outage: it throws.
 */
export async function postUntilAnswered(base: string, token: string, url: string, body: unknown, key: string, deadlineMs = 180_000): Promise<{ status: number; json: Record<string, unknown>; at: number; attempts: number }> {
  const deadline = Date.now() + deadlineMs;
  for (let attempt = 1, delayMs = 100; ; attempt++, delayMs = Math.min(delayMs * 2, 2_000)) {
    let status = 0;
    let text = '';
    try {
      const res = await post(base, token, url, body, key);
      status = res.status;
      text = await res.text();
      if (status >= 200 && status < 300) return { status, json: JSON.parse(text) as Record<string, unknown>, at: Date.now(), attempts: attempt };
      if (status >= 400 && status < 500 && status !== 409 && status !== 429) throw Object.assign(new Error(`${url} ${key}: ${status} ${text}`), { final: true });
    } catch (err) {
      if ((err as { final?: boolean }).final) throw err;
      // no answer: the connection broke
    }
    if (Date.now() > deadline) throw new Error(`${url} ${key}: still ${status} ${text} after ${deadlineMs} ms`);
    await new Promise((r) => setTimeout(r, delayMs));
  }
}

/** Saves the ADA beneficiary (keyed) and answers its id. */
export async function saveAda(base: string, token: string): Promise<string> {
  const res = await postUntilAnswered(base, token, '/v1/beneficiaries', ADA, `ben-${randomUUID()}`);
  return res.json.id as string;
}

/** Polls `check` until it answers true. */
export async function until(what: string, check: () => Promise<boolean>, timeoutMs = 180_000, everyMs = 200): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
