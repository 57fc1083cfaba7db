import type { ConditionSource } from '../../controls/alerts/alerts.port.js';
import { formatUnits, getAddress } from 'viem';
import type { Connectors } from '../connector.js';
import type { Sql, Tx } from '../../platform/db/db.js';
import { formatAmount, parseAmount } from '../../platform/lib/money.js';
import { ERC20_ABI } from './chain.client.js';
import { toChainUnits, toLedgerMinor, type ChainCurrency } from './chain.config.js';
import { floatBalance, moveFloat } from '../../domains/ledger/ledger.port.js';
import { ChainConnector } from './chain.connector.js';
import { nodeReason } from './chain.issuer.js';
import { nodeView, type NodeView } from './chain.payouts.js';
import type { PayoutRail } from './chain.rails.js';
import { DomainError, fieldError } from '../../platform/lib/errors.js';
import type { ChainRuntime } from './chain.rails.js';
import * as repo from './chain.repository.js';
import { breakerView } from './chain.service.js';
import { sweepView } from './chain.sweeps.js';

/**
 * The treasury someone watches, per chain: the hot wallet's gas coin and token balances, its next
 * nonce against the chain's count, the payouts on their way (the oldest's age, those in conflict,
 * those held), the last block seen, and the circuit breaker. `treasuryConditions` answers what needs
 * the operator (thresholds of the chain's settings) as queryable state, for alerts to poll.
 */

export const TREASURY_CONDITIONS = ['breaker_open', 'nonce_drift', 'nonce_conflict', 'gas_low', 'token_low', 'processing_too_long', 'node_unreachable', 'reconciliation_difference', 'float_difference'] as const;
export type TreasuryConditionCode = (typeof TREASURY_CONDITIONS)[number];

export interface TreasuryCondition {
  chain: string;
  code: TreasuryConditionCode;
  /** What is wrong and what the operator does (docs/guides/crypto-rail.md, "What the operator does on each condition"). */
  message: string;
}

/**
 * The reconciliation of one token: what the deposit addresses hold on chain against the records' view
 * (every transfer taken and still on the chain, less what confirmed sweeps took), and what the hot
 * wallet holds on chain against the ledger's float of the chain (what payouts, sweeps and the
 * operator's fundings left it); each difference shown, in the token's base units.
 */
export interface TokenReconciliation {
  currency: string;
  token: string;
  /** Null when the chain does not receive. */
  depositAddresses: { onChain: string; expected: string; difference: string } | null;
  hotWallet: {
    onChain: string | null;
    sweptIn: string;
    /** The ledger's float (rail_float) in base units, and as an amount of the currency; null when the chain does not pay out. */
    ledger: string | null;
    ledgerAmount: string | null;
    /** Payouts signed and not yet settled (may have left the wallet already), in base units. */
    payingOut: string;
    /** Sweeps recorded and not yet confirmed (may have arrived already), in base units. */
    sweepingIn: string;
    /** How far the on-chain balance lies outside [ledger − payingOut, ledger + sweepingIn] (0: reconciled); null when unknown. */
    difference: string | null;
    /** A difference up to this (base units) raises no condition (reconcileTolerance). */
    tolerance: string;
  };
}

export interface ChainTreasury {
  chain: string;
  hotWallet: string | null;
  /** The gas coin of the hot wallet, in ether units (18 decimals), and its threshold. */
  gas: { balance: string; balanceWei: string; lowBelow: string } | null;
  tokens: { currency: string; token: string; balance: string; lowBelow: string | null }[];
  nonce: { next: string | null; onChain: string } | null;
  processing: { count: number; oldestAgeSeconds: number | null; alarmAfterSeconds: number; conflicts: number; held: number };
  lastBlock: { head: string | null; watcherNext: string | null };
  breaker: ReturnType<typeof breakerView>;
  /** The node's words when it did not answer (balances and nonce are then unknown). */
  nodeError: string | null;
  /** On-chain balances against the records, per token (empty when the chain does not receive or its node did not answer). */
  reconciliation: TokenReconciliation[];
  conditions: TreasuryCondition[];
}

function runtimes(connectors: Pick<Connectors, 'all'>): ChainRuntime[] {
  return connectors
    .all()
    .filter((c): c is ChainConnector => c instanceof ChainConnector)
    .flatMap((c) => [...c.chains]);
}

