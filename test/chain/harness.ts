import { expect } from 'vitest';
import { generateMnemonic } from '@scure/bip39';
import { wordlist } from '@scure/bip39/wordlists/english';
import { privateKeyToAccount } from 'viem/accounts';
import { formatUnits, type Address, type Hex } from 'viem';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { jobHandlers } from '../../src/jobs.js';
import { JobRunner } from '../../src/platform/jobs/runner.js';
import { CryptoBox } from '../../src/platform/lib/crypto-box.js';
import type { ChainConnector } from '../../src/connectors/chain/chain.connector.js';
import type { ChainHooks } from '../../src/connectors/chain/chain.rails.js';
import { ChainWorker } from '../../src/connectors/chain/chain.worker.js';
import { createTestApp, OPERATOR_KEY, type Caller, type TestApp } from '../helpers/app.js';
import { DEV_KEYS, startAnvil, type Anvil } from '../helpers/anvil.js';
import { fund, payingWorkspace, ref } from '../payouts/helpers.js';
import { deployFeeUsd, deployIssuerUsd } from './issuer-tokens.js';

/** The hot wallet of the tests: anvil's second dev account (ETH for gas at genesis). */
export const HOT_KEY = DEV_KEYS[1] as Hex;
export const HOT = privateKeyToAccount(HOT_KEY).address;
/** The gas wallet of the sweep tests: anvil's fourth dev account. */
export const GAS_KEY = DEV_KEYS[3] as Hex;
export const GAS = privateKeyToAccount(GAS_KEY).address;

export interface ChainWorld {
  anvil: Anvil;
  usdc: Address;
  usdt: Address;
  t: TestApp;
  /** The connectors file the app was started with (its chains sealed under the app's key), and the env. */
  connectorsFile: string;
  env: Record<string, string>;
  connector: ChainConnector;
  /** The chain looks of this app's worker, run by the tests one at a time. */
  worker: ChainWorker;
  close: () => Promise<void>;
}

export interface WorldOptions {
  confirmations?: number;
  hotWalletTokens?: bigint;
  replaceAfterSeconds?: number;
  maxFeePerGasGwei?: string;
  noMining?: boolean;
  databaseUrl?: string;
  hooks?: ChainHooks;
  /** The chain's RPC URLs given anvil's (default: anvil's alone). */
  rpcUrls?: (anvilUrl: string) => string[];
  rpcTimeoutMs?: number;
  /** Deploy the tokens that behave like the real ones (issuer-tokens.ts) instead of the plain test ERC-20. */
  issuerTokens?: boolean;
  /** A gas wallet (anvil's dev account 3, never the hot wallet) that relays and tops up sweeps. */
  gasWallet?: boolean;
  /** USDT deployed with these decimals (18: as on BNB Chain; tokenDecimals set to match). */
  usdtDecimals?: number;
  /** More settings of the chain (breakerThreshold, transferFeePolicy, gasLowBelow…). */
  chainSettings?: Record<string, unknown>;
}

