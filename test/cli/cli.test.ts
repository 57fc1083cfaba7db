import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PGlite } from '@electric-sql/pglite';
import { onPostgres, postgresUrl } from '../helpers/app.js';
import { freshPostgresDatabase as freshDatabase } from '../../support/postgres.js';
import { CORRIDOR_BIN, corridorFreeEnv, freePort, REPOSITORY_CORRIDOR_BIN } from '../helpers/processes.js';

/** End-to-end: the real `corridor` command in child processes, talking real HTTP. */

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** A first start creates a database and keys; on a busy machine that takes a while (over a minute). */
const START_TEST_MS = 240_000;
/** How long a start or a one-shot command may take before it is reported (under the tests' timeouts). */
const PROCESS_MS = 110_000;

const CONFIGURED = {
  clientId: randomUUID(),
  clientSecret: 'cs_configured_secret_for_the_demo_0123456789',
  operatorKey: 'op_configured_operator_key_0123456789',
};

const children = new Set<ChildProcess>();
const cleanups: (() => Promise<void>)[] = [];

afterAll(async () => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
});

/**
 * A data directory (and, on PostgreSQL, a fresh database) removed after the file. `migrated`: its
 * database already holds the schema, as a copy of the one test/global-setup.ts migrated (on PGlite its
 * data directory, on PostgreSQL its template database), for the tests not about a first start's
 * migrating: nothing in it yet (no workspace, credential or key), and a start finds nothing to apply.
 */
async function newInstance(options: { migrated?: boolean } = {}): Promise<Record<string, string>> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'corridor-cli-'));
  cleanups.push(async () => fs.rmSync(dir, { recursive: true, force: true }));
  const env: Record<string, string> = { CORRIDOR_DATA_DIR: dir, LOG_LEVEL: 'warn', HOST: '127.0.0.1' };
  if (onPostgres) {
    const pgdb = await freshDatabase(postgresUrl, 'corridor_t', options.migrated ? process.env.CORRIDOR_TEST_PG_TEMPLATE : undefined);
    cleanups.push(pgdb.drop);
    env.DATABASE_URL = pgdb.url;
  } else if (options.migrated) {
    const template = process.env.CORRIDOR_TEST_PGLITE_TEMPLATE;
    if (!template) throw new Error('no migrated template (test/global-setup.ts sets CORRIDOR_TEST_PGLITE_TEMPLATE)');
    // Where `corridor` keeps its embedded database (src/platform/db/db.ts openEmbedded).
    const db = await PGlite.create(path.join(dir, 'pgdata'), { loadDataDir: new Blob([fs.readFileSync(template)]) });
    await db.close();
  }
  return env;
}


interface Printed {
  baseUrl?: string;
  docs?: string;
  tokenUrl?: string;
  audience?: string;
  clientId?: string;
  clientSecret?: string;
  operatorKey: string;
}

interface Server {
  child: ChildProcess;
  printed: Printed;
  stdout: () => string;
  /** Sends a signal and resolves with the exit code. */
  stop: (signal?: NodeJS.Signals) => Promise<{ code: number | null; ms: number }>;
}

function exited(child: ChildProcess): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve({ code: child.exitCode, signal: child.signalCode });
  return new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
}

/**
 * Runs `corridor start ...` and waits for the printed block (written at once; it names the operator key).
 * `bin`: the command as a user runs it (bin/corridor.js through tsx) or, by default, the tests' copy
 * transpiled ahead of time (test/helpers/prebuilt-bin.ts).
 */
async function startServer(env: Record<string, string>, args: string[] = [], bin = CORRIDOR_BIN): Promise<Server> {
  if (!env.CORRIDOR_DATA_DIR) throw new Error('no data directory: refusing to start on the default ./.corridor');
  const child = spawn(process.execPath, [bin, 'start', ...args], { cwd: ROOT, env: { ...corridorFreeEnv(), ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  children.add(child);
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no startup block within ${PROCESS_MS / 1000} s\nstdout: ${stdout}\nstderr: ${stderr}`)), PROCESS_MS);
    const check = () => {
      if (/Operator key .*\n/.test(stdout)) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout!.on('data', check);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`corridor start exited with ${code}\nstdout: ${stdout}\nstderr: ${stderr}`));
    });
  });
  const field = (label: string) => new RegExp(`^\\s*${label}\\s+(\\S+)\\s*$`, 'm').exec(stdout)?.[1];
  const printed: Printed = {
    baseUrl: field('Base URL'),
    docs: field('Docs'),
    tokenUrl: field('Token URL'),
    audience: field('Audience'),
    clientId: field('Client ID'),
    clientSecret: field('Client secret'),
    operatorKey: field('Operator key') ?? '',
  };
  return {
    child,
    printed,
    stdout: () => stdout,
    stop: async (signal = 'SIGTERM') => {
      const started = Date.now();
      const done = exited(child);
      child.kill(signal);
      const timeout = new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`no exit within 15 s of ${signal}`)), 15_000));
      const { code } = await Promise.race([done, timeout]);
      return { code, ms: Date.now() - started };
    },
  };
}

/** Runs a one-shot `corridor ...` command to completion. */
async function runCli(args: string[], env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  if (!env.CORRIDOR_DATA_DIR) throw new Error('no data directory: refusing to run on the default ./.corridor');
  const child = spawn(process.execPath, [CORRIDOR_BIN, ...args], { cwd: ROOT, env: { ...corridorFreeEnv(), ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  children.add(child);
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), PROCESS_MS);
  const { code } = await exited(child);
  clearTimeout(timer);
  return { code, stdout, stderr };
}

async function token(baseUrl: string, clientId: string, clientSecret: string): Promise<Response> {
  return fetch(`${baseUrl}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ client_id: clientId, client_secret: clientSecret, audience: 'corridor-api', grant_type: 'client_credentials' }),
  });
}

