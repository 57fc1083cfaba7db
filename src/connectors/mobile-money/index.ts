import type { AppContext } from '../../platform/context.js';
import type { Tx } from '../../platform/db/db.js';
import type { JobHandler } from '../../platform/jobs/runner.js';
import type { CryptoBox } from '../../platform/lib/crypto-box.js';
import type { FieldError } from '../../platform/lib/errors.js';
import type { AsyncConnector, ConnectorStep, HandedOverPayout, RecipientCheck, RecipientCheckRequest } from '../connector.js';
import { defineConnector } from '../definition.js';
import { GsmaClient } from './client.js';
import { MOBILE_MONEY_REASONS } from './codes.js';
import { parseMobileMoneyConfig, type MobileMoneyConfig } from './config.js';
import { acceptPayouts, MOMO_POLL_JOB, MOMO_SEND_JOB, releasePayout, runPoll, runSend, submitErrors, verifyRecipient, type MomoRuntime } from './service.js';

/**
 * The mobile-money connector (docs/guides/mobile-money.md): payouts to wallets through an operator or
 * aggregator over the GSMA Mobile Money API v1.2. An async connector: a queued payout is handed over
 * (`accept`) with its disbursement request recorded; a job sends it (X-CorrelationID the payout's
 * id), the provider's acceptance makes it processing, and its callback (or, when none comes in time,
 * a poll of the provider) makes it paid, failed with the provider's reason, or reverted.
 */
export class MobileMoneyConnector implements AsyncConnector {
  readonly name = 'mobile-money';
  readonly async = true as const;
  readonly runtime: MomoRuntime;

  constructor(config: MobileMoneyConfig, box: CryptoBox) {
    const client = new GsmaClient({ baseUrl: config.baseUrl, apiKey: () => box.decrypt(config.apiKey), clientId: config.clientId, timeoutMs: config.requestTimeoutMs });
    this.runtime = { config, box, client };
  }

  firstStepMs(): number {
    return 0;
  }

  /** Once sent, a disbursement is the provider's: it cannot be cancelled in processing. */
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
    return releasePayout(tx, payoutId);
  }

  submitErrors(_rail: string, beneficiary: Record<string, unknown>): FieldError[] {
    return submitErrors(beneficiary);
  }

  verifyRecipient(request: RecipientCheckRequest): Promise<RecipientCheck> {
    return verifyRecipient(this.runtime, request);
  }
}

/** The mobile-money connector of this process, when the connectors file configures one. */
export function mobileMoneyConnectorOf(ctx: Pick<AppContext, 'connectors'>): MobileMoneyConnector | undefined {
  return ctx.connectors.all().find((c): c is MobileMoneyConnector => c instanceof MobileMoneyConnector);
}

const sendJob: JobHandler = async (ctx, job) => {
  const mm = mobileMoneyConnectorOf(ctx);
  if (!mm) throw new Error('no mobile-money connector is configured in this process; the disbursement waits');
  await runSend(ctx, mm.runtime, String(job.payload.payoutId));
};

const pollJob: JobHandler = async (ctx) => {
  const mm = mobileMoneyConnectorOf(ctx);
  if (!mm) return;
  return runPoll(ctx, mm.runtime);
};

/** The mobile-money connector's definition, from the "mobile-money" section: its jobs send each disbursement and ask the provider about overdue callbacks. */
export const mobileMoney = defineConnector<MobileMoneyConnector>({
  name: 'mobile-money',
  section: 'mobile-money',
  build: (section, deps) => new MobileMoneyConnector(parseMobileMoneyConfig(section, deps.config.env, deps.config.publicBaseUrl), deps.box),
  reasons: MOBILE_MONEY_REASONS,
  jobs: [
    { kind: MOMO_SEND_JOB, handler: sendJob },
    { kind: MOMO_POLL_JOB, handler: pollJob, everyMs: 60_000 },
  ],
  backlog: ['queued', 'processing'],
});
