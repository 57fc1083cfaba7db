import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Verifies a Corridor webhook delivery: what a receiver runs before trusting a request. Standalone
 * (node:crypto only), so it can ship in an SDK as it is.
 *
 * - `rawBody`: the request body exactly as received (bytes or string), before any JSON parsing.
 * - `headers`: Node's `req.headers`, a plain object of any case, or a Fetch `Headers`.
 * - `secret`: the endpoint's `whsec_...` signing secret.
 * - `toleranceSec`: the largest accepted distance between `X-Service-Timestamp` and this clock.
 *
 * True when `X-Service-Signature` is hex(HMAC-SHA256(secret, `<timestamp>.<rawBody>`)), compared in
 * constant time, and the timestamp is within the window. Deduplicate accepted events by their `id`.
 */
export function verifyWebhook(
  rawBody: string | Uint8Array,
  headers: Record<string, string | string[] | undefined> | { get(name: string): string | null },
  secret: string,
  toleranceSec = 300,
): boolean {
  const signature = headerValue(headers, 'x-service-signature');
  const timestamp = headerValue(headers, 'x-service-timestamp');
  if (!signature || !timestamp || !/^[0-9a-f]{64}$/i.test(signature) || !/^\d{1,12}$/.test(timestamp)) return false;
  if (Math.abs(Math.floor(Date.now() / 1000) - Number(timestamp)) > toleranceSec) return false;
  const expected = createHmac('sha256', Buffer.from(secret, 'utf8')).update(`${timestamp}.`).update(rawBody).digest();
  return timingSafeEqual(expected, Buffer.from(signature, 'hex'));
}

function headerValue(headers: Parameters<typeof verifyWebhook>[1], name: string): string | undefined {
  if (typeof headers.get === 'function') return (headers as { get(name: string): string | null }).get(name) ?? undefined;
  const record = headers as Record<string, string | string[] | undefined>;
  const key = Object.keys(record).find((k) => k.toLowerCase() === name);
  const value = key === undefined ? undefined : record[key];
  return Array.isArray(value) ? value[0] : value;
}
