/**
 * The virtual-accounts module's port for connectors: a connector that gives owners deposit addresses
 * (the chain connector) registers its issuer here when it is built, and finds which account a deposit
 * to one of its addresses is for.
 */
export { registerDepositAddressIssuer, type DepositAddress, type DepositAddressIssuer } from './deposit-addresses.js';
export { depositTarget } from './virtual-accounts.service.js';
