/*
 * The deposits module's port for connectors: money a rail brought in lands through
 * `receiveRailDeposit` (not the operator's credit), in the virtual account the rail names; money a
 * rail asks a payer for (a collection) is recorded pending by `requestRailDeposit` and moved by `moveAnyDeposit`.
 */
export { receiveRailDeposit, type RailDeposit, type RailDepositResult } from './deposits.service.js';
export { depositAccountOf } from '../virtual-accounts/virtual-accounts.service.js';
export { moveAnyDeposit, requestRailDeposit } from './deposits.service.js';
export type { DepositRow } from './deposits.repository.js';
