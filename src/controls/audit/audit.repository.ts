import type { Sql, Tx } from '../../platform/db/db.js';
import { CANONICAL_AT_SQL } from '../../platform/db/migrations/0027_audit_chain.js';
import { listFilters, paginate, type PageRequest } from '../../platform/db/pagination.js';

/** All SQL of the operator_audit_log table and its chains' heads (audit_chains). */

export interface AuditRow {
  id: string;
  at: Date;
  operator_key: string | null;
  method: string;
  path: string;
  status_code: number;
  request_id: string;
  workspace_id: string | null;
  body: unknown;
  actor: string | null;
}

/** Whether the transaction has written anything yet (an xid is assigned at its first write). */
export async function transactionWrote(tx: Tx): Promise<boolean> {
  const [row] = await tx.query<{ wrote: boolean }>('SELECT pg_current_xact_id_if_assigned() IS NOT NULL AS wrote');
  return row?.wrote === true;
}

export interface ChainHead {
  seq: number;
  last_hash: string;
  pruned_seq: number;
  pruned_hash: string;
}

const HEAD_COLUMNS = 'seq::int AS seq, last_hash, pruned_seq::int AS pruned_seq, pruned_hash';

/**
 * The chain's head, locked FOR UPDATE until the transaction ends (created at the genesis when the
 * chain has no entry yet): a chain's entries are appended one transaction at a time.
 */
export async function lockChainHead(tx: Tx, chain: string, genesis: string): Promise<ChainHead> {
  const locked = () => tx.query<ChainHead>(`SELECT ${HEAD_COLUMNS} FROM audit_chains WHERE chain = $1 FOR UPDATE`, [chain]);
  const [head] = await locked();
  if (head) return head;
  await tx.query('INSERT INTO audit_chains (chain, seq, last_hash, pruned_hash) VALUES ($1, 0, $2, $2) ON CONFLICT (chain) DO NOTHING', [chain, genesis]);
  const [created] = await locked();
  if (!created) throw new Error(`audit chain ${chain} has no head`);
  return created;
}

/** The head as it stands (no lock): verifying reads entries up to it. */
export async function chainHead(sql: Sql, chain: string): Promise<ChainHead | undefined> {
  const [head] = await sql.query<ChainHead>(`SELECT ${HEAD_COLUMNS} FROM audit_chains WHERE chain = $1`, [chain]);
  return head;
}

export interface NewChainedRow extends Omit<AuditRow, 'body'> {
  body: string | null;
  chain: string;
  seq: number;
  prev_hash: string;
  hash: string;
}

/** Appends an entry and moves its chain's head to it (the head locked by lockChainHead in this transaction). */
export async function appendChained(tx: Tx, row: NewChainedRow): Promise<void> {
  await tx.query(
    `WITH entry AS (
       INSERT INTO operator_audit_log (id, at, operator_key, method, path, status_code, request_id, workspace_id, body, actor, chain, seq, prev_hash, hash)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14))
     UPDATE audit_chains SET seq = $12, last_hash = $14 WHERE chain = $11`,
    [row.id, row.at, row.operator_key, row.method, row.path, row.status_code, row.request_id, row.workspace_id, row.body, row.actor, row.chain, row.seq, row.prev_hash, row.hash],
  );
}

/** A chain's entries as the hash covers them, in seq order: those after `afterSeq` up to `throughSeq`, at most `limit`. */
export async function chainEntries(sql: Sql, chain: string, afterSeq: number, throughSeq: number, limit: number): Promise<ChainedRow[]> {
  return sql.query<ChainedRow>(
    `SELECT id::text AS id, ${CANONICAL_AT_SQL} AS at, operator_key::text AS operator_key, method, path, status_code, request_id,
            workspace_id::text AS workspace_id, body, actor, chain, seq::int AS seq, prev_hash, hash
       FROM operator_audit_log WHERE chain = $1 AND seq > $2 AND seq <= $3 ORDER BY seq LIMIT $4`,
    [chain, afterSeq, throughSeq, limit],
  );
}

/** An audit row as the chain reads it: its time as the canonical text the hash covers. */
export interface ChainedRow extends Omit<AuditRow, 'at'> {
  at: string;
  chain: string;
  seq: number;
  prev_hash: string;
  hash: string;
}

/**
 * Retention: deletes about `limit` of the oldest entries written before `before` (found through
 * the `at` index), each chain only ever cut from its start: every entry of a chain up to the newest
 * one picked goes, and the chain records where it now starts (the last deleted entry's seq and
 * hash) so the entries kept still verify. A chain being appended to right now is left for the next
 * run (SKIP LOCKED). Answers how many were deleted.
 */
