import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../context.js';
import type { Tx } from '../db/db.js';
import { sha256Hex } from '../lib/secrets.js';
import { claimStoredKeys, keyName, storeKeyAnswers, type KeyScope, type StoredAnswerRow } from '../idempotency/idempotency.service.js';
import { AppError, renderError, toAppError } from './errors.js';

/** What a POST's work decides to answer. A refusal that must still commit writes is an outcome too. */
export interface Outcome {
  status: number;
  body: unknown;
  /** A refusal rendered as problem details carries its media type; default JSON. */
  contentType?: string;
}

type StoredResponse = StoredAnswerRow;

const KEY_SHAPE = /^[\x21-\x7e]{1,255}$/;

declare module 'fastify' {
  interface FastifyRequest {
    rawBody: string | undefined;
  }
}

function fingerprintOf(req: FastifyRequest): string {
  const path = req.url.split('?')[0] ?? req.url;
  // The exact JSON text sent; a body parsed from another media type is fingerprinted by its parsed value.
  const body = req.rawBody ?? (req.body === undefined ? '' : JSON.stringify(req.body));
  return apiFingerprint(req.method, path, req.auth?.subAccountId, body);
}

/**
 * The fingerprint of an API call: a page that makes the same change as a call (a row of a payouts
 * CSV, as POST /v1/payouts with that row's JSON) stores its answer under the same key and
 * fingerprint, so the call and the page each replay what the other made.
 */
export function apiFingerprint(method: string, path: string, subAccountId: string | undefined, bodyText: string): string {
  return sha256Hex([method, path, subAccountId ?? '', bodyText].join('\n'));
}

function sendText(reply: FastifyReply, status: number, contentType: string, text: string): FastifyReply {
  return reply.code(status).type(contentType).serializer((p: unknown) => p as string).send(text);
}

/**
 * Runs a POST's work in one transaction. With an `Idempotency-Key`, the key is claimed (claimKeys:
 * a second request while the first runs gets 409 IDEMPOTENCY_KEY_PROCESSING) and the answer is stored
 * in the same transaction as the effect (storeAnswers), so a crash can never leave an effect without
 * its stored answer or the reverse. Stored answers are encrypted at rest (they may hold a secret shown
 * once, such as a webhook signing secret). 2xx and 4xx are stored and replayed with
 * `Idempotent-Replayed: true`; 5xx and 429 roll back and are not stored. A keyed request is a group
 * of one (answerGroup), its work run in a savepoint.
 */
export async function runIdempotent(
  ctx: AppContext,
  req: FastifyRequest,
  reply: FastifyReply,
  work: (tx: Tx) => Promise<Outcome>,
): Promise<FastifyReply> {
  const keyed = idempotencyOf(req);
  // The status is set inside the transaction: an audit entry committing with it records the answer's (src/platform/http/audited.ts).
  if (!keyed) {
    const outcome = await ctx.db.tx(async (tx) => {
      const decided = await work(tx);
      reply.code(decided.status);
      return decided;
    });
    if (outcome.contentType) reply.type(outcome.contentType);
    return reply.code(outcome.status).send(outcome.body);
  }
  const entry: GroupEntry<typeof work, Outcome | AppError> = {
    keyed,
    item: work,
    render: (result) => {
      const answer = result instanceof AppError ? renderedAnswer(renderError(result, req)) : outcomeAnswer(reply, result);
      reply.code(answer.status);
      return answer;
    },
  };
  const [answered] = await ctx.db.tx((tx) => answerGroup(ctx, tx, [entry], async (t, works) => (works[0] ? [await workOrRefusal(t, works[0])] : [])));
  const { answer, replayed } = answered as GroupAnswer;
  return sendAnswer(reply, answer, replayed);
}

/** A POST's work in a savepoint: its outcome, or the refusal it threw (4xx other than 429); 5xx and 429 are thrown on. */
async function workOrRefusal(tx: Tx, work: (tx: Tx) => Promise<Outcome>): Promise<Outcome | AppError> {
  try {
    return await tx.savepoint(work);
  } catch (err) {
    const appError = toAppError(err);
    if (appError.status >= 500 || appError.status === 429) throw err;
    return appError;
  }
}

/** An outcome as sent and stored, through the route's response schema. */
function outcomeAnswer(reply: FastifyReply, outcome: Outcome): StoredAnswer {
  reply.code(outcome.status);
  // A refusal has no response schema of its own (the route's `4xx` entry documents the error shapes
  // per media type, which reply.serialize cannot pick): it is sent as it is.
  const text = outcome.status >= 400 ? JSON.stringify(outcome.body) : String(reply.serialize(outcome.body));
  return { status: outcome.status, contentType: outcome.contentType ?? 'application/json; charset=utf-8', text };
}

/**
 * The answer stored under a key, or `work`'s answer stored under it now, in one transaction with
 * `work`'s writes: a key held by another request in flight is 409, a key used with another request 422.
 * `work` throwing rolls everything back and stores nothing.
 */