/** Exchanges the credential for a token over HTTP and reads GET /v1/account with it. */
async function account(baseUrl: string, clientId: string, clientSecret: string): Promise<{ id: string; name: string; country: string }> {
  const tokenRes = await token(baseUrl, clientId, clientSecret);
  expect(tokenRes.status).toBe(200);
  const { access_token: accessToken } = (await tokenRes.json()) as { access_token: string };
  const res = await fetch(`${baseUrl}/v1/account`, { headers: { authorization: `Bearer ${accessToken}` } });
  expect(res.status).toBe(200);
  return (await res.json()) as { id: string; name: string; country: string };
}

/**
 * The instance with configured bootstrap values starts in the background while the first describe
 * runs (first starts are the slow part: a new database, migrations, key generation).
 */
let configuredStart: Promise<{ server: Server & { env: Record<string, string> }; port: number }> | undefined;
beforeAll(() => {
  configuredStart = (async () => {
    const env = {
      ...(await newInstance({ migrated: true })),
      CORRIDOR_BOOTSTRAP_CLIENT_ID: CONFIGURED.clientId,
      CORRIDOR_BOOTSTRAP_CLIENT_SECRET: CONFIGURED.clientSecret,
      CORRIDOR_BOOTSTRAP_OPERATOR_KEY: CONFIGURED.operatorKey,
    };
    const port = await freePort();
    const server = await startServer({ ...env, PORT: String(port) });
    return { server: Object.assign(server, { env }), port };
  })();
  configuredStart.catch(() => undefined); // reported by the test that awaits it
});

