import type { JobHandler } from '../../jobs/runner.js';
import { bankConnectorOf } from './bank.connector.js';
import { runCutoff, runUpload } from './bank.service.js';

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
