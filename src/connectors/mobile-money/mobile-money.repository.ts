import type { Sql } from '../../platform/db/db.js';

/** All SQL of the mobile-money connector's own tables (migrations 0105_mobile_money.sql, 0181_momo_collections.sql). */

export type MomoStatus = 'recorded' | 'sent' | 'completed' | 'failed' | 'reversed' | 'held' | 'released';

/** What a request to the provider is for: a payout's disbursement (momo_payouts), a collection's request to pay (momo_collections). */
export type MomoKind = 'payout' | 'collection';

const TABLES: Record<MomoKind, { table: string; key: string }> = {
  payout: { table: 'momo_payouts', key: 'payout_id' },
  collection: { table: 'momo_collections', key: 'deposit_id' },
};

/** A request to the provider as both tables keep it; `id` is the payout's or the deposit's. */
export interface MomoRequestRow {
  kind: MomoKind;
  id: string;
  workspace_id: string;
  correlation_id: string;
  request: string;
  status: MomoStatus;
  held_reason: string | null;
  server_correlation_id: string | null;
  transaction_reference: string | null;
  attempts: number;
}

export interface NewMomoPayout {
  payoutId: string;
  workspaceId: string;
  request: string;
  status: 'recorded' | 'held';
  heldReason: string | null;
}

const columns = (kind: MomoKind) =>
  `'${kind}' AS kind, ${TABLES[kind].key}::text AS id, workspace_id::text, correlation_id::text, request, status, ${kind === 'payout' ? 'held_reason' : 'NULL AS held_reason'}, server_correlation_id, transaction_reference, attempts::int AS attempts`;

/** Records payouts handed over with their sealed requests; one handed over twice is recorded once. Answers the ids newly recorded. */
export async function insertMomoPayouts(sql: Sql, rows: readonly NewMomoPayout[]): Promise<string[]> {
  if (rows.length === 0) return [];
  const inserted = await sql.query<{ payout_id: string }>(
    `INSERT INTO momo_payouts (payout_id, workspace_id, correlation_id, request, status, held_reason)
     SELECT p, w, p, r, s, h FROM unnest($1::uuid[], $2::uuid[], $3::text[], $4::text[], $5::text[]) AS t (p, w, r, s, h)
     ON CONFLICT (payout_id) DO NOTHING
     RETURNING payout_id::text`,
    [rows.map((r) => r.payoutId), rows.map((r) => r.workspaceId), rows.map((r) => r.request), rows.map((r) => r.status), rows.map((r) => r.heldReason)],
  );
  return inserted.map((r) => r.payout_id);
}

export async function findRequest(sql: Sql, kind: MomoKind, id: string, lock = false): Promise<MomoRequestRow | undefined> {
  const { table, key } = TABLES[kind];
  const [row] = await sql.query<MomoRequestRow>(`SELECT ${columns(kind)} FROM ${table} WHERE ${key} = $1${lock ? ' FOR UPDATE' : ''}`, [id]);
  return row;
}

/** The payout's or collection's request with this correlation id (a payout's first). */
export async function findByCorrelation(sql: Sql, correlationId: string, lock = false): Promise<MomoRequestRow | undefined> {
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(correlationId)) return undefined;
  for (const kind of ['payout', 'collection'] as const) {
    const [row] = await sql.query<MomoRequestRow>(`SELECT ${columns(kind)} FROM ${TABLES[kind].table} WHERE correlation_id = $1::uuid${lock ? ' FOR UPDATE' : ''}`, [correlationId]);
    if (row) return row;
  }
  return undefined;
}

/** Counts a send begun, committed before the request leaves: answers how many began, this one included, or undefined when the request is no longer waiting to be sent. */
export async function beginSend(sql: Sql, kind: MomoKind, id: string): Promise<number | undefined> {
  const { table, key } = TABLES[kind];
  const [row] = await sql.query<{ attempts: number }>(`UPDATE ${table} SET attempts = attempts + 1, updated_at = now() WHERE ${key} = $1 AND status = 'recorded' RETURNING attempts::int AS attempts`, [id]);
  return row?.attempts;
}

/** The provider has the request: sent, to be asked about at `pollAt` if no callback comes. */
export async function markSent(sql: Sql, kind: MomoKind, id: string, serverCorrelationId: string | null, pollAt: Date): Promise<boolean> {
  const { table, key } = TABLES[kind];
  const rows = await sql.query(
    `UPDATE ${table} SET status = 'sent', server_correlation_id = coalesce($2, server_correlation_id), poll_at = $3, updated_at = now() WHERE ${key} = $1 AND status = 'recorded' RETURNING 1`,
    [id, serverCorrelationId, pollAt],
  );
  return rows.length > 0;
}

