import type { AppContext } from '../../platform/context.js';
import type { Tx } from '../../platform/db/db.js';
import type { JobHandler } from '../../platform/jobs/runner.js';
import type { CryptoBox } from '../../platform/lib/crypto-box.js';
import type { FieldError } from '../../platform/lib/errors.js';
import type { AsyncConnector, ConnectorStep, HandedOverPayout, RecipientCheck, RecipientCheckRequest } from '../connector.js';
import { defineConnector } from '../definition.js';
import { CLEARBANK_REASONS } from './codes.js';
import { parseClearBankConfig, type ClearBankConfig } from './config.js';
import { confirmPayee } from './cop.js';
import { acceptPayouts, CLEARBANK_BATCH_JOB, CLEARBANK_SEND_JOB, releasePayment, runBatching, runSend, submitErrors, type ClearBankRuntime } from './service.js';

/**
 * The ClearBank connector: GBP payouts as Faster Payments over a UK bank's API (ClearBank's FPS
 * Initiation API 3.0), the payee's name confirmed first (Confirmation of Payee). An async connector:
 * queued payouts are handed over (`accept`), sent in signed batches of at most 10 (each payment
 * accepted or refused on its own), processing once the bank accepts them, then paid, failed or
 * reverted by the bank's signed webhooks (src/connectors/clearbank/clearbank.routes.ts).
 */
export class ClearBankConnector implements AsyncConnector {
  readonly name = 'clearbank';
  readonly async = true as const;
  readonly runtime: ClearBankRuntime;

  constructor(config: ClearBankConfig, box: CryptoBox) {
    this.runtime = { config, box };
  }

  firstStepMs(): number {
    return 0;
  }

  /** Once the bank has it, a Faster Payment cannot be stopped. */
  canCancelProcessing(): boolean {
    return false;
  }

  nextStep(): ConnectorStep {
    return { move: 'none', nextInMs: null };
  }

  accept(tx: Tx, payouts: readonly HandedOverPayout[]): Promise<void> {
    return acceptPayouts(this.runtime, tx, payouts);
  }

  release(tx: Tx, payoutId: string): Promise<boolean> {
    return releasePayment(tx, payoutId);
  }

  submitErrors(_rail: string, beneficiary: Record<string, unknown>): FieldError[] {
    return submitErrors(beneficiary);
  }

  verifyRecipient(request: RecipientCheckRequest): Promise<RecipientCheck> {
    return confirmPayee(this.runtime.config, request);
  }
}

/** The ClearBank connector of this process, when the connectors file configures one. */
export function clearBankConnectorOf(ctx: Pick<AppContext, 'connectors'>): ClearBankConnector | undefined {
  return ctx.connectors.all().find((c): c is ClearBankConnector => c instanceof ClearBankConnector);
}

const batchJob: JobHandler = async (ctx) => {
  const cb = clearBankConnectorOf(ctx);
  if (!cb) return;
  return runBatching(ctx, cb.runtime);
};

const sendJob: JobHandler = async (ctx, job) => {
  const cb = clearBankConnectorOf(ctx);
  if (!cb) throw new Error('no ClearBank connector is configured in this process; the batch waits');
  await runSend(ctx, cb.runtime, String(job.payload.batchId));
};

/** The ClearBank connector's definition, from the "clearbank" section: its jobs cut batches of at most 10 and send each. */
export const clearbank = defineConnector<ClearBankConnector>({
  name: 'clearbank',
  section: 'clearbank',
  build: (section, deps) => new ClearBankConnector(parseClearBankConfig(section), deps.box),
  reasons: CLEARBANK_REASONS,
  jobs: [
    { kind: CLEARBANK_BATCH_JOB, handler: batchJob },
    { kind: CLEARBANK_SEND_JOB, handler: sendJob },
  ],
  backlog: ['queued'],
});
