/**
 * The ledger's port for connectors: a rail whose money sits in a wallet the operator holds (a chain's
 * hot wallet) moves its float here (`moveFloat`, in the caller's transaction) and reads it back
 * (`floatBalance`) to reconcile the wallet against the ledger.
 */
export { floatBalance, moveFloat, type FloatMove, type FloatMovement } from './float.service.js';
