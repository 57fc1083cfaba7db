import type { Sql } from '../db/db.js';
import { maybeOne, one } from '../db/db.js';

/** All SQL of the uploads (the slots behind signed upload URLs). */

export interface UploadRow {
  key: string;
  workspace_id: string;
  purpose: string;
  owner_id: string;
  storage_key: string;
  content_type: string;
  content_length: string;
  expires_at: Date;
  uploaded_at: Date | null;
  created_at: Date;
}

const COLUMNS = 'key, workspace_id, purpose, owner_id, storage_key, content_type, content_length::text AS content_length, expires_at, uploaded_at, created_at';

export async function insertUpload(
  sql: Sql,
  u: { key: string; workspaceId: string; purpose: string; ownerId: string; storageKey: string; contentType: string; contentLength: number; ttlMs: number },
): Promise<UploadRow> {
  return one<UploadRow>(
    sql,
    `INSERT INTO uploads (key, workspace_id, purpose, owner_id, storage_key, content_type, content_length, expires_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, now() + make_interval(secs => $8::double precision / 1000)) RETURNING ${COLUMNS}`,
    [u.key, u.workspaceId, u.purpose, u.ownerId, u.storageKey, u.contentType, u.contentLength, u.ttlMs],
  );
}

export async function findUpload(sql: Sql, key: string): Promise<UploadRow | undefined> {
  return maybeOne<UploadRow>(sql, `SELECT ${COLUMNS} FROM uploads WHERE key = $1`, [key]);
}

/** Compare-and-set: the one PUT that fills a slot (unfilled and unexpired) claims it. */
export async function claimUpload(sql: Sql, key: string): Promise<UploadRow | undefined> {
  return maybeOne<UploadRow>(
    sql,
    `UPDATE uploads SET uploaded_at = now() WHERE key = $1 AND uploaded_at IS NULL AND expires_at > now() RETURNING ${COLUMNS}`,
    [key],
  );
}

/** Deletes slots that expired unfilled (they can never be filled); bounded per call. */
export async function deleteExpiredUnfilled(sql: Sql, batchMax: number): Promise<number> {
  const rows = await sql.query(
    `DELETE FROM uploads WHERE key IN (SELECT key FROM uploads WHERE uploaded_at IS NULL AND expires_at <= now() LIMIT $1) RETURNING 1`,
    [batchMax],
  );
  return rows.length;
}
