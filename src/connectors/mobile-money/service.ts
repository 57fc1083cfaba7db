import { randomUUID, timingSafeEqual } from 'node:crypto';
import type { AppContext } from '../../platform/context.js';
import type { Tx } from '../../platform/db/db.js';
import { enqueueMany, LIFECYCLE_JOB_ATTEMPTS_MAX } from '../../platform/jobs/queue.js';
import type { CryptoBox } from '../../platform/lib/crypto-box.js';
import type { FieldError } from '../../platform/lib/errors.js';
import { formatAmount } from '../../platform/lib/money.js';
import { reportPayoutOutcomes } from '../../domains/payouts/payouts.port.js';
import { moveAnyDeposit } from '../../domains/deposits/deposits.port.js';
import type { HandedOverPayout, RecipientCheck, RecipientCheckRequest } from '../connector.js';
import { contentHash, type GsmaClient, type GsmaError, type GsmaTransaction, type RequestState } from './client.js';
import { collectionFailureReason, mobileMoneyReason } from './codes.js';
import type { MobileMoneyConfig } from './config.js';
import * as repo from './mobile-money.repository.js';

export const MOMO_SEND_JOB = 'mobile-money.send';
export const MOMO_POLL_JOB = 'mobile-money.poll';
export const MOMO_COLLECT_JOB = 'mobile-money.collect';
/** Where the operator's callbacks come in: `<callbackBaseUrl>` + this + `/<correlation id>`. */
export const CALLBACK_PATH = '/callbacks/mobile-money';

/** What the connector works with: the validated section, the provider's client, the encryption box. */
export interface MomoRuntime {
  config: MobileMoneyConfig;
  client: GsmaClient;
  box: CryptoBox;
}

/** A request (disbursement, request to pay) as recorded (sealed) before it leaves, and sent byte for byte the same on every attempt. */
export interface RecordedRequest {
  body: string;
  callbackUrl: string;
}

/** The beneficiary's mobile-money wallet as submitted (catalog account type `mobile_money`). */
export function walletOf(beneficiary: Record<string, unknown>): { phoneNumber: string; network: string | undefined } | undefined {
  const accounts = (beneficiary.accounts ?? []) as { type?: string; data?: { phoneNumber?: unknown; network?: unknown } }[];
  const data = accounts.find((a) => a.type === 'mobile_money' && typeof a.data?.phoneNumber === 'string')?.data;
  if (!data) return undefined;
  return { phoneNumber: String(data.phoneNumber), network: typeof data.network === 'string' ? data.network : undefined };
}

export function submitErrors(beneficiary: Record<string, unknown>): FieldError[] {
  if (!walletOf(beneficiary)) return [{ field: 'beneficiary.accounts', message: 'a mobile-money payout needs a mobile_money account with its phoneNumber', code: 'RECIPIENT_DETAILS_INVALID' }];
  return [];
}

const str = (v: unknown): string | undefined => (typeof v === 'string' && v.trim() !== '' ? v.trim() : undefined);
const clip = (v: string | undefined, n = 256): string | undefined => (v === undefined ? undefined : v.slice(0, n));

function subjectName(party: Record<string, unknown>): Record<string, string> {
  const first = str(party.firstName);
  const last = str(party.lastName);
  const full = str(party.name) ?? str(party.companyName) ?? ([first, last].filter(Boolean).join(' ') || undefined);
  return Object.fromEntries(Object.entries({ firstName: clip(first), lastName: clip(last), fullName: clip(full) }).filter(([, v]) => v !== undefined)) as Record<string, string>;
}

