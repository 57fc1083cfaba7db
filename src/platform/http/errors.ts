import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { STATUS_CODES } from 'node:http';
import { ERROR_DETAILS_MAX } from '../config.js';
import { isConnectionError } from '../db/db.js';
import { UNKNOWN_FIELD } from './closed-bodies.js';
import { DomainError, fieldError, validationError, type ErrorCategory, type FieldError } from '../lib/errors.js';

export type { FieldError } from '../lib/errors.js';

/** The `category` an error body carries (the spec's problem-details vocabulary). */
export type WireCategory = 'invalid_request' | 'authentication' | 'permission' | 'not_found' | 'conflict' | 'rate_limit' | 'provider' | 'internal';

export interface AppErrorOptions {
  status: number;
  /** Stable machine-readable code; clients branch on it. */
  code?: string | undefined;
  /** Human text. Defaults to the code, as the spec's legacy envelope does. */
  message?: string | undefined;
  details?: FieldError[] | undefined;
  retryable?: boolean | undefined;
  /** Always answer with problem details whatever the route (Idempotency-Key errors). */
  problem?: boolean | undefined;
  /** A 401 answered with only `statusCode` and `message`. */
  bare?: boolean | undefined;
  headers?: Record<string, string> | undefined;
  /** The scope the credential lacks (METHOD_NOT_ENTITLED): the body names it in `scope`. */
  scope?: string | undefined;
}

/** The status each category of refusal is answered with. */
const STATUS_BY_CATEGORY: Record<ErrorCategory, number> = {
  invalid_request: 400,
  unprocessable: 422,
  too_large: 413,
  unsupported_type: 415,
  authentication: 401,
  permission: 403,
  not_found: 404,
  conflict: 409,
  rate_limit: 429,
  unavailable: 503,
  provider: 502,
  internal: 500,
};

function categoryOfStatus(status: number): ErrorCategory {
  const found = (Object.entries(STATUS_BY_CATEGORY) as [ErrorCategory, number][]).find(([, s]) => s === status);
  if (found) return found[0];
  if (status >= 500) return status === 504 ? 'provider' : 'internal';
  return 'invalid_request';
}

const WIRE_CATEGORY: Record<ErrorCategory, WireCategory> = {
  invalid_request: 'invalid_request',
  unprocessable: 'invalid_request',
  too_large: 'invalid_request',
  unsupported_type: 'invalid_request',
  authentication: 'authentication',
  permission: 'permission',
  not_found: 'not_found',
  conflict: 'conflict',
  rate_limit: 'rate_limit',
  unavailable: 'provider',
  provider: 'provider',
  internal: 'internal',
};

/**
 * A refusal as HTTP answers it: a domain error with its status, and how it is sent. Only the HTTP
 * layer makes these; rules throw DomainError, mapped here by `toAppError`.
 */
export class AppError extends DomainError {
  readonly status: number;
  readonly problem: boolean;
  readonly bare: boolean;
  readonly headers: Record<string, string> | undefined;
  readonly scope: string | undefined;

  constructor(options: AppErrorOptions) {
    super({
      category: categoryOfStatus(options.status),
      code: options.code,
      message: options.message ?? options.code ?? STATUS_CODES[options.status] ?? 'Error',
      details: options.details,
      retryable: options.retryable,
    });
    this.name = 'AppError';
    this.status = options.status;
    this.problem = options.problem ?? false;
    this.bare = options.bare ?? false;
    this.headers = options.headers;
    this.scope = options.scope;
  }
}

/** The codes of the catalogue (GET /docs/errors): an error with one links to its entry. */
let catalogueCodes: ReadonlySet<string> = new Set();

/**
 * Set once per app: errors with a catalogued code link to their entry (`doc_url`) at
 * `${publicBaseUrl}/docs/errors#CODE` (a decoration, so every encapsulated child sees it).
 */
export function linkErrorsToCatalogue(app: FastifyInstance, publicBaseUrl: string, codes: readonly string[]): void {
  app.decorate('errorCatalogueUrl', `${publicBaseUrl.replace(/\/$/, '')}/docs/errors`);
  catalogueCodes = new Set(codes);
}

