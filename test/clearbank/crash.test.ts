import { describe, expect, it } from 'vitest';
import { onPostgres } from '../helpers/app.js';
import { crashCleanups, killHard, lockPayouts, passRecipientChecks, until, waitingOnPayouts, workerStarter } from '../helpers/worker-crash.js';
import { ALAN, clearBankWorld, type ClearBankWorld } from './harness.js';

const cleanup = crashCleanups();

describe('the ClearBank connector under a crash', () => {
  /**
   * A worker process killed with SIGKILL after ClearBank accepted its batch and before it recorded
   * the answer (the Confirmation of Payee checks passed first, in the test's process). The moment is
   * held, not guessed: the test keeps a row lock on the payouts (FOR NO KEY UPDATE), so the
   * worker's transaction that records the answer waits on them, which PostgreSQL
   * shows in pg_stat_activity, while the simulator already holds the payments. A worker started
   * afterwards sends the same request again (same X-Request-Id, same body, same signature), which the
   * bank answers as the first without paying twice. PostgreSQL only: two processes share the database.
   */
  it.skipIf(!onPostgres)('a worker killed between the bank\'s acceptance and our record: the batch is re-sent identically and nothing is paid twice', async () => {
    const w: ClearBankWorld = await clearBankWorld({ runner: false });
    cleanup(w.close);
    const c = await w.caller();
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push(await w.payout(c, ALAN(`3000000${i}`), '2.00'));
    await passRecipientChecks(w.t.ctx, ids);
    const worker = workerStarter(w.t.env, cleanup);
    const lock = await lockPayouts(w.t.env.DATABASE_URL!, ids, cleanup);
    const first = worker();
    const e2e = ids.map((id) => id.replace(/-/g, ''));
    await until(
      'the bank holding the payments and the worker waiting to record its answer',
      async () => ({
        atBank: e2e.filter((id) => w.sim.payments.has(id)).length,
        recorded: (await w.t.ctx.db.query<{ n: number }>("SELECT count(*)::int AS n FROM clearbank_batches WHERE status = 'recorded'"))[0]?.n,
        waiting: await waitingOnPayouts(w.t.ctx, 'clearbank_payments'),
      }),
      (s) => s.atBank === 3 && s.recorded === 1 && s.waiting >= 1,
    );
    const [batch] = await w.t.ctx.db.query<{ request_id: string }>('SELECT request_id FROM clearbank_batches');
    await killHard(first);
    await lock.release();
    expect(await w.t.ctx.db.query('SELECT status FROM clearbank_batches')).toEqual([{ status: 'recorded' }]);

    const second = worker();
    await until(
      'the payouts paid',
      async () => (await w.t.ctx.db.query<{ n: number }>("SELECT count(*)::int AS n FROM payouts WHERE id = ANY($1::uuid[]) AND status = 'paid'", [ids]))[0]?.n,
      (n) => n === ids.length,
    );
    second.kill('SIGTERM');
    const sends = w.sim.calls.filter((call) => call.path === '/v3/payments/fps');
    // The same request again (answered from the bank's record of the first), never a new one: every
    // send carries the batch's one X-Request-Id (a worker blocked past its job lease may send it more
    // than twice; each repeat is answered as the first).
    expect(sends.length).toBeGreaterThanOrEqual(2);
    expect(new Set(sends.map((s) => s.requestId))).toEqual(new Set([batch?.request_id]));
    expect(w.sim.payments.size).toBe(3);
    expect(w.sim.webhooks.filter((h) => h.type === 'TransactionSettled')).toHaveLength(3);
    const events = await w.t.ctx.db.query<{ type: string; n: number }>("SELECT type, count(*)::int AS n FROM events WHERE type IN ('payout.processing', 'payout.paid') AND data->>'id' = ANY($1) GROUP BY type ORDER BY type", [ids]);
    expect(events).toEqual([
      { type: 'payout.paid', n: 3 },
      { type: 'payout.processing', n: 3 },
    ]);
    expect(w.violations()).toEqual([]);
  }, 400_000);
});
