import type { Static } from 'typebox';
import type { AppContext } from '../../context.js';
import type { Tx } from '../../db/db.js';
import { DomainError, fieldError, isRefusal, validationError, type FieldError } from '../../lib/errors.js';
import { claimKeys, decideClaim, keyProcessing, storeAnswers, type KeyedRequest, type StoredAnswer } from '../../http/idempotency.js';
import { enqueueMany } from '../../jobs/queue.js';
import { currencyInfo } from '../../lib/currencies.js';
import { newId } from '../../lib/ids.js';
import { LaneBatcher } from '../../lib/lane-batcher.js';
import { parseAmount } from '../../lib/money.js';
import { payoutProviderFor } from '../../providers/index.js';
import { hasOriginatorOnRecord } from '../accounts/accounts.service.js';
import { payoutTerms, type PayoutTerms } from '../accounts/payout-settings.js';
import {
  assertValidBeneficiary,
  checkRecipient,
  createBeneficiary,
  findBeneficiaries,
  isFieldFormatError,
  reportedRoute,
  validateSender,
  withinBounds,
  type BeneficiaryInput,
  type BeneficiaryView,
  type Recipient,
  type Route,
} from '../corridors/index.js';
import { recordEvent } from '../events/events.service.js';
import { consumeQuote, quoteFromCurrency } from '../fx/fx.service.js';
import { ledger, type HoldSet, type SystemKind } from '../ledger/ledger.service.js';
import { PAYOUT_STEP_JOB, payoutEventData } from './payouts.lifecycle.js';
import { payoutData } from './payouts.read.js';
import * as repo from './payouts.repository.js';
import type { PayoutBody } from './payouts.schemas.js';

/**
 * Payout creation: one pipeline for one payout, a batch request, and every request that arrives
 * together. A request is checked without I/O first (checkRequest), then requests are grouped by the
 * LaneBatcher and written together (runBatch), one transaction and a few statements per group:
 * claim the Idempotency-Keys, read (and share-lock) the saved beneficiaries, finish the checks, then
 * storeRows decides every row in arrival order (daily limit, duplicate clientRef, quote, hold) and
 * writes them. Each request gets exactly the answer it would get alone, in arrival order.
 */

type Body = Static<typeof PayoutBody>;

/** Who creates the payouts: the workspace, the account acted on, and the workspace's configuration. */
export interface PayoutCaller {
  workspaceId: string;
  accountId: string;
  subAccountId: string | undefined;
  workspace: { settings: Record<string, unknown>; enabledCurrencies: string[]; disabledCapabilities: string[] };
}

export type PayoutView = ReturnType<typeof payoutData>;
export type BatchRow = PayoutView | { error: string; clientRef: string };

/** What a request is answered: one payout, a batch's rows in request order, or a refusal of the whole request. */
export type SubmissionResult = { kind: 'created'; payout: PayoutView } | { kind: 'batch'; rows: BatchRow[] } | { kind: 'refused'; error: DomainError };

export interface PayoutSubmission {
  caller: PayoutCaller;
  /** One payout, or an array (a batch). */
  body: Body | Body[];
  idempotency: KeyedRequest | undefined;
  /** How the result is written for the caller (the route's rendering), so it can be stored under its key. */
  render: (result: SubmissionResult) => StoredAnswer;
}

export interface SubmissionAnswer {
  answer: StoredAnswer;
  replayed: boolean;
}

/** A payout that passed every check of its own, ready for the checks against what is stored. */
interface Prepared {
  workspaceId: string;
  accountId: string;
  clientRef: string;
  currency: string;
  amountMinor: bigint;
  route: string;
  crypto: boolean;
  beneficiaryId: string | null;
  beneficiary: Record<string, unknown>;
  sender: Record<string, unknown> | null;
  quoteId: string | null;
  purpose: string | null;
  reference: string | null;
  metadata: Record<string, string> | null;
}

type Refused = { ok: false; error: DomainError; fieldFormat: boolean };
type Ready = { ok: true; prepared: Prepared; newBeneficiary: BeneficiaryInput | undefined; dailyLimitMinor: bigint | undefined };
type Checked = Ready | Refused;
/** A row waiting for its saved beneficiary, read in the write transaction. */
type AwaitingBeneficiary = { ok: 'saved'; id: string; finish: (found: BeneficiaryView | undefined) => Checked };