describe('corridor start, migrate, workspaces, credentials', () => {
  let env: Record<string, string>;
  let first: Printed;
  let demoInvitation: string;

  it('first start (bin/corridor.js, as a user runs it) prints the addresses and a working demo credential and operator key; SIGTERM exits 0', async () => {
    env = await newInstance();
    const port = await freePort();
    const server = await startServer({ ...env, PORT: String(port) }, [], REPOSITORY_CORRIDOR_BIN);
    first = server.printed;
    const base = `http://127.0.0.1:${port}`;
    expect(server.stdout()).toMatch(/Corridor sandbox is running \(role: all/);
    expect(first).toMatchObject({ baseUrl: base, docs: `${base}/docs`, tokenUrl: `${base}/oauth/token`, audience: 'corridor-api' });
    expect(first.clientId).toMatch(/^[0-9a-f-]{36}$/);
    expect(first.clientSecret).toBeTruthy();
    expect(first.operatorKey).toBeTruthy();

    const demo = await account(base, first.clientId!, first.clientSecret!);
    expect(demo.name).toBe('Demo workspace');
    const operatorRes = await fetch(`${base}/operator/v1/workspaces`, { headers: { authorization: `Bearer ${first.operatorKey}` } });
    expect(operatorRes.status).toBe(200);
    expect((await fetch(`${base}/docs`)).status).toBe(200);
    // The demo dashboard user's invitation link, which opens the page to set a password.
    expect(server.stdout()).toContain(`Console       ${base}/console`);
    const invitation = /Dashboard\s+(\S+\/dashboard\/invitation\?token=inv_\S+)/.exec(server.stdout())?.[1];
    expect(invitation).toMatch(new RegExp(`^${base}/dashboard/invitation\\?token=inv_`));
    demoInvitation = invitation!;
    const opened = await fetch(invitation!, { redirect: 'manual' });
    expect(opened.status).toBe(303);
    const cookie = opened.headers.getSetCookie().map((c) => c.split(';')[0]).join('; ');
    const form = await fetch(`${base}/dashboard/invitation`, { headers: { cookie } });
    expect(form.status).toBe(200);
    expect(await form.text()).toContain('demo@corridor.test');

    const { code, ms } = await server.stop('SIGTERM');
    expect(code).toBe(0);
    expect(ms).toBeLessThan(10_000);
    await expect(fetch(`${base}/healthz`)).rejects.toThrow(); // no longer listening
  }, START_TEST_MS);

  let workspaceId: string;
  let issued: { clientId: string; clientSecret: string };

  it('`migrate` on a migrated instance prints "up to date"', async () => {
    const res = await runCli(['migrate'], env);
    expect(res.stderr).toBe('');
    expect(res.code).toBe(0);
    expect(res.stdout.trim()).toBe('up to date');
  });

  it('`workspaces create` prints the new workspace as JSON with an id', async () => {
    const res = await runCli(['workspaces', 'create', '--name', 'CLI Traders Ltd', '--country', 'GB'], env);
    expect(res.code).toBe(0);
    const workspace = JSON.parse(res.stdout) as { id: string; name: string; country: string };
    expect(workspace).toMatchObject({ name: 'CLI Traders Ltd', country: 'GB' });
    expect(workspace.id).toMatch(/^[0-9a-f-]{36}$/);
    workspaceId = workspace.id;
  });

  it('`credentials create --workspace` prints a client id and secret', async () => {
    const res = await runCli(['credentials', 'create', '--workspace', workspaceId], env);
    expect(res.code).toBe(0);
    issued = JSON.parse(res.stdout) as { clientId: string; clientSecret: string };
    expect(issued.clientId).toMatch(/^[0-9a-f-]{36}$/);
    expect(issued.clientSecret).toBeTruthy();
  });

  it('refuses bad arguments with a usage message and exit code 2', async () => {
    const res = await runCli(['workspaces', 'create', '--name', 'No Country'], env);
    expect(res.code).toBe(2);
    expect(res.stderr).toMatch(/--country/);
    expect(res.stderr).toMatch(/Usage: corridor/);
  });

  it('a second start on the same data reuses the same client id, secret and operator key; the CLI credential works', async () => {
    const port = await freePort();
    const server = await startServer({ ...env, PORT: String(port) });
    const base = `http://127.0.0.1:${port}`;
    expect(server.printed.clientId).toBe(first.clientId);
    expect(server.printed.clientSecret).toBe(first.clientSecret);
    expect(server.printed.operatorKey).toBe(first.operatorKey);
    // Not accepted yet: the same link is printed again (on the new port's base URL).
    const token = new URL(demoInvitation).searchParams.get('token');
    expect(server.stdout()).toContain(`${base}/dashboard/invitation?token=${token}`);

    await account(base, server.printed.clientId!, server.printed.clientSecret!);
    const cliWorkspace = await account(base, issued.clientId, issued.clientSecret);
    expect(cliWorkspace).toMatchObject({ id: workspaceId, name: 'CLI Traders Ltd', country: 'GB' });

    const { code } = await server.stop('SIGINT');
    expect(code).toBe(0);
  }, START_TEST_MS);
});

describe('corridor start with configured bootstrap values, and the worker role', () => {
  let env: Record<string, string>;

  it('prints and honours CORRIDOR_BOOTSTRAP_CLIENT_ID/_SECRET/_OPERATOR_KEY on a fresh instance', async () => {
    const { server, port } = await configuredStart!;
    env = server.env;
    const base = `http://127.0.0.1:${port}`;
    expect(server.printed).toMatchObject({
      clientId: CONFIGURED.clientId,
      clientSecret: CONFIGURED.clientSecret,
      operatorKey: CONFIGURED.operatorKey,
    });
    await account(base, CONFIGURED.clientId, CONFIGURED.clientSecret);
    const operatorRes = await fetch(`${base}/operator/v1/workspaces`, { headers: { authorization: `Bearer ${CONFIGURED.operatorKey}` } });
    expect(operatorRes.status).toBe(200);
    expect((await token(base, CONFIGURED.clientId, 'wrong-secret')).status).toBe(401);
    expect((await server.stop()).code).toBe(0);
  }, START_TEST_MS);

  it('`start --role worker` runs the workers without listening', async () => {
    if (!env) throw new Error('needs the instance of the previous test');
    const port = await freePort();
    const server = await startServer({ ...env, PORT: String(port) }, ['--role', 'worker']);
    expect(server.stdout()).toMatch(/role: worker/);
    expect(server.printed.baseUrl).toBeUndefined();
    expect(server.printed.operatorKey).toBe(CONFIGURED.operatorKey);
    await expect(fetch(`http://127.0.0.1:${port}/healthz`)).rejects.toThrow();
    expect(server.child.exitCode).toBeNull(); // still running
    expect((await server.stop()).code).toBe(0);
  }, START_TEST_MS);
});

describe('corridor in production', () => {
  it('refuses to start without DATABASE_URL, saying it is needed', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'corridor-cli-prod-'));
    cleanups.push(async () => fs.rmSync(dir, { recursive: true, force: true }));
    const port = await freePort();
    const res = await runCli(['start'], { CORRIDOR_ENV: 'production', CORRIDOR_DATA_DIR: dir, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn' });
    expect(res.code).not.toBe(0);
    expect(res.code).not.toBeNull();
    expect(res.stderr).toMatch(/DATABASE_URL/);
    expect(fs.existsSync(path.join(dir, 'pgdata'))).toBe(false); // nothing embedded was created
  });

  it.skipIf(!onPostgres)('never prints the operator key, generated or configured: it says where it comes from and how to rotate it', async () => {
    const env = { ...(await newInstance({ migrated: true })), CORRIDOR_ENV: 'production' };
    const generated = await startServer({ ...env, PORT: String(await freePort()) });
    expect(generated.stdout()).not.toMatch(/op_/);
    expect(generated.stdout()).toMatch(/Operator key +generated at first start, not printed in production/);
    expect(generated.stdout()).toMatch(/CORRIDOR_BOOTSTRAP_OPERATOR_KEY/);
    expect((await generated.stop()).code).toBe(0);

    const port = await freePort();
    const configured = await startServer({ ...env, PORT: String(port), CORRIDOR_BOOTSTRAP_OPERATOR_KEY: CONFIGURED.operatorKey });
    expect(configured.stdout()).not.toContain(CONFIGURED.operatorKey);
    expect(configured.stdout()).not.toMatch(/op_/);
    expect(configured.stdout()).toMatch(/Operator key +set by CORRIDOR_BOOTSTRAP_OPERATOR_KEY, not printed in production/);
    expect(configured.stdout()).toMatch(/to rotate it: set a new CORRIDOR_BOOTSTRAP_OPERATOR_KEY and restart/);
    const operatorRes = await fetch(`http://127.0.0.1:${port}/operator/v1/workspaces`, { headers: { authorization: `Bearer ${CONFIGURED.operatorKey}` } });
    expect(operatorRes.status).toBe(200);
    expect((await configured.stop()).code).toBe(0);
  }, START_TEST_MS);
});

