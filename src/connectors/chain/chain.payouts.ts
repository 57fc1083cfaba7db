import { getAddress, keccak256, parseTransaction, type Address, type Hex, type PublicClient, type TransactionReceipt } from 'viem';
import type { AppContext } from '../../platform/context.js';
import type { Sql, Tx } from '../../platform/db/db.js';
import { DomainError } from '../../platform/lib/errors.js';
import type { ChainHooks, PayoutRail } from './chain.rails.js';
import { transferData, TRANSFER_TOPIC } from './chain.client.js';
import { blacklisted, HOT_WALLET_FROZEN, nodeReason, preflightTransfer, RECIPIENT_FROZEN, TOKEN_PAUSED, TOKEN_TRANSFER_FEE, tokenPaused, transferFee } from './chain.issuer.js';
import { formatAmount } from '../../platform/lib/money.js';
import { findAnyPayout, reportPayoutOutcomes as reportOutcomes } from '../../domains/payouts/payouts.port.js';
import { moveFloat } from '../../domains/ledger/ledger.port.js';
import * as repo from './chain.repository.js';
import { toChainUnits, toLedgerMinor } from './chain.config.js';

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
 *
 * Before signing (issue 39): the chain's circuit breaker must be closed; the chain must not count more
 * transactions from the hot wallet than Corridor handed out nonces (else the wallet was used
 * elsewhere: the breaker opens with `nonce_drift`); the token must not be paused nor the hot wallet on
 * its issuer's blacklist (else the breaker opens, payouts held); each payout's recipient must not be
 * on the blacklist, the token must charge no transfer fee, and the exact calldata must pass an
 * `eth_call` (else that payout fails with the named reason, no gas spent). The same refusal or revert
 * `breakerThreshold` times in a row opens the breaker. A payout whose nonce the chain took for a
 * transaction not ours, none of its versions mined, is put in `conflict` for the operator.
 */


/** Why a payout fails when its transfer reverted on chain (or in its pre-flight `eth_call`). */
export const REVERTED_REASON = 'chain_transfer_reverted';
/** Why the breaker opens when the chain counts more transactions of the hot wallet than Corridor signed. */
export const NONCE_DRIFT = 'nonce_drift';
/** Why a payout in nonce conflict fails when the operator cancels it. */
export const CONFLICT_CANCELLED = 'chain_nonce_conflict_cancelled';

const SIGN_BATCH_MAX = 100;
const FOLLOW_BATCH_MAX = 500;

interface Fees {
  maxFeePerGas: bigint;
  maxPriorityFeePerGas: bigint;
}

/**
 * EIP-1559 fees now: twice the base fee plus the tip, within the cap. The tip is the configured one,
 * never below the chain's minimum where it enforces one (`minPriorityFeeGwei`, Polygon's 25 gwei).
 */
export async function currentFees(rail: Pick<PayoutRail, 'client' | 'settings'>): Promise<Fees> {
  const block = await rail.client.getBlock({ blockTag: 'latest' });
  const base = block.baseFeePerGas ?? 0n;
  const cap = rail.settings.maxFeePerGasWei;
  const configured = rail.settings.maxPriorityFeePerGasWei;
  const floor = rail.settings.minPriorityFeePerGasWei;
  const tip = configured < floor ? floor : configured;
  const max = base * 2n + tip > cap ? cap : base * 2n + tip;
  return { maxFeePerGas: max, maxPriorityFeePerGas: tip > max ? max : tip };
}

/** The gas of a transaction: the node's estimate plus the chain's margin (gasMarginPercent). */
export function withMargin(rail: Pick<PayoutRail, 'settings'>, estimate: bigint): bigint {
  return (estimate * BigInt(100 + rail.settings.gasMarginPercent) + 99n) / 100n;
}

/** The payout's transfer calldata, its amount in the token's base units (10^12 of a minor unit on an 18-decimal token). */
function payoutData(rail: PayoutRail, row: repo.ChainPayoutRow): Hex {
  return transferData(getAddress(row.to_address), toChainUnits(rail.settings, row.currency, BigInt(row.amount_minor)));
}

