export const VIRTUAL_ACCOUNT_STATUSES = ['pending', 'active', 'failed'] as const;
export type VirtualAccountStatus = (typeof VIRTUAL_ACCOUNT_STATUSES)[number];

/**
 * The virtual account state machine (spec §States and transitions / Virtual account). Deactivation
 * is not a status: it takes a pending or active account out of use (`deactivated_at`).
 */
export const virtualAccountTransitions = {
  pending: ['active', 'failed'],
  active: [],
  failed: [],
} as const satisfies Record<VirtualAccountStatus, readonly VirtualAccountStatus[]>;

export function canMove(from: VirtualAccountStatus, to: VirtualAccountStatus): boolean {
  return (virtualAccountTransitions[from] as readonly VirtualAccountStatus[]).includes(to);
}

/** Moves the sandbox and the operator can ask for. */
export const VIRTUAL_ACCOUNT_MOVES = ['approve', 'fail', 'deactivate'] as const;
export type VirtualAccountMove = (typeof VIRTUAL_ACCOUNT_MOVES)[number];
