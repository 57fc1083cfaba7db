import type { CryptoBox } from '../../platform/lib/crypto-box.js';
import { currencyScale } from '../../platform/lib/money.js';
import { CRYPTO_NETWORKS } from '../../domains/corridors/corridors.port.js';

/**
 * The "chains" section of CORRIDOR_CONNECTORS_FILE (docs/guides/crypto-rail.md): per chain its id,
 * RPC URLs, token contracts per currency, confirmations, fee caps, and the hot wallet key and deposit
 * HD wallet, both sealed under CORRIDOR_ENCRYPTION_KEY (`corridor chain encrypt-key`).
 */

/** The currencies paid and received on chain. */
export const CHAIN_CURRENCIES = ['USDC', 'USDT'] as const;
export type ChainCurrency = (typeof CHAIN_CURRENCIES)[number];

export interface ChainSettings {
  /** The configured name (the key of the section), e.g. "ethereum", "polygon", "anvil". */
  name: string;
  /** The catalog network (CRYPTO_NETWORKS) this chain serves: a beneficiary's `network`. */
  network: string;
  chainId: number;
  rpcUrls: string[];
  /** How long one RPC request of the worker may take before the next URL is asked. */
  rpcTimeoutMs: number;
  /** How long a start-up check's request may take before the next URL is asked (a process starts without a chain that does not answer). */
  startCheckTimeoutMs: number;
  /** Token contract per currency (checksummed or not; compared lower-case). */
  tokens: Partial<Record<ChainCurrency, `0x${string}`>>;
  /**
   * Each token's `decimals()` (checked at start): 6 unless configured (`tokenDecimals`, e.g. 18 for
   * USDT and USDC on BNB Chain). The ledger keeps the currency at its scale (6): one minor unit is
   * 10^(decimals − 6) of the token's base units.
   */
  decimals: Partial<Record<ChainCurrency, number>>;
  /** Blocks on top of a transaction's block (itself included) before it counts. */
  confirmations: number;
  maxFeePerGasWei: bigint;
  maxPriorityFeePerGasWei: bigint;
  /** A transaction not mined this long after it was sent is replaced at the same nonce with a higher fee, up to the cap. */
  replaceAfterSeconds: number;
  /** The least tip the chain's validators take (Polygon: 25 gwei), where it enforces one: a tip is never below it. */
  minPriorityFeePerGasWei: bigint;
  /** The gas of a transaction is the node's estimate (eth_estimateGas) plus this many percent. */
  gasMarginPercent: number;
  /** The sealed hot wallet private key (hex), when this chain pays out. */
  hotWalletKey?: string | undefined;
  /** The sealed deposit HD wallet: an account-level xpub (m/44'/60'/0') or a BIP-39 mnemonic, when this chain receives. */
  depositXpub?: string | undefined;
  depositSeed?: string | undefined;
  /** The sealed gas wallet private key (never the hot wallet's): it relays USDC sweeps and tops USDT deposit addresses up with gas. */
  gasWalletKey?: string | undefined;
  /** Blocks scanned per log query by the deposit watcher. */
  logRangeMax: number;
  /** First block the watcher scans when it has no checkpoint yet (default: the head at its first look). */
  startBlock?: bigint | undefined;
  /** The treasury's rules (issue 39): the breaker, transfer fees, the thresholds of its conditions. */
  treasury: TreasurySettings;
}

/** What a token charging a transfer fee gets: refused at start, or each of its payouts refused. */
export type TransferFeePolicy = 'refuse_start' | 'refuse_payout';

export interface TreasurySettings {
  /** The same refusal or revert this many times in a row opens the chain's circuit breaker. */
  breakerThreshold: number;
  transferFeePolicy: TransferFeePolicy;
  /** The hot wallet's gas coin below this (wei) is a `gas_low` condition. */
  gasLowWei: bigint;
  /** A token of the hot wallet below this (minor units, per currency) is a `token_low` condition. */
  tokenLowMinor: Partial<Record<ChainCurrency, bigint>>;
  /** A payout processing longer than this is a `processing_too_long` condition. */
  processingAlarmSeconds: number;
  /** A deposit below this (minor units, per currency) is recorded and held as `below_dust_threshold`, not credited. */
  dustMinor: Partial<Record<ChainCurrency, bigint>>;
  /** A deposit address holding at least this (minor units, per currency) is swept into the hot wallet (none: never swept). */
  sweepMinor: Partial<Record<ChainCurrency, bigint>>;
  /** A difference between the hot wallet's token balance and the ledger's float up to this (minor units, per currency; none: 0) is shown but raises no `float_difference`. */
  reconcileToleranceMinor: Partial<Record<ChainCurrency, bigint>>;
}

export interface ChainsConfig {
  chains: ChainSettings[];
}

const GWEI = 1_000_000_000n;

