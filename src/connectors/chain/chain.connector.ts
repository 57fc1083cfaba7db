import { getAddress, isAddress } from 'viem';
import type { Config } from '../../platform/config.js';
import type { AsyncConnector, ConnectorStep, HandedOverPayout } from '../connector.js';
import type { Tx } from '../../platform/db/db.js';
import type { FieldError } from '../../platform/lib/errors.js';
import type { CryptoBox } from '../../platform/lib/crypto-box.js';
import { registerReceivingChains, type ReceivingChain } from './chain.addresses.js';
import { ChainUnreachable, checkChainUrls, chainClient } from './chain.client.js';
import { CHAIN_CURRENCIES, openSealed, parseChainsSection, type ChainCurrency } from './chain.config.js';
import type { ChainRuntime } from './chain.rails.js';
import { transferFee } from './chain.issuer.js';
import * as repo from './chain.repository.js';
import { depositWallet } from './hd.js';
import { localSigner, type ChainSigner } from './signer.js';

/** Why a payout the chain connector cannot send fails at once. */
export const NETWORK_NOT_SERVED = 'crypto_network_not_served';
/** Why a payout to one of Corridor's own deposit addresses fails at once (docs/guides/crypto-rail.md). */
export const OWN_DEPOSIT_ADDRESS = 'destination_is_corridor_deposit_address';

const ZERO_ADDRESS = '0x0000000000000000000000000000000000000000';

/** The wallet account a payout pays: the beneficiary's crypto account in the payout's currency. */
function walletOf(beneficiary: Record<string, unknown>, currency: string): { network: string; address: string } | undefined {
  type Account = { type?: string; currency?: string; data?: Record<string, unknown> };
  const accounts = [...(Array.isArray(beneficiary.accounts) ? (beneficiary.accounts as Account[]) : []), ...(beneficiary.account ? [beneficiary.account as Account] : [])];
  const account = accounts.find((a) => a.type === 'crypto' && (a.currency === undefined || a.currency === currency)) ?? accounts.find((a) => a.type === 'crypto');
  const network = account?.data?.network;
  const address = account?.data?.address;
  return typeof network === 'string' && typeof address === 'string' ? { network, address } : undefined;
}

/**
 * The chain connector (an async connector, CONNECTORS.md): USDC and USDT payouts as ERC-20 transfers
 * from the hot wallet of the chain serving the beneficiary's network, and deposit addresses watched
 * for transfers. `start()` checks every chain (chain id, each token's decimals against the
 * currency's scale) and refuses to start on a mismatch. Its work beside the payouts step (sign and
 * broadcast, follow, watch deposits) is the worker's ChainWorker (chain.worker.ts).
 */
export class ChainConnector implements AsyncConnector {
  readonly name = 'chain';
  readonly async = true as const;
  /** The configured chains as run (the worker's chain.worker.ts looks at each). */
  readonly chains: readonly ChainRuntime[];

  constructor(section: unknown, deps: { config: Config; box: CryptoBox }, options: { signers?: Record<string, ChainSigner> } = {}) {
    this.chains = parseChainsSection(section).chains.map((settings) => {
      const client = chainClient(settings, deps.config.chainPollMs);
      const signer = options.signers?.[settings.name] ?? (settings.hotWalletKey ? localSigner(openSealed(deps.box, settings.hotWalletKey, `${settings.name}.hotWalletKey`)) : undefined);
      const sealedWallet = settings.depositXpub ?? settings.depositSeed;
      const wallet = sealedWallet ? depositWallet(openSealed(deps.box, sealedWallet, `${settings.name}.deposit wallet`)) : undefined;
      const gasWallet = settings.gasWalletKey ? localSigner(openSealed(deps.box, settings.gasWalletKey, `${settings.name}.gasWalletKey`)) : undefined;
      if (gasWallet && signer && gasWallet.address.toLowerCase() === signer.address.toLowerCase()) {
        throw new Error(`connectors file, "chains": ${settings.name}.gasWalletKey is the hot wallet's key: the gas wallet must be a separate wallet`);
      }
      const deposits = wallet ? { settings, client, wallet, ...(gasWallet ? { gasWallet } : {}), ...(signer ? { treasury: signer.address } : {}) } : undefined;
      return { settings, client, health: { checked: false, error: null }, ...(signer ? { payouts: { settings, client, signer } } : {}), ...(deposits ? { deposits } : {}) };
    });
    const receiving: ReceivingChain[] = this.chains.flatMap((c) =>
      c.deposits ? [{ name: c.settings.name, network: c.settings.network, wallet: c.deposits.wallet, currencies: Object.keys(c.settings.tokens) as ChainCurrency[] }] : [],
    );
    registerReceivingChains(deps.config, receiving);
  }