/** Moves a row to its outcome from one of `from`; false when it was not there. */
export async function markOutcome(sql: Sql, kind: MomoKind, id: string, from: readonly MomoStatus[], to: MomoStatus, transactionReference: string | null): Promise<boolean> {
  const { table, key } = TABLES[kind];
  const rows = await sql.query(
    `UPDATE ${table} SET status = $3, transaction_reference = coalesce($4, transaction_reference), poll_at = NULL, updated_at = now() WHERE ${key} = $1 AND status = ANY($2::text[]) RETURNING 1`,
    [id, from, to, transactionReference],
  );
  return rows.length > 0;
}

export async function setPollAt(sql: Sql, kind: MomoKind, id: string, pollAt: Date): Promise<void> {
  const { table, key } = TABLES[kind];
  await sql.query(`UPDATE ${table} SET poll_at = $2, updated_at = now() WHERE ${key} = $1 AND status = 'sent'`, [id, pollAt]);
}

export async function recordError(sql: Sql, kind: MomoKind, id: string, message: string): Promise<void> {
  const { table, key } = TABLES[kind];
  await sql.query(`UPDATE ${table} SET last_error = $2, last_error_at = now(), updated_at = now() WHERE ${key} = $1`, [id, message.slice(0, 1000)]);
}

export interface NewMomoCollection {
  depositId: string;
  workspaceId: string;
  clientRef: string;
  request: string;
}

/** Records a collection's request to pay (sealed) with its deposit; false when the workspace already has a collection with this clientRef. */
export async function insertMomoCollection(sql: Sql, c: NewMomoCollection): Promise<boolean> {
  const rows = await sql.query(
    `INSERT INTO momo_collections (deposit_id, workspace_id, client_ref, correlation_id, request, status) VALUES ($1, $2, $3, $1, $4, 'recorded')
     ON CONFLICT (workspace_id, client_ref) DO NOTHING RETURNING 1`,
    [c.depositId, c.workspaceId, c.clientRef, c.request],
  );
  return rows.length > 0;
}

/** Whether the workspace already has a collection with this clientRef. */
export async function collectionRefTaken(sql: Sql, workspaceId: string, clientRef: string): Promise<boolean> {
  const rows = await sql.query('SELECT 1 FROM momo_collections WHERE workspace_id = $1 AND client_ref = $2', [workspaceId, clientRef]);
  return rows.length > 0;
}

/** Lets a payout go before it left: true when it was recorded or held (never sent), false when it is already at the provider. */
export async function releaseMomoPayout(sql: Sql, payoutId: string): Promise<boolean> {
  const [row] = await sql.query<{ status: MomoStatus; attempts: number }>('SELECT status, attempts FROM momo_payouts WHERE payout_id = $1 FOR UPDATE', [payoutId]);
  if (!row) return true;
  if (row.status === 'released') return true;
  // A send begun may have reached the provider: only one never begun, or held, can be let go.
  if (!(row.status === 'held' || (row.status === 'recorded' && row.attempts === 0))) return false;
  await sql.query("UPDATE momo_payouts SET status = 'released', updated_at = now() WHERE payout_id = $1", [payoutId]);
  return true;
}

/** Requests of one kind at the provider whose callback is overdue, oldest first. */
export function duePolls(sql: Sql, kind: MomoKind, limit: number): Promise<MomoRequestRow[]> {
  return sql.query<MomoRequestRow>(`SELECT ${columns(kind)} FROM ${TABLES[kind].table} WHERE status = 'sent' AND poll_at <= now() ORDER BY poll_at LIMIT $1`, [limit]);
}

export interface NewCallback {
  id: string;
  correlationId: string;
  contentSha256: string;
  outcome: 'applied' | 'unchanged' | 'unknown' | 'refused';
  reason: string | null;
  body: string | null;
}

/** Records a callback; false when the same callback (correlation id and content hash) was taken in before. */
export async function insertCallback(sql: Sql, c: NewCallback): Promise<boolean> {
  const rows = await sql.query(
    `INSERT INTO momo_callbacks (id, correlation_id, content_sha256, outcome, reason, body) VALUES ($1, $2, $3, $4, $5, $6)
     ON CONFLICT (correlation_id, content_sha256) WHERE outcome <> 'refused' DO NOTHING RETURNING 1`,
    [c.id, c.correlationId.slice(0, 256), c.contentSha256, c.outcome, c.reason, c.body],
  );
  return rows.length > 0;
}

