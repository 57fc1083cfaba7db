import type { Static } from 'typebox';
import type { AppContext } from '../../platform/context.js';
import type { Tx } from '../../platform/db/db.js';
import { DomainError, type FieldError, fieldError, refusal, validationError } from '../../platform/lib/errors.js';
import { enqueueMany } from '../../platform/jobs/queue.js';
import { currencyInfo } from '../../platform/lib/currencies.js';
import { parseAmount } from '../../platform/lib/money.js';
import { hasOriginatorOnRecord } from '../accounts/accounts.service.js';
import type { WorkspaceTerms } from '../accounts/workspace-terms.js';
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
import { holdForApproval, type ApprovalCandidate, type ApprovalView } from '../../controls/approvals/approvals.service.js';
import { holdForRecipientCheck, type CheckCandidate } from '../../controls/recipient-checks/recipient-checks.service.js';
import { recordEvent } from '../events/events.service.js';
import { lockQuotes, useQuotes } from '../fx/fx.service.js';
import { ledger } from '../ledger/ledger.service.js';
import { payoutEventData, stepJobs } from './payouts.lifecycle.js';
import { insufficient, planPayouts, quoteKey, type Decision, type PlanRow, type PlanSnapshot, type Prepared } from './payouts.plan.js';
import { payoutData } from './payouts.read.js';
import * as repo from './payouts.repository.js';
import { countPayoutMoves, metrics } from '../../platform/observability/metrics.js';
import type { PayoutBody } from './payouts.schemas.js';
import type { Caller } from '../accounts/caller.js';
import { holdListedPayouts, screenBeneficiaries, type Hit } from '../../controls/screening/screening.service.js';
import { assertWorkspaceRight } from '../users/rights.js';

/**
 * Payout creation: one pipeline for one payout, a batch request, and every request that arrives
 * together. A request is checked without I/O first (check), then the HTTP layer groups requests
 * (one transaction per group, with their Idempotency-Keys) and hands the group to createMany: read
 * (and share-lock) the saved beneficiaries and finish the checks, read and lock what the rows are
 * decided against (readSnapshot), decide every row in arrival order without I/O (planPayouts), and
 * write the plan (writePlan). Each request gets exactly the result it would get alone, in arrival order.
 */

type Body = Static<typeof PayoutBody>;

export type PayoutView = ReturnType<typeof payoutData> & { approval?: ApprovalView };
export type BatchRow = PayoutView | { error: string; clientRef: string };

/** What a request is answered: one payout, a batch's rows in request order, or a refusal of the whole request. */
export type SubmissionResult = { kind: 'created'; payout: PayoutView } | { kind: 'batch'; rows: BatchRow[] } | { kind: 'refused'; error: DomainError };

type Refused = { ok: false; error: DomainError; fieldFormat: boolean };
type Ready = { ok: true; prepared: Prepared; newBeneficiary: BeneficiaryInput | undefined; dailyLimitMinor: bigint | undefined; beneficiaryCreatedAt: Date | undefined };
type Checked = Ready | Refused;
/** A row waiting for its saved beneficiary, read in the write transaction. */
type AwaitingBeneficiary = { ok: 'saved'; id: string; finish: (found: BeneficiaryView | undefined) => Checked };

const refused = (error: DomainError, fieldFormat = false): Refused => ({ ok: false, error, fieldFormat });

// ---------------------------------------------------------------------------------------------
// The checks of one row that need no I/O, in the spec's order

interface RowContext {
  ctx: AppContext;
  caller: Caller;
  terms: WorkspaceTerms;
  /** The account acted on has a business identity on record (the originator when senderInfo is omitted). */
  originatorOnRecord: boolean;
}