export async function answerOnce(ctx: AppContext, keyed: KeyedRequest, work: (tx: Tx) => Promise<StoredAnswer>): Promise<GroupAnswer> {
  const entry: GroupEntry<null, StoredAnswer> = {
    keyed,
    item: null,
    render: (result) => {
      if (result instanceof AppError) throw result; // about the key: thrown, so nothing is written
      return result;
    },
  };
  const [answered] = await ctx.db.tx((tx) => answerGroup(ctx, tx, [entry], async (t, items) => (items.length ? [await work(t)] : [])));
  return answered as GroupAnswer;
}

/**
 * A refusal decided before a POST's work ran (its body failed the schema, or its route refused it
 * before any write) is still an answer to its Idempotency-Key: stored like any other 4xx, so a repeat
 * is replayed with the same body (a body refused unread, 413 or 415, is not). Returns the answer to send: the stored one when the key already has
 * one, else this refusal (now stored). Undefined when the request carries no key or is not a POST of a
 * workspace or the operator; key errors themselves, 429 and 5xx are never stored.
 */
export async function storeRefusal(ctx: AppContext, req: FastifyRequest, error: AppError): Promise<GroupAnswer | undefined> {
  if (req.method !== 'POST' || !(req.auth || req.operator) || req.headers['idempotency-key'] === undefined) return undefined;
  if (error.status < 400 || error.status >= 500 || error.status === 429 || error.code?.startsWith('IDEMPOTENCY_KEY_')) return undefined;
  // A body refused before it was read (too large, another media type) cannot be fingerprinted: answered, not stored.
  if (error.status === 413 || error.status === 415) return undefined;
  let keyed: KeyedRequest | undefined;
  try {
    keyed = idempotencyOf(req);
  } catch {
    return undefined; // a malformed key: the refusal is answered as it is
  }
  if (!keyed) return undefined;
  const entry: GroupEntry<AppError, AppError> = { keyed, item: error, render: (refusal) => renderedAnswer(renderError(refusal, req)) };
  const [answered] = await ctx.db.tx((tx) => answerGroup(ctx, tx, [entry], async (_tx, refusals) => refusals));
  return answered as GroupAnswer;
}

const renderedAnswer = (rendered: { status: number; contentType: string; body: unknown }): StoredAnswer => ({
  status: rendered.status,
  contentType: rendered.contentType,
  text: JSON.stringify(rendered.body),
});

export { deleteExpiredIdempotencyKeys } from '../idempotency/idempotency.service.js';

// ---------------------------------------------------------------------------------------------
// Claiming keys and storing answers: for one request or a batch of them (group commit), the same statements.

export type { KeyScope } from '../idempotency/idempotency.service.js';

export interface KeyedRequest {
  scope: KeyScope;
  /** The workspace, or the operator key or operator user. */
  ownerId: string;
  key: string;
  fingerprint: string;
}

export interface StoredAnswer {
  status: number;
  contentType: string;
  text: string;
}

/** The fingerprint and key of a request carrying an Idempotency-Key, or undefined; 400 for a malformed key. */
export function idempotencyOf(req: FastifyRequest): KeyedRequest | undefined {
  const header = req.headers['idempotency-key'];
  if (header === undefined) return undefined;
  const key = Array.isArray(header) ? header[0] ?? '' : header;
  if (!KEY_SHAPE.test(key)) {
    throw new AppError({ status: 400, code: 'IDEMPOTENCY_KEY_INVALID', message: 'Idempotency-Key must be 1 to 255 printable ASCII characters', problem: true });
  }
  const owner: Pick<KeyedRequest, 'scope' | 'ownerId'> = req.operator ? { scope: 'operator', ownerId: req.operator.keyId } : { scope: 'workspace', ownerId: req.auth.workspaceId };
  return { ...owner, key, fingerprint: fingerprintOf(req) };
}

/**
 * The key a web form carries (`_idempotency`, generated when the form was rendered), owned by
 * `owner`; undefined when the form has none. A malformed key is no key (the form runs unkeyed).
 */
export function formIdempotencyOf(req: FastifyRequest, owner: Pick<KeyedRequest, 'scope' | 'ownerId'>): KeyedRequest | undefined {
  const value = ((req.body ?? {}) as Record<string, unknown>)[FORM_KEY_FIELD];
  if (typeof value !== 'string' || !KEY_SHAPE.test(value)) return undefined;
  return { ...owner, key: value, fingerprint: fingerprintOf(req) };
}

/** The hidden field of a web form that carries its Idempotency-Key. */
export const FORM_KEY_FIELD = '_idempotency';

export const keyProcessing = (): AppError =>
  new AppError({ status: 409, code: 'IDEMPOTENCY_KEY_PROCESSING', message: 'A request with this Idempotency-Key is still being processed; retry shortly', retryable: true, problem: true });

export const keyReused = (): AppError =>
  new AppError({ status: 422, code: 'IDEMPOTENCY_KEY_REUSED', message: 'This Idempotency-Key was used with a different request', problem: true });

