import type { Sql } from '../../platform/db/db.js';
import { maybeOne } from '../../platform/db/db.js';
import { listFilters, paginate, type PageRequest } from '../../platform/db/pagination.js';

/** All SQL of the approval_rules and payout_approvals tables. */

export const RULE_TYPES = ['amount_over', 'new_beneficiary', 'batch_over', 'every_payout'] as const;
export type RuleType = (typeof RULE_TYPES)[number];

export const APPROVAL_STATUSES = ['pending', 'approved', 'rejected', 'expired', 'withdrawn'] as const;
export type ApprovalStatus = (typeof APPROVAL_STATUSES)[number];

export interface RuleRow {
  id: string;
  workspace_id: string;
  type: RuleType;
  currency: string | null;
  amount_minor: string | null;
  days: number | null;
  batch_rows: number | null;
  description: string | null;
  created_by: string;
  created_at: Date;
}

const RULE_COLUMNS = 'id, workspace_id, type, currency, amount_minor::text AS amount_minor, days, batch_rows, description, created_by, created_at';

export interface NewRule {
  id: string;
  workspaceId: string;
  type: RuleType;
  currency: string | null;
  amountMinor: bigint | null;
  days: number | null;
  batchRows: number | null;
  description: string | null;
  createdBy: string;
}

export async function insertRule(sql: Sql, r: NewRule): Promise<RuleRow> {
  const [row] = await sql.query<RuleRow>(
    `INSERT INTO approval_rules (id, workspace_id, type, currency, amount_minor, days, batch_rows, description, created_by)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING ${RULE_COLUMNS}`,
    [r.id, r.workspaceId, r.type, r.currency, r.amountMinor?.toString() ?? null, r.days, r.batchRows, r.description, r.createdBy],
  );
  return row as RuleRow;
}

export async function findRule(sql: Sql, workspaceId: string, id: string): Promise<RuleRow | undefined> {
  return maybeOne<RuleRow>(sql, `SELECT ${RULE_COLUMNS} FROM approval_rules WHERE workspace_id = $1 AND id = $2`, [workspaceId, id]);
}

export async function deleteRule(sql: Sql, workspaceId: string, id: string): Promise<RuleRow | undefined> {
  return maybeOne<RuleRow>(sql, `DELETE FROM approval_rules WHERE workspace_id = $1 AND id = $2 RETURNING ${RULE_COLUMNS}`, [workspaceId, id]);
}

export async function countRules(sql: Sql, workspaceId: string): Promise<number> {
  const [row] = await sql.query<{ n: number }>('SELECT count(*)::int AS n FROM approval_rules WHERE workspace_id = $1', [workspaceId]);
  return row?.n ?? 0;
}

/** The rules of these workspaces, oldest first (the first that matches a payout is the one it reports). */
export async function rulesOf(sql: Sql, workspaceIds: readonly string[]): Promise<RuleRow[]> {
  if (workspaceIds.length === 0) return [];
  return sql.query<RuleRow>(`SELECT ${RULE_COLUMNS} FROM approval_rules WHERE workspace_id = ANY($1::uuid[]) ORDER BY created_at, id`, [[...new Set(workspaceIds)]]);
}

export function listRules<Item>(sql: Sql, workspaceId: string, page: PageRequest, map: (row: RuleRow) => Item) {
  const { where, params, add } = listFilters();
  add('workspace_id = ?', workspaceId);
  return paginate(sql, page, { object: 'approval_rule.list', from: `SELECT ${RULE_COLUMNS} FROM approval_rules`, where, params, map });
}

// ---------------------------------------------------------------------------------------------
// Approvals of payouts

export interface ApprovalRow {
  payout_id: string;
  workspace_id: string;
  account_id: string;
  rule_id: string;
  rule: Record<string, unknown>;
  status: ApprovalStatus;
  requested_by: string;
  decided_by: string | null;
  decided_at: Date | null;
  reason: string | null;
  expires_at: Date;
  created_at: Date;
}

const APPROVAL_COLUMNS = 'payout_id, workspace_id, account_id, rule_id, rule, status, requested_by, decided_by, decided_at, reason, expires_at, created_at';

export interface NewApproval {
  payoutId: string;
  workspaceId: string;
  accountId: string;
  ruleId: string;
  rule: Record<string, unknown>;
  requestedBy: string;
  expiresAt: Date;
}