/** The gas the payout's transfer needs now (eth_estimateGas from the hot wallet, with the margin). */
async function estimateTransfer(rail: PayoutRail, row: repo.ChainPayoutRow): Promise<bigint> {
  return withMargin(rail, await rail.client.estimateGas({ account: rail.signer.address, to: getAddress(row.token), data: payoutData(rail, row) }));
}

async function signOne(rail: PayoutRail, row: repo.ChainPayoutRow, nonce: bigint, fees: Fees, gas: bigint): Promise<{ hash: Hex; raw: Hex }> {
  const raw = await rail.signer.signTransaction({
    type: 'eip1559',
    chainId: rail.settings.chainId,
    nonce: Number(nonce),
    to: getAddress(row.token),
    data: payoutData(rail, row),
    value: 0n,
    gas,
    maxFeePerGas: fees.maxFeePerGas,
    maxPriorityFeePerGas: fees.maxPriorityFeePerGas,
  });
  return { hash: keccak256(raw), raw };
}

interface Refusal {
  reason: string;
  detail: string;
}

/** The issuer's checks of a batch, before anything is signed: a chain-wide refusal, else each payout's. */
async function issuerChecks(rail: PayoutRail, rows: readonly repo.ChainPayoutRow[]): Promise<{ chainWide?: Refusal; refused: Map<string, Refusal>; gas: Map<string, bigint> }> {
  const { client } = rail;
  const hot = rail.signer.address;
  const refused = new Map<string, Refusal>();
  const gas = new Map<string, bigint>();
  const fees = new Map<string, { basisPoints: bigint; maximum: bigint }>();
  for (const token of new Set(rows.map((r) => getAddress(r.token)))) {
    if (await tokenPaused(client, token)) return { chainWide: { reason: TOKEN_PAUSED, detail: `the issuer paused token ${token}` }, refused, gas };
    if (await blacklisted(client, token, hot)) return { chainWide: { reason: HOT_WALLET_FROZEN, detail: `the hot wallet ${hot} is on the blacklist of token ${token}` }, refused, gas };
    fees.set(token.toLowerCase(), await transferFee(client, token));
  }
  for (const row of rows) {
    const token = getAddress(row.token);
    const to = getAddress(row.to_address);
    const fee = fees.get(row.token);
    if (fee && fee.basisPoints > 0n) {
      refused.set(row.payout_id, { reason: TOKEN_TRANSFER_FEE, detail: `token ${token} charges ${fee.basisPoints} basis points on transfer (at most ${fee.maximum} base units): the recipient would get less` });
    } else if (await blacklisted(client, token, to)) {
      refused.set(row.payout_id, { reason: RECIPIENT_FROZEN, detail: `the recipient ${to} is on the blacklist of token ${token}` });
    } else {
      const pre = await preflightTransfer(client, hot, token, to, toChainUnits(rail.settings, row.currency, BigInt(row.amount_minor)));
      if (!pre.ok) refused.set(row.payout_id, { reason: REVERTED_REASON, detail: pre.detail });
      else gas.set(row.payout_id, await estimateTransfer(rail, row));
    }
  }
  return { refused, gas };
}

/** One more refusal or revert of the chain: the breaker opens when the same reason repeats `breakerThreshold` times. */
async function countRefusal(ctx: AppContext, tx: Tx, rail: PayoutRail, refusal: Refusal): Promise<boolean> {
  const streak = await repo.recordStreak(tx, rail.settings.name, refusal.reason);
  if (streak < rail.settings.treasury.breakerThreshold) return false;
  await openBreaker(ctx, tx, rail, refusal.reason, `${streak} in a row; the last: ${refusal.detail}`);
  return true;
}

/** Opens the chain's breaker: no payout of it is signed (those accepted are held) until the operator resumes it. */
async function openBreaker(ctx: AppContext, tx: Tx, rail: PayoutRail, reason: string, detail: string): Promise<void> {
  if (await repo.openBreaker(tx, rail.settings.name, reason, detail)) {
    ctx.log.error({ chain: rail.settings.name, reason, detail }, 'chain payouts paused (circuit breaker open); the operator resumes them');
  }
}

