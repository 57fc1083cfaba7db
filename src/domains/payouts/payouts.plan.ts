import { DomainError, refusal } from '../../platform/lib/errors.js';
import { newId } from '../../platform/lib/ids.js';
import type { WorkspaceTerms } from '../accounts/workspace-terms.js';
import type { BeneficiaryInput } from '../corridors/index.js';
import type { QuoteRow } from '../fx/fx.service.js';
import { consumedQuote, quoteRefusalFor } from '../fx/fx.service.js';
import type { HoldSet, SystemKind } from '../ledger/ledger.service.js';
import type { NewPayout } from './payouts.repository.js';

/**
 * The decision of payout creation, without I/O: given rows that passed every check of their own and
 * a snapshot of what is stored (read and locked in the write transaction), planPayouts decides every
 * row in arrival order exactly as if each ran alone after the ones before it. The service reads the
 * snapshot, plans, and writes the plan.
 */

/** A payout that passed every check of its own, ready for the checks against what is stored. */
export interface Prepared {
  workspaceId: string;
  accountId: string;
  clientRef: string;
  currency: string;
  amountMinor: bigint;
  /** The route as reported on the payout (`international` when auto-routed). */
  route: string;
  /** The catalog rail that pays it, which picks its connector. */
  rail: string;
  crypto: boolean;
  beneficiaryId: string | null;
  beneficiary: Record<string, unknown>;
  sender: Record<string, unknown> | null;
  quoteId: string | null;
  purpose: string | null;
  reference: string | null;
  metadata: Record<string, string> | null;
}

/** One row of a plan: the prepared payout and what its workspace's terms say of it. */
export interface PlanRow {
  prepared: Prepared;
  /** A beneficiary sent in full, saved with the payout. */
  newBeneficiary: BeneficiaryInput | undefined;
  dailyLimitMinor: bigint | undefined;
  terms: Pick<WorkspaceTerms, 'payoutFeeMinor'>;
}

/** What is stored, as the plan's rows need it; read (and locked) by the service before planning. */
export interface PlanSnapshot {
  /** What each workspace paid out (or holds for payouts) today, keyed dailyKey(workspaceId, currency). */
  paidToday: ReadonlyMap<string, bigint>;
  /** The clientRefs that already have a payout, keyed clientRefKey(workspaceId, clientRef). */
  clientRefsTaken: ReadonlySet<string>;
  /** The quotes the rows name, as each row's account sees them, keyed quoteKey(accountId, quoteId). */
  quotes: ReadonlyMap<string, QuoteRow>;
  /** The balances the rows draw on (in their funding currency); the plan takes its holds on it, in memory. */
  holds: HoldSet;
}

/** A row's decision: refused with its error, or a payout to insert (queued, or failed for balance). */
/** A payout as planned: its recipient and sender still open (they are sealed when the plan is written). */
export type PlannedPayout = Omit<NewPayout, 'provider' | 'catalogRail' | 'beneficiary' | 'sender'> & { rail: string; beneficiary: Record<string, unknown>; sender: Record<string, unknown> | null };
export type Decision = { ok: false; error: DomainError } | { ok: true; insert: PlannedPayout; newBeneficiary: BeneficiaryInput | undefined };

export const dailyKey = (workspaceId: string, currency: string): string => `${workspaceId}:${currency}`;
export const clientRefKey = (workspaceId: string, clientRef: string): string => `${workspaceId}:${clientRef}`;
export const quoteKey = (accountId: string, quoteId: string): string => `${accountId}:${quoteId}`;

/** The spec's duplicate clientRef refusal: 400 with its pinned message; the catalogue's code in `code` beside it. */
export const duplicateClientRef = (): DomainError =>
  new DomainError({ category: 'invalid_request', code: 'DUPLICATE_CLIENT_REF', message: 'Payout with this client reference already exists' });
export const insufficient = (): DomainError => refusal('INSUFFICIENT_BALANCE');
const quoteAmountMismatch = (): DomainError =>
  new DomainError({
    category: 'invalid_request',
    code: 'QUOTE_AMOUNT_MISMATCH',
    message: 'The quote is locked to another currency or amount than this payout',
    details: [{ field: 'quoteId', message: 'quoteId is locked to another currency or amount than this payout', code: 'QUOTE_AMOUNT_MISMATCH' }],
  });

