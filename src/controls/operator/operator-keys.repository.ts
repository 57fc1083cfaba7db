import type { Sql } from '../../platform/db/db.js';

/** All SQL of the operator_keys table. Keys cross this boundary only as digests. */

export async function insertKey(sql: Sql, id: string, keyHash: string, label: string): Promise<void> {
  await sql.query('INSERT INTO operator_keys (id, key_hash, label) VALUES ($1, $2, $3)', [id, keyHash, label]);
}

/** Replaces a hash from an earlier release (scrypt) with the digest; a key already stored as a digest is left alone. */
export async function replaceLegacyHash(sql: Sql, id: string, keyHash: string): Promise<void> {
  await sql.query("UPDATE operator_keys SET key_hash = $2 WHERE id = $1 AND key_hash NOT LIKE 'hmac-sha256$%'", [id, keyHash]);
}

export async function revokeKey(sql: Sql, id: string): Promise<void> {
  await sql.query('UPDATE operator_keys SET revoked_at = now() WHERE id = $1', [id]);
}

/** The active key with this digest, if any. */
export async function findActiveByHash(sql: Sql, keyHash: string): Promise<string | undefined> {
  const [row] = await sql.query<{ id: string }>('SELECT id FROM operator_keys WHERE key_hash = $1 AND revoked_at IS NULL', [keyHash]);
  return row?.id;
}

/** Active keys still stored as scrypt (earlier releases), oldest first, at most `limit`. */
export async function activeLegacyKeys(sql: Sql, limit: number): Promise<{ id: string; key_hash: string }[]> {
  return sql.query<{ id: string; key_hash: string }>(
    "SELECT id, key_hash FROM operator_keys WHERE revoked_at IS NULL AND key_hash LIKE 'scrypt$%' ORDER BY created_at LIMIT $1",
    [limit],
  );
}
