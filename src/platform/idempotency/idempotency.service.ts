import type { AppContext } from '../context.js';
import type { Tx } from '../db/db.js';
import { advisoryKey } from '../db/db.js';
import type { CryptoBox } from '../lib/crypto-box.js';
import * as repo from './idempotency.repository.js';
import type { KeyId, StoredKeyRow } from './idempotency.repository.js';

/**
 * The stored Idempotency-Keys and their answers (the table behind http/idempotency, which decides
 * what a key means for a request; this module only keeps them).
 */

export type { KeyScope } from './idempotency.repository.js';

/** An answer as stored, its body decrypted. */
export type StoredAnswerRow = Omit<StoredKeyRow, 'scope' | 'owner_id' | 'key'>;

/** One name per key and its owner (two requests with the same name are the same key). */
export const keyName = (r: KeyId): string => `${r.scope}:${r.ownerId}:${r.key}`;

/**
 * Takes the keys (each with a transaction-scoped advisory lock) and reads what was stored for them:
 * per key, 'processing' (another transaction holds it), the stored answer, or 'new'.
 */
export async function claimStoredKeys(tx: Tx, box: CryptoBox, keys: readonly KeyId[]): Promise<(StoredAnswerRow | 'processing' | 'new')[]> {
  if (keys.length === 0) return [];
  const locked = await repo.tryLockKeys(tx, keys.map((k) => advisoryKey(`idempotency:${keyName(k)}`)));
  const stored = await repo.findStored(tx, keys);
  const byKey = new Map(stored.map((s) => [keyName({ scope: s.scope, ownerId: s.owner_id, key: s.key }), { ...s, response_body: box.decrypt(s.response_body) }]));
  return keys.map((k, i) => (locked[i] ? byKey.get(keyName(k)) ?? 'new' : 'processing'));
}

/** Stores answers of keys (encrypted), kept for `ttlMs`. */
export async function storeKeyAnswers(
  tx: Tx,
  box: CryptoBox,
  entries: readonly (KeyId & { fingerprint: string; statusCode: number; contentType: string; text: string })[],
  ttlMs: number,
): Promise<void> {
  if (entries.length === 0) return;
  await repo.upsertStored(tx, entries.map(({ text, ...e }) => ({ ...e, responseBodyEncrypted: box.encrypt(text) })), ttlMs);
}

/** Deletes keys past their expiry; run by the `idempotency.cleanup` job. Bounded per run. */
export async function deleteExpiredIdempotencyKeys(ctx: AppContext, batchMax = 10_000): Promise<number> {
  return repo.deleteExpired(ctx.db, batchMax);
}