/** The body of `POST /transactions/type/disbursement` for a payout (requestTransactionType of the GSMA definition). */
export function disbursementBody(mm: MomoRuntime, p: HandedOverPayout, phoneNumber: string, network: string | undefined, requestDate: Date): Record<string, unknown> {
  const sender = p.sender ?? undefined;
  const senderKyc = sender
    ? Object.fromEntries(
        Object.entries({ subjectName: subjectName(sender), contactPhone: clip(str(sender.phoneNumber)), nationality: undefined as string | undefined }).filter(([, v]) => v !== undefined && !(typeof v === 'object' && Object.keys(v).length === 0)),
      )
    : undefined;
  return {
    amount: formatAmount(p.amountMinor, p.currency),
    currency: p.currency,
    creditParty: [{ key: 'msisdn', value: phoneNumber }],
    ...(mm.config.debitParty ? { debitParty: [mm.config.debitParty] } : {}),
    requestingOrganisationTransactionReference: clip(p.clientRef),
    ...(p.reference ? { descriptionText: p.reference } : {}),
    requestDate: requestDate.toISOString(),
    recipientKyc: { subjectName: subjectName(p.beneficiary) },
    ...(senderKyc && Object.keys(senderKyc).length > 0 ? { senderKyc } : {}),
    ...(network ? { metadata: [{ key: 'network', value: network }] } : {}),
  };
}

/**
 * Takes payouts in, in the payouts step's transaction: each request is built and recorded (sealed,
 * its correlation id the payout's id) with its send job, before anything leaves. One that cannot be
 * sent (no wallet) is held for the operator.
 */
export async function acceptPayouts(mm: MomoRuntime, tx: Tx, payouts: readonly HandedOverPayout[]): Promise<void> {
  const now = new Date();
  const rows: repo.NewMomoPayout[] = payouts.map((p) => {
    const wallet = walletOf(p.beneficiary);
    const request: RecordedRequest = {
      body: wallet ? JSON.stringify(disbursementBody(mm, p, wallet.phoneNumber, wallet.network, now)) : '',
      callbackUrl: `${mm.config.callbackBaseUrl}${CALLBACK_PATH}/${p.id}`,
    };
    return { payoutId: p.id, workspaceId: p.workspaceId, request: mm.box.sealJson(request), status: wallet ? 'recorded' : 'held', heldReason: wallet ? null : 'the beneficiary has no mobile_money account with a phoneNumber' };
  });
  const inserted = new Set(await repo.insertMomoPayouts(tx, rows));
  const jobs = rows.filter((r) => r.status === 'recorded' && inserted.has(r.payoutId)).map((r) => ({ kind: MOMO_SEND_JOB, payload: { payoutId: r.payoutId }, uniqueKey: `${MOMO_SEND_JOB}:${r.payoutId}`, maxAttempts: LIFECYCLE_JOB_ATTEMPTS_MAX }));
  await enqueueMany(tx, jobs);
}

export function releasePayout(tx: Tx, payoutId: string): Promise<boolean> {
  return repo.releaseMomoPayout(tx, payoutId);
}

/** What the provider said of a transaction, in Corridor's terms. */
export type ProviderState = { kind: 'completed'; reference: string | null } | { kind: 'failed'; error: GsmaError; reference: string | null } | { kind: 'reversed'; reference: string | null } | { kind: 'pending' };

/** A transaction's free-text status (GSMA leaves it to the provider) as a state; anything unrecognised is still pending. */
export function stateOfTransaction(t: GsmaTransaction, error?: GsmaError): ProviderState {
  const status = String(t.transactionStatus).toLowerCase();
  const reference = t.transactionReference ?? null;
  if (['completed', 'success', 'successful'].includes(status)) return { kind: 'completed', reference };
  if (status === 'reversed') return { kind: 'reversed', reference };
  if (['failed', 'rejected', 'declined', 'cancelled'].includes(status)) return { kind: 'failed', error: error ?? { errorCategory: 'internal', errorCode: 'genericError' }, reference };
  return { kind: 'pending' };
}

/** The reason a payout carries for a provider error: the code, its words (with the provider's own when it gave some), who must act. */
export function reasonOf(error: GsmaError): { code: string; description: string } {
  const reason = mobileMoneyReason(error.errorCode);
  const theirs = error.errordescription && error.errordescription.trim() !== '' ? ` (the provider: "${error.errordescription.trim().slice(0, 200)}")` : '';
  return { code: reason.code, description: `${reason.words}${theirs}; to act: ${reason.actor}` };
}

