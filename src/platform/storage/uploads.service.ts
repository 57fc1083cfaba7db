import { randomBytes } from 'node:crypto';
import { fileTypeFromBuffer } from 'file-type';
import type { Config } from '../config.js';
import type { Db, Sql, Tx } from '../db/db.js';
import { DomainError, conflict, fieldError, type ErrorCategory } from '../lib/errors.js';
import * as repo from './uploads.repository.js';
import type { UploadRow } from './uploads.repository.js';
import type { Storage } from './storage.js';

export type { UploadRow } from './uploads.repository.js';

/** What may be uploaded: PDF, JPEG or PNG, recognised from the bytes themselves. */
export const UPLOAD_CONTENT_TYPES = ['application/pdf', 'image/jpeg', 'image/png'] as const;
export type UploadContentType = (typeof UPLOAD_CONTENT_TYPES)[number];

export interface IssuedUpload {
  key: string;
  uploadUrl: string;
  expiresAt: string;
}

const refusal = (category: ErrorCategory, code: string, message: string) => new DomainError({ category, code, message });
const sizeMismatch = (length: number, upload: Pick<UploadRow, 'content_length'>) =>
  refusal('invalid_request', 'UPLOAD_SIZE_MISMATCH', `The upload is ${length} bytes; the URL was issued for ${upload.content_length} bytes (contentLength)`);

/**
 * Opens an upload slot for one file of `contentLength` bytes and answers its signed, single-use URL
 * (valid `uploadUrlTtlMs`). The file is stored only by a PUT to that URL that passes every check.
 */
export async function issueUpload(
  tx: Tx,
  storage: Storage,
  config: Config,
  input: { workspaceId: string; purpose: string; ownerId: string; contentType: UploadContentType; contentLength: number },
): Promise<IssuedUpload> {
  if (input.contentLength > config.limits.uploadBytesMax) {
    throw fieldError('contentLength', `contentLength must be at most ${config.limits.uploadBytesMax} bytes`, 'UPLOAD_TOO_LARGE');
  }
  const key = `upl_${randomBytes(18).toString('base64url')}`;
  const row = await repo.insertUpload(tx, {
    key,
    workspaceId: input.workspaceId,
    purpose: input.purpose,
    ownerId: input.ownerId,
    storageKey: `${input.purpose}/${input.workspaceId}/${key}`,
    contentType: input.contentType,
    contentLength: input.contentLength,
    ttlMs: config.uploadUrlTtlMs,
  });
  const expiresAtMs = row.expires_at.getTime();
  return { key, uploadUrl: storage.signedUploadUrl(key, expiresAtMs), expiresAt: row.expires_at.toISOString() };
}

/** The content refusals of an upload's bytes against what was declared, or undefined when they fit. */
export async function contentRefusal(upload: Pick<UploadRow, 'content_type' | 'content_length'>, bytes: Buffer): Promise<DomainError | undefined> {
  if (bytes.length !== Number(upload.content_length)) return sizeMismatch(bytes.length, upload);
  const sniffed = (await fileTypeFromBuffer(bytes))?.mime;
  if (!sniffed || !(UPLOAD_CONTENT_TYPES as readonly string[]).includes(sniffed)) {
    return refusal('unsupported_type', 'UPLOAD_TYPE_NOT_ALLOWED', `The file is ${sniffed ?? 'of an unrecognised type'}; only PDF, JPEG or PNG files are accepted`);
  }
  if (sniffed !== upload.content_type) {
    return refusal('unsupported_type', 'UPLOAD_TYPE_MISMATCH', `The file is ${sniffed}; the URL was issued for ${upload.content_type} (contentType)`);
  }
  return undefined;
}

export interface UploadUrl {
  key: string;
  expiresAtMs: number;
  signature: string;
}

/**
 * The checks of a PUT that need no body: the signature, the expiry, the slot (issued and unused) and,
 * when the client declared it, the Content-Length against the slot's size. Run before the body is read,
 * so a made-up or spent URL costs no more than its headers. Answers the slot.
 */
export async function admitUpload(db: Db, storage: Storage, config: Config, url: UploadUrl & { declaredLength?: number; nowMs?: number }): Promise<UploadRow> {
  if (!storage.verifyUploadSignature(url.key, url.expiresAtMs, url.signature)) {
    throw refusal('permission', 'UPLOAD_URL_INVALID', 'The upload URL is not one this service issued (signature mismatch)');
  }
  if ((url.nowMs ?? Date.now()) >= url.expiresAtMs) {
    throw refusal('permission', 'UPLOAD_URL_EXPIRED', `The upload URL has expired (URLs are valid ${Math.round(config.uploadUrlTtlMs / 1000)} s); request a new one`);
  }
  const upload = await repo.findUpload(db, url.key);
  if (!upload) throw refusal('permission', 'UPLOAD_URL_INVALID', 'The upload URL is not one this service issued');
  if (upload.uploaded_at) throw conflict('UPLOAD_URL_USED', 'The upload URL was already used; request a new one to upload another file');
  if (url.declaredLength !== undefined && url.declaredLength !== Number(upload.content_length)) {
    throw sizeMismatch(url.declaredLength, upload);
  }
  return upload;
}

/**
 * PUT to a signed upload URL: the checks of `admitUpload`, then the size and the type sniffed from
 * the bytes, all before anything is written; the slot is claimed (compare-and-set) and the bytes
 * stored in one transaction, so a refused or failed upload stores nothing.
 */
export async function receiveUpload(
  db: Db,
  storage: Storage,
  config: Config,
  input: UploadUrl & { bytes: Buffer; nowMs?: number },
): Promise<{ key: string; contentType: string; contentLength: number }> {
  const upload = await admitUpload(db, storage, config, input);
  const refused = await contentRefusal(upload, input.bytes);
  if (refused) throw refused;
  return db.tx(async (tx) => {
    const claimed = await repo.claimUpload(tx, input.key);
    if (!claimed) throw conflict('UPLOAD_URL_USED', 'The upload URL was already used or has expired; request a new one');
    await storage.put(claimed.storage_key, input.bytes, claimed.content_type);
    return { key: claimed.key, contentType: claimed.content_type, contentLength: Number(claimed.content_length) };
  });
}

/** An upload slot of the workspace, by its key (the `documentKey` of a KYB document). */
export async function findUpload(sql: Sql, workspaceId: string, key: string): Promise<UploadRow | undefined> {
  const row = await repo.findUpload(sql, key);
  return row && row.workspace_id === workspaceId ? row : undefined;
}

/** The `uploads.cleanup` job: forgets upload slots that expired unfilled. */
export async function deleteExpiredUploads(sql: Sql, batchMax = 10_000): Promise<number> {
  return repo.deleteExpiredUnfilled(sql, batchMax);
}
