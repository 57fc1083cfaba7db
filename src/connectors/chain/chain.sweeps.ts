import { encodeFunctionData, getAddress, keccak256, parseAbi, parseSignature, toHex, type Address, type Hex } from 'viem';
import type { AppContext } from '../../platform/context.js';
import { moveFloat } from '../../domains/ledger/ledger.port.js';
import { ERC20_ABI, transferData } from './chain.client.js';
import { toLedgerMinor, type ChainCurrency } from './chain.config.js';
import { nodeReason } from './chain.issuer.js';
import { currentFees, receipt, withMargin } from './chain.payouts.js';
import type { ChainHooks, DepositRail } from './chain.rails.js';
import * as repo from './chain.repository.js';

/**
 * Sweeping (issue 39, point 7): a deposit address whose credited tokens (less what was swept) reach
 * the chain's `sweepAtLeast` for the currency is swept into the hot wallet, exactly once:
 *  - USDC by an EIP-3009 `transferWithAuthorization` signed with the deposit address's key (derived
 *    from the deposit mnemonic) and relayed by the gas wallet: the deposit address needs no gas coin;
 *  - USDT (no EIP-3009) by a gas top-up from the gas wallet (never the payout hot wallet) and then a
 *    `transfer` signed by the deposit address.
 * Every byte is signed and recorded (chain_sweeps) under the gas wallet's nonce row lock before
 * anything is sent; a look after a crash sends the recorded bytes again (a node that has them, or a
 * chain that mined them, answers as much), never signs anew; at most one open sweep per address and
 * token. Held, rejected and reversed transfers are never swept (they stay for the operator).
 */

const EIP3009_ABI = parseAbi([
  'function transferWithAuthorization(address from, address to, uint256 value, uint256 validAfter, uint256 validBefore, bytes32 nonce, uint8 v, bytes32 r, bytes32 s)',
  'function name() view returns (string)',
  'function version() view returns (string)',
]);

/** How long an authorisation may wait to be relayed (a sweep re-sent after this is mined reverted, failed, and made again). */
const AUTHORIZATION_VALID_SECONDS = 7 * 24 * 3600;

/** The currencies swept by authorisation (EIP-3009); the others by a gas top-up and a transfer. */
const BY_AUTHORIZATION: readonly ChainCurrency[] = ['USDC'];

/** Hands recorded bytes to the node; a node that has them, or whose chain used their nonce (mined: looked for by receipt), is no error. */
async function send(ctx: AppContext, rail: DepositRail, raw: string, hash: string): Promise<void> {
  try {
    await rail.client.sendRawTransaction({ serializedTransaction: raw as Hex });
  } catch (err) {
    const text = err instanceof Error ? `${err.message} ${(err as { details?: string }).details ?? ''}` : String(err);
    if (/already known|already imported|known transaction|nonce too low|nonce has already been used|transaction already exists/i.test(text)) return;
    ctx.log.warn({ chain: rail.settings.name, txHash: hash, err: nodeReason(err) }, 'chain sweep broadcast failed; sent again on the next look');
  }
}

/** The EIP-712 domain of a token implementing EIP-3009 (its name, and its version: "2" for Circle's FiatToken when it does not say). */
async function domainOf(rail: DepositRail, token: Address) {
  const name = await rail.client.readContract({ address: token, abi: EIP3009_ABI, functionName: 'name' });
  const version = await rail.client.readContract({ address: token, abi: EIP3009_ABI, functionName: 'version' }).catch(() => '2');
  return { name, version, chainId: rail.settings.chainId, verifyingContract: token };
}

/**
 * Signs one sweep and records it (with the gas wallet's nonce taken under its row lock), in one
 * transaction; undefined when another worker recorded one for the address and token first.
 */
