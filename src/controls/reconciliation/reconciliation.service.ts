import type { Sql, Tx } from '../../platform/db/db.js';
import { conflict, fieldError, notFound } from '../../platform/lib/errors.js';
import type { PageRequest } from '../../platform/db/pagination.js';
import { isUuid, newId } from '../../platform/lib/ids.js';
import { formatIsoAmount } from '../../platform/lib/money.js';
import { csvLine } from '../../platform/lib/csv.js';
import * as repo from './reconciliation.repository.js';
import type { ExceptionRow, LineRow, MovementRow, StatementRow } from './reconciliation.repository.js';
import { assertOperatorRight, type OperatorActor } from '../../domains/users/rights.js';

/** Who decides a line or an exception, as kept (`user:<id>`, `operator_key:<id>`, or null), with their role (rights.ts). */
export type Decider = Pick<OperatorActor, 'role'> & { name: string | null };

/*
 * Reconciliation: Corridor's book of each bank account (the movements inbound bank messages posted,
 * with their ledger postings), the entries that matched nothing (exceptions), and the bank's
 * end-of-day statements matched against the book line by line. A line matches a movement only when
 * the account, direction, amount and currency agree and the bank's reference or the EndToEndId names
 * it, and exactly one movement does: never a guess. What stays unmatched the operator matches by hand
 * or ignores with a reason (both audited). The statement's closing balance is compared with the
 * opening balance plus the book's movements of that day; the difference is shown, never hidden.
 */

export type NewMovement = Omit<repo.NewMovement, 'id'>;

/** A movement posted from a bank message, in the transaction of its postings. */
export async function recordMovement(tx: Tx, m: NewMovement): Promise<string> {
  const [id] = await recordMovements(tx, [m]);
  return id as string;
}

/** Several booked movements in one statement (every payout a notification's chunk paid), in the transaction of their file. */
export async function recordMovements(tx: Tx, ms: readonly NewMovement[]): Promise<string[]> {
  const rows = ms.map((m) => ({ id: newId(), ...m }));
  await repo.insertMovements(tx, rows);
  return rows.map((r) => r.id);
}

export type NewException = Omit<repo.NewException, 'id'>;

/** An entry that matched nothing, in the transaction of its file: nothing is posted for it. */
export async function recordException(tx: Tx, e: NewException): Promise<void> {
  await repo.insertException(tx, { id: newId(), ...e });
}

/** A statement as the bank reports it, its amounts in minor units. */
export interface StatementInput {
  fileId: string;
  bankAccount: string;
  statementId: string;
  iban: string | undefined;
  currency: string;
  date: string;
  /** The statement's sequence numbers (ElctrncSeqNb, LglSeqNb) when the bank gives them. */
  electronicSeq?: bigint | undefined;
  legalSeq?: bigint | undefined;
  openingMinor: bigint;
  closingMinor: bigint;
  lines: {
    entryRef: string | undefined;
    endToEndId: string | undefined;
    direction: 'debit' | 'credit';
    amountMinor: bigint;
    currency: string;
    bookingDate: string | undefined;
    bankTransactionCode: string | undefined;
    description: string | undefined;
  }[];
}

