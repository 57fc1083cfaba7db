/*
 * The deposits module's port for connectors: money a rail brought in lands through
 * `receiveRailDeposit` (not the operator's credit), in the virtual account the rail names.
 */
export { receiveRailDeposit, type RailDeposit, type RailDepositResult } from './deposits.service.js';
export { depositAccountOf } from '../virtual-accounts/virtual-accounts.service.js';
export { moveAnyDeposit } from './deposits.service.js';
