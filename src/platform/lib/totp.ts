import { createHmac, randomBytes } from 'node:crypto';
import { base32nopad } from '@scure/base';

/** RFC 6238 time-based one-time passwords: SHA-1, 6 digits, 30-second steps (what authenticator apps expect). */
export const TOTP_STEP_SEC = 30;
const DIGITS = 6;
/** Codes one step early or late are accepted too (clock drift between the phone and the server). */
const DRIFT_STEPS = 1;

export function newTotpSecret(): string {
  return base32nopad.encode(randomBytes(20));
}

export function totpStep(nowMs: number): number {
  return Math.floor(nowMs / 1000 / TOTP_STEP_SEC);
}

/** The code of one time step (RFC 4226 dynamic truncation). */
export function totpCode(secret: string, step: number): string {
  const counter = Buffer.alloc(8);
  counter.writeBigUInt64BE(BigInt(step));
  const mac = createHmac('sha1', Buffer.from(base32nopad.decode(secret))).update(counter).digest();
  const offset = (mac[mac.length - 1] as number) & 0x0f;
  const value = (mac.readUInt32BE(offset) & 0x7fffffff) % 10 ** DIGITS;
  return String(value).padStart(DIGITS, '0');
}

/**
 * The step a presented code belongs to, within the allowed drift and after `lastUsedStep` (a code is
 * good once: a replayed one is refused), or undefined.
 */
export function matchTotp(secret: string, code: string, nowMs: number, lastUsedStep: number | null): number | undefined {
  if (!/^\d{6}$/.test(code)) return undefined;
  const now = totpStep(nowMs);
  let matched: number | undefined;
  // Every candidate is computed, so the time taken does not say which one matched.
  for (let step = now - DRIFT_STEPS; step <= now + DRIFT_STEPS; step++) {
    if (totpCode(secret, step) === code && (lastUsedStep === null || step > lastUsedStep)) matched ??= step;
  }
  return matched;
}

/** The otpauth:// URI an authenticator app reads (shown as text: the secret never goes in a page's URL). */
export function totpUri(secret: string, issuer: string, account: string): string {
  const label = encodeURIComponent(`${issuer}:${account}`);
  return `otpauth://totp/${label}?secret=${secret}&issuer=${encodeURIComponent(issuer)}&algorithm=SHA1&digits=${DIGITS}&period=${TOTP_STEP_SEC}`;
}