/** Records a statement and matches its lines; a statement the account already has (same bank id) is answered as a duplicate, unchanged. */
export async function recordStatement(tx: Tx, s: StatementInput): Promise<{ id: string; duplicate: boolean; matched: number; unmatched: number; unmatchedLines: StatementInput['lines'] }> {
  const row = await repo.insertStatement(tx, {
    id: newId(),
    file_id: s.fileId,
    bank_account: s.bankAccount,
    statement_id: s.statementId,
    iban: s.iban ?? null,
    currency: s.currency,
    statement_date: s.date,
    electronic_seq: s.electronicSeq ?? null,
    legal_seq: s.legalSeq ?? null,
    opening_minor: s.openingMinor,
    closing_minor: s.closingMinor,
  });
  if (!row) return { id: '', duplicate: true, matched: 0, unmatched: 0, unmatchedLines: [] };
  let matched = 0;
  const unmatchedLines: StatementInput['lines'] = [];
  for (const [seq, line] of s.lines.entries()) {
    const candidates = await repo.matchCandidates(tx, {
      bankAccount: s.bankAccount,
      direction: line.direction,
      amountMinor: line.amountMinor.toString(),
      currency: line.currency,
      entryRef: line.entryRef ?? null,
      endToEndId: line.endToEndId ?? null,
    });
    const movement = candidates.length === 1 ? (candidates[0] as MovementRow) : undefined;
    if (movement) matched += 1;
    else unmatchedLines.push(line);
    await repo.insertLine(tx, {
      id: newId(),
      statement_id: row.id,
      seq,
      entry_ref: line.entryRef ?? null,
      end_to_end_id: line.endToEndId ?? null,
      direction: line.direction,
      amount_minor: line.amountMinor,
      currency: line.currency,
      booking_date: line.bookingDate ?? null,
      bank_transaction_code: line.bankTransactionCode ?? null,
      description: line.description ?? null,
      status: movement ? 'matched' : 'unmatched',
      movement_id: movement?.id ?? null,
    });
  }
  return { id: row.id, duplicate: false, matched, unmatched: s.lines.length - matched, unmatchedLines };
}

const signed = (direction: 'debit' | 'credit', minor: bigint) => (direction === 'credit' ? minor : -minor);

function movementData(m: MovementRow) {
  return {
    id: m.id,
    kind: m.kind,
    direction: m.direction,
    amount: formatIsoAmount(BigInt(m.amount_minor), m.currency),
    currency: m.currency,
    bookingDate: m.booking_date,
    entryRef: m.entry_ref,
    endToEndId: m.end_to_end_id,
    object: { type: m.object_type, id: m.object_id },
    charges: m.charges_minor === null ? null : formatIsoAmount(BigInt(m.charges_minor), m.currency),
  };
}

/** A statement with its reconciliation: the lines by status, Corridor's view of the day and the difference. */
async function statementData(sql: Sql, row: StatementRow) {
  const lines = await repo.linesOf(sql, row.id);
  const movements = await repo.movementsOn(sql, row.bank_account, row.statement_date);
  const matchedIds = new Set(lines.map((l) => l.movement_id).filter((id): id is string => id !== null));
  const net = movements.filter((m) => m.currency === row.currency).reduce((sum, m) => sum + signed(m.direction, BigInt(m.amount_minor)), 0n);
  const corridorClosing = BigInt(row.opening_minor) + net;
  const count = (status: LineRow['status']) => lines.filter((l) => l.status === status).length;
  const money = (minor: bigint) => formatIsoAmount(minor, row.currency);
  return {
    id: row.id,
    bankAccount: row.bank_account,
    statementId: row.statement_id,
    iban: row.iban,
    currency: row.currency,
    date: row.statement_date,
    openingBalance: money(BigInt(row.opening_minor)),
    closingBalance: money(BigInt(row.closing_minor)),
    corridorClosingBalance: money(corridorClosing),
    difference: money(BigInt(row.closing_minor) - corridorClosing),
    lines: { total: lines.length, matched: count('matched'), unmatched: count('unmatched'), ignored: count('ignored') },
    /** Movements Corridor booked on the account that day which no line of the statement matched. */
    movementsNotOnStatement: movements.filter((m) => !matchedIds.has(m.id)).map(movementData),
    createdAt: row.created_at.toISOString(),
  };
}

export type StatementView = Awaited<ReturnType<typeof statementData>>;

export function listStatements(sql: Sql, f: PageRequest & { bankAccount?: string | undefined; date?: string | undefined }) {
  return repo.listStatements(sql, f, (row) => row).then(async (page) => ({ ...page, data: await Promise.all(page.data.map((row) => statementData(sql, row))) }));
}

