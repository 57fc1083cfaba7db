/** The corridor catalog's port for connectors: the networks a chain may be configured on, and the E.164 phone-number check (a collection's payer). */
export { CRYPTO_NETWORKS } from './catalog.js';
export { checkE164 } from './account-formats.js';
