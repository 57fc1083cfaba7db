/**
 * A worker killed with SIGKILL after Paystack accepted a transfer and before Corridor recorded it. The
 * moment is held, not guessed: the test keeps a row lock on the payout (FOR NO KEY UPDATE), so the
 * worker's transaction that records the transfer waits on it (PostgreSQL shows it in
 * pg_stat_activity) while the simulator already holds the transfer. A worker started afterwards finds
 * the transfer `sending`, looks it up by its reference and records it: no second POST /transfer, one
 * transfer at Paystack, the payout paid once. Webhooks are off here, so only the worker can learn
 * the outcome. PostgreSQL only: two processes share the database. All calls go through Prism.
 */
import { describe, expect, it } from 'vitest';
import { referenceOf } from '../../src/connectors/paystack/service.js';
import { onPostgres } from '../helpers/app.js';
import { crashCleanups, killHard, lockPayouts, passRecipientChecks, until, waitingOnPayouts, workerStarter } from '../helpers/worker-crash.js';
import { eventTypesOf } from '../payouts/helpers.js';
import { ngnPayout, paystackRig } from './helpers.js';

const cleanup = crashCleanups();

const statusOf = async (db: { query<T>(sql: string, params: unknown[]): Promise<T[]> }, table: 'payouts' | 'paystack_transfers', id: string) =>
  (await db.query<{ status: string }>(`SELECT status FROM ${table} WHERE ${table === 'payouts' ? 'id' : 'payout_id'} = $1`, [id]))[0]?.status;

describe('the Paystack connector under a crash', () => {
  it.skipIf(!onPostgres)('a worker killed between Paystack accepting the transfer and Corridor recording it: after a restart nothing is sent twice, and the payout is paid once', async () => {
    const rig = await paystackRig({ runner: false, webhookWaitSeconds: 1 });
    cleanup(rig.close);
    rig.sim.options.webhookUrl = undefined;
    const id = await ngnPayout(rig.c, '0000000018', '1234.00');
    await passRecipientChecks(rig.t.ctx, [id]);
    const worker = workerStarter(rig.t.env, cleanup);
    const lock = await lockPayouts(rig.t.env.DATABASE_URL!, [id], cleanup);
    const first = worker();
    await until(
      'the transfer at Paystack and the worker waiting to record it',
      async () => ({
        atPaystack: rig.sim.state.transfers.has(referenceOf(id)),
        row: await statusOf(rig.t.ctx.db, 'paystack_transfers', id),
        waiting: await waitingOnPayouts(rig.t.ctx),
      }),
      (s) => s.atPaystack && s.row === 'sending' && s.waiting >= 1,
    );
    await killHard(first);
    await lock.release();
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