/**
 * Signs accepted payouts, a batch at a time: the rows (others' skipped), the issuer's checks (a
 * chain-wide refusal opens the breaker and signs nothing; a payout refused fails with its reason,
 * funds released), then the nonce row lock, then the payouts moved to processing (one cancelled
 * meanwhile is left out and takes no nonce), each signed and recorded; the next nonce stored; all in
 * one transaction. Answers what was signed and whether to look again.
 */
async function signBatch(ctx: AppContext, rail: PayoutRail, fees: Fees): Promise<{ signed: { hash: Hex; raw: Hex }[]; more: boolean }> {
  const chain = rail.settings.name;
  const from = rail.signer.address.toLowerCase();
  return ctx.db.tx(async (tx) => {
    const locked = await repo.lockAccepted(tx, chain, SIGN_BATCH_MAX);
    if (locked.length === 0) return { signed: [], more: false };
    const checks = await issuerChecks(rail, locked);
    if (checks.chainWide) {
      await openBreaker(ctx, tx, rail, checks.chainWide.reason, checks.chainWide.detail);
      return { signed: [], more: false };
    }
    // In order: a refusal that opens the breaker holds the payouts after it.
    const rows: repo.ChainPayoutRow[] = [];
    let open = false;
    for (const row of locked) {
      const refusal = checks.refused.get(row.payout_id);
      if (!refusal) {
        rows.push(row);
        continue;
      }
      ctx.log.warn({ chain, payoutId: row.payout_id, reason: refusal.reason, detail: refusal.detail }, 'chain payout refused before signing; no gas spent');
      await reportOutcomes(ctx, tx, [{ payoutId: row.payout_id, move: 'fail', failureReason: refusal.reason }]);
      await repo.setStatus(tx, row.payout_id, 'failed', refusal.reason, refusal.detail);
      if (await countRefusal(ctx, tx, rail, refusal)) {
        open = true;
        break;
      }
    }
    if (rows.length === 0) return { signed: [], more: !open };
    await repo.endStreak(tx, chain);
    let nonce = await repo.lockNonce(tx, chain, from);
    const outcomes = await reportOutcomes(ctx, tx, rows.map((r) => ({ payoutId: r.payout_id, move: 'process' as const })));
    const signed: { hash: Hex; raw: Hex }[] = [];
    for (const [i, row] of rows.entries()) {
      const outcome = outcomes[i];
      if (!outcome?.applied && outcome?.status !== 'processing') {
        await repo.setStatus(tx, row.payout_id, 'cancelled');
        continue;
      }
      const t = await signOne(rail, row, nonce, fees, checks.gas.get(row.payout_id) ?? (await estimateTransfer(rail, row)));
      await repo.insertTransaction(tx, { hash: t.hash, payoutId: row.payout_id, chain, nonce, raw: t.raw, ...fees });
      await repo.setSigned(tx, row.payout_id, from, nonce);
      signed.push(t);
      nonce += 1n;
    }
    await repo.setNextNonce(tx, chain, from, nonce);
    return { signed, more: !open };
  });
}

/** A node's answer that means it has the transaction already, or a replacement of it. */
function alreadyThere(text: string): boolean {
  return /already known|already imported|known transaction|replacement transaction underpriced|transaction already exists/i.test(text);
}

/** A node's answer that the nonce is used: by this transaction or a version of it (mined), or by another. */
function nonceTaken(text: string): boolean {
  return /nonce too low|nonce has already been used|nonce is too low/i.test(text);
}

/**
 * Hands the recorded bytes to the node; answers the hashes the node has now, and those whose nonce
 * the chain has used already (mined: ours, or someone else's; the caller looks for a receipt).
 */
