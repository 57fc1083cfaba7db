import type { Sql } from '../../platform/db/db.js';
import { listFilters, paginate, type PageRequest } from '../../platform/db/pagination.js';

/** One recorded API request, as stored (bodies already redacted). */
export interface RequestLogRecord {
  id: string;
  workspace_id: string;
  account_id: string;
  request_id: string;
  method: string;
  path: string;
  status: number;
  duration_ms: number;
  idempotency_key: string | null;
  caller: string;
  request_body: unknown;
  response_body: unknown;
  created_at: string;
}

export type RequestLogRow = Omit<RequestLogRecord, 'created_at' | 'status' | 'duration_ms'> & { created_at: Date | string; status: number | string; duration_ms: number | string };

const COLUMNS = 'id, workspace_id, account_id, request_id, method, path, status, duration_ms, idempotency_key, caller, request_body, response_body, created_at';

/** Many records in one statement (one JSON parameter, so the statement is the same whatever the batch's size). */
export async function insertRequestLogs(sql: Sql, records: readonly RequestLogRecord[]): Promise<void> {
  if (records.length === 0) return;
  await sql.query(
    `INSERT INTO request_logs (${COLUMNS})
     SELECT ${COLUMNS} FROM jsonb_to_recordset($1::jsonb) AS r(
       id uuid, workspace_id uuid, account_id uuid, request_id text, method text, path text, status bigint, duration_ms bigint,
       idempotency_key text, caller text, request_body jsonb, response_body jsonb, created_at timestamptz)
     ON CONFLICT (id) DO NOTHING`,
    [JSON.stringify(records)],
  );
}

export interface RequestLogFilter {
  method?: string | undefined;
  status?: number | undefined;
  /** Only answers of 400 and above. */
  failed?: boolean | undefined;
}

export function listRequestLogs<Item>(sql: Sql, workspaceId: string, f: PageRequest & RequestLogFilter, map: (row: RequestLogRow) => Item) {
  const { where, params, add } = listFilters();
  add('workspace_id = ?', workspaceId);
  if (f.method) add('method = ?', f.method);
  if (f.status !== undefined) add('status = ?', f.status);
  if (f.failed) add('status >= 400');
  return paginate(sql, f, { object: 'request_log.list', from: `SELECT ${COLUMNS} FROM request_logs`, where, params, map });
}

export async function findRequestLog(sql: Sql, workspaceId: string, id: string): Promise<RequestLogRow | undefined> {
  const rows = await sql.query<RequestLogRow>(`SELECT ${COLUMNS} FROM request_logs WHERE workspace_id = $1 AND id = $2`, [workspaceId, id]);
  return rows[0];
}

/** Retention: deletes at most `limit` requests logged before `before`; answers how many. */
export async function deleteRequestLogsBefore(sql: Sql, before: Date, limit: number): Promise<number> {
  const rows = await sql.query(
    `DELETE FROM request_logs WHERE id = ANY(ARRAY(
       SELECT id FROM request_logs WHERE created_at < $1 LIMIT $2 FOR UPDATE SKIP LOCKED))
     RETURNING 1`,
    [before, limit],
  );
  return rows.length;
}
