import { getAddress, isAddress, type PublicClient } from 'viem';
import type { AppContext } from '../../context.js';
import type { Tx } from '../../db/db.js';
import { registerReceivingChains, type ReceivingChain } from './chain.addresses.js';
import { checkChain, chainClient } from './chain.client.js';
import { CHAIN_CURRENCIES, openSealed, parseChainsSection, type ChainCurrency, type ChainSettings } from './chain.config.js';
import { reportOutcomes } from './chain.outcomes.js';
import { followSent, sendAccepted, type ChainHooks, type PayoutRail } from './chain.payouts.js';
import * as repo from './chain.repository.js';
import { watchDeposits, type DepositRail } from './chain.watcher.js';
import { depositWallet } from './hd.js';
import { localSigner, type ChainSigner } from './signer.js';

/** A payout handed to an async connector (CONNECTORS.md: HandedOverPayout). */
export interface HandedOverPayout {
  id: string;
  workspaceId: string;
  accountId: string;
  amountMinor: bigint;
  currency: string;
  route: string;
  beneficiary: Record<string, unknown>;
  sender: Record<string, unknown> | null;
  clientRef: string;
}

/** Why a payout the chain connector cannot send fails at once. */
export const NETWORK_NOT_SERVED = 'crypto_network_not_served';

interface ChainRuntime {
  settings: ChainSettings;
  client: PublicClient;
  payouts?: PayoutRail;
  deposits?: DepositRail;
}

/** The wallet account a payout pays: the beneficiary's crypto account in the payout's currency. */
function walletOf(beneficiary: Record<string, unknown>, currency: string): { network: string; address: string } | undefined {
  const accounts = Array.isArray(beneficiary.accounts) ? (beneficiary.accounts as { type?: string; currency?: string; data?: Record<string, unknown> }[]) : [];
  const account = accounts.find((a) => a.type === 'crypto' && (a.currency === undefined || a.currency === currency)) ?? accounts.find((a) => a.type === 'crypto');
  const network = account?.data?.network;
  const address = account?.data?.address;
  return typeof network === 'string' && typeof address === 'string' ? { network, address } : undefined;
}

/**
 * The chain connector (an async connector, CONNECTORS.md): USDC and USDT payouts as ERC-20 transfers
 * from the hot wallet of the chain serving the beneficiary's network, and deposit addresses watched
 * for transfers. `start()` checks every chain (chain id, each token's decimals against the
 * currency's scale) and refuses to start on a mismatch; `tick()` is one look at every chain (sign
 * and broadcast, follow, watch deposits), run by the worker every CHAIN_POLL_MS and by tests directly.
 */
export class ChainConnector {
  readonly name = 'chain';
  readonly async = true as const;
  private readonly chains: ChainRuntime[];
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;

  constructor(
    private readonly ctx: AppContext,
    section: unknown,
    options: { hooks?: ChainHooks; signers?: Record<string, ChainSigner> } = {},
  ) {
    this.hooks = options.hooks ?? {};
    this.chains = parseChainsSection(section).chains.map((settings) => {
      const client = chainClient(settings, ctx.config.chainPollMs);
      const signer = options.signers?.[settings.name] ?? (settings.hotWalletKey ? localSigner(openSealed(ctx.box, settings.hotWalletKey, `${settings.name}.hotWalletKey`)) : undefined);
      const sealedWallet = settings.depositXpub ?? settings.depositSeed;
      const wallet = sealedWallet ? depositWallet(openSealed(ctx.box, sealedWallet, `${settings.name}.deposit wallet`)) : undefined;
      return { settings, client, ...(signer ? { payouts: { settings, client, signer } } : {}), ...(wallet ? { deposits: { settings, client, wallet } } : {}) };
    });
    const receiving: ReceivingChain[] = this.chains.flatMap((c) =>
      c.deposits ? [{ name: c.settings.name, network: c.settings.network, wallet: c.deposits.wallet, currencies: Object.keys(c.settings.tokens) as ChainCurrency[] }] : [],
    );
    registerReceivingChains(ctx.config, receiving);
  }

  private readonly hooks: ChainHooks;

  /** The configured chains' names. */
  chainNames(): string[] {
    return this.chains.map((c) => c.settings.name);
  }

  /** The hot wallet address of a chain (fund it with the tokens and the gas coin). */
  hotWallet(chain: string): string | undefined {
    return this.chains.find((c) => c.settings.name === chain)?.payouts?.signer.address;
  }

  /** Checks every chain against its node; throws (the process refuses to start) on a mismatch. */
  async check(): Promise<void> {
    for (const c of this.chains) await checkChain(c.client, c.settings);
  }

  /**
   * In the payouts step transaction: records the payouts handed over. One whose beneficiary's
   * network no configured chain pays, or whose token that chain lacks, fails at once (funds released).
   */
  async accept(tx: Tx, payouts: readonly HandedOverPayout[]): Promise<void> {
    const accepted: repo.NewChainPayout[] = [];
    const refused: string[] = [];
    for (const p of payouts) {
      const wallet = walletOf(p.beneficiary, p.currency);
      const chain = wallet ? this.chains.find((c) => c.settings.network === wallet.network && c.payouts) : undefined;
      const token = chain?.settings.tokens[p.currency as ChainCurrency];
      if (!wallet || !chain || !token || !isAddress(wallet.address, { strict: false }) || !(CHAIN_CURRENCIES as readonly string[]).includes(p.currency)) {
        refused.push(p.id);
        continue;
      }
      accepted.push({ payoutId: p.id, chain: chain.settings.name, currency: p.currency, token: token.toLowerCase(), toAddress: getAddress(wallet.address).toLowerCase(), amountMinor: p.amountMinor });
    }
    await repo.insertChainPayouts(tx, accepted);
    if (refused.length > 0) await reportOutcomes(this.ctx, tx, refused.map((payoutId) => ({ payoutId, move: 'fail' as const, failureReason: NETWORK_NOT_SERVED })));
  }

  /** One look at every chain: sign and broadcast accepted payouts, follow sent ones, take confirmed deposits. */
  async tick(): Promise<void> {
    let failure: unknown;
    for (const c of this.chains) {
      try {
        if (c.payouts) {
          await sendAccepted(this.ctx, c.payouts, this.hooks);
          await followSent(this.ctx, c.payouts, this.hooks);
        }
        if (c.deposits) await watchDeposits(this.ctx, c.deposits);
      } catch (err) {
        failure ??= err;
      }
    }
    if (failure !== undefined) throw failure;
  }

  /** Runs `tick()` every CHAIN_POLL_MS until stopped (the worker role). */
  start(): void {
    const loop = () => {
      this.running = this.tick()
        .catch((err: unknown) => this.ctx.log.warn({ err: err instanceof Error ? err.message.split('\n')[0] : String(err) }, 'chain look failed; tried again on the next'))
        .finally(() => {
        if (this.timer !== undefined) this.timer = setTimeout(loop, this.ctx.config.chainPollMs);
      });
    };
    this.timer = setTimeout(loop, 0);
  }

  async stop(): Promise<void> {
    const timer = this.timer;
    this.timer = undefined;
    if (timer) clearTimeout(timer);
    await this.running;
  }
}
