import { advisoryKey, maybeOne, type Sql } from '../../platform/db/db.js';
import { listFilters, paginate, type PageRequest } from '../../platform/db/pagination.js';

/** The outbound side's tables: bank_payouts (payouts handed over) and bank_files (pain.001 files). */

export type BankPayoutStatus = 'pending' | 'filed' | 'delivered' | 'held' | 'released';
export type BankFileStatus = 'recorded' | 'delivered' | 'invalid';

export interface NewBankPayout {
  payoutId: string;
  workspaceId: string;
  route: string;
  scheme: string | null;
  debtorAccount: string | null;
  currency: string;
  amountMinor: bigint;
  endToEndId: string;
  uetr: string | null;
  instruction: string;
  status: 'pending' | 'held';
  heldReason: string | null;
}

/** Records handed-over payouts, one statement; a payout handed over twice is recorded once. */
export async function insertBankPayouts(sql: Sql, rows: readonly NewBankPayout[]): Promise<void> {
  if (rows.length === 0) return;
  await sql.query(
    `INSERT INTO bank_payouts (payout_id, workspace_id, route, scheme, debtor_account, currency, amount_minor, end_to_end_id, uetr, instruction, status, held_reason)
     SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::text[], $4::text[], $5::text[], $6::text[], $7::numeric[], $8::text[], $9::uuid[], $10::text[], $11::text[], $12::text[])
     ON CONFLICT (payout_id) DO NOTHING`,
    [
      rows.map((r) => r.payoutId),
      rows.map((r) => r.workspaceId),
      rows.map((r) => r.route),
      rows.map((r) => r.scheme),
      rows.map((r) => r.debtorAccount),
      rows.map((r) => r.currency),
      rows.map((r) => r.amountMinor.toString()),
      rows.map((r) => r.endToEndId),
      rows.map((r) => r.uetr),
      rows.map((r) => r.instruction),
      rows.map((r) => r.status),
      rows.map((r) => r.heldReason),
    ],
  );
}

/** Lets go of a pending or held payout (released); 'in_file' when it is filed or delivered; 'unknown' when never handed over. */
export async function releaseBankPayout(sql: Sql, payoutId: string): Promise<'released' | 'in_file' | 'unknown'> {
  const [row] = await sql.query<{ status: BankPayoutStatus }>('SELECT status FROM bank_payouts WHERE payout_id = $1 FOR UPDATE', [payoutId]);
  if (!row) return 'unknown';
  if (row.status === 'filed' || row.status === 'delivered') return 'in_file';
  await sql.query("UPDATE bank_payouts SET status = 'released', updated_at = now() WHERE payout_id = $1", [payoutId]);
  return 'released';
}

/** A handed-over payout's standing at the bank connector (undefined: never handed over). */
export function findBankPayout(sql: Sql, payoutId: string): Promise<{ status: BankPayoutStatus; file_id: string | null; held_reason: string | null; updated_at: Date } | undefined> {
  return maybeOne(sql, 'SELECT status, file_id::text AS file_id, held_reason, updated_at FROM bank_payouts WHERE payout_id = $1', [payoutId]);
}

/** Serialises the cut-offs of one debtor account and scheme until commit. */
export async function lockWindow(sql: Sql, debtorAccount: string, scheme: string): Promise<void> {
  await sql.query('SELECT pg_advisory_xact_lock($1::bigint)', [advisoryKey(`bank.window:${debtorAccount}:${scheme}`)]);
}

export interface PendingRow {
  payout_id: string;
  route: string;
  currency: string;
  amount_minor: string;
  uetr: string | null;
  instruction: string;
  /** Waited the cut-off's seconds already. */
  due: boolean;
}

/** The oldest pending payouts of a window, at most `limit`, locked until commit. */
export async function pendingOfWindow(sql: Sql, debtorAccount: string, scheme: string, limit: number, maxSeconds: number): Promise<PendingRow[]> {
  return sql.query<PendingRow>(
    `SELECT payout_id::text AS payout_id, route, currency, amount_minor::text AS amount_minor, uetr::text AS uetr, instruction,
            accepted_at <= now() - make_interval(secs => $4::double precision) AS due
       FROM bank_payouts
      WHERE status = 'pending' AND debtor_account = $1 AND scheme = $2
      ORDER BY accepted_at, payout_id
      LIMIT $3
      FOR UPDATE`,
    [debtorAccount, scheme, limit, maxSeconds],
  );
}

/** How many payouts wait in each window, and when the oldest of each became pending. */
export async function pendingWindows(sql: Sql, windows: readonly { debtorAccount: string; scheme: string }[]): Promise<{ debtor_account: string; scheme: string; n: number; oldest: Date }[]> {
  if (windows.length === 0) return [];
  return sql.query(
    `SELECT debtor_account, scheme, count(*)::int AS n, min(accepted_at) AS oldest
       FROM bank_payouts
      WHERE status = 'pending' AND (debtor_account, scheme) IN (SELECT * FROM unnest($1::text[], $2::text[]))
      GROUP BY debtor_account, scheme`,
    [windows.map((w) => w.debtorAccount), windows.map((w) => w.scheme)],
  );
}

