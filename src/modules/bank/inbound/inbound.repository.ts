import type { Sql } from '../../../db/db.js';
import { maybeOne } from '../../../db/db.js';
import { listFilters, paginate, type PageRequest } from '../../../db/pagination.js';

/** All SQL of bank_inbound_files: every file a bank sent back, taken in once. */

export interface InboundFileRow {
  id: string;
  name: string;
  sha256: string;
  message_type: string | null;
  message_version: string | null;
  message_id: string | null;
  status: 'processed' | 'quarantined';
  reason: string | null;
  entries: number;
  exceptions: number;
  received_at: Date;
}

const FILE_COLUMNS = 'id, name, sha256, message_type, message_version, message_id, status, reason, entries, exceptions, received_at';

/**
 * Takes a file in: undefined when its hash (or, processed, its message id) was taken in before. Run
 * first in the file's transaction, so a second process taking the same file waits here for the first
 * to commit, then takes nothing.
 */
export function insertFile(sql: Sql, f: Pick<InboundFileRow, 'id' | 'name' | 'sha256' | 'message_type' | 'message_version' | 'message_id' | 'status' | 'reason'>): Promise<InboundFileRow | undefined> {
  return maybeOne(
    sql,
    `INSERT INTO bank_inbound_files (id, name, sha256, message_type, message_version, message_id, status, reason)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT DO NOTHING RETURNING ${FILE_COLUMNS}`,
    [f.id, f.name, f.sha256, f.message_type, f.message_version, f.message_id, f.status, f.reason],
  );
}

export function findFileBySha(sql: Sql, sha256: string): Promise<InboundFileRow | undefined> {
  return maybeOne(sql, `SELECT ${FILE_COLUMNS} FROM bank_inbound_files WHERE sha256 = $1`, [sha256]);
}

export function findProcessedMessage(sql: Sql, messageType: string, messageId: string): Promise<InboundFileRow | undefined> {
  return maybeOne(sql, `SELECT ${FILE_COLUMNS} FROM bank_inbound_files WHERE message_type = $1 AND message_id = $2 AND status = 'processed'`, [messageType, messageId]);
}

export async function setCounts(sql: Sql, id: string, entries: number, exceptions: number): Promise<void> {
  await sql.query('UPDATE bank_inbound_files SET entries = $2, exceptions = $3 WHERE id = $1', [id, entries, exceptions]);
}

export function listFiles<Item>(sql: Sql, f: PageRequest & { status?: string | undefined }, map: (row: InboundFileRow) => Item) {
  const { where, params, add } = listFilters();
  if (f.status) add('status = ?', f.status);
  return paginate(sql, f, { object: 'bank_inbound_file.list', from: `SELECT ${FILE_COLUMNS} FROM bank_inbound_files`, where, params, createdColumn: 'received_at', map });
}
