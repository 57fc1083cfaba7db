/**
 * The virtual-accounts module's port for connectors: a connector that gives owners deposit addresses
 * (the chain connector) registers its issuer here when it is built. Where a deposit lands is asked of
 * the deposits port (depositAccountOf, the one lookup).
 */
export { registerDepositAddressIssuer, type DepositAddress, type DepositAddressIssuer } from './deposit-addresses.js';
/** A connector that issues accounts at the operator's request (Paystack's dedicated NGN accounts) records them here. */
export { issuingOwner, recordIssuedVirtualAccount, virtualAccountWithDetails } from './virtual-accounts.service.js';
export type { VirtualAccountRow } from './virtual-accounts.repository.js';
