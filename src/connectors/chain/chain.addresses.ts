import type { Config } from '../../platform/config.js';
import type { Sql } from '../../platform/db/db.js';
import { registerDepositAddressIssuer, type DepositAddress } from '../../domains/virtual-accounts/virtual-accounts.port.js';
import type { ChainCurrency } from './chain.config.js';
import * as repo from './chain.repository.js';
import type { DepositWallet } from './hd.js';

/**
 * Deposit addresses as virtual accounts: an owner's USDC or USDT virtual account is its address on
 * each configured chain that takes that token, derived from the chain's deposit wallet at the
 * owner's derivation index (allocated once per owner, the same index on every chain).
 */
export interface ReceivingChain {
  name: string;
  network: string;
  wallet: DepositWallet;
  currencies: readonly ChainCurrency[];
}

/** The receiving chains of each running app (by its configuration), set when the chain connector is built. */
const receiving = new WeakMap<Config, readonly ReceivingChain[]>();

/** Records the app's receiving chains and offers them to the virtual-accounts module as its deposit-address issuer. */
export function registerReceivingChains(config: Config, chains: readonly ReceivingChain[]): void {
  receiving.set(config, chains);
  registerDepositAddressIssuer(config, {
    receives: (currency) => receivingChains(config, currency).length > 0,
    issue: (tx, owner, currency) => issueDepositAddresses(config, tx, owner, currency),
  });
}

/** The chains that receive a currency in this app (none: the currency has no deposit addresses). */
export function receivingChains(config: Config, currency: string): readonly ReceivingChain[] {
  return (receiving.get(config) ?? []).filter((c) => (c.currencies as readonly string[]).includes(currency));
}

/** The owner's deposit addresses for a currency, allocating its derivation index on first use (in the caller's transaction). */
export async function issueDepositAddresses(config: Config, tx: Sql, owner: { workspaceId: string; accountId: string }, currency: string): Promise<DepositAddress[]> {
  const chains = receivingChains(config, currency);
  if (chains.length === 0) return [];
  const index = await repo.depositIndex(tx, owner);
  const addresses = chains.map((c) => ({ chain: c.name, network: c.network, address: c.wallet.address(index) }));
  await repo.insertDepositAddresses(tx, addresses.map((a) => ({ chain: a.chain, address: a.address, accountId: owner.accountId, workspaceId: owner.workspaceId })));
  return addresses;
}