async function recordSweep(ctx: AppContext, rail: DepositRail, currency: ChainCurrency, token: Address, candidate: { address: string; derivation_index: number }, amount: bigint): Promise<repo.ChainSweepRow | undefined> {
  const chain = rail.settings.name;
  const gas = rail.gasWallet;
  const to = rail.treasury;
  const key = rail.wallet.account?.(candidate.derivation_index);
  if (!gas || !to || !key) return undefined;
  if (key.address.toLowerCase() !== candidate.address) throw new Error(`chain ${chain}: the deposit wallet derives ${key.address} at index ${candidate.derivation_index}, not ${candidate.address}`);
  const gasAddress = gas.address.toLowerCase();
  await repo.ensureNonceRow(ctx.db, chain, gasAddress, BigInt(await rail.client.getTransactionCount({ address: gas.address, blockTag: 'pending' })));
  const fees = await currentFees(rail);
  const byAuthorization = BY_AUTHORIZATION.includes(currency);
  let authorization: Record<string, string> | null = null;
  let relayData: Hex | undefined;
  let relayGas = 0n;
  let transfer: { raw: Hex; hash: Hex; gas: bigint } | undefined;
  if (byAuthorization) {
    const nonce = keccak256(toHex(`${chain}:${candidate.address}:${token}:${Date.now()}:${Math.random()}`));
    const validBefore = BigInt(Math.floor(Date.now() / 1000) + AUTHORIZATION_VALID_SECONDS);
    const message = { from: key.address, to, value: amount, validAfter: 0n, validBefore, nonce };
    const signature = await key.signTypedData({
      domain: await domainOf(rail, token),
      types: {
        TransferWithAuthorization: [
          { name: 'from', type: 'address' },
          { name: 'to', type: 'address' },
          { name: 'value', type: 'uint256' },
          { name: 'validAfter', type: 'uint256' },
          { name: 'validBefore', type: 'uint256' },
          { name: 'nonce', type: 'bytes32' },
        ],
      },
      primaryType: 'TransferWithAuthorization',
      message,
    });
    const { r, s, v, yParity } = parseSignature(signature);
    relayData = encodeFunctionData({ abi: EIP3009_ABI, functionName: 'transferWithAuthorization', args: [key.address, to, amount, 0n, validBefore, nonce, Number(v ?? BigInt(yParity + 27)), r, s] });
    relayGas = withMargin(rail, await rail.client.estimateGas({ account: gas.address, to: token, data: relayData }));
    authorization = { from: key.address, to, value: amount.toString(), validAfter: '0', validBefore: validBefore.toString(), nonce, signature };
  } else {
    const data = transferData(to, amount);
    const transferGas = withMargin(rail, await rail.client.estimateGas({ account: key.address, to: token, data, gasPrice: 0n }));
    const deposited = await rail.client.getTransactionCount({ address: key.address, blockTag: 'pending' });
    const raw = await key.signTransaction({ type: 'eip1559', chainId: rail.settings.chainId, nonce: deposited, to: token, data, value: 0n, gas: transferGas, ...fees });
    transfer = { raw, hash: keccak256(raw), gas: transferGas };
  }
  return ctx.db.tx(async (tx) => {
    const nonce = await repo.lockNonce(tx, chain, gasAddress);
    let topUp: { raw: Hex; hash: Hex } | null = null;
    let main: { raw: Hex; hash: Hex };
    if (relayData) {
      const raw = await gas.signTransaction({ type: 'eip1559', chainId: rail.settings.chainId, nonce: Number(nonce), to: token, data: relayData, value: 0n, gas: relayGas, ...fees });
      main = { raw, hash: keccak256(raw) };
    } else {
      const t = transfer as { raw: Hex; hash: Hex; gas: bigint };
      // What the deposit address's transfer may cost at most: it holds no gas coin of its own.
      const raw = await gas.signTransaction({ type: 'eip1559', chainId: rail.settings.chainId, nonce: Number(nonce), to: key.address, value: t.gas * fees.maxFeePerGas, gas: 21_000n, ...fees });
      topUp = { raw, hash: keccak256(raw) };
      main = { raw: t.raw, hash: t.hash };
    }
    const row = await repo.insertSweep(tx, {
      chain, currency, token: token.toLowerCase(), from: candidate.address, to: to.toLowerCase(), amountUnits: amount,
      method: relayData ? 'authorization' : 'top_up', authorization, topUp, tx: main,
    });
    if (!row) return undefined;
    await repo.setNextNonce(tx, chain, gasAddress, nonce + 1n);
    return row;
  });
}

/**
 * Moves an open sweep on by what the chain says: a top-up not mined is sent (again); mined, the
 * sweep's own transaction is sent (again) until it has its confirmations, then the sweep is
 * confirmed (or failed, reverted: what it would have moved becomes sweepable again).
 */
