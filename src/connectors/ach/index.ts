import type { AppContext } from '../../platform/context.js';
import type { Tx } from '../../platform/db/db.js';
import type { JobHandler } from '../../platform/jobs/runner.js';
import type { CryptoBox } from '../../platform/lib/crypto-box.js';
import type { FieldError } from '../../platform/lib/errors.js';
import type { AsyncConnector, ConnectorStep, HandedOverPayout } from '../connector.js';
import { defineConnector } from '../definition.js';
import { ACH_REASONS } from './codes.js';
import { parseAchConfig, type AchConfig } from './config.js';
import { ACH_CUTOFF_JOB, ACH_POLL_JOB, ACH_UPLOAD_JOB, acceptPayouts, releasePayout, runCutoff, runPoll, runUpload, submitErrors, type AchRuntime } from './service.js';
import { achTransportOf } from './transport.js';

/**
 * The ACH connector: US payouts as NACHA files (PPD to individuals, CCD to businesses) to the
 * operator's ODFI over the bank connector's SFTP transport, Same Day or next day by the ODFI's
 * cut-offs and the Federal Reserve's calendar; returns (Addenda 99) and notifications of change
 * (Addenda 98) read back from the ODFI's outbox. An async connector: queued payouts are handed over
 * (`accept`), filed at the cut-off, processing once their file is delivered, paid on their effective
 * date, failed or reverted by a return with its code.
 */
export class AchConnector implements AsyncConnector {
  readonly name = 'ach';
  readonly async = true as const;
  readonly runtime: AchRuntime;

  constructor(config: AchConfig, box: CryptoBox) {
    this.runtime = { config, box, transport: achTransportOf(config), now: () => new Date() };
  }

  firstStepMs(): number {
    return 0;
  }

  /** Once in a file a payout is the ODFI's: it cannot be cancelled in processing. */
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
}

/** The ACH connector of this process, when the connectors file configures one. */
export function achConnectorOf(ctx: Pick<AppContext, 'connectors'>): AchConnector | undefined {
  return ctx.connectors.all().find((c): c is AchConnector => c instanceof AchConnector);
}

const cutoffJob: JobHandler = async (ctx) => {
  const ach = achConnectorOf(ctx);
  if (!ach) return;
  return runCutoff(ctx, ach.runtime);
};

const uploadJob: JobHandler = async (ctx, job) => {
  const ach = achConnectorOf(ctx);
  if (!ach) throw new Error('no ACH connector is configured in this process; the file waits');
  await runUpload(ctx, ach.runtime, String(job.payload.fileId));
};

const pollJob: JobHandler = async (ctx) => {
  const ach = achConnectorOf(ctx);
  if (!ach) return;
  return runPoll(ctx, ach.runtime);
};

/** The ACH connector's definition, from the "ach" section: its jobs cut files, deliver each, and poll the ODFI's outbox (and settle what is due). */
export const ach = defineConnector<AchConnector>({
  name: 'ach',
  section: 'ach',
  build: (section, deps) => new AchConnector(parseAchConfig(section, deps.config.env), deps.box),
  reasons: ACH_REASONS,
  jobs: [
    { kind: ACH_CUTOFF_JOB, handler: cutoffJob },
    { kind: ACH_UPLOAD_JOB, handler: uploadJob, delivers: 'file' },
    { kind: ACH_POLL_JOB, handler: pollJob, everyMs: 60_000 },
  ],
  backlog: ['queued'],
});
