import { advisoryKey, type Sql } from '../../platform/db/db.js';

/** All SQL of the ClearBank connector's own tables (migration 0115_clearbank.sql). */

export type PaymentStatus = 'pending' | 'batched' | 'accepted' | 'refused' | 'settled' | 'rejected' | 'returned' | 'held' | 'released';

export interface NewPayment {
  payoutId: string;
  workspaceId: string;
  amountMinor: bigint;
  endToEndId: string;
  instruction: string;
  status: 'pending' | 'held';
  heldReason: string | null;
}

/** Records payouts handed over; one handed over twice is recorded once. */
export async function insertPayments(sql: Sql, rows: readonly NewPayment[]): Promise<void> {
  if (rows.length === 0) return;
  await sql.query(
    `INSERT INTO clearbank_payments (payout_id, workspace_id, amount_minor, end_to_end_id, instruction, status, held_reason)
     SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::numeric[], $4::text[], $5::text[], $6::text[], $7::text[])
     ON CONFLICT (payout_id) DO NOTHING`,
    [rows.map((r) => r.payoutId), rows.map((r) => r.workspaceId), rows.map((r) => r.amountMinor.toString()), rows.map((r) => r.endToEndId), rows.map((r) => r.instruction), rows.map((r) => r.status), rows.map((r) => r.heldReason)],
  );
}

/** Lets a pending or held payment go (it will be in no batch); one in a batch already answers 'in_batch'. */
export async function releasePayment(sql: Sql, payoutId: string): Promise<'released' | 'in_batch' | 'unknown'> {
  const [row] = await sql.query<{ status: PaymentStatus }>('SELECT status FROM clearbank_payments WHERE payout_id = $1 FOR UPDATE', [payoutId]);
  if (!row) return 'unknown';
  if (row.status !== 'pending' && row.status !== 'held' && row.status !== 'released') return 'in_batch';
  await sql.query("UPDATE clearbank_payments SET status = 'released', updated_at = now() WHERE payout_id = $1", [payoutId]);
  return 'released';
}

/** Serialises the batching of the connector until commit. */
export async function lockBatching(sql: Sql): Promise<void> {
  await sql.query('SELECT pg_advisory_xact_lock($1::bigint)', [advisoryKey('clearbank.batch')]);
}

export interface PendingRow {
  payout_id: string;
  amount_minor: string;
  end_to_end_id: string;
  instruction: string;
}

/** The oldest pending payments whose wait is over (at most `limit`), locked. */
export function duePayments(sql: Sql, limit: number, maxSeconds: number): Promise<PendingRow[]> {
  return sql.query<PendingRow>(
    `SELECT payout_id::text AS payout_id, amount_minor::text AS amount_minor, end_to_end_id, instruction
       FROM clearbank_payments
      WHERE status = 'pending' AND accepted_at <= now() - make_interval(secs => $2::double precision)
      ORDER BY accepted_at, payout_id LIMIT $1 FOR UPDATE`,
    [limit, maxSeconds],
  );
}

export async function oldestPending(sql: Sql): Promise<Date | null> {
  const [row] = await sql.query<{ oldest: Date | null }>("SELECT min(accepted_at) AS oldest FROM clearbank_payments WHERE status = 'pending'");
  return row?.oldest ?? null;
}

export async function insertBatch(sql: Sql, b: { id: string; requestId: string; body: string; payments: number }, payoutIds: readonly string[]): Promise<void> {
  await sql.query("INSERT INTO clearbank_batches (id, request_id, body, payments, status) VALUES ($1, $2, $3, $4, 'recorded')", [b.id, b.requestId, b.body, b.payments]);
  await sql.query("UPDATE clearbank_payments SET status = 'batched', batch_id = $1, updated_at = now() WHERE payout_id = ANY($2::uuid[])", [b.id, payoutIds]);
}

export interface BatchRow {
  id: string;
  request_id: string;
  body: string;
  status: 'recorded' | 'answered';
}

export async function findBatch(sql: Sql, id: string, lock = false): Promise<BatchRow | undefined> {
  const [row] = await sql.query<BatchRow>(`SELECT id::text AS id, request_id, body, status FROM clearbank_batches WHERE id = $1${lock ? ' FOR UPDATE' : ''}`, [id]);
  return row;
}

export async function recordBatchError(sql: Sql, id: string, error: string): Promise<void> {
  await sql.query('UPDATE clearbank_batches SET last_error = $2, last_error_at = now() WHERE id = $1', [id, error.slice(0, 2000)]);
}

export async function markAnswered(sql: Sql, id: string, httpStatus: number): Promise<void> {
  await sql.query("UPDATE clearbank_batches SET status = 'answered', http_status = $2, answered_at = now() WHERE id = $1", [id, httpStatus]);
}

export interface PaymentRow {
  payout_id: string;
  workspace_id: string;
  end_to_end_id: string;
  status: PaymentStatus;
  amount_minor: string;
  /** The bank's TransactionId of its settlement, once a webhook gave it. */
  transaction_id: string | null;
}

const PAYMENT_COLUMNS = 'payout_id::text AS payout_id, workspace_id::text AS workspace_id, end_to_end_id, status, amount_minor::text AS amount_minor, transaction_id';

export function paymentsOfBatch(sql: Sql, batchId: string): Promise<PaymentRow[]> {
  return sql.query<PaymentRow>(`SELECT ${PAYMENT_COLUMNS} FROM clearbank_payments WHERE batch_id = $1 ORDER BY end_to_end_id FOR UPDATE`, [batchId]);
}

