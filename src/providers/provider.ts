import type { PayoutStatus } from '../modules/payouts/payouts.transitions.js';

/** What a provider decides next for a payout: a move (or none) and when to look again. */
export interface ProviderStep {
  move: 'process' | 'pay' | 'fail' | 'revert' | 'none';
  failureReason?: string;
  /** Look again after this many ms; null when the provider has nothing more to do by itself. */
  nextInMs: number | null;
}

export interface ProviderPayoutView {
  status: PayoutStatus;
  /** The amount as formatted on the wire, at the currency's scale. */
  amount: string;
  currency: string;
  reverted: boolean;
}

/**
 * A payout provider. `nextStep` is pure: it decides from the payout as stored, and the payouts
 * module applies the move (compare-and-set, ledger, event) and schedules the next look as a
 * durable job, so a restart resumes every payout where it was.
 */
export interface PayoutProvider {
  readonly name: string;
  /** The first look after submit, in ms. */
  firstStepMs(): number;
  nextStep(payout: ProviderPayoutView): ProviderStep;
  /** Whether a payout already in processing can still be cancelled at this provider. */
  canCancelProcessing(): boolean;
}
