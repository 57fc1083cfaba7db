import type { Sql } from '../../../platform/db/db.js';
import { maybeOne } from '../../../platform/db/db.js';
import { listFilters, paginate, type PageRequest } from '../../../platform/db/pagination.js';

/** All SQL of bank_inbound_files and bank_inbound_entries: every file a bank sent back, and every credit taken in by its identity. */

export type InboundFileStatus = 'received' | 'applying' | 'processed' | 'quarantined';

export interface InboundFileRow {
  id: string;
  name: string;
  /** Null only for a file quarantined from its size, never read. */
  sha256: string | null;
  size_bytes: string | null;
  message_type: string | null;
  message_version: string | null;
  message_id: string | null;
  status: InboundFileStatus;
  reason: string | null;
  entries: number;
  exceptions: number;
  units_applied: number;
  attempts: number;
  last_error: string | null;
  received_at: Date;
}

const FILE_COLUMNS = 'id, name, sha256, size_bytes::text AS size_bytes, message_type, message_version, message_id, status, reason, entries, exceptions, units_applied, attempts, last_error, received_at';

/** Records a file before it is read (status 'received', or 'quarantined' with its reason): undefined when its hash was recorded before. */
export function insertFile(sql: Sql, f: Pick<InboundFileRow, 'id' | 'name' | 'sha256' | 'status' | 'reason'> & { size: number }): Promise<InboundFileRow | undefined> {
  return maybeOne(
    sql,
    `INSERT INTO bank_inbound_files (id, name, sha256, size_bytes, status, reason, attempts)
     VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT DO NOTHING RETURNING ${FILE_COLUMNS}`,
    [f.id, f.name, f.sha256, f.size, f.status, f.reason, f.status === 'received' ? 1 : 0],
  );
}

export function findFileBySha(sql: Sql, sha256: string): Promise<InboundFileRow | undefined> {
  return maybeOne(sql, `SELECT ${FILE_COLUMNS} FROM bank_inbound_files WHERE sha256 = $1`, [sha256]);
}

/** A file quarantined from its size alone under this name and size (the same file seen again when it could not be moved aside). */
export function findUnreadFile(sql: Sql, name: string, size: number): Promise<InboundFileRow | undefined> {
  return maybeOne(sql, `SELECT ${FILE_COLUMNS} FROM bank_inbound_files WHERE sha256 IS NULL AND name = $1 AND size_bytes = $2`, [name, size]);
}

/** The file taken in (or being applied) with this message, other than `exceptId`. */
export function findMessageFile(sql: Sql, messageType: string, messageId: string, exceptId: string): Promise<InboundFileRow | undefined> {
  return maybeOne(sql, `SELECT ${FILE_COLUMNS} FROM bank_inbound_files WHERE message_type = $1 AND message_id = $2 AND status IN ('applying', 'processed') AND id <> $3`, [messageType, messageId, exceptId]);
}

/** One more attempt at reading a recorded file (a process that died reading it counted one too). */
export async function countAttempt(sql: Sql, id: string): Promise<number> {
  const row = await maybeOne<{ attempts: number }>(sql, "UPDATE bank_inbound_files SET attempts = attempts + 1 WHERE id = $1 AND status = 'received' RETURNING attempts", [id]);
  return row?.attempts ?? 0;
}

export async function quarantineFile(sql: Sql, id: string, reason: string, message?: { type: string; version: string; id: string }): Promise<void> {
  await sql.query(
    "UPDATE bank_inbound_files SET status = 'quarantined', reason = $2, message_type = COALESCE($3, message_type), message_version = COALESCE($4, message_version), message_id = COALESCE($5, message_id) WHERE id = $1 AND status = 'received'",
    [id, reason, message?.type ?? null, message?.version ?? null, message?.id ?? null],
  );
}

/** Read: its message named, its chunks to apply. Undefined when another file holds that message (the unique index) or the row moved on. */
export function startApplying(sql: Sql, id: string, message: { type: string; version: string; id: string }): Promise<InboundFileRow | undefined> {
  return maybeOne(
    sql,
    `UPDATE bank_inbound_files SET status = 'applying', message_type = $2, message_version = $3, message_id = $4
     WHERE id = $1 AND status = 'received'
       AND NOT EXISTS (SELECT 1 FROM bank_inbound_files o WHERE o.message_type = $2 AND o.message_id = $4 AND o.status IN ('applying', 'processed') AND o.id <> $1)
     RETURNING ${FILE_COLUMNS}`,
    [id, message.type, message.version, message.id],
  );
}

/** The file's row locked for one chunk: a second process applying the same file waits here, then sees the progress made. */
export function lockFile(sql: Sql, id: string): Promise<InboundFileRow | undefined> {
  return maybeOne(sql, `SELECT ${FILE_COLUMNS} FROM bank_inbound_files WHERE id = $1 FOR UPDATE`, [id]);
}

/** A chunk applied: its progress and counts, in the chunk's transaction; the last one marks the file processed. */
export async function chunkApplied(sql: Sql, id: string, c: { units: number; entries: number; exceptions: number; done: boolean }): Promise<void> {
  await sql.query(
    `UPDATE bank_inbound_files SET units_applied = units_applied + $2, entries = entries + $3, exceptions = exceptions + $4, last_error = NULL,
       status = CASE WHEN $5::boolean THEN 'processed' ELSE status END
     WHERE id = $1`,
    [id, c.units, c.entries, c.exceptions, c.done],
  );
}

export async function setLastError(sql: Sql, id: string, error: string): Promise<void> {
  await sql.query('UPDATE bank_inbound_files SET last_error = $2 WHERE id = $1', [id, error.slice(0, 2000)]);
}

/** Takes a credit's identity: false when it was taken before (the credit is posted once). */
export async function takeEntryKey(sql: Sql, entryKey: string, fileId: string): Promise<boolean> {
  return (await sql.query('INSERT INTO bank_inbound_entries (entry_key, file_id) VALUES ($1, $2) ON CONFLICT DO NOTHING RETURNING entry_key', [entryKey, fileId])).length > 0;
}

/** A credit refused after its identity was taken: the booking may be credited when it comes again. */
export async function releaseEntryKey(sql: Sql, entryKey: string): Promise<void> {
  await sql.query('DELETE FROM bank_inbound_entries WHERE entry_key = $1', [entryKey]);
}

export function listFiles<Item>(sql: Sql, f: PageRequest & { status?: string | undefined }, map: (row: InboundFileRow) => Item) {
  const { where, params, add } = listFilters();
  if (f.status) add('status = ?', f.status);
  return paginate(sql, f, { object: 'bank_inbound_file.list', from: `SELECT ${FILE_COLUMNS} FROM bank_inbound_files`, where, params, createdColumn: 'received_at', map });
}