function fail(message: string): never {
  throw new Error(`connectors file, "chains": ${message}`);
}

function positiveInt(v: unknown, what: string, fallback?: number): number {
  if (v === undefined && fallback !== undefined) return fallback;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0) fail(`${what} must be a non-negative integer`);
  return v;
}

/** A decimal number of gwei (at most 9 decimals) as wei. */
function gwei(v: unknown, what: string): bigint {
  const text = typeof v === 'number' ? String(v) : v;
  if (typeof text !== 'string' || !/^(0|[1-9][0-9]*)(\.[0-9]{1,9})?$/.test(text)) fail(`${what} must be a number of gwei`);
  const [units = '0', decimals = ''] = text.split('.');
  return BigInt(units) * GWEI + BigInt(decimals.padEnd(9, '0'));
}

const ADDRESS = /^0x[0-9a-fA-F]{40}$/;

/** A decimal amount with at most `scale` decimals as an integer of its smallest unit. */
function decimal(v: unknown, scale: number, what: string): bigint {
  const text = typeof v === 'number' ? String(v) : v;
  if (typeof text !== 'string' || !new RegExp(`^(0|[1-9][0-9]*)(\\.[0-9]{1,${scale}})?$`).test(text)) fail(`${what} must be a decimal number with at most ${scale} decimals`);
  const [units = '0', decimals = ''] = text.split('.');
  return BigInt(units) * 10n ** BigInt(scale) + BigInt(decimals.padEnd(scale, '0') || '0');
}

function treasurySettings(name: string, v: Record<string, unknown>, tokens: Partial<Record<ChainCurrency, string>>): TreasurySettings {
  const policy = v.transferFeePolicy ?? 'refuse_payout';
  if (policy !== 'refuse_start' && policy !== 'refuse_payout') fail(`${name}.transferFeePolicy must be refuse_start or refuse_payout`);
  const perCurrency = (key: string): Partial<Record<ChainCurrency, bigint>> => {
    const out: Partial<Record<ChainCurrency, bigint>> = {};
    for (const [currency, amount] of Object.entries((v[key] ?? {}) as Record<string, unknown>)) {
      if (!(currency in tokens)) fail(`${name}.${key}: ${currency} is not one of the chain's tokens`);
      out[currency as ChainCurrency] = decimal(amount, currencyScale(currency), `${name}.${key}.${currency}`);
    }
    return out;
  };
  const tokenLowMinor = perCurrency('tokenLowBelow');
  const breakerThreshold = positiveInt(v.breakerThreshold, `${name}.breakerThreshold`, 3);
  if (breakerThreshold < 1) fail(`${name}.breakerThreshold must be at least 1`);
  return {
    breakerThreshold,
    transferFeePolicy: policy,
    gasLowWei: decimal(v.gasLowBelow ?? '0.05', 18, `${name}.gasLowBelow`),
    tokenLowMinor,
    processingAlarmSeconds: positiveInt(v.processingAlarmSeconds, `${name}.processingAlarmSeconds`, 1800),
    dustMinor: perCurrency('dustBelow'),
    sweepMinor: perCurrency('sweepAtLeast'),
    reconcileToleranceMinor: perCurrency('reconcileTolerance'),
  };
}