export async function deleteAuditBefore(sql: Sql, before: Date, limit: number): Promise<number> {
  const rows = await sql.query<{ n: number }>(
    `WITH picked AS (
       SELECT chain, max(seq) AS through FROM (SELECT chain, seq FROM operator_audit_log WHERE at < $1 ORDER BY at LIMIT $2) o GROUP BY chain),
     heads AS (
       SELECT c.chain, p.through FROM audit_chains c JOIN picked p ON p.chain = c.chain FOR UPDATE OF c SKIP LOCKED),
     gone AS (
       DELETE FROM operator_audit_log l USING heads h WHERE l.chain = h.chain AND l.seq <= h.through RETURNING l.chain, l.seq, l.hash),
     moved AS (
       UPDATE audit_chains c SET pruned_seq = g.seq, pruned_hash = g.hash
         FROM (SELECT DISTINCT ON (chain) chain, seq, hash FROM gone ORDER BY chain, seq DESC) g
        WHERE c.chain = g.chain RETURNING 1)
     SELECT (SELECT count(*)::int FROM gone) AS n, (SELECT count(*)::int FROM moved) AS chains`,
    [before, limit],
  );
  return rows[0]?.n ?? 0;
}

/** The filters as the database takes them (already checked): `actor` null asks for calls with the operator key itself. */
export interface AuditQuery extends PageRequest {
  workspaceId?: string | undefined;
  method?: string | undefined;
  /** Matched with ILIKE inside `%...%`, LIKE wildcards already escaped. */
  pathLike?: string | undefined;
  statusCode?: number | undefined;
  actor?: string | null | undefined;
  from?: string | undefined;
  to?: string | undefined;
}

/** The audit log newest first, filtered. */
export function listAudit<Item>(sql: Sql, f: AuditQuery, map: (row: AuditRow) => Item) {
  const { where, params, add } = listFilters();
  if (f.workspaceId) add('workspace_id = ?::uuid', f.workspaceId);
  if (f.method) add('method = ?', f.method);
  if (f.pathLike) add("path ILIKE '%' || ? || '%'", f.pathLike);
  if (f.statusCode !== undefined) add('status_code = ?', f.statusCode);
  if (f.actor === null) add('actor IS NULL');
  else if (f.actor) add('actor = ?', f.actor);
  if (f.from) add('at >= ?::timestamptz', f.from);
  if (f.to) add('at < ?::timestamptz', f.to);
  return paginate(sql, f, {
    object: 'audit_entry.list',
    from: 'SELECT id, at, operator_key, method, path, status_code, request_id, workspace_id, body, actor FROM operator_audit_log',
    where,
    params,
    createdColumn: 'at',
    map,
  });
}

/**
 * The chains holding entries whose body may carry bytes copied in by versions before migration
 * 0080 (an uploaded file's `bytes` as an object of numbered bytes, or a Buffer's `{ type, data }`),
 * each with the first such entry's seq: a coarse text match, which the caller narrows.
 */
export async function chainsWithStoredBytes(sql: Sql): Promise<{ chain: string; first_seq: number }[]> {
  return sql.query<{ chain: string; first_seq: number }>(
    `SELECT chain, min(seq)::int AS first_seq FROM operator_audit_log
      WHERE body::text LIKE '%"bytes": {%' OR body::text LIKE '%"type": "Buffer"%'
      GROUP BY chain ORDER BY chain`,
  );
}

/** Rewrites one entry's body and links (its chain's head locked by the caller) and records the old and new hash in audit_relinks. */
export async function relinkEntry(tx: Tx, row: { chain: string; seq: number; body: string | null; prevHash: string; hash: string; oldHash: string; reason: string }): Promise<void> {
  await tx.query(
    `WITH relinked AS (
       UPDATE operator_audit_log SET body = $3::jsonb, prev_hash = $4, hash = $5 WHERE chain = $1 AND seq = $2)
     INSERT INTO audit_relinks (chain, seq, old_hash, new_hash, reason) VALUES ($1, $2, $6, $5, $7)`,
    [row.chain, row.seq, row.body, row.prevHash, row.hash, row.oldHash, row.reason],
  );
}

/** Moves a chain's head hash after its entries were relinked (its seq stays). */
export async function setChainHeadHash(tx: Tx, chain: string, hash: string): Promise<void> {
  await tx.query('UPDATE audit_chains SET last_hash = $2 WHERE chain = $1', [chain, hash]);
}