async function statementRow(sql: Sql, id: string): Promise<StatementRow> {
  const row = isUuid(id) ? await repo.findStatement(sql, id) : undefined;
  if (!row) throw notFound('Statement');
  return row;
}

export async function getStatement(sql: Sql, id: string): Promise<StatementView> {
  return statementData(sql, await statementRow(sql, id));
}

async function lineData(sql: Sql, l: LineRow) {
  const movement = l.movement_id ? await repo.findMovement(sql, l.movement_id) : undefined;
  return {
    id: l.id,
    statementId: l.statement_id,
    seq: l.seq,
    status: l.status,
    direction: l.direction,
    amount: formatIsoAmount(BigInt(l.amount_minor), l.currency),
    currency: l.currency,
    bookingDate: l.booking_date,
    entryRef: l.entry_ref,
    endToEndId: l.end_to_end_id,
    bankTransactionCode: l.bank_transaction_code,
    description: l.description,
    matched: movement ? movementData(movement) : null,
    reason: l.reason,
    decidedBy: l.decided_by,
    decidedAt: l.decided_at ? l.decided_at.toISOString() : null,
  };
}

export type LineView = Awaited<ReturnType<typeof lineData>>;

export async function statementLines(sql: Sql, id: string): Promise<LineView[]> {
  const row = await statementRow(sql, id);
  return Promise.all((await repo.linesOf(sql, row.id)).map((l) => lineData(sql, l)));
}

/**
 * A page of a statement's lines in their order (`unmatched` only, or all), by cursor (the last line's
 * position), with the total: a statement of 851 lines is read a page at a time.
 */
export async function statementLinesPage(sql: Sql, id: string, f: { status?: LineRow['status'] | undefined; cursor?: string | undefined; limit: number }) {
  const row = await statementRow(sql, id);
  const afterSeq = f.cursor === undefined ? -1 : /^\d{1,9}$/.test(f.cursor) ? Number(f.cursor) : undefined;
  if (afterSeq === undefined) throw fieldError('cursor', 'cursor is not a cursor this API issued');
  const rows = await repo.linesPage(sql, row.id, { status: f.status, afterSeq, limit: f.limit });
  const more = rows.length > f.limit;
  const data = await Promise.all(rows.slice(0, f.limit).map((l) => lineData(sql, l)));
  const last = data[data.length - 1];
  return { data, nextCursor: more && last ? String(last.seq) : null, total: await repo.countLines(sql, row.id, f.status) };
}

/** The movements an unmatched line may be matched to by hand: the statement's day, same direction, amount and currency, matched by no line. */
export function matchChoices(statement: StatementView, line: LineView): StatementView['movementsNotOnStatement'] {
  return statement.movementsNotOnStatement.filter((m) => m.direction === line.direction && m.amount === line.amount && m.currency === line.currency);
}

async function openLine(tx: Tx, lineId: string): Promise<LineRow> {
  const line = isUuid(lineId) ? await repo.findLine(tx, lineId, true) : undefined;
  if (!line) throw notFound('Statement line');
  if (line.status !== 'unmatched') throw conflict('LINE_ALREADY_DECIDED', `The line is ${line.status}; only an unmatched line is matched or ignored`);
  return line;
}

/** An operator matches an unmatched line to a movement of the same account, direction, amount and currency that no other line matched. */
export async function matchLine(tx: Tx, lineId: string, movementId: string, actor: Decider): Promise<LineView> {
  assertOperatorRight(actor, 'reconciliation');
  const by = actor.name;
  const line = await openLine(tx, lineId);
  const statement = await statementRow(tx, line.statement_id);
  const movement = isUuid(movementId) ? await repo.findMovement(tx, movementId) : undefined;
  if (!movement) throw fieldError('movementId', 'no such movement');
  const agrees = movement.bank_account === statement.bank_account && movement.direction === line.direction && movement.amount_minor === line.amount_minor && movement.currency === line.currency;
  if (!agrees) throw fieldError('movementId', 'the movement differs from the line in account, direction, amount or currency');
  if (await repo.movementMatched(tx, movement.id)) throw conflict('MOVEMENT_ALREADY_MATCHED', 'Another line already matches this movement');
  return lineData(tx, await repo.decideLine(tx, line.id, { status: 'matched', movementId: movement.id, reason: null, by }));
}

