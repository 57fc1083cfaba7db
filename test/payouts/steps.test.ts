import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Job } from '../../src/platform/jobs/queue.js';
import { payoutStepJobs } from '../../src/domains/payouts/payouts.jobs.js';
import { PAYOUT_STEP_JOB } from '../../src/domains/payouts/payouts.lifecycle.js';
import { createTestApp, onPostgres, type TestApp } from '../helpers/app.js';
import { balance, fund, payingWorkspace, ref, saveBeneficiary } from './helpers.js';

/**
 * A provider step holds the payer's balance row no longer than it must (issue 26): payout creation
 * waits on that row, so a step takes it last, after the payout moves, their events and the next
 * jobs, in the statement that settles the holds, just before its commit.
 */
describe.runIf(onPostgres)('a step batch and the balance it settles (PostgreSQL)', () => {
  let t: TestApp;
  beforeAll(async () => {
    // No runner: the test runs the steps itself (the jobs creation enqueues are due in 10 minutes).
    t = await createTestApp({ env: { SANDBOX_STEP_MS: '600000' } });
  });
  afterAll(async () => t?.close());

  const stepJob = (payoutId: string, id: string): Job => ({ id, kind: PAYOUT_STEP_JOB, payload: { payoutId }, attempts: 1, max_attempts: 20 });
  // A step batch as the runner runs it: in the transaction that took its jobs.
  const step = (payoutId: string, id: string) => t.ctx.db.tx((tx) => payoutStepJobs.inTx(t.ctx, tx, [stepJob(payoutId, id)]));

  it('moves the payout before it waits for a balance row locked elsewhere (the balance is taken last), then pays', async () => {
    const c = await payingWorkspace(t);
    await fund(c, 'EUR', '100.00');
    const beneficiaryId = await saveBeneficiary(c);
    const res = await c.request('POST', '/v1/payouts', { clientRef: ref(), amount: '10.00', currency: 'EUR', beneficiary: { id: beneficiaryId } });
    expect(res.statusCode, res.body).toBe(201);
    const payoutId = res.json<{ id: string }>().id;
    // queued → processing: no ledger posting, no balance row.
    await step(payoutId, '-1');

    const blocker = new pg.Client({ connectionString: t.env.DATABASE_URL });
    await blocker.connect();
    try {
      await blocker.query('BEGIN');
      await blocker.query("SELECT id FROM ledger_accounts WHERE kind = 'customer' AND account_id = $1 FOR UPDATE", [c.workspaceId]);
      // processing → paid: posts the hold, so it needs the balance row the blocker holds.
      const stepping = step(payoutId, '-2');
      // Until the step's transaction waits on the blocker (for the balance row).
      const deadline = Date.now() + 30_000;
      for (;;) {
        const { rows } = await blocker.query('SELECT 1 FROM pg_stat_activity WHERE pg_backend_pid() = ANY (pg_blocking_pids(pid))');
        if (rows.length > 0 || Date.now() > deadline) break;
        await new Promise((r) => setTimeout(r, 20));
      }
      // It waits having moved the payout already (its row is locked by the step's transaction), so it
      // took the balance row after the move, not before it.
      await expect(t.ctx.db.query('SELECT 1 FROM payouts WHERE id = $1 FOR UPDATE NOWAIT', [payoutId])).rejects.toMatchObject({ code: '55P03' });
      await blocker.query('ROLLBACK');
      await stepping;
    } finally {
      await blocker.end();
    }
    const paid = (await c.request('GET', `/v1/payouts/${payoutId}`)).json<{ status: string }>();
    expect(paid.status).toBe('paid');
    expect(await balance(c, 'EUR')).toMatchObject({ balance: '90.00', pendingOut: '0.00', totalBalance: '90.00' });
  });
});
