import type { FastifyRequest } from 'fastify';
import type { AppContext } from '../../platform/context.js';
import type { Tx } from '../../platform/db/db.js';
import { AppError, asHttpRefusal } from '../../platform/http/errors.js';
import { fieldError, type FieldError } from '../../platform/lib/errors.js';
import { answerOnce, apiFingerprint, formIdempotencyOf, keyProcessing, type GroupAnswer, type KeyedRequest, type StoredAnswer } from '../../platform/http/idempotency.js';
import type { WebSession } from '../../domains/users/sessions.service.js';
import { dayBounds, isDay } from '../../platform/lib/dates.js';

/** A form field's text: one value (the last if sent twice), trimmed unless `raw` (passwords). */
export function formText(req: FastifyRequest, name: string, options: { raw?: boolean; maxLength?: number } = {}): string {
  const value = ((req.body ?? {}) as Record<string, unknown>)[name];
  const text = Array.isArray(value) ? String(value[value.length - 1] ?? '') : typeof value === 'string' ? value : '';
  const max = options.maxLength ?? 2000;
  if (text.length > max) throw fieldError(name, `${name} must have at most ${max} characters`);
  return options.raw ? text : text.trim();
}

/** Every value of a repeated field (checkboxes), at most `max`. */
export function formList(req: FastifyRequest, name: string, max = 100): string[] {
  const value = ((req.body ?? {}) as Record<string, unknown>)[name];
  const list = (Array.isArray(value) ? value : value === undefined ? [] : [value]).map(String);
  if (list.length > max) throw fieldError(name, `${name} has more than ${max} values`);
  return list;
}

/**
 * A country field: two letters (any case), as the help text under every country input asks. A
 * name typed instead ("United Kingdom") is refused with the same words, not a length rule.
 */
export function formCountry(req: FastifyRequest, name: string): string | undefined {
  const text = formText(req, name, { maxLength: 200 });
  if (text === '') return undefined;
  if (!/^[A-Za-z]{2}$/.test(text)) throw fieldError(name, 'Give the country as its two-letter code, such as GB for the United Kingdom');
  return text.toUpperCase();
}

/** An optional field: undefined when left empty. */
export function formOptional(req: FastifyRequest, name: string, maxLength?: number): string | undefined {
  const text = formText(req, name, { maxLength });
  return text === '' ? undefined : text;
}

/** The field errors of a refusal, by field name (to show beside each input), and its message. */
export function formErrors(err: unknown): { message: string; fields: Record<string, string> } | undefined {
  const refused = asHttpRefusal(err);
  if (!refused || refused.status >= 500 || refused.status === 401 || refused.status === 429) return undefined;
  const fields: Record<string, string> = {};
  for (const d of (refused.details ?? []) as FieldError[]) fields[d.field] ??= d.message;
  return { message: refused.message, fields };
}

/** A query parameter as one string. */
export function queryText(req: FastifyRequest, name: string): string | undefined {
  const value = ((req.query ?? {}) as Record<string, unknown>)[name];
  const text = Array.isArray(value) ? value[0] : value;
  return typeof text === 'string' && text !== '' ? text.slice(0, 500) : undefined;
}

/** A local path to return to after sign-in (never another site). */
export function safeNext(next: string | undefined, area: 'dashboard' | 'console'): string {
  return next && next.startsWith(`/${area}`) && !next.startsWith('//') && !/[\\\r\n]/.test(next) ? next : `/${area}`;
}

/** A query parameter that must be one of `allowed` (a list filter's choice); anything else is no filter. */
/** A filter of listed values: one of `choices`, `fallback` when absent or unknown, and nothing for `all`. */
export function queryChoice<T extends string>(req: FastifyRequest, name: string, choices: readonly T[], fallback?: T): T | undefined {
  const text = queryText(req, name);
  if (text === 'all') return undefined;
  return choices.find((choice) => choice === text) ?? fallback;
}

/**
 * A date filter (YYYY-MM-DD from a date input) as the instant its day starts in UTC; none when empty.
 * Anything else (a day the database has no date for, such as year 0000) is refused naming the field.
 */
export function queryDay(req: FastifyRequest, name: string): { day: string; instant: string; nextInstant: string } | undefined {
  const day = queryText(req, name);
  if (!day) return undefined;
  if (!isDay(day)) throw fieldError(name, `${name} must be a day such as 2025-01-31 (years 0001 to 9999)`);
  return { day, ...dayBounds(day) };
}