/**
 * Applies what the provider said of a payout in the caller's transaction: completed → processing
 * (if it was not yet) then paid; failed → failed with the provider's reason, funds back; reversed
 * (after completed) → reverted, funds back once. Answers whether anything moved.
 */
async function applyPayoutState(ctx: AppContext, tx: Tx, payoutId: string, state: Exclude<ProviderState, { kind: 'pending' }>): Promise<boolean> {
  if (state.kind === 'completed') {
    if (!(await repo.markOutcome(tx, 'payout', payoutId, ['recorded', 'sent'], 'completed', state.reference))) return false;
    await reportPayoutOutcomes(ctx, tx, [{ payoutId, move: 'process' }]);
    await reportPayoutOutcomes(ctx, tx, [{ payoutId, move: 'pay' }]);
    return true;
  }
  if (state.kind === 'failed') {
    if (!(await repo.markOutcome(tx, 'payout', payoutId, ['recorded', 'sent'], 'failed', state.reference))) return false;
    await reportPayoutOutcomes(ctx, tx, [{ payoutId, move: 'fail', failureReason: `mobile_money_${state.error.errorCode}`, returnReason: reasonOf(state.error) }]);
    return true;
  }
  if (!(await repo.markOutcome(tx, 'payout', payoutId, ['completed'], 'reversed', state.reference))) return false;
  await reportPayoutOutcomes(ctx, tx, [{ payoutId, move: 'revert', failureReason: 'mobile_money_reversed', returnReason: reasonOf({ errorCategory: 'businessRule', errorCode: 'reversed' }) }]);
  return true;
}

/**
 * Applies what the provider said of a collection's request to pay: completed → the deposit completes
 * (credited by creditedAmount, deposit.completed once); failed → the deposit fails with the payer's
 * reason (payer_declined, wrong_pin, timeout…), deposit.failed, nothing credited. A reversal of a
 * collection is left to the operator (the deposit's reverse move). Answers whether anything moved.
 */
async function applyCollectionState(tx: Tx, depositId: string, state: Exclude<ProviderState, { kind: 'pending' }>): Promise<boolean> {
  if (state.kind === 'reversed') return false;
  const to = state.kind === 'completed' ? 'completed' : 'failed';
  if (!(await repo.markOutcome(tx, 'collection', depositId, ['recorded', 'sent'], to, state.reference))) return false;
  if (state.kind === 'completed') await moveAnyDeposit(tx, depositId, 'complete');
  else await moveAnyDeposit(tx, depositId, 'fail', collectionFailureReason(state.error));
  return true;
}

/** Applies what the provider said of a request (a payout's or a collection's) in the caller's transaction; answers whether anything moved. */
export async function applyState(ctx: AppContext, tx: Tx, request: Pick<repo.MomoRequestRow, 'kind' | 'id'>, state: ProviderState): Promise<boolean> {
  if (state.kind === 'pending') return false;
  return request.kind === 'payout' ? applyPayoutState(ctx, tx, request.id, state) : applyCollectionState(tx, request.id, state);
}

async function recordSent(ctx: AppContext, request: Pick<repo.MomoRequestRow, 'kind' | 'id'>, serverCorrelationId: string | null, pollInMs: number): Promise<void> {
  await ctx.db.tx(async (tx) => {
    const sent = await repo.markSent(tx, request.kind, request.id, serverCorrelationId, new Date(Date.now() + pollInMs));
    if (sent && request.kind === 'payout') await reportPayoutOutcomes(ctx, tx, [{ payoutId: request.id, move: 'process' }]);
  });
}

const TRANSIENT_CATEGORIES = new Set(['authorisation', 'internal', 'serviceUnavailable']);
const TRANSACTION_TYPE = { payout: 'disbursement', collection: 'merchantpay' } as const;

