import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** Running the real `corridor` command in child processes (tests and benchmarks). */

/** bin/corridor.js, as a user runs it (the TypeScript sources through tsx). */
export const REPOSITORY_CORRIDOR_BIN = path.join(fileURLToPath(new URL('..', import.meta.url)), 'bin', 'corridor.js');

/**
 * The command tests and benchmarks start: under vitest, the copy test/global-setup.ts transpiled ahead
 * of time (CORRIDOR_TEST_BIN: the same sources, without tsx's per-module cost in every process);
 * otherwise bin/corridor.js.
 */
export const CORRIDOR_BIN = process.env.CORRIDOR_TEST_BIN || REPOSITORY_CORRIDOR_BIN;

/** Listens on `port` (0: the kernel's choice) on the loopback address and closes again: the port listened on, or undefined when it is taken. */
function tryPort(port: number): Promise<number | undefined> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', (err: NodeJS.ErrnoException) => (err.code === 'EADDRINUSE' || err.code === 'EACCES' ? resolve(undefined) : reject(err)));
    server.listen(port, '127.0.0.1', () => {
      const { port: listened } = server.address() as net.AddressInfo;
      server.close(() => resolve(listened));
    });
  });
}

/**
 * A port free on the loopback address now, for a server started a moment later. Taken below the
 * ephemeral range (Linux hands out 32768 to 60999 as the local ports of outgoing connections), so
 * that a database or HTTP client connecting meanwhile cannot take it first (it did: EADDRINUSE on a
 * loaded run); the kernel's choice only if none of those is free.
 */
export async function freePort(): Promise<number> {
  for (let i = 0; i < 50; i++) {
    const port = await tryPort(20_000 + Math.floor(Math.random() * 12_000));
    if (port !== undefined) return port;
  }
  const port = await tryPort(0);
  if (port === undefined) throw new Error('no free port on 127.0.0.1');
  return port;
}

/** This process's environment without anything that would configure Corridor. */
export function corridorFreeEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (/^(CORRIDOR_|DATABASE_URL$|TEST_DATABASE_URL$|REDIS_URL$|PORT$|HOST$|PUBLIC_BASE_URL$|LOG_LEVEL$)/.test(key)) continue;
    env[key] = value;
  }
  return env;
}

/** Starts `corridor <args>` and resolves once `base/readyz` answers 200. */
export async function startCorridor(
  args: string[],
  env: NodeJS.ProcessEnv,
  base: string,
  options: { nodeArgs?: string[]; readyTimeoutMs?: number } = {},
): Promise<ChildProcess> {
  const child = spawn(process.execPath, [...(options.nodeArgs ?? []), CORRIDOR_BIN, ...args], { env, stdio: ['ignore', 'ignore', 'inherit'] });
  const deadline = Date.now() + (options.readyTimeoutMs ?? 60_000);
  for (;;) {
    try {
      if ((await fetch(`${base}/readyz`)).ok) return child;
    } catch {
      // not up yet
    }
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`corridor ${args.join(' ')} did not become ready at ${base}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * A second `corridor start --role api` process on the same database as a test app (PostgreSQL):
 * its base URL, and how to stop it.
 */
export async function secondApiProcess(env: Record<string, string>): Promise<{ base: string; stop: () => void }> {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const child = await startCorridor(['start', '--role', 'api'], { ...corridorFreeEnv(), ...env, PORT: String(port), HOST: '127.0.0.1' }, base);
  return { base, stop: () => void child.kill('SIGTERM') };
}