/** A change a person asked for and the service refused: what to show beside the form, and the status. */
export interface Refusal {
  status: number;
  message: string;
  /** Field errors by field name, to show beside each input. */
  fields: Record<string, string>;
}

/**
 * The refusal a person can act on from a failed change (a 4xx other than not-found, with its
 * message and field errors); anything else (a 404, a 5xx) is thrown on to the error page.
 */
export function refusalOf(err: unknown): Refusal {
  const errors = formErrors(err);
  const refused = asHttpRefusal(err);
  if (!errors || !refused || refused.status === 404) throw err;
  return { status: refused.status, ...errors };
}

/** Runs a change through its service: done, or refused (nothing changed: the service refused before writing, or its transaction rolled back). */
export async function attempt<T>(change: () => Promise<T>): Promise<{ done: T } | { refused: Refusal }> {
  try {
    return { done: await change() };
  } catch (err) {
    return { refused: refusalOf(err) };
  }
}

/** Whose keys a session's forms carry: the console's operator (its user, or the key it was opened with), or the dashboard's workspace. */
function formKeyOwner(session: WebSession | undefined): Pick<KeyedRequest, 'scope' | 'ownerId'> | undefined {
  if (!session) return undefined;
  if (session.area === 'console') {
    const ownerId = session.user?.id ?? session.operatorKeyId;
    return ownerId ? { scope: 'operator', ownerId } : undefined;
  }
  return session.user?.workspaceId ? { scope: 'workspace', ownerId: session.user.workspaceId } : undefined;
}

/** A double submit waits for the first to finish (then sees its answer) this long at most. */
const FORM_KEY_WAIT = { attempts: 50, delayMs: 100 } as const;

/**
 * Runs a form's change once per rendered form: with the form's key (postForm renders a fresh one),
 * the place to go next (303) is stored under the key in the change's transaction, and the same form
 * sent again (a double click, a resend after a timeout) goes there without changing anything again.
 * A refusal stores nothing: the page shows it, rendered again with a new key. Without a key the
 * change just runs. Returns where to go.
 */
export async function changeOnce(ctx: AppContext, req: FastifyRequest, change: (tx: Tx) => Promise<string>): Promise<string> {
  const owner = formKeyOwner(req.web?.session);
  const keyed = owner ? formIdempotencyOf(req, owner) : undefined;
  if (!keyed) return ctx.db.tx(change);
  for (let attempt = 1; ; attempt++) {
    try {
      const { answer } = await answerOnce(ctx, keyed, async (tx) => ({ status: 303, contentType: 'text/plain; charset=utf-8', text: await tx.savepoint(change) }));
      return answer.text;
    } catch (err) {
      const inFlight = err instanceof AppError && err.code === keyProcessing().code;
      if (!inFlight || attempt >= FORM_KEY_WAIT.attempts) throw err;
      await new Promise((resolve) => setTimeout(resolve, FORM_KEY_WAIT.delayMs));
    }
  }
}

/**
 * A change a page makes as an API call would under an Idempotency-Key (a row of a payouts CSV as
 * POST /v1/payouts): the same key, fingerprint and stored answer, so the page and the API (the CLI)
 * replay each other's answer instead of making the change twice. A refusal thrown by `work` stores
 * nothing. A key still in flight elsewhere is waited for, as a form's is.
 */
export async function onceAsApi(
  ctx: AppContext,
  call: { workspaceId: string; subAccountId: string | undefined; key: string; path: string; bodyText: string },
  work: (tx: Tx) => Promise<StoredAnswer>,
): Promise<GroupAnswer> {
  const keyed: KeyedRequest = { scope: 'workspace', ownerId: call.workspaceId, key: call.key, fingerprint: apiFingerprint('POST', call.path, call.subAccountId, call.bodyText) };
  for (let attempt = 1; ; attempt++) {
    try {
      return await answerOnce(ctx, keyed, (tx) => tx.savepoint(work));
    } catch (err) {
      const inFlight = err instanceof AppError && err.code === keyProcessing().code;
      if (!inFlight || attempt >= FORM_KEY_WAIT.attempts) throw err;
      await new Promise((resolve) => setTimeout(resolve, FORM_KEY_WAIT.delayMs));
    }
  }
}
