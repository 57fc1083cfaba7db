import type { Config } from '../../platform/config.js';
import type { Sql } from '../../platform/db/db.js';

/**
 * Deposit addresses as virtual accounts: a connector that receives tokens on chain (the chain
 * connector, when the operator configured one) registers itself here when it is built, and the
 * virtual-accounts module asks it for an owner's addresses. The module imports no connector.
 */

/** A deposit address as the owner reads it on its virtual account. */
export interface DepositAddress {
  chain: string;
  network: string;
  address: string;
}

export interface DepositAddressIssuer {
  /** Whether some chain receives this currency in this app (if not, the currency's accounts come from its issuer). */
  receives(currency: string): boolean;
  /** The owner's deposit addresses for a currency, allocated on first use in the caller's transaction. */
  issue(tx: Sql, owner: { workspaceId: string; accountId: string }, currency: string): Promise<DepositAddress[]>;
}

/** The issuer of each running app (by its configuration). */
const issuers = new WeakMap<Config, DepositAddressIssuer>();

export function registerDepositAddressIssuer(config: Config, issuer: DepositAddressIssuer): void {
  issuers.set(config, issuer);
}

/** The app's deposit-address issuer when it has one that receives `currency`. */
export function depositAddressIssuerFor(config: Config, currency: string): DepositAddressIssuer | undefined {
  const issuer = issuers.get(config);
  return issuer?.receives(currency) ? issuer : undefined;
}
