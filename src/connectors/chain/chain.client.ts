import {
  BaseError,
  createPublicClient,
  HttpRequestError,
  TimeoutError,
  defineChain,
  encodeFunctionData,
  fallback,
  http,
  parseAbi,
  type Address,
  type Hex,
  type PublicClient,
} from 'viem';
import { currencyScale } from '../../platform/lib/money.js';
import type { ChainCurrency, ChainSettings } from './chain.config.js';

/** The ERC-20 members the connector uses. */
export const ERC20_ABI = parseAbi([
  'function transfer(address to, uint256 value) returns (bool)',
  'function decimals() view returns (uint8)',
  'function balanceOf(address owner) view returns (uint256)',
  'event Transfer(address indexed from, address indexed to, uint256 value)',
]);

/** keccak256("Transfer(address,address,uint256)"): topic 0 of every ERC-20 transfer log. */
export const TRANSFER_TOPIC: Hex = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';

/** A read client of one chain over its RPC URLs (the next URL when one fails). */
export function chainClient(settings: ChainSettings, pollMs: number): PublicClient {
  const chain = defineChain({
    id: settings.chainId,
    name: settings.name,
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: settings.rpcUrls } },
  });
  // With more than one URL, one that fails or hangs costs rpcTimeoutMs before the next is asked; the worker's next look retries.
  const retryCount = settings.rpcUrls.length === 1 ? 1 : 0;
  const transports = settings.rpcUrls.map((url) => http(url, { retryCount, timeout: settings.rpcTimeoutMs }));
  return createPublicClient({ chain, transport: transports.length === 1 ? (transports[0] as ReturnType<typeof http>) : fallback(transports), pollingInterval: pollMs, cacheTime: 0 });
}

/** The calldata of `transfer(to, amount)`. */
export function transferData(to: Address, amountMinor: bigint): Hex {
  return encodeFunctionData({ abi: ERC20_ABI, functionName: 'transfer', args: [to, amountMinor] });
}

/** The chain's node did not answer at any of its URLs: an outage, not a configuration mismatch. */
export class ChainUnreachable extends Error {}

/** A failure of the transport (refused, reset, timed out), not an answer of the node. */
export function isNetworkError(err: unknown): boolean {
  return err instanceof BaseError && err.walk((e) => e instanceof HttpRequestError || e instanceof TimeoutError) !== null;
}

/** A URL as logs and pages show it: its host only (a provider's URL may carry an API key in its path or query). */
const hostOf = (url: string): string => {
  try {
    return new URL(url).host;
  } catch {
    return 'an invalid URL';
  }
};

/**
 * Checks the chain (checkChain) against its URLs one at a time, each given startCheckTimeoutMs, against the
 * first that answers: a mismatch throws an Error (a configuration to fix); no URL answering throws
 * ChainUnreachable (the chain is down; the API starts without it and the worker tries again).
 */
export async function checkChainUrls(settings: ChainSettings): Promise<void> {
  const failures: string[] = [];
  for (const url of settings.rpcUrls) {
    const client = createPublicClient({ transport: http(url, { retryCount: 0, timeout: settings.startCheckTimeoutMs }), cacheTime: 0 });
    try {
      await checkChain(client, settings);
      return;
    } catch (err) {
      if (!isNetworkError(err)) throw err;
      failures.push(`${hostOf(url)}: ${err instanceof Error ? err.message.split('\n')[0] : String(err)}`);
    }
  }
  throw new ChainUnreachable(`chain ${settings.name}: no RPC URL answered (${failures.join('; ')})`);
}

/**
 * Checks at start that the node serves the configured chain id and that each token's `decimals()`
 * equals the configured decimals (6 unless `tokenDecimals` says 18, as on BNB Chain), so amounts are
 * converted between the ledger's scale and the token's base units exactly. Throws, refusing to start,
 * on any mismatch.
 */
export async function checkChain(client: PublicClient, settings: ChainSettings): Promise<void> {
  const chainId = await client.getChainId();
  if (chainId !== settings.chainId) throw new Error(`chain ${settings.name}: the node serves chain id ${chainId}, configured ${settings.chainId}`);
  for (const [currency, token] of Object.entries(settings.tokens) as [ChainCurrency, Address][]) {
    let decimals: number;
    try {
      decimals = await client.readContract({ address: token, abi: ERC20_ABI, functionName: 'decimals' });
    } catch (err) {
      if (isNetworkError(err)) throw err;
      throw new Error(`chain ${settings.name}: ${currency} token ${token} does not answer decimals() (${err instanceof Error ? err.message.split('\n')[0] : String(err)})`);
    }
    const expected = settings.decimals[currency] ?? currencyScale(currency);
    if (decimals !== expected) {
      throw new Error(`chain ${settings.name}: ${currency} token ${token} has ${decimals} decimals, configured ${expected} (set tokenDecimals.${currency} when the token is not at ${currency}'s scale)`);
    }
  }
}
