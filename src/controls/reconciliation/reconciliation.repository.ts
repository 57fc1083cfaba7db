import type { Sql } from '../../platform/db/db.js';
import { maybeOne, one } from '../../platform/db/db.js';
import { listFilters, paginate, type PageRequest } from '../../platform/db/pagination.js';

/** All SQL of bank_movements, bank_exceptions, bank_statements and bank_statement_lines. */

export interface MovementRow {
  id: string;
  bank_account: string | null;
  /** The inbound bank file that booked it; null for what a connector books from its own records (an ACH file's settlement, an ACH return, ClearBank's TransactionSettled webhook). */
  file_id: string | null;
  message_type: string;
  kind: 'payout' | 'deposit' | 'return';
  direction: 'debit' | 'credit';
  amount_minor: string;
  currency: string;
  booking_date: string | null;
  entry_ref: string | null;
  end_to_end_id: string | null;
  object_type: 'payout' | 'deposit' | 'ach_file';
  object_id: string;
  /** The charges the banks took from the amount (a return net of charges), in minor units of the currency; null when none. */
  charges_minor: string | null;
  created_at: Date;
}

const MOVEMENT_COLUMNS = `id, bank_account, file_id, message_type, kind, direction, amount_minor::text AS amount_minor, currency,
  booking_date::text AS booking_date, entry_ref, end_to_end_id, object_type, object_id, charges_minor::text AS charges_minor, created_at`;

export type NewMovement = Omit<MovementRow, 'created_at' | 'amount_minor' | 'charges_minor'> & { amount_minor: bigint; charges_minor?: bigint | undefined };

/** Movements in one statement (a return's, or every payout a notification's chunk paid). */
export async function insertMovements(sql: Sql, ms: readonly NewMovement[]): Promise<void> {
  if (ms.length === 0) return;
  const rows = ms.map((m) => ({ ...m, amount_minor: m.amount_minor.toString(), charges_minor: m.charges_minor?.toString() ?? null }));
  await sql.query(
    `INSERT INTO bank_movements (id, bank_account, file_id, message_type, kind, direction, amount_minor, currency, booking_date, entry_ref, end_to_end_id, object_type, object_id, charges_minor)
     SELECT id, bank_account, file_id, message_type, kind, direction, amount_minor, currency, booking_date, entry_ref, end_to_end_id, object_type, object_id, charges_minor
       FROM jsonb_to_recordset($1::jsonb) AS m(id uuid, bank_account text, file_id uuid, message_type text, kind text, direction text, amount_minor numeric, currency text,
                                              booking_date date, entry_ref text, end_to_end_id text, object_type text, object_id uuid, charges_minor numeric)`,
    [JSON.stringify(rows)],
  );
}

/** The movements of a bank account booked on a day. */
export function movementsOn(sql: Sql, bankAccount: string, date: string): Promise<MovementRow[]> {
  return sql.query<MovementRow>(`SELECT ${MOVEMENT_COLUMNS} FROM bank_movements WHERE bank_account = $1 AND booking_date = $2::date ORDER BY created_at, id`, [bankAccount, date]);
}

export function findMovement(sql: Sql, id: string): Promise<MovementRow | undefined> {
  return maybeOne(sql, `SELECT ${MOVEMENT_COLUMNS} FROM bank_movements WHERE id = $1`, [id]);
}

/** The movements of a bank account a statement line may match: same direction, amount and currency, named by the bank's reference or the EndToEndId, matched by no line yet. */
export function matchCandidates(sql: Sql, c: { bankAccount: string; direction: string; amountMinor: string; currency: string; entryRef: string | null; endToEndId: string | null }): Promise<MovementRow[]> {
  return sql.query<MovementRow>(
    `SELECT ${MOVEMENT_COLUMNS} FROM bank_movements m
      WHERE bank_account = $1 AND direction = $2 AND amount_minor = $3::numeric AND currency = $4
        AND (($5::text IS NOT NULL AND entry_ref = $5) OR ($6::text IS NOT NULL AND end_to_end_id = $6))
        AND NOT EXISTS (SELECT 1 FROM bank_statement_lines l WHERE l.movement_id = m.id)
      ORDER BY created_at, id LIMIT 2`,
    [c.bankAccount, c.direction, c.amountMinor, c.currency, c.entryRef, c.endToEndId],
  );
}

/** Whether a line already matches this movement. */
export async function movementMatched(sql: Sql, movementId: string): Promise<boolean> {
  return (await sql.query('SELECT 1 FROM bank_statement_lines WHERE movement_id = $1', [movementId])).length > 0;
}

export interface ExceptionRow {
  id: string;
  file_id: string;
  bank_account: string | null;
  message_type: string;
  code: string;
  reason: string;
  entry_ref: string | null;
  end_to_end_id: string | null;
  direction: 'debit' | 'credit' | null;
  amount_minor: string | null;
  currency: string | null;
  booking_date: string | null;
  status: 'open' | 'resolved';
  resolution: string | null;
  resolved_by: string | null;
  resolved_at: Date | null;
  created_at: Date;
}

