import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRunner } from '../../src/jobs.js';
import { createTestApp, newCredential, operator, OPERATOR_KEY, type Caller, type TestApp } from '../helpers/app.js';
import { WebClient } from '../helpers/web-client.js';
import { LIST_FILES, loadList, operatorPost } from '../screening/helpers.js';
import { ADA, balance, eventTypesOf, fund, payingWorkspace, ref, waitFor, type PayoutView } from './helpers.js';

/**
 * A payout held by its controls (a sanctions hit, a pending approval): what the other moves may do
 * meanwhile (cancel and fail close the holds; process and pay are refused), and two controls decided
 * at the same moment (one step, paid once). Both databases.
 */

/** A beneficiary named as a UK-listed person (OFSI group 14596). */
const LISTED = { ...ADA, name: 'Khizri Magomedovich Abakarov' };

type Held = PayoutView & { screening: { status: string; hits: unknown[] }; approval?: { status: string; decidedBy: string | null; decidedAt: string | null } };

let t: TestApp;
/** A workspace without approval rules (screening holds only). */
let s: Caller;
/** A workspace whose every payout waits for an approval, and a second credential that approves. */
let a: Caller;
let checker: Caller;

const credential = (workspaceId: string, scopes: string[]): Promise<Caller> => newCredential(t.app, workspaceId, scopes);

beforeAll(async () => {
  // No worker runs unless a test starts one: the step jobs are looked at in the table.
  t = await createTestApp({ env: { SANDBOX_STEP_MS: '40', JOB_POLL_MS: '20' } });
  const uk = LIST_FILES['uk-ofsi'];
  expect((await loadList(t, 'uk-ofsi', uk.body(), uk.type)).statusCode).toBe(201);
  s = await payingWorkspace(t);
  await fund(s, 'EUR', '1000.00');
  a = await payingWorkspace(t);
  await fund(a, 'EUR', '1000.00');
  expect((await a.request('POST', '/v1/approval-rules', { type: 'every_payout' })).statusCode).toBe(201);
  checker = await credential(a.workspaceId, ['write:approvals', 'read:payouts']);
});
afterAll(async () => t?.close());

async function pay(c: Caller, beneficiary: Record<string, unknown>, amount = '10.00'): Promise<Held> {
  const res = await c.request('POST', '/v1/payouts', { clientRef: ref('held'), amount, currency: 'EUR', beneficiary });
  expect(res.statusCode, res.body).toBe(201);
  return res.json<Held>();
}
const read = async (c: Caller, id: string) => (await c.request('GET', `/v1/payouts/${id}`)).json<Held>();
const stepJobs = async (id: string) => (await t.ctx.db.query<{ n: number }>("SELECT count(*)::int AS n FROM jobs WHERE kind = 'payout.step' AND payload->'payoutIds' ? $1", [id]))[0]?.n;
const heldQueue = async () => (await operator(t.app, 'GET', '/operator/v1/screening/holds?status=held&limit=100')).json<{ data: { payoutId: string }[] }>().data.map((h) => h.payoutId);
const codeOf = (res: LightMyRequestResponse): string | undefined => res.json<{ code?: string }>().code;

describe('a payout held by screening, cancelled or failed meanwhile', () => {
  it('its customer cancels it: the hold reads withdrawn on the payout and in the queue, keeps its evidence, and can no longer be released or rejected', async () => {
    const before = await balance(s, 'EUR');
    const p = await pay(s, LISTED);
    expect(p.screening.status).toBe('held');
    expect(await heldQueue()).toContain(p.id);

    const cancelled = await s.request('POST', `/v1/payouts/${p.id}/cancel`);
    expect(cancelled.statusCode, cancelled.body).toBe(200);
    const after = await read(s, p.id);
    expect(after).toMatchObject({ status: 'cancelled', screening: { status: 'withdrawn' } });
    expect(after.screening.hits).toHaveLength(1);
    expect(await heldQueue()).not.toContain(p.id);
    const hold = await operator(t.app, 'GET', `/operator/v1/screening/holds/${p.id}`);
    expect(hold.json()).toMatchObject({ status: 'withdrawn', decidedBy: 'system', decidedAt: expect.any(String), hits: [{ entryId: '14596' }] });
    const withdrawn = (await operator(t.app, 'GET', '/operator/v1/screening/holds?status=withdrawn')).json<{ data: { payoutId: string }[] }>().data;
    expect(withdrawn.map((h) => h.payoutId)).toContain(p.id);

    for (const decision of ['release', 'reject']) {
      const late = await operatorPost(t, `/operator/v1/screening/holds/${p.id}/${decision}`);
      expect(late.statusCode, late.body).toBe(409);
      expect(late.body).toContain('withdrawn');
    }
    expect(await balance(s, 'EUR')).toMatchObject({ balance: before?.balance, totalBalance: before?.totalBalance });
    const [entry] = await t.ctx.db.query<{ actor: string; body: { change: string } }>("SELECT actor, body FROM operator_audit_log WHERE body->>'payoutId' = $1", [p.id]);
    expect(entry).toMatchObject({ actor: 'system', body: { change: 'payout.screening.withdrawn' } });
  });

  it('the sandbox fails it: the hold is withdrawn too', async () => {
    const p = await pay(s, LISTED);
    const failed = await s.request('POST', `/v1/sandbox/payouts/${p.id}/fail`, { reason: 'test' });
    expect(failed.statusCode, failed.body).toBe(200);
    expect(await read(s, p.id)).toMatchObject({ status: 'failed', screening: { status: 'withdrawn' } });
    expect(await heldQueue()).not.toContain(p.id);
  });

  it('an approval rejected while screening holds it withdraws the screening hold; a screening reject withdraws the pending approval', async () => {
    const p = await pay(a, LISTED);
    expect(p).toMatchObject({ screening: { status: 'held' }, approval: { status: 'pending' } });
    expect((await checker.request('POST', `/v1/payouts/${p.id}/reject`)).statusCode).toBe(200);
    expect(await read(a, p.id)).toMatchObject({ status: 'cancelled', screening: { status: 'withdrawn' }, approval: { status: 'rejected' } });
    expect(await heldQueue()).not.toContain(p.id);

    const q = await pay(a, LISTED);
    expect((await operatorPost(t, `/operator/v1/screening/holds/${q.id}/reject`)).statusCode).toBe(200);
    expect(await read(a, q.id)).toMatchObject({ status: 'failed', screening: { status: 'rejected' }, approval: { status: 'withdrawn', decidedBy: 'system', decidedAt: expect.any(String) } });
    const [row] = await t.ctx.db.query<{ status: string }>('SELECT status FROM payout_approvals WHERE payout_id = $1', [q.id]);
    expect(row?.status).toBe('withdrawn');
  });
});

