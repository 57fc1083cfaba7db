import { createHmac } from 'node:crypto';

export const SIGNATURE_HEADER = 'x-service-signature';
export const TIMESTAMP_HEADER = 'x-service-timestamp';

/**
 * hex(HMAC-SHA256(key = the whole secret string, `whsec_` included, as UTF-8 bytes,
 * message = `<timestamp>.<raw body>`)), as the spec's §Events Signature and DESIGN's pinned details say.
 */
export function signPayload(secret: string, timestampSec: number, rawBody: string | Buffer): string {
  return createHmac('sha256', Buffer.from(secret, 'utf8')).update(`${timestampSec}.`).update(rawBody).digest('hex');
}
