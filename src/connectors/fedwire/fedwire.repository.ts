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

export interface WireFileSummary {
  id: string;
  file_name: string;
  msg_id: string;
  status: string;
  nb_of_txs: number;
  ctrl_sum: string;
  ack_status: string | null;
  created_at: Date;
  delivered_at: Date | null;
  last_error: string | null;
}

/** The latest wire files, with their control totals (number of transactions, control sum) and the bank's acknowledgement. */
export function latestWireFiles(sql: Sql, limit: number): Promise<WireFileSummary[]> {
  return sql.query<WireFileSummary>(
    `SELECT id::text AS id, file_name, msg_id, status, nb_of_txs, ctrl_sum::text AS ctrl_sum, ack_status, created_at, delivered_at, last_error
       FROM bank_files WHERE scheme = 'fedwire' ORDER BY created_at DESC, id DESC LIMIT $1`,
    [limit],
  );
}

export interface WireExceptionRow {
  id: string;
  file_name: string;
  message_type: string;
  code: string;
  reason: string;
  end_to_end_id: string | null;
  created_at: Date;
}

/** The latest answers of the bank about the wire account that applied nothing (an unknown reference, a partial return…). */
export function latestWireExceptions(sql: Sql, bankAccount: string, limit: number): Promise<WireExceptionRow[]> {
  return sql.query<WireExceptionRow>(
    `SELECT e.id::text AS id, f.name AS file_name, e.message_type, e.code, e.reason, e.end_to_end_id, e.created_at
       FROM bank_exceptions e JOIN bank_inbound_files f ON f.id = e.file_id
      WHERE e.bank_account = $1 ORDER BY e.created_at DESC, e.id DESC LIMIT $2`,
    [bankAccount, limit],
  );
}
