import type { Sql } from '../../platform/db/db.js';
import { maybeOne } from '../../platform/db/db.js';
import type { RecipientCheckResult, RecipientCheckRow } from './recipient-checks.view.js';

/**
 * All SQL of payout_recipient_checks but two statements of the payouts module, which runs in the
 * transaction of every payout move: whether a control holds a payout, and the withdrawal of the
 * controls of a payout cancelled or failed (payouts.steps.repository.ts).
 */

const COLUMNS = 'payout_id, workspace_id, account_id, connector, status, result, name, rail_name, reason, checked_at, decided_by, decided_at, created_at';

export interface NewCheck {
  payoutId: string;
  workspaceId: string;
  accountId: string;
  connector: string;
  name: string;
}

/** The pending checks of payouts just created, in one statement. */
export async function insertChecks(sql: Sql, checks: readonly NewCheck[]): Promise<RecipientCheckRow[]> {
  if (checks.length === 0) return [];
  return sql.query<RecipientCheckRow>(
    `INSERT INTO payout_recipient_checks (payout_id, workspace_id, account_id, connector, status, name)
     SELECT c.payout_id, c.workspace_id, c.account_id, c.connector, 'pending', c.name
       FROM unnest($1::uuid[], $2::uuid[], $3::uuid[], $4::text[], $5::text[]) AS c(payout_id, workspace_id, account_id, connector, name)
     RETURNING ${COLUMNS}`,
    [checks.map((c) => c.payoutId), checks.map((c) => c.workspaceId), checks.map((c) => c.accountId), checks.map((c) => c.connector), checks.map((c) => c.name)],
  );
}

export function findCheck(sql: Sql, payoutId: string, options: { lock?: boolean } = {}): Promise<RecipientCheckRow | undefined> {
  return maybeOne<RecipientCheckRow>(sql, `SELECT ${COLUMNS} FROM payout_recipient_checks WHERE payout_id = $1${options.lock ? ' FOR UPDATE' : ''}`, [payoutId]);
}

/** The rail's answer, once: a compare-and-set from `pending` to `passed` (a match) or `held`. */
export function recordAnswer(
  sql: Sql,
  payoutId: string,
  answer: { status: 'passed' | 'held'; result: RecipientCheckResult; railName: string | null; reason: string | null },
): Promise<RecipientCheckRow | undefined> {
  return maybeOne<RecipientCheckRow>(
    sql,
    `UPDATE payout_recipient_checks SET status = $2, result = $3, rail_name = $4, reason = $5, checked_at = now()
      WHERE payout_id = $1 AND status = 'pending' RETURNING ${COLUMNS}`,
    [payoutId, answer.status, answer.result, answer.railName, answer.reason],
  );
}

/**
 * A check the rail made after the payout left (the bank's Verification of Payee, in its pain.002),
 * recorded `passed` with its result: the payout is on its way, nothing waits on it. A payout checked
 * before it left keeps that check (one check per payout); a report read again changes nothing.
 */
export function insertReportedCheck(sql: Sql, check: NewCheck & { result: RecipientCheckResult; railName: string | null; reason: string | null }): Promise<RecipientCheckRow | undefined> {
  return maybeOne<RecipientCheckRow>(
    sql,
    `INSERT INTO payout_recipient_checks (payout_id, workspace_id, account_id, connector, status, result, name, rail_name, reason, checked_at)
     VALUES ($1, $2, $3, $4, 'passed', $5, $6, $7, $8, now())
     ON CONFLICT (payout_id) DO NOTHING
     RETURNING ${COLUMNS}`,
    [check.payoutId, check.workspaceId, check.accountId, check.connector, check.result, check.name, check.railName, check.reason],
  );
}

/** The workspace confirms a held check (never one whose account was not found): a compare-and-set from `held`. */
export function confirmCheck(sql: Sql, workspaceId: string, payoutId: string, by: string): Promise<RecipientCheckRow | undefined> {
  return maybeOne<RecipientCheckRow>(
    sql,
    `UPDATE payout_recipient_checks SET status = 'confirmed', decided_by = $3, decided_at = now()
      WHERE workspace_id = $1 AND payout_id = $2 AND status = 'held' AND result <> 'account_not_found' RETURNING ${COLUMNS}`,
    [workspaceId, payoutId, by],
  );
}
