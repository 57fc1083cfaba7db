import type { AppContext } from '../../platform/context.js';
import type { CryptoBox } from '../../platform/lib/crypto-box.js';
import type { RecipientCheck, RecipientCheckRequest } from '../connector.js';
import { defineConnector } from '../definition.js';
import { connectorJob, connectorOf, HandOverConnector } from '../hand-over.js';
import { CLEARBANK_REASONS } from './codes.js';
import { parseClearBankConfig, type ClearBankConfig } from './config.js';
import { confirmPayee } from './cop.js';
import { CLEARBANK_STATEMENT_JOB, CLEARBANK_STATEMENTS_JOB, runStatementFetch, runStatementRequests } from './statements.js';
import { acceptPayouts, CLEARBANK_BATCH_JOB, CLEARBANK_SEND_JOB, releasePayment, runBatching, runSend, submitErrors, type ClearBankRuntime } from './service.js';

/**
 * The ClearBank connector: GBP payouts as Faster Payments over a UK bank's API (ClearBank's FPS
 * Initiation API 3.0), the payee's name confirmed first (Confirmation of Payee). A hand-over connector:
 * queued payouts are handed over (`accept`), sent in signed batches of at most 10 (each payment
 * accepted or refused on its own), processing once the bank accepts them, then paid, failed or
 * reverted by the bank's signed webhooks (src/connectors/clearbank/clearbank.routes.ts).
 */
export class ClearBankConnector extends HandOverConnector<ClearBankRuntime> {
  readonly name = 'clearbank';
  /** Always offered by this rail. */
  declare readonly verifyRecipient: (request: RecipientCheckRequest) => Promise<RecipientCheck>;

  constructor(config: ClearBankConfig, box: CryptoBox) {
    super({ config, box }, { accept: acceptPayouts, release: releasePayment, submitErrors, verifyRecipient: (rt, request) => confirmPayee(rt.config, request) });
  }
}

/** The ClearBank connector of this process, when the connectors file configures one. */
export const clearBankConnectorOf = (ctx: Pick<AppContext, 'connectors'>) => connectorOf(ctx, ClearBankConnector);

/**
 * The ClearBank connector's definition, from the "clearbank" section: its jobs cut batches of at most
 * 10 and send each, ask for each day's camt.053 statement and take each ready statement into
 * reconciliation (statements.ts).
 */
export const clearbank = defineConnector<ClearBankConnector>({
  name: 'clearbank',
  section: 'clearbank',
  build: (section, deps) => new ClearBankConnector(parseClearBankConfig(section), deps.box),
  reasons: CLEARBANK_REASONS,
  jobs: [
    { kind: CLEARBANK_BATCH_JOB, handler: connectorJob(ClearBankConnector, (ctx, rt) => runBatching(ctx, rt)) },
    { kind: CLEARBANK_SEND_JOB, handler: connectorJob(ClearBankConnector, (ctx, rt, job) => runSend(ctx, rt, String(job.payload.batchId)), 'no ClearBank connector is configured in this process; the batch waits') },
    { kind: CLEARBANK_STATEMENTS_JOB, handler: connectorJob(ClearBankConnector, (ctx, rt) => runStatementRequests(ctx, rt)), everyMs: 60_000 },
    { kind: CLEARBANK_STATEMENT_JOB, handler: connectorJob(ClearBankConnector, (ctx, rt, job) => runStatementFetch(ctx, rt, String(job.payload.messageId)), 'no ClearBank connector is configured in this process; the statement waits') },
  ],
  backlog: ['queued'],
});
