/*
 * The payouts module's port for connectors: everything a connector may ask of payouts, and nothing
 * else. A connector reports what its rail said (`paid`, `failed`, `returned` with the rail's reason)
 * through `reportPayoutOutcomes`, and reads its backlog for its health; the hand-over comes to it
 * (`accept`, in the step's transaction) as a `HandedOverPayout`.
 */
export { reportPayoutOutcomes, type OutcomeResult, type PayoutOutcome } from './payouts.outcomes.js';
export { backlogOf as payoutBacklog } from './payouts.steps.repository.js';
export type { PayoutStatus } from './payouts.transitions.js';
export { findAnyPayout, findAnyPayouts, savedBeneficiaryOfPayout } from './payouts.read.js';