/**
 * What helps the developer act, beside the spec's fields (extension members, which RFC 9457 allows;
 * the legacy envelope takes only `doc_url` and `scope`, beside its `code`): `doc_url`, the catalogue
 * entry of the code; `param`, the first failing field of a field error; `scope`, the scope a 403
 * METHOD_NOT_ENTITLED lacks.
 */
function guidance(err: AppError, code: string | undefined, details: FieldError[] | undefined, req: FastifyRequest): Record<string, string> {
  const out: Record<string, string> = {};
  const base = (req.server as unknown as { errorCatalogueUrl?: string } | undefined)?.errorCatalogueUrl;
  if (base && code && catalogueCodes.has(code)) out.doc_url = `${base}#${encodeURIComponent(code)}`;
  const first = details?.[0]?.field;
  if (first) out.param = first;
  if (err.scope) out.scope = err.scope;
  return out;
}

/** A domain refusal as HTTP answers it: its category's status, and Retry-After when it says when to retry. */
function fromDomain(err: DomainError): AppError {
  const status = STATUS_BY_CATEGORY[err.category];
  const error = new AppError({
    status,
    code: err.code,
    message: err.message,
    details: err.details,
    retryable: err.retryable,
    problem: status >= 500,
    headers: err.retryAfterSec === undefined ? undefined : { 'retry-after': String(err.retryAfterSec) },
  });
  error.stack = err.stack;
  return error;
}

/** A thrown refusal (a rule's or the HTTP layer's) as HTTP answers it; undefined for anything else (a failure). */
export const asHttpRefusal = (err: unknown): AppError | undefined => (err instanceof DomainError ? toAppError(err) : undefined);

export const unauthorized = (message = 'Unauthorized'): AppError => new AppError({ status: 401, message, bare: true });

/** Routes that answer with RFC 9457 problem details (DESIGN §4 Error shapes). */
const PROBLEM_ROUTES =
  /^\/(v2\/|v1\/(virtual-accounts|webhooks|fx|capabilities|deposits|api-keys|events)(\/|\?|$)|fx(\/|\?|$)|operator\/)/;

export function usesProblemDetails(url: string): boolean {
  return PROBLEM_ROUTES.test(url);
}

const RETRYABLE_STATUSES = new Set([429, 500, 502, 503, 504]);

export interface RenderedError {
  status: number;
  contentType: string;
  body: Record<string, unknown>;
  headers: Record<string, string>;
}

const phrase = (status: number): string =>
  (STATUS_CODES[status] ?? 'Error').toUpperCase().replace(/[^A-Z]+/g, '_').replace(/^_|_$/g, '');

const defaultCode = (status: number): string =>
  ({ 400: 'VALIDATION_ERROR', 404: 'NOT_FOUND', 413: 'PAYLOAD_TOO_LARGE', 429: 'RATE_LIMITED', 500: 'INTERNAL_ERROR' })[
    status
  ] ?? phrase(status);

/** Longest field name and message text an error body carries (a field name can echo a caller's key). */
const ERROR_TEXT_CHARS_MAX = 1000;

const clip = (text: string): string => (text.length > ERROR_TEXT_CHARS_MAX ? `${text.slice(0, ERROR_TEXT_CHARS_MAX)}…` : text);

/**
 * An error body's size is bounded whatever was sent: at most ERROR_DETAILS_MAX field errors are
 * listed, each clipped, and the message (the listed ones joined with "; ") says how many more there were.
 */
function boundedDetails(err: AppError): { message: string; details: FieldError[] | undefined; omitted: number } {
  if (!err.details) return { message: clip(err.message), details: undefined, omitted: 0 };
  const listed = err.details.slice(0, ERROR_DETAILS_MAX).map((d) => ({ ...d, field: clip(d.field), message: clip(d.message) }));
  const omitted = err.details.length - listed.length;
  const joined = listed.map((d) => d.message).join('; ');
  if (omitted > 0) return { message: `${joined}; and ${omitted} more`, details: listed, omitted };
  return { message: err.message.length <= ERROR_TEXT_CHARS_MAX ? err.message : joined, details: listed, omitted };
}

