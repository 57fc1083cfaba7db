import type { AppContext } from '../../context.js';
import type { JobHandler } from '../../jobs/runner.js';
import { BankConnector } from './bank.connector.js';
import { runCutoff, runUpload } from './bank.service.js';

/** The bank connector of this process, when one is configured. */
function bankOf(ctx: AppContext): BankConnector | undefined {
  return ctx.connectors.all().find((c): c is BankConnector => c instanceof BankConnector);
}

/** `bank.cutoff`: cuts a window's files (payload: account, scheme); runs again while payouts wait. */
export const bankCutoffJob: JobHandler = async (ctx, job) => {
  const bank = bankOf(ctx);
  if (!bank) return;
  return runCutoff(ctx, bank.runtime, job.payload);
};

/** `bank.upload`: delivers one recorded file (payload: fileId). */
export const bankUploadJob: JobHandler = async (ctx, job) => {
  const bank = bankOf(ctx);
  if (!bank) throw new Error('no bank connector is configured in this process; the file waits');
  await runUpload(ctx, bank.runtime, String(job.payload.fileId));
};
