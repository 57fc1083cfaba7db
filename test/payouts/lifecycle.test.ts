import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRunner } from '../../src/jobs.js';
import { enqueue } from '../../src/platform/jobs/queue.js';
import type { JobRunner } from '../../src/platform/jobs/runner.js';
import { PAYOUT_STEP_JOB } from '../../src/domains/payouts/payouts.lifecycle.js';
import { createTestApp, type Caller, type TestApp } from '../helpers/app.js';
import { ADA, balance, payingWorkspace, eventTypesOf, fund, ref, saveBeneficiary, waitFor, type PayoutView } from './helpers.js';

let t: TestApp;
let runner: JobRunner;
let c: Caller;
let beneficiaryId: string;

beforeAll(async () => {
  t = await createTestApp({ env: { SANDBOX_STEP_MS: '40', JOB_POLL_MS: '20' } });
  runner = createRunner(t.ctx);
  runner.start();
  c = await payingWorkspace(t);
  await fund(c, 'EUR', '1000');
  beneficiaryId = await saveBeneficiary(c);
});
afterAll(async () => {
  await runner.stop();
  await t.close();
});

async function pay(amount: string, extra: Record<string, unknown> = {}): Promise<PayoutView> {
  const res = await c.request('POST', '/v1/payouts', { clientRef: ref(), amount, currency: 'EUR', beneficiary: { id: beneficiaryId }, ...extra });
  expect(res.statusCode, res.body).toBe(201);
  return res.json<PayoutView>();
}

