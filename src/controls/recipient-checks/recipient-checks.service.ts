import type { AppContext } from '../../platform/context.js';
import type { Tx } from '../../platform/db/db.js';
import { enqueueMany, type NewJob } from '../../platform/jobs/queue.js';
import { conflict, validationError } from '../../platform/lib/errors.js';
import { newId } from '../../platform/lib/ids.js';
import { assertCapability, type AccountScope, type Caller } from '../../domains/accounts/caller.js';
import { checkRecipient, getBeneficiary, type Route } from '../../domains/corridors/index.js';
import { recordEvents } from '../../domains/events/events.service.js';
import { lockForDecision, payoutEventData, proceedUnlessHeld } from '../../domains/payouts/payouts.lifecycle.js';
import { findAnyPayout, getPayout, openedRecipient, payoutData } from '../../domains/payouts/payouts.read.js';
import { appendAudit } from '../audit/audit.service.js';
import { compareNames } from './recipient-names.js';
import * as repo from './recipient-checks.repository.js';
import { recipientCheckView, type RecipientCheckResult, type RecipientCheckRow, type RecipientCheckView } from './recipient-checks.view.js';

/**
 * The recipient check (issues 34 point 2, 35 points 1-2): before a payout leaves, where the connector
 * serving its route offers `verifyRecipient` (Confirmation of Payee, a NIP name enquiry, a
 * mobile-money account-name lookup), the rail is asked about the beneficiary's account and name. The
 * payout is created `queued` with its funds held and a `pending` check, which holds it back from its
 * first step as a screening hit or an approval does. A durable job asks the rail, outside any
 * transaction (a network call; retried with backoff, `unavailable` after its attempts), then records
 * the answer and decides in one transaction: a match lets the payout proceed (unless another control
 * still holds it); anything else holds it for its workspace, which confirms (proceed anyway; never
 * for an account the rail did not find) or cancels it (the payout's own cancel, which withdraws the
 * check). Every answer and decision is audited.
 */

export const RECIPIENT_CHECK_JOB = 'payout.recipient_check';
export { compareNames } from './recipient-names.js';
export { recipientCheckView, type RecipientCheckView } from './recipient-checks.view.js';

/** The contract's types, read off the context's connectors (a control does not import a connector's module). */
type RailConnector = ReturnType<AppContext['connectors']['get']>;
type Verify = NonNullable<RailConnector['verifyRecipient']>;
export type RailAnswer = Awaited<ReturnType<Verify>>;
export type RailQuestion = Parameters<Verify>[0];

/** What the control records of an answer: whether the payout may proceed, the result, the rail's name, its reason. */
export interface Decided {
  status: 'passed' | 'held';
  result: RecipientCheckResult;
  railName: string | null;
  reason: string | null;
}

/** The rail's answer as the control decides it (pure): a rail's account name is compared by Corridor, a verdict taken as the rail gave it. */
export function decideAnswer(answer: RailAnswer, name: string): Decided {
  const held = (result: RecipientCheckResult, railName: string | null, reason: string | null): Decided => ({ status: result === 'match' ? 'passed' : 'held', result, railName, reason });
  switch (answer.kind) {
    case 'account_name':
      return held(compareNames(name, answer.accountName), answer.accountName, null);
    case 'verdict':
      return held(answer.result, answer.suggestedName ?? null, answer.reason ?? null);
    case 'account_not_found':
      return held('account_not_found', null, answer.reason ?? null);
    case 'unavailable':
      return held('unavailable', null, answer.reason ?? null);
  }
}

// ---------------------------------------------------------------------------------------------
// Holding payouts at creation

/** A payout just written `queued`, as the check sees it. */
export interface CheckCandidate {
  payoutId: string;
  workspaceId: string;
  accountId: string;
  /** The connector serving it (the payout's `provider`). */
  connector: string;
  /** The beneficiary's name as the workspace gave it. */
  name: string;
}

