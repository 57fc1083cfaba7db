/** The corridor catalog's port for connectors: the networks a chain may be configured on. */
export { CRYPTO_NETWORKS } from './catalog.js';
