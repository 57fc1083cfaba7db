/**
 * What the connectors' kill -9 tests share: worker processes (`corridor start --role worker`) on
 * the test app's database, a row lock on payouts that holds a worker's recording transaction at the
 * moment under test, the recipient checks passed in the test's own process beforehand (the lock
 * would otherwise hold the check, not the hand-over), and a patient wait. Each process, lock and
 * directory is cleaned up after the file's tests.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, expect } from 'vitest';
import { runRecipientCheck } from '../../src/controls/recipient-checks/recipient-checks.service.js';
import type { AppContext } from '../../src/platform/context.js';
import { CORRIDOR_BIN, corridorFreeEnv } from './processes.js';
export { until } from './until.js';

/** Cleanups run, last first, after the file's tests; register with `crashCleanups()` at the top of a file. */
export function crashCleanups(): (cleanup: () => Promise<void>) => void {
  const cleanups: (() => Promise<void>)[] = [];
  afterAll(async () => {
    for (const c of cleanups.reverse()) await c().catch(() => undefined);
  });
  return (cleanup) => void cleanups.push(cleanup);
}

/** Starts worker processes on the app's env (its database, keys and connectors file), each in a fresh data directory; killed at cleanup. */
export function workerStarter(appEnv: Record<string, string>, cleanup: (c: () => Promise<void>) => void): () => ChildProcess {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'corridor-crash-worker-'));
  cleanup(async () => fs.rmSync(dataDir, { recursive: true, force: true }));
  const env = { ...corridorFreeEnv(), ...appEnv, CORRIDOR_DATA_DIR: dataDir, JOB_POLL_MS: '20', JOB_LEASE_MS: '1000', LOG_LEVEL: 'warn' };
  return () => {
    const child = spawn(process.execPath, [CORRIDOR_BIN, 'start', '--role', 'worker'], { env, stdio: ['ignore', 'ignore', 'inherit'] });
    cleanup(async () => void child.kill('SIGKILL'));
    return child;
  };
}

/** Kills a worker with SIGKILL and waits until it is gone. */
export async function killHard(child: ChildProcess): Promise<void> {
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGKILL');
  await exited;
}

/**
 * Holds a row lock (FOR NO KEY UPDATE) on the payouts from another connection, so a worker's
 * transaction that records what it sent waits on them (PostgreSQL shows it in pg_stat_activity);
 * `release()` rolls it back.
 */
export async function lockPayouts(databaseUrl: string, ids: readonly string[], cleanup: (c: () => Promise<void>) => void): Promise<{ release(): Promise<void> }> {
  const lock = new pg.Client({ connectionString: databaseUrl });
  await lock.connect();
  cleanup(() => lock.end());
  await lock.query('BEGIN');
  await lock.query('SELECT id FROM payouts WHERE id = ANY($1::uuid[]) FOR NO KEY UPDATE', [ids]);
  return { release: async () => void (await lock.query('ROLLBACK')) };
}

/** The sessions waiting on a lock whose query names the payouts table (and, where given, not `except`). */
export async function waitingOnPayouts(ctx: AppContext, except?: string): Promise<number> {
  const [row] = await ctx.db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query ILIKE '%payouts%'${except ? ' AND query NOT ILIKE $1' : ''}`,
    except ? [`%${except}%`] : [],
  );
  return row?.n ?? 0;
}

/**
 * Runs the payouts' recipient checks in this process, as the worker would, and expects each passed:
 * afterwards each payout's first step is due, and a lock on the payouts holds the hand-over's record.
 */
export async function passRecipientChecks(ctx: AppContext, ids: readonly string[]): Promise<void> {
  for (const id of ids) await runRecipientCheck(ctx, id, { attempts: 1, max_attempts: 1 });
  const rows = await ctx.db.query<{ status: string }>('SELECT status FROM payout_recipient_checks WHERE payout_id = ANY($1::uuid[])', [ids]);
  expect(rows.map((r) => r.status)).toEqual(ids.map(() => 'passed'));
}
