import { connectorJob } from '../hand-over.js';
import { BankConnector } from './bank.connector.js';
import { runCutoff, runPoll, runUpload } from './bank.service.js';

/** `bank.cutoff`: cuts a window's files (payload: account, scheme); runs again while payouts wait. */
export const bankCutoffJob = connectorJob(BankConnector, (ctx, rt, job) => runCutoff(ctx, rt, job.payload));

/** `bank.upload`: delivers one recorded file (payload: fileId). */
export const bankUploadJob = connectorJob(BankConnector, (ctx, rt, job) => runUpload(ctx, rt, String(job.payload.fileId)), 'no bank connector is configured in this process; the file waits');

/**
 * `bank.poll`: reads the bank's outbox, then runs again `pollSeconds` later (the recurring schedule
 * only makes sure it exists). Without a bank connector it ends, to be scheduled again.
 */
export const bankPollJob = connectorJob(BankConnector, (ctx, rt) => runPoll(ctx, rt, 'bank'));
