/** What a connector may use of the users module: the operator's rights, asserted by its services (rights.ts). */
export { assertOperatorRight, type OperatorActor } from './rights.js';
