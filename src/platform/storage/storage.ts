import { timingSafeEqual } from 'node:crypto';
import type { Config } from '../config.js';
import type { CryptoBox } from '../lib/crypto-box.js';
import type { BlobStore } from './blob-store.js';
import { LocalFileStore } from './local-file-store.js';
import { S3Store } from './s3-store.js';

export type { BlobStore } from './blob-store.js';

/**
 * The one storage interface of Corridor (KYB documents now, proofs of payment next): `put`, `get`,
 * and `signedUploadUrl`. Upload URLs are always Corridor's own (PUT /v2/uploads/{key}), HMAC-signed
 * and short-lived, so the same checks (type sniffed from the bytes, size, single use) hold whichever
 * store keeps the bytes.
 */
export interface Storage extends BlobStore {
  readonly kind: 'local' | 's3';
  signedUploadUrl(uploadKey: string, expiresAtMs: number): string;
  /** True when `signature` is this service's signature of the key and expiry. */
  verifyUploadSignature(uploadKey: string, expiresAtMs: number, signature: string): boolean;
}

const PURPOSE = 'upload-url';

export function createStorage(config: Config, box: CryptoBox): Storage {
  const store: BlobStore & { kind: 'local' | 's3' } = config.s3 ? new S3Store(config.s3) : new LocalFileStore(config.uploadDir, box);
  const sign = (uploadKey: string, expiresAtMs: number) => box.hmac(PURPOSE, `${uploadKey}.${expiresAtMs}`);
  return {
    kind: store.kind,
    put: (key, bytes, contentType) => store.put(key, bytes, contentType),
    get: (key) => store.get(key),
    signedUploadUrl(uploadKey, expiresAtMs) {
      const signature = sign(uploadKey, expiresAtMs).toString('hex');
      return `${config.publicBaseUrl}/v2/uploads/${encodeURIComponent(uploadKey)}?expires=${expiresAtMs}&signature=${signature}`;
    },
    verifyUploadSignature(uploadKey, expiresAtMs, signature) {
      const expected = sign(uploadKey, expiresAtMs);
      const given = Buffer.from(signature, 'hex');
      return given.length === expected.length && timingSafeEqual(given, expected);
    },
  };
}
