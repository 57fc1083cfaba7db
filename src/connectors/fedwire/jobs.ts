import type { JobHandler } from '../../platform/jobs/runner.js';
import { runUpload } from '../bank/bank.port.js';
import { fedwireConnectorOf } from './fedwire.connector.js';
import { pollWireAnswers } from './inbound.js';
import { runWireCutoff } from './outbound.js';

/** `fedwire.cutoff`: cuts the wire files due; runs again while payouts wait. */
export const fedwireCutoffJob: JobHandler = async (ctx) => {
  const fedwire = fedwireConnectorOf(ctx);
  if (!fedwire) return;
  return runWireCutoff(ctx, fedwire.runtime);
};

/** `fedwire.upload`: delivers one recorded wire file (payload: fileId) through the bank connector's upload step: sent once, or found there after a crash. */
export const fedwireUploadJob: JobHandler = async (ctx, job) => {
  const fedwire = fedwireConnectorOf(ctx);
  if (!fedwire) throw new Error('no fedwire connector is configured in this process; the file waits');
  await runUpload(ctx, fedwire.runtime, String(job.payload.fileId));
};

/** `fedwire.poll`: reads the bank's outbox for the wires' answers, then again `pollSeconds` later. */
export const fedwirePollJob: JobHandler = async (ctx) => {
  const fedwire = fedwireConnectorOf(ctx);
  if (!fedwire) return;
  const results = await fedwire.runtime.transport.withOutbox((source) => pollWireAnswers(ctx, fedwire.runtime, source));
  if (results.length > 0) ctx.log.info({ files: results }, 'fedwire: outbox files taken in');
  return new Date(Date.now() + fedwire.runtime.config.pollSeconds * 1000);
};