export interface NewBankFile {
  id: string;
  msgId: string;
  fileName: string;
  debtorAccount: string;
  scheme: string;
  message: string;
  content: string;
  sha256: string;
  byteSize: number;
  nbOfTxs: number;
  ctrlSum: string;
  status: 'recorded' | 'invalid';
  validationError: string | null;
}

export async function insertBankFile(sql: Sql, f: NewBankFile): Promise<void> {
  await sql.query(
    `INSERT INTO bank_files (id, msg_id, file_name, debtor_account, scheme, message, content, sha256, byte_size, nb_of_txs, ctrl_sum, status, validation_error)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11::numeric, $12, $13)`,
    [f.id, f.msgId, f.fileName, f.debtorAccount, f.scheme, f.message, f.content, f.sha256, f.byteSize, f.nbOfTxs, f.ctrlSum, f.status, f.validationError],
  );
}

/**
 * The number of the next file of a debtor account on a bank day (YYYY-MM-DD in the bank's time zone),
 * for a file name's `{seq}`: under a lock of the account, held to the end of the transaction that
 * records the file, so two windows of one account never take the same number.
 */
export async function nextFileSeq(sql: Sql, debtorAccount: string, day: string, timeZone: string): Promise<number> {
  await sql.query('SELECT pg_advisory_xact_lock($1::bigint)', [advisoryKey(`bank.file_seq:${debtorAccount}`)]);
  const row = await maybeOne<{ n: string }>(
    sql,
    `SELECT count(*)::text AS n FROM bank_files WHERE debtor_account = $1 AND (created_at AT TIME ZONE $3)::date = $2::date`,
    [debtorAccount, day, timeZone],
  );
  return Number(row?.n ?? 0) + 1;
}

/** A payout's sealed instruction, as the connector recorded it. */
export async function instructionOf(sql: Sql, payoutId: string): Promise<string | undefined> {
  return (await maybeOne<{ instruction: string }>(sql, 'SELECT instruction FROM bank_payouts WHERE payout_id = $1', [payoutId]))?.instruction;
}

/** Puts payouts in a file, each in its payment information block. */
export async function fileInBlocks(sql: Sql, fileId: string, payouts: readonly { payoutId: string; pmtInfId: string }[]): Promise<void> {
  if (payouts.length === 0) return;
  await sql.query(
    `UPDATE bank_payouts SET status = 'filed', file_id = $1, pmt_inf_id = b.pmt_inf_id, held_reason = NULL, updated_at = now()
       FROM unnest($2::uuid[], $3::text[]) AS b(payout_id, pmt_inf_id)
      WHERE bank_payouts.payout_id = b.payout_id`,
    [fileId, payouts.map((p) => p.payoutId), payouts.map((p) => p.pmtInfId)],
  );
}

/** The payouts a sent pain.001 message carried (or one block of it), by MsgId and PmtInfId. */
export async function payoutsOfMessage(sql: Sql, msgId: string, pmtInfId: string | undefined): Promise<string[]> {
  const rows = await sql.query<{ payout_id: string }>(
    `SELECT p.payout_id::text AS payout_id FROM bank_files f JOIN bank_payouts p ON p.file_id = f.id
      WHERE f.msg_id = $1 AND f.status = 'delivered' AND ($2::text IS NULL OR p.pmt_inf_id = $2) AND p.status = 'delivered'
      ORDER BY p.payout_id`,
    [msgId, pmtInfId ?? null],
  );
  return rows.map((r) => r.payout_id);
}

/** The delivered message (MsgId) and payment information block a payout went to the bank in, if it did. */
export async function sentMessageOf(sql: Sql, payoutId: string): Promise<{ msg_id: string; pmt_inf_id: string | null } | undefined> {
  return maybeOne(
    sql,
    `SELECT f.msg_id, p.pmt_inf_id FROM bank_payouts p JOIN bank_files f ON f.id = p.file_id
      WHERE p.payout_id = $1 AND p.status = 'delivered' AND f.status = 'delivered'`,
    [payoutId],
  );
}

/** Holds payouts for the operator with the reason (held), naming the file that failed when there is one. */
export async function holdBankPayouts(sql: Sql, payoutIds: readonly string[], fileId: string | null, heldReason: string): Promise<void> {
  if (payoutIds.length === 0) return;
  await sql.query(
    `UPDATE bank_payouts SET status = 'held', file_id = COALESCE($2::uuid, file_id), held_reason = $3, updated_at = now()
      WHERE payout_id = ANY($1::uuid[])`,
    [payoutIds, fileId, heldReason],
  );
}

export interface BankFileRow {
  id: string;
  msg_id: string;
  file_name: string;
  debtor_account: string;
  scheme: string;
  message: string;
  content: string;
  sha256: string;
  byte_size: number;
  nb_of_txs: number;
  ctrl_sum: string;
  status: BankFileStatus;
  validation_error: string | null;
  last_error: string | null;
  last_error_at: Date | null;
  created_at: Date;
  delivered_at: Date | null;
}

