/** One failing field of a validation error (`details` of the validation envelope, `errors` of problem details). */
export interface CorridorFieldError {
  field: string;
  message: string;
  code?: string;
  value?: unknown;
}

/** Which of Corridor's error bodies an error came from (`network`: no answer at all). */
export type CorridorErrorShape = 'problem' | 'validation' | 'legacy' | 'oauth' | 'network';

/** Statuses retried on endpoints that answer without problem details (spec, Retry rules 2). */
export const RETRYABLE_LEGACY_STATUSES: ReadonlySet<number> = new Set([429, 502, 503, 504]);

const STABLE_CODE = /^[A-Z][A-Z0-9_]{2,}$/;

/**
 * Every refusal the SDK throws, whatever the body's shape: the legacy envelope, the validation
 * envelope, RFC 9457 problem details, an OAuth token error, or no answer (`status` 0).
 * Branch on `code`, never on `message`.
 */
export class CorridorError extends Error {
  /** HTTP status; 0 when the request got no answer (network error). */
  readonly status: number;
  /** Stable machine-readable code when the body has one (problem `code`, legacy `code` or a code-like `message`, OAuth `error`). */
  readonly code: string | undefined;
  /** Failing fields of a validation error. */
  readonly details: CorridorFieldError[];
  /** `x-request-id` of the answer (or `request_id` of problem details). */
  readonly requestId: string | undefined;
  /** Whether the same request may succeed if sent again (problem details' `retryable`, authoritative; else by status). */
  readonly retryable: boolean;
  readonly shape: CorridorErrorShape;
  /** Seconds to wait before retrying, from `Retry-After`. */
  readonly retryAfterS: number | undefined;
  /** The parsed body as received. */
  readonly body: unknown;

  constructor(init: {
    status: number;
    message: string;
    code?: string | undefined;
    details?: CorridorFieldError[] | undefined;
    requestId?: string | undefined;
    retryable: boolean;
    shape: CorridorErrorShape;
    retryAfterS?: number | undefined;
    body?: unknown;
    cause?: unknown;
  }) {
    super(init.message, init.cause === undefined ? undefined : { cause: init.cause });
    this.name = 'CorridorError';
    this.status = init.status;
    this.code = init.code;
    this.details = init.details ?? [];
    this.requestId = init.requestId;
    this.retryable = init.retryable;
    this.shape = init.shape;
    this.retryAfterS = init.retryAfterS;
    this.body = init.body;
  }
}

/** `Retry-After` as seconds (delta-seconds or an HTTP date), or undefined. */
export function parseRetryAfter(value: string | null, nowMs = Date.now()): number | undefined {
  if (!value) return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - nowMs) / 1000));
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

function fieldErrors(list: unknown): CorridorFieldError[] {
  if (!Array.isArray(list)) return [];
  return list.filter(isRecord).map((d) => ({
    field: str(d.field) ?? '',
    message: str(d.message) ?? '',
    ...(str(d.code) ? { code: d.code as string } : {}),
    ...('value' in d ? { value: d.value } : {}),
  }));
}

/** Builds the error for an answer that is not a success, from its status, headers and body text. */
export function errorFromResponse(status: number, headers: Headers, text: string): CorridorError {
  let body: unknown = text;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    // not JSON: kept as text
  }
  const retryAfterS = parseRetryAfter(headers.get('retry-after'));
  const headerRequestId = headers.get('x-request-id') ?? undefined;
  const contentType = headers.get('content-type') ?? '';
  const legacyRetryable = RETRYABLE_LEGACY_STATUSES.has(status);
  if (isRecord(body) && (contentType.startsWith('application/problem+json') || ('retryable' in body && 'detail' in body))) {
    return new CorridorError({
      status,
      message: str(body.detail) ?? str(body.title) ?? `HTTP ${status}`,
      code: str(body.code),
      details: fieldErrors(body.errors),
      requestId: str(body.request_id) ?? headerRequestId,
      retryable: body.retryable === true,
      shape: 'problem',
      retryAfterS,
      body,
    });
  }
  if (isRecord(body) && typeof body.error === 'string' && /^[a-z_]+$/.test(body.error)) {
    return new CorridorError({
      status,
      message: str(body.error_description) ?? body.error,
      code: body.error,
      requestId: headerRequestId,
      retryable: legacyRetryable,
      shape: 'oauth',
      retryAfterS,
      body,
    });
  }
  if (isRecord(body)) {
    const message = str(body.message) ?? `HTTP ${status}`;
    const details = fieldErrors(body.details);
    return new CorridorError({
      status,
      message,
      code: str(body.code) ?? (STABLE_CODE.test(message) ? message : undefined),
      details,
      requestId: headerRequestId,
      retryable: legacyRetryable,
      shape: Array.isArray(body.details) ? 'validation' : 'legacy',
      retryAfterS,
      body,
    });
  }
  return new CorridorError({ status, message: `HTTP ${status}`, requestId: headerRequestId, retryable: legacyRetryable, shape: 'legacy', retryAfterS, body });
}

/** The error for a request that got no answer (connection refused or reset, timeout). Retryable by rule 1. */
export function networkError(cause: unknown): CorridorError {
  const message = cause instanceof Error ? cause.message : String(cause);
  return new CorridorError({ status: 0, message: `Network error: ${message}`, code: 'NETWORK_ERROR', retryable: true, shape: 'network', cause });
}