/**
 * The recipient check of payout creation, in its transaction: the payouts whose connector offers
 * `verifyRecipient` get a pending check and the job that asks the rail. Answers their ids: the caller
 * does not schedule their first provider step.
 */
export async function holdForRecipientCheck(ctx: AppContext, tx: Tx, candidates: readonly CheckCandidate[]): Promise<Set<string>> {
  const offered = candidates.filter((c) => ctx.connectors.get(c.connector).verifyRecipient !== undefined);
  const rows = await repo.insertChecks(tx, offered.map((c) => ({ payoutId: c.payoutId, workspaceId: c.workspaceId, accountId: c.accountId, connector: c.connector, name: c.name })));
  const jobs: NewJob[] = rows.map((row) => ({
    kind: RECIPIENT_CHECK_JOB,
    payload: { payoutId: row.payout_id },
    uniqueKey: `payout-recipient-check:${row.payout_id}`,
    maxAttempts: ctx.config.recipientCheckAttemptsMax,
  }));
  await enqueueMany(tx, jobs);
  return new Set(rows.map((row) => row.payout_id));
}

// ---------------------------------------------------------------------------------------------
// Asking the rail (outside any transaction)

/** The rail's answer, or `unavailable` when the call failed or took longer than `timeoutMs`. */
export async function askRail(connector: RailConnector, question: RailQuestion, timeoutMs: number): Promise<RailAnswer> {
  if (!connector.verifyRecipient) return { kind: 'unavailable', reason: `The connector ${connector.name} does not offer recipient checks` };
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<RailAnswer>((resolve) => {
    timer = setTimeout(() => resolve({ kind: 'unavailable', reason: `The rail did not answer within ${timeoutMs} ms` }), timeoutMs);
  });
  try {
    return await Promise.race([connector.verifyRecipient(question), late]);
  } catch (err) {
    return { kind: 'unavailable', reason: `The check failed: ${err instanceof Error ? err.message : String(err)}` };
  } finally {
    clearTimeout(timer);
  }
}

/** What the job asks the rail of a payout's pending check, or undefined when there is nothing to ask (decided, withdrawn, or the payout moved on). */
async function questionOf(ctx: AppContext, check: RecipientCheckRow): Promise<RailQuestion | undefined> {
  const payout = await findAnyPayout(ctx.db, check.payout_id);
  if (!payout || payout.status !== 'queued') return undefined;
  const beneficiary = (await openedRecipient(ctx.db, ctx.box, check.payout_id)) ?? {};
  return { rail: payout.catalog_rail, currency: payout.currency, beneficiary, name: check.name, reference: payout.id };
}

/**
 * The job's work for one payout: asks the rail (outside any transaction) and records the answer.
 * A rail that fails, is slow or answers `unavailable` is asked again with the runner's backoff (the
 * job throws); on the last attempt `unavailable` is recorded and the workspace decides. Never pays
 * without an answer.
 */
export async function runRecipientCheck(ctx: AppContext, payoutId: string, attempt: { attempts: number; max_attempts: number }): Promise<void> {
  const check = await repo.findCheck(ctx.db, payoutId);
  if (!check || check.status !== 'pending') return;
  const question = await questionOf(ctx, check);
  if (!question) return;
  let connector: RailConnector | undefined;
  try {
    connector = ctx.connectors.get(check.connector);
  } catch {
    connector = undefined;
  }
  const answer: RailAnswer = connector
    ? await askRail(connector, question, ctx.config.recipientCheckTimeoutMs)
    : { kind: 'unavailable', reason: `The connector ${check.connector} is no longer configured` };
  if (answer.kind === 'unavailable' && attempt.attempts < attempt.max_attempts) {
    throw new Error(`recipient check of payout ${payoutId} unavailable (attempt ${attempt.attempts} of ${attempt.max_attempts}): ${answer.reason ?? 'no reason given'}`);
  }
  await ctx.db.tx((tx) => recordRailAnswer(ctx, tx, check, answer));
}