describe('the sandbox walks a payout to each terminal state through the public API', () => {
  it('pays an ordinary amount after two steps: processing, then paid with completedAt, held funds posted', async () => {
    const before = await balance(c, 'EUR');
    const created = await pay('10.00');
    expect(created).toMatchObject({ status: 'queued', amount: '10.00', currency: 'EUR', route: 'international', completedAt: null, failureReason: null });
    const held = await balance(c, 'EUR');
    expect(Number(held?.pendingOut)).toBeGreaterThanOrEqual(10);
    const paid = await waitFor(c, created.id, (p) => p.status === 'paid');
    expect(paid.completedAt).not.toBeNull();
    expect(await eventTypesOf(t, created.id)).toEqual(['payout.processing', 'payout.paid']);
    const after = await balance(c, 'EUR');
    expect(after?.totalBalance).toBe((Number(before?.totalBalance) - 10).toFixed(2));
  });

  it('fails an amount ending in .13 at the provider: failureReason on the payout, not in the event, funds back', async () => {
    const before = await balance(c, 'EUR');
    const created = await pay('20.13');
    const failed = await waitFor(c, created.id, (p) => p.status === 'failed');
    expect(failed.failureReason).toBe('beneficiary_account_invalid');
    expect(await eventTypesOf(t, created.id)).toEqual(['payout.processing', 'payout.failed']);
    const [event] = await t.ctx.db.query<{ data: Record<string, unknown> }>("SELECT data FROM events WHERE type = 'payout.failed' AND data->>'id' = $1", [created.id]);
    expect(event?.data).toEqual({ id: created.id, clientRef: created.clientRef, amount: '20.13', currency: 'EUR', status: 'failed', completedAt: null });
    expect(await balance(c, 'EUR')).toMatchObject({ balance: before?.balance, totalBalance: before?.totalBalance });
  });

  it('keeps an amount ending in .14 in processing until simulated, then the sandbox move pays it', async () => {
    const created = await pay('30.14');
    await waitFor(c, created.id, (p) => p.status === 'processing');
    await new Promise((r) => setTimeout(r, 200));
    expect((await c.request('GET', `/v1/payouts/${created.id}`)).json().status).toBe('processing');
    const res = await c.request('POST', `/v1/sandbox/payouts/${created.id}/pay`);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ status: 'paid' });
  });

  it('pays then reverts an amount ending in .15: failed, funds credited back, payout.reverted recorded but not deliverable', async () => {
    const before = await balance(c, 'EUR');
    const created = await pay('40.15');
    const reverted = await waitFor(c, created.id, (p) => p.status === 'failed');
    expect(reverted.completedAt).not.toBeNull();
    expect(await eventTypesOf(t, created.id)).toEqual(['payout.processing', 'payout.paid', 'payout.reverted']);
    const [event] = await t.ctx.db.query<{ deliverable: boolean }>("SELECT deliverable FROM events WHERE type = 'payout.reverted' AND data->>'id' = $1", [created.id]);
    expect(event?.deliverable).toBe(false);
    expect(await balance(c, 'EUR')).toMatchObject({ balance: before?.balance, totalBalance: before?.totalBalance });
  });

  it('cancels a queued payout: cancelled, payout.cancelled as its only event, held funds returned; a second cancel is 409', async () => {
    const slow = await createTestApp({ databaseUrl: undefined, env: { SANDBOX_STEP_MS: '60000' } });
    try {
      const s = await payingWorkspace(slow);
      await fund(s, 'EUR', '100');
      const b = await saveBeneficiary(s);
      const res = await s.request('POST', '/v1/payouts', { clientRef: ref(), amount: '25.00', currency: 'EUR', beneficiary: { id: b } });
      const id = res.json<PayoutView>().id;
      expect(await balance(s, 'EUR')).toMatchObject({ balance: '75.00', pendingOut: '25.00' });
      const cancel = await s.request('POST', `/v1/payouts/${id}/cancel`);
      expect(cancel.statusCode).toBe(200);
      expect(cancel.json()).toMatchObject({ status: 'cancelled' });
      expect(await balance(s, 'EUR')).toMatchObject({ balance: '100.00', pendingOut: '0.00' });
      expect(await eventTypesOf(slow, id)).toEqual(['payout.cancelled']);
      const again = await s.request('POST', `/v1/payouts/${id}/cancel`);
      expect(again.statusCode).toBe(409);
    } finally {
      await slow.close();
    }
  });

  it('answers 409 when cancelling a paid payout', async () => {
    const created = await pay('11.00');
    await waitFor(c, created.id, (p) => p.status === 'paid');
    const res = await c.request('POST', `/v1/payouts/${created.id}/cancel`);
    expect(res.statusCode).toBe(409);
  });

  it('fails a payout through the sandbox move without a body, with a default reason', async () => {
    const created = await pay('14.14');
    await waitFor(c, created.id, (p) => p.status === 'processing');
    const res = await c.request('POST', `/v1/sandbox/payouts/${created.id}/fail`);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ status: 'failed', failureReason: 'failed' });
  });

  it('lets the operator settle any payout and records it in the audit log', async () => {
    const created = await pay('12.14');
    await waitFor(c, created.id, (p) => p.status === 'processing');
    const res = await t.app.inject({ method: 'POST', url: `/operator/v1/payouts/${created.id}/fail`, headers: { authorization: 'Bearer op_test_key_0123456789' }, payload: { reason: 'bank_rejected' } });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ status: 'failed', failureReason: 'bank_rejected' });
  });

  it('creates the beneficiary from a full beneficiary in the payout', async () => {
    const created = await pay('13.00', { beneficiary: ADA });
    expect(created.beneficiaryId).toMatch(/^[0-9a-f-]{36}$/);
    const b = await c.request('GET', `/v1/beneficiaries/${created.beneficiaryId}`);
    expect(b.statusCode).toBe(200);
  });

  it('steps payouts in batches where one bad step job fails alone and the others still move', async () => {
    const created = await Promise.all(['21.00', '22.00', '23.00'].map((amount) => pay(amount)));
    // A step job whose payout cannot even be read, due with the others so one claim takes them together.
    await enqueue(t.ctx.db, { kind: PAYOUT_STEP_JOB, payload: { payoutId: 'not-a-payout-id' }, maxAttempts: 20 });
    for (const p of created) await waitFor(c, p.id, (v) => v.status === 'paid');
    const [bad] = await t.ctx.db.query<{ status: string; last_error: string | null }>(
      "SELECT status, last_error FROM jobs WHERE kind = $1 AND payload->>'payoutId' = 'not-a-payout-id'",
      [PAYOUT_STEP_JOB],
    );
    expect(bad?.status).toBe('queued');
    expect(bad?.last_error).toBeTruthy();
    await t.ctx.db.query("DELETE FROM jobs WHERE payload->>'payoutId' = 'not-a-payout-id'");
  });
});