describe('one process at a time on a data directory', () => {
  it('a CLI command against the data of a running server fails, naming the server process (embedded); on PostgreSQL both share the database', async () => {
    const env = await newInstance({ migrated: true });
    const port = await freePort();
    const server = await startServer({ ...env, PORT: String(port) });
    const res = await runCli(['workspaces', 'create', '--name', 'While Serving Ltd', '--country', 'GB'], env);
    if (onPostgres) {
      expect(res.code).toBe(0);
      const { id } = JSON.parse(res.stdout) as { id: string };
      const seen = await fetch(`http://127.0.0.1:${port}/operator/v1/workspaces/${id}`, { headers: { authorization: `Bearer ${server.printed.operatorKey}` } });
      expect(seen.status).toBe(200);
    } else {
      expect(res.code).not.toBe(0);
      expect(res.code).not.toBeNull();
      expect(res.stdout).toBe('');
      expect(res.stderr).toContain(env.CORRIDOR_DATA_DIR);
      expect(res.stderr).toContain(`pid ${server.child.pid}`);
      expect(res.stderr).toMatch(/in use by another Corridor process/);
      expect((await runCli(['migrate'], env)).code).not.toBe(0);
    }
    expect((await server.stop()).code).toBe(0);
    // Stopped: the directory is free again.
    const after = await runCli(['workspaces', 'create', '--name', 'After Stop Ltd', '--country', 'GB'], env);
    expect(after.stderr).toBe('');
    expect(after.code).toBe(0);
  }, START_TEST_MS);

  it.skipIf(onPostgres)('a lock left by a process that died is taken over', async () => {
    const env = await newInstance({ migrated: true });
    expect((await runCli(['migrate'], env)).code).toBe(0);
    const dead = spawn(process.execPath, ['-e', '']);
    await exited(dead);
    fs.writeFileSync(path.join(env.CORRIDOR_DATA_DIR!, 'corridor.lock'), JSON.stringify({ pid: dead.pid, command: 'start' }));
    const res = await runCli(['migrate'], env);
    expect(res.stderr).toBe('');
    expect(res.code).toBe(0);
    expect(res.stdout.trim()).toBe('up to date');
    expect(fs.existsSync(path.join(env.CORRIDOR_DATA_DIR!, 'corridor.lock'))).toBe(false); // released at close
  }, START_TEST_MS);
});
