import type { JWK } from 'jose';
import type { Sql, Tx } from '../../platform/db/db.js';
import { advisoryKey } from '../../platform/db/db.js';

/** All SQL of the signing_keys table. Private halves cross this boundary only encrypted. */

export interface KeyRow {
  kid: string;
  public_jwk: JWK;
  private_jwk_encrypted: string;
}

/** Serializes key creation across processes until the transaction ends. */
export async function lockKeyCreation(tx: Tx): Promise<void> {
  await tx.query('SELECT pg_advisory_xact_lock($1::bigint)', [advisoryKey('corridor.signing-keys')]);
}

export async function hasActiveKey(sql: Sql): Promise<boolean> {
  const [existing] = await sql.query('SELECT kid FROM signing_keys WHERE retired_at IS NULL LIMIT 1');
  return existing !== undefined;
}

export async function insertKey(sql: Sql, key: { kid: string; alg: string; publicJwk: JWK; privateJwkEncrypted: string }): Promise<void> {
  await sql.query('INSERT INTO signing_keys (kid, alg, public_jwk, private_jwk_encrypted) VALUES ($1, $2, $3, $4)', [
    key.kid,
    key.alg,
    JSON.stringify(key.publicJwk),
    key.privateJwkEncrypted,
  ]);
}

/** The keys not retired, newest first (the first one signs). */
export async function activeKeys(sql: Sql): Promise<KeyRow[]> {
  return sql.query<KeyRow>('SELECT kid, public_jwk, private_jwk_encrypted FROM signing_keys WHERE retired_at IS NULL ORDER BY created_at DESC');
}
