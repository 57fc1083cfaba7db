import { createHmac, createPrivateKey, generateKeyPairSync, sign, type KeyObject } from 'node:crypto';

export const SIGNATURE_HEADER = 'x-service-signature';
export const TIMESTAMP_HEADER = 'x-service-timestamp';

/** The Standard Webhooks headers (https://www.standardwebhooks.com), sent beside the spec's. */
export const STANDARD_ID_HEADER = 'webhook-id';
export const STANDARD_TIMESTAMP_HEADER = 'webhook-timestamp';
export const STANDARD_SIGNATURE_HEADER = 'webhook-signature';

/** The prefix of an endpoint's Ed25519 public key as shown to receivers (Standard Webhooks' `whpk_`). */
export const PUBLIC_KEY_PREFIX = 'whpk_';

/**
 * hex(HMAC-SHA256(key = the whole secret string, `whsec_` included, as UTF-8 bytes,
 * message = `<timestamp>.<raw body>`)), as the spec's §Events Signature and DESIGN's pinned details say.
 */
export function signPayload(secret: string, timestampSec: number, rawBody: string | Buffer): string {
  return createHmac('sha256', Buffer.from(secret, 'utf8')).update(`${timestampSec}.`).update(rawBody).digest('hex');
}

/** What signs a delivery: the endpoint's secret, the rotated-out one while its grace lasts, and its Ed25519 key when it opted in. */
export interface Signing {
  secret: string;
  previousSecret?: string | undefined;
  ed25519Key?: KeyObject | undefined;
}

/**
 * Standard Webhooks' symmetric key of a `whsec_` secret: the base64 after the prefix, decoded (the
 * secrets Corridor makes are standard base64, which every Standard Webhooks library decodes).
 */
const standardKey = (secret: string): Buffer => Buffer.from(secret.replace(/^whsec_/, ''), 'base64');

/**
 * The headers that sign one attempt: the spec's `X-Service-Signature` over `<timestamp>.<body>` with
 * the current secret, and Standard Webhooks' `webhook-id` (the event id, the same on every attempt),
 * `webhook-timestamp` and `webhook-signature` over `<id>.<timestamp>.<body>`: `v1,<base64 HMAC>` per
 * secret (the current one, then the previous one during a rotation's grace) and `v1a,<base64 Ed25519>`
 * when the endpoint has a key, space-separated.
 */
export function signedHeaders(signing: Signing, messageId: string, timestampSec: number, rawBody: string): Record<string, string> {
  const content = `${messageId}.${timestampSec}.${rawBody}`;
  const secrets = [signing.secret, ...(signing.previousSecret ? [signing.previousSecret] : [])];
  const signatures = secrets.map((s) => `v1,${createHmac('sha256', standardKey(s)).update(content).digest('base64')}`);
  if (signing.ed25519Key) signatures.push(`v1a,${sign(null, Buffer.from(content, 'utf8'), signing.ed25519Key).toString('base64')}`);
  return {
    [SIGNATURE_HEADER]: signPayload(signing.secret, timestampSec, rawBody),
    [TIMESTAMP_HEADER]: String(timestampSec),
    [STANDARD_ID_HEADER]: messageId,
    [STANDARD_TIMESTAMP_HEADER]: String(timestampSec),
    [STANDARD_SIGNATURE_HEADER]: signatures.join(' '),
  };
}

/** A new Ed25519 key pair: the private key as PKCS#8 DER in base64 (to seal), the public key as receivers take it (`whpk_` + base64 of its 32 bytes). */
export function newSigningKey(): { privateKey: string; publicKey: string } {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const raw = publicKey.export({ format: 'der', type: 'spki' }).subarray(-32);
  return { privateKey: privateKey.export({ format: 'der', type: 'pkcs8' }).toString('base64'), publicKey: `${PUBLIC_KEY_PREFIX}${raw.toString('base64')}` };
}

/** The private key newSigningKey made, ready to sign. */
export const signingKeyOf = (privateKey: string): KeyObject => createPrivateKey({ key: Buffer.from(privateKey, 'base64'), format: 'der', type: 'pkcs8' });
