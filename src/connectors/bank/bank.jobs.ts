import type { JobHandler } from '../../platform/jobs/runner.js';
import { bankConnectorOf } from './bank.connector.js';
import { runCutoff, runPoll, runUpload } from './bank.service.js';

/** `bank.cutoff`: cuts a window's files (payload: account, scheme); runs again while payouts wait. */
export const bankCutoffJob: JobHandler = async (ctx, job) => {
  const bank = bankConnectorOf(ctx);
  if (!bank) return;
  return runCutoff(ctx, bank.runtime, job.payload);
};

/** `bank.upload`: delivers one recorded file (payload: fileId). */
export const bankUploadJob: JobHandler = async (ctx, job) => {
  const bank = bankConnectorOf(ctx);
  if (!bank) throw new Error('no bank connector is configured in this process; the file waits');
  await runUpload(ctx, bank.runtime, String(job.payload.fileId));
};

/**
 * `bank.poll`: reads the bank's outbox, then runs again `pollSeconds` later (the recurring schedule
 * only makes sure it exists). Without a bank connector it ends, to be scheduled again.
 */
export const bankPollJob: JobHandler = async (ctx) => {
  const bank = bankConnectorOf(ctx);
  if (!bank) return;
  return runPoll(ctx, bank.runtime, bank.name);
};
