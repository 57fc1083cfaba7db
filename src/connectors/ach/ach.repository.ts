import { advisoryKey, type Sql } from '../../platform/db/db.js';

/** All SQL of the ACH connector's own tables (migration 0091_ach.sql). */

export type AchPayoutStatus = 'pending' | 'filed' | 'delivered' | 'settled' | 'returned' | 'held' | 'released';

export interface NewAchPayout {
  payoutId: string;
  workspaceId: string;
  amountMinor: bigint;
  instruction: string;
  status: 'pending' | 'held';
  heldReason: string | null;
  /** The prenote it waits for, when the workspace prenotes and the account's has not cleared. */
  prenoteId: string | null;
}

/** Records payouts handed over; one handed over twice is recorded once. */
export async function insertAchPayouts(sql: Sql, rows: readonly NewAchPayout[]): Promise<void> {
  if (rows.length === 0) return;
  await sql.query(
    `INSERT INTO ach_payouts (payout_id, workspace_id, amount_minor, instruction, status, held_reason, prenote_id)
     SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::numeric[], $4::text[], $5::text[], $6::text[], $7::uuid[])
     ON CONFLICT (payout_id) DO NOTHING`,
    [rows.map((r) => r.payoutId), rows.map((r) => r.workspaceId), rows.map((r) => r.amountMinor.toString()), rows.map((r) => r.instruction), rows.map((r) => r.status), rows.map((r) => r.heldReason), rows.map((r) => r.prenoteId)],
  );
}

/** Lets a pending or held payout go (it will be in no file); one in a file already answers 'in_file'. Locks the row the cut-off locks. */
export async function releaseAchPayout(sql: Sql, payoutId: string): Promise<'released' | 'in_file' | 'unknown'> {
  const [row] = await sql.query<{ status: AchPayoutStatus }>('SELECT status FROM ach_payouts WHERE payout_id = $1 FOR UPDATE', [payoutId]);
  if (!row) return 'unknown';
  if (row.status !== 'pending' && row.status !== 'held' && row.status !== 'released') return 'in_file';
  await sql.query("UPDATE ach_payouts SET status = 'released', updated_at = now() WHERE payout_id = $1", [payoutId]);
  return 'released';
}

/** Serialises the cut-offs of the connector until commit. */
export async function lockCutoff(sql: Sql): Promise<void> {
  await sql.query('SELECT pg_advisory_xact_lock($1::bigint)', [advisoryKey('ach.cutoff')]);
}

/** A pending payout may be filed when it waits for no prenote, or its prenote has cleared. */
const PRENOTE_CLEARED = "(p.prenote_id IS NULL OR EXISTS (SELECT 1 FROM ach_prenotes n WHERE n.id = p.prenote_id AND n.status = 'cleared'))";

export interface PendingRow {
  payout_id: string;
  amount_minor: string;
  instruction: string;
  due: boolean;
}

export function pendingPayouts(sql: Sql, limit: number, maxSeconds: number): Promise<PendingRow[]> {
  return sql.query<PendingRow>(
    `SELECT payout_id::text AS payout_id, amount_minor::text AS amount_minor, instruction,
            accepted_at <= now() - make_interval(secs => $2::double precision) AS due
       FROM ach_payouts p WHERE status = 'pending' AND ${PRENOTE_CLEARED}
      ORDER BY accepted_at, payout_id LIMIT $1 FOR UPDATE`,
    [limit, maxSeconds],
  );
}

export async function pendingSummary(sql: Sql): Promise<{ n: number; oldest: Date | null }> {
  // Prenotes waiting for a file count too: the cut-off looks again until they are filed.
  const [row] = await sql.query<{ n: number; oldest: Date | null }>(
    `SELECT count(*)::int AS n, min(at) AS oldest FROM (
       SELECT accepted_at AS at FROM ach_payouts p WHERE status = 'pending' AND ${PRENOTE_CLEARED}
       UNION ALL SELECT created_at FROM ach_prenotes WHERE status = 'pending') waiting`,
  );
  return row ?? { n: 0, oldest: null };
}

export async function nextTraceSequences(sql: Sql, n: number): Promise<string[]> {
  const rows = await sql.query<{ v: string }>("SELECT nextval('ach_trace_seq')::text AS v FROM generate_series(1, $1)", [n]);
  return rows.map((r) => r.v);
}