/** The first checks: the workspace may pay out and has the corridor's currency, the amount is well formed. */
function checkBasics(rc: RowContext, body: Body): Refused | { ok: true; amountMinor: bigint } {
  if (!rc.terms.payoutsPermitted) return refused(refusal('PAYOUT_NOT_PERMITTED'));
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
 * What the connector that will serve the rail refuses at submit (for instance the bank's SWIFT files
 * need a structured postal address), one entry per field; a 400 like the recipient's own checks.
 */
function connectorRefusal(rc: RowContext, rail: string, recipient: Recipient, body: Body): Refused | undefined {
  const connector = rc.ctx.connectors.forRoute(rail, rc.caller.workspaceId, body.currency);
  const texts = { reference: body.reference ?? null, sender: (body.senderInfo as Record<string, unknown> | undefined) ?? null };
  const errors = connector.submitErrors?.(rail, recipient as unknown as Record<string, unknown>, texts) ?? [];
  return errors.length ? refused(validationError(errors)) : undefined;
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
  saved: { beneficiaryId: string; createdAt: string } | { newBeneficiary: BeneficiaryInput },
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
  const connectorErrors = connectorRefusal(rc, provider.route, recipient, body);
  if (connectorErrors) return connectorErrors;
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
    beneficiaryCreatedAt: 'createdAt' in saved ? new Date(saved.createdAt) : undefined,
    dailyLimitMinor: rc.terms.dailyMinor(body.currency),
    prepared: {
      workspaceId: rc.caller.workspaceId,
      accountId: rc.caller.accountId,
      clientRef: body.clientRef,
      currency: body.currency,
      amountMinor,
      route: reportedRoute(provider, body.route as Route | undefined),
      rail: provider.route,
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
      return saved.ok ? checkWithRecipient(rc, body, basics.amountMinor, saved.recipient, { beneficiaryId: saved.recipient.id, createdAt: saved.recipient.createdAt }) : saved;
    },
  };
}

// ---------------------------------------------------------------------------------------------
// A request on its way through the pipeline

/** A request checked as far as it can be without I/O; what createMany takes. */
export interface CheckedRequest {
  caller: Caller;
  batch: boolean;
  bodies: Body[];
  rows: (Checked | AwaitingBeneficiary)[];
  /** A refusal of the whole request decided before its group (still answered under its key). */
  early: DomainError | undefined;
  /** The workspace's payout terms, parsed once for the request (absent with an early refusal). */
  terms: WorkspaceTerms | undefined;
  /** What the request weighs in a group: its rows (at least 1). */
  weight: number;
}

/** The request-level checks and each row's checks that need no I/O. */
function checkRequest(ctx: AppContext, caller: Caller, body: Body | Body[], originatorOnRecord: boolean): CheckedRequest {
  const batch = Array.isArray(body);
  const bodies = Array.isArray(body) ? body : [body];
  const request: CheckedRequest = { caller, batch, bodies, rows: [], early: undefined, terms: undefined, weight: 1 };
  if (batch && bodies.length === 0) request.early = fieldError('body', 'body must contain at least one payout');
  else if (bodies.length > ctx.config.limits.payoutBatchRowsMax) {
    request.early = fieldError('body', `body must contain at most ${ctx.config.limits.payoutBatchRowsMax} payouts`);
  } else {
    request.terms = caller.workspace.terms;
    const rc: RowContext = { ctx, caller, terms: request.terms, originatorOnRecord };
    request.rows = bodies.map((b) => checkRow(rc, b));
    request.weight = Math.max(1, request.rows.length);
  }
  return request;
}

const prefixed = (errors: FieldError[], prefix: string): FieldError[] =>
  errors.map((e) => ({ ...e, field: `${prefix}${e.field}`, message: `${prefix}${e.message}` }));

/** A request whose rows are all checked: refused whole (a single payout's refusal, a batch's field-format errors) or not. */
function wholeRefusal(request: CheckedRequest, rows: Checked[]): DomainError | undefined {
  if (!request.batch) {
    const only = rows[0] as Checked;
    return only.ok ? undefined : only.error;
  }
  const formatErrors = rows.flatMap((c, i) => (!c.ok && c.fieldFormat ? prefixed(c.error.details ?? [{ field: 'body', message: c.error.message }], `${i}.`) : []));
  return formatErrors.length ? validationError(formatErrors) : undefined;
}

// ---------------------------------------------------------------------------------------------
// Reading what the rows are decided against, and writing the plan

type Stored = { ok: true; payout: PayoutView } | { ok: false; error: DomainError };

/**
 * What the plan decides against, read and locked until commit: the quotes the rows name (row locks),
 * what each limited (workspace, currency) paid today and the rows' clientRefs (advisory locks, the
 * clientRefs then read), and the balances the rows draw on in their funding currency.
 */
