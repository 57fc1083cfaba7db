import type { Address, PublicClient } from 'viem';
import type { ChainSettings } from './chain.config.js';
import type { DepositWallet } from './hd.js';
import type { ChainSigner } from './signer.js';

/** A chain that pays out: its settings, its node, the hot wallet's signer. */
export interface PayoutRail {
  settings: ChainSettings;
  client: PublicClient;
  signer: ChainSigner;
}

/** A chain that receives: its settings, its node, the deposit HD wallet, and the gas wallet that pays for sweeps (when configured). */
export interface DepositRail {
  settings: ChainSettings;
  client: PublicClient;
  wallet: DepositWallet;
  gasWallet?: ChainSigner;
  /** Where sweeps go: the chain's hot wallet. */
  treasury?: Address;
}

/** Whether a chain's node was checked (chain id, token decimals) and answers; kept by the process that looks at it. */
export interface ChainHealth {
  checked: boolean;
  /** The last look's failure (null: it worked). */
  error: string | null;
}

/** One configured chain as the connector runs it. */
export interface ChainRuntime {
  settings: ChainSettings;
  client: PublicClient;
  health: ChainHealth;
  payouts?: PayoutRail;
  deposits?: DepositRail;
}

/** What tests hook into to stop a worker between the steps (kill -9 after signing, after broadcast). */
export interface ChainHooks {
  afterSign?: (hashes: readonly string[]) => Promise<void>;
  afterBroadcast?: (hashes: readonly string[]) => Promise<void>;
  /** After a sweep is recorded (signed bytes stored), before anything of it is sent. */
  afterSweepSigned?: (sweepId: string) => Promise<void>;
  /** After a USDT-style sweep's gas top-up is mined and recorded, before the deposit address's own transfer is sent. */
  afterTopUpMined?: (sweepId: string) => Promise<void>;
}