async function broadcast(ctx: AppContext, rail: PayoutRail, txs: readonly { hash: string; raw: string }[]): Promise<{ sent: string[]; taken: Map<string, string> }> {
  const sent: string[] = [];
  const taken = new Map<string, string>();
  for (const t of txs) {
    try {
      await rail.client.sendRawTransaction({ serializedTransaction: t.raw as Hex });
      sent.push(t.hash);
    } catch (err) {
      const text = err instanceof Error ? `${err.message} ${(err as { details?: string }).details ?? ''}` : String(err);
      if (alreadyThere(text)) sent.push(t.hash);
      else if (nonceTaken(text)) taken.set(t.hash, nodeReason(err));
      else ctx.log.warn({ chain: rail.settings.name, txHash: t.hash, err: nodeReason(err) }, 'chain broadcast failed; retried on the next look');
    }
  }
  return { sent, taken };
}

/**
 * Signs and broadcasts every accepted payout of the chain, unless its breaker is open (they are held)
 * or the chain counts more transactions from the hot wallet than Corridor handed out (the breaker
 * opens with `nonce_drift`).
 */
export async function sendAccepted(ctx: AppContext, rail: PayoutRail, hooks: ChainHooks = {}): Promise<number> {
  const chain = rail.settings.name;
  let total = 0;
  let ready = false;
  for (;;) {
    if (!ready) {
      // Nothing to sign costs one read, no call to the node.
      if ((await repo.countAccepted(ctx.db, chain)) === 0) return total;
      if ((await repo.breaker(ctx.db, chain)).open) return total;
      if (await nonceDrift(ctx, rail)) return total;
      ready = true;
    }
    const { signed, more } = await signBatch(ctx, rail, await currentFees(rail));
    total += signed.length;
    if (signed.length > 0) {
      await hooks.afterSign?.(signed.map((s) => s.hash));
      const { sent } = await broadcast(ctx, rail, signed);
      // A nonce taken already is left signed: followSent looks for its receipt, else puts it in conflict.
      await hooks.afterBroadcast?.(sent);
      await repo.markSent(ctx.db, sent);
    }
    if (!more) return total;
  }
}

/**
 * The chain's count of the hot wallet's transactions (pending included) against the next nonce
 * Corridor keeps (the row started at the chain's count): more on chain means the wallet signed
 * elsewhere, and the breaker opens. The chain is read first: every nonce broadcast by then was
 * handed out before, so a concurrent worker never looks like drift.
 */
async function nonceDrift(ctx: AppContext, rail: PayoutRail): Promise<boolean> {
  const chain = rail.settings.name;
  const from = rail.signer.address.toLowerCase();
  const onChain = BigInt(await rail.client.getTransactionCount({ address: rail.signer.address, blockTag: 'pending' }));
  await repo.ensureNonceRow(ctx.db, chain, from, onChain);
  const ours = (await repo.readNextNonce(ctx.db, chain, from)) ?? onChain;
  if (onChain <= ours) return false;
  await ctx.db.tx((tx) =>
    openBreaker(ctx, tx, rail, NONCE_DRIFT, `the chain counts ${onChain} transactions from the hot wallet ${rail.signer.address}, Corridor signed up to nonce ${ours - 1n}: it was used outside Corridor`),
  );
  return true;
}

/** A transaction's receipt, or undefined while it is not mined. */
export async function receipt(client: PublicClient, hash: string): Promise<TransactionReceipt | undefined> {
  try {
    return await client.getTransactionReceipt({ hash: hash as Hex });
  } catch (err) {
    if (err instanceof Error && /could not be found|not found/i.test(err.message)) return undefined;
    throw err;
  }
}

/** What the recipient's Transfer logs of the token in this receipt add up to (what was delivered). */
export function deliveredTo(mined: TransactionReceipt, token: string, to: string): bigint {
  const topic = `0x${to.toLowerCase().slice(2).padStart(64, '0')}`;
  return mined.logs
    .filter((l) => l.address.toLowerCase() === token.toLowerCase() && l.topics[0] === TRANSFER_TOPIC && l.topics[2]?.toLowerCase() === topic)
    .reduce((sum, l) => sum + BigInt(l.data), 0n);
}

/**
 * The payout's transaction counted: pays (or, reverted, fails) the payout once, in one transaction.
 * Paid, what the recipient's Transfer log says arrived is kept when it is less than the amount (a
 * token that took a fee), on the payout as `deliveredAmount`. A revert counts toward the breaker.
 */