async function oneChain(sql: Sql, c: ChainRuntime, now: Date): Promise<ChainTreasury> {
  const chain = c.settings.name;
  const t = c.settings.treasury;
  const hot = c.payouts?.signer.address;
  const [summary, breaker, watcherNext, next] = await Promise.all([
    repo.processingSummary(sql, chain),
    repo.breaker(sql, chain),
    repo.readCheckpoint(sql, chain),
    hot ? repo.readNextNonce(sql, chain, hot.toLowerCase()) : Promise.resolve(undefined),
  ]);
  const conditions: TreasuryCondition[] = [];
  const add = (code: TreasuryConditionCode, message: string) => conditions.push({ chain, code, message });
  let nodeError: string | null = null;
  let head: bigint | null = null;
  let gas: ChainTreasury['gas'] = null;
  const tokens: ChainTreasury['tokens'] = [];
  let nonce: ChainTreasury['nonce'] = null;
  const reconciliation: TokenReconciliation[] = [];
  try {
    head = await c.client.getBlockNumber({ cacheTime: 0 });
    if (hot) {
      const wei = await c.client.getBalance({ address: hot });
      gas = { balance: formatUnits(wei, 18), balanceWei: wei.toString(), lowBelow: formatUnits(t.gasLowWei, 18) };
      if (wei < t.gasLowWei) add('gas_low', `the hot wallet ${hot} holds ${gas.balance} of the gas coin, below ${gas.lowBelow}: fund it, or payouts stop being mined`);
      for (const [currency, token] of Object.entries(c.settings.tokens) as [ChainCurrency, `0x${string}`][]) {
        const minor = toLedgerMinor(c.settings, currency, await c.client.readContract({ address: getAddress(token), abi: ERC20_ABI, functionName: 'balanceOf', args: [hot] }));
        const low = t.tokenLowMinor[currency];
        const balance = formatAmount(minor, currency);
        tokens.push({ currency, token: token.toLowerCase(), balance, lowBelow: low === undefined ? null : formatAmount(low, currency) });
        if (low !== undefined && minor < low) add('token_low', `the hot wallet ${hot} holds ${balance} ${currency}, below ${formatAmount(low, currency)}: fund it, or ${currency} payouts fail`);
      }
      const onChain = BigInt(await c.client.getTransactionCount({ address: hot, blockTag: 'pending' }));
      nonce = { next: next?.toString() ?? null, onChain: onChain.toString() };
      if (next !== undefined && onChain > next) add('nonce_drift', `the chain counts ${onChain} transactions from the hot wallet, Corridor's next nonce is ${next}: the wallet was used outside Corridor`);
    }
    const addresses = c.deposits ? (await repo.depositAddresses(sql, chain)).map((a) => getAddress(a.address)) : [];
    if (c.deposits || hot) {
      for (const [currency, token] of Object.entries(c.settings.tokens) as [ChainCurrency, `0x${string}`][]) {
        const r = await reconcileToken(sql, c, currency, token, addresses, hot);
        reconciliation.push(r);
        const d = r.depositAddresses;
        if (d && d.difference !== '0') add('reconciliation_difference', `the deposit addresses hold ${d.onChain} base units of ${currency}, the records say ${d.expected} (difference ${d.difference}): look at the chain deposits and sweeps`);
        const h = r.hotWallet;
        if (h.difference !== null && abs(BigInt(h.difference)) > BigInt(h.tolerance)) {
          add('float_difference', `the hot wallet ${hot} holds ${h.onChain} base units of ${currency}, the ledger's float says ${h.ledger} (difference ${h.difference}, ${h.payingOut} paying out, ${h.sweepingIn} sweeping in): record a funding or withdrawal the operator made, else the key was used elsewhere`);
        }
      }
    }
  } catch (err) {
    nodeError = nodeReason(err);
    add('node_unreachable', `the chain's nodes did not answer (${nodeError}): check rpcUrls`);
  }
  const oldestAgeSeconds = summary.oldest ? Math.max(0, Math.floor((now.getTime() - new Date(summary.oldest).getTime()) / 1000)) : null;
  if (breaker.open) add('breaker_open', `payouts of ${chain} are paused (${breaker.reason}: ${breaker.detail ?? ''}); fix the cause, then resume the chain`);
  if (summary.conflicts > 0) add('nonce_conflict', `${summary.conflicts} payout(s) in nonce conflict: re-sign or cancel each`);
  if (oldestAgeSeconds !== null && oldestAgeSeconds >= t.processingAlarmSeconds) add('processing_too_long', `a payout has been processing for ${oldestAgeSeconds} s (alarm at ${t.processingAlarmSeconds} s): look at its transaction on the Chain page`);
  return {
    chain,
    hotWallet: hot ?? null,
    gas,
    tokens,
    nonce,
    processing: { count: summary.count, oldestAgeSeconds, alarmAfterSeconds: t.processingAlarmSeconds, conflicts: summary.conflicts, held: summary.held },
    lastBlock: { head: head?.toString() ?? null, watcherNext: watcherNext?.toString() ?? null },
    breaker: breakerView(breaker, t.breakerThreshold),
    nodeError,
    reconciliation,
    conditions,
  };
}

