import type { AppContext } from '../../platform/context.js';
import type { Tx } from '../../platform/db/db.js';
import { conflict, notFound } from '../../platform/lib/errors.js';
import { formatAmount } from '../../platform/lib/money.js';
import { depositAccountOf, moveAnyDeposit, receiveRailDeposit } from '../../domains/deposits/deposits.port.js';
import { appendAudit } from '../../controls/audit/audit.port.js';
import * as repo from './chain.repository.js';

/**
 * What happens to a transfer the deposit watcher took (chain.watcher.ts): it is credited to the
 * owner's virtual account in its currency, or held for the operator, who releases it (credited then)
 * or rejects it (never credited; the tokens stay on the deposit address for the operator to return
 * or freeze as the law asks). A credited transfer that vanished in a reorg deeper than the
 * confirmations is reversed: its deposit's credit is taken back (a balanced ledger transfer), with an
 * audit entry, in one transaction.
 */

/** Why a transfer from an address on a sanctions list is held (its evidence on the row). */
export const SANCTIONED_ADDRESS = 'sanctioned_address';
/** Why a transfer below the chain's dust threshold for its currency (`dustBelow`) is held, not credited (the operator may release it). */
export const BELOW_DUST = 'below_dust_threshold';

const ownerOf = (row: repo.ChainDepositRow) => ({ workspaceId: row.workspace_id, accountId: row.account_id, subAccountId: row.account_id === row.workspace_id ? undefined : row.account_id });

/** Why a transfer cannot be credited now (the token, the owner's virtual account), or null with the account to credit. */
async function creditTarget(ctx: Pick<AppContext, 'box'>, tx: Tx, row: Pick<repo.ChainDepositRow, 'currency' | 'workspace_id' | 'account_id'>) {
  if (!row.currency) return { reason: 'unsupported_token' as const, account: undefined };
  const account = await depositAccountOf(ctx, tx, row.currency, { owner: ownerOf(row as repo.ChainDepositRow) });
  return account ? { reason: null, account } : { reason: 'no_virtual_account' as const, account: undefined };
}

/**
 * Credits a taken transfer through the deposit service (a `crypto` deposit naming the transaction);
 * a refusal of the deposit service (the currency not enabled…) holds it for the operator instead.
 * Answers the row as it ends.
 */
export async function creditTaken(ctx: Pick<AppContext, 'log' | 'box'>, tx: Tx, row: repo.ChainDepositRow, decidedBy: string | null = null): Promise<repo.ChainDepositRow> {
  const { reason, account } = await creditTarget(ctx, tx, row);
  if (reason || !account || !row.currency) {
    await repo.holdDeposit(tx, row.id, reason ?? 'unsupported_token');
    return { ...row, status: 'held', reason: reason ?? 'unsupported_token' };
  }
  const landed = await receiveRailDeposit(ctx, tx, {
    currency: row.currency,
    amount: formatAmount(repo.creditOf(row), row.currency),
    rail: 'crypto',
    railRef: `${row.chain}:${row.tx_hash}:${row.log_index}`,
    to: { owner: ownerOf(row) },
    chainDetails: { chain: row.chain, txHash: row.tx_hash, fromAddress: row.from_address, blockNumber: row.block_number },
  });
  if (landed.landed) return repo.setCredited(tx, row.id, landed.deposit.id, decidedBy);
  const code = landed.reason === 'refused' ? (landed.code ?? 'refused') : 'no_virtual_account';
  await repo.holdDeposit(tx, row.id, code);
  ctx.log.warn({ chain: row.chain, txHash: row.tx_hash, logIndex: row.log_index, code }, 'chain deposit held for the operator, not credited');
  return { ...row, status: 'held', reason: code };
}

async function heldRow(tx: Tx, id: string): Promise<repo.ChainDepositRow> {
  const row = await repo.lockDeposit(tx, id);
  if (!row) throw notFound('Chain deposit');
  if (row.status !== 'held') throw conflict('CHAIN_DEPOSIT_DECIDED', `This chain deposit is ${row.status}, not held`);
  return row;
}

/** The operator releases a held transfer: credited now (409 when it still cannot be: an unsupported token, no virtual account). */
export async function releaseDeposit(ctx: Pick<AppContext, 'log' | 'box'>, tx: Tx, id: string, by: string): Promise<repo.ChainDepositRow> {
  const row = await heldRow(tx, id);
  const { reason } = await creditTarget(ctx, tx, row);
  if (reason) throw conflict('CHAIN_DEPOSIT_NOT_CREDITABLE', `This chain deposit cannot be credited: ${reason}`);
  const credited = await creditTaken(ctx, tx, row, by);
  if (credited.status !== 'credited') throw conflict('CHAIN_DEPOSIT_NOT_CREDITABLE', `The deposit service refused this chain deposit: ${credited.reason ?? 'refused'}`);
  return credited;
}

/** The operator rejects a held transfer: never credited (nothing moves in the ledger). */
export async function rejectDeposit(tx: Tx, id: string, by: string): Promise<repo.ChainDepositRow> {
  await heldRow(tx, id);
  return repo.setRejected(tx, id, by);
}

/**
 * A transfer no longer on the chain after a reorg deeper than the confirmations: a credited one has
 * its deposit's credit taken back; any is marked `reversed`, with an audit entry. Once.
 */
export async function reverseVanished(tx: Tx, id: string): Promise<boolean> {
  const row = await repo.lockDeposit(tx, id);
  if (!row || row.status === 'reversed') return false;
  if (row.status === 'credited' && row.deposit_id) await moveAnyDeposit(tx, row.deposit_id, 'reverse', 'chain_reorg');
  await repo.setReversed(tx, id);
  await appendAudit(tx, {
    operatorKeyId: null,
    actor: 'system',
    method: 'POST',
    path: `/operator/v1/chain/deposits/${row.id}/reverse`,
    statusCode: 200,
    requestId: 'chain.reorg',
    workspaceId: row.workspace_id,
    body: { change: 'chain_deposit.reversed', chain: row.chain, txHash: row.tx_hash, depositId: row.deposit_id, was: row.status, reason: 'The transfer is no longer on the chain after a reorg deeper than the confirmations' },
  });
  return true;
}
