/**
 * The domain's refusals: what went wrong (a stable `code`, a `category`, the failing fields), never
 * how it is answered. Rules throw these; `http/errors.ts` alone maps a category to a status and to
 * one of the spec's three body shapes.
 */

/** One failing field of a validation error. */
export interface FieldError {
  field: string;
  message: string;
  code?: string;
  value?: unknown;
}

/**
 * What kind of refusal this is. `invalid_request` is input refused as malformed; `unprocessable` is
 * well-formed input the rules refuse in their current state (the spec answers some of those 422);
 * `too_large` and `unsupported_type` refuse content by its size or its type; `unavailable` is a refusal to retry shortly (a full queue), `provider` a failure of a rail.
 */
export type ErrorCategory =
  | 'invalid_request'
  | 'unprocessable'
  | 'too_large'
  | 'unsupported_type'
  | 'authentication'
  | 'permission'
  | 'not_found'
  | 'conflict'
  | 'rate_limit'
  | 'unavailable'
  | 'provider'
  | 'internal';

export interface DomainErrorOptions {
  category: ErrorCategory;
  /** Stable machine-readable code; clients branch on it. */
  code?: string | undefined;
  /** Human text. Defaults to the code, as the spec's legacy envelope does. */
  message?: string | undefined;
  details?: FieldError[] | undefined;
  /** Whether the same request may succeed later; by default decided by the category. */
  retryable?: boolean | undefined;
  /** How long to wait before retrying (rate limits, a full queue). */
  retryAfterSec?: number | undefined;
}

/** An expected refusal of a rule: a value with a stable code, mapped to the spec's shapes in one place. */
export class DomainError extends Error {
  readonly category: ErrorCategory;
  readonly code: string | undefined;
  readonly details: FieldError[] | undefined;
  readonly retryable: boolean | undefined;
  readonly retryAfterSec: number | undefined;

  constructor(options: DomainErrorOptions) {
    super(options.message ?? options.code ?? options.category);
    this.name = 'DomainError';
    this.category = options.category;
    this.code = options.code;
    this.details = options.details;
    this.retryable = options.retryable;
    this.retryAfterSec = options.retryAfterSec;
  }
}

export const validationError = (details: FieldError[]): DomainError =>
  new DomainError({ category: 'invalid_request', message: details.map((d) => d.message).join('; '), details });

export const fieldError = (field: string, message: string, code?: string): DomainError =>
  validationError([{ field, message, ...(code ? { code } : {}) }]);

/** A refusal whose code is also its message (the spec's legacy envelope carries codes in `message`). */
export const refusal = (code: string, category: ErrorCategory = 'invalid_request'): DomainError => new DomainError({ category, code, message: code });

export const notFound = (what = 'Resource'): DomainError => new DomainError({ category: 'not_found', code: 'NOT_FOUND', message: `${what} not found` });

export const forbidden = (code: string, message?: string): DomainError => new DomainError({ category: 'permission', code, message });

export const conflict = (code: string, message?: string): DomainError => new DomainError({ category: 'conflict', code, message });
