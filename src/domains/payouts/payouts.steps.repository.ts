import type { Sql } from '../../platform/db/db.js';
import { PAYOUT_CORE_COLUMNS, type PayoutCoreRow, type RailReferences } from './payouts.repository.js';
import type { PayoutStatus } from './payouts.transitions.js';

/*
 * The statements that move payouts in batches (provider steps and every other move, a single move
 * being a batch of one). Kept apart from payouts.repository.ts while the creation path rebuilds it;
 * they belong there.
 */

/** The payouts of a batch, in one statement, in id order (their own columns: no step reads their screening). */
export async function findPayoutsByIds(sql: Sql, ids: string[]): Promise<PayoutCoreRow[]> {
  return sql.query<PayoutCoreRow>(`SELECT ${PAYOUT_CORE_COLUMNS} FROM payouts WHERE id = ANY($1::uuid[]) ORDER BY id`, [ids]);
}

export interface StatusChange {
  id: string;
  from: PayoutStatus;
  to: PayoutStatus;
  failureReason: string | null;
  completed: boolean;
  reverted: boolean;
  /** Kept when set: the rail's reason; merged into what is stored: the rail's references. */
  returnReason: { code: string; description: string } | null;
  rail: RailReferences | null;
}

/** The compare-and-set of every move, for many payouts in one statement: each only from the status its caller read. */
export async function moveStatuses(sql: Sql, changes: readonly StatusChange[]): Promise<PayoutCoreRow[]> {
  if (changes.length === 0) return [];
  return sql.query<PayoutCoreRow>(
    `UPDATE payouts SET status = m.m_to, updated_at = now(),
            failure_reason = COALESCE(m.m_failure_reason, payouts.failure_reason),
            completed_at = CASE WHEN m.m_completed THEN now() ELSE payouts.completed_at END,
            reverted_at = CASE WHEN m.m_reverted THEN now() ELSE payouts.reverted_at END,
            return_reason = COALESCE(m.m_return_reason, payouts.return_reason),
            rail = CASE WHEN m.m_rail IS NULL THEN payouts.rail ELSE COALESCE(payouts.rail, '{}'::jsonb) || m.m_rail END
       FROM unnest($1::uuid[], $2::text[], $3::text[], $4::text[], $5::boolean[], $6::boolean[], $7::jsonb[], $8::jsonb[])
            AS m(m_id, m_from, m_to, m_failure_reason, m_completed, m_reverted, m_return_reason, m_rail)
      WHERE payouts.id = m.m_id AND payouts.status = m.m_from
      RETURNING ${PAYOUT_CORE_COLUMNS}`, // the m_ names keep the payout's own columns unambiguous
    [
      changes.map((c) => c.id),
      changes.map((c) => c.from),
      changes.map((c) => c.to),
      changes.map((c) => c.failureReason),
      changes.map((c) => c.completed),
      changes.map((c) => c.reverted),
      changes.map((c) => (c.returnReason ? JSON.stringify(c.returnReason) : null)),
      changes.map((c) => (c.rail ? JSON.stringify(c.rail) : null)),
    ],
  );
}

/** The sealed recipient and sender of payouts handed over to an async connector, in one statement. */
export async function findSealedParties(sql: Sql, ids: readonly string[]): Promise<{ id: string; beneficiary: string; sender: string | null }[]> {
  if (ids.length === 0) return [];
  return sql.query<{ id: string; beneficiary: string; sender: string | null }>(`SELECT id, beneficiary, sender FROM payouts WHERE id = ANY($1::uuid[])`, [ids]);
}

/** The controls that may hold a queued payout back from its first step (screening, approvals, recipient checks). */
export type PayoutControl = 'screening' | 'approval' | 'recipient_check';

/** Locks a payout's row: every decision of a control takes it first, as every move does, so they queue up in one order. */
export async function lockPayout(sql: Sql, payoutId: string): Promise<void> {
  await sql.query(`SELECT 1 FROM payouts WHERE id = $1 FOR UPDATE`, [payoutId]);
}

/**
 * The controls that hold a queued payout back from its first step: a sanctions hit not yet released
 * (screening), an approval still pending (approvals), a recipient check not answered yet or answered
 * other than a match and not confirmed (recipient-checks). Empty when none does.
 */
