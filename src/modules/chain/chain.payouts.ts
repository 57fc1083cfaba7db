import { getAddress, keccak256, type Address, type Hex, type PublicClient, type TransactionReceipt } from 'viem';
import type { AppContext } from '../../context.js';
import type { Tx } from '../../db/db.js';
import type { ChainHooks, PayoutRail } from './chain.rails.js';
import { transferData } from './chain.client.js';
import { reportPayoutOutcomes as reportOutcomes } from '../payouts/payouts.port.js';
import * as repo from './chain.repository.js';

/**
 * Payouts on one chain, exactly once:
 *  1. sign: under the wallet's nonce row lock, each accepted payout gets the next nonce and its
 *     signed transaction (hash, raw bytes, fees) is recorded, with the payout moved to processing,
 *     in one transaction; only then is anything broadcast;
 *  2. broadcast the recorded bytes (again after a restart, and again while not mined: a node that
 *     lost them, or a reorg that dropped them, gets the same bytes, never a new signature);
 *  3. follow: a transaction mined with N confirmations pays the payout (or, reverted, fails it and
 *     releases the funds); one not mined replaceAfterSeconds after it was sent is replaced at the same
 *     nonce with a higher fee, up to the cap; whichever version is mined counts.
 */


/** Why a payout fails when its transfer reverted on chain. */
export const REVERTED_REASON = 'chain_transfer_reverted';

const SIGN_BATCH_MAX = 100;
const FOLLOW_BATCH_MAX = 500;

interface Fees {
  maxFeePerGas: bigint;
  maxPriorityFeePerGas: bigint;
}

/** EIP-1559 fees now: twice the base fee plus the tip, within the cap. */
export async function currentFees(rail: PayoutRail): Promise<Fees> {
  const block = await rail.client.getBlock({ blockTag: 'latest' });
  const base = block.baseFeePerGas ?? 0n;
  const cap = rail.settings.maxFeePerGasWei;
  const tip = rail.settings.maxPriorityFeePerGasWei;
  const max = base * 2n + tip > cap ? cap : base * 2n + tip;
  return { maxFeePerGas: max, maxPriorityFeePerGas: tip > max ? max : tip };
}

/** The wallet's nonce row, started at the chain's count of its transactions when it has none. */
async function ensureNonceRow(ctx: AppContext, rail: PayoutRail): Promise<void> {
  const count = await rail.client.getTransactionCount({ address: rail.signer.address, blockTag: 'pending' });
  await repo.ensureNonceRow(ctx.db, rail.settings.name, rail.signer.address.toLowerCase(), BigInt(count));
}

async function signOne(rail: PayoutRail, row: repo.ChainPayoutRow, nonce: bigint, fees: Fees): Promise<{ hash: Hex; raw: Hex }> {
  const raw = await rail.signer.signTransaction({
    type: 'eip1559',
    chainId: rail.settings.chainId,
    nonce: Number(nonce),
    to: getAddress(row.token),
    data: transferData(getAddress(row.to_address), BigInt(row.amount_minor)),
    value: 0n,
    gas: rail.settings.transferGasLimit,
    maxFeePerGas: fees.maxFeePerGas,
    maxPriorityFeePerGas: fees.maxPriorityFeePerGas,
  });
  return { hash: keccak256(raw), raw };
}

/**
 * Signs accepted payouts, a batch at a time: the rows (others' skipped), then the nonce row lock,
 * then the payouts moved to processing (one cancelled meanwhile is left out and takes no nonce),
 * each signed and recorded; the next nonce stored; all in one transaction.
 */
async function signBatch(ctx: AppContext, rail: PayoutRail, fees: Fees): Promise<{ hash: Hex; raw: Hex }[]> {
  const chain = rail.settings.name;
  const from = rail.signer.address.toLowerCase();
  return ctx.db.tx(async (tx) => {
    const rows = await repo.lockAccepted(tx, chain, SIGN_BATCH_MAX);
    if (rows.length === 0) return [];
    let nonce = await repo.lockNonce(tx, chain, from);
    const outcomes = await reportOutcomes(ctx, tx, rows.map((r) => ({ payoutId: r.payout_id, move: 'process' as const })));
    const signed: { hash: Hex; raw: Hex }[] = [];
    for (const [i, row] of rows.entries()) {
      const outcome = outcomes[i];
      if (!outcome?.applied && outcome?.status !== 'processing') {
        await repo.setStatus(tx, row.payout_id, 'cancelled');
        continue;
      }
      const t = await signOne(rail, row, nonce, fees);
      await repo.insertTransaction(tx, { hash: t.hash, payoutId: row.payout_id, chain, nonce, raw: t.raw, ...fees });
      await repo.setSigned(tx, row.payout_id, from, nonce);
      signed.push(t);
      nonce += 1n;
    }
    await repo.setNextNonce(tx, chain, from, nonce);
    return signed;
  });
}

