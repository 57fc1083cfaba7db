import { BlockNotFoundError, parseEventLogs, type Address, type Hex, type PublicClient } from 'viem';
import type { AppContext } from '../../platform/context.js';
import { screenAddresses } from '../../controls/screening/screening.port.js';
import type { ChainCurrency } from './chain.config.js';
import { BELOW_DUST, creditTaken, reverseVanished, SANCTIONED_ADDRESS } from './chain.deposits.js';
import { toLedgerMinor } from './chain.config.js';
import type { DepositRail } from './chain.rails.js';
import { ERC20_ABI } from './chain.client.js';
import * as repo from './chain.repository.js';

/**
 * The deposit watcher of one chain: follows ERC-20 Transfer logs to the owners' deposit addresses
 * from a persisted checkpoint, only through blocks with N confirmations (a transfer reorged out
 * before N is never seen), and takes each transfer once by what it is (its transaction, token, sender,
 * recipient, amount and position among that transaction's transfers of those four; not its block or
 * log index, which a reorg changes): credited through the deposit service to the owner's virtual
 * account in that currency (chain.deposits.ts), or held for the operator (a sender on a sanctions
 * list, a token Corridor does not take, a currency the owner has no virtual account in). The
 * checkpoint moves in the transaction of the credits, with the hash of the last block scanned, so a
 * restart resumes where the last commit left it, and a reorg deeper than the confirmations is seen
 * there: the watcher then checks every transfer it took in the last REORG_BLOCKS_MAX blocks (one
 * re-mined elsewhere is moved, one gone is reversed) and scans those blocks again.
 */

/** How far back a reorg deeper than the confirmations is followed. */
export const REORG_BLOCKS_MAX = 256n;

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
  /** Its ordinal among the transaction's transfers of the same token, sender, recipient and amount. */
  position: number;
  logIndex: number;
  blockNumber: bigint;
  blockHash: string;
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
    found.push(...logs.flatMap(transferOf));
  }
  return positioned(found.sort((a, b) => (a.blockNumber === b.blockNumber ? a.logIndex - b.logIndex : a.blockNumber < b.blockNumber ? -1 : 1)));
}

/** A decoded Transfer log as the watcher reads it (none for a pending log). */
function transferOf(log: {
  transactionHash: string | null;
  logIndex: number | null;
  blockNumber: bigint | null;
  blockHash: string | null;
  address: string;
  args: { from: string; to: string; value: bigint };
}): Transfer[] {
  if (log.transactionHash === null || log.logIndex === null || log.blockNumber === null || log.blockHash === null) return [];
  const { from, to, value } = log.args;
  return [{ txHash: log.transactionHash, position: 0, logIndex: log.logIndex, blockNumber: log.blockNumber, blockHash: log.blockHash, token: log.address.toLowerCase(), from: from.toLowerCase(), to: to.toLowerCase(), value }];
}

/** What a transfer is, beside its position: the same in whichever block its transaction is mined. */
const transferKey = (t: { txHash: string; token: string; from: string; to: string; value: bigint }) => `${t.txHash.toLowerCase()}:${t.token}:${t.from}:${t.to}:${t.value}`;

/** Numbers the transfers (in log order) that are otherwise alike within their transaction. */
function positioned<T extends Transfer>(found: T[]): T[] {
  const seen = new Map<string, number>();
  for (const t of found) {
    const key = transferKey(t);
    t.position = seen.get(key) ?? 0;
    seen.set(key, t.position + 1);
  }
  return found;
}

/** Where a taken transfer is on the chain now: its transaction's receipt, and the transfer in it (undefined: gone). */
async function locate(client: PublicClient, row: repo.ChainDepositRow): Promise<{ blockNumber: bigint; blockHash: string; logIndex: number } | undefined> {
  let receipt;
  try {
    receipt = await client.getTransactionReceipt({ hash: row.tx_hash as Hex });
  } catch (err) {
    if (err instanceof Error && /could not be found|not found/i.test(err.message)) return undefined;
    throw err;
  }
  if (receipt.status !== 'success') return undefined;
  const logs = parseEventLogs({ abi: ERC20_ABI, eventName: 'Transfer', logs: receipt.logs, strict: true });
  const found = positioned(logs.flatMap(transferOf));
  const key = transferKey({ txHash: row.tx_hash, token: row.token, from: row.from_address, to: row.to_address, value: BigInt(row.amount_minor) });
  const t = found.find((f) => transferKey(f) === key && f.position === row.transfer_position);
  return t ? { blockNumber: t.blockNumber, blockHash: t.blockHash, logIndex: t.logIndex } : undefined;
}

/**
 * Scans one range of confirmed blocks and takes its transfers, in one transaction that first checks
 * the checkpoint is still where this look started (another worker's look that got there first wins).
 * Each sender is screened (screening.addresses.ts): a listed one holds the transfer with the evidence.
 */
