import { expect } from 'vitest';
import { generateMnemonic } from '@scure/bip39';
import { wordlist } from '@scure/bip39/wordlists/english';
import { privateKeyToAccount } from 'viem/accounts';
import type { Address, Hex } from 'viem';
import { ChainConnector, type HandedOverPayout } from '../../src/modules/chain/chain.connector.js';
import type { ChainHooks } from '../../src/modules/chain/chain.payouts.js';
import { createTestApp, type Caller, type TestApp } from '../helpers/app.js';
import { DEV_KEYS, startAnvil, type Anvil } from '../helpers/anvil.js';
import { fund, payingWorkspace, ref } from '../payouts/helpers.js';

/** The hot wallet of the tests: anvil's second dev account (ETH for gas at genesis). */
export const HOT_KEY = DEV_KEYS[1] as Hex;
export const HOT = privateKeyToAccount(HOT_KEY).address;

export interface ChainWorld {
  anvil: Anvil;
  usdc: Address;
  usdt: Address;
  t: TestApp;
  /** The connectors-file section the connector is built from (sealed under the app's key). */
  section: Record<string, unknown>;
  connector: ChainConnector;
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
}

/** anvil with USDC and USDT (6 decimals) deployed, the hot wallet funded, and a test app with the chain connector on it. */
export async function chainWorld(options: WorldOptions = {}): Promise<ChainWorld> {
  const anvil = await startAnvil(options.noMining ? { noMining: true } : {});
  const usdc = await anvil.deployToken('USDC');
  const usdt = await anvil.deployToken('USDT');
  await anvil.mint(usdc, HOT, options.hotWalletTokens ?? 1_000_000_000_000n);
  const t = await createTestApp({ env: { SANDBOX_STEP_MS: '86400000', CHAIN_POLL_MS: '20' } });
  const section = {
    ethereum: {
      chainId: anvil.chainId,
      rpcUrls: [anvil.url],
      tokens: { USDC: usdc, USDT: usdt },
      confirmations: options.confirmations ?? 3,
      maxFeePerGasGwei: options.maxFeePerGasGwei ?? '100',
      maxPriorityFeeGwei: '1',
      replaceAfterSeconds: options.replaceAfterSeconds ?? 3600,
      hotWalletKey: t.ctx.box.encrypt(HOT_KEY),
      depositSeed: t.ctx.box.encrypt(generateMnemonic(wordlist)),
      startBlock: 0,
    },
  };
  const connector = new ChainConnector(t.ctx, section, options.hooks ? { hooks: options.hooks } : {});
  await connector.check();
  return {
    anvil,
    usdc,
    usdt,
    t,
    section,
    connector,
    close: async () => {
      await connector.stop();
      await t.close();
      await anvil.stop();
    },
  };
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
export async function usdcPayout(c: Caller, to: Address, amount: string, network = 'ethereum'): Promise<string> {
  const beneficiary = { name: 'Satoshi Nakamoto', country: 'JP', accounts: [{ type: 'crypto', currency: 'USDC', data: { network, address: to } }] };
  const res = await c.request('POST', '/v1/payouts', { clientRef: ref('chain'), amount, currency: 'USDC', route: 'crypto', beneficiary });
  expect(res.statusCode, res.body).toBe(201);
  return res.json<{ id: string }>().id;
}

/** Hands queued payouts to the connector as the payouts step does (one transaction). */
export async function handOver(w: ChainWorld, ids: readonly string[]): Promise<void> {
  const rows = await w.t.ctx.db.query<{ id: string; workspace_id: string; account_id: string; amount_minor: string; currency: string; route: string; beneficiary: string; client_ref: string }>(
    'SELECT id, workspace_id, account_id, amount_minor::text AS amount_minor, currency, route, beneficiary, client_ref FROM payouts WHERE id = ANY($1)',
    [ids],
  );
  const payouts: HandedOverPayout[] = rows.map((r) => ({
    id: r.id,
    workspaceId: r.workspace_id,
    accountId: r.account_id,
    amountMinor: BigInt(r.amount_minor),
    currency: r.currency,
    route: r.route,
    beneficiary: w.t.ctx.box.openJson<Record<string, unknown>>(r.beneficiary),
    sender: null,
    clientRef: r.client_ref,
  }));
  await w.t.ctx.db.tx((tx) => w.connector.accept(tx, payouts));
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