export type KeyClaim = StoredResponse | 'processing' | 'new';

export { keyName } from '../idempotency/idempotency.service.js';

/**
 * Takes the keys of one or many requests (each with a transaction-scoped advisory lock) and reads
 * what was stored for them: per request, 'processing' (another transaction holds it), the stored
 * answer, or 'new'.
 */
export async function claimKeys(ctx: AppContext, tx: Tx, requests: readonly KeyedRequest[]): Promise<KeyClaim[]> {
  return claimStoredKeys(tx, ctx.box, requests);
}

/**
 * What a claim means for its request: an error about the key (in flight elsewhere, or used with
 * another request), the stored answer to replay, or undefined when the key is new.
 */
export function decideClaim(claim: KeyClaim, request: KeyedRequest): AppError | StoredAnswer | undefined {
  if (claim === 'processing') return keyProcessing();
  if (claim === 'new') return undefined;
  if (claim.fingerprint !== request.fingerprint) return keyReused();
  return { status: claim.status_code, contentType: claim.content_type, text: claim.response_body };
}

/** Stores the answers of keyed requests (2xx and 4xx only), in the batch's transaction. */
export async function storeAnswers(ctx: AppContext, tx: Tx, entries: readonly { request: KeyedRequest; answer: StoredAnswer }[]): Promise<void> {
  const kept = entries.filter((e) => e.answer.status < 500 && e.answer.status !== 429);
  const answers = kept.map(({ request: r, answer: a }) => ({ scope: r.scope, ownerId: r.ownerId, key: r.key, fingerprint: r.fingerprint, statusCode: a.status, contentType: a.contentType, text: a.text }));
  await storeKeyAnswers(tx, ctx.box, answers, ctx.config.limits.idempotencyTtlMs);
}

// ---------------------------------------------------------------------------------------------
// Idempotency around a group of requests written in one transaction (runIdempotent is a group of one)

/** One request of a group: its key (if any), what the work takes, and how its result is written for its caller. */
export interface GroupEntry<I, R> {
  keyed: KeyedRequest | undefined;
  item: I;
  /** The answer to a result of the work, or to a refusal about the request's key. */
  render: (result: R | AppError) => StoredAnswer;
}

export interface GroupAnswer {
  answer: StoredAnswer;
  replayed: boolean;
}

/**
 * Per entry: the refusal about its key (in flight elsewhere, the same key earlier in this group, or
 * used with another request), the stored answer to replay, or undefined when the work must run.
 */
async function claimGroup<I, R>(ctx: AppContext, tx: Tx, entries: readonly GroupEntry<I, R>[]): Promise<(AppError | StoredAnswer | undefined)[]> {
  const keyed = entries.flatMap((e, i) => (e.keyed ? [{ i, request: e.keyed }] : []));
  const claims = await claimKeys(ctx, tx, keyed.map((k) => k.request));
  const decided: (AppError | StoredAnswer | undefined)[] = entries.map(() => undefined);
  const seen = new Set<string>();
  keyed.forEach(({ i, request }, n) => {
    const id = keyName(request);
    decided[i] = seen.has(id) ? keyProcessing() : decideClaim(claims[n] as KeyClaim, request);
    seen.add(id);
  });
  return decided;
}

/**
 * Idempotency around work done for a group of requests in one transaction: claims the keys, runs the
 * work once for the requests it did not answer already (`run` returns one result per item, in order),
 * renders every answer, and stores the answers of keyed requests in the same transaction as the
 * effects they describe. A refusal about a key is answered, not stored; a replay is answered as stored.
 */
export async function answerGroup<I, R>(ctx: AppContext, tx: Tx, entries: readonly GroupEntry<I, R>[], run: (tx: Tx, items: I[]) => Promise<R[]>): Promise<GroupAnswer[]> {
  const decided = await claimGroup(ctx, tx, entries);
  const open = entries.flatMap((e, i) => (decided[i] === undefined ? [i] : []));
  const results = await run(tx, open.map((i) => (entries[i] as GroupEntry<I, R>).item));
  const answers: GroupAnswer[] = entries.map((e, i) => {
    const d = decided[i];
    if (d instanceof AppError) return { answer: e.render(d), replayed: false };
    return d ? { answer: d, replayed: true } : { answer: e.render(results[open.indexOf(i)] as R), replayed: false };
  });
  await storeAnswers(ctx, tx, open.flatMap((i) => (entries[i]?.keyed ? [{ request: entries[i].keyed, answer: (answers[i] as GroupAnswer).answer }] : [])));
  return answers;
}

/** Sends an answer decided elsewhere (replayed or fresh) exactly as stored. */
export function sendAnswer(reply: FastifyReply, answer: StoredAnswer, replayed: boolean): FastifyReply {
  if (replayed) reply.header('idempotent-replayed', 'true');
  return sendText(reply, answer.status, answer.contentType, answer.text);
}
