import { maybeOne, type Sql } from '../../platform/db/db.js';

/**
 * The fedwire connector's reads of the outbound record it shares with the bank connector
 * (bank_payouts and bank_files, scheme 'fedwire'; the writes go through bank.port.ts).
 */

export interface WireRow {
  payout_id: string;
  amount_minor: string;
  currency: string;
  uetr: string | null;
  end_to_end_id: string;
  status: string;
  debtor_account: string | null;
}

/** The wire a bank's answer names: by its UETR when given, else by its EndToEndId; only this connector's wires. */
export function findWire(sql: Sql, ref: { uetr: string | undefined; endToEndId: string | undefined }): Promise<WireRow | undefined> {
  return maybeOne<WireRow>(
    sql,
    `SELECT payout_id::text AS payout_id, amount_minor::text AS amount_minor, currency, uetr::text AS uetr, end_to_end_id, status, debtor_account
       FROM bank_payouts
      WHERE scheme = 'fedwire' AND (($1::uuid IS NOT NULL AND uetr = $1::uuid) OR ($1::uuid IS NULL AND end_to_end_id = $2::text))`,
    [ref.uetr ?? null, ref.endToEndId ?? null],
  );
}

/** Whether Corridor sent a wire file with this MsgId (what an admi.007 acknowledges). */
export async function wireFileSent(sql: Sql, msgId: string): Promise<boolean> {
  return (await maybeOne(sql, "SELECT 1 AS one FROM bank_files WHERE scheme = 'fedwire' AND msg_id = $1 AND status = 'delivered'", [msgId])) !== undefined;
}
