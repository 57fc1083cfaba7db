/**
 * A payout's recipient check as its reads show it (payouts.read.ts imports this file alone, so that
 * the payouts module reads the check without importing the control's service, which builds on it).
 */

export const RECIPIENT_CHECK_STATUSES = ['pending', 'passed', 'held', 'confirmed', 'withdrawn'] as const;
export type RecipientCheckStatus = (typeof RECIPIENT_CHECK_STATUSES)[number];

export const RECIPIENT_CHECK_RESULTS = ['match', 'close_match', 'no_match', 'account_not_found', 'unavailable'] as const;
export type RecipientCheckResult = (typeof RECIPIENT_CHECK_RESULTS)[number];

/** A row of payout_recipient_checks (as a read's subquery answers it, timestamps may come as text). */
export interface RecipientCheckRow {
  payout_id: string;
  workspace_id: string;
  account_id: string;
  connector: string;
  status: RecipientCheckStatus;
  result: RecipientCheckResult | null;
  name: string;
  rail_name: string | null;
  reason: string | null;
  checked_at: Date | string | null;
  decided_by: string | null;
  decided_at: Date | string | null;
  created_at: Date | string;
}

const iso = (at: Date | string | null): string | null => (at === null ? null : new Date(at).toISOString());

/** The check as a payout's read and its events show it: the answer, both names, and the workspace's decision. */
export function recipientCheckView(row: RecipientCheckRow) {
  return {
    status: row.status,
    result: row.result,
    name: row.name,
    railName: row.rail_name,
    reason: row.reason,
    connector: row.connector,
    checkedAt: iso(row.checked_at),
    decidedBy: row.decided_by,
    decidedAt: iso(row.decided_at),
  };
}
export type RecipientCheckView = ReturnType<typeof recipientCheckView>;