/** anvil with USDC and USDT (6 decimals) deployed, the hot wallet funded, and a test app with the chain connector on it. */
export async function chainWorld(options: WorldOptions = {}): Promise<ChainWorld> {
  const anvil = await startAnvil(options.noMining ? { noMining: true } : {});
  const usdc = options.issuerTokens ? await deployIssuerUsd(anvil) : await anvil.deployToken('USDC');
  const usdt = options.issuerTokens ? await deployFeeUsd(anvil, options.usdtDecimals) : await anvil.deployToken('USDT', options.usdtDecimals);
  await anvil.mint(usdc, HOT, options.hotWalletTokens ?? 1_000_000_000_000n);
  if (options.issuerTokens) await anvil.mint(usdt, HOT, options.hotWalletTokens ?? 1_000_000_000_000n);
  const key = randomBytes(32).toString('base64');
  const box = CryptoBox.fromKey(Buffer.from(key, 'base64'));
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'corridor-chain-'));
  const connectorsFile = path.join(dir, 'connectors.json');
  fs.writeFileSync(
    connectorsFile,
    JSON.stringify({
      routes: { crypto: 'chain' },
      chains: {
        ethereum: {
          chainId: anvil.chainId,
          rpcUrls: options.rpcUrls?.(anvil.url) ?? [anvil.url],
          ...(options.rpcTimeoutMs ? { rpcTimeoutMs: options.rpcTimeoutMs, startCheckTimeoutMs: options.rpcTimeoutMs } : {}),
          tokens: { USDC: usdc, USDT: usdt },
          ...(options.usdtDecimals ? { tokenDecimals: { USDT: options.usdtDecimals } } : {}),
          confirmations: options.confirmations ?? 3,
          maxFeePerGasGwei: options.maxFeePerGasGwei ?? '100',
          maxPriorityFeeGwei: '1',
          replaceAfterSeconds: options.replaceAfterSeconds ?? 3600,
          hotWalletKey: box.encrypt(HOT_KEY),
          depositSeed: box.encrypt(generateMnemonic(wordlist)),
          ...(options.gasWallet ? { gasWalletKey: box.encrypt(GAS_KEY) } : {}),
          startBlock: 0,
          ...options.chainSettings,
        },
      },
    }),
  );
  const env = { CORRIDOR_ENCRYPTION_KEY: key, CORRIDOR_CONNECTORS_FILE: connectorsFile, CHAIN_POLL_MS: '20' };
  const t = await createTestApp({ env, ...(options.databaseUrl ? { databaseUrl: options.databaseUrl } : {}) });
  const connector = t.ctx.connectors.get('chain') as ChainConnector;
  // The operator records what it funded the hot wallet with: the ledger's float the treasury reconciles it against.
  const minted = options.hotWalletTokens ?? 1_000_000_000_000n;
  for (const currency of options.issuerTokens ? ['USDC', 'USDT'] : ['USDC']) {
    await recordFunding(t, currency, formatUnits(minted, currency === 'USDT' ? (options.usdtDecimals ?? 6) : 6), 'in', `harness-funding-${currency}`);
  }
  const worker = new ChainWorker(t.ctx, options.hooks ? { hooks: options.hooks } : {});
  return {
    anvil,
    usdc,
    usdt,
    t,
    connectorsFile,
    env: t.env,
    connector,
    worker,
    close: async () => {
      await worker.stop();
      await t.close();
      await anvil.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The operator records tokens it moved into (in) or out of (out) the hot wallet (POST /operator/v1/chain/chains/ethereum/fundings). */
export async function recordFunding(t: TestApp, currency: string, amount: string, direction: 'in' | 'out', key: string, extra: { txHash?: string; note?: string } = {}): Promise<{ transferId: string; float: string; amount: string }> {
  const res = await t.app.inject({
    method: 'POST',
    url: '/operator/v1/chain/chains/ethereum/fundings',
    headers: { authorization: `Bearer ${OPERATOR_KEY}`, 'idempotency-key': key },
    payload: { currency, amount, direction, ...extra },
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json();
}

/** Runs the due jobs once, as a worker would (the payouts step hands queued payouts to the connector). */
export async function runJobs(t: TestApp): Promise<void> {
  const runner = new JobRunner(t.ctx, jobHandlers);
  await runner.tick();
  await runner.stop();
}

/** A fresh recipient address nobody holds a key of. */
export function recipient(): Address {
  return privateKeyToAccount(`0x${Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString('hex')}`).address;
}

/** A paying workspace with USDC funded in the sandbox. */
export async function usdcWorkspace(t: TestApp, amount = '100000'): Promise<Caller> {
  const c = await payingWorkspace(t);
  await fund(c, 'USDC', amount);
  return c;
}

/** A USDC payout to an ethereum address, created through the API (queued; the simulator never steps it here). */
export async function usdcPayout(c: Caller, to: Address, amount: string, network = 'ethereum', currency = 'USDC'): Promise<string> {
  const res = await c.request('POST', '/v1/payouts', cryptoPayoutBody(to, amount, currency, network));
  expect(res.statusCode, res.body).toBe(201);
  return res.json<{ id: string }>().id;
}

/** The body of POST /v1/payouts paying `amount` of `currency` to a wallet address. */
export function cryptoPayoutBody(to: string, amount: string, currency = 'USDC', network = 'ethereum') {
  const beneficiary = { name: 'Satoshi Nakamoto', country: 'JP', accounts: [{ type: 'crypto', currency, data: { network, address: to } }] };
  return { clientRef: ref('chain'), amount, currency, route: 'crypto', beneficiary };
}

/** The payouts step hands queued payouts over (accept), then the chain worker looks once. */
export async function handOver(w: ChainWorld): Promise<void> {
  await runJobs(w.t);
}

export async function payoutStatus(w: ChainWorld, id: string): Promise<{ status: string; failure_reason: string | null }> {
  const [row] = await w.t.ctx.db.query<{ status: string; failure_reason: string | null }>('SELECT status, failure_reason FROM payouts WHERE id = $1', [id]);
  if (!row) throw new Error('no payout');
  return row;
}

export async function chainRow(w: ChainWorld, id: string): Promise<{ status: string; nonce: string | null; mined_hash: string | null }> {
  const [row] = await w.t.ctx.db.query<{ status: string; nonce: string | null; mined_hash: string | null }>(
    'SELECT status, nonce::text AS nonce, mined_hash FROM chain_payouts WHERE payout_id = $1',
    [id],
  );
  if (!row) throw new Error('no chain payout');
  return row;
}