/**
 * Records the rail's answer once (a compare-and-set on the pending check, after the payout's row, as
 * a cancel takes them) and decides: a match schedules the payout's first step unless another control
 * holds it; anything else holds it for the workspace and emits `payout.recipient_check_required`.
 */
export async function recordRailAnswer(ctx: AppContext, tx: Tx, check: RecipientCheckRow, answer: RailAnswer): Promise<RecipientCheckView | undefined> {
  await lockForDecision(tx, check.payout_id);
  const decided = decideAnswer(answer, check.name);
  const row = await repo.recordAnswer(tx, check.payout_id, decided);
  if (!row) return undefined; // withdrawn (the payout cancelled or failed meanwhile), or answered already
  const payout = await findAnyPayout(tx, check.payout_id);
  const view = recipientCheckView(row);
  if (payout && decided.status === 'passed') await proceedUnlessHeld(ctx, tx, payout);
  if (payout && decided.status === 'held') {
    await recordEvents(tx, [
      {
        workspaceId: payout.workspace_id,
        accountId: payout.account_id === payout.workspace_id ? undefined : payout.account_id,
        type: 'payout.recipient_check_required',
        data: { ...payoutEventData(payout), recipientCheck: view },
      },
    ]);
  }
  await appendAudit(tx, {
    operatorKeyId: null,
    actor: 'system',
    method: 'POST',
    path: `/v1/payouts/${check.payout_id}/recipient-check/answer`,
    statusCode: 200,
    requestId: `job:${RECIPIENT_CHECK_JOB}`,
    workspaceId: check.workspace_id,
    body: { change: `payout.recipient_check.${decided.status}`, payoutId: check.payout_id, result: decided.result, connector: check.connector },
  });
  return view;
}

/**
 * The rail's check of a payout already sent (the bank's Verification of Payee, reported in its
 * pain.002 for each payment of a file): kept on the payout as its recipient check, `passed` with the
 * bank's result, name and code, and audited. Nothing is held: the payout has left, and the bank
 * executes or refuses it as the operator agreed with it (docs/guides/bank-rails.md).
 */
export async function recordReportedCheck(tx: Tx, check: repo.NewCheck & { result: RecipientCheckResult; railName: string | null; reason: string | null }): Promise<RecipientCheckView | undefined> {
  const row = await repo.insertReportedCheck(tx, check);
  if (!row) return undefined;
  await appendAudit(tx, {
    operatorKeyId: null,
    actor: 'system',
    method: 'POST',
    path: `/v1/payouts/${check.payoutId}/recipient-check/answer`,
    statusCode: 200,
    requestId: `connector:${check.connector}`,
    workspaceId: check.workspaceId,
    body: { change: 'payout.recipient_check.reported', payoutId: check.payoutId, result: check.result, connector: check.connector },
  });
  return recipientCheckView(row);
}

// ---------------------------------------------------------------------------------------------
// The workspace decides

/** Who acts, as the audit log names them: `user:<id>` for a dashboard user, `client:<client id>` for a credential. */
export function auditActor(clientId: string): string {
  return clientId.startsWith('dashboard:') ? `user:${clientId.slice('dashboard:'.length)}` : `client:${clientId}`;
}

/** Where a decision was asked (the request's id and path), for its audit entry. */
export interface AuditContext {
  requestId: string;
  path: string;
}

/**
 * The workspace confirms a payout its recipient check holds (close match, no match, unavailable):
 * the check is `confirmed` with who and when, and the payout proceeds unless another control still
 * holds it. Refused (409) for a payout whose check is not held (none, pending, passed, confirmed,
 * withdrawn), and for one whose account the rail did not find: that payout can only be cancelled.
 * Audited in the same transaction.
 */