async function settle(ctx: AppContext, tx: Tx, rail: PayoutRail, row: repo.ChainPayoutRow, mined: TransactionReceipt, revertDetail: string | null): Promise<void> {
  const railDetails: { txHash: string; chain: string; deliveredAmount?: string } = { txHash: mined.transactionHash, chain: rail.settings.name };
  await repo.setMined(tx, row.payout_id, mined.transactionHash, mined.blockNumber);
  if (mined.status === 'success') {
    const deliveredUnits = deliveredTo(mined, row.token, row.to_address);
    const delivered = toLedgerMinor(rail.settings, row.currency, deliveredUnits);
    if (deliveredUnits !== toChainUnits(rail.settings, row.currency, BigInt(row.amount_minor))) {
      await repo.setDelivered(tx, row.payout_id, delivered);
      railDetails.deliveredAmount = formatAmount(delivered, row.currency);
      ctx.log.warn({ chain: rail.settings.name, payoutId: row.payout_id, amountMinor: row.amount_minor, deliveredMinor: delivered.toString() }, 'chain payout delivered less than its amount (a fee on transfer?)');
    }
    await reportOutcomes(ctx, tx, [{ payoutId: row.payout_id, move: 'pay', rail: railDetails }]);
    await paidOutOfFloat(tx, rail, row);
    await repo.setStatus(tx, row.payout_id, 'confirmed');
    await repo.endStreak(tx, rail.settings.name);
  } else {
    const detail = revertDetail ?? 'reverted on chain';
    ctx.log.warn({ chain: rail.settings.name, payoutId: row.payout_id, txHash: mined.transactionHash, gasUsed: mined.gasUsed.toString(), detail }, 'chain payout transaction reverted');
    await reportOutcomes(ctx, tx, [{ payoutId: row.payout_id, move: 'fail', failureReason: REVERTED_REASON, rail: railDetails }]);
    await repo.setStatus(tx, row.payout_id, 'failed', REVERTED_REASON, detail);
    await countRefusal(ctx, tx, rail, { reason: REVERTED_REASON, detail });
  }
}

/**
 * The hot wallet sent the payout's amount (all of it, whatever a fee on transfer took from what
 * arrived): the ledger's float of the chain goes down by it, against the clearing the payout's hold
 * credited, in the transaction that pays the payout (docs/guides/crypto-rail.md, the hot wallet's float).
 */
async function paidOutOfFloat(tx: Tx, rail: PayoutRail, row: repo.ChainPayoutRow): Promise<void> {
  const payout = await findAnyPayout(tx, row.payout_id);
  if (!payout) throw new Error(`chain payout ${row.payout_id} has no payout`);
  await moveFloat(tx, {
    rail: rail.settings.name,
    currency: row.currency,
    amountMinor: BigInt(row.amount_minor),
    movement: 'paid_out',
    clearing: payout.route,
    reference: { type: 'chain_payout', id: row.payout_id },
    description: 'Paid out of the hot wallet',
  });
}

/** The node's reason of a reverted transfer: the same call replayed on the state before its block. */
async function revertReason(rail: PayoutRail, row: repo.ChainPayoutRow, mined: TransactionReceipt): Promise<string> {
  try {
    await rail.client.call({ account: rail.signer.address, to: getAddress(row.token), data: payoutData(rail, row), blockNumber: mined.blockNumber - 1n });
    return `reverted on chain (${mined.gasUsed} gas); replayed before its block it passes`;
  } catch (err) {
    return `reverted on chain (${mined.gasUsed} gas): ${nodeReason(err)}`;
  }
}

/**
 * The chain took the payout's nonce and none of its versions is mined: a transaction not ours used it
 * (the hot wallet signed elsewhere). The payout goes to `conflict` (still processing, funds held)
 * for the operator to re-sign or cancel, and the breaker opens.
 */