async function readSnapshot(tx: Tx, rows: readonly PlanRow[]): Promise<PlanSnapshot> {
  const ps = rows.map((r) => r.prepared);
  const named = ps.flatMap((p) => (p.quoteId ? [{ workspaceId: p.workspaceId, accountId: p.accountId, quoteId: p.quoteId }] : []));
  const quotes = new Map((await lockQuotes(tx, named)).map((q) => [quoteKey(q.account_id, q.id), q]));
  const paidToday = await repo.lockPaidToday(tx, rows.filter((r) => r.dailyLimitMinor !== undefined).map((r) => r.prepared));
  await repo.lockClientRefs(tx, ps);
  const clientRefsTaken = await repo.existingClientRefs(tx, ps);
  const fundingCurrency = (p: Prepared) => (p.quoteId ? quotes.get(quoteKey(p.accountId, p.quoteId))?.from_currency : undefined) ?? p.currency;
  const holds = await ledger.openHolds(tx, ps.map((p) => ({ accountId: p.accountId, currency: fundingCurrency(p) })));
  return { quotes, paidToday, clientRefsTaken, holds };
}

type Accepted = Extract<Decision, { ok: true }>;

/** Beneficiaries sent in full are saved with the payouts that name them (checked already, whole). */
async function saveNewBeneficiaries(ctx: AppContext, tx: Tx, accepted: readonly Accepted[]): Promise<void> {
  for (const a of accepted) {
    if (!a.newBeneficiary) continue;
    const { workspaceId, accountId } = a.insert;
    const created = await createBeneficiary(tx, ctx.box, { workspaceId, subAccountId: accountId === workspaceId ? undefined : accountId }, a.newBeneficiary, { fieldPrefix: 'beneficiary.' });
    await screenBeneficiaries(ctx, tx, [{ ...created, workspaceId }]);
    a.insert.beneficiaryId = created.id;
  }
}

/**
 * Sanctions screening at submit (screening module): the queued payouts whose beneficiary or sender
 * matches a loaded list are held, by payout id with their hits. A held payout stays queued and gets
 * no provider step until an operator releases it.
 */
function screeningHolds(ctx: AppContext, tx: Tx, accepted: readonly Accepted[]): Promise<Map<string, Hit[]>> {
  const queued = accepted.filter((a) => a.insert.status === 'queued').map(({ insert: p }) => ({ id: p.id, workspaceId: p.workspaceId, clientRef: p.clientRef, amountMinor: p.amountMinor, currency: p.currency, beneficiary: p.beneficiary, sender: p.sender }));
  return holdListedPayouts(ctx, tx, queued);
}

/**
 * Writes a plan: the new beneficiaries, the quotes it uses, its holds, its payouts (one statement),
 * the approvals of those a workspace rule holds (approvals module: they get no first step yet),
 * the first provider steps of the others, and the `payout.failed` event of each fiat payout recorded
 * as failed for balance (whose answer is still the refusal).
 */
