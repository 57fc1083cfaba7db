import { createHash } from 'node:crypto';

/**
 * The GSMA Mobile Money API v1.2 as Corridor calls it (the definition in
 * ../shared/real-world/mobile-money/gsma-mmapi-v1.2.0.yml): a disbursement created with
 * `POST /transactions/type/disbursement` (a collection's request to pay with `merchantpay`), its outcome asked with `GET /responses/{clientCorrelationId}`
 * (then the transaction it links to) and `GET /requeststates/{serverCorrelationId}`, and an account
 * holder's name with `GET /accounts/{identifierType}/{identifier}/accountname`. Every request carries
 * X-Date, X-API-Key (the operator's key, opened only here), X-Client-Id when configured, and, with a
 * body, X-Content-Hash (the SHA-256 hex digest of the body). Nothing here logs a header.
 */

export interface GsmaError {
  errorCategory: string;
  errorCode: string;
  errordescription?: string;
}

export interface RequestState {
  serverCorrelationId: string;
  objectReference?: string;
  status: 'pending' | 'completed' | 'failed';
  notificationMethod: 'callback' | 'polling';
  error?: GsmaError;
}

export interface GsmaTransaction {
  transactionReference: string;
  transactionStatus: string;
  amount: string;
  currency: string;
  type: string;
}

export type GsmaAnswer<T> = { ok: true; status: number; body: T } | { ok: false; status: number; error: GsmaError | undefined; text: string };

export interface GsmaCredentials {
  baseUrl: string;
  apiKey: () => string;
  clientId: string | undefined;
  timeoutMs: number;
}

export const contentHash = (body: string): string => createHash('sha256').update(body, 'utf8').digest('hex');

function isGsmaError(value: unknown): value is GsmaError {
  return typeof value === 'object' && value !== null && typeof (value as GsmaError).errorCode === 'string' && typeof (value as GsmaError).errorCategory === 'string';
}

export class GsmaClient {
  constructor(private readonly creds: GsmaCredentials) {}

  private async call<T>(method: 'GET' | 'POST', path: string, extra: Record<string, string> = {}, body?: string): Promise<GsmaAnswer<T>> {
    const headers: Record<string, string> = { accept: 'application/json', 'X-Date': new Date().toISOString(), 'X-API-Key': this.creds.apiKey(), ...extra };
    if (this.creds.clientId) headers['X-Client-Id'] = this.creds.clientId;
    if (body !== undefined) {
      headers['content-type'] = 'application/json';
      headers['X-Content-Hash'] = contentHash(body);
    }
    let res: Response;
    try {
      res = await fetch(`${this.creds.baseUrl}${path}`, { method, headers, ...(body !== undefined ? { body } : {}), signal: AbortSignal.timeout(this.creds.timeoutMs) });
    } catch (err) {
      throw new Error(`mobile money: ${method} ${path}: the provider could not be reached: ${(err as Error).message}`);
    }
    const text = await res.text();
    let parsed: unknown;
    try {
      parsed = text === '' ? undefined : JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    if (res.ok) return { ok: true, status: res.status, body: parsed as T };
    return { ok: false, status: res.status, error: isGsmaError(parsed) ? parsed : undefined, text: text.slice(0, 500) };
  }

  /** Creates a transaction of a type (a payout's `disbursement`, a collection's `merchantpay`): `body` exactly as recorded, with its correlation id and callback URL. */
  create(type: 'disbursement' | 'merchantpay', body: string, correlationId: string, callbackUrl: string): Promise<GsmaAnswer<RequestState | GsmaTransaction>> {
    return this.call('POST', `/transactions/type/${type}`, { 'X-CorrelationID': correlationId, 'X-Callback-URL': callbackUrl }, body);
  }

  /** The response to a request by its client correlation id: a link to the object it made. */
  response(correlationId: string): Promise<GsmaAnswer<{ link: string }>> {
    return this.call('GET', `/responses/${encodeURIComponent(correlationId)}`);
  }

  requestState(serverCorrelationId: string): Promise<GsmaAnswer<RequestState>> {
    return this.call('GET', `/requeststates/${encodeURIComponent(serverCorrelationId)}`);
  }

  /** A transaction by its reference (or the link a response gave, relative to the API's base). */
  transaction(linkOrReference: string): Promise<GsmaAnswer<GsmaTransaction>> {
    const path = linkOrReference.startsWith('/') ? linkOrReference : `/transactions/${encodeURIComponent(linkOrReference)}`;
    return this.call('GET', path);
  }

  accountName(identifierType: string, identifier: string): Promise<GsmaAnswer<{ name?: { fullName?: string; firstName?: string; middleName?: string; lastName?: string } }>> {
    return this.call('GET', `/accounts/${encodeURIComponent(identifierType)}/${encodeURIComponent(identifier)}/accountname`);
  }
}