/**
 * A send job: sends a recorded request (a payout's disbursement, a collection's request to pay) to
 * the provider. Each attempt is counted before the request leaves; after the first, the provider is
 * asked first (`GET /responses/{correlation id}`), so a request that arrived before a crash is never
 * made again, and one that did not is re-sent byte for byte with the same X-CorrelationID. The
 * provider's acceptance makes it sent (a payout processing); a business refusal fails it with the
 * provider's reason; a fault of the provider or of Corridor's credentials throws, and the job retries.
 */
export async function runSend(ctx: AppContext, mm: MomoRuntime, kind: repo.MomoKind, id: string): Promise<void> {
  const row = await repo.findRequest(ctx.db, kind, id);
  if (!row || row.status !== 'recorded') return;
  const attempts = await repo.beginSend(ctx.db, kind, id);
  if (attempts === undefined) return;
  const request = mm.box.openJson<RecordedRequest>(row.request);
  const waitMs = mm.config.callbackWaitSeconds * 1000;
  const type = TRANSACTION_TYPE[kind];
  try {
    if (attempts > 1) {
      const known = await mm.client.response(row.correlation_id);
      if (known.ok) return await recordSent(ctx, row, null, 0);
      if (known.status !== 404) throw new Error(`GET /responses/${row.correlation_id} answered ${known.status}: ${known.error?.errorCode ?? known.text}`);
    }
    const answer = await mm.client.create(type, request.body, row.correlation_id, request.callbackUrl);
    if (answer.ok && answer.status === 201) {
      const state = stateOfTransaction(answer.body as GsmaTransaction);
      if (state.kind === 'pending') return await recordSent(ctx, row, null, waitMs);
      await ctx.db.tx((tx) => applyState(ctx, tx, row, state));
      return;
    }
    if (answer.ok) {
      const rs = answer.body as RequestState;
      if (rs.status === 'failed' && rs.error) {
        await ctx.db.tx((tx) => applyState(ctx, tx, row, { kind: 'failed', error: rs.error as GsmaError, reference: rs.objectReference ?? null }));
        return;
      }
      return await recordSent(ctx, row, rs.serverCorrelationId ?? null, rs.status === 'completed' ? 0 : waitMs);
    }
    const error = answer.error;
    // The provider already has this correlation id: the request arrived before; its outcome is asked for.
    if (error?.errorCode === 'duplicateRequest') return await recordSent(ctx, row, null, 0);
    if (error && (answer.status === 400 || answer.status === 404) && !TRANSIENT_CATEGORIES.has(error.errorCategory)) {
      await ctx.db.tx((tx) => applyState(ctx, tx, row, { kind: 'failed', error, reference: null }));
      return;
    }
    throw new Error(`POST /transactions/type/${type} answered ${answer.status}: ${error ? `${error.errorCategory}/${error.errorCode}` : answer.text}`);
  } catch (err) {
    await repo.recordError(ctx.db, kind, id, (err as Error).message);
    // Counted as begun: the retry asks the provider first.
    throw err;
  }
}

/** What the provider knows now of a request at it: its response (then the transaction it links), else its request state. */
export async function askProvider(mm: MomoRuntime, row: repo.MomoRequestRow): Promise<ProviderState> {
  const response = await mm.client.response(row.correlation_id);
  let errorOfState: GsmaError | undefined;
  let rsStatus: RequestState['status'] | undefined;
  if (row.server_correlation_id) {
    const rs = await mm.client.requestState(row.server_correlation_id);
    if (rs.ok) {
      errorOfState = rs.body.error;
      rsStatus = rs.body.status;
    }
  }
  if (response.ok && typeof response.body?.link === 'string') {
    const t = await mm.client.transaction(response.body.link);
    if (t.ok) return stateOfTransaction(t.body, errorOfState);
    if (t.status !== 404) throw new Error(`GET ${response.body.link} answered ${t.status}`);
  } else if (!response.ok && response.status !== 404) throw new Error(`GET /responses/${row.correlation_id} answered ${response.status}`);
  if (rsStatus === 'failed') return { kind: 'failed', error: errorOfState ?? { errorCategory: 'internal', errorCode: 'genericError' }, reference: null };
  return { kind: 'pending' };
}

