/**
 * Reconciliation's port for connectors: what a rail's inbound side (the bank's camt files) records in
 * the book of each bank account: movements, end-of-day statements, and the exceptions that matched nothing.
 */
export { latestStatements, numberedStatements, recordException, recordMovement, recordMovements, recordStatement, type NewException, type StatementInput } from './reconciliation.service.js';
