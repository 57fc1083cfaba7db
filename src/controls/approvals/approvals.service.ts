import type { AppContext } from '../../platform/context.js';
import type { Sql, Tx } from '../../platform/db/db.js';
import type { PageRequest } from '../../platform/db/pagination.js';
import { enqueueMany, LIFECYCLE_JOB_ATTEMPTS_MAX, type NewJob } from '../../platform/jobs/queue.js';
import { conflict, fieldError, forbidden, notFound } from '../../platform/lib/errors.js';
import { newId } from '../../platform/lib/ids.js';
import { formatAmount, parseAmount } from '../../platform/lib/money.js';
import { currencyInfo } from '../../platform/lib/currencies.js';
import { assertCapability, type AccountScope, type Caller } from '../../domains/accounts/caller.js';
import { personsOf } from '../../domains/auth/credentials.service.js';
import { recordEvents, type NewEvent } from '../../domains/events/events.service.js';
import { appendAudit } from '../audit/audit.service.js';
import { lockForDecision, moveOwnPayout, proceedUnlessHeld } from '../../domains/payouts/payouts.lifecycle.js';
import { getPayout, payoutData, payoutsByIds } from '../../domains/payouts/payouts.read.js';
import * as repo from './approvals.repository.js';
import type { ApprovalFilters, ApprovalRow, ApprovalStatus, RuleRow, RuleType } from './approvals.repository.js';
import { assertWorkspaceRight } from '../../domains/users/rights.js';

/**
 * Approvals (maker-checker) per workspace. A workspace admin sets rules (approval_rules); a payout
 * one of them matches at creation waits for an approval (payout_approvals): it stays `queued` with
 * its funds held and no provider step, until someone other than its creator approves it (its first
 * step is then scheduled), rejects it (cancelled, funds returned), or its window ends (the same as a
 * rejection, by the expiry job). Each decision is a compare-and-set on the approval, so it is taken
 * once, in the transaction of what it moves, its event and its audit entry.
 */

export const APPROVAL_EXPIRY_JOB = 'payout.approval_expiry';
export { APPROVAL_STATUSES, RULE_TYPES, type ApprovalStatus, type RuleType } from './approvals.repository.js';
/** A workspace keeps at most this many rules. */
export const APPROVAL_RULES_MAX = 50;
const DAY_MS = 86_400_000;

// ---------------------------------------------------------------------------------------------
// Rules

export type RuleView = ReturnType<typeof ruleView>;

export function ruleView(row: RuleRow) {
  return {
    id: row.id,
    type: row.type,
    ...(row.currency !== null && row.amount_minor !== null ? { currency: row.currency, amount: formatAmount(BigInt(row.amount_minor), row.currency) } : {}),
    ...(row.days !== null ? { days: row.days } : {}),
    ...(row.batch_rows !== null ? { rows: row.batch_rows } : {}),
    description: row.description,
    createdBy: row.created_by,
    createdAt: row.created_at.toISOString(),
  };
}

export interface RuleInput {
  type: RuleType;
  currency?: string | undefined;
  amount?: string | undefined;
  days?: number | undefined;
  rows?: number | undefined;
  description?: string | undefined;
}

/** Who acts, as the audit log names them: `user:<id>` for a dashboard user, `client:<client id>` for a credential. */
function auditActor(clientId: string): string {
  return clientId.startsWith('dashboard:') ? `user:${clientId.slice('dashboard:'.length)}` : `client:${clientId}`;
}

/** Where a change was asked (the request's id and path), for its audit entry. */
export interface AuditContext {
  requestId: string;
  path: string;
}

type Actor = Pick<Caller, 'workspaceId' | 'clientId' | 'role'>;

async function audit(tx: Tx, actor: string, workspaceId: string, where: AuditContext, body: Record<string, unknown>): Promise<void> {
  await appendAudit(tx, { operatorKeyId: null, actor, method: 'POST', path: where.path, statusCode: 200, requestId: where.requestId, workspaceId, body });
}

