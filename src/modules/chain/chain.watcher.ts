import type { Address, PublicClient } from 'viem';
import type { AppContext } from '../../context.js';
import { formatAmount } from '../../lib/money.js';
import { depositAccountOf, receiveRailDeposit } from '../deposits/deposits.port.js';
import type { ChainCurrency } from './chain.config.js';
import type { DepositRail } from './chain.rails.js';
import { ERC20_ABI } from './chain.client.js';
import * as repo from './chain.repository.js';

/**
 * The deposit watcher of one chain: follows ERC-20 Transfer logs to the owners' deposit addresses
 * from a persisted checkpoint, only through blocks with N confirmations (a transfer reorged out
 * before N is never seen), and takes each (chain, txHash, logIndex) once: credited through the
 * deposit service to the owner's virtual account in that currency, or held for the operator (a token
 * Corridor does not take, a currency the owner has no virtual account in). The checkpoint moves in
 * the transaction of the credits, so a restart resumes where the last commit left it.
 */

/** Addresses per log query (topics OR-list). */
const ADDRESSES_PER_QUERY = 500;

/** Derives and stores this chain's address of every owner that has none on it yet (a chain added later). */
async function backfillAddresses(ctx: AppContext, rail: DepositRail): Promise<void> {
  const missing = await repo.ownersWithoutAddress(ctx.db, rail.settings.name);
  await repo.insertDepositAddresses(
    ctx.db,
    missing.map((o) => ({ chain: rail.settings.name, address: rail.wallet.address(o.derivation_index), accountId: o.account_id, workspaceId: o.workspace_id })),
  );
}

const TRANSFER_EVENT = ERC20_ABI.find((item) => item.type === 'event' && item.name === 'Transfer') as Extract<(typeof ERC20_ABI)[number], { type: 'event'; name: 'Transfer' }>;

interface Transfer {
  txHash: string;
  logIndex: number;
  blockNumber: bigint;
  token: string;
  from: string;
  to: string;
  value: bigint;
}

/** ERC-20 Transfer logs of any contract to these addresses in a block range (a log that does not decode as one, such as an ERC-721 transfer, is left out). */
async function transfers(client: PublicClient, from: bigint, to: bigint, addresses: readonly string[]): Promise<Transfer[]> {
  const found: Transfer[] = [];
  for (let i = 0; i < addresses.length; i += ADDRESSES_PER_QUERY) {
    const part = addresses.slice(i, i + ADDRESSES_PER_QUERY) as Address[];
    const logs = await client.getLogs({ event: TRANSFER_EVENT, args: { to: part }, fromBlock: from, toBlock: to, strict: true });
    for (const log of logs) {
      if (log.transactionHash === null || log.logIndex === null || log.blockNumber === null) continue;
      found.push({
        txHash: log.transactionHash,
        logIndex: log.logIndex,
        blockNumber: log.blockNumber,
        token: log.address.toLowerCase(),
        from: log.args.from.toLowerCase(),
        to: log.args.to.toLowerCase(),
        value: log.args.value,
      });
    }
  }
  return found.sort((a, b) => (a.blockNumber === b.blockNumber ? a.logIndex - b.logIndex : a.blockNumber < b.blockNumber ? -1 : 1));
}

/**
 * Scans one range of confirmed blocks and takes its transfers, in one transaction that first checks
 * the checkpoint is still where this look started (another worker's look that got there first wins).
 */
async function takeRange(ctx: AppContext, rail: DepositRail, from: bigint, to: bigint): Promise<boolean> {
  const chain = rail.settings.name;
  const owners = new Map((await repo.depositAddresses(ctx.db, chain)).map((a) => [a.address, a]));
  const found = owners.size === 0 ? [] : await transfers(rail.client, from, to, [...owners.keys()]);
  const currencies = new Map(Object.entries(rail.settings.tokens).map(([currency, token]) => [token.toLowerCase(), currency as ChainCurrency]));
  return ctx.db.tx(async (tx) => {
    if ((await repo.checkpoint(tx, chain)) !== from) return false;
    for (const t of found) {
      const owner = owners.get(t.to);
      if (!owner || t.value === 0n) continue;
      const currency = currencies.get(t.token) ?? null;
      const acting = { workspaceId: owner.workspace_id, accountId: owner.account_id, subAccountId: owner.account_id === owner.workspace_id ? undefined : owner.account_id };
      const account = currency ? await depositAccountOf(ctx, tx, currency, { owner: acting }) : undefined;
      const reason = !currency ? 'unsupported_token' : !account ? 'no_virtual_account' : null;
      const claim = { chain, txHash: t.txHash, logIndex: t.logIndex, blockNumber: t.blockNumber, token: t.token, currency, fromAddress: t.from, toAddress: t.to, amountMinor: t.value, accountId: owner.account_id, workspaceId: owner.workspace_id };
      if (!(await repo.claimDeposit(tx, claim, reason ? 'held' : 'credited', reason))) continue;
      if (reason || !currency || !account) {
        ctx.log.warn({ chain, txHash: t.txHash, logIndex: t.logIndex, token: t.token, reason }, 'chain deposit held for the operator, not credited');
        continue;
      }
      const landed = await receiveRailDeposit(ctx, tx, { currency, amount: formatAmount(t.value, currency), rail: 'crypto', railRef: `${chain}:${t.txHash}:${t.logIndex}`, to: { owner: acting } });
      if (landed.landed) await repo.setDepositId(tx, claim, landed.deposit.id);
      else {
        const code = landed.reason === 'refused' ? (landed.code ?? 'refused') : 'no_virtual_account';
        await repo.holdDeposit(tx, claim, code);
        ctx.log.warn({ chain, txHash: t.txHash, logIndex: t.logIndex, code }, 'chain deposit held for the operator, not credited');
      }
    }
    await repo.setCheckpoint(tx, chain, to + 1n);
    return true;
  });
}

/** One look: every confirmed block past the checkpoint, a range at a time. Answers the blocks scanned. */
export async function watchDeposits(ctx: AppContext, rail: DepositRail): Promise<bigint> {
  await backfillAddresses(ctx, rail);
  const head = await rail.client.getBlockNumber({ cacheTime: 0 });
  const safe = head - BigInt(rail.settings.confirmations) + 1n;
  if (safe < 0n) return 0n;
  await repo.ensureCheckpoint(ctx.db, rail.settings.name, rail.settings.startBlock ?? safe);
  let scanned = 0n;
  for (;;) {
    const from = await repo.readCheckpoint(ctx.db, rail.settings.name);
    if (from === undefined || from > safe) return scanned;
    const last = from + BigInt(rail.settings.logRangeMax) - 1n;
    const to = last < safe ? last : safe;
    if (!(await takeRange(ctx, rail, from, to))) return scanned;
    scanned += to - from + 1n;
  }
}