const refused = (error: DomainError, fieldFormat = false): Refused => ({ ok: false, error, fieldFormat });
const refusal = (code: string): DomainError => new DomainError({ category: 'invalid_request', code, message: code });
export const duplicateClientRef = (): DomainError => new DomainError({ category: 'invalid_request', message: 'Payout with this client reference already exists' });
const insufficient = (): DomainError => refusal('INSUFFICIENT_BALANCE');

// ---------------------------------------------------------------------------------------------
// The checks of one row that need no I/O, in the spec's order

interface RowContext {
  ctx: AppContext;
  caller: PayoutCaller;
  terms: PayoutTerms;
  /** The account acted on has a business identity on record (the originator when senderInfo is omitted). */
  originatorOnRecord: boolean;
}

/** The first checks: the workspace may pay out and has the corridor's currency, the amount is well formed. */
function checkBasics(rc: RowContext, body: Body): Refused | { ok: true; amountMinor: bigint } {
  if (!rc.terms.permitted) return refused(refusal('PAYOUT_NOT_PERMITTED'));
  const info = currencyInfo(body.currency);
  if (!info) return refused(fieldError('currency', `currency ${body.currency} is not a supported currency`), true);
  const sandboxOnlyInProduction = info.availability === 'sandbox_only' && rc.ctx.config.env === 'production';
  if (!rc.caller.workspace.enabledCurrencies.includes(body.currency) || sandboxOnlyInProduction) return refused(refusal('CORRIDOR_NOT_ENABLED'));
  try {
    return { ok: true, amountMinor: parseAmount(body.amount, body.currency, 'amount') };
  } catch (err) {
    if (!(err instanceof DomainError)) throw err;
    return refused(err, true);
  }
}

/** A saved beneficiary named by `beneficiary.id`, as looked up (undefined: none visible to the caller). */
function savedRecipient(found: BeneficiaryView | undefined): Refused | { ok: true; recipient: BeneficiaryView } {
  if (!found) return refused(fieldError('beneficiary.id', 'beneficiary.id does not name a beneficiary of this account'));
  if (found.status !== 'active') return refused(fieldError('beneficiary.id', `beneficiary.id names a beneficiary that is ${found.status}`));
  return { ok: true, recipient: found };
}

/** A beneficiary sent in full is saved as one: every account must be valid for its own corridor, as on POST /v1/beneficiaries. */
function wholeBeneficiaryRefusal(input: BeneficiaryInput): Refused | undefined {
  try {
    assertValidBeneficiary(input, { fieldPrefix: 'beneficiary.' });
    return undefined;
  } catch (err) {
    if (!(err instanceof DomainError)) throw err;
    return refused(err, (err.details ?? []).some(isFieldFormatError));
  }
}

/**
 * The checks that need the recipient, in the spec's order: the paid corridor's required recipient
 * fields, then the recipient's structure (and, for a beneficiary sent in full, the rest of it), then
 * the sender; then the corridor's amount bounds and the per-transaction limit.
 */
function checkWithRecipient(
  rc: RowContext,
  body: Body,
  amountMinor: bigint,
  recipient: Recipient,
  saved: { beneficiaryId: string } | { newBeneficiary: BeneficiaryInput },
): Checked {
  const { workspace } = rc.caller;
  const travelRule = rc.terms.travelRuleScreening && rc.ctx.config.env !== 'sandbox';
  const check = checkRecipient(recipient, { currency: body.currency, route: body.route as Route | undefined, amountMinor, travelRule });
  if (check.errors.length || !check.provider) {
    const fieldFormat = check.errors.some(isFieldFormatError);
    return refused(
      validationError(check.errors.length ? check.errors : [{ field: 'beneficiary.accounts', message: 'beneficiary.accounts has no account this corridor can pay', code: 'UNSUPPORTED_CORRIDOR' }]),
      fieldFormat,
    );
  }
  if ('newBeneficiary' in saved) {
    const whole = wholeBeneficiaryRefusal(saved.newBeneficiary);
    if (whole) return whole;
  }
  const provider = check.provider;
  if (provider.route === 'crypto' && workspace.disabledCapabilities.includes('crypto_payouts')) {
    return refused(new DomainError({ category: 'permission', code: 'CAPABILITY_DISABLED', message: 'The crypto_payouts capability is not enabled for this workspace' }));
  }
  const sender = validateSender(body.senderInfo, provider, rc.originatorOnRecord);
  if (sender.errors.length) return refused(validationError(sender.errors));
  if (!withinBounds(provider, body.currency, amountMinor)) return refused(refusal('AMOUNT_OUT_OF_BOUNDS'));
  const perTransaction = rc.terms.perTransactionMinor(body.currency);
  if (perTransaction !== undefined && amountMinor > perTransaction) return refused(refusal('LIMIT_EXCEEDED'));
  return {
    ok: true,
    newBeneficiary: 'newBeneficiary' in saved ? saved.newBeneficiary : undefined,
    dailyLimitMinor: rc.terms.dailyMinor(body.currency),
    prepared: {
      workspaceId: rc.caller.workspaceId,
      accountId: rc.caller.accountId,
      clientRef: body.clientRef,
      currency: body.currency,
      amountMinor,
      route: reportedRoute(provider, body.route as Route | undefined),
      crypto: provider.route === 'crypto',
      beneficiaryId: 'beneficiaryId' in saved ? saved.beneficiaryId : null,
      beneficiary: { ...recipient, provider: provider.id } as unknown as Record<string, unknown>,
      sender: sender.senderInfo ? { ...sender.senderInfo } : null,
      quoteId: body.quoteId ?? null,
      purpose: body.purpose ?? null,
      reference: body.reference ?? null,
      metadata: body.metadata ?? null,
    },
  };
}