const EXCEPTION_COLUMNS = `id, file_id, bank_account, message_type, code, reason, entry_ref, end_to_end_id, direction, amount_minor::text AS amount_minor,
  currency, booking_date::text AS booking_date, status, resolution, resolved_by, resolved_at, created_at`;

export type NewException = Pick<ExceptionRow, 'id' | 'file_id' | 'bank_account' | 'message_type' | 'code' | 'reason' | 'entry_ref' | 'end_to_end_id' | 'direction' | 'currency' | 'booking_date'> & {
  amount_minor: bigint | null;
};

export async function insertException(sql: Sql, e: NewException): Promise<void> {
  await sql.query(
    `INSERT INTO bank_exceptions (id, file_id, bank_account, message_type, code, reason, entry_ref, end_to_end_id, direction, amount_minor, currency, booking_date)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12::date)`,
    [e.id, e.file_id, e.bank_account, e.message_type, e.code, e.reason, e.entry_ref, e.end_to_end_id, e.direction, e.amount_minor?.toString() ?? null, e.currency, e.booking_date],
  );
}

export function listExceptions<Item>(sql: Sql, f: PageRequest & { status?: string | undefined; bankAccount?: string | undefined }, map: (row: ExceptionRow) => Item) {
  const { where, params, add } = listFilters();
  if (f.status) add('status = ?', f.status);
  if (f.bankAccount) add('bank_account = ?', f.bankAccount);
  return paginate(sql, f, { object: 'bank_exception.list', from: `SELECT ${EXCEPTION_COLUMNS} FROM bank_exceptions`, where, params, map });
}

export function resolveException(sql: Sql, id: string, resolution: string, by: string | null): Promise<ExceptionRow | undefined> {
  return maybeOne(
    sql,
    `UPDATE bank_exceptions SET status = 'resolved', resolution = $2, resolved_by = $3, resolved_at = now() WHERE id = $1 AND status = 'open' RETURNING ${EXCEPTION_COLUMNS}`,
    [id, resolution, by],
  );
}

export function findException(sql: Sql, id: string): Promise<ExceptionRow | undefined> {
  return maybeOne(sql, `SELECT ${EXCEPTION_COLUMNS} FROM bank_exceptions WHERE id = $1`, [id]);
}

export interface StatementRow {
  id: string;
  file_id: string;
  bank_account: string;
  statement_id: string;
  iban: string | null;
  currency: string;
  statement_date: string;
  opening_minor: string;
  closing_minor: string;
  created_at: Date;
}

const STATEMENT_COLUMNS = `id, file_id, bank_account, statement_id, iban, currency, statement_date::text AS statement_date,
  opening_minor::text AS opening_minor, closing_minor::text AS closing_minor, created_at`;

/** A new statement; undefined when the account already has one with this bank id. */
export function insertStatement(
  sql: Sql,
  s: Omit<StatementRow, 'created_at' | 'opening_minor' | 'closing_minor'> & { opening_minor: bigint; closing_minor: bigint; electronic_seq: bigint | null; legal_seq: bigint | null },
): Promise<StatementRow | undefined> {
  return maybeOne(
    sql,
    `INSERT INTO bank_statements (id, file_id, bank_account, statement_id, iban, currency, statement_date, opening_minor, closing_minor, electronic_seq, legal_seq)
     VALUES ($1, $2, $3, $4, $5, $6, $7::date, $8, $9, $10, $11) ON CONFLICT (bank_account, statement_id) DO NOTHING RETURNING ${STATEMENT_COLUMNS}`,
    [s.id, s.file_id, s.bank_account, s.statement_id, s.iban, s.currency, s.statement_date, s.opening_minor.toString(), s.closing_minor.toString(), s.electronic_seq?.toString() ?? null, s.legal_seq?.toString() ?? null],
  );
}

/** A statement that carried a sequence number, as the gap alert reads it. */
export interface NumberedStatementRow {
  bank_account: string;
  statement_date: string;
  electronic_seq: string | null;
  legal_seq: string | null;
  arrived_at: Date;
}

/**
 * The latest `perAccount` statements of each of `accounts` that carried a sequence number, in day
 * order (then number) per account: each account's read walks its end of the index
 * bank_statements_sequence (migration 0166) backwards, so the read does not grow with the history.
 */
export function numberedStatements(sql: Sql, accounts: readonly string[], perAccount: number): Promise<NumberedStatementRow[]> {
  return sql.query(
    `SELECT s.bank_account, s.statement_date::text AS statement_date, s.electronic_seq::text AS electronic_seq, s.legal_seq::text AS legal_seq, s.created_at AS arrived_at
       FROM unnest($1::text[]) AS a(account)
       CROSS JOIN LATERAL (
         SELECT bank_account, statement_date, electronic_seq, legal_seq, created_at FROM bank_statements
          WHERE bank_account = a.account AND (electronic_seq IS NOT NULL OR legal_seq IS NOT NULL)
          ORDER BY statement_date DESC, electronic_seq DESC, legal_seq DESC LIMIT $2) s
      ORDER BY s.bank_account, s.statement_date, s.electronic_seq, s.legal_seq`,
    [accounts, perAccount],
  );
}