async function advance(ctx: AppContext, rail: DepositRail, s: repo.ChainSweepRow, hooks: ChainHooks = {}): Promise<void> {
  let status = s.status;
  if (s.method === 'top_up' && status === 'signed' && s.top_up_hash && s.top_up_raw) {
    const topped = await receipt(rail.client, s.top_up_hash);
    if (!topped) {
      await send(ctx, rail, s.top_up_raw, s.top_up_hash);
      if (!(await receipt(rail.client, s.top_up_hash))) return;
    } else if (topped.status !== 'success') {
      await repo.moveSweep(ctx.db, s.id, status, 'failed', { error: 'the gas top-up reverted' });
      return;
    }
    if (!(await repo.moveSweep(ctx.db, s.id, status, 'topped_up'))) return;
    status = 'topped_up';
    await hooks.afterTopUpMined?.(s.id);
  }
  let mined = await receipt(rail.client, s.tx_hash);
  if (!mined) {
    await send(ctx, rail, s.tx_raw, s.tx_hash);
    if (status !== 'sent' && (await repo.moveSweep(ctx.db, s.id, status, 'sent'))) status = 'sent';
    mined = await receipt(rail.client, s.tx_hash);
    if (!mined) return;
  }
  const head = await rail.client.getBlockNumber({ cacheTime: 0 });
  if (head - mined.blockNumber + 1n < BigInt(rail.settings.confirmations)) {
    if (status !== 'sent') await repo.moveSweep(ctx.db, s.id, status, 'sent');
    return;
  }
  if (mined.status === 'success') {
    if (await confirmSweep(ctx, rail, s, status, mined.blockNumber)) {
      ctx.log.info({ chain: rail.settings.name, sweepId: s.id, from: s.from_address, amountUnits: s.amount_units, txHash: s.tx_hash }, 'deposit address swept into the hot wallet');
    }
  } else if (await repo.moveSweep(ctx.db, s.id, status, 'failed', { blockNumber: mined.blockNumber, error: `reverted on chain (${mined.gasUsed} gas)` })) {
    ctx.log.error({ chain: rail.settings.name, sweepId: s.id, from: s.from_address, txHash: s.tx_hash }, 'chain sweep reverted; the tokens stay on the deposit address and are swept again');
  }
}

/**
 * A sweep confirmed, and what it brought the hot wallet added to the chain's float (from the deposits'
 * suspense), in one transaction: exactly once, by the sweep's compare-and-set. At the ledger's scale:
 * what an 18-decimal token swept below one minor unit stays outside the ledger (shown as a difference).
 */
async function confirmSweep(ctx: AppContext, rail: DepositRail, s: repo.ChainSweepRow, from: repo.ChainSweepStatus, blockNumber: bigint): Promise<boolean> {
  return ctx.db.tx(async (tx) => {
    if (!(await repo.moveSweep(tx, s.id, from, 'confirmed', { blockNumber }))) return false;
    const minor = toLedgerMinor(rail.settings, s.currency, BigInt(s.amount_units));
    if (minor > 0n) {
      await moveFloat(tx, { rail: rail.settings.name, currency: s.currency, amountMinor: minor, movement: 'swept_in', reference: { type: 'chain_sweep', id: s.id }, description: 'Deposit address swept into the hot wallet' });
    }
    return true;
  });
}

/**
 * One look: the open sweeps moved on, then each deposit address whose sweepable tokens reach the
 * threshold swept (at most what it holds on chain). Needs the gas wallet, the hot wallet and the
 * deposit mnemonic (an xpub cannot sign). Answers how many sweeps were recorded.
 */
export async function sweepDeposits(ctx: AppContext, rail: DepositRail, hooks: ChainHooks = {}): Promise<number> {
  if (!rail.gasWallet || !rail.treasury || !rail.wallet.account) return 0;
  const chain = rail.settings.name;
  for (const s of await repo.openSweeps(ctx.db, chain)) await advance(ctx, rail, s, hooks);
  let recorded = 0;
  for (const [currency, threshold] of Object.entries(rail.settings.treasury.sweepMinor) as [ChainCurrency, bigint][]) {
    const token = rail.settings.tokens[currency];
    if (!token) continue;
    for (const c of await repo.sweepCandidates(ctx.db, chain, token.toLowerCase())) {
      const sweepable = BigInt(c.sweepable);
      if (toLedgerMinor(rail.settings, currency, sweepable) < threshold) continue;
      const onChain = await rail.client.readContract({ address: getAddress(token), abi: ERC20_ABI, functionName: 'balanceOf', args: [getAddress(c.address)] });
      const amount = sweepable < onChain ? sweepable : onChain;
      if (amount <= 0n) continue;
      const row = await recordSweep(ctx, rail, currency, getAddress(token), c, amount);
      if (!row) continue;
      recorded += 1;
      await hooks.afterSweepSigned?.(row.id);
      await advance(ctx, rail, row, hooks);
    }
  }
  return recorded;
}

/** The sweeps as the operator reads them (the console's Chain page, GET /operator/v1/chain/sweeps). */
export function sweepView(row: repo.ChainSweepRow, decimals: number | undefined) {
  return {
    id: row.id,
    chain: row.chain,
    currency: row.currency,
    token: row.token,
    fromAddress: row.from_address,
    toAddress: row.to_address,
    amountUnits: row.amount_units,
    amount: decimals === undefined ? null : formatUnitsExact(BigInt(row.amount_units), decimals),
    method: row.method,
    status: row.status,
    topUpTxHash: row.top_up_hash,
    txHash: row.tx_hash,
    blockNumber: row.block_number,
    error: row.error,
    createdAt: row.created_at.toISOString(),
    confirmedAt: row.confirmed_at?.toISOString() ?? null,
  };
}

function formatUnitsExact(units: bigint, decimals: number): string {
  const base = 10n ** BigInt(decimals);
  return `${units / base}.${(units % base).toString().padStart(decimals, '0')}`;
}