/** Every check of one row that needs no I/O; a saved beneficiary's checks wait for it to be read. */
function checkRow(rc: RowContext, body: Body): Checked | AwaitingBeneficiary {
  const basics = checkBasics(rc, body);
  if (!basics.ok) return basics;
  const { id, ...full } = body.beneficiary as { id?: string } & Record<string, unknown>;
  if (id === undefined) {
    const input = full as unknown as BeneficiaryInput;
    return checkWithRecipient(rc, body, basics.amountMinor, input, { newBeneficiary: input });
  }
  return {
    ok: 'saved',
    id,
    finish: (found) => {
      const saved = savedRecipient(found);
      return saved.ok ? checkWithRecipient(rc, body, basics.amountMinor, saved.recipient, { beneficiaryId: saved.recipient.id }) : saved;
    },
  };
}

// ---------------------------------------------------------------------------------------------
// A request on its way through the pipeline

interface Work {
  sub: PayoutSubmission;
  batch: boolean;
  bodies: Body[];
  rows: (Checked | AwaitingBeneficiary)[];
  /** A refusal of the whole request decided before its batch (still answered under its key). */
  early: DomainError | undefined;
  /** The workspace's payout terms, parsed once for the request (absent with an early refusal). */
  terms: PayoutTerms | undefined;
}

/** The request-level checks and each row's checks that need no I/O. Throws (a 500 for this request only) when the workspace's stored settings do not parse. */
function checkRequest(ctx: AppContext, sub: PayoutSubmission, originatorOnRecord: boolean): Work {
  const batch = Array.isArray(sub.body);
  const bodies = Array.isArray(sub.body) ? sub.body : [sub.body];
  const work: Work = { sub, batch, bodies, rows: [], early: undefined, terms: undefined };
  if (batch && bodies.length === 0) work.early = fieldError('body', 'body must contain at least one payout');
  else if (bodies.length > ctx.config.limits.payoutBatchRowsMax) {
    work.early = fieldError('body', `body must contain at most ${ctx.config.limits.payoutBatchRowsMax} payouts`);
  } else {
    work.terms = payoutTerms(sub.caller.workspace.settings);
    const rc: RowContext = { ctx, caller: sub.caller, terms: work.terms, originatorOnRecord };
    work.rows = bodies.map((body) => checkRow(rc, body));
  }
  return work;
}

const prefixed = (errors: FieldError[], prefix: string): FieldError[] =>
  errors.map((e) => ({ ...e, field: `${prefix}${e.field}`, message: `${prefix}${e.message}` }));

/** A request whose rows are all checked: refused whole (a single payout's refusal, a batch's field-format errors) or not. */
function wholeRefusal(work: Work, rows: Checked[]): DomainError | undefined {
  if (!work.batch) {
    const only = rows[0] as Checked;
    return only.ok ? undefined : only.error;
  }
  const formatErrors = rows.flatMap((c, i) => (!c.ok && c.fieldFormat ? prefixed(c.error.details ?? [{ field: 'body', message: c.error.message }], `${i}.`) : []));
  return formatErrors.length ? validationError(formatErrors) : undefined;
}

// ---------------------------------------------------------------------------------------------
// Deciding and writing rows against what is stored

type Stored = { ok: true; payout: PayoutView } | { ok: false; error: DomainError };

