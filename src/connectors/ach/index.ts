import type { AppContext } from '../../platform/context.js';
import type { CryptoBox } from '../../platform/lib/crypto-box.js';
import { defineConnector } from '../definition.js';
import { connectorJob, connectorOf, HandOverConnector } from '../hand-over.js';
import { ACH_REASONS } from './codes.js';
import { parseAchConfig, type AchConfig } from './config.js';
import { ACH_CUTOFF_JOB, ACH_POLL_JOB, ACH_UPLOAD_JOB, acceptPayouts, releasePayout, runCutoff, runPoll, runUpload, submitErrors, type AchRuntime } from './service.js';
import { achTransportOf } from './transport.js';

/**
 * The ACH connector: US payouts as NACHA files (PPD to individuals, CCD to businesses) to the
 * operator's ODFI over the bank connector's SFTP transport, Same Day or next day by the ODFI's
 * cut-offs and the Federal Reserve's calendar; returns (Addenda 99) and notifications of change
 * (Addenda 98) read back from the ODFI's outbox. A hand-over connector: queued payouts are handed over
 * (`accept`), filed at the cut-off, processing once their file is delivered, paid on their effective
 * date, failed or reverted by a return with its code.
 */
export class AchConnector extends HandOverConnector<AchRuntime> {
  readonly name = 'ach';

  constructor(config: AchConfig, box: CryptoBox) {
    super({ config, box, transport: achTransportOf(config), now: () => new Date() }, { accept: acceptPayouts, release: releasePayout, submitErrors });
  }
}

/** The ACH connector of this process, when the connectors file configures one. */
export const achConnectorOf = (ctx: Pick<AppContext, 'connectors'>) => connectorOf(ctx, AchConnector);

/** The ACH connector's definition, from the "ach" section: its jobs cut files, deliver each, and poll the ODFI's outbox (and settle what is due). */
export const ach = defineConnector<AchConnector>({
  name: 'ach',
  section: 'ach',
  build: (section, deps) => new AchConnector(parseAchConfig(section, deps.config.env), deps.box),
  reasons: ACH_REASONS,
  jobs: [
    { kind: ACH_CUTOFF_JOB, handler: connectorJob(AchConnector, (ctx, rt) => runCutoff(ctx, rt)) },
    { kind: ACH_UPLOAD_JOB, handler: connectorJob(AchConnector, (ctx, rt, job) => runUpload(ctx, rt, String(job.payload.fileId)), 'no ACH connector is configured in this process; the file waits'), delivers: 'file' },
    { kind: ACH_POLL_JOB, handler: connectorJob(AchConnector, (ctx, rt) => runPoll(ctx, rt)), everyMs: 60_000 },
  ],
  backlog: ['queued'],
});