const FILE_COLUMNS = `id, msg_id, file_name, debtor_account, scheme, message, sha256, byte_size, nb_of_txs, ctrl_sum::text AS ctrl_sum,
  status, validation_error, last_error, last_error_at, created_at, delivered_at`;

export async function findBankFile(sql: Sql, id: string): Promise<BankFileRow | undefined> {
  return maybeOne<BankFileRow>(sql, `SELECT ${FILE_COLUMNS}, content FROM bank_files WHERE id = $1`, [id]);
}

/** Compare-and-set recorded → delivered; false when it was delivered already. */
export async function markFileDelivered(sql: Sql, id: string): Promise<boolean> {
  const rows = await sql.query(
    `UPDATE bank_files SET status = 'delivered', delivered_at = now(), last_error = NULL, last_error_at = NULL
      WHERE id = $1 AND status = 'recorded' RETURNING 1`,
    [id],
  );
  return rows.length === 1;
}

/** The bank's first status report about a file's message: when it came and the group status it gave (kept from the first; later reports change nothing). */
export async function markFileAcknowledged(sql: Sql, msgId: string, groupStatus: string | undefined): Promise<void> {
  await sql.query("UPDATE bank_files SET acknowledged_at = now(), ack_status = $2 WHERE msg_id = $1 AND acknowledged_at IS NULL", [msgId, groupStatus ?? null]);
}

/** Delivered files the bank has not answered for at least `minutes`, oldest first (at most `limit`). */
export async function unacknowledgedFiles(sql: Sql, minutes: number, limit: number): Promise<{ file_name: string; msg_id: string; debtor_account: string; delivered_at: Date; n: number }[]> {
  return sql.query(
    `SELECT file_name, msg_id, debtor_account, delivered_at, count(*) OVER ()::int AS n FROM bank_files
      WHERE status = 'delivered' AND acknowledged_at IS NULL AND delivered_at <= now() - make_interval(mins => $1)
      ORDER BY delivered_at LIMIT $2`,
    [minutes, limit],
  );
}

/** When each bank account's first file was delivered: since when the connection has been in use. */
export async function firstDeliveryByAccount(sql: Sql): Promise<{ debtor_account: string; first: Date }[]> {
  return sql.query("SELECT debtor_account, min(delivered_at) AS first FROM bank_files WHERE status = 'delivered' GROUP BY debtor_account");
}

export async function recordFileError(sql: Sql, id: string, error: string): Promise<void> {
  await sql.query('UPDATE bank_files SET last_error = $2, last_error_at = now() WHERE id = $1', [id, error.slice(0, 2000)]);
}

/** The payouts of a delivered file, marked delivered; returns them with their UETR. */
export async function deliverFilePayouts(sql: Sql, fileId: string): Promise<{ payout_id: string; uetr: string | null }[]> {
  return sql.query(
    `UPDATE bank_payouts SET status = 'delivered', updated_at = now()
      WHERE file_id = $1 AND status = 'filed'
      RETURNING payout_id::text AS payout_id, uetr::text AS uetr`,
    [fileId],
  );
}

export interface FileFilters extends PageRequest {
  status?: BankFileStatus | undefined;
}

export function listBankFiles<Item>(sql: Sql, f: FileFilters, map: (row: BankFileRow) => Item) {
  const { where, params, add } = listFilters();
  if (f.status) add('status = ?', f.status);
  return paginate(sql, f, { object: 'list', from: `SELECT ${FILE_COLUMNS} FROM bank_files`, where, params, map });
}

export interface HeldPayoutRow {
  payout_id: string;
  workspace_id: string;
  route: string;
  debtor_account: string | null;
  currency: string;
  amount_minor: string;
  file_id: string | null;
  held_reason: string | null;
  updated_at: Date;
}

/** The operator's queue: payouts held (their file failed validation, or no file could name them), newest first. */
export function listHeldPayouts<Item>(sql: Sql, f: PageRequest, map: (row: HeldPayoutRow) => Item) {
  const { where, params, add } = listFilters();
  add("status = 'held'");
  return paginate(
    sql,
    f,
    {
      object: 'list',
      from: `SELECT payout_id::text AS payout_id, workspace_id::text AS workspace_id, route, debtor_account, currency, amount_minor::text AS amount_minor,
                    file_id::text AS file_id, held_reason, updated_at FROM bank_payouts`,
      where,
      params,
      createdColumn: 'updated_at',
      idColumn: 'payout_id',
      map,
    },
  );
}

/** The payout the bank connector sent with this UETR (bank_payouts.uetr, unique), if any. */
export async function payoutIdOfUetr(sql: Sql, uetr: string): Promise<string | undefined> {
  const row = await maybeOne<{ payout_id: string }>(sql, 'SELECT payout_id::text AS payout_id FROM bank_payouts WHERE uetr = $1::uuid', [uetr]);
  return row?.payout_id;
}
