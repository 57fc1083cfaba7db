import { defineConnector } from '../definition.js';
import { SIMULATED_FAILURE_REASON, SimulatedConnector } from './simulated.js';

/** The sandbox simulator: built in every process, stepping payouts by their amount's magic digits. */
export const simulated = defineConnector({
  name: 'simulated',
  build: (_section, deps) => new SimulatedConnector(deps.config.sandboxStepMs),
  reasons: [
    { code: SIMULATED_FAILURE_REASON, words: "the beneficiary's account was refused as invalid", actor: 'beneficiary' },
    { code: 'returned_by_beneficiary_bank', words: "returned by the beneficiary's bank", actor: 'beneficiary' },
  ],
  backlog: ['queued', 'processing'],
});