const abs = (v: bigint): bigint => (v < 0n ? -v : v);

/** One token of a chain reconciled: the deposit addresses against the records, the hot wallet against the ledger's float. */
async function reconcileToken(sql: Sql, c: ChainRuntime, currency: ChainCurrency, token: `0x${string}`, addresses: readonly `0x${string}`[], hot: `0x${string}` | undefined): Promise<TokenReconciliation> {
  const chain = c.settings.name;
  const balanceOf = (address: `0x${string}`) => c.client.readContract({ address: getAddress(token), abi: ERC20_ABI, functionName: 'balanceOf', args: [address] });
  let depositAddresses: TokenReconciliation['depositAddresses'] = null;
  if (c.deposits) {
    let onChain = 0n;
    for (const address of addresses) onChain += await balanceOf(address);
    const expected = await repo.depositAddressesExpected(sql, chain, token.toLowerCase());
    depositAddresses = { onChain: onChain.toString(), expected: expected.toString(), difference: (onChain - expected).toString() };
  }
  const hotUnits = hot ? await balanceOf(hot) : null;
  const sweptIn = await repo.sweptInto(sql, chain, token.toLowerCase());
  const flight = await repo.floatInFlight(sql, chain, currency, token.toLowerCase());
  const payingOut = toChainUnits(c.settings, currency, flight.payingOutMinor);
  const floatMinor = hot ? await floatBalance(sql, chain, currency) : null;
  const ledger = floatMinor === null ? null : toChainUnits(c.settings, currency, floatMinor);
  let difference: bigint | null = null;
  if (hotUnits !== null && ledger !== null) {
    const low = ledger - payingOut;
    const high = ledger + flight.sweepingInUnits;
    difference = hotUnits < low ? hotUnits - low : hotUnits > high ? hotUnits - high : 0n;
  }
  return {
    currency,
    token: token.toLowerCase(),
    depositAddresses,
    hotWallet: {
      onChain: hotUnits?.toString() ?? null,
      sweptIn: sweptIn.toString(),
      ledger: ledger?.toString() ?? null,
      ledgerAmount: floatMinor === null ? null : formatAmount(floatMinor, currency),
      payingOut: payingOut.toString(),
      sweepingIn: flight.sweepingInUnits.toString(),
      difference: difference?.toString() ?? null,
      tolerance: toChainUnits(c.settings, currency, c.settings.treasury.reconcileToleranceMinor[currency] ?? 0n).toString(),
    },
  };
}

/** The treasury of every configured chain (the console's Chain page, GET /operator/v1/chain/treasury). */
export async function chainTreasury(ctx: { db: Sql; connectors: Pick<Connectors, 'all'> }, now = new Date()): Promise<ChainTreasury[]> {
  const out: ChainTreasury[] = [];
  for (const c of runtimes(ctx.connectors)) out.push(await oneChain(ctx.db, c, now));
  return out;
}

/** What needs the operator on every chain now (breaker open, nonce drift or conflict, gas or a token low, a payout processing too long, a node down): for alerts. */
export async function treasuryConditions(ctx: { db: Sql; connectors: Pick<Connectors, 'all'> }, now = new Date()): Promise<TreasuryCondition[]> {
  return (await chainTreasury(ctx, now)).flatMap((t) => t.conditions);
}

/** The runtime of a configured chain that pays out, by name (the operator's actions). */
export function payoutRailOf(connectors: Pick<Connectors, 'all'>, chain: string) {
  return runtimes(connectors).find((c) => c.settings.name === chain)?.payouts;
}

/** The chain payout the operator acts on, its chain's payout rail, and what the node says now (read before the action's transaction). */
export async function conflictAction(ctx: { db: Sql; connectors: Pick<Connectors, 'all'> }, payoutId: string): Promise<{ rail: PayoutRail; node: NodeView }> {
  const row = await repo.findChainPayout(ctx.db, payoutId);
  if (!row) throw new DomainError({ category: 'not_found', code: 'CHAIN_PAYOUT_NOT_FOUND', message: 'no chain payout has this id' });
  const rail = payoutRailOf(ctx.connectors, row.chain);
  if (!rail) throw new DomainError({ category: 'conflict', code: 'CHAIN_NOT_CONFIGURED', message: `chain ${row.chain} does not pay out in this process's connectors file` });
  return { rail, node: await nodeView(ctx.db, rail, payoutId) };
}

