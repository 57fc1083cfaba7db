/** The recipient checks' port for connectors: a check the rail reports after the payout left (the bank's Verification of Payee). */
export { recordReportedCheck } from './recipient-checks.service.js';