/** How many files were cut on a day of the ODFI's (their names carry it, `ach-YYYYMMDD-…`): the next file's id modifier. */
export async function filesOfDay(sql: Sql, yyyymmdd: string): Promise<number> {
  const [row] = await sql.query<{ n: number }>('SELECT count(*)::int AS n FROM ach_files WHERE file_name LIKE $1', [`ach-${yyyymmdd}-%`]);
  return row?.n ?? 0;
}

export interface NewAchFile {
  id: string;
  fileName: string;
  idModifier: string;
  effectiveDate: string;
  sameDay: boolean;
  content: string;
  sha256: string;
  byteSize: number;
  entryCount: number;
  entryHash: string;
  totalDebit: bigint;
  totalCredit: bigint;
}

export async function insertAchFile(sql: Sql, f: NewAchFile): Promise<void> {
  await sql.query(
    `INSERT INTO ach_files (id, file_name, id_modifier, effective_date, same_day, content, sha256, byte_size, entry_count, entry_hash, total_debit, total_credit, status)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, 'recorded')`,
    [f.id, f.fileName, f.idModifier, f.effectiveDate, f.sameDay, f.content, f.sha256, f.byteSize, f.entryCount, f.entryHash, f.totalDebit.toString(), f.totalCredit.toString()],
  );
}

export async function fileInEntries(sql: Sql, fileId: string, entries: readonly { payoutId: string; traceNumber: string }[]): Promise<void> {
  await sql.query(
    `UPDATE ach_payouts p SET status = 'filed', file_id = $1, trace_number = e.trace, updated_at = now()
       FROM unnest($2::uuid[], $3::text[]) AS e(id, trace) WHERE p.payout_id = e.id`,
    [fileId, entries.map((e) => e.payoutId), entries.map((e) => e.traceNumber)],
  );
}

export interface AchSettlement {
  effectiveDate: string;
  direction: 'debit' | 'credit';
  amountMinor: bigint;
}

/** What a file's batches settle on each effective date, recorded with the file. */
export async function insertSettlements(sql: Sql, fileId: string, rows: readonly AchSettlement[]): Promise<void> {
  if (rows.length === 0) return;
  await sql.query(
    `INSERT INTO ach_settlements (file_id, effective_date, direction, amount_minor)
     SELECT $1, * FROM unnest($2::date[], $3::text[], $4::numeric[])`,
    [fileId, rows.map((r) => r.effectiveDate), rows.map((r) => r.direction), rows.map((r) => r.amountMinor.toString())],
  );
}

export async function settlementsOf(sql: Sql, fileId: string): Promise<AchSettlement[]> {
  const rows = await sql.query<{ effective_date: string; direction: 'debit' | 'credit'; amount_minor: string }>(
    'SELECT effective_date::text AS effective_date, direction, amount_minor::text AS amount_minor FROM ach_settlements WHERE file_id = $1 ORDER BY effective_date',
    [fileId],
  );
  return rows.map((r) => ({ effectiveDate: r.effective_date, direction: r.direction, amountMinor: BigInt(r.amount_minor) }));
}

export async function holdAchPayouts(sql: Sql, ids: readonly string[], reason: string): Promise<void> {
  await sql.query("UPDATE ach_payouts SET status = 'held', held_reason = $2, updated_at = now() WHERE payout_id = ANY($1::uuid[])", [ids, reason]);
}

export interface AchFileRow {
  id: string;
  file_name: string;
  effective_date: string;
  same_day: boolean;
  content: string;
  sha256: string;
  status: 'recorded' | 'delivered';
  entry_count: number;
  total_credit: string;
  total_debit: string;
  created_at: Date;
  delivered_at: Date | null;
  last_error: string | null;
}

export async function findAchFile(sql: Sql, id: string): Promise<AchFileRow | undefined> {
  const [row] = await sql.query<AchFileRow>(
    'SELECT id, file_name, effective_date::text AS effective_date, same_day, content, sha256, status, entry_count, total_credit::text AS total_credit, total_debit::text AS total_debit, created_at, delivered_at, last_error FROM ach_files WHERE id = $1',
    [id],
  );
  return row;
}