/** One look at payouts and collections whose callback is overdue: each outcome the provider gives is applied; one still pending is asked again after pollSeconds. */
export async function runPoll(ctx: AppContext, mm: MomoRuntime): Promise<Date> {
  const later = () => new Date(Date.now() + mm.config.pollSeconds * 1000);
  for (const kind of ['payout', 'collection'] as const) {
    for (const row of await repo.duePolls(ctx.db, kind, 100)) {
      try {
        const state = await askProvider(mm, row);
        if (state.kind === 'pending') await repo.setPollAt(ctx.db, kind, row.id, later());
        else await ctx.db.tx((tx) => applyState(ctx, tx, row, state));
      } catch (err) {
        await repo.recordError(ctx.db, kind, row.id, (err as Error).message);
        await repo.setPollAt(ctx.db, kind, row.id, later());
        ctx.log.warn({ [kind === 'payout' ? 'payoutId' : 'depositId']: row.id, err: (err as Error).message }, `mobile money: the provider could not say what became of a ${kind}; asked again later`);
      }
    }
  }
  return later();
}

// ---------------------------------------------------------------------------------------------
// Callbacks

/** Retention (src/retention.ts): callbacks that moved nothing, older than `before`; see the repository. */
export const deleteCallbacksBefore = repo.deleteCallbacksBefore;

export interface CallbackInput {
  correlationId: string;
  headers: Record<string, string | string[] | undefined>;
  rawBody: string;
}

export interface CallbackAnswer {
  status: 204 | 400 | 401 | 404;
  outcome: repo.NewCallback['outcome'] | 'seen';
  reason?: string;
}

const header = (h: CallbackInput['headers'], name: string): string | undefined => {
  const v = h[name.toLowerCase()];
  return Array.isArray(v) ? v[0] : v;
};

function sameSecret(given: string | undefined, expected: string): boolean {
  if (given === undefined) return false;
  const a = Buffer.from(given, 'utf8');
  const b = Buffer.from(expected, 'utf8');
  return a.length === b.length && timingSafeEqual(a, b);
}

/** Why a callback is not the operator's, or undefined: its X-API-Key is the shared callback secret, its X-Content-Hash the SHA-256 of its body, its X-Date fresh. */
export function refusal(mm: MomoRuntime, input: CallbackInput, now = new Date()): string | undefined {
  if (!sameSecret(header(input.headers, 'x-api-key'), mm.box.decrypt(mm.config.callbackSecret))) return 'X-API-Key is not the callback secret configured with the operator';
  const hash = header(input.headers, 'x-content-hash');
  if (!hash || hash.toLowerCase() !== contentHash(input.rawBody)) return 'X-Content-Hash is missing or is not the SHA-256 of the body';
  const date = Date.parse(header(input.headers, 'x-date') ?? '');
  if (Number.isNaN(date)) return 'X-Date is missing or not a date';
  if (Math.abs(now.getTime() - date) > mm.config.callbackMaxAgeSeconds * 1000) return `X-Date is more than ${mm.config.callbackMaxAgeSeconds} s away from now: a stale or replayed callback`;
  return undefined;
}

function stateOfCallback(body: unknown): ProviderState | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const b = body as Record<string, unknown>;
  if (typeof b.errorCode === 'string' && typeof b.errorCategory === 'string') return { kind: 'failed', error: b as unknown as GsmaError, reference: null };
  if (typeof b.transactionStatus === 'string') return stateOfTransaction(b as unknown as GsmaTransaction);
  return undefined;
}

/**
 * A callback (or pushed credit) authenticated, or refused: a refused one is recorded under `recordedAs`
 * without its body, logged and answered 401; an authenticated one answers its content hash and its
 * body parsed (undefined when it is not JSON).
 */