/** The rule's own fields by type: each type takes its fields, and only them (400 naming the field). */
function ruleColumns(input: RuleInput): Pick<repo.NewRule, 'currency' | 'amountMinor' | 'days' | 'batchRows'> {
  const given = (['currency', 'amount', 'days', 'rows'] as const).filter((k) => input[k] !== undefined);
  const needs: Record<RuleType, readonly string[]> = { amount_over: ['currency', 'amount'], new_beneficiary: ['days'], batch_over: ['rows'], every_payout: [] };
  const wanted = needs[input.type];
  const missing = wanted.find((k) => !given.includes(k as (typeof given)[number]));
  if (missing) throw fieldError(missing, `${missing} is required with type ${input.type}`);
  const extra = given.find((k) => !wanted.includes(k));
  if (extra) throw fieldError(extra, `${extra} does not apply to type ${input.type}`);
  if (input.days !== undefined && !(Number.isInteger(input.days) && input.days >= 1 && input.days <= 3650)) throw fieldError('days', 'days must be a whole number from 1 to 3650');
  if (input.rows !== undefined && !(Number.isInteger(input.rows) && input.rows >= 1 && input.rows <= 1000)) throw fieldError('rows', 'rows must be a whole number from 1 to 1000');
  if (input.type !== 'amount_over') return { currency: null, amountMinor: null, days: input.days ?? null, batchRows: input.rows ?? null };
  const currency = input.currency as string;
  if (!currencyInfo(currency)) throw fieldError('currency', `currency ${currency} is not a supported currency`, 'UNSUPPORTED_CURRENCY');
  return { currency, amountMinor: parseAmount(input.amount, currency, 'amount', { allowZero: true }), days: null, batchRows: null };
}

export async function createRule(tx: Tx, actor: Actor, input: RuleInput, where: AuditContext): Promise<RuleView> {
  assertWorkspaceRight(actor, 'workspace');
  const columns = ruleColumns(input);
  if ((await repo.countRules(tx, actor.workspaceId)) >= APPROVAL_RULES_MAX) {
    throw conflict('APPROVAL_RULES_LIMIT', `A workspace has at most ${APPROVAL_RULES_MAX} approval rules; remove one first`);
  }
  const row = await repo.insertRule(tx, { id: newId(), workspaceId: actor.workspaceId, type: input.type, ...columns, description: input.description ?? null, createdBy: actor.clientId });
  const view = ruleView(row);
  await audit(tx, auditActor(actor.clientId), actor.workspaceId, where, { change: 'approval_rule.created', rule: view });
  return view;
}

export async function removeRule(tx: Tx, actor: Actor, id: string, where: AuditContext): Promise<RuleView> {
  assertWorkspaceRight(actor, 'workspace');
  const row = await repo.deleteRule(tx, actor.workspaceId, id);
  if (!row) throw notFound('Approval rule');
  const view = ruleView(row);
  await audit(tx, auditActor(actor.clientId), actor.workspaceId, where, { change: 'approval_rule.removed', rule: view });
  return view;
}

export async function getRule(sql: Sql, workspaceId: string, id: string): Promise<RuleView> {
  const row = await repo.findRule(sql, workspaceId, id);
  if (!row) throw notFound('Approval rule');
  return ruleView(row);
}

export function listRules(sql: Sql, workspaceId: string, page: PageRequest) {
  return repo.listRules(sql, workspaceId, page, ruleView);
}

// ---------------------------------------------------------------------------------------------
// Holding payouts at creation

/** A payout just written `queued`, as the rules see it. */
export interface ApprovalCandidate {
  payoutId: string;
  workspaceId: string;
  accountId: string;
  currency: string;
  amountMinor: bigint;
  /** Its creator: the credential's client id, or `dashboard:<user id>`. */
  createdBy: string;
  /** The rows of the request that created it (1 for a single payout). */
  batchRows: number;
  /** When its beneficiary was saved (now, for a beneficiary sent in full with it). */
  beneficiaryCreatedAt: Date;
  /** Its payout event data (every payout event carries it). */
  eventData: Record<string, unknown>;
}

/** The first of a workspace's rules (oldest first) that holds this payout, or undefined. */
export function matchingRule(rules: readonly RuleRow[], c: ApprovalCandidate, nowMs: number): RuleRow | undefined {
  return rules.find((r) => {
    if (r.workspace_id !== c.workspaceId) return false;
    switch (r.type) {
      case 'every_payout':
        return true;
      case 'amount_over':
        return r.currency === c.currency && c.amountMinor > BigInt(r.amount_minor ?? '0');
      case 'new_beneficiary':
        return nowMs - c.beneficiaryCreatedAt.getTime() < (r.days ?? 0) * DAY_MS;
      case 'batch_over':
        return c.batchRows > (r.batch_rows ?? Number.MAX_SAFE_INTEGER);
    }
  });
}

export type ApprovalView = ReturnType<typeof approvalView>;