interface Funding {
  currency: string;
  amountMinor: bigint;
  credit: { system: SystemKind; code?: string };
}

/**
 * The quote of a quote-funded row, consumed in a savepoint that rolls back unless the row can be
 * held: a row refused for its quote or its balance leaves the quote open.
 */
async function fundFromQuote(tx: Tx, row: Ready, terms: PayoutTerms, holds: HoldSet, payoutId: string): Promise<Funding> {
  const p = row.prepared;
  return tx.savepoint(async (sp) => {
    const quote = await consumeQuote(sp, { workspaceId: p.workspaceId, accountId: p.accountId, quoteId: p.quoteId as string, intent: 'payout', usedBy: { type: 'payout', id: payoutId } });
    if (quote.toCurrency !== p.currency || quote.toAmountMinor !== p.amountMinor) {
      throw new DomainError({
        category: 'invalid_request',
        code: 'QUOTE_AMOUNT_MISMATCH',
        message: 'The quote is locked to another currency or amount than this payout',
        details: [{ field: 'quoteId', message: 'quoteId is locked to another currency or amount than this payout', code: 'QUOTE_AMOUNT_MISMATCH' }],
      });
    }
    if (!holds.covers(p.accountId, quote.fromCurrency, quote.fromAmountMinor + terms.feeMinor(quote.fromCurrency))) throw insufficient();
    return { currency: quote.fromCurrency, amountMinor: quote.fromAmountMinor, credit: { system: 'fx_desk' } };
  });
}

interface Planned {
  row: Ready;
  terms: PayoutTerms;
}

/**
 * Decides every row in arrival order exactly as if each ran alone after the ones before it (its daily
 * limit, its clientRef against stored payouts and the rows accepted before it, its quote, the fee in
 * the currency it is funded from, the hold on the balance as the earlier rows left it), then writes
 * them: holds, payouts, first provider steps, and the `payout.failed` events of fiat payouts recorded
 * as failed for balance. The fee of a payout is the workspace's fee for its funding currency.
 */
