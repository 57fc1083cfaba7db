import type { Connectors } from '../connector.js';
import type { AppContext } from '../../platform/context.js';
import type { Sql, Tx } from '../../platform/db/db.js';
import type { PageRequest } from '../../platform/db/pagination.js';
import { currencyInfo } from '../../platform/lib/currencies.js';
import { formatAmount } from '../../platform/lib/money.js';
import { attributed } from '../../controls/audit/audit.port.js';
import type { ScreeningEvidence } from '../../controls/screening/screening.port.js';
import { ChainConnector } from './chain.connector.js';
import { rejectDeposit, releaseDeposit } from './chain.deposits.js';
import * as repo from './chain.repository.js';
import { assertOperatorRight, type OperatorActor } from '../../domains/users/users.port.js';

/**
 * The operator's read-only view of the chain connector: the configured chains with their hot wallet
 * (the address to fund with the tokens and the gas coin), and the Transfer logs the deposit watcher
 * took, among them the ones held for the operator (a sender on a sanctions list, a token Corridor does
 * not take, or a currency the owner has no virtual account in), which the operator releases or rejects.
 */

export function chainDepositView(row: repo.ChainDepositRow) {
  const known = row.currency !== null && currencyInfo(row.currency) !== undefined;
  return {
    id: row.id,
    chain: row.chain,
    txHash: row.tx_hash,
    position: row.transfer_position,
    logIndex: row.log_index,
    blockNumber: row.block_number,
    blockHash: row.block_hash,
    token: row.token,
    currency: row.currency,
    amount: known ? formatAmount(repo.creditOf(row), row.currency as string) : null,
    amountMinor: row.amount_minor,
    fromAddress: row.from_address,
    toAddress: row.to_address,
    workspaceId: row.workspace_id,
    accountId: row.account_id,
    status: row.status,
    depositId: row.deposit_id,
    reason: row.reason,
    evidence: (row.evidence ?? []) as ScreeningEvidence[],
    decidedBy: row.decided_by,
    decidedAt: row.decided_at ? row.decided_at.toISOString() : null,
    reversedAt: row.reversed_at ? row.reversed_at.toISOString() : null,
    createdAt: row.created_at.toISOString(),
  };
}
export type ChainDepositView = ReturnType<typeof chainDepositView>;

export function listChainDeposits(sql: Sql, f: PageRequest & { chain?: string | undefined; status?: repo.ChainDepositStatus | undefined }) {
  return repo.listChainDeposits(sql, f, chainDepositView);
}

/** The operator's decision on a held transfer: released (credited now) or rejected (never credited). */
export async function decideChainDeposit(ctx: Pick<AppContext, 'log' | 'box'>, tx: Tx, id: string, decision: 'release' | 'reject', actor: OperatorActor): Promise<ChainDepositView> {
  assertOperatorRight(actor, 'rails');
  const by = actor.name;
  const row = decision === 'release' ? await releaseDeposit(ctx, tx, id, by) : await rejectDeposit(tx, id, by);
  return chainDepositView(attributed(row));
}

export interface ChainView {
  name: string;
  network: string;
  chainId: number;
  confirmations: number;
  tokens: Record<string, string>;
  /** The hot wallet payouts leave from, when this chain pays out. */
  hotWallet: string | null;
  /** Whether deposit addresses are issued and watched on this chain. */
  receives: boolean;
  /** How the workers last found its node: up, down (with the error), or unknown (no worker looked yet). */
  status: 'up' | 'down' | 'unknown';
  error: string | null;
  checkedAt: string | null;
}

/** Every chain the connectors of this process configure (none without a "chains" section), with how the workers last found its node. */
export async function configuredChains(sql: Sql, connectors: Pick<Connectors, 'all'>): Promise<ChainView[]> {
  const statuses = new Map((await repo.chainStatuses(sql)).map((s) => [s.chain, s]));
  return connectors
    .all()
    .filter((c): c is ChainConnector => c instanceof ChainConnector)
    .flatMap((c) => c.chains)
    .map((c) => ({
      name: c.settings.name,
      network: c.settings.network,
      chainId: c.settings.chainId,
      confirmations: c.settings.confirmations,
      tokens: { ...c.settings.tokens },
      hotWallet: c.payouts?.signer.address ?? null,
      receives: c.deposits !== undefined,
      ...statusOf(statuses.get(c.settings.name), c.health.error),
    }));
}

/** A chain's status as recorded by the workers; before any look, this process's start-up check's failure (down) or unknown. */
function statusOf(row: repo.ChainStatusRow | undefined, startError: string | null): Pick<ChainView, 'status' | 'error' | 'checkedAt'> {
  if (row) return { status: row.up ? 'up' : 'down', error: row.error, checkedAt: row.checked_at.toISOString() };
  return startError ? { status: 'down', error: startError, checkedAt: null } : { status: 'unknown', error: null, checkedAt: null };
}

/** A chain payout as the operator reads it, with its age. */
export function chainPayoutView(row: repo.ChainPayoutRow, now = new Date()) {
  return {
    payoutId: row.payout_id,
    chain: row.chain,
    currency: row.currency,
    token: row.token,
    toAddress: row.to_address,
    amount: formatAmount(BigInt(row.amount_minor), row.currency),
    status: row.status,
    nonce: row.nonce,
    deliveredAmount: row.delivered_minor === null ? null : formatAmount(BigInt(row.delivered_minor), row.currency),
    failureReason: row.failure_reason,
    errorDetail: row.error_detail,
    ageSeconds: Math.max(0, Math.floor((now.getTime() - new Date(row.created_at).getTime()) / 1000)),
    createdAt: new Date(row.created_at).toISOString(),
  };
}
export type ChainPayoutView = ReturnType<typeof chainPayoutView>;

/** The payouts of the chains not ended yet (held, on their way, in conflict), oldest first, with their ages. */
export async function openChainPayouts(sql: Sql, chain?: string): Promise<ChainPayoutView[]> {
  const now = new Date();
  return (await repo.openPayouts(sql, chain ?? null, 500)).map((r) => chainPayoutView(r, now));
}

export async function chainPayout(sql: Sql, payoutId: string): Promise<ChainPayoutView | undefined> {
  const row = await repo.findChainPayout(sql, payoutId);
  return row ? chainPayoutView(row) : undefined;
}

/** The breaker as the operator reads it. */
export function breakerView(row: repo.ChainBreakerRow, threshold: number) {
  return {
    open: row.open,
    reason: row.reason,
    detail: row.detail,
    openedAt: row.opened_at ? new Date(row.opened_at).toISOString() : null,
    streakReason: row.streak_reason,
    streakCount: row.streak_count,
    threshold,
  };
}

/** A chain's breaker as the operator reads it now (in the caller's transaction). */
export async function currentBreakerView(tx: Sql, chain: string, threshold: number) {
  return breakerView(await repo.breaker(tx, chain), threshold);
}