/** The approval as read on its payout; pending while its payout left `queued` otherwise reads `withdrawn`. */
export function approvalView(row: ApprovalRow, payoutStatus: string) {
  const status: ApprovalStatus = row.status === 'pending' && payoutStatus !== 'queued' ? 'withdrawn' : row.status;
  return {
    status,
    rule: row.rule as RuleView,
    requestedBy: row.requested_by,
    expiresAt: row.expires_at.toISOString(),
    decidedBy: row.decided_by,
    decidedAt: row.decided_at ? row.decided_at.toISOString() : null,
    reason: row.reason,
  };
}

/**
 * The approval check of payout creation, in its transaction: the payouts a rule of their workspace
 * holds get a pending approval, a `payout.approval_required` event and the job that expires them at
 * the end of the approval window. Answers the held payouts' approvals by payout id: the caller does
 * not schedule their first provider step.
 */
export async function holdForApproval(ctx: AppContext, tx: Tx, candidates: readonly ApprovalCandidate[]): Promise<Map<string, ApprovalView>> {
  const held = new Map<string, ApprovalView>();
  if (candidates.length === 0) return held;
  const rules = await repo.rulesOf(tx, candidates.map((c) => c.workspaceId));
  if (rules.length === 0) return held;
  const now = Date.now();
  const expiresAt = new Date(now + ctx.config.approvalWindowMs);
  const holds = candidates.flatMap((c) => {
    const rule = matchingRule(rules, c, now);
    return rule ? [{ c, rule }] : [];
  });
  const rows = await repo.insertApprovals(
    tx,
    holds.map(({ c, rule }) => ({ payoutId: c.payoutId, workspaceId: c.workspaceId, accountId: c.accountId, ruleId: rule.id, rule: ruleView(rule), requestedBy: c.createdBy, expiresAt })),
  );
  for (const row of rows) held.set(row.payout_id, approvalView(row, 'queued'));
  const events: NewEvent[] = holds.map(({ c }) => ({
    workspaceId: c.workspaceId,
    accountId: c.accountId === c.workspaceId ? undefined : c.accountId,
    type: 'payout.approval_required',
    data: { ...c.eventData, approval: held.get(c.payoutId) },
  }));
  await recordEvents(tx, events);
  const jobs: NewJob[] = holds.map(({ c }) => ({ kind: APPROVAL_EXPIRY_JOB, payload: { payoutId: c.payoutId }, runAt: expiresAt, uniqueKey: `payout-approval-expiry:${c.payoutId}`, maxAttempts: LIFECYCLE_JOB_ATTEMPTS_MAX }));
  await enqueueMany(tx, jobs);
  return held;
}

// ---------------------------------------------------------------------------------------------
// Reading

/** Payouts with their approval (`approval` absent where no rule held the payout). */
export async function withApprovals<P extends { id: string; status: string }>(sql: Sql, workspaceId: string, payouts: readonly P[]): Promise<(P & { approval?: ApprovalView })[]> {
  const rows = new Map((await repo.approvalsOf(sql, workspaceId, payouts.map((p) => p.id))).map((r) => [r.payout_id, r]));
  return payouts.map((p) => {
    const row = rows.get(p.id);
    return row ? { ...p, approval: approvalView(row, p.status) } : p;
  });
}

/** A workspace's approvals (default: the pending ones) newest first, each with its payout. */
export async function listApprovals(sql: Sql, scope: AccountScope, f: ApprovalFilters) {
  const page = await repo.listApprovals(sql, scope, { ...f, status: f.status ?? 'pending' }, (row) => row);
  const payouts = new Map((await payoutsByIds(sql, scope.workspaceId, page.data.map((r) => r.payout_id))).map((p) => [p.id, p]));
  return {
    ...page,
    data: page.data.flatMap((row) => {
      const p = payouts.get(row.payout_id);
      if (!p) return [];
      const payout = { id: p.id, clientRef: p.clientRef, amount: p.amount, currency: p.currency, status: p.status, beneficiaryId: p.beneficiaryId, createdAt: p.createdAt, ...(p.accountId ? { accountId: p.accountId } : {}) };
      return [{ payoutId: row.payout_id, createdAt: row.created_at.toISOString(), ...approvalView(row, p.status), payout }];
    }),
  };
}

// ---------------------------------------------------------------------------------------------
// Deciding

export type Decision = 'approve' | 'reject';