/** The chain the operator resumes, and the hot wallet's count on it now. */
export async function resumeAction(ctx: { db: Sql; connectors: Pick<Connectors, 'all'> }, chain: string): Promise<{ rail: PayoutRail; node: NodeView }> {
  const rail = payoutRailOf(ctx.connectors, chain);
  if (!rail) throw new DomainError({ category: 'not_found', code: 'CHAIN_NOT_FOUND', message: `no configured chain ${chain} pays out` });
  return { rail, node: await nodeView(ctx.db, rail) };
}

/** What the operator records when it moved a hot wallet's tokens itself (POST /operator/v1/chain/chains/{name}/fundings). */
export interface FundingInput {
  currency: string;
  amount: string;
  direction: 'in' | 'out';
  txHash?: string | undefined;
  note?: string | undefined;
}

/**
 * The operator funded the hot wallet of a chain with a token, or took some out: the ledger's float of
 * the chain moves by it (against operator_adjustments), one posted transfer in the caller's
 * transaction (the operator call's audit entry commits with it). Gas coin is not recorded: the float
 * is in token terms only.
 */
export async function recordFunding(ctx: { connectors: Pick<Connectors, 'all'> }, tx: Tx, chain: string, input: FundingInput) {
  const rail = payoutRailOf(ctx.connectors, chain);
  if (!rail) throw new DomainError({ category: 'not_found', code: 'CHAIN_NOT_FOUND', message: `no configured chain ${chain} pays out (has a hot wallet)` });
  const currency = input.currency as ChainCurrency;
  if (!rail.settings.tokens[currency]) throw fieldError('currency', `chain ${chain} has no ${input.currency} token (it has ${Object.keys(rail.settings.tokens).join(', ')})`);
  const amountMinor = parseAmount(input.amount, currency, 'amount');
  const transferId = await moveFloat(tx, {
    rail: chain,
    currency,
    amountMinor,
    movement: input.direction === 'in' ? 'funded' : 'withdrawn',
    reference: { type: 'chain_funding', id: input.txHash?.toLowerCase() },
    description: [input.direction === 'in' ? 'Hot wallet funded by the operator' : 'Tokens taken out of the hot wallet by the operator', input.note].filter(Boolean).join(': '),
  });
  return {
    chain,
    currency,
    direction: input.direction,
    amount: formatAmount(amountMinor, currency),
    transferId,
    txHash: input.txHash?.toLowerCase() ?? null,
    float: formatAmount(await floatBalance(tx, chain, currency), currency),
  };
}

/** The sweeps of deposit addresses, newest first (the console's Chain page, GET /operator/v1/chain/sweeps). */
export async function chainSweeps(ctx: { db: Sql; connectors: Pick<Connectors, 'all'> }, chain: string | null, limit = 100) {
  const settings = new Map(runtimes(ctx.connectors).map((c) => [c.settings.name, c.settings]));
  return (await repo.listSweeps(ctx.db, chain, limit)).map((row) => sweepView(row, settings.get(row.chain)?.decimals[row.currency as ChainCurrency]));
}

/**
 * The chain's alert condition source (declared in the connector's definition): what a chain's
 * treasury needs the operator for, with its own thresholds in the chain's settings (gasLowBelow,
 * tokenLowBelow, processingAlarmSeconds): the circuit breaker open, a nonce drift or conflict, gas or
 * a token low, a payout processing too long, the node unreachable, the deposit addresses not
 * reconciled with the records, the hot wallet not reconciled with the ledger's float (beyond reconcileTolerance).
 */
export const treasuryConditionSource: ConditionSource = {
  name: 'chain.treasury',
  unit: 'none',
  defaultThreshold: 0,
  filterKeys: ['chain', 'code'],
  description: "A chain's hot wallet or payouts need the operator: breaker_open, nonce_drift, nonce_conflict, gas_low, token_low, processing_too_long, node_unreachable, reconciliation_difference, float_difference (thresholds in the chain's settings)",
  async check(ctx, { filter }) {
    return (await treasuryConditions(ctx))
      .filter((c) => (!filter.chain || c.chain === filter.chain) && (!filter.code || c.code === filter.code))
      .map((c) => ({ subject: `${c.chain}/${c.code}`, summary: `${c.chain}: ${c.message}`, details: { chain: c.chain, code: c.code } }));
  },
};