async function storeRows(ctx: AppContext, tx: Tx, planned: Planned[]): Promise<Stored[]> {
  const ps = planned.map((r) => r.row.prepared);
  const quoteCurrencies = new Map<number, string>();
  for (const [n, p] of ps.entries()) {
    const from = p.quoteId ? await quoteFromCurrency(tx, p, p.quoteId) : undefined;
    if (from) quoteCurrencies.set(n, from);
  }
  const paidToday = await repo.lockPaidToday(tx, planned.filter((r) => r.row.dailyLimitMinor !== undefined).map((r) => r.row.prepared));
  await repo.lockClientRefs(tx, ps);
  const taken = await repo.existingClientRefs(tx, ps);
  const holds = await ledger.openHolds(tx, ps.map((p, n) => ({ accountId: p.accountId, currency: quoteCurrencies.get(n) ?? p.currency })));

  const provider = payoutProviderFor(ctx.config);
  const results: (Stored | { insert: repo.NewPayout; newBeneficiary: BeneficiaryInput | undefined; caller: Prepared })[] = [];
  for (const { row, terms } of planned) {
    const p = row.prepared;
    const dailyKey = `${p.workspaceId}:${p.currency}`;
    const today = paidToday.get(dailyKey) ?? 0n;
    if (row.dailyLimitMinor !== undefined && today + p.amountMinor > row.dailyLimitMinor) {
      results.push({ ok: false, error: refusal('LIMIT_EXCEEDED') });
      continue;
    }
    if (taken.has(`${p.workspaceId}:${p.clientRef}`)) {
      results.push({ ok: false, error: duplicateClientRef() });
      continue;
    }
    const id = newId();
    let funding: Funding = { currency: p.currency, amountMinor: p.amountMinor, credit: { system: 'provider_clearing', code: p.route } };
    if (p.quoteId) {
      try {
        funding = await fundFromQuote(tx, row, terms, holds, id);
      } catch (err) {
        if (!isRefusal(err)) throw err;
        results.push({ ok: false, error: err });
        continue;
      }
    }
    const feeMinor = terms.feeMinor(funding.currency);
    const hold = holds.tryHold({
      accountId: p.accountId,
      currency: funding.currency,
      legs: [
        { amountMinor: funding.amountMinor, credit: funding.credit },
        ...(feeMinor > 0n ? [{ amountMinor: feeMinor, credit: { system: 'fee_revenue' as const }, description: 'Payout fee' }] : []),
      ],
      reference: { type: 'payout', id },
    });
    if (!hold.ok && (p.quoteId || p.crypto)) {
      results.push({ ok: false, error: insufficient() });
      continue;
    }
    taken.add(`${p.workspaceId}:${p.clientRef}`);
    if (hold.ok) paidToday.set(dailyKey, today + p.amountMinor);
    const { crypto: _crypto, ...columns } = p;
    results.push({
      caller: p,
      newBeneficiary: row.newBeneficiary,
      insert: {
        ...columns,
        id,
        status: hold.ok ? 'queued' : 'failed',
        feeMinor,
        provider: provider.name,
        fundingCurrency: funding.currency,
        fundingMinor: funding.amountMinor,
        holdTransferId: hold.ok ? (hold.transferIds[0] ?? null) : null,
        feeTransferId: hold.ok ? (hold.transferIds[1] ?? null) : null,
        failureReason: hold.ok ? null : 'insufficient_balance',
      },
    });
  }

  const inserts = results.flatMap((r) => ('insert' in r ? [r] : []));
  for (const r of inserts) {
    if (!r.newBeneficiary) continue;
    // A beneficiary sent in full is saved with the payout that names it (checked already, whole).
    const created = await createBeneficiary(tx, { workspaceId: r.caller.workspaceId, subAccountId: r.caller.accountId === r.caller.workspaceId ? undefined : r.caller.accountId }, r.newBeneficiary, { fieldPrefix: 'beneficiary.' });
    r.insert.beneficiaryId = created.id;
  }
  await holds.commit(tx);
  const stored = new Map((await repo.insertPayouts(tx, inserts.map((r) => r.insert))).map((row) => [row.id, row]));
  const firstStepAt = new Date(Date.now() + provider.firstStepMs());
  await enqueueMany(
    tx,
    inserts.filter((r) => r.insert.status === 'queued').map((r) => ({ kind: PAYOUT_STEP_JOB, payload: { payoutId: r.insert.id }, runAt: firstStepAt, maxAttempts: 20 })),
  );
  const out: Stored[] = [];
  for (const r of results) {
    if (!('insert' in r)) {
      out.push(r);
      continue;
    }
    const row = stored.get(r.insert.id) as repo.PayoutRow;
    if (row.status === 'failed') {
      // Recorded as failed under its clientRef with its only event; the answer is still the refusal.
      await recordEvent(tx, { workspaceId: row.workspace_id, accountId: row.account_id === row.workspace_id ? undefined : row.account_id, type: 'payout.failed', data: payoutEventData(row) });
      out.push({ ok: false, error: insufficient() });
    } else out.push({ ok: true, payout: payoutData(row) });
  }
  return out;
}

/** A request's result from its rows' outcomes: the payout or the refusal of a single one, or a batch's rows in order. */
function resultOf(w: Work, rows: Stored[]): SubmissionResult {
  if (w.batch) {
    return { kind: 'batch', rows: rows.map((r, k) => (r.ok ? r.payout : { error: r.error.message, clientRef: (w.bodies[k] as Body).clientRef })) };
  }
  const only = rows[0] as Stored;
  return only.ok ? { kind: 'created', payout: only.payout } : { kind: 'refused', error: only.error };
}

// ---------------------------------------------------------------------------------------------
// A group of requests: one transaction

