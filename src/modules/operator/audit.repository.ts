import type { Sql } from '../../db/db.js';
import { listFilters, paginate, type PageRequest } from '../../db/pagination.js';

/** All SQL of the operator_audit_log table. */

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

export async function insertAudit(sql: Sql, row: Omit<AuditRow, 'at' | 'body'> & { body: string | null }): Promise<void> {
  await sql.query(
    `INSERT INTO operator_audit_log (id, operator_key, method, path, status_code, request_id, workspace_id, body, actor)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
    [row.id, row.operator_key, row.method, row.path, row.status_code, row.request_id, row.workspace_id, row.body, row.actor],
  );
}

/** Deletes at most `limit` entries written before `before`, oldest first; answers how many. */
export async function deleteAuditBefore(sql: Sql, before: Date, limit: number): Promise<number> {
  const rows = await sql.query(
    `DELETE FROM operator_audit_log WHERE id = ANY(ARRAY(
       SELECT id FROM operator_audit_log WHERE at < $1 ORDER BY at LIMIT $2 FOR UPDATE SKIP LOCKED))
     RETURNING 1`,
    [before, limit],
  );
  return rows.length;
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