export async function recordFileError(sql: Sql, id: string, message: string): Promise<void> {
  await sql.query('UPDATE ach_files SET last_error = $2, last_error_at = now() WHERE id = $1', [id, message.slice(0, 2000)]);
}

/** Marks a recorded file delivered (false: another worker did) and its payouts delivered, answering their ids. */
export async function markDelivered(sql: Sql, id: string): Promise<string[] | undefined> {
  const moved = await sql.query("UPDATE ach_files SET status = 'delivered', delivered_at = now(), last_error = NULL WHERE id = $1 AND status = 'recorded' RETURNING id", [id]);
  if (moved.length === 0) return undefined;
  const rows = await sql.query<{ payout_id: string }>("UPDATE ach_payouts SET status = 'delivered', updated_at = now() WHERE file_id = $1 AND status = 'filed' RETURNING payout_id::text AS payout_id", [id]);
  await sql.query("UPDATE ach_prenotes SET status = 'delivered', updated_at = now() WHERE file_id = $1 AND status = 'filed'", [id]);
  return rows.map((r) => r.payout_id);
}

/** Delivered payouts whose file's effective date is on or before `date`: settled. */
export async function settleDue(sql: Sql, date: string): Promise<string[]> {
  const rows = await sql.query<{ payout_id: string }>(
    `UPDATE ach_payouts p SET status = 'settled', updated_at = now()
       FROM ach_files f WHERE p.file_id = f.id AND p.status = 'delivered' AND f.effective_date <= $1::date
     RETURNING p.payout_id::text AS payout_id`,
    [date],
  );
  return rows.map((r) => r.payout_id);
}

export interface TracedPayout {
  payout_id: string;
  workspace_id: string;
  status: AchPayoutStatus;
  instruction: string;
  amount_minor: string;
  /** Its file's effective entry date, YYYY-MM-DD: the settlement date its return window counts from. */
  effective_date: string;
}

/** The payout an original trace number names (the latest file's, should the sequence have cycled). */
export async function payoutOfTrace(sql: Sql, trace: string): Promise<TracedPayout | undefined> {
  const [row] = await sql.query<TracedPayout>(
    `SELECT p.payout_id::text AS payout_id, p.workspace_id::text AS workspace_id, p.status, p.instruction, p.amount_minor::text AS amount_minor,
            f.effective_date::text AS effective_date
       FROM ach_payouts p JOIN ach_files f ON f.id = p.file_id
      WHERE p.trace_number = $1 ORDER BY f.created_at DESC LIMIT 1 FOR UPDATE OF p`,
    [trace],
  );
  return row;
}

export async function markReturned(sql: Sql, payoutId: string): Promise<void> {
  await sql.query("UPDATE ach_payouts SET status = 'returned', updated_at = now() WHERE payout_id = $1", [payoutId]);
}

export async function inboundFileBySha(sql: Sql, sha256: string): Promise<{ id: string; status: string } | undefined> {
  const [row] = await sql.query<{ id: string; status: string }>('SELECT id, status FROM ach_inbound_files WHERE sha256 = $1', [sha256]);
  return row;
}

/** Records an inbound file by its hash; false when it was recorded already (another worker, or a second read). */
export async function insertInboundFile(sql: Sql, f: { id: string; name: string; sha256: string; status: 'processed' | 'refused'; reason: string | null }): Promise<boolean> {
  const rows = await sql.query('INSERT INTO ach_inbound_files (id, name, sha256, status, reason) VALUES ($1, $2, $3, $4, $5) ON CONFLICT (sha256) DO NOTHING RETURNING id', [f.id, f.name, f.sha256, f.status, f.reason]);
  return rows.length > 0;
}

export async function countInbound(sql: Sql, id: string, counts: { returns: number; changes: number; exceptions: number }): Promise<void> {
  await sql.query('UPDATE ach_inbound_files SET returns = $2, changes = $3, exceptions = $4 WHERE id = $1', [id, counts.returns, counts.changes, counts.exceptions]);
}

export async function insertException(sql: Sql, e: { id: string; fileId: string; code: string; reason: string; actor: string; traceNumber: string | null; payoutId: string | null }): Promise<void> {
  await sql.query('INSERT INTO ach_exceptions (id, file_id, code, reason, actor, trace_number, payout_id) VALUES ($1, $2, $3, $4, $5, $6, $7)', [e.id, e.fileId, e.code, e.reason, e.actor, e.traceNumber, e.payoutId]);
}

