import { createHash, createHmac, randomBytes, scrypt as scryptCb, timingSafeEqual, type ScryptOptions } from 'node:crypto';

function scrypt(password: string, salt: Buffer, keylen: number, options: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scryptCb(password, salt, keylen, options, (err, key) => (err ? reject(err) : resolve(key))),
  );
}

/**
 * Client secrets and operator keys are random, 256-bit values: a memory-hard hash protects a
 * guessable password, not those, and costs the server ~50 ms per wrong guess. They are stored as an
 * HMAC-SHA256 under a server key derived from the encryption key (so a copy of the database alone
 * allows no offline guessing, even of a weak configured bootstrap secret), looked up or compared
 * in constant time for microseconds. `scrypt$...` hashes written by earlier releases still verify
 * and are replaced by the caller on their first successful use.
 */
export interface SecretDigestKey {
  readonly secretDigestKey: Buffer;
}

const DIGEST_PREFIX = 'hmac-sha256$';

/** `hmac-sha256$<base64url digest>`: the stored form of a new secret. Deterministic, so it can be looked up. */
export function hashSecret(secret: string, key: SecretDigestKey): string {
  return DIGEST_PREFIX + createHmac('sha256', key.secretDigestKey).update(secret, 'utf8').digest('base64url');
}

/** Whether a stored hash is in the current form (else it is rehashed on its next successful use). */
export function isCurrentHash(stored: string): boolean {
  return stored.startsWith(DIGEST_PREFIX);
}

/** Constant-time check of a presented secret against its stored hash, either form. */
export async function verifySecret(secret: string, stored: string, key: SecretDigestKey): Promise<boolean> {
  if (isCurrentHash(stored)) return safeEqual(hashSecret(secret, key), stored);
  return verifyLegacyScrypt(secret, stored);
}

/** A hash to verify against when the presented id does not exist, so both paths cost the same. */
export const DUMMY_SECRET_HASH = `${DIGEST_PREFIX}${'A'.repeat(43)}`;

/** `scrypt$N$r$p$salt$hash` (base64url parts), as stored by earlier releases. */
async function verifyLegacyScrypt(secret: string, stored: string): Promise<boolean> {
  const parts = stored.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return false;
  const [, n, r, p, salt, hash] = parts as [string, string, string, string, string, string];
  const expected = Buffer.from(hash, 'base64url');
  const key = await scrypt(secret, Buffer.from(salt, 'base64url'), expected.length, {
    N: Number(n),
    r: Number(r),
    p: Number(p),
    maxmem: 64 * 1024 * 1024,
  });
  return timingSafeEqual(key, expected);
}

/** The longest grace period a rotated secret (an API key's, a webhook endpoint's) keeps working for: 7 days. */
export const ROTATION_GRACE_SECONDS_MAX = 604_800;

export function randomSecret(prefix = '', bytes = 32): string {
  return prefix + randomBytes(bytes).toString('base64url');
}

export function sha256Hex(data: string | Buffer): string {
  return createHash('sha256').update(data).digest('hex');
}

/** Constant-time string equality (lengths may differ). */
export function safeEqual(a: string, b: string): boolean {
  const ha = createHash('sha256').update(a).digest();
  const hb = createHash('sha256').update(b).digest();
  return timingSafeEqual(ha, hb) && a.length === b.length;
}

/** scrypt cost of dashboard passwords (N = 2^15, r = 8, p = 1: about 32 MiB and 50–100 ms). */
const PASSWORD_SCRYPT = { N: 32768, r: 8, p: 1, maxmem: 64 * 1024 * 1024 } as const;

/** A person's password, stored memory-hard: `scrypt$N$r$p$salt$hash` (base64url parts). */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await scrypt(password.normalize('NFC'), salt, 32, PASSWORD_SCRYPT);
  const { N, r, p } = PASSWORD_SCRYPT;
  return ['scrypt', N, r, p, salt.toString('base64url'), key.toString('base64url')].join('$');
}

/** Constant-time check of a password; an account without one is checked against a dummy so both cost the same. */
export async function verifyPassword(password: string, stored: string | null | undefined): Promise<boolean> {
  const ok = await verifyLegacyScrypt(password.normalize('NFC'), stored ?? DUMMY_PASSWORD_HASH);
  return ok && stored !== null && stored !== undefined;
}

const DUMMY_PASSWORD_HASH = `scrypt$32768$8$1$${'A'.repeat(22)}$${'A'.repeat(43)}`;
