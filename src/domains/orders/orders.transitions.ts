export const ORDER_STATUSES = ['awaiting_funds', 'funds_received', 'executing', 'completed', 'failed', 'expired', 'cancelled'] as const;
export type OrderStatus = (typeof ORDER_STATUSES)[number];

/**
 * The order state machine (spec §States and transitions / Order; DESIGN §4 Orders). Every move is
 * checked against it. `executing` has no event; `cancelled` has none either (answered synchronously).
 */
export const orderTransitions = {
  awaiting_funds: ['funds_received', 'expired', 'cancelled'],
  funds_received: ['executing', 'completed', 'failed', 'cancelled'],
  executing: ['completed', 'failed'],
  completed: [],
  failed: [],
  expired: [],
  cancelled: [],
} as const satisfies Record<OrderStatus, readonly OrderStatus[]>;

export function canMove(from: OrderStatus, to: OrderStatus): boolean {
  return (orderTransitions[from] as readonly OrderStatus[]).includes(to);
}

export const TERMINAL: readonly OrderStatus[] = ['completed', 'failed', 'expired', 'cancelled'];

/** Moves the desk (operator, sandbox), the caller (cancel) and the deadline job can ask for. */
export type OrderMove = 'confirm-funds' | 'execute' | 'complete' | 'fail' | 'expire' | 'cancel' | 'review-expire';

export const MOVE_TARGET: Record<OrderMove, OrderStatus> = {
  'confirm-funds': 'funds_received',
  execute: 'executing',
  complete: 'completed',
  fail: 'failed',
  expire: 'expired',
  cancel: 'cancelled',
  'review-expire': 'failed',
};

/** The states a move may start from: a subset of the transition table. */
export const MOVE_FROM: Record<OrderMove, readonly OrderStatus[]> = {
  'confirm-funds': ['awaiting_funds'],
  execute: ['funds_received'],
  complete: ['funds_received', 'executing'],
  fail: ['funds_received', 'executing'],
  expire: ['awaiting_funds'],
  cancel: ['awaiting_funds', 'funds_received'],
  'review-expire': ['funds_received', 'executing'],
};

/** The event each move emits (none for execute and cancel: the spec has no such events). */
export const MOVE_EVENT: Record<OrderMove, string | undefined> = {
  'confirm-funds': 'order.funds_received',
  execute: undefined,
  complete: 'order.completed',
  fail: 'order.failed',
  expire: 'order.expired',
  cancel: undefined,
  'review-expire': 'order.failed',
};

export const FAILURE_REASON: Partial<Record<OrderMove, 'execution_failed' | 'review_expired'>> = {
  fail: 'execution_failed',
  'review-expire': 'review_expired',
};

export const SETTLEMENT_STATUSES = ['pending', 'proof_submitted', 'received', 'expired', 'cancelled'] as const;
export type SettlementStatus = (typeof SETTLEMENT_STATUSES)[number];