/**
 * Approves or rejects a payout that waits for its approval, as `decider` (a dashboard user, or a
 * credential holding write:approvals): never its creator (403 APPROVER_IS_CREATOR). Approved, its
 * first provider step is scheduled; rejected, it is cancelled and its held funds return. A payout
 * not waiting (decided already, by someone else first, or no longer queued) is a 409; one that no rule
 * held, 409 APPROVAL_NOT_REQUIRED. Audited with who decided, in the same transaction.
 */
export async function decidePayout(
  ctx: AppContext,
  tx: Tx,
  decider: Pick<Caller, 'workspaceId' | 'clientId' | 'workspace' | 'role'>,
  payoutId: string,
  decision: Decision,
  reason: string | undefined,
  where: AuditContext,
) {
  assertWorkspaceRight(decider, 'approve');
  const payout = await getPayout(tx, decider.workspaceId, payoutId);
  // The payout's row first, as a cancel takes it before it withdraws the approval.
  await lockForDecision(tx, payoutId);
  const approval = await repo.findApproval(tx, decider.workspaceId, payoutId);
  if (!approval) throw conflict('APPROVAL_NOT_REQUIRED', 'This payout does not wait for an approval');
  // The maker is a person, whichever credential or session they use: a credential a dashboard user created is that user.
  const [maker, checker] = await personsOf(tx, decider.workspaceId, [approval.requested_by, decider.clientId]);
  if (approval.requested_by === decider.clientId || maker === checker) {
    throw forbidden('APPROVER_IS_CREATOR', `The payout's creator cannot ${decision} it, with any of their credentials or sessions: someone else must (another dashboard user, or a credential with write:approvals that is not theirs)`);
  }
  const current = approvalView(approval, payout.status);
  if (current.status !== 'pending') throw conflict('APPROVAL_NOT_PENDING', `This payout's approval is ${current.status}`);
  if (decision === 'approve') assertCapability(decider.workspace, 'payouts');
  const decided = await repo.decide(tx, payoutId, { status: decision === 'approve' ? 'approved' : 'rejected', decidedBy: decider.clientId, reason: reason ?? null });
  if (!decided) throw conflict('APPROVAL_NOT_PENDING', 'Someone decided this approval first');
  const moved = decision === 'approve' ? payout : await moveOwnPayout(ctx, tx, decider.workspaceId, payoutId, 'cancel');
  if (decision === 'approve') await proceedUnlessHeld(ctx, tx, payout);
  const view = { ...payoutData(moved), approval: approvalView(decided, moved.status) };
  await audit(tx, auditActor(decider.clientId), decider.workspaceId, where, { change: `payout.approval.${decided.status}`, payoutId, reason: reason ?? null, rule: decided.rule });
  return view;
}

/**
 * The approval window of a payout ended (the expiry job): a payout still waiting is cancelled and its
 * held funds return, once (the approval's compare-and-set decides, against a rejection at the same
 * moment too); one that left `queued` otherwise is marked withdrawn. Answers when to look again if the
 * window is not over yet (it never moves earlier).
 */
export async function expireApproval(ctx: AppContext, tx: Tx, payoutId: string): Promise<Date | undefined> {
  const approval = await repo.findApprovalById(tx, payoutId);
  if (!approval || approval.status !== 'pending') return undefined;
  if (approval.expires_at.getTime() > Date.now()) return approval.expires_at;
  await lockForDecision(tx, payoutId);
  const payout = await getPayout(tx, approval.workspace_id, payoutId);
  const waiting = payout.status === 'queued';
  const decided = await repo.decide(tx, payoutId, { status: waiting ? 'expired' : 'withdrawn', decidedBy: 'system', reason: waiting ? 'The approval window ended' : `The payout was ${payout.status} meanwhile`, due: true });
  if (!decided) {
    // Decided by someone else meanwhile, or not yet due by the database's clock.
    const again = await repo.findApprovalById(tx, payoutId);
    return again?.status === 'pending' ? new Date(Math.max(again.expires_at.getTime(), Date.now() + 1000)) : undefined;
  }
  if (waiting) await moveOwnPayout(ctx, tx, approval.workspace_id, payoutId, 'cancel');
  await audit(tx, 'system', approval.workspace_id, { requestId: `job:${APPROVAL_EXPIRY_JOB}`, path: `/v1/payouts/${payoutId}/approval/expire` }, {
    change: `payout.approval.${decided.status}`,
    payoutId,
    rule: decided.rule,
  });
  return undefined;
}

export const pendingApprovalAges = repo.pendingApprovalAges;
