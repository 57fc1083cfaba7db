/** Headers as Node gives them (`req.headers`), as a plain object of any case, or a Fetch `Headers`. */
export type WebhookHeaders = Record<string, string | string[] | undefined> | { get(name: string): string | null };

function headerValue(headers: WebhookHeaders, name: string): string | undefined {
  if (typeof headers.get === 'function') return (headers as { get(name: string): string | null }).get(name) ?? undefined;
  const record = headers as Record<string, string | string[] | undefined>;
  const key = Object.keys(record).find((k) => k.toLowerCase() === name);
  const value = key === undefined ? undefined : record[key];
  return Array.isArray(value) ? value[0] : value;
}

const encoder = new TextEncoder();

/** Equal in time that depends only on the length (both are 32-byte HMACs here). */
function constantTimeEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= (a[i] as number) ^ (b[i] as number);
  return diff === 0;
}

function hexBytes(hex: string): Uint8Array {
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  return out;
}

/** hex(HMAC-SHA256(key = the whole `whsec_…` secret, message = `<timestamp>.<raw body>`)), as Corridor signs deliveries. */
export async function signWebhook(secret: string, timestampS: number | string, rawBody: string | Uint8Array): Promise<string> {
  const key = await globalThis.crypto.subtle.importKey('raw', encoder.encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  const body = typeof rawBody === 'string' ? encoder.encode(rawBody) : rawBody;
  const message = new Uint8Array(encoder.encode(`${timestampS}.`).length + body.length);
  message.set(encoder.encode(`${timestampS}.`));
  message.set(body, message.length - body.length);
  const mac = new Uint8Array(await globalThis.crypto.subtle.sign('HMAC', key, message));
  return Array.from(mac, (b) => b.toString(16).padStart(2, '0')).join('');
}

function base64Bytes(text: string): Uint8Array<ArrayBuffer> {
  const binary = atob(text);
  return Uint8Array.from(binary, (c) => c.charCodeAt(0));
}

/** Standard Webhooks' `v1`: base64(HMAC-SHA256(key = the base64 after `whsec_`, decoded; message = `<id>.<timestamp>.<raw body>`)). */
async function standardSignature(secret: string, id: string, timestamp: string, body: Uint8Array): Promise<Uint8Array> {
  const key = await globalThis.crypto.subtle.importKey('raw', base64Bytes(secret.replace(/^whsec_/, '')), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  const prefix = encoder.encode(`${id}.${timestamp}.`);
  const message = new Uint8Array(prefix.length + body.length);
  message.set(prefix);
  message.set(body, prefix.length);
  return new Uint8Array(await globalThis.crypto.subtle.sign('HMAC', key, message));
}

/**
 * Verifies a Corridor webhook delivery before trusting it (Web Crypto: Node 20+ and browsers).
 * True when the timestamp is within `toleranceS` of this clock and, under `secret`, either
 * `X-Service-Signature` is the HMAC of `<X-Service-Timestamp>.<rawBody>` (the spec's signature) or
 * one `v1` signature of the Standard Webhooks `webhook-signature` header is (during a secret
 * rotation's grace, deliveries carry one per secret there, so the previous secret still verifies);
 * compared in constant time. `rawBody` is the body exactly as received, before any JSON parsing.
 * Deduplicate by event `id`.
 */
export async function verifyWebhook(rawBody: string | Uint8Array, headers: WebhookHeaders, secret: string, toleranceS = 300): Promise<boolean> {
  const body = typeof rawBody === 'string' ? encoder.encode(rawBody) : rawBody;
  const fresh = (timestamp: string | undefined): timestamp is string =>
    timestamp !== undefined && /^\d{1,12}$/.test(timestamp) && Math.abs(Math.floor(Date.now() / 1000) - Number(timestamp)) <= toleranceS;
  const signature = headerValue(headers, 'x-service-signature');
  const timestamp = headerValue(headers, 'x-service-timestamp');
  if (signature && /^[0-9a-f]{64}$/i.test(signature) && fresh(timestamp)) {
    if (constantTimeEqual(hexBytes(await signWebhook(secret, timestamp, body)), hexBytes(signature.toLowerCase()))) return true;
  }
  const id = headerValue(headers, 'webhook-id');
  const standardTimestamp = headerValue(headers, 'webhook-timestamp');
  const standard = headerValue(headers, 'webhook-signature');
  if (!id || !standard || !fresh(standardTimestamp)) return false;
  let expected: Uint8Array;
  try {
    expected = await standardSignature(secret, id, standardTimestamp, body);
  } catch {
    return false; // a secret that is not base64 after its prefix signs no v1
  }
  for (const entry of standard.split(' ')) {
    const [version, value] = entry.split(',');
    if (version !== 'v1' || !value || !/^[A-Za-z0-9+/]+={0,2}$/.test(value)) continue;
    if (constantTimeEqual(expected, base64Bytes(value))) return true;
  }
  return false;
}

/** A delivery whose signature or timestamp does not verify: not from Corridor, altered, or replayed late. */
export class WebhookVerificationError extends Error {
  constructor() {
    super('The webhook signature or timestamp does not verify');
    this.name = 'WebhookVerificationError';
  }
}

/**
 * Verifies a delivery (as verifyWebhook) and returns its parsed event: the Corridor client's
 * `webhooks.constructEvent` gives it as the typed event union. Throws WebhookVerificationError.
 */
export async function constructEvent<E = unknown>(rawBody: string | Uint8Array, headers: WebhookHeaders, secret: string, toleranceS = 300): Promise<E> {
  if (!(await verifyWebhook(rawBody, headers, secret, toleranceS))) throw new WebhookVerificationError();
  return JSON.parse(typeof rawBody === 'string' ? rawBody : new TextDecoder().decode(rawBody)) as E;
}
