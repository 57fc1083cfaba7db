import type { ChildProcess } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { onPostgres } from '../helpers/app.js';
import { crashCleanups, workerStarter } from '../helpers/worker-crash.js';
import { eventTypesOf } from '../payouts/helpers.js';
import { GH_PERSON, ghWallet, momoPayout, momoWorkspace, momoWorld, until, type MomoWorld } from './helpers.js';

const cleanup = crashCleanups();

describe('the mobile-money connector under a crash', () => {
  /**
   * A worker process killed with SIGKILL after the provider accepted the disbursement and before the
   * worker heard the answer and recorded it. The moment is held, not guessed: the simulator's
   * `accepted` hook (the transaction stored, the 202 not yet sent) kills the worker and only then
   * answers. The callback is lost too, so the outcome must come from the provider. A worker started
   * afterwards asks the provider first (GET /responses/{correlation id}), finds the request there,
   * and sends nothing again; the payout is paid once. PostgreSQL only: two processes share the
   * database.
   */
  it.skipIf(!onPostgres)('a worker killed between the provider\'s acceptance and its record: the restarted worker sends nothing twice, the payout is paid once', async () => {
    const victim: { worker?: ChildProcess } = {};
    let killed = false;
    const w: MomoWorld = await momoWorld({
      simulator: {
        hooks: {
          accepted: async () => {
            const worker = victim.worker;
            if (killed || !worker) return;
            killed = true;
            const exited = new Promise((r) => worker.once('exit', r));
            worker.kill('SIGKILL');
            await exited;
          },
        },
      },
    });
    cleanup(w.close);
    const c = await momoWorkspace(w.t);
    w.sim.loseCallbacks(1);
    const id = await momoPayout(c, { amount: '27.00', beneficiary: GH_PERSON(ghWallet('3000')) });
    const start = workerStarter(w.env, cleanup);
    victim.worker = start();
    await until('the worker killed after the acceptance', async () => killed && (victim.worker?.signalCode ?? null) !== null, (done) => done === true, 180_000);
    expect(w.sim.disbursementsOf(id)).toHaveLength(1);
    // Recorded, not sent as far as Corridor knows: the attempt was counted before the request left (earlier attempts may have failed on the way, on a loaded machine).
    const [row] = await w.t.ctx.db.query<{ status: string; attempts: number }>('SELECT status, attempts::int AS attempts FROM momo_payouts WHERE payout_id = $1', [id]);
    expect(row?.status).toBe('recorded');
    const begun = row?.attempts ?? 0;
    expect(begun).toBeGreaterThanOrEqual(1);

    const second = start();
    await until('the payout paid', async () => (await w.t.ctx.db.query<{ status: string }>('SELECT status FROM payouts WHERE id = $1', [id]))[0]?.status, (s) => s === 'paid', 180_000);
    second.kill('SIGTERM');
    // The same correlation id, one request at the provider, one transaction, paid once.
    expect(w.sim.disbursementsOf(id)).toHaveLength(1);
    expect(w.sim.requests.some((r) => r.method === 'GET' && r.path === `/responses/${id}`)).toBe(true);
    expect(w.sim.transactionOf(id)?.transactionStatus).toBe('completed');
    expect((await eventTypesOf(w.t, id)).filter((e) => e === 'payout.paid')).toHaveLength(1);
    const [after] = await w.t.ctx.db.query<{ status: string; attempts: number }>('SELECT status, attempts::int AS attempts FROM momo_payouts WHERE payout_id = $1', [id]);
    // One more attempt, which asked the provider and found the request there.
    expect(after).toEqual({ status: 'completed', attempts: begun + 1 });
    expect(w.prism.violations()).toEqual([]);
  }, 400_000);
});