export async function confirmRecipient(ctx: AppContext, tx: Tx, caller: Pick<Caller, 'workspaceId' | 'clientId' | 'workspace'>, payoutId: string, where: AuditContext) {
  assertCapability(caller.workspace, 'payouts');
  const payout = await getPayout(tx, caller.workspaceId, payoutId);
  // The payout's row first, as a cancel takes it before it withdraws the check.
  await lockForDecision(tx, payoutId);
  const check = await repo.findCheck(tx, payoutId, { lock: true });
  if (!check) throw conflict('RECIPIENT_CHECK_NOT_HELD', 'This payout has no recipient check: its rail offers none');
  if (check.status !== 'held') throw conflict('RECIPIENT_CHECK_NOT_HELD', `This payout's recipient check is ${check.status}, not held: nothing to confirm`);
  if (check.result === 'account_not_found') {
    throw conflict('RECIPIENT_ACCOUNT_NOT_FOUND', 'The rail found no such account: this payout cannot be confirmed; cancel it and correct the beneficiary');
  }
  const by = auditActor(caller.clientId);
  const confirmed = await repo.confirmCheck(tx, caller.workspaceId, payoutId, by);
  if (!confirmed) throw conflict('RECIPIENT_CHECK_NOT_HELD', 'Someone decided this recipient check first');
  await proceedUnlessHeld(ctx, tx, payout);
  await appendAudit(tx, {
    operatorKeyId: null,
    actor: by,
    method: 'POST',
    path: where.path,
    statusCode: 200,
    requestId: where.requestId,
    workspaceId: caller.workspaceId,
    body: { change: 'payout.recipient_check.confirmed', payoutId, result: confirmed.result, name: confirmed.name, railName: confirmed.rail_name },
  });
  return payoutData({ ...payout, recipient_check: confirmed });
}

// ---------------------------------------------------------------------------------------------
// A beneficiary checked on request

export interface BeneficiaryCheckInput {
  currency: string;
  route?: string | undefined;
}

/**
 * The same check offered on a saved beneficiary, in the spirit of Confirmation of Payee: the account
 * a payout in `currency` (on `route`) would pay is checked through the connector serving that route,
 * and the result answered with both names. Nothing is held and nothing stored (the rail's lookup is a
 * question, asked again on a retry). 404 for a beneficiary not visible to the caller, 400 when it has
 * no account a payout in that currency could pay, 409 RECIPIENT_CHECK_NOT_OFFERED when the connector
 * of that route offers no checks. Called outside any transaction: it waits for the rail.
 */
export async function verifyBeneficiary(ctx: AppContext, caller: AccountScope, beneficiaryId: string, input: BeneficiaryCheckInput) {
  const beneficiary = await getBeneficiary(ctx.db, ctx.box, caller.workspaceId, beneficiaryId, { subAccountId: caller.subAccountId });
  const { provider } = checkRecipient(beneficiary, { currency: input.currency, route: input.route as Route | undefined, fieldPrefix: '' });
  if (!provider) {
    throw validationError([{ field: 'currency', message: `The beneficiary has no account a payout in ${input.currency}${input.route ? ` on ${input.route}` : ''} can pay`, code: 'UNSUPPORTED_CORRIDOR' }]);
  }
  const connector = ctx.connectors.forRoute(provider.route, caller.workspaceId, input.currency);
  if (!connector.verifyRecipient) throw conflict('RECIPIENT_CHECK_NOT_OFFERED', `The connector serving ${provider.route} (${connector.name}) offers no recipient checks`);
  const question: RailQuestion = {
    rail: provider.route,
    currency: input.currency,
    beneficiary: { ...beneficiary, provider: provider.id } as unknown as Record<string, unknown>,
    name: beneficiary.name,
    reference: newId(),
  };
  const decided = decideAnswer(await askRail(connector, question, ctx.config.recipientCheckTimeoutMs), beneficiary.name);
  return {
    beneficiaryId,
    currency: input.currency,
    route: provider.route,
    connector: connector.name,
    result: decided.result,
    name: beneficiary.name,
    railName: decided.railName,
    reason: decided.reason,
    checkedAt: new Date().toISOString(),
  };
}
