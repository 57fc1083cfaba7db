import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LightMyRequestResponse } from 'fastify';
import { approvalExpiryJob } from '../../src/controls/approvals/approvals.jobs.js';
import { APPROVAL_EXPIRY_JOB } from '../../src/controls/approvals/approvals.service.js';
import { createTestApp, newCredential, type Caller, type TestApp } from '../helpers/app.js';
import { ADA, balance, eventTypesOf, fund, payingWorkspace, ref, saveBeneficiary, type PayoutView } from '../payouts/helpers.js';

let t: TestApp;

beforeAll(async () => {
  // Steps far apart: nothing moves on its own; no worker runs (jobs are looked at in the table).
  t = await createTestApp({ env: { SANDBOX_STEP_MS: '600000' } });
});
afterAll(async () => t.close());

type Approval = { status: string; rule: Record<string, unknown>; requestedBy: string; decidedBy: string | null; decidedAt: string | null; reason: string | null; expiresAt: string };
type Held = PayoutView & { approval?: Approval };

const credential = (workspaceId: string, scopes: string[]): Promise<Caller> => newCredential(t.app, workspaceId, scopes);

interface Setup {
  maker: Caller;
  checker: Caller;
  beneficiaryId: string;
}

/** A funded workspace (the maker: every scope), a second credential that may approve (the checker), and a saved beneficiary. */
async function setup(rules: Record<string, unknown>[]): Promise<Setup> {
  const maker = await payingWorkspace(t);
  await fund(maker, 'EUR', '1000');
  const beneficiaryId = await saveBeneficiary(maker);
  for (const rule of rules) {
    const res = await maker.request('POST', '/v1/approval-rules', rule);
    expect(res.statusCode, res.body).toBe(201);
  }
  const checker = await credential(maker.workspaceId, ['write:approvals', 'read:payouts']);
  return { maker, checker, beneficiaryId };
}

async function pay(s: Setup, amount: string, extra: Record<string, unknown> = {}): Promise<Held> {
  const res = await s.maker.request('POST', '/v1/payouts', { clientRef: ref(), amount, currency: 'EUR', beneficiary: { id: s.beneficiaryId }, ...extra });
  expect(res.statusCode, res.body).toBe(201);
  return res.json<Held>();
}

async function count(sql: string, params: unknown[] = []): Promise<number> {
  const [row] = await t.ctx.db.query<{ n: number }>(sql, params);
  return row?.n ?? 0;
}

const stepJobs = (payoutId: string) => count("SELECT count(*)::int AS n FROM jobs WHERE kind = 'payout.step' AND payload->'payoutIds' ? $1", [payoutId]);

describe('approval rules through the API', () => {
  it('adds, lists, reads and removes rules; each type takes its own fields; another workspace cannot see them', async () => {
    const c = await payingWorkspace(t);
    const created = await c.request('POST', '/v1/approval-rules', { type: 'amount_over', currency: 'EUR', amount: '1000', description: 'Large EUR payouts' });
    expect(created.statusCode, created.body).toBe(201);
    const rule = created.json<{ id: string }>();
    expect(rule).toMatchObject({ type: 'amount_over', currency: 'EUR', amount: '1000.00', description: 'Large EUR payouts', createdBy: c.clientId });

    const missing = await c.request('POST', '/v1/approval-rules', { type: 'amount_over', currency: 'EUR' });
    expect(missing.statusCode).toBe(400);
    expect(missing.json().details[0].field).toBe('amount');
    const extra = await c.request('POST', '/v1/approval-rules', { type: 'every_payout', days: 3 });
    expect(extra.statusCode).toBe(400);
    expect(extra.json().details[0].field).toBe('days');
    const decimals = await c.request('POST', '/v1/approval-rules', { type: 'amount_over', currency: 'EUR', amount: '1.001' });
    expect(decimals.statusCode).toBe(400);

    const list = await c.request('GET', '/v1/approval-rules');
    expect(list.json()).toMatchObject({ object: 'approval_rule.list', data: [{ id: rule.id }], hasMore: false });
    expect((await c.request('GET', `/v1/approval-rules/${rule.id}`)).json()).toMatchObject({ id: rule.id });

    const other = await payingWorkspace(t);
    expect((await other.request('GET', `/v1/approval-rules/${rule.id}`)).statusCode).toBe(404);
    expect((await other.request('DELETE', `/v1/approval-rules/${rule.id}`)).statusCode).toBe(404);

    const reader = await credential(c.workspaceId, ['read:approvals']);
    expect((await reader.request('GET', '/v1/approval-rules')).statusCode).toBe(200);
    expect((await reader.request('POST', '/v1/approval-rules', { type: 'every_payout' })).statusCode).toBe(403);

    expect((await c.request('DELETE', `/v1/approval-rules/${rule.id}`)).json()).toEqual({ id: rule.id, deleted: true });
    expect((await c.request('GET', '/v1/approval-rules')).json().data).toEqual([]);
    const audited = await t.ctx.db.query<{ actor: string; body: { change: string } }>("SELECT actor, body FROM operator_audit_log WHERE workspace_id = $1 AND path LIKE '/v1/approval-rules%' ORDER BY at", [c.workspaceId]);
    expect(audited.map((a) => [a.actor, a.body.change])).toEqual([
      [`client:${c.clientId}`, 'approval_rule.created'],
      [`client:${c.clientId}`, 'approval_rule.removed'],
    ]);
  });
});