async function writePlan(ctx: AppContext, tx: Tx, decisions: readonly Decision[], origins: readonly Origin[], snapshot: PlanSnapshot): Promise<Stored[]> {
  const accepted = decisions.filter((d): d is Accepted => d.ok);
  await saveNewBeneficiaries(ctx, tx, accepted);
  const quoted = accepted.flatMap(({ insert: p }) => (p.quoteId ? [{ workspaceId: p.workspaceId, accountId: p.accountId, quoteId: p.quoteId, intent: 'payout' as const, usedBy: { type: 'payout', id: p.id } }] : []));
  await useQuotes(tx, quoted);
  await snapshot.holds.commit(tx);
  const sealed = accepted.map(({ insert: { beneficiary, sender, rail, ...columns } }) => ({
    ...columns,
    catalogRail: rail,
    provider: ctx.connectors.forRoute(rail, columns.workspaceId, columns.currency).name,
    beneficiary: ctx.box.sealJson(beneficiary),
    sender: sender && ctx.box.sealJson(sender),
  }));
  const inserted = await repo.insertPayouts(tx, sealed);
  countPayoutMoves(metrics.payoutsCreated, inserted);
  const screened = await screeningHolds(ctx, tx, accepted);
  // A new payout's screening is the hold just written, if any (the insert does not read it back).
  const rows: repo.PayoutRow[] = inserted.map((row) => ({ ...row, screening: screened.has(row.id) ? { status: 'held' as const, hits: screened.get(row.id) as Hit[] } : null }));
  const stored = new Map(rows.map((row) => [row.id, row]));
  // The approval check (approvals module): a payout a workspace rule holds waits, queued, for its approval.
  const awaitingApproval = await holdForApproval(ctx, tx, approvalCandidates(decisions, origins, stored));
  // The recipient check (recipient-checks module): where the payout's connector offers one, the rail is asked first.
  const awaitingCheck = await holdForRecipientCheck(ctx, tx, checkCandidates(accepted, stored));
  // A payout waits for its first step while a screening hit, an approval or its recipient check holds it; whichever is decided last schedules it.
  const queued = rows.filter((row) => row.status === 'queued' && !screened.has(row.id) && !awaitingApproval.has(row.id) && !awaitingCheck.has(row.id));
  await enqueueMany(tx, stepJobs(queued.map((row) => ({ payoutId: row.id, inMs: ctx.connectors.get(row.provider).firstStepMs() })), ctx.config.limits.jobHandlerBatchMax));
  const out: Stored[] = [];
  for (const d of decisions) {
    const row = d.ok ? (stored.get(d.insert.id) as repo.PayoutRow) : undefined;
    if (!row) out.push(d as Stored);
    else if (row.status === 'queued') out.push({ ok: true, payout: withApproval(payoutData(awaitingCheck.has(row.id) ? { ...row, recipient_check: pendingCheck(row, (d as Accepted).insert.beneficiary) } : row), awaitingApproval.get(row.id)) });
    else {
      await recordEvent(tx, { workspaceId: row.workspace_id, accountId: row.account_id === row.workspace_id ? undefined : row.account_id, type: 'payout.failed', data: payoutEventData(row) });
      out.push({ ok: false, error: insufficient() });
    }
  }
  return out;
}

/** Who created a planned row and how: what the approval rules look at beside the payout itself. */
interface Origin {
  createdBy: string;
  batchRows: number;
  beneficiaryCreatedAt: Date | undefined;
}

/** The queued payouts of a plan as the approval rules see them (a beneficiary sent in full is new). */
function approvalCandidates(decisions: readonly Decision[], origins: readonly Origin[], stored: ReadonlyMap<string, repo.PayoutRow>): ApprovalCandidate[] {
  return decisions.flatMap((d, i): ApprovalCandidate[] => {
    const row = d.ok ? stored.get(d.insert.id) : undefined;
    const origin = origins[i] as Origin;
    if (!row || row.status !== 'queued') return [];
    const { workspace_id: workspaceId, account_id: accountId, currency } = row;
    return [{ payoutId: row.id, workspaceId, accountId, currency, amountMinor: BigInt(row.amount_minor), createdBy: origin.createdBy, batchRows: origin.batchRows, beneficiaryCreatedAt: origin.beneficiaryCreatedAt ?? new Date(), eventData: payoutEventData(row) }];
  });
}

/** The queued payouts of a plan as the recipient check sees them: their connector, and the beneficiary's name. */
function checkCandidates(accepted: readonly Accepted[], stored: ReadonlyMap<string, repo.PayoutRow>): CheckCandidate[] {
  return accepted.flatMap(({ insert }): CheckCandidate[] => {
    const row = stored.get(insert.id);
    if (!row || row.status !== 'queued') return [];
    return [{ payoutId: row.id, workspaceId: row.workspace_id, accountId: row.account_id, connector: row.provider, name: String(insert.beneficiary.name ?? '') }];
  });
}

/** A new payout's recipient check as just written (the insert does not read it back): pending. */
function pendingCheck(row: repo.PayoutRow, beneficiary: Record<string, unknown>): NonNullable<repo.PayoutRow['recipient_check']> {
  const { id: payout_id, workspace_id, account_id, provider: connector, created_at } = row;
  return { payout_id, workspace_id, account_id, connector, status: 'pending', result: null, name: String(beneficiary.name ?? ''), rail_name: null, reason: null, checked_at: null, decided_by: null, decided_at: null, created_at };
}

const withApproval = (payout: PayoutView, approval: ApprovalView | undefined): PayoutView => (approval ? { ...payout, approval } : payout);