/** The one place an error becomes one of the spec's three body shapes. */
export function renderError(error: DomainError, req: FastifyRequest): RenderedError {
  const err = toAppError(error);
  const headers = { ...(err.headers ?? {}) };
  const path = clip(req.url);
  const { message, details, omitted } = boundedDetails(err);
  if (err.bare) {
    return { status: err.status, contentType: 'application/json; charset=utf-8', headers, body: { statusCode: err.status, message } };
  }
  if (err.problem || err.status >= 500 || usesProblemDetails(path)) {
    const code = err.code ?? defaultCode(err.status);
    let retryable = err.retryable ?? RETRYABLE_STATUSES.has(err.status);
    // A POST without Idempotency-Key may have been carried out, so it is not retryable; a 429 was
    // refused before anything was done, so it always is (with Retry-After).
    if (req.method === 'POST' && !req.headers['idempotency-key'] && err.status !== 429) retryable = false;
    const body: Record<string, unknown> = {
      type: `urn:corridor:error:${code.toLowerCase()}`,
      title: STATUS_CODES[err.status] ?? 'Error',
      status: err.status,
      code,
      detail: message,
      category: WIRE_CATEGORY[err.category],
      retryable,
      request_id: String(req.id),
    };
    if (details) body.errors = details;
    if (omitted) body.errorsOmitted = omitted;
    Object.assign(body, guidance(err, code, details, req));
    return { status: err.status, contentType: 'application/problem+json; charset=utf-8', headers, body };
  }
  const body: Record<string, unknown> = {
    statusCode: err.status,
    // DESIGN (Pinned details): a legacy 403 puts its code in `message` as well as in `code`.
    message: err.status === 403 && err.code ? err.code : message,
    error: phrase(err.status),
  };
  if (err.code) body.code = err.code;
  if (details) body.details = details;
  if (omitted) body.detailsOmitted = omitted;
  body.timestamp = new Date().toISOString();
  body.path = path;
  // The legacy envelope's fields are pinned; beside its `code` (an addition already) it takes the
  // link and the scope, never on a generic validation envelope (no code: its shape stays as pinned).
  if (err.code) {
    const { doc_url: docUrl, scope } = guidance(err, err.code, undefined, req);
    if (docUrl) body.doc_url = docUrl;
    if (scope) body.scope = scope;
  }
  return { status: err.status, contentType: 'application/json; charset=utf-8', headers, body };
}

export function sendError(reply: FastifyReply, rendered: RenderedError): FastifyReply {
  return reply
    .code(rendered.status)
    .headers(rendered.headers)
    .type(rendered.contentType)
    .serializer((payload: unknown) => JSON.stringify(payload))
    .send(rendered.body);
}

interface AjvError {
  keyword: string;
  instancePath: string;
  message?: string;
  params: Record<string, unknown>;
  parentSchema?: Record<string, unknown>;
}

/** Ajv errors become one entry per failing field, with dotted paths (`beneficiary.accounts.0.data`). */
export function fieldErrorsFromValidation(errors: AjvError[], context: string | undefined): FieldError[] {
  const byField = new Map<string, FieldError>();
  for (const e of errors) {
    if (e.keyword === 'if') continue;
    const base = e.instancePath.replace(/^\//, '').split('/').map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~')).filter(Boolean);
    if (e.keyword === 'required') base.push(String(e.params.missingProperty));
    if (e.keyword === 'additionalProperties') base.push(String(e.params.additionalProperty));
    const field = base.join('.') || (context === 'body' ? 'body' : context ?? 'request');
    if (byField.has(field)) continue;
    byField.set(field, { field, message: `${field} ${describe(e)}`, ...(e.keyword === 'additionalProperties' ? { code: UNKNOWN_FIELD } : {}) });
  }
  return [...byField.values()];
}

/** Edit distance of two short names (a field name is at most a few dozen characters). */
function distance(a: string, b: string): number {
  let row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const next = [i];
    for (let j = 1; j <= b.length; j++) next[j] = Math.min((row[j] as number) + 1, (next[j - 1] as number) + 1, (row[j - 1] as number) + (a[i - 1] === b[j - 1] ? 0 : 1));
    row = next;
  }
  return row[b.length] as number;
}

/** The known field an unknown one is most likely a typo of (at most a third of its letters off), if any. */
function nearest(unknown: string, known: string[]): string | undefined {
  if (unknown.length > 64) return undefined;
  let best: { name: string; d: number } | undefined;
  for (const name of known) {
    const d = distance(unknown.toLowerCase(), name.toLowerCase());
    if (d <= Math.max(1, Math.floor(name.length / 3)) && (!best || d < best.d)) best = { name, d };
  }
  return best?.name;
}