/** Inserts many pending approvals with one statement. */
export async function insertApprovals(sql: Sql, rows: readonly NewApproval[]): Promise<ApprovalRow[]> {
  if (rows.length === 0) return [];
  const col = <T>(f: (a: NewApproval) => T) => rows.map(f);
  return sql.query<ApprovalRow>(
    `INSERT INTO payout_approvals (payout_id, workspace_id, account_id, rule_id, rule, status, requested_by, expires_at)
     SELECT payout_id, workspace_id, account_id, rule_id, rule::jsonb, 'pending', requested_by, expires_at
       FROM unnest($1::uuid[], $2::uuid[], $3::uuid[], $4::uuid[], $5::text[], $6::text[], $7::timestamptz[])
         AS a(payout_id, workspace_id, account_id, rule_id, rule, requested_by, expires_at)
     RETURNING ${APPROVAL_COLUMNS}`,
    [
      col((a) => a.payoutId), col((a) => a.workspaceId), col((a) => a.accountId), col((a) => a.ruleId),
      col((a) => JSON.stringify(a.rule)), col((a) => a.requestedBy), col((a) => a.expiresAt.toISOString()),
    ],
  );
}

export async function findApproval(sql: Sql, workspaceId: string, payoutId: string): Promise<ApprovalRow | undefined> {
  return maybeOne<ApprovalRow>(sql, `SELECT ${APPROVAL_COLUMNS} FROM payout_approvals WHERE workspace_id = $1 AND payout_id = $2`, [workspaceId, payoutId]);
}

export async function findApprovalById(sql: Sql, payoutId: string): Promise<ApprovalRow | undefined> {
  return maybeOne<ApprovalRow>(sql, `SELECT ${APPROVAL_COLUMNS} FROM payout_approvals WHERE payout_id = $1`, [payoutId]);
}

/** The approvals of these payouts of a workspace (payouts without one are absent). */
export async function approvalsOf(sql: Sql, workspaceId: string, payoutIds: readonly string[]): Promise<ApprovalRow[]> {
  if (payoutIds.length === 0) return [];
  return sql.query<ApprovalRow>(`SELECT ${APPROVAL_COLUMNS} FROM payout_approvals WHERE workspace_id = $1 AND payout_id = ANY($2::uuid[])`, [workspaceId, [...payoutIds]]);
}

/**
 * The decision's compare-and-set: only a pending approval is decided, once. `due` asks that the
 * approval window be over (the expiry). Undefined when someone decided first (or it is not due).
 */
export async function decide(
  sql: Sql,
  payoutId: string,
  decision: { status: Exclude<ApprovalStatus, 'pending'>; decidedBy: string; reason: string | null; due?: boolean },
): Promise<ApprovalRow | undefined> {
  return maybeOne<ApprovalRow>(
    sql,
    `UPDATE payout_approvals SET status = $2, decided_by = $3, decided_at = now(), reason = $4
      WHERE payout_id = $1 AND status = 'pending' AND (NOT $5 OR expires_at <= now())
      RETURNING ${APPROVAL_COLUMNS}`,
    [payoutId, decision.status, decision.decidedBy, decision.reason, decision.due ?? false],
  );
}

export interface ApprovalFilters extends PageRequest {
  status?: ApprovalStatus | undefined;
}

/** A workspace's approvals newest first (a sub-account's only, when one is acted on). */
export function listApprovals<Item>(sql: Sql, scope: { workspaceId: string; subAccountId?: string | undefined }, f: ApprovalFilters, map: (row: ApprovalRow) => Item) {
  const { where, params, add } = listFilters();
  add('workspace_id = ?', scope.workspaceId);
  if (scope.subAccountId) add('account_id = ?', scope.subAccountId);
  if (f.status) add('status = ?', f.status);
  // A payout cancelled (or moved by the provider) while it waited is no longer waiting: its approval
  // reads as withdrawn (and is marked so when its window ends), so the pending list leaves it out.
  if (f.status === 'pending') add("EXISTS (SELECT 1 FROM payouts p WHERE p.id = payout_approvals.payout_id AND p.status = 'queued')");
  return paginate(sql, f, { object: 'approval.list', from: `SELECT ${APPROVAL_COLUMNS} FROM payout_approvals`, where, params, idColumn: 'payout_id', map });
}

/** Approvals still pending, per workspace: how many, and how long the oldest has waited (database clock). */
export async function pendingApprovalAges(sql: Sql): Promise<{ workspaceId: string; count: number; oldestAgeSeconds: number }[]> {
  return sql.query(
    `SELECT workspace_id AS "workspaceId", count(*)::int AS count, EXTRACT(EPOCH FROM now() - min(created_at))::float8 AS "oldestAgeSeconds"
       FROM payout_approvals WHERE status = 'pending' GROUP BY workspace_id ORDER BY workspace_id`,
  );
}