interface PlanState {
  paidToday: Map<string, bigint>;
  taken: Set<string>;
  quotes: Map<string, QuoteRow>;
  holds: HoldSet;
}

interface Funding {
  ok: true;
  currency: string;
  amountMinor: bigint;
  credit: { system: SystemKind; code?: string };
  quote: QuoteRow | undefined;
}

/**
 * What a row is funded from: its own currency, or its quote's source side when the quote can be used
 * for this payout (the quote's rules, then its currency and amount against the payout's).
 */
function fundingOf(p: Prepared, quotes: ReadonlyMap<string, QuoteRow>): Funding | { ok: false; error: DomainError } {
  if (!p.quoteId) return { ok: true, currency: p.currency, amountMinor: p.amountMinor, credit: { system: 'provider_clearing', code: p.route }, quote: undefined };
  const quote = quotes.get(quoteKey(p.accountId, p.quoteId));
  const error = quoteRefusalFor(quote, 'payout');
  if (error || !quote) return { ok: false, error: error as DomainError };
  const q = consumedQuote(quote);
  if (q.toCurrency !== p.currency || q.toAmountMinor !== p.amountMinor) return { ok: false, error: quoteAmountMismatch() };
  return { ok: true, currency: q.fromCurrency, amountMinor: q.fromAmountMinor, credit: { system: 'fx_desk' }, quote };
}

/**
 * One row against the state the rows before it left: its daily limit, its clientRef, its quote, then
 * the hold of its amount and its fee (the workspace's fee in the funding currency). Without the balance,
 * a quote-funded or crypto row is refused (its quote stays open); a fiat row is recorded as failed.
 */
function planRow(row: PlanRow, state: PlanState): Decision {
  const p = row.prepared;
  const today = state.paidToday.get(dailyKey(p.workspaceId, p.currency)) ?? 0n;
  if (row.dailyLimitMinor !== undefined && today + p.amountMinor > row.dailyLimitMinor) return { ok: false, error: refusal('LIMIT_EXCEEDED') };
  if (state.taken.has(clientRefKey(p.workspaceId, p.clientRef))) return { ok: false, error: duplicateClientRef() };
  const funding = fundingOf(p, state.quotes);
  if (!funding.ok) return funding;
  const id = newId();
  const feeMinor = row.terms.payoutFeeMinor(funding.currency);
  const hold = state.holds.tryHold({
    accountId: p.accountId,
    currency: funding.currency,
    legs: [
      { amountMinor: funding.amountMinor, credit: funding.credit },
      ...(feeMinor > 0n ? [{ amountMinor: feeMinor, credit: { system: 'fee_revenue' as const }, description: 'Payout fee' }] : []),
    ],
    reference: { type: 'payout', id },
  });
  if (!hold.ok && (p.quoteId || p.crypto)) return { ok: false, error: insufficient() };
  state.taken.add(clientRefKey(p.workspaceId, p.clientRef));
  if (hold.ok) state.paidToday.set(dailyKey(p.workspaceId, p.currency), today + p.amountMinor);
  if (funding.quote) state.quotes.set(quoteKey(p.accountId, funding.quote.id), { ...funding.quote, status: 'used' });
  const { crypto: _crypto, ...columns } = p;
  return {
    ok: true,
    newBeneficiary: row.newBeneficiary,
    insert: {
      ...columns,
      id,
      status: hold.ok ? 'queued' : 'failed',
      feeMinor,
      fundingCurrency: funding.currency,
      fundingMinor: funding.amountMinor,
      holdTransferId: hold.ok ? (hold.transferIds[0] ?? null) : null,
      feeTransferId: hold.ok ? (hold.transferIds[1] ?? null) : null,
      failureReason: hold.ok ? null : 'insufficient_balance',
    },
  };
}

/** Every row's decision, in order; the holds taken are left on `snapshot.holds` for the write. */
export function planPayouts(rows: readonly PlanRow[], snapshot: PlanSnapshot): Decision[] {
  const state: PlanState = {
    paidToday: new Map(snapshot.paidToday),
    taken: new Set(snapshot.clientRefsTaken),
    quotes: new Map(snapshot.quotes),
    holds: snapshot.holds,
  };
  return rows.map((row) => planRow(row, state));
}