  /** Handed over at once: the payouts step calls `accept` on its first look. */
  firstStepMs(): number {
    return 0;
  }

  /** The chain connector moves its payouts itself (reportPayoutOutcomes), never through steps. */
  nextStep(): ConnectorStep {
    return { move: 'none', nextInMs: null };
  }

  /** A signed transfer cannot be called back. */
  canCancelProcessing(): boolean {
    return false;
  }

  /** The configured chains' names. */
  chainNames(): string[] {
    return this.chains.map((c) => c.settings.name);
  }

  /** The hot wallet address of a chain (fund it with the tokens and the gas coin). */
  hotWallet(chain: string): string | undefined {
    return this.chains.find((c) => c.settings.name === chain)?.payouts?.signer.address;
  }

  /** The networks paid, per currency: a chain with a hot wallet pays its tokens on its network. */
  servedNetworks(rail: string): Record<string, string[]> | undefined {
    if (rail !== 'crypto') return undefined;
    const served: Record<string, string[]> = {};
    for (const c of this.chains) {
      if (!c.payouts) continue;
      for (const currency of Object.keys(c.settings.tokens)) served[currency] = [...(served[currency] ?? []), c.settings.network];
    }
    return served;
  }

  /**
   * Refused at submit with a field error: a network (or a token on it) no configured chain pays, and
   * destinations that destroy funds: the zero address, a token contract of a configured chain (tokens
   * sent to it are lost), a hot wallet (a payout to itself).
   */
  submitErrors(rail: string, beneficiary: Record<string, unknown>): FieldError[] {
    if (rail !== 'crypto') return [];
    const served = this.servedNetworks(rail) ?? {};
    const tokens = new Set(this.chains.flatMap((c) => Object.values(c.settings.tokens).map((t) => t.toLowerCase())));
    const hotWallets = new Set(this.chains.flatMap((c) => (c.payouts ? [c.payouts.signer.address.toLowerCase()] : [])));
    const accounts = Array.isArray(beneficiary.accounts) ? (beneficiary.accounts as { type?: string; currency?: string; data?: Record<string, unknown> }[]) : [];
    const errors: FieldError[] = [];
    for (const [i, account] of accounts.entries()) {
      const network = account.type === 'crypto' && typeof account.data?.network === 'string' ? account.data.network : undefined;
      if (network !== undefined) {
        const currencies = account.currency ? [account.currency] : Object.keys(served);
        if (!currencies.some((c) => (served[c] ?? []).includes(network))) {
          const list = account.currency ? (served[account.currency] ?? []) : [...new Set(Object.values(served).flat())];
          errors.push({
            field: `beneficiary.accounts.${i}.data.network`,
            message: `beneficiary.accounts.${i}.data.network ${network} is not paid by any configured chain${account.currency ? ` in ${account.currency}` : ''}; served: ${list.join(', ') || 'none'}`,
            code: 'UNSUPPORTED_CORRIDOR',
          });
          continue;
        }
      }
      const address = account.type === 'crypto' && typeof account.data?.address === 'string' ? account.data.address.toLowerCase() : undefined;
      if (address === undefined) continue;
      const why =
        address === ZERO_ADDRESS ? 'is the zero address: tokens sent there are destroyed'
        : tokens.has(address) ? 'is a token contract: tokens sent to it are lost'
        : hotWallets.has(address) ? "is Corridor's own hot wallet: a payout to it pays nobody"
        : undefined;
      if (why) errors.push({ field: `beneficiary.accounts.${i}.data.address`, message: `beneficiary.accounts.${i}.data.address ${why}`, code: 'INVALID_ACCOUNT_NUMBER' });
    }
    return errors;
  }