describe('a payout an approval rule holds', () => {
  it('waits queued with approval pending, emits payout.approval_required, and schedules no provider step', async () => {
    const s = await setup([{ type: 'amount_over', currency: 'EUR', amount: '100' }]);
    const before = await balance(s.maker, 'EUR');
    const held = await pay(s, '150.00');
    expect(held.status).toBe('queued');
    expect(held.approval).toMatchObject({ status: 'pending', rule: { type: 'amount_over', currency: 'EUR', amount: '100.00' }, requestedBy: s.maker.clientId, decidedBy: null });
    expect(await stepJobs(held.id)).toBe(0);
    expect(await count('SELECT count(*)::int AS n FROM jobs WHERE kind = $1 AND payload->>\'payoutId\' = $2', [APPROVAL_EXPIRY_JOB, held.id])).toBe(1);
    expect(await eventTypesOf(t, held.id)).toEqual(['payout.approval_required']);
    const [event] = await t.ctx.db.query<{ data: Record<string, unknown> }>("SELECT data FROM events WHERE type = 'payout.approval_required' AND data->>'id' = $1", [held.id]);
    expect(event?.data).toMatchObject({ id: held.id, amount: '150.00', currency: 'EUR', status: 'queued', approval: { status: 'pending', rule: { type: 'amount_over' } } });
    // The funds are held meanwhile.
    expect(Number((await balance(s.maker, 'EUR'))?.balance)).toBeLessThan(Number(before?.balance));

    const read = (await s.maker.request('GET', `/v1/payouts/${held.id}`)).json<Held>();
    expect(read.approval).toMatchObject({ status: 'pending' });
    const listed = (await s.maker.request('GET', '/v1/payouts')).json<{ data: Held[] }>().data.find((p) => p.id === held.id);
    expect(listed?.approval?.status).toBe('pending');
    // write:approvals includes read:approvals: the checker sees what waits.
    const pending = (await s.checker.request('GET', '/v1/approvals')).json<{ data: { payoutId: string }[] }>();
    expect(pending.data.map((a) => a.payoutId)).toEqual([held.id]);
  });

  it('applies an amount rule to its own currency only, and only over the amount', async () => {
    const s = await setup([
      { type: 'amount_over', currency: 'EUR', amount: '100' },
      { type: 'amount_over', currency: 'USD', amount: '1' },
    ]);
    expect((await pay(s, '100.00')).approval).toBeUndefined();
    expect((await pay(s, '99.99')).approval).toBeUndefined();
    expect((await pay(s, '100.01')).approval).toMatchObject({ status: 'pending', rule: { currency: 'EUR' } });
  });

  it('holds payouts to a beneficiary saved less than N days ago, or sent in full, and not to an older one', async () => {
    const s = await setup([{ type: 'new_beneficiary', days: 7 }]);
    expect((await pay(s, '10.00')).approval).toMatchObject({ status: 'pending', rule: { type: 'new_beneficiary', days: 7 } });
    const full = await s.maker.request('POST', '/v1/payouts', { clientRef: ref(), amount: '10.00', currency: 'EUR', beneficiary: ADA });
    expect(full.json<Held>().approval).toMatchObject({ status: 'pending' });
    await t.ctx.db.query("UPDATE beneficiaries SET created_at = now() - interval '8 days' WHERE id = $1", [s.beneficiaryId]);
    const old = await pay(s, '10.00');
    expect(old.approval).toBeUndefined();
    expect(await stepJobs(old.id)).toBe(1);
  });

  it('holds every payout of a batch over N rows, and none of a smaller batch or a single payout', async () => {
    const s = await setup([{ type: 'batch_over', rows: 2 }]);
    const row = () => ({ clientRef: ref('b'), amount: '5.00', currency: 'EUR', beneficiary: { id: s.beneficiaryId } });
    const small = await s.maker.request('POST', '/v1/payouts', [row(), row()]);
    expect(small.json<Held[]>().map((p) => p.approval)).toEqual([undefined, undefined]);
    const large = await s.maker.request('POST', '/v1/payouts', [row(), row(), row()]);
    expect(large.statusCode, large.body).toBe(201);
    expect(large.json<Held[]>().map((p) => p.approval?.status)).toEqual(['pending', 'pending', 'pending']);
    expect((await pay(s, '5.00')).approval).toBeUndefined();
  });
});

