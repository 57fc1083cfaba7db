import { bankConnectorFactory, type BankConnector } from './bank.connector.js';
import { bankCutoffJob, bankPollJob, bankUploadJob } from './bank.jobs.js';
import { BANK_CUTOFF_JOB, BANK_POLL_JOB, BANK_UPLOAD_JOB } from './bank.service.js';
import { defineConnector } from '../definition.js';
import { fileUnacknowledged, statementMissing, statementSequenceGap } from './bank.conditions.js';
import { BANK_REASONS } from './reasons.js';

/**
 * The bank connector: SEPA and SWIFT payouts as pain.001 files over SFTP, and the bank's answers
 * (pain.002, camt.054, pacs.004, camt.053) read back from its outbox, from the "bank" section. Its
 * jobs cut each window's files, deliver each file, and poll the outbox (kept scheduled every minute;
 * the poll itself runs every "bank".pollSeconds). Its backlog is what waits for a file.
 */
export const bank = defineConnector<BankConnector>({
  name: 'bank',
  section: 'bank',
  build: (section, deps) => bankConnectorFactory(section, deps),
  reasons: BANK_REASONS,
  jobs: [
    { kind: BANK_CUTOFF_JOB, handler: bankCutoffJob },
    { kind: BANK_UPLOAD_JOB, handler: bankUploadJob, delivers: 'file' },
    { kind: BANK_POLL_JOB, handler: bankPollJob, everyMs: 60_000 },
  ],
  backlog: ['queued'],
  conditions: [fileUnacknowledged, statementMissing, statementSequenceGap],
});
