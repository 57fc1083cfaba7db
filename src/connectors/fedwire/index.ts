import { defineConnector } from '../definition.js';
import { fedwireConnectorFactory, type FedwireConnector } from './fedwire.connector.js';
import { fedwireCutoffJob, fedwirePollJob, fedwireUploadJob } from './jobs.js';
import { FEDWIRE_CUTOFF_JOB, FEDWIRE_POLL_JOB, FEDWIRE_UPLOAD_JOB } from './outbound.js';
import { FEDWIRE_REASONS } from './reasons.js';

/**
 * The fedwire connector (docs/guides/fedwire.md): USD wires through the operator's US bank's ISO
 * 20022 channel, from the "fedwire" section. Its jobs cut the wire files, deliver each, and poll the
 * bank's outbox (kept scheduled every minute; the poll itself runs every "fedwire".pollSeconds). Its
 * backlog is what waits for a file.
 */
export const fedwire = defineConnector<FedwireConnector>({
  name: 'fedwire',
  section: 'fedwire',
  build: (section, deps) => fedwireConnectorFactory(section, deps),
  reasons: FEDWIRE_REASONS,
  jobs: [
    { kind: FEDWIRE_CUTOFF_JOB, handler: fedwireCutoffJob },
    { kind: FEDWIRE_UPLOAD_JOB, handler: fedwireUploadJob, delivers: 'file' },
    { kind: FEDWIRE_POLL_JOB, handler: fedwirePollJob, everyMs: 60_000 },
  ],
  backlog: ['queued'],
});