describe('deciding', () => {
  it('refuses the creator (403 APPROVER_IS_CREATOR) and a credential without write:approvals; another credential approves and the payout proceeds', async () => {
    const s = await setup([{ type: 'every_payout' }]);
    const held = await pay(s, '20.00');
    const own = await s.maker.request('POST', `/v1/payouts/${held.id}/approve`);
    expect(own.statusCode).toBe(403);
    expect(own.json().code).toBe('APPROVER_IS_CREATOR');
    expect((await s.maker.request('POST', `/v1/payouts/${held.id}/reject`)).statusCode).toBe(403);
    const payer = await credential(s.maker.workspaceId, ['write:payouts', 'read:approvals']);
    expect((await payer.request('POST', `/v1/payouts/${held.id}/approve`)).statusCode).toBe(403);

    const listed = await payer.request('GET', '/v1/approvals');
    expect(listed.json()).toMatchObject({ object: 'approval.list', data: [{ payoutId: held.id, status: 'pending', payout: { id: held.id, amount: '20.00' } }] });

    const approved = await s.checker.request('POST', `/v1/payouts/${held.id}/approve`, { reason: 'checked the invoice' }, { 'idempotency-key': `approve-${held.id}` });
    expect(approved.statusCode, approved.body).toBe(200);
    expect(approved.json<Held>()).toMatchObject({ id: held.id, status: 'queued', approval: { status: 'approved', decidedBy: s.checker.clientId, reason: 'checked the invoice' } });
    expect(await stepJobs(held.id)).toBe(1);
    const replay = await s.checker.request('POST', `/v1/payouts/${held.id}/approve`, { reason: 'checked the invoice' }, { 'idempotency-key': `approve-${held.id}` });
    expect(replay.body).toBe(approved.body);
    expect(await stepJobs(held.id)).toBe(1);
    expect((await s.checker.request('POST', `/v1/payouts/${held.id}/reject`)).json().code).toBe('APPROVAL_NOT_PENDING');
    expect((await payer.request('GET', '/v1/approvals')).json().data).toEqual([]);
    expect((await payer.request('GET', '/v1/approvals?status=approved')).json().data).toHaveLength(1);

    const audited = await t.ctx.db.query<{ actor: string; path: string; body: { change: string } }>("SELECT actor, path, body FROM operator_audit_log WHERE workspace_id = $1 AND body->>'payoutId' = $2", [s.maker.workspaceId, held.id]);
    expect(audited).toEqual([{ actor: `client:${s.checker.clientId}`, path: `/v1/payouts/${held.id}/approve`, body: expect.objectContaining({ change: 'payout.approval.approved', reason: 'checked the invoice' }) }]);
  });

  it('answers 409 APPROVAL_NOT_REQUIRED for a payout no rule held, and 404 for another workspace\'s payout', async () => {
    const s = await setup([]);
    const free = await pay(s, '5.00');
    expect((await s.checker.request('POST', `/v1/payouts/${free.id}/approve`)).json().code).toBe('APPROVAL_NOT_REQUIRED');
    const other = await setup([{ type: 'every_payout' }]);
    const theirs = await pay(other, '5.00');
    expect((await s.checker.request('POST', `/v1/payouts/${theirs.id}/approve`)).statusCode).toBe(404);
  });

  it('gives one decision when two approvers race (approve against approve, and approve against reject)', async () => {
    const s = await setup([{ type: 'every_payout' }]);
    const third = await credential(s.maker.workspaceId, ['write:approvals']);
    for (const [a, b] of [['approve', 'approve'], ['approve', 'reject']] as const) {
      const held = await pay(s, '7.00');
      const answers: LightMyRequestResponse[] = await Promise.all([s.checker.request('POST', `/v1/payouts/${held.id}/${a}`), third.request('POST', `/v1/payouts/${held.id}/${b}`)]);
      expect(answers.map((r) => r.statusCode).sort()).toEqual([200, 409]);
      const loser = answers.find((r) => r.statusCode === 409);
      expect(loser?.json().code).toBe('APPROVAL_NOT_PENDING');
      const decided = await count("SELECT count(*)::int AS n FROM operator_audit_log WHERE body->>'payoutId' = $1", [held.id]);
      expect(decided).toBe(1);
      const final = (await s.maker.request('GET', `/v1/payouts/${held.id}`)).json<Held>();
      expect(await stepJobs(held.id)).toBe(final.approval?.status === 'approved' ? 1 : 0);
      expect(await eventTypesOf(t, held.id)).toEqual(final.approval?.status === 'approved' ? ['payout.approval_required'] : ['payout.approval_required', 'payout.cancelled']);
    }
  });

  it('rejects: the payout is cancelled, its funds (and fee) return, payout.cancelled is emitted', async () => {
    const s = await setup([{ type: 'every_payout' }]);
    const before = await balance(s.maker, 'EUR');
    const held = await pay(s, '30.00');
    const rejected = await s.checker.request('POST', `/v1/payouts/${held.id}/reject`, { reason: 'unknown supplier' });
    expect(rejected.statusCode, rejected.body).toBe(200);
    expect(rejected.json<Held>()).toMatchObject({ status: 'cancelled', approval: { status: 'rejected', decidedBy: s.checker.clientId, reason: 'unknown supplier' } });
    expect(await balance(s.maker, 'EUR')).toMatchObject({ balance: before?.balance, totalBalance: before?.totalBalance });
    expect(await eventTypesOf(t, held.id)).toEqual(['payout.approval_required', 'payout.cancelled']);
  });

  it('a payout its creator cancels while it waits is withdrawn: off the pending list, and no longer decidable', async () => {
    const s = await setup([{ type: 'every_payout' }]);
    const held = await pay(s, '8.00');
    expect((await s.maker.request('POST', `/v1/payouts/${held.id}/cancel`)).statusCode).toBe(200);
    expect((await s.maker.request('GET', `/v1/payouts/${held.id}`)).json<Held>().approval?.status).toBe('withdrawn');
    expect((await s.maker.request('GET', '/v1/approvals')).json().data).toEqual([]);
    expect((await s.checker.request('POST', `/v1/payouts/${held.id}/approve`)).json().code).toBe('APPROVAL_NOT_PENDING');
  });
});

