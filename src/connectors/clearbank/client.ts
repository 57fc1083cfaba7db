import fs from 'node:fs';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ClearBankConfig } from './config.js';
import { signBody } from './signature.js';

/** What ClearBank answered: its HTTP status and JSON body (undefined when it sent none or not JSON). */
export interface BankAnswer {
  status: number;
  body: unknown;
}

/** A call that got no answer (network, timeout): it may or may not have reached the bank, so it is re-sent the same. */
export class BankUnreachable extends Error {}

/**
 * One signed POST to ClearBank: `Authorization: Bearer <token>`, `DigitalSignature` over the exact
 * body, and the caller's `X-Request-Id` (the idempotency key: ClearBank answers a repeat within 24
 * hours as the first, without acting twice).
 */
export async function postSigned(config: ClearBankConfig, base: string, path: string, body: string, requestId: string): Promise<BankAnswer> {
  let res: Response;
  try {
    res = await fetch(`${base}${path}`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${config.apiToken}`,
        'content-type': 'application/json',
        accept: 'application/json',
        digitalsignature: signBody(config.privateKey, body),
        'x-request-id': requestId,
      },
      body,
      signal: AbortSignal.timeout(config.timeoutMs),
    });
  } catch (err) {
    throw new BankUnreachable(`ClearBank ${path} did not answer: ${err instanceof Error ? err.message : String(err)}`);
  }
  const text = await res.text();
  let parsed: unknown;
  try {
    parsed = text === '' ? undefined : JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  return { status: res.status, body: parsed };
}

/** One page of a generated camt.053 statement (`GET /v1/statements/{messageId}?pageNumber=n`), streamed to `to`; 'not_found' on a 404 (not generated, or gone). */
export async function getStatementPage(config: ClearBankConfig, messageId: string, page: number, to: string): Promise<'written' | 'not_found'> {
  let res: Response;
  const path = `/v1/statements/${encodeURIComponent(messageId)}?pageNumber=${page}`;
  try {
    res = await fetch(`${config.statementsBaseUrl}${path}`, { headers: { authorization: `Bearer ${config.apiToken}`, accept: 'application/xml' }, signal: AbortSignal.timeout(config.timeoutMs) });
  } catch (err) {
    throw new BankUnreachable(`ClearBank ${path} did not answer: ${err instanceof Error ? err.message : String(err)}`);
  }
  if (res.status === 404) return 'not_found';
  if (res.status !== 200 || !res.body) throw new BankUnreachable(`ClearBank answered ${res.status} to ${path}: ${(await res.text()).slice(0, 300)}`);
  await pipeline(Readable.fromWeb(res.body as import('node:stream/web').ReadableStream), fs.createWriteStream(to));
  return 'written';
}
