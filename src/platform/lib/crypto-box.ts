import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { poolRandomBytes } from './random.js';

/** Encrypts secrets and personal data at rest (signing keys, webhook secrets, KYB data and files) with AES-256-GCM. */
export class CryptoBox {
  /** The HMAC key of stored client-secret and operator-key digests (src/platform/lib/secrets.ts), derived from the same key. */
  readonly secretDigestKey: Buffer;

  private constructor(private readonly key: Buffer) {
    this.secretDigestKey = Buffer.from(hkdfSync('sha256', key, Buffer.alloc(0), 'corridor secret digest v1', 32));
  }

  /** Names the key without revealing it (12 hex digits of an HMAC under it): two places using the same key show the same id. */
  get keyId(): string {
    return createHmac('sha256', this.key).update('corridor key id').digest('hex').slice(0, 12);
  }

  static fromKey(key: Buffer): CryptoBox {
    if (key.length !== 32) throw new Error('the encryption key must be 32 bytes');
    return new CryptoBox(key);
  }

  /**
   * The key from CORRIDOR_ENCRYPTION_KEY (base64 of 32 bytes) or, when unset, from
   * `<dataDir>/encryption.key`, generated there on first start with mode 0600.
   */
  static load(configured: string | undefined, dataDir: string): CryptoBox {
    if (configured) return CryptoBox.fromKey(Buffer.from(configured, 'base64'));
    const file = path.join(dataDir, 'encryption.key');
    fs.mkdirSync(dataDir, { recursive: true });
    try {
      fs.writeFileSync(file, randomBytes(32).toString('base64'), { flag: 'wx', mode: 0o600 });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    return CryptoBox.fromKey(Buffer.from(fs.readFileSync(file, 'utf8').trim(), 'base64'));
  }

  encrypt(plaintext: string): string {
    const iv = poolRandomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return ['v1', iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), body.toString('base64url')].join('.');
  }

  /** A value sealed as JSON text (personal data in a text column). */
  sealJson(value: unknown): string {
    return this.encrypt(JSON.stringify(value));
  }

  openJson<T>(sealed: string): T {
    return JSON.parse(this.decrypt(sealed)) as T;
  }

  /** Bytes sealed as `iv (12) | tag (16) | ciphertext` (uploaded files at rest). */
  encryptBytes(plain: Buffer): Buffer {
    const iv = poolRandomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const body = Buffer.concat([cipher.update(plain), cipher.final()]);
    return Buffer.concat([iv, cipher.getAuthTag(), body]);
  }

  decryptBytes(sealed: Buffer): Buffer {
    if (sealed.length < 28) throw new Error('unrecognised sealed bytes');
    const decipher = createDecipheriv('aes-256-gcm', this.key, sealed.subarray(0, 12));
    decipher.setAuthTag(sealed.subarray(12, 28));
    return Buffer.concat([decipher.update(sealed.subarray(28)), decipher.final()]);
  }

  /** HMAC-SHA256 under a key derived from the box's key for one purpose (e.g. signed upload URLs). */
  hmac(purpose: string, message: string): Buffer {
    const key = Buffer.from(hkdfSync('sha256', this.key, Buffer.alloc(0), `corridor:${purpose}`, 32));
    return createHmac('sha256', key).update(message).digest();
  }

  decrypt(sealed: string): string {
    const [version, iv, tag, body] = sealed.split('.');
    if (version !== 'v1' || !iv || !tag || body === undefined) throw new Error('unrecognised sealed value');
    const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(iv, 'base64url'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
  }
}