async function runBatch(ctx: AppContext, tx: Tx, works: Work[]): Promise<SubmissionAnswer[]> {
  const answers: (SubmissionAnswer | undefined)[] = works.map(() => undefined);
  const aboutKey = new Set<number>();

  // 1. Idempotency-Keys: in flight elsewhere (or twice in this group), replayed, reused, or new.
  const keyed = works.flatMap((w, i) => (w.sub.idempotency ? [{ i, request: w.sub.idempotency }] : []));
  const claims = await claimKeys(ctx, tx, keyed.map((k) => k.request));
  const seen = new Set<string>();
  keyed.forEach(({ i, request }, n) => {
    const id = `${request.workspaceId}:${request.key}`;
    const decided = seen.has(id) ? keyProcessing() : decideClaim(claims[n] as Parameters<typeof decideClaim>[0], request);
    seen.add(id);
    if (decided === undefined) return;
    aboutKey.add(i);
    answers[i] = decided instanceof DomainError ? { answer: (works[i] as Work).sub.render({ kind: 'refused', error: decided }), replayed: false } : { answer: decided, replayed: true };
  });

  // 2. The saved beneficiaries, in one statement, share-locked until commit; then the checks that need them.
  const live = works.flatMap((w, i) => (answers[i] || w.early ? [] : [i]));
  const awaiting = live.flatMap((i) => {
    const w = works[i] as Work;
    return w.rows.flatMap((r, k) => (r.ok === 'saved' ? [{ i, k, id: r.id, scope: w.sub.caller }] : []));
  });
  const found = await findBeneficiaries(tx, awaiting.map((a) => ({ workspaceId: a.scope.workspaceId, subAccountId: a.scope.subAccountId, id: a.id })), { lock: true });
  awaiting.forEach((a, n) => {
    const w = works[a.i] as Work;
    w.rows[a.k] = (w.rows[a.k] as AwaitingBeneficiary).finish(found[n]);
  });

  // 3. Whole-request refusals, then every accepted row of the group decided and written in arrival order.
  const results = new Map<number, SubmissionResult>();
  for (const [i, w] of works.entries()) if (w.early && !answers[i]) results.set(i, { kind: 'refused', error: w.early });
  const planned: Planned[] = [];
  const slots: { i: number; k: number }[] = [];
  for (const i of live) {
    const w = works[i] as Work;
    const whole = wholeRefusal(w, w.rows as Checked[]);
    if (whole) {
      results.set(i, { kind: 'refused', error: whole });
      continue;
    }
    const terms = w.terms as PayoutTerms;
    (w.rows as Checked[]).forEach((r, k) => {
      if (!r.ok) return;
      planned.push({ row: r, terms });
      slots.push({ i, k });
    });
  }
  const stored = await storeRows(ctx, tx, planned);
  const perRow = new Map(slots.map((s, n) => [`${s.i}:${s.k}`, stored[n] as Stored]));
  for (const i of live) {
    if (results.has(i)) continue;
    const w = works[i] as Work;
    const rows = (w.rows as Checked[]).map((r, k): Stored => (r.ok ? (perRow.get(`${i}:${k}`) as Stored) : { ok: false, error: r.error }));
    results.set(i, resultOf(w, rows));
  }

  // 4. Every answer, and the answers of keyed requests stored with the effects they describe.
  works.forEach((w, i) => {
    answers[i] ??= { answer: w.sub.render(results.get(i) as SubmissionResult), replayed: false };
  });
  await storeAnswers(
    ctx,
    tx,
    keyed.flatMap(({ i, request }) => (aboutKey.has(i) ? [] : [{ request, answer: (answers[i] as SubmissionAnswer).answer }])),
  );
  return answers as SubmissionAnswer[];
}

/**
 * The payout creation service: checks a request, then hands it to the group commit. Requests of one
 * workspace share a lane; a group takes at most `payoutCommitRowsMax` rows; past `payoutQueueMax`
 * waiting requests, a request is refused with 503 and Retry-After.
 */
export class PayoutService {
  private readonly batcher: LaneBatcher<Work, SubmissionAnswer>;

  constructor(private readonly ctx: AppContext) {
    const limits = ctx.config.limits;
    this.batcher = new LaneBatcher((works) => ctx.db.tx((tx) => runBatch(ctx, tx, works)), (w) => w.sub.caller.workspaceId, {
      lanes: limits.payoutLanes,
      batchWeightMax: limits.payoutCommitRowsMax,
      queueMax: limits.payoutQueueMax,
      weightOf: (w) => Math.max(1, w.rows.length),
      onFull: () =>
        new DomainError({
          category: 'unavailable',
          code: 'SERVICE_BUSY',
          message: 'Too many payouts are waiting to be written; retry shortly with the same Idempotency-Key',
          retryable: true,
          retryAfterSec: 1,
        }),
    });
  }

  /** Creates the payouts of one request (one payout or a batch) and answers it, as rendered by `sub.render`. */
  async submit(sub: PayoutSubmission): Promise<SubmissionAnswer> {
    const { caller } = sub;
    const bodies = Array.isArray(sub.body) ? sub.body : [sub.body];
    // A sub-account's own identity is read only when a payout needs an originator and the workspace has none.
    const needsOriginator = bodies.some((b) => b.senderInfo === undefined);
    const originatorOnRecord = needsOriginator
      ? await hasOriginatorOnRecord(this.ctx.db, { id: caller.workspaceId, settings: caller.workspace.settings }, caller.subAccountId)
      : false;
    return this.batcher.submit(checkRequest(this.ctx, sub, originatorOnRecord));
  }
}
