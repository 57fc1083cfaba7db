export const PAYOUT_STATUSES = ['created', 'queued', 'processing', 'paid', 'failed', 'cancelled'] as const;
export type PayoutStatus = (typeof PAYOUT_STATUSES)[number];

/** The payout state machine (spec §States and transitions / Payout). Every move is checked against it. */
export const payoutTransitions = {
  created: ['queued', 'processing', 'failed', 'cancelled'],
  queued: ['processing', 'failed', 'cancelled'],
  processing: ['paid', 'failed', 'cancelled'],
  paid: ['failed'], // reverted downstream, funds credited back
  failed: [],
  cancelled: [],
} as const satisfies Record<PayoutStatus, readonly PayoutStatus[]>;

export function canMove(from: PayoutStatus, to: PayoutStatus): boolean {
  return (payoutTransitions[from] as readonly PayoutStatus[]).includes(to);
}

export const TERMINAL: readonly PayoutStatus[] = ['paid', 'failed', 'cancelled'];

/** Moves the API and the operator can ask for, and the statuses each may start from. */
export type PayoutMove = 'process' | 'pay' | 'fail' | 'cancel' | 'revert';

export const MOVE_TARGET: Record<PayoutMove, PayoutStatus> = {
  process: 'processing',
  pay: 'paid',
  fail: 'failed',
  cancel: 'cancelled',
  revert: 'failed',
};

/** The states a move may start from: a subset of the transition table (fail never undoes a payment; revert does). */
export const MOVE_FROM: Record<PayoutMove, readonly PayoutStatus[]> = {
  process: ['created', 'queued'],
  pay: ['processing'],
  fail: ['created', 'queued', 'processing'],
  cancel: ['created', 'queued', 'processing'],
  revert: ['paid'],
};

/** The event each move emits. */
export const MOVE_EVENT: Record<PayoutMove, string> = {
  process: 'payout.processing',
  pay: 'payout.paid',
  fail: 'payout.failed',
  cancel: 'payout.cancelled',
  revert: 'payout.reverted',
};
