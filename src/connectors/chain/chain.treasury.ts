import type { ConditionSource } from '../../controls/alerts/alerts.port.js';
import { formatUnits, getAddress } from 'viem';
import type { Connectors } from '../connector.js';
import type { Sql } from '../../platform/db/db.js';
import { formatAmount } from '../../platform/lib/money.js';
import { ERC20_ABI } from './chain.client.js';
import { toLedgerMinor, type ChainCurrency } from './chain.config.js';
import { ChainConnector } from './chain.connector.js';
import { nodeReason } from './chain.issuer.js';
import { nodeView, type NodeView } from './chain.payouts.js';
import type { PayoutRail } from './chain.rails.js';
import { DomainError } from '../../platform/lib/errors.js';
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

export const TREASURY_CONDITIONS = ['breaker_open', 'nonce_drift', 'nonce_conflict', 'gas_low', 'token_low', 'processing_too_long', 'node_unreachable', 'reconciliation_difference'] as const;
export type TreasuryConditionCode = (typeof TREASURY_CONDITIONS)[number];

export interface TreasuryCondition {
  chain: string;
  code: TreasuryConditionCode;
  /** What is wrong and what the operator does (docs/guides/crypto-rail.md, "What the operator does on each condition"). */
  message: string;
}

/**
 * The reconciliation of one token: what the deposit addresses hold on chain against the records'
 * view (every transfer taken and still on the chain, less what confirmed sweeps took), and the hot
 * wallet's balance beside what sweeps brought it; the difference shown, in the token's base units.
 */
export interface TokenReconciliation {
  currency: string;
  token: string;
  depositAddresses: { onChain: string; expected: string; difference: string };
  hotWallet: { onChain: string | null; sweptIn: string };
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
    if (c.deposits) {
      const addresses = (await repo.depositAddresses(sql, chain)).map((a) => getAddress(a.address));
      for (const [currency, token] of Object.entries(c.settings.tokens) as [ChainCurrency, `0x${string}`][]) {
        let onChain = 0n;
        for (const address of addresses) onChain += await c.client.readContract({ address: getAddress(token), abi: ERC20_ABI, functionName: 'balanceOf', args: [address] });
        const expected = await repo.depositAddressesExpected(sql, chain, token.toLowerCase());
        const hotUnits = hot ? await c.client.readContract({ address: getAddress(token), abi: ERC20_ABI, functionName: 'balanceOf', args: [hot] }) : null;
        const sweptIn = await repo.sweptInto(sql, chain, token.toLowerCase());
        reconciliation.push({
          currency,
          token: token.toLowerCase(),
          depositAddresses: { onChain: onChain.toString(), expected: expected.toString(), difference: (onChain - expected).toString() },
          hotWallet: { onChain: hotUnits?.toString() ?? null, sweptIn: sweptIn.toString() },
        });
        if (onChain !== expected) add('reconciliation_difference', `the deposit addresses hold ${onChain} base units of ${currency}, the records say ${expected} (difference ${onChain - expected}): look at the chain deposits and sweeps`);
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
 * reconciled with the records.
 */
export const treasuryConditionSource: ConditionSource = {
  name: 'chain.treasury',
  unit: 'none',
  defaultThreshold: 0,
  filterKeys: ['chain', 'code'],
  description: "A chain's hot wallet or payouts need the operator: breaker_open, nonce_drift, nonce_conflict, gas_low, token_low, processing_too_long, node_unreachable, reconciliation_difference (thresholds in the chain's settings)",
  async check(ctx, { filter }) {
    return (await treasuryConditions(ctx))
      .filter((c) => (!filter.chain || c.chain === filter.chain) && (!filter.code || c.code === filter.code))
      .map((c) => ({ subject: `${c.chain}/${c.code}`, summary: `${c.chain}: ${c.message}`, details: { chain: c.chain, code: c.code } }));
  },
};