async function markConflict(ctx: AppContext, rail: PayoutRail, payoutId: string, detail: string): Promise<void> {
  await ctx.db.tx(async (tx) => {
    const row = await repo.lockChainPayout(tx, payoutId);
    if (!row || (row.status !== 'signed' && row.status !== 'sent')) return;
    await repo.setStatus(tx, payoutId, 'conflict', null, `nonce ${row.nonce} taken on chain by a transaction not Corridor's: ${detail}`);
    ctx.log.error({ chain: rail.settings.name, payoutId, nonce: row.nonce, detail }, 'chain payout in nonce conflict: re-sign or cancel it (operator)');
    await openBreaker(ctx, tx, rail, NONCE_DRIFT, `payout ${payoutId}: nonce ${row.nonce} was used by a transaction not Corridor's`);
  });
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
    // The same gas as the version it replaces (the same transfer; an estimate now could differ).
    const t = await signOne(rail, row, BigInt(row.nonce), next, parseTransaction(latest.raw as Hex).gas ?? (await estimateTransfer(rail, row)));
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
    const minedOf = async () => {
      for (const v of versions) {
        const r = await receipt(rail.client, v.hash);
        if (r) return r;
      }
      return undefined;
    };
    const mined = await minedOf();
    const latest = versions[versions.length - 1] as (typeof versions)[number];
    if (mined && head - mined.blockNumber + 1n >= BigInt(rail.settings.confirmations)) {
      const row = await repo.findChainPayout(ctx.db, payoutId);
      const detail = row && mined.status !== 'success' ? await revertReason(rail, row, mined) : null;
      const settled = await ctx.db.tx(async (tx) => {
        const locked = await repo.lockChainPayout(tx, payoutId);
        if (!locked || (locked.status !== 'signed' && locked.status !== 'sent')) return false;
        await settle(ctx, tx, rail, locked, mined, detail);
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
    const { sent, taken } = await broadcast(ctx, rail, [latest]);
    const takenDetail = taken.get(latest.hash);
    // Its nonce is used: ours when a version is mined by now (seen on the next look), else another's.
    if (takenDetail !== undefined) {
      if (!(await minedOf())) await markConflict(ctx, rail, payoutId, takenDetail);
      continue;
    }
    if (latest.sent_at === null) {
      await hooks.afterBroadcast?.(sent);
      await repo.markSent(ctx.db, sent);
    } else if (Date.now() - latest.sent_at.getTime() >= rail.settings.replaceAfterSeconds * 1000) {
      fees ??= await currentFees(rail);
      const replaced = await replacement(ctx, rail, payoutId, fees);
      if (replaced) await repo.markSent(ctx.db, (await broadcast(ctx, rail, [replaced])).sent);
    }
  }
  return ended;
}

// The operator's ways out (operator API and console; docs/guides/crypto-rail.md)

/** What the operator's actions read from the node before their transaction: the wallet's count, the fees, a payout's mined version. */
export interface NodeView {
  onChainCount: bigint;
  fees: Fees;
  /** A version of the payout is mined (it was not in conflict after all: followed again, settled by the worker). */
  mined: boolean;
}

export async function nodeView(sql: Sql, rail: PayoutRail, payoutId?: string): Promise<NodeView> {
  const onChainCount = BigInt(await rail.client.getTransactionCount({ address: rail.signer.address, blockTag: 'pending' }));
  let mined = false;
  for (const v of payoutId ? await repo.transactionsOf(sql, payoutId) : []) {
    if (await receipt(rail.client, v.hash)) mined = true;
  }
  return { onChainCount, fees: await currentFees(rail), mined };
}

const conflictOnly = (status: string) =>
  new DomainError({ category: 'conflict', code: 'CHAIN_PAYOUT_NOT_IN_CONFLICT', message: `the chain payout is ${status}, not in conflict: only a payout in nonce conflict is re-signed or cancelled here` });

/**
 * Locks the payout in conflict. One found mined after all is not in conflict: it goes back to `sent`,
 * followed and settled by the worker, and the action does nothing more (answered undefined).
 */
async function lockConflict(tx: Tx, payoutId: string, node: NodeView): Promise<repo.ChainPayoutRow | undefined> {
  const row = await repo.findChainPayout(tx, payoutId);
  if (!row) throw new DomainError({ category: 'not_found', code: 'CHAIN_PAYOUT_NOT_FOUND', message: 'no chain payout has this id' });
  const locked = await repo.lockChainPayout(tx, payoutId);
  if (!locked) throw new DomainError({ category: 'conflict', code: 'CHAIN_PAYOUT_BUSY', message: 'a worker holds this payout; try again' });
  if (locked.status !== 'conflict') throw conflictOnly(locked.status);
  if (!node.mined) return locked;
  await repo.setStatus(tx, payoutId, 'sent');
  return undefined;
}

/**
 * Re-signs a payout in conflict at a fresh nonce (the wallet's next, or the chain's count when that is
 * higher), recorded before it is broadcast (by the worker's next look), with the nonce row moved on.
 * Its old versions can never be mined: their nonce is used on chain.
 */
export async function resignConflict(ctx: AppContext, tx: Tx, rail: PayoutRail, payoutId: string, node: NodeView): Promise<repo.ChainPayoutRow> {
  const row = await lockConflict(tx, payoutId, node);
  if (!row) return (await repo.findChainPayout(tx, payoutId)) as repo.ChainPayoutRow;
  const chain = rail.settings.name;
  const from = rail.signer.address.toLowerCase();
  const ours = await repo.lockNonce(tx, chain, from);
  const nonce = ours > node.onChainCount ? ours : node.onChainCount;
  const t = await signOne(rail, row, nonce, node.fees, await estimateTransfer(rail, row));
  await repo.insertTransaction(tx, { hash: t.hash, payoutId, chain, nonce, raw: t.raw, ...node.fees });
  await repo.setResigned(tx, payoutId, nonce);
  await repo.setNextNonce(tx, chain, from, nonce + 1n);
  ctx.log.warn({ chain, payoutId, nonce: nonce.toString(), txHash: t.hash }, 'chain payout in conflict re-signed at a fresh nonce by the operator');
  return (await repo.findChainPayout(tx, payoutId)) as repo.ChainPayoutRow;
}

/** Cancels a payout in conflict: it fails (`chain_nonce_conflict_cancelled`), its funds released once by the payouts module. */
export async function cancelConflict(ctx: AppContext, tx: Tx, payoutId: string, node: NodeView): Promise<repo.ChainPayoutRow> {
  const row = await lockConflict(tx, payoutId, node);
  if (!row) return (await repo.findChainPayout(tx, payoutId)) as repo.ChainPayoutRow;
  await reportOutcomes(ctx, tx, [{ payoutId, move: 'fail', failureReason: CONFLICT_CANCELLED }]);
  await repo.setStatus(tx, payoutId, 'failed', CONFLICT_CANCELLED);
  ctx.log.warn({ chain: row.chain, payoutId }, 'chain payout in conflict cancelled by the operator; funds released');
  return (await repo.findChainPayout(tx, payoutId)) as repo.ChainPayoutRow;
}

/**
 * The operator resumes the chain's payouts: the breaker closes and its streak is forgotten; after a
 * nonce drift the wallet's next nonce moves up to the chain's count (the nonces used elsewhere are
 * skipped). Answers the breaker as it was (undefined: it was not open).
 */
export async function resumeChain(ctx: AppContext, tx: Tx, rail: PayoutRail, node: NodeView): Promise<repo.ChainBreakerRow | undefined> {
  const chain = rail.settings.name;
  const was = await repo.closeBreaker(tx, chain);
  if (!was) return undefined;
  const from = rail.signer.address.toLowerCase();
  if ((await repo.readNextNonce(tx, chain, from)) !== undefined) {
    const ours = await repo.lockNonce(tx, chain, from);
    if (node.onChainCount > ours) await repo.setNextNonce(tx, chain, from, node.onChainCount);
  }
  ctx.log.warn({ chain, reason: was.reason }, 'chain payouts resumed by the operator');
  return was;
}

/** The token balance of the hot wallet (the operator watches it; docs/guides/crypto-rail.md). */
export function hotWalletAddress(rail: PayoutRail): Address {
  return rail.signer.address;
}
