import type { Sql } from '../../db/db.js';
import { PAYOUT_COLUMNS, type PayoutRow, type RailReferences } from './payouts.repository.js';
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
  /** Kept when set: the rail's reason; merged into what is stored: the rail's references. */
  returnReason: { code: string; description: string } | null;
  rail: RailReferences | null;
}

/** The compare-and-set of every move, for many payouts in one statement: each only from the status its caller read. */
export async function moveStatuses(sql: Sql, changes: readonly StatusChange[]): Promise<PayoutRow[]> {
  if (changes.length === 0) return [];
  return sql.query<PayoutRow>(
    `UPDATE payouts SET status = m.m_to, updated_at = now(),
            failure_reason = COALESCE(m.m_failure_reason, payouts.failure_reason),
            completed_at = CASE WHEN m.m_completed THEN now() ELSE payouts.completed_at END,
            reverted_at = CASE WHEN m.m_reverted THEN now() ELSE payouts.reverted_at END,
            return_reason = COALESCE(m.m_return_reason, payouts.return_reason),
            rail = CASE WHEN m.m_rail IS NULL THEN payouts.rail ELSE COALESCE(payouts.rail, '{}'::jsonb) || m.m_rail END
       FROM unnest($1::uuid[], $2::text[], $3::text[], $4::text[], $5::boolean[], $6::boolean[], $7::jsonb[], $8::jsonb[])
            AS m(m_id, m_from, m_to, m_failure_reason, m_completed, m_reverted, m_return_reason, m_rail)
      WHERE payouts.id = m.m_id AND payouts.status = m.m_from
      RETURNING ${PAYOUT_COLUMNS}`, // the m_ names keep the payout's own columns unambiguous
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
