import type { Sql } from '../../db/db.js';
import { PAYOUT_COLUMNS, type PayoutRow } from './payouts.repository.js';
import type { PayoutStatus } from './payouts.transitions.js';

/*
 * The statements that move payouts in batches (provider steps and every other move, a single move
 * being a batch of one). Kept apart from payouts.repository.ts while the creation path rebuilds it;
 * they belong there.
 */

/** The payouts of a batch, in one statement, in id order. */
export async function findPayoutsByIds(sql: Sql, ids: string[]): Promise<PayoutRow[]> {
  return sql.query<PayoutRow>(`SELECT ${PAYOUT_COLUMNS} FROM payouts WHERE id = ANY($1::uuid[]) ORDER BY id`, [ids]);
}

export interface StatusChange {
  id: string;
  from: PayoutStatus;
  to: PayoutStatus;
  failureReason: string | null;
  completed: boolean;
  reverted: boolean;
}

/** The compare-and-set of every move, for many payouts in one statement: each only from the status its caller read. */
export async function moveStatuses(sql: Sql, changes: readonly StatusChange[]): Promise<PayoutRow[]> {
  if (changes.length === 0) return [];
  return sql.query<PayoutRow>(
    `UPDATE payouts SET status = m.m_to, updated_at = now(),
            failure_reason = COALESCE(m.m_failure_reason, payouts.failure_reason),
            completed_at = CASE WHEN m.m_completed THEN now() ELSE payouts.completed_at END,
            reverted_at = CASE WHEN m.m_reverted THEN now() ELSE payouts.reverted_at END
       FROM unnest($1::uuid[], $2::text[], $3::text[], $4::text[], $5::boolean[], $6::boolean[])
            AS m(m_id, m_from, m_to, m_failure_reason, m_completed, m_reverted)
      WHERE payouts.id = m.m_id AND payouts.status = m.m_from
      RETURNING ${PAYOUT_COLUMNS}`, // the m_ names keep the payout's own columns unambiguous
    [
      changes.map((c) => c.id),
      changes.map((c) => c.from),
      changes.map((c) => c.to),
      changes.map((c) => c.failureReason),
      changes.map((c) => c.completed),
      changes.map((c) => c.reverted),
    ],
  );
}
