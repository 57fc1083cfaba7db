import { BaseError, ContractFunctionRevertedError, decodeFunctionResult, parseAbi, type Address, type Hex, type PublicClient } from 'viem';
import { ERC20_ABI, transferData } from './chain.client.js';

/**
 * What the token's issuer says before a payout is signed: the issuers' own controls read from the
 * contract (USDC's `isBlacklisted` and `paused`, USDT's `isBlackListed`/`getBlackListStatus`, its
 * `paused` and its transfer fee `basisPointsRate`/`maximumFee`), and a pre-flight `eth_call` of the
 * exact calldata from the hot wallet. Nothing here spends gas. A token that has no such member (the
 * call reverts) simply has no such control.
 */

export const ISSUER_ABI = parseAbi([
  'function paused() view returns (bool)',
  'function isBlacklisted(address account) view returns (bool)',
  'function isBlackListed(address account) view returns (bool)',
  'function getBlackListStatus(address account) view returns (bool)',
  'function basisPointsRate() view returns (uint256)',
  'function maximumFee() view returns (uint256)',
]);

/** The named refusals of the issuer checks (a payout's `failureReason`, or the breaker's reason). */
export const RECIPIENT_FROZEN = 'recipient_frozen_by_issuer';
export const TOKEN_PAUSED = 'token_paused';
export const HOT_WALLET_FROZEN = 'hot_wallet_frozen';
export const TOKEN_TRANSFER_FEE = 'token_transfer_fee';

/** The node's own words of an error, on one line (kept on the payout and in the log). */
export function nodeReason(err: unknown): string {
  if (err instanceof BaseError) {
    const revert = err.walk((e) => e instanceof ContractFunctionRevertedError) as ContractFunctionRevertedError | null;
    if (revert?.reason) return revert.reason;
    return (err.details || err.shortMessage || err.message).split('\n')[0] as string;
  }
  return (err instanceof Error ? err.message : String(err)).split('\n')[0] as string;
}

/** A view of the token that answers, or undefined when the token has no such member. */
async function optionalRead<T>(read: () => Promise<T>): Promise<T | undefined> {
  try {
    return await read();
  } catch (err) {
    // A missing member reverts (or answers nothing to decode); a node that does not answer is an error.
    if (err instanceof BaseError && /revert|returned no data|0x|decode/i.test(`${err.shortMessage} ${err.name}`)) return undefined;
    throw err;
  }
}

/** Whether the issuer paused every transfer of the token. */
export async function tokenPaused(client: PublicClient, token: Address): Promise<boolean> {
  return (await optionalRead(() => client.readContract({ address: token, abi: ISSUER_ABI, functionName: 'paused' }))) ?? false;
}

/** Whether the issuer's blacklist holds the address (USDC's `isBlacklisted`, USDT's `isBlackListed` or `getBlackListStatus`). */
export async function blacklisted(client: PublicClient, token: Address, account: Address): Promise<boolean> {
  for (const functionName of ['isBlacklisted', 'isBlackListed', 'getBlackListStatus'] as const) {
    const answer = await optionalRead(() => client.readContract({ address: token, abi: ISSUER_ABI, functionName, args: [account] }));
    if (answer !== undefined) return answer;
  }
  return false;
}

/** The token's transfer fee (USDT's `basisPointsRate` capped at `maximumFee`): zero when it charges none or has no such member. */
export async function transferFee(client: PublicClient, token: Address): Promise<{ basisPoints: bigint; maximum: bigint }> {
  const basisPoints = (await optionalRead(() => client.readContract({ address: token, abi: ISSUER_ABI, functionName: 'basisPointsRate' }))) ?? 0n;
  if (basisPoints === 0n) return { basisPoints, maximum: 0n };
  const maximum = (await optionalRead(() => client.readContract({ address: token, abi: ISSUER_ABI, functionName: 'maximumFee' }))) ?? 0n;
  return { basisPoints, maximum };
}

/**
 * Runs the exact transfer calldata as an `eth_call` from the hot wallet: an empty answer (USDT's
 * `transfer` returns nothing) or `true` is success; `false` or a revert answers the node's reason.
 */
export async function preflightTransfer(client: PublicClient, from: Address, token: Address, to: Address, amountMinor: bigint): Promise<{ ok: true } | { ok: false; detail: string }> {
  const data = transferData(to, amountMinor);
  let answer: Hex | undefined;
  try {
    answer = (await client.call({ account: from, to: token, data })).data;
  } catch (err) {
    if (err instanceof BaseError && err.walk((e) => /revert/i.test((e as BaseError).shortMessage ?? (e as Error).message))) return { ok: false, detail: `pre-flight reverted: ${nodeReason(err)}` };
    throw err;
  }
  if (answer === undefined || answer === '0x') return { ok: true };
  const value = decodeFunctionResult({ abi: ERC20_ABI, functionName: 'transfer', data: answer });
  return value ? { ok: true } : { ok: false, detail: 'pre-flight: transfer() returned false' };
}