function describe(e: AjvError): string {
  const custom = e.parentSchema?.['x-message'];
  if (typeof custom === 'string' && e.keyword !== 'required' && e.keyword !== 'additionalProperties') return custom;
  switch (e.keyword) {
    case 'required':
      return 'is required';
    case 'additionalProperties': {
      const known = Object.keys((e.parentSchema?.properties as Record<string, unknown> | undefined) ?? {});
      const near = nearest(String(e.params.additionalProperty), known);
      return near ? `is an unknown field: did you mean ${near}?` : `is an unknown field (this object takes: ${known.join(', ')})`;
    }
    case 'enum':
      return `must be one of: ${(e.params.allowedValues as unknown[]).join(', ')}`;
    case 'type':
      return `must be ${e.params.type === 'integer' ? 'an integer' : `${/^[aeiou]/.test(String(e.params.type)) ? 'an' : 'a'} ${String(e.params.type)}`}`;
    case 'minLength':
      return `must be at least ${String(e.params.limit)} characters`;
    case 'maxLength':
      return `must be at most ${String(e.params.limit)} characters`;
    case 'minimum':
      return `must be greater than or equal to ${String(e.params.limit)}`;
    case 'maximum':
      return `must be less than or equal to ${String(e.params.limit)}`;
    case 'minItems':
      return `must contain at least ${String(e.params.limit)} items`;
    case 'maxItems':
      return `must contain at most ${String(e.params.limit)} items`;
    case 'format':
      return `must be a valid ${String(e.params.format)}`;
    default:
      return e.message ?? 'is invalid';
  }
}

/** The database cannot be reached now: an outage, answered as one (503, retryable, Retry-After). */
export const serviceUnavailable = (retryAfterSec: number): AppError =>
  new AppError({
    status: 503,
    code: 'SERVICE_UNAVAILABLE',
    message: 'The service is temporarily unavailable; retry later',
    retryable: true,
    problem: true,
    headers: { 'retry-after': String(retryAfterSec) },
  });

/** A byte count as the limits are set: `1 MiB`, `8 KiB`, else bytes. */
function byteSize(bytes: number): string {
  if (bytes % (1024 * 1024) === 0) return `${bytes / (1024 * 1024)} MiB`;
  if (bytes % 1024 === 0) return `${bytes / 1024} KiB`;
  return `${bytes} bytes`;
}

/**
 * Maps anything thrown in a request to an AppError: a lost or refused database connection becomes
 * a 503 outage, a body over the route's `bodyLimit` a 413, other unknown errors an opaque 500.
 */
export function toAppError(err: unknown, options: { unavailableRetryAfterSec?: number; bodyLimit?: number | undefined } = {}): AppError {
  if (err instanceof AppError) return err;
  if (err instanceof DomainError) return fromDomain(err);
  if (isConnectionError(err)) return serviceUnavailable(options.unavailableRetryAfterSec ?? 1);
  const fe = err as FastifyError & { validation?: AjvError[]; validationContext?: string };
  if (fe.validation) return fromDomain(validationError(fieldErrorsFromValidation(fe.validation, fe.validationContext)));
  switch (fe.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new AppError({ status: 413, code: 'PAYLOAD_TOO_LARGE', message: `Request body is larger than ${byteSize(options.bodyLimit ?? 1024 * 1024)}` });
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new AppError({ status: 415, code: 'UNSUPPORTED_MEDIA_TYPE', message: 'Content-Type must be application/json' });
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return fromDomain(fieldError('body', 'body must be a JSON object'));
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return fromDomain(fieldError('body', 'body is not valid JSON'));
    default:
      break;
  }
  if (fe instanceof SyntaxError || (fe.statusCode === 400 && /JSON/i.test(fe.message))) {
    return fromDomain(fieldError('body', 'body is not valid JSON'));
  }
  if (fe.statusCode && fe.statusCode >= 400 && fe.statusCode < 500) {
    return new AppError({ status: fe.statusCode, message: STATUS_CODES[fe.statusCode] ?? 'Bad Request' });
  }
  return new AppError({ status: 500, code: 'INTERNAL_ERROR', message: 'An unexpected error occurred', problem: true });
}