export async function authenticated(ctx: AppContext, mm: MomoRuntime, input: CallbackInput, recordedAs: string): Promise<{ refused: CallbackAnswer } | { sha: string; body: unknown }> {
  const sha = contentHash(input.rawBody);
  const why = refusal(mm, input);
  if (why) {
    await repo.insertCallback(ctx.db, { id: randomUUID(), correlationId: recordedAs, contentSha256: sha, outcome: 'refused', reason: why, body: null });
    ctx.log.warn({ correlationId: recordedAs.slice(0, 64), reason: why }, 'mobile money: a callback refused');
    return { refused: { status: 401, outcome: 'refused', reason: why } };
  }
  try {
    return { sha, body: JSON.parse(input.rawBody) as unknown };
  } catch {
    return { sha, body: undefined };
  }
}

/**
 * Takes one callback in: refused (recorded without its body) unless authenticated; then recorded once
 * by its correlation id and content hash (the same callback again changes nothing), and applied to
 * its payout in the same transaction. One for a correlation id Corridor never sent is recorded
 * `unknown` for the operator (an alert condition) and answered 404, as the definition says.
 */
export async function takeCallback(ctx: AppContext, mm: MomoRuntime, input: CallbackInput): Promise<CallbackAnswer> {
  const taken = await authenticated(ctx, mm, input, input.correlationId);
  if ('refused' in taken) return taken.refused;
  const { sha, body } = taken;
  const state = stateOfCallback(body);
  return ctx.db.tx(async (tx) => {
    const id = randomUUID();
    if (!(await repo.insertCallback(tx, { id, correlationId: input.correlationId, contentSha256: sha, outcome: 'unchanged', reason: null, body: mm.box.encrypt(input.rawBody) }))) return { status: 204 as const, outcome: 'seen' as const };
    const row = await repo.findByCorrelation(tx, input.correlationId, true);
    if (!row) {
      await repo.setCallbackOutcome(tx, id, 'unknown', 'no payout or collection has this correlation id');
      ctx.log.warn({ correlationId: input.correlationId.slice(0, 64) }, 'mobile money: a callback for a correlation id Corridor never sent');
      return { status: 404 as const, outcome: 'unknown' as const };
    }
    if (!state) {
      await repo.setCallbackOutcome(tx, id, 'unchanged', 'neither a transaction nor an error object');
      return { status: 400 as const, outcome: 'unchanged' as const, reason: 'the body is neither a transaction nor an error object' };
    }
    const moved = await applyState(ctx, tx, row, state);
    if (moved) await repo.setCallbackOutcome(tx, id, 'applied', null);
    return { status: 204 as const, outcome: moved ? ('applied' as const) : ('unchanged' as const) };
  });
}

// ---------------------------------------------------------------------------------------------
// Recipient check

/** `GET /accounts/msisdn/{msisdn}/accountname`: the wallet holder's name, not found, or unavailable (never throws for the provider's fault). */
export async function verifyRecipient(mm: MomoRuntime, request: RecipientCheckRequest): Promise<RecipientCheck> {
  if (!mm.config.accountNameLookup) return { kind: 'unavailable', reason: 'this operator offers no account-name lookup (accountNameLookup is false)' };
  const wallet = walletOf(request.beneficiary);
  if (!wallet) return { kind: 'unavailable', reason: 'the beneficiary has no mobile_money account with a phoneNumber' };
  let answer;
  try {
    answer = await mm.client.accountName('msisdn', wallet.phoneNumber);
  } catch (err) {
    return { kind: 'unavailable', reason: (err as Error).message };
  }
  if (answer.ok) {
    const n = answer.body?.name;
    const name = n?.fullName?.trim() || [n?.firstName, n?.middleName, n?.lastName].filter((p) => p && p.trim() !== '').join(' ');
    return name ? { kind: 'account_name', accountName: name } : { kind: 'unavailable', reason: 'the provider answered no name for the account' };
  }
  if (answer.status === 404) return { kind: 'account_not_found', reason: answer.error ? `${answer.error.errorCode}: ${mobileMoneyReason(answer.error.errorCode).words}` : 'no wallet on that number' };
  return { kind: 'unavailable', reason: `the provider answered ${answer.status}${answer.error ? ` ${answer.error.errorCode}` : ''}` };
}
