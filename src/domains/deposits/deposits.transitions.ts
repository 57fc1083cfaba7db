export const DEPOSIT_STATUSES = ['pending', 'processing', 'completed', 'failed', 'in_review', 'refunding', 'refunded'] as const;
export type DepositStatus = (typeof DEPOSIT_STATUSES)[number];

/** The deposit state machine (spec §States and transitions / Deposit). Every move is checked against it. */
export const depositTransitions = {
  pending: ['processing', 'completed', 'failed', 'in_review'],
  processing: ['completed', 'failed', 'in_review'],
  in_review: ['completed', 'failed'],
  completed: ['in_review', 'failed', 'refunding'], // reviewed after its credit landed; reversed; refunded
  failed: [],
  refunding: ['refunded'],
  refunded: [],
} as const satisfies Record<DepositStatus, readonly DepositStatus[]>;

export function canMove(from: DepositStatus, to: DepositStatus): boolean {
  return (depositTransitions[from] as readonly DepositStatus[]).includes(to);
}

/**
 * Rails a deposit arrives on (spec §States and transitions / Deposit). mobile_money_collection: a
 * request to pay sent to the payer's phone over the GSMA Mobile Money API (`POST /v1/collections`),
 * the spec's STK-push collection for any GSMA operator; it credits the balance directly.
 */
export const DEPOSIT_RAILS = ['bank_transfer', 'mobile_money', 'paybill', 'mpesa_stk_push', 'mobile_money_collection', 'account_credit', 'crypto'] as const;
export type DepositRail = (typeof DEPOSIT_RAILS)[number];
/** Rails that pay into a virtual account of the owner (the others collect to the balance directly). */
export const VIRTUAL_ACCOUNT_RAILS: readonly DepositRail[] = ['bank_transfer', 'mobile_money', 'paybill', 'account_credit'];
export const ACCOUNT_CREDIT_CURRENCIES: readonly string[] = ['USD', 'EUR', 'GBP'];

/**
 * Moves the sandbox and operator can ask for. complete: funds credited (from pending, processing or
 * in_review); fail: payer declined, returned before credit, or rejected in review; review: held for
 * compliance review (also after the credit landed); reverse: a completed deposit taken back;
 * refund / refunded: the refund lifecycle.
 */
export const DEPOSIT_MOVES = ['complete', 'fail', 'review', 'reverse', 'refund', 'refunded'] as const;
export type DepositMove = (typeof DEPOSIT_MOVES)[number];

export const MOVE_TARGET: Record<DepositMove, DepositStatus> = {
  complete: 'completed',
  fail: 'failed',
  review: 'in_review',
  reverse: 'failed',
  refund: 'refunding',
  refunded: 'refunded',
};

/** The states each move starts from: a subset of the table (fail never undoes a completed deposit; reverse does). */
export const MOVE_FROM: Record<DepositMove, readonly DepositStatus[]> = {
  complete: ['pending', 'processing', 'in_review'],
  fail: ['pending', 'processing', 'in_review'],
  review: ['pending', 'processing', 'completed'],
  reverse: ['completed'],
  refund: ['completed'],
  refunded: ['refunding'],
};