  /**
   * Checks every chain against its node (chain id, each token's decimals), each URL in turn with a
   * short timeout; throws, and the process refuses to start, on a mismatch. A chain whose node does
   * not answer at any URL does not stop the start: it is down, and the worker checks it again
   * before its first look (chain.worker.ts).
   */
  async checkAtStart(): Promise<void> {
    for (const c of this.chains) {
      try {
        await checkChainUrls(c.settings);
        c.health = { checked: true, error: null };
        if (c.settings.treasury.transferFeePolicy === 'refuse_start') await refuseFeeTokens(c);
      } catch (err) {
        if (!(err instanceof ChainUnreachable)) throw err;
        c.health = { checked: false, error: err.message };
      }
    }
  }

  /**
   * In the payouts step transaction: records the payouts handed over. One whose beneficiary's
   * network no configured chain pays, or whose token that chain lacks, is recorded refused and
   * failed on the next look (funds released).
   */
  async accept(tx: Tx, payouts: readonly HandedOverPayout[]): Promise<void> {
    const accepted: repo.NewChainPayout[] = [];
    for (const p of payouts) {
      const wallet = walletOf(p.beneficiary, p.currency);
      const chain = wallet ? this.chains.find((c) => c.settings.network === wallet.network && c.payouts) : undefined;
      const token = chain?.settings.tokens[p.currency as ChainCurrency];
      const served = wallet && chain && token && isAddress(wallet.address, { strict: false }) && (CHAIN_CURRENCIES as readonly string[]).includes(p.currency);
      accepted.push({
        payoutId: p.id,
        chain: served ? chain.settings.name : (wallet?.network ?? ''),
        currency: p.currency,
        token: served ? token.toLowerCase() : '',
        toAddress: served ? getAddress(wallet.address).toLowerCase() : (wallet?.address ?? ''),
        amountMinor: p.amountMinor,
        refused: served ? null : NETWORK_NOT_SERVED,
      });
    }
    // One of Corridor's own deposit addresses: a chain payout there would turn treasury tokens into a
    // customer's deposit, paying gas both ways; refused (an internal transfer moves money between owners).
    for (const chain of new Set(accepted.filter((a) => !a.refused).map((a) => a.chain))) {
      const own = await repo.knownDepositAddresses(tx, chain, accepted.filter((a) => a.chain === chain && !a.refused).map((a) => a.toAddress));
      for (const a of accepted) if (a.chain === chain && own.has(a.toAddress)) a.refused = OWN_DEPOSIT_ADDRESS;
    }
    await repo.insertChainPayouts(tx, accepted);
  }
}

/** transferFeePolicy "refuse_start": a token charging a fee on transfer (USDT's basisPointsRate) stops the process at start. */
async function refuseFeeTokens(c: ChainRuntime): Promise<void> {
  for (const [currency, token] of Object.entries(c.settings.tokens)) {
    const fee = await transferFee(c.client, getAddress(token));
    if (fee.basisPoints > 0n) {
      throw new Error(`chain ${c.settings.name}: ${currency} token ${token} charges ${fee.basisPoints} basis points on transfer (transferFeePolicy refuse_start): recipients would get less than paid`);
    }
  }
}

/** The registry's factory (src/connectors/registry.ts): the "chains" section of the connectors file. */
export function chainConnectorFactory(section: unknown, deps: { config: Config; box: CryptoBox }): ChainConnector {
  return new ChainConnector(section, deps);
}