/** A node's answer that means it has the transaction already, or its nonce is taken (by it or a replacement). */
function alreadyThere(err: unknown): boolean {
  const text = err instanceof Error ? `${err.message} ${(err as { details?: string }).details ?? ''}` : String(err);
  return /already known|already imported|known transaction|nonce too low|nonce has already been used|replacement transaction underpriced|transaction already exists/i.test(text);
}

/** Hands the recorded bytes to the node; answers the hashes the node has now. */
async function broadcast(ctx: AppContext, rail: PayoutRail, txs: readonly { hash: string; raw: string }[]): Promise<string[]> {
  const sent: string[] = [];
  for (const t of txs) {
    try {
      await rail.client.sendRawTransaction({ serializedTransaction: t.raw as Hex });
      sent.push(t.hash);
    } catch (err) {
      if (alreadyThere(err)) sent.push(t.hash);
      else ctx.log.warn({ chain: rail.settings.name, txHash: t.hash, err: err instanceof Error ? err.message.split('\n')[0] : String(err) }, 'chain broadcast failed; retried on the next look');
    }
  }
  return sent;
}

/** Signs and broadcasts every accepted payout of the chain. */
export async function sendAccepted(ctx: AppContext, rail: PayoutRail, hooks: ChainHooks = {}): Promise<number> {
  let total = 0;
  let ready = false;
  for (;;) {
    if (!ready) {
      // Nothing to sign costs one read, no call to the node.
      if ((await repo.countAccepted(ctx.db, rail.settings.name)) === 0) return total;
      await ensureNonceRow(ctx, rail);
      ready = true;
    }
    const signed = await signBatch(ctx, rail, await currentFees(rail));
    if (signed.length === 0) return total;
    total += signed.length;
    await hooks.afterSign?.(signed.map((s) => s.hash));
    const sent = await broadcast(ctx, rail, signed);
    await hooks.afterBroadcast?.(sent);
    await repo.markSent(ctx.db, sent);
  }
}

async function receipt(client: PublicClient, hash: string): Promise<TransactionReceipt | undefined> {
  try {
    return await client.getTransactionReceipt({ hash: hash as Hex });
  } catch (err) {
    if (err instanceof Error && /could not be found|not found/i.test(err.message)) return undefined;
    throw err;
  }
}

/** The payout's transaction counted: pays (or, reverted, fails) the payout once, in one transaction. */
async function settle(ctx: AppContext, tx: Tx, rail: PayoutRail, row: repo.ChainPayoutRow, mined: TransactionReceipt): Promise<void> {
  const railDetails = { txHash: mined.transactionHash, chain: rail.settings.name };
  await repo.setMined(tx, row.payout_id, mined.transactionHash, mined.blockNumber);
  if (mined.status === 'success') {
    await reportOutcomes(ctx, tx, [{ payoutId: row.payout_id, move: 'pay', rail: railDetails }]);
    await repo.setStatus(tx, row.payout_id, 'confirmed');
  } else {
    await reportOutcomes(ctx, tx, [{ payoutId: row.payout_id, move: 'fail', failureReason: REVERTED_REASON, rail: railDetails }]);
    await repo.setStatus(tx, row.payout_id, 'failed', REVERTED_REASON);
  }
}