async function takeRange(ctx: AppContext, rail: DepositRail, from: bigint, to: bigint): Promise<boolean> {
  const chain = rail.settings.name;
  const owners = new Map((await repo.depositAddresses(ctx.db, chain)).map((a) => [a.address, a]));
  const found = (owners.size === 0 ? [] : await transfers(rail.client, from, to, [...owners.keys()])).filter((t) => owners.has(t.to) && t.value !== 0n);
  const lastHash = (await rail.client.getBlock({ blockNumber: to })).hash;
  const currencies = new Map(Object.entries(rail.settings.tokens).map(([currency, token]) => [token.toLowerCase(), currency as ChainCurrency]));
  return ctx.db.tx(async (tx) => {
    if ((await repo.checkpoint(tx, chain)) !== from) return false;
    const screened = await screenAddresses(tx, found.map((t) => ({ address: t.from, network: rail.settings.network, currency: currencies.get(t.token) ?? null, direction: 'incoming' as const })));
    for (const [i, t] of found.entries()) {
      const owner = owners.get(t.to);
      if (!owner) continue;
      const hits = screened[i] ?? [];
      const listed = hits.length > 0;
      const currency = currencies.get(t.token) ?? null;
      const creditMinor = currency ? toLedgerMinor(rail.settings, currency, t.value) : null;
      // Dust: less than the chain's threshold for the currency (or than one minor unit) is recorded and held, never credited by itself.
      const dust = !listed && currency !== null && creditMinor !== null && (creditMinor === 0n || creditMinor < (rail.settings.treasury.dustMinor[currency] ?? 0n));
      const claim = {
        chain, txHash: t.txHash, position: t.position, logIndex: t.logIndex, blockNumber: t.blockNumber, blockHash: t.blockHash, token: t.token,
        currency, fromAddress: t.from, toAddress: t.to, amountMinor: t.value, creditMinor, accountId: owner.account_id, workspaceId: owner.workspace_id,
      };
      const held = listed || dust;
      const row = await repo.claimDeposit(tx, claim, held ? 'held' : 'credited', listed ? SANCTIONED_ADDRESS : dust ? BELOW_DUST : null, listed ? hits : null);
      if (!row) continue;
      const taken = held ? row : await creditTaken(ctx, tx, row);
      if (taken.status === 'held') ctx.log.warn({ chain, txHash: t.txHash, logIndex: t.logIndex, token: t.token, reason: taken.reason }, 'chain deposit held for the operator, not credited');
    }
    await repo.setCheckpoint(tx, chain, to + 1n, lastHash);
    return true;
  });
}

/**
 * A reorg deeper than the confirmations, seen at the checkpoint (the last block scanned has another
 * hash now): every transfer taken in the last REORG_BLOCKS_MAX blocks is looked for again (moved
 * where its transaction is now, or reversed when it is gone or not confirmed again), and the
 * checkpoint goes back so those blocks are scanned again (a transfer already taken is not taken twice).
 */
async function followReorg(ctx: AppContext, rail: DepositRail, safe: bigint): Promise<void> {
  const chain = rail.settings.name;
  const at = await repo.readCheckpointHash(ctx.db, chain);
  if (!at || at.lastHash === null || at.nextBlock === 0n) return;
  const now = await rail.client.getBlock({ blockNumber: at.nextBlock - 1n }).catch((err: unknown) => {
    if (err instanceof BlockNotFoundError) return undefined;
    throw err;
  });
  if (now?.hash === at.lastHash) return;
  const floor = rail.settings.startBlock ?? 0n;
  const back = at.nextBlock - REORG_BLOCKS_MAX > floor ? at.nextBlock - REORG_BLOCKS_MAX : floor;
  ctx.log.error({ chain, block: (at.nextBlock - 1n).toString(), from: back.toString() }, 'chain reorg deeper than the confirmations; checking the deposits taken since');
  for (const row of await repo.depositsFrom(ctx.db, chain, back)) {
    const place = await locate(rail.client, row);
    if (place && place.blockNumber <= safe) {
      if (place.blockHash !== row.block_hash || place.logIndex !== row.log_index) await repo.moveDeposit(ctx.db, row.id, place);
      continue;
    }
    await ctx.db.tx((tx) => reverseVanished(tx, row.id));
  }
  const before = back === 0n ? null : (await rail.client.getBlock({ blockNumber: back - 1n })).hash;
  await ctx.db.tx(async (tx) => {
    if ((await repo.checkpoint(tx, chain)) === at.nextBlock) await repo.setCheckpoint(tx, chain, back, before);
  });
}

/** One look: every confirmed block past the checkpoint, a range at a time. Answers the blocks scanned. */
export async function watchDeposits(ctx: AppContext, rail: DepositRail): Promise<bigint> {
  await backfillAddresses(ctx, rail);
  const head = await rail.client.getBlockNumber({ cacheTime: 0 });
  const safe = head - BigInt(rail.settings.confirmations) + 1n;
  if (safe < 0n) return 0n;
  await repo.ensureCheckpoint(ctx.db, rail.settings.name, rail.settings.startBlock ?? safe);
  await followReorg(ctx, rail, safe);
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
