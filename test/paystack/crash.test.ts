/**
 * A worker killed with SIGKILL after Paystack accepted a transfer and before Corridor recorded it. The
 * moment is held, not guessed: the test keeps a row lock on the payout (FOR NO KEY UPDATE), so the
 * worker's transaction that records the transfer waits on it (PostgreSQL shows it in
 * pg_stat_activity) while the simulator already holds the transfer. A worker started afterwards finds
 * the transfer `sending`, looks it up by its reference and records it: no second POST /transfer, one
 * transfer at Paystack, the payout paid once. Webhooks are off here, so only the worker can learn
 * the outcome. PostgreSQL only: two processes share the database. All calls go through Prism.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { referenceOf } from '../../src/connectors/paystack/service.js';
import { CORRIDOR_BIN, corridorFreeEnv } from '../helpers/processes.js';
import { eventTypesOf } from '../payouts/helpers.js';
import { ngnPayout, paystackRig } from './helpers.js';

const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c().catch(() => undefined);
});

async function until<T>(what: string, read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 180_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`${what}: still ${JSON.stringify(value)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const statusOf = async (db: { query<T>(sql: string, params: unknown[]): Promise<T[]> }, table: 'payouts' | 'paystack_transfers', id: string) =>
  (await db.query<{ status: string }>(`SELECT status FROM ${table} WHERE ${table === 'payouts' ? 'id' : 'payout_id'} = $1`, [id]))[0]?.status;

describe('the Paystack connector under a crash', () => {
  // Skipped since the merge of the recipient_check control (hrc): the test's lock on the payout row now
  // also holds the name check that runs before the hand-over, so the send never starts and the moment
  // is never reached (timed out). The lock must be taken after the check passed and before the send job
  // runs; not yet done.
  it.skip('a worker killed between Paystack accepting the transfer and Corridor recording it: after a restart nothing is sent twice, and the payout is paid once', async () => {
    const rig = await paystackRig({ runner: false, webhookWaitSeconds: 1 });
    cleanups.push(rig.close);
    rig.sim.options.webhookUrl = undefined;
    const id = await ngnPayout(rig.c, '0000000018', '1234.00');
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'corridor-paystack-worker-'));
    cleanups.push(async () => fs.rmSync(dataDir, { recursive: true, force: true }));
    const env = { ...corridorFreeEnv(), ...rig.t.env, CORRIDOR_DATA_DIR: dataDir, JOB_POLL_MS: '20', JOB_LEASE_MS: '1000', LOG_LEVEL: 'warn' };
    const worker = (): ChildProcess => {
      const child = spawn(process.execPath, [CORRIDOR_BIN, 'start', '--role', 'worker'], { env, stdio: ['ignore', 'ignore', 'inherit'] });
      cleanups.push(async () => void child.kill('SIGKILL'));
      return child;
    };
    const lock = new pg.Client({ connectionString: rig.t.env.DATABASE_URL });
    await lock.connect();
    cleanups.push(() => lock.end());
    await lock.query('BEGIN');
    await lock.query('SELECT id FROM payouts WHERE id = $1 FOR NO KEY UPDATE', [id]);
    const first = worker();
    await until(
      'the transfer at Paystack and the worker waiting to record it',
      async () => ({
        atPaystack: rig.sim.state.transfers.has(referenceOf(id)),
        row: await statusOf(rig.t.ctx.db, 'paystack_transfers', id),
        waiting: (await rig.t.ctx.db.query<{ n: number }>("SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query ILIKE '%payouts%'"))[0]?.n,
      }),
      (s) => s.atPaystack && s.row === 'sending' && (s.waiting ?? 0) >= 1,
    );
    first.kill('SIGKILL');
    await new Promise((r) => first.once('exit', r));
    await lock.query('ROLLBACK');
    expect(await statusOf(rig.t.ctx.db, 'paystack_transfers', id)).toBe('sending');

    const second = worker();
    await until('the payout paid', () => statusOf(rig.t.ctx.db, 'payouts', id), (s) => s === 'paid');
    second.kill('SIGTERM');
    expect(rig.sim.state.requests.filter((r) => r.method === 'POST' && r.path === '/transfer')).toHaveLength(1);
    expect([...rig.sim.state.transfers.values()].filter((t) => t.reference === referenceOf(id))).toHaveLength(1);
    expect(rig.sim.state.requests.some((r) => r.method === 'GET' && r.path === `/transfer/verify/${referenceOf(id)}`)).toBe(true);
    expect(await eventTypesOf(rig.t, id)).toEqual(['payout.processing', 'payout.paid']);
    expect(rig.prism.violations()).toEqual([]);
  }, 400_000);
});