/** The console's lists: the latest files cut, with their control totals. */
export interface AchFileSummary {
  id: string;
  file_name: string;
  effective_date: string;
  same_day: boolean;
  status: 'recorded' | 'delivered';
  entry_count: number;
  entry_hash: string;
  total_credit: string;
  total_debit: string;
  payouts: number;
  created_at: Date;
  delivered_at: Date | null;
  last_error: string | null;
}

export function latestAchFiles(sql: Sql, limit: number): Promise<AchFileSummary[]> {
  return sql.query<AchFileSummary>(
    `SELECT f.id::text AS id, f.file_name, f.effective_date::text AS effective_date, f.same_day, f.status, f.entry_count::int AS entry_count, f.entry_hash,
            f.total_credit::text AS total_credit, f.total_debit::text AS total_debit,
            (SELECT count(*)::int FROM ach_payouts p WHERE p.file_id = f.id) AS payouts, f.created_at, f.delivered_at, f.last_error
       FROM ach_files f ORDER BY f.created_at DESC, f.id DESC LIMIT $1`,
    [limit],
  );
}

export interface AchInboundSummary {
  id: string;
  name: string;
  status: 'processed' | 'refused';
  reason: string | null;
  returns: number;
  changes: number;
  exceptions: number;
  received_at: Date;
}

/** The latest NACHA files taken in from the ODFI (returns and notifications of change), with what each applied. */
export function latestAchInbound(sql: Sql, limit: number): Promise<AchInboundSummary[]> {
  return sql.query<AchInboundSummary>(
    `SELECT id::text AS id, name, status, reason, returns::int AS returns, changes::int AS changes, exceptions::int AS exceptions, received_at
       FROM ach_inbound_files ORDER BY received_at DESC, id DESC LIMIT $1`,
    [limit],
  );
}

export interface AchExceptionRow {
  id: string;
  file_name: string;
  code: string;
  reason: string;
  actor: string;
  trace_number: string | null;
  payout_id: string | null;
  created_at: Date;
}

/** The latest codes an inbound file carried that moved nothing (dishonored, contested, late, unknown trace, uncorrectable change). */
export function latestAchExceptions(sql: Sql, limit: number): Promise<AchExceptionRow[]> {
  return sql.query<AchExceptionRow>(
    `SELECT e.id::text AS id, f.name AS file_name, e.code, e.reason, e.actor, e.trace_number, e.payout_id::text AS payout_id, e.created_at
       FROM ach_exceptions e JOIN ach_inbound_files f ON f.id = e.file_id ORDER BY e.created_at DESC, e.id DESC LIMIT $1`,
    [limit],
  );
}

// ---------------------------------------------------------------------------------------------
// Prenotes (migration 0199_ach_prenotes.sql)

export type PrenoteStatus = 'pending' | 'filed' | 'delivered' | 'cleared' | 'returned';

export interface PrenoteRow {
  id: string;
  workspace_id: string;
  payout_id: string;
  instruction: string;
  status: PrenoteStatus;
  return_code: string | null;
  return_reason: string | null;
}

const PRENOTE_COLUMNS = 'id::text AS id, workspace_id::text AS workspace_id, payout_id::text AS payout_id, instruction, status, return_code, return_reason';

/** The workspace's prenote of an account, locked; recorded pending (the payout named) when there is none. */
export async function prenoteOfAccount(sql: Sql, p: { id: string; workspaceId: string; accountKey: string; payoutId: string; instruction: string }): Promise<PrenoteRow> {
  await sql.query(
    "INSERT INTO ach_prenotes (id, workspace_id, account_key, payout_id, instruction, status) VALUES ($1, $2, $3, $4, $5, 'pending') ON CONFLICT (workspace_id, account_key) DO NOTHING",
    [p.id, p.workspaceId, p.accountKey, p.payoutId, p.instruction],
  );
  const [row] = await sql.query<PrenoteRow>(`SELECT ${PRENOTE_COLUMNS} FROM ach_prenotes WHERE workspace_id = $1 AND account_key = $2 FOR UPDATE`, [p.workspaceId, p.accountKey]);
  if (!row) throw new Error('ach: a prenote recorded is not found');
  return row;
}