describe('a held payout refuses to be pushed forward', () => {
  it('held by screening: the sandbox and the operator cannot process or pay it (409 PAYOUT_HELD naming screening); nothing moved', async () => {
    const p = await pay(s, LISTED);
    for (const move of ['process', 'pay']) {
      const sandbox = await s.request('POST', `/v1/sandbox/payouts/${p.id}/${move}`);
      expect(sandbox.statusCode, sandbox.body).toBe(409);
      expect(codeOf(sandbox)).toBe('PAYOUT_HELD');
      expect(sandbox.body).toContain('screening');
      const op = await operatorPost(t, `/operator/v1/payouts/${p.id}/${move}`);
      expect(op.statusCode, op.body).toBe(409);
      expect(op.body).toContain('PAYOUT_HELD');
    }
    // The console's manual moves too.
    const desk = new WebClient(t.app);
    await desk.get('/console/sign-in');
    expect((await desk.post('/console/sign-in/key', { operatorKey: OPERATOR_KEY })).statusCode).toBe(303);
    await desk.get('/console/payouts');
    const marked = await desk.post(`/console/payouts/${p.id}/pay`, {});
    expect(marked.statusCode).toBe(409);
    expect(marked.body).toContain('held by sanctions screening');
    expect(await read(s, p.id)).toMatchObject({ status: 'queued', screening: { status: 'held' } });
    expect(await eventTypesOf(t, p.id)).toEqual([]);
    // Cancel stays allowed.
    expect((await s.request('POST', `/v1/payouts/${p.id}/cancel`)).statusCode).toBe(200);
  });

  it('held by an approval: refused naming the approval; once approved, the sandbox may process it', async () => {
    const p = await pay(a, { ...ADA, name: 'Ada Byron' });
    expect(p.approval?.status).toBe('pending');
    const refused = await a.request('POST', `/v1/sandbox/payouts/${p.id}/process`);
    expect(refused.statusCode, refused.body).toBe(409);
    expect(codeOf(refused)).toBe('PAYOUT_HELD');
    expect(refused.body).toContain('approval');
    expect((await operatorPost(t, `/operator/v1/payouts/${p.id}/process`)).body).toContain('PAYOUT_HELD');
    expect((await checker.request('POST', `/v1/payouts/${p.id}/approve`)).statusCode).toBe(200);
    const processed = await a.request('POST', `/v1/sandbox/payouts/${p.id}/process`);
    expect(processed.statusCode, processed.body).toBe(200);
    expect(processed.json()).toMatchObject({ status: 'processing' });
  });

  it('the operator may still fail a held payout', async () => {
    const p = await pay(s, LISTED);
    const failed = await operatorPost(t, `/operator/v1/payouts/${p.id}/fail`, { reason: 'operator_failed' });
    expect(failed.statusCode, failed.body).toBe(200);
    expect(await read(s, p.id)).toMatchObject({ status: 'failed', screening: { status: 'withdrawn' } });
  });
});

describe('an approval and a screening release decided at the same moment', () => {
  it('schedule exactly one step, and the payout is paid once', async () => {
    for (let round = 0; round < 4; round++) {
      const p = await pay(a, LISTED, `${round + 1}.00`);
      expect(p).toMatchObject({ screening: { status: 'held' }, approval: { status: 'pending' } });
      const key = `race-${p.id}`;
      const answers = await Promise.all([
        checker.request('POST', `/v1/payouts/${p.id}/approve`, {}, { 'idempotency-key': key }),
        t.app.inject({ method: 'POST', url: `/operator/v1/screening/holds/${p.id}/release`, headers: { authorization: `Bearer ${OPERATOR_KEY}`, 'idempotency-key': key }, payload: {} }),
      ]);
      expect(answers.map((r) => r.statusCode), answers.map((r) => r.body).join('\n')).toEqual([200, 200]);
      expect(await stepJobs(p.id)).toBe(1);
      const runner = createRunner(t.ctx);
      runner.start();
      try {
        await waitFor(a, p.id, (v) => v.status === 'paid');
      } finally {
        await runner.stop();
      }
      expect(await eventTypesOf(t, p.id)).toEqual(['payout.approval_required', 'payout.processing', 'payout.paid']);
      expect(await stepJobs(p.id)).toBe(0);
    }
  });
});