export async function setCallbackOutcome(sql: Sql, id: string, outcome: NewCallback['outcome'], reason: string | null): Promise<void> {
  await sql.query('UPDATE momo_callbacks SET outcome = $2, reason = $3 WHERE id = $1', [id, outcome, reason]);
}

/**
 * Retention: deletes at most `limit` callbacks of one outcome that moved nothing (`refused`, or
 * `unknown`) received before `before`, found through that outcome's partial index; answers how many.
 * Applied and unchanged callbacks are kept: they are the record of what was taken in, once.
 */
export async function deleteCallbacksBefore(sql: Sql, outcome: 'unknown' | 'refused', before: Date, limit: number): Promise<number> {
  const rows = await sql.query(
    `DELETE FROM momo_callbacks WHERE id = ANY(ARRAY(
       SELECT id FROM momo_callbacks WHERE outcome = $1 AND received_at < $2 LIMIT $3 FOR UPDATE SKIP LOCKED))
     RETURNING 1`,
    [outcome, before, limit],
  );
  return rows.length;
}

/** The callbacks of one outcome received since `since`: how many, and the latest one's correlation id and time (none: count 0). */
export async function callbacksSince(sql: Sql, outcome: 'unknown' | 'refused', since: Date): Promise<{ count: number; latest: { correlation_id: string; received_at: Date } | undefined }> {
  const [counted] = await sql.query<{ n: number }>('SELECT count(*)::int AS n FROM momo_callbacks WHERE outcome = $1 AND received_at >= $2', [outcome, since]);
  if (!counted || counted.n === 0) return { count: 0, latest: undefined };
  const [latest] = await sql.query<{ correlation_id: string; received_at: Date }>('SELECT correlation_id, received_at FROM momo_callbacks WHERE outcome = $1 AND received_at >= $2 ORDER BY received_at DESC LIMIT 1', [outcome, since]);
  return { count: counted.n, latest };
}

export async function backlog(sql: Sql): Promise<{ n: number }> {
  const [row] = await sql.query<{ n: number }>("SELECT ((SELECT count(*) FROM momo_payouts WHERE status IN ('recorded', 'sent')) + (SELECT count(*) FROM momo_collections WHERE status IN ('recorded', 'sent')))::int AS n");
  return row ?? { n: 0 };
}

export interface MomoCreditRow {
  transaction_reference: string;
  outcome: 'credited' | 'exception';
  workspace_id: string | null;
  deposit_id: string | null;
  amount: string | null;
  currency: string | null;
  payer_reference: string | null;
  reason: string | null;
  received_at: Date;
}

export interface NewMomoCredit {
  transactionReference: string;
  contentSha256: string;
  outcome: 'credited' | 'exception';
  workspaceId: string | null;
  depositId: string | null;
  amount: string | null;
  currency: string | null;
  payerReference: string | null;
  reason: string | null;
  body: string;
}

/** Claims a pushed credit by the operator's transaction reference; false when it was taken in before (its credit, or its exception, stands). */
export async function claimCredit(sql: Sql, c: NewMomoCredit): Promise<boolean> {
  const rows = await sql.query(
    `INSERT INTO momo_credits (transaction_reference, content_sha256, outcome, workspace_id, deposit_id, amount, currency, payer_reference, reason, body)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) ON CONFLICT (transaction_reference) DO NOTHING RETURNING 1`,
    [c.transactionReference.slice(0, 256), c.contentSha256, c.outcome, c.workspaceId, c.depositId, c.amount?.slice(0, 40) ?? null, c.currency?.slice(0, 10) ?? null, c.payerReference?.slice(0, 100) ?? null, c.reason?.slice(0, 2000) ?? null, c.body],
  );
  return rows.length > 0;
}

/** The pushed credits that landed nowhere, newest first: the operator's exceptions list. */
export function creditExceptions(sql: Sql, limit: number): Promise<MomoCreditRow[]> {
  return sql.query<MomoCreditRow>(
    `SELECT transaction_reference, outcome, workspace_id::text, deposit_id::text, amount, currency, payer_reference, reason, received_at
     FROM momo_credits WHERE outcome = 'exception' ORDER BY received_at DESC, transaction_reference LIMIT $1`,
    [limit],
  );
}

/** Whether a pushed credit with this transaction reference was taken in before. */
export async function creditTaken(sql: Sql, transactionReference: string): Promise<boolean> {
  const rows = await sql.query('SELECT 1 FROM momo_credits WHERE transaction_reference = $1', [transactionReference.slice(0, 256)]);
  return rows.length > 0;
}