/** Parses and validates the section; throws (refusing to start) on anything wrong. */
export function parseChainsSection(section: unknown): ChainsConfig {
  if (section === undefined || section === null) return { chains: [] };
  if (typeof section !== 'object' || Array.isArray(section)) fail('must be an object of chain name → settings');
  const chains: ChainSettings[] = [];
  const networks = new Set<string>();
  for (const [name, value] of Object.entries(section as Record<string, unknown>)) {
    if (typeof value !== 'object' || value === null) fail(`${name} must be an object`);
    const v = value as Record<string, unknown>;
    const network = typeof v.network === 'string' ? v.network : name;
    if (!(CRYPTO_NETWORKS as readonly string[]).includes(network)) {
      fail(`${name}: network ${network} is not one of ${CRYPTO_NETWORKS.join(', ')} (set "network" when the chain's name is not the network's)`);
    }
    if (networks.has(network)) fail(`${name}: network ${network} is served by two chains`);
    networks.add(network);
    const chainId = positiveInt(v.chainId, `${name}.chainId`);
    if (!Array.isArray(v.rpcUrls) || v.rpcUrls.length === 0 || !v.rpcUrls.every((u) => typeof u === 'string' && /^https?:\/\//.test(u))) {
      fail(`${name}.rpcUrls must be a non-empty list of http(s) URLs`);
    }
    const tokens: Partial<Record<ChainCurrency, `0x${string}`>> = {};
    for (const [currency, address] of Object.entries((v.tokens ?? {}) as Record<string, unknown>)) {
      if (!(CHAIN_CURRENCIES as readonly string[]).includes(currency)) fail(`${name}.tokens: ${currency} is not one of ${CHAIN_CURRENCIES.join(', ')}`);
      if (typeof address !== 'string' || !ADDRESS.test(address)) fail(`${name}.tokens.${currency} must be a contract address`);
      tokens[currency as ChainCurrency] = address as `0x${string}`;
    }
    if (Object.keys(tokens).length === 0) fail(`${name}.tokens names no token`);
    const decimals: Partial<Record<ChainCurrency, number>> = {};
    for (const currency of Object.keys(tokens) as ChainCurrency[]) decimals[currency] = currencyScale(currency);
    for (const [currency, d] of Object.entries((v.tokenDecimals ?? {}) as Record<string, unknown>)) {
      if (!(currency in tokens)) fail(`${name}.tokenDecimals: ${currency} is not one of the chain's tokens`);
      const scale = currencyScale(currency);
      if (typeof d !== 'number' || !Number.isInteger(d) || d < scale || d > 36) fail(`${name}.tokenDecimals.${currency} must be an integer from ${scale} (Corridor keeps ${currency} at ${scale}) to 36`);
      decimals[currency as ChainCurrency] = d;
    }
    const sealed = (key: string) => {
      const s = v[key];
      if (s === undefined) return undefined;
      if (typeof s !== 'string' || !s.startsWith('v1.')) fail(`${name}.${key} must be sealed with \`corridor chain encrypt-key\``);
      return s;
    };
    const confirmations = positiveInt(v.confirmations, `${name}.confirmations`, 12);
    if (confirmations < 1) fail(`${name}.confirmations must be at least 1`);
    const maxFeePerGasWei = gwei(v.maxFeePerGasGwei ?? '200', `${name}.maxFeePerGasGwei`);
    const minPriorityFeePerGasWei = gwei(v.minPriorityFeeGwei ?? '0', `${name}.minPriorityFeeGwei`);
    if (minPriorityFeePerGasWei > maxFeePerGasWei) fail(`${name}.minPriorityFeeGwei is above maxFeePerGasGwei: no transaction could be priced`);
    chains.push({
      name,
      network,
      chainId,
      rpcUrls: v.rpcUrls as string[],
      rpcTimeoutMs: Math.max(100, positiveInt(v.rpcTimeoutMs, `${name}.rpcTimeoutMs`, 10_000)),
      startCheckTimeoutMs: Math.max(100, positiveInt(v.startCheckTimeoutMs, `${name}.startCheckTimeoutMs`, 3000)),
      tokens,
      decimals,
      confirmations,
      maxFeePerGasWei,
      maxPriorityFeePerGasWei: gwei(v.maxPriorityFeeGwei ?? '2', `${name}.maxPriorityFeeGwei`),
      minPriorityFeePerGasWei,
      gasMarginPercent: positiveInt(v.gasMarginPercent, `${name}.gasMarginPercent`, 20),
      replaceAfterSeconds: positiveInt(v.replaceAfterSeconds, `${name}.replaceAfterSeconds`, 300),
      hotWalletKey: sealed('hotWalletKey'),
      depositXpub: sealed('depositXpub'),
      depositSeed: sealed('depositSeed'),
      gasWalletKey: sealed('gasWalletKey'),
      logRangeMax: Math.max(1, positiveInt(v.logRangeMax, `${name}.logRangeMax`, 2000)),
      startBlock: v.startBlock === undefined ? undefined : BigInt(positiveInt(v.startBlock, `${name}.startBlock`)),
      treasury: treasurySettings(name, v, tokens),
    });
  }
  return { chains };
}

/** Opens a sealed value of the section (the hot wallet key, the deposit xpub or seed). */
export function openSealed(box: CryptoBox, sealed: string, what: string): string {
  try {
    return box.decrypt(sealed);
  } catch {
    throw new Error(`connectors file, "chains": ${what} cannot be opened with CORRIDOR_ENCRYPTION_KEY (seal it with \`corridor chain encrypt-key\` under this key)`);
  }
}

/** A ledger amount (minor units at the currency's scale) in the token's base units on this chain. */
export function toChainUnits(settings: Pick<ChainSettings, 'decimals'>, currency: string, minor: bigint): bigint {
  const d = settings.decimals[currency as ChainCurrency] ?? currencyScale(currency);
  return minor * 10n ** BigInt(d - currencyScale(currency));
}

/** Base units of the token on this chain as ledger minor units (rounded down: less than one minor unit is not credited). */
export function toLedgerMinor(settings: Pick<ChainSettings, 'decimals'>, currency: string, units: bigint): bigint {
  const d = settings.decimals[currency as ChainCurrency] ?? currencyScale(currency);
  return units / 10n ** BigInt(d - currencyScale(currency));
}