/** The saved beneficiaries the requests' rows name, in one statement, share-locked until commit; then each row's checks that need them. */
async function finishRows(ctx: AppContext, tx: Tx, requests: readonly CheckedRequest[]): Promise<Checked[][]> {
  const awaiting = requests.flatMap((r, i) => r.rows.flatMap((row, k) => (row.ok === 'saved' ? [{ i, k, row, caller: r.caller }] : [])));
  const found = await findBeneficiaries(tx, ctx.box, awaiting.map((a) => ({ workspaceId: a.caller.workspaceId, subAccountId: a.caller.subAccountId, id: a.row.id })), { lock: true });
  const rows = requests.map((r) => [...r.rows]);
  awaiting.forEach((a, n) => {
    (rows[a.i] as (Checked | AwaitingBeneficiary)[])[a.k] = a.row.finish(found[n]);
  });
  return rows as Checked[][];
}

/** A request's result from its rows' outcomes: the payout or the refusal of a single one, or a batch's rows in order. */
function resultOf(request: CheckedRequest, rows: Stored[]): SubmissionResult {
  if (request.batch) {
    return { kind: 'batch', rows: rows.map((r, k) => (r.ok ? r.payout : { error: r.error.message, clientRef: (request.bodies[k] as Body).clientRef })) };
  }
  const only = rows[0] as Stored;
  return only.ok ? { kind: 'created', payout: only.payout } : { kind: 'refused', error: only.error };
}

/**
 * Creates the payouts of a group of checked requests in the caller's transaction: every accepted row
 * of the group is planned and written together, in arrival order; a request refused whole (early, a
 * single payout's refusal, a batch's field-format errors) writes nothing.
 */
async function createMany(ctx: AppContext, tx: Tx, requests: readonly CheckedRequest[]): Promise<SubmissionResult[]> {
  const checked = await finishRows(ctx, tx, requests);
  const refusals = requests.map((r, i) => r.early ?? wholeRefusal(r, checked[i] as Checked[]));
  const planned: PlanRow[] = [];
  const origins: Origin[] = [];
  requests.forEach((r, i) => {
    if (refusals[i]) return;
    for (const row of checked[i] as Checked[]) {
      if (!row.ok) continue;
      planned.push({ prepared: row.prepared, newBeneficiary: row.newBeneficiary, dailyLimitMinor: row.dailyLimitMinor, terms: r.terms as WorkspaceTerms });
      origins.push({ createdBy: r.caller.clientId, batchRows: r.batch ? r.bodies.length : 1, beneficiaryCreatedAt: row.beneficiaryCreatedAt });
    }
  });
  const snapshot = await readSnapshot(tx, planned);
  const stored = await writePlan(ctx, tx, planPayouts(planned, snapshot), origins, snapshot);
  let next = 0;
  return requests.map((r, i): SubmissionResult => {
    const whole = refusals[i];
    if (whole) return { kind: 'refused', error: whole };
    return resultOf(r, (checked[i] as Checked[]).map((row): Stored => (row.ok ? (stored[next++] as Stored) : { ok: false, error: row.error })));
  });
}

/** The payout creation service: checks a request (check), then creates the payouts of a group of checked requests (createMany). */
export class PayoutService {
  constructor(private readonly ctx: AppContext) {}

  /** A request (one payout, or an array: a batch) checked as far as it can be without a transaction. */
  async check(caller: Caller, body: Body | Body[]): Promise<CheckedRequest> {
    assertWorkspaceRight(caller, 'pay');
    const bodies = Array.isArray(body) ? body : [body];
    // A sub-account's own identity is read only when a payout needs an originator and the workspace has none.
    const needsOriginator = bodies.some((b) => b.senderInfo === undefined);
    const originatorOnRecord = needsOriginator
      ? await hasOriginatorOnRecord(this.ctx.db, { id: caller.workspaceId, terms: caller.workspace.terms }, caller.subAccountId)
      : false;
    return checkRequest(this.ctx, caller, body, originatorOnRecord);
  }

  /** The results of a group of checked requests, in order, written in the caller's transaction. */
  createMany(tx: Tx, requests: readonly CheckedRequest[]): Promise<SubmissionResult[]> {
    return createMany(this.ctx, tx, requests);
  }
}

export { unfinishedPayouts, type UnfinishedPayouts } from './payouts.repository.js';