/** When each bank account's latest end-of-day statement arrived, and the day it covers. */
export function latestStatements(sql: Sql): Promise<{ bank_account: string; arrived_at: Date; statement_date: string }[]> {
  return sql.query("SELECT bank_account, max(created_at) AS arrived_at, max(statement_date)::text AS statement_date FROM bank_statements GROUP BY bank_account");
}

export function findStatement(sql: Sql, id: string): Promise<StatementRow | undefined> {
  return maybeOne(sql, `SELECT ${STATEMENT_COLUMNS} FROM bank_statements WHERE id = $1`, [id]);
}

export function listStatements<Item>(sql: Sql, f: PageRequest & { bankAccount?: string | undefined; date?: string | undefined }, map: (row: StatementRow) => Item) {
  const { where, params, add } = listFilters();
  if (f.bankAccount) add('bank_account = ?', f.bankAccount);
  if (f.date) add('statement_date = ?::date', f.date);
  return paginate(sql, f, { object: 'bank_statement.list', from: `SELECT ${STATEMENT_COLUMNS} FROM bank_statements`, where, params, map });
}

export interface LineRow {
  id: string;
  statement_id: string;
  seq: number;
  entry_ref: string | null;
  end_to_end_id: string | null;
  direction: 'debit' | 'credit';
  amount_minor: string;
  currency: string;
  booking_date: string | null;
  bank_transaction_code: string | null;
  description: string | null;
  status: 'matched' | 'unmatched' | 'ignored';
  movement_id: string | null;
  decided_by: string | null;
  reason: string | null;
  decided_at: Date | null;
}

const LINE_COLUMNS = `id, statement_id, seq, entry_ref, end_to_end_id, direction, amount_minor::text AS amount_minor, currency, booking_date::text AS booking_date,
  bank_transaction_code, description, status, movement_id, decided_by, reason, decided_at`;

export async function insertLine(sql: Sql, l: Omit<LineRow, 'decided_by' | 'reason' | 'decided_at' | 'amount_minor'> & { amount_minor: bigint }): Promise<void> {
  await sql.query(
    `INSERT INTO bank_statement_lines (id, statement_id, seq, entry_ref, end_to_end_id, direction, amount_minor, currency, booking_date, bank_transaction_code, description, status, movement_id)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9::date, $10, $11, $12, $13)`,
    [l.id, l.statement_id, l.seq, l.entry_ref, l.end_to_end_id, l.direction, l.amount_minor.toString(), l.currency, l.booking_date, l.bank_transaction_code, l.description, l.status, l.movement_id],
  );
}

export function linesOf(sql: Sql, statementId: string): Promise<LineRow[]> {
  return sql.query<LineRow>(`SELECT ${LINE_COLUMNS} FROM bank_statement_lines WHERE statement_id = $1 ORDER BY seq`, [statementId]);
}

/** A page of a statement's lines in their order, from after `afterSeq`, optionally of one status; one more than `limit` says there are more. */
export function linesPage(sql: Sql, statementId: string, f: { status?: LineRow['status'] | undefined; afterSeq: number; limit: number }): Promise<LineRow[]> {
  return sql.query<LineRow>(
    `SELECT ${LINE_COLUMNS} FROM bank_statement_lines WHERE statement_id = $1 AND seq > $2 AND ($3::text IS NULL OR status = $3) ORDER BY seq LIMIT $4`,
    [statementId, f.afterSeq, f.status ?? null, f.limit + 1],
  );
}

export async function countLines(sql: Sql, statementId: string, status: LineRow['status'] | undefined): Promise<number> {
  const rows = await sql.query<{ n: string }>(`SELECT count(*)::text AS n FROM bank_statement_lines WHERE statement_id = $1 AND ($2::text IS NULL OR status = $2)`, [statementId, status ?? null]);
  return Number(rows[0]?.n ?? 0);
}

export function findLine(sql: Sql, id: string, lock = false): Promise<LineRow | undefined> {
  return maybeOne(sql, `SELECT ${LINE_COLUMNS} FROM bank_statement_lines WHERE id = $1${lock ? ' FOR UPDATE' : ''}`, [id]);
}

/** An operator's decision on an unmatched line: matched to a movement, or ignored with a reason. */
export function decideLine(sql: Sql, id: string, d: { status: 'matched' | 'ignored'; movementId: string | null; reason: string | null; by: string | null }): Promise<LineRow> {
  return one(
    sql,
    `UPDATE bank_statement_lines SET status = $2, movement_id = $3, reason = $4, decided_by = $5, decided_at = now() WHERE id = $1 RETURNING ${LINE_COLUMNS}`,
    [id, d.status, d.movementId, d.reason, d.by],
  );
}