describe('the approval window', () => {
  const runExpiry = (payoutId: string) => approvalExpiryJob(t.ctx, { id: '0', kind: APPROVAL_EXPIRY_JOB, payload: { payoutId }, attempts: 1, max_attempts: 20 });

  it('leaves a payout alone before its window ends (looks again then)', async () => {
    const s = await setup([{ type: 'every_payout' }]);
    const held = await pay(s, '9.00');
    const again = await runExpiry(held.id);
    expect(again).toBeInstanceOf(Date);
    expect((again as Date).toISOString()).toBe(held.approval?.expiresAt);
    expect((await s.maker.request('GET', `/v1/payouts/${held.id}`)).json<Held>().approval?.status).toBe('pending');
  });

  it('expires a payout once its window ended: cancelled, funds returned exactly once, even with the job twice and a rejection at the same moment', async () => {
    const s = await setup([{ type: 'every_payout' }]);
    const before = await balance(s.maker, 'EUR');
    const held = await pay(s, '40.00');
    await t.ctx.db.query("UPDATE payout_approvals SET expires_at = now() - interval '1 second' WHERE payout_id = $1", [held.id]);
    const results = await Promise.allSettled([runExpiry(held.id), runExpiry(held.id), s.checker.request('POST', `/v1/payouts/${held.id}/reject`)]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled', 'fulfilled']);
    await runExpiry(held.id);
    const read = (await s.maker.request('GET', `/v1/payouts/${held.id}`)).json<Held>();
    expect(read.status).toBe('cancelled');
    expect(['expired', 'rejected']).toContain(read.approval?.status);
    expect(await balance(s.maker, 'EUR')).toMatchObject({ balance: before?.balance, totalBalance: before?.totalBalance });
    expect(await eventTypesOf(t, held.id)).toEqual(['payout.approval_required', 'payout.cancelled']);
    const voids = await count("SELECT count(*)::int AS n FROM operator_audit_log WHERE body->>'payoutId' = $1", [held.id]);
    expect(voids).toBe(1);
  });

  it('expires through the job queue with who decided (`system`) and an audit entry', async () => {
    const s = await setup([{ type: 'every_payout' }]);
    const held = await pay(s, '11.00');
    await t.ctx.db.query("UPDATE payout_approvals SET expires_at = now() - interval '1 second' WHERE payout_id = $1", [held.id]);
    await runExpiry(held.id);
    const read = (await s.maker.request('GET', `/v1/payouts/${held.id}`)).json<Held>();
    expect(read).toMatchObject({ status: 'cancelled', approval: { status: 'expired', decidedBy: 'system' } });
    const [entry] = await t.ctx.db.query<{ actor: string; body: { change: string } }>("SELECT actor, body FROM operator_audit_log WHERE body->>'payoutId' = $1", [held.id]);
    expect(entry).toMatchObject({ actor: 'system', body: { change: 'payout.approval.expired' } });
  });
});
