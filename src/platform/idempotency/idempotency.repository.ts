import type { Sql, Tx } from '../db/db.js';

/** All SQL of the idempotency_keys table. Stored answers cross this boundary encrypted. */

/** Who a key belongs to: a workspace (the API), or an operator principal (an operator key, or an operator user in the console). */
export type KeyScope = 'workspace' | 'operator';

export interface KeyId {
  scope: KeyScope;
  ownerId: string;
  key: string;
}

export interface StoredKeyRow {
  scope: KeyScope;
  owner_id: string;
  key: string;
  fingerprint: string;
  status_code: number;
  response_body: string;
  content_type: string;
}

/** Tries a transaction-scoped advisory lock on each key (in order); answers which were taken. */
export async function tryLockKeys(tx: Tx, lockKeys: readonly string[]): Promise<boolean[]> {
  const rows = await tx.query<{ locked: boolean }>(
    'SELECT pg_try_advisory_xact_lock(k) AS locked FROM unnest($1::bigint[]) WITH ORDINALITY AS u(k, ord) ORDER BY ord',
    [lockKeys],
  );
  return rows.map((r) => r.locked);
}

/** The stored, unexpired answers of these keys (those that have one). */
export async function findStored(sql: Sql, keys: readonly KeyId[]): Promise<StoredKeyRow[]> {
  return sql.query<StoredKeyRow>(
    `SELECT i.scope, i.owner_id, i.key, i.fingerprint, i.status_code, i.response_body, i.content_type
       FROM idempotency_keys i JOIN unnest($1::text[], $2::uuid[], $3::text[]) AS r(scope, owner_id, key) ON i.scope = r.scope AND i.owner_id = r.owner_id AND i.key = r.key
      WHERE i.expires_at > now()`,
    [keys.map((r) => r.scope), keys.map((r) => r.ownerId), keys.map((r) => r.key)],
  );
}

export interface NewStoredKey extends KeyId {
  fingerprint: string;
  statusCode: number;
  responseBodyEncrypted: string;
  contentType: string;
}

/** Stores (or replaces) the answers of keys, each kept for `ttlMs` from now. */
export async function upsertStored(sql: Sql, rows: readonly NewStoredKey[], ttlMs: number): Promise<void> {
  await sql.query(
    `INSERT INTO idempotency_keys (scope, owner_id, key, fingerprint, status_code, response_body, content_type, expires_at)
     SELECT sc, o, k, f, s, b, c, clock_timestamp() + make_interval(secs => $8::double precision / 1000)
       FROM unnest($1::text[], $2::uuid[], $3::text[], $4::text[], $5::int[], $6::text[], $7::text[]) AS e(sc, o, k, f, s, b, c)
     ON CONFLICT (scope, owner_id, key) DO UPDATE
       SET fingerprint = EXCLUDED.fingerprint, status_code = EXCLUDED.status_code, response_body = EXCLUDED.response_body,
           content_type = EXCLUDED.content_type, created_at = now(), expires_at = EXCLUDED.expires_at`,
    [
      rows.map((r) => r.scope),
      rows.map((r) => r.ownerId),
      rows.map((r) => r.key),
      rows.map((r) => r.fingerprint),
      rows.map((r) => r.statusCode),
      rows.map((r) => r.responseBodyEncrypted),
      rows.map((r) => r.contentType),
      ttlMs,
    ],
  );
}

/** Deletes at most `limit` keys past their expiry; answers how many. */
export async function deleteExpired(sql: Sql, limit: number): Promise<number> {
  const rows = await sql.query(
    `DELETE FROM idempotency_keys WHERE (scope, owner_id, key) IN (
       SELECT scope, owner_id, key FROM idempotency_keys WHERE expires_at <= now() LIMIT $1) RETURNING 1`,
    [limit],
  );
  return rows.length;
}