/** An operator ignores an unmatched line (a bank fee booked elsewhere, an internal transfer) with the reason. */
export async function ignoreLine(tx: Tx, lineId: string, reason: string, actor: Decider): Promise<LineView> {
  assertOperatorRight(actor, 'reconciliation');
  const by = actor.name;
  if (reason.trim().length < 3) throw fieldError('reason', 'say why the line is ignored (3 characters at least)');
  const line = await openLine(tx, lineId);
  return lineData(tx, await repo.decideLine(tx, line.id, { status: 'ignored', movementId: null, reason, by }));
}

function exceptionData(e: ExceptionRow) {
  return {
    id: e.id,
    status: e.status,
    code: e.code,
    reason: e.reason,
    messageType: e.message_type,
    fileId: e.file_id,
    bankAccount: e.bank_account,
    entryRef: e.entry_ref,
    endToEndId: e.end_to_end_id,
    direction: e.direction,
    amount: e.amount_minor !== null && e.currency ? formatIsoAmount(BigInt(e.amount_minor), e.currency) : null,
    currency: e.currency,
    bookingDate: e.booking_date,
    resolution: e.resolution,
    resolvedBy: e.resolved_by,
    resolvedAt: e.resolved_at ? e.resolved_at.toISOString() : null,
    createdAt: e.created_at.toISOString(),
  };
}

export type ExceptionView = ReturnType<typeof exceptionData>;

export function listExceptions(sql: Sql, f: PageRequest & { status?: string | undefined; bankAccount?: string | undefined }) {
  return repo.listExceptions(sql, f, exceptionData);
}

/** The operator closes an exception with what was done about it (posted by hand, returned to the payer, ...). */
export async function resolveException(tx: Tx, id: string, resolution: string, actor: Decider): Promise<ExceptionView> {
  assertOperatorRight(actor, 'reconciliation');
  const by = actor.name;
  const row = isUuid(id) ? await repo.findException(tx, id) : undefined;
  if (!row) throw notFound('Exception');
  const resolved = await repo.resolveException(tx, id, resolution, by);
  if (!resolved) throw conflict('EXCEPTION_ALREADY_RESOLVED', 'The exception is already resolved');
  return exceptionData(resolved);
}


/** A statement's lines as CSV (one row a line, with what it matched or why it was ignored). */
export async function statementCsv(sql: Sql, id: string): Promise<string> {
  const statement = await getStatement(sql, id);
  const lines = await statementLines(sql, id);
  const header = ['statement', 'bank_account', 'date', 'seq', 'status', 'direction', 'amount', 'currency', 'booking_date', 'entry_ref', 'end_to_end_id', 'bank_transaction_code', 'description', 'matched_type', 'matched_id', 'reason', 'decided_by'];
  const rows = lines.map((l) => [statement.statementId, statement.bankAccount, statement.date, l.seq, l.status, l.direction, l.amount, l.currency, l.bookingDate, l.entryRef, l.endToEndId, l.bankTransactionCode, l.description, l.matched?.object.type, l.matched?.object.id, l.reason, l.decidedBy]);
  return [header, ...rows].map(csvLine).join('');
}

/** When each bank account's latest end-of-day statement arrived (a missing morning statement is an alert of the bank connector). */
export const latestStatements = repo.latestStatements;
export const numberedStatements = repo.numberedStatements;