export interface PendingPrenote {
  id: string;
  instruction: string;
  due: boolean;
}

/** Prenotes waiting for a file, oldest first, locked; due once they waited the section's seconds. */
export function pendingPrenotes(sql: Sql, limit: number, maxSeconds: number): Promise<PendingPrenote[]> {
  return sql.query<PendingPrenote>(
    `SELECT id::text AS id, instruction, created_at <= now() - make_interval(secs => $2::double precision) AS due
       FROM ach_prenotes WHERE status = 'pending' ORDER BY created_at, id LIMIT $1 FOR UPDATE`,
    [limit, maxSeconds],
  );
}

/** Prenotes put in a recorded file: their trace numbers, the file's effective date and the day they clear. */
export async function filePrenotes(sql: Sql, fileId: string, rows: readonly { id: string; traceNumber: string }[], effectiveDate: string, clearsOn: string): Promise<void> {
  if (rows.length === 0) return;
  await sql.query(
    `UPDATE ach_prenotes n SET status = 'filed', file_id = $1, trace_number = e.trace, effective_date = $4::date, clears_on = $5::date, updated_at = now()
       FROM unnest($2::uuid[], $3::text[]) AS e(id, trace) WHERE n.id = e.id`,
    [fileId, rows.map((r) => r.id), rows.map((r) => r.traceNumber), effectiveDate, clearsOn],
  );
}

/** Delivered prenotes whose waiting period ended on or before `date` without a return: cleared. Answers how many. */
export async function clearDuePrenotes(sql: Sql, date: string): Promise<number> {
  const rows = await sql.query("UPDATE ach_prenotes SET status = 'cleared', updated_at = now() WHERE status = 'delivered' AND clears_on <= $1::date RETURNING id", [date]);
  return rows.length;
}

/** The prenote an original trace number names (the latest, should the sequence have cycled), locked. */
export async function prenoteOfTrace(sql: Sql, trace: string): Promise<PrenoteRow | undefined> {
  const [row] = await sql.query<PrenoteRow>(`SELECT ${PRENOTE_COLUMNS} FROM ach_prenotes WHERE trace_number = $1 ORDER BY created_at DESC LIMIT 1 FOR UPDATE`, [trace]);
  return row;
}

/** A prenote returned with its code and words; answers the payouts that waited for it (pending), now released from the connector. */
export async function returnPrenote(sql: Sql, id: string, code: string, reason: string): Promise<string[]> {
  await sql.query("UPDATE ach_prenotes SET status = 'returned', return_code = $2, return_reason = $3, updated_at = now() WHERE id = $1", [id, code, reason]);
  const rows = await sql.query<{ payout_id: string }>(
    "UPDATE ach_payouts SET status = 'released', updated_at = now() WHERE prenote_id = $1 AND status = 'pending' RETURNING payout_id::text AS payout_id",
    [id],
  );
  return rows.map((r) => r.payout_id);
}

/** The payouts still waiting for a prenote, with their sealed instructions, locked. */
export function waitingForPrenote(sql: Sql, id: string): Promise<{ payout_id: string; instruction: string }[]> {
  return sql.query("SELECT payout_id::text AS payout_id, instruction FROM ach_payouts WHERE prenote_id = $1 AND status = 'pending' FOR UPDATE", [id]);
}

export async function replaceInstruction(sql: Sql, payoutId: string, instruction: string): Promise<void> {
  await sql.query('UPDATE ach_payouts SET instruction = $2, updated_at = now() WHERE payout_id = $1', [payoutId, instruction]);
}

/** A prenote's account corrected (a notification of change): its instruction and key follow, unless the workspace has prenoted the corrected account already. */
export async function correctPrenote(sql: Sql, id: string, accountKey: string, instruction: string): Promise<void> {
  await sql.query(
    `UPDATE ach_prenotes n SET instruction = $3, account_key = $2, updated_at = now()
      WHERE n.id = $1 AND NOT EXISTS (SELECT 1 FROM ach_prenotes o WHERE o.workspace_id = n.workspace_id AND o.account_key = $2 AND o.id <> n.id)`,
    [id, accountKey, instruction],
  );
}