/** Signs a replacement at the same nonce when the latest version has waited too long and the cap leaves room for a 10% bump. */
async function replacement(ctx: AppContext, rail: PayoutRail, payoutId: string, fees: Fees): Promise<{ hash: Hex; raw: Hex } | undefined> {
  return ctx.db.tx(async (tx) => {
    const row = await repo.lockChainPayout(tx, payoutId);
    if (!row || (row.status !== 'signed' && row.status !== 'sent') || row.nonce === null) return undefined;
    const versions = await repo.transactionsOf(tx, payoutId);
    const latest = versions[versions.length - 1];
    if (!latest?.sent_at || Date.now() - latest.sent_at.getTime() < rail.settings.replaceAfterSeconds * 1000) return undefined;
    const bump = (v: bigint) => (v * 110n + 99n) / 100n;
    const oldMax = BigInt(latest.max_fee_per_gas);
    const oldTip = BigInt(latest.max_priority_fee_per_gas);
    const cap = rail.settings.maxFeePerGasWei;
    const max = [bump(oldMax), fees.maxFeePerGas].reduce((a, b) => (a > b ? a : b));
    const tip = [bump(oldTip), fees.maxPriorityFeePerGas].reduce((a, b) => (a > b ? a : b));
    if (max > cap || tip > max) {
      ctx.log.warn({ chain: rail.settings.name, payoutId, txHash: latest.hash }, 'chain transaction stuck at the fee cap; not replaced');
      return undefined;
    }
    const next = { maxFeePerGas: max, maxPriorityFeePerGas: tip };
    const t = await signOne(rail, row, BigInt(row.nonce), next);
    await repo.insertTransaction(tx, { hash: t.hash, payoutId, chain: rail.settings.name, nonce: BigInt(row.nonce), raw: t.raw, ...next });
    return t;
  });
}

/**
 * Follows the chain's open payouts: settles those whose transaction has N confirmations, notes
 * where each was mined (and forgets it when a reorg drops it), re-broadcasts what is not mined and
 * replaces what waited too long. Answers how many payouts ended.
 */
export async function followSent(ctx: AppContext, rail: PayoutRail, hooks: ChainHooks = {}): Promise<number> {
  const open = await repo.openTransactions(ctx.db, rail.settings.name, FOLLOW_BATCH_MAX);
  if (open.length === 0) return 0;
  const byPayout = new Map<string, typeof open>();
  for (const t of open) byPayout.set(t.payout_id, [...(byPayout.get(t.payout_id) ?? []), t]);
  const head = await rail.client.getBlockNumber({ cacheTime: 0 });
  let ended = 0;
  let fees: Fees | undefined;
  for (const [payoutId, versions] of byPayout) {
    let mined: TransactionReceipt | undefined;
    for (const v of versions) {
      mined = await receipt(rail.client, v.hash);
      if (mined) break;
    }
    const latest = versions[versions.length - 1] as (typeof versions)[number];
    if (mined && head - mined.blockNumber + 1n >= BigInt(rail.settings.confirmations)) {
      const settled = await ctx.db.tx(async (tx) => {
        const row = await repo.lockChainPayout(tx, payoutId);
        if (!row || (row.status !== 'signed' && row.status !== 'sent')) return false;
        await settle(ctx, tx, rail, row, mined);
        return true;
      });
      if (settled) ended += 1;
      continue;
    }
    const row = await repo.findChainPayout(ctx.db, payoutId);
    if (mined) {
      if (row?.mined_hash !== mined.transactionHash || row.mined_block !== mined.blockNumber.toString()) {
        await repo.setMined(ctx.db, payoutId, mined.transactionHash, mined.blockNumber);
      }
      continue;
    }
    if (row?.mined_hash) {
      ctx.log.warn({ chain: rail.settings.name, payoutId, txHash: row.mined_hash }, 'chain reorg dropped a payout transaction before its confirmations; broadcasting it again');
      await repo.setMined(ctx.db, payoutId, null, null);
    }
    // Not mined: the node gets the recorded bytes again (a no-op when it has them).
    const sent = await broadcast(ctx, rail, [latest]);
    if (latest.sent_at === null) {
      await hooks.afterBroadcast?.(sent);
      await repo.markSent(ctx.db, sent);
    } else if (Date.now() - latest.sent_at.getTime() >= rail.settings.replaceAfterSeconds * 1000) {
      fees ??= await currentFees(rail);
      const replaced = await replacement(ctx, rail, payoutId, fees);
      if (replaced) await repo.markSent(ctx.db, await broadcast(ctx, rail, [replaced]));
    }
  }
  return ended;
}

/** The token balance of the hot wallet (the operator watches it; docs/guides/crypto-rail.md). */
export function hotWalletAddress(rail: PayoutRail): Address {
  return rail.signer.address;
}