export async function heldBy(sql: Sql, payoutId: string): Promise<PayoutControl[]> {
  const [row] = await sql.query<{ screening: boolean; approval: boolean; recipient_check: boolean }>(
    `SELECT EXISTS (SELECT 1 FROM payout_screenings WHERE payout_id = $1 AND status = 'held') AS screening,
            EXISTS (SELECT 1 FROM payout_approvals WHERE payout_id = $1 AND status = 'pending') AS approval,
            EXISTS (SELECT 1 FROM payout_recipient_checks WHERE payout_id = $1 AND status IN ('pending', 'held')) AS recipient_check`,
    [payoutId],
  );
  return (['screening', 'approval', 'recipient_check'] as const).filter((c) => row?.[c] === true);
}

/**
 * Whether a control still holds a queued payout back from its first step. Read by whichever decision
 * comes last, which then schedules the step.
 */
export async function isHeldBack(sql: Sql, payoutId: string): Promise<boolean> {
  // The payout's row first, so two decisions committing side by side are serialized and the second
  // (a statement of its own, so a fresh snapshot) sees the first.
  await lockPayout(sql, payoutId);
  return (await heldBy(sql, payoutId)).length > 0;
}

/**
 * Closes the controls still open on payouts that just left `queued` otherwise than through them
 * (cancelled or failed): a held screening, a pending approval and a pending or held recipient check
 * become `withdrawn`, decided by `system`, keeping their evidence. One statement; answers what it
 * closed. The tables belong to the screening, approvals and recipient-checks modules, which build on the payouts module (not the other way round): this
 * is the one write to them from here, in the transaction of the move.
 */
export async function withdrawControls(sql: Sql, payouts: readonly { id: string; status: string }[]): Promise<{ payout_id: string; workspace_id: string; control: PayoutControl }[]> {
  if (payouts.length === 0) return [];
  return sql.query<{ payout_id: string; workspace_id: string; control: PayoutControl }>(
    `WITH moved AS (SELECT * FROM unnest($1::uuid[], $2::text[]) AS m(id, status)),
     s AS (UPDATE payout_screenings SET status = 'withdrawn', decided_by = 'system', decided_at = now()
             FROM moved WHERE payout_screenings.payout_id = moved.id AND payout_screenings.status = 'held'
           RETURNING payout_screenings.payout_id, payout_screenings.workspace_id),
     a AS (UPDATE payout_approvals SET status = 'withdrawn', decided_by = 'system', decided_at = now(), reason = 'The payout was ' || moved.status || ' meanwhile'
             FROM moved WHERE payout_approvals.payout_id = moved.id AND payout_approvals.status = 'pending'
           RETURNING payout_approvals.payout_id, payout_approvals.workspace_id),
     r AS (UPDATE payout_recipient_checks SET status = 'withdrawn', decided_by = 'system', decided_at = now()
             FROM moved WHERE payout_recipient_checks.payout_id = moved.id AND payout_recipient_checks.status IN ('pending', 'held')
           RETURNING payout_recipient_checks.payout_id, payout_recipient_checks.workspace_id)
     SELECT payout_id, workspace_id, 'screening' AS control FROM s
     UNION ALL SELECT payout_id, workspace_id, 'approval' AS control FROM a
     UNION ALL SELECT payout_id, workspace_id, 'recipient_check' AS control FROM r`,
    [payouts.map((p) => p.id), payouts.map((p) => p.status)],
  );
}

/**
 * A connector's backlog: how many of its payouts are in the statuses given, and since when the
 * oldest has been in it. Read by the console (connector health), never in the step path: it scans
 * the payouts of those statuses without an index of its own, which the payouts' writes would pay for.
 */
export async function backlogOf(sql: Sql, provider: string, statuses: readonly PayoutStatus[]): Promise<{ count: number; oldestSince: Date | null }> {
  const [row] = await sql.query<{ count: number; oldest_since: Date | null }>(
    'SELECT count(*)::int AS count, min(updated_at) AS oldest_since FROM payouts WHERE provider = $1 AND status = ANY($2::text[])',
    [provider, statuses],
  );
  return { count: row?.count ?? 0, oldestSince: row?.oldest_since ?? null };
}