export async function paymentOfEndToEnd(sql: Sql, endToEndId: string): Promise<PaymentRow | undefined> {
  const [row] = await sql.query<PaymentRow>(`SELECT ${PAYMENT_COLUMNS} FROM clearbank_payments WHERE end_to_end_id = $1 FOR UPDATE`, [endToEndId]);
  return row;
}

export async function setPaymentStatus(sql: Sql, payoutId: string, status: PaymentStatus, extra: { reasonCode?: string | null; transactionId?: string | null; sent?: boolean } = {}): Promise<void> {
  await sql.query(
    `UPDATE clearbank_payments SET status = $2, reason_code = COALESCE($3, reason_code), transaction_id = COALESCE($4, transaction_id),
            sent_at = CASE WHEN $5::boolean THEN now() ELSE sent_at END, updated_at = now()
      WHERE payout_id = $1`,
    [payoutId, status, extra.reasonCode ?? null, extra.transactionId ?? null, extra.sent ?? false],
  );
}

/** Takes a webhook in by its identity; false when it was taken in before (a repeat changes nothing). */
export async function insertWebhook(sql: Sql, w: { id: string; identity: string; type: string; endToEndId: string | null; payoutId: string | null; outcome: 'applied' | 'unchanged' | 'exception'; reason: string | null; body: string }): Promise<boolean> {
  const rows = await sql.query(
    `INSERT INTO clearbank_webhooks (id, identity, type, end_to_end_id, payout_id, outcome, reason, body)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT (identity) DO NOTHING RETURNING id`,
    [w.id, w.identity, w.type, w.endToEndId, w.payoutId, w.outcome, w.reason, w.body],
  );
  return rows.length === 1;
}

export async function webhookSeen(sql: Sql, identity: string): Promise<boolean> {
  return (await sql.query('SELECT 1 FROM clearbank_webhooks WHERE identity = $1', [identity])).length === 1;
}

/** Serialises the webhooks of one identity (a repeat arriving while the first applies waits, then finds it). */
export async function lockIdentity(sql: Sql, identity: string): Promise<void> {
  await sql.query('SELECT pg_advisory_xact_lock($1::bigint)', [advisoryKey(`clearbank.webhook:${identity}`)]);
}

export function backlog(sql: Sql): Promise<{ n: number; oldest: Date | null }[]> {
  return sql.query("SELECT count(*)::int AS n, min(accepted_at) AS oldest FROM clearbank_payments WHERE status IN ('pending', 'batched')");
}

/** Holds a payment for the operator with the reason (a batch the bank refused as a whole). */
export async function holdPayment(sql: Sql, payoutId: string, reason: string): Promise<void> {
  await sql.query("UPDATE clearbank_payments SET status = 'held', held_reason = $2, updated_at = now() WHERE payout_id = $1", [payoutId, reason.slice(0, 2000)]);
}

// ---------------------------------------------------------------------------------------------
// Statements (migration 0185_clearbank_statements.sql)

export interface StatementRequestRow {
  statement_day: string;
  request_id: string;
  status: 'recorded' | 'requested';
}

/** The last UTC day asked for, if any. */
export async function lastStatementDay(sql: Sql): Promise<string | undefined> {
  const [row] = await sql.query<{ day: string | null }>('SELECT max(statement_day)::text AS day FROM clearbank_statement_requests');
  return row?.day ?? undefined;
}

/** Records the request of a day's statement once (its X-Request-Id kept for every retry) and answers it. */
export async function recordStatementRequest(sql: Sql, day: string, requestId: string): Promise<StatementRequestRow> {
  await sql.query("INSERT INTO clearbank_statement_requests (statement_day, request_id, status) VALUES ($1::date, $2, 'recorded') ON CONFLICT (statement_day) DO NOTHING", [day, requestId]);
  const [row] = await sql.query<StatementRequestRow>('SELECT statement_day::text AS statement_day, request_id, status FROM clearbank_statement_requests WHERE statement_day = $1::date', [day]);
  return row as StatementRequestRow;
}

export async function statementRequested(sql: Sql, day: string, error: string | null): Promise<void> {
  if (error === null) await sql.query("UPDATE clearbank_statement_requests SET status = 'requested', requested_at = now(), last_error = NULL WHERE statement_day = $1::date", [day]);
  else await sql.query('UPDATE clearbank_statement_requests SET last_error = $2 WHERE statement_day = $1::date', [day, error.slice(0, 2000)]);
}

export interface StatementRow {
  message_id: string;
  total_pages: number;
  status: 'ready' | 'taken';
}

/** A statement the bank says is ready, recorded once by its MessageId: false when it was recorded before. */
export async function insertStatement(sql: Sql, messageId: string, totalPages: number): Promise<boolean> {
  return (await sql.query("INSERT INTO clearbank_statements (message_id, total_pages, status) VALUES ($1, $2, 'ready') ON CONFLICT (message_id) DO NOTHING RETURNING message_id", [messageId, totalPages])).length > 0;
}

export async function findStatement(sql: Sql, messageId: string): Promise<StatementRow | undefined> {
  const [row] = await sql.query<StatementRow>('SELECT message_id, total_pages::int AS total_pages, status FROM clearbank_statements WHERE message_id = $1', [messageId]);
  return row;
}

export async function statementTaken(sql: Sql, messageId: string, error: string | null): Promise<void> {
  if (error === null) await sql.query("UPDATE clearbank_statements SET status = 'taken', taken_at = now(), last_error = NULL WHERE message_id = $1", [messageId]);
  else await sql.query('UPDATE clearbank_statements SET last_error = $2 WHERE message_id = $1', [messageId, error.slice(0, 2000)]);
}
