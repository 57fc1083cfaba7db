import { runUpload } from '../bank/bank.port.js';
import { connectorJob } from '../hand-over.js';
import { FedwireConnector } from './fedwire.connector.js';
import { pollWireAnswers } from './inbound.js';
import { runWireCutoff } from './outbound.js';

/** `fedwire.cutoff`: cuts the wire files due; runs again while payouts wait. */
export const fedwireCutoffJob = connectorJob(FedwireConnector, (ctx, rt) => runWireCutoff(ctx, rt));

/** `fedwire.upload`: delivers one recorded wire file (payload: fileId) through the bank connector's upload step: sent once, or found there after a crash. */
export const fedwireUploadJob = connectorJob(FedwireConnector, (ctx, rt, job) => runUpload(ctx, rt, String(job.payload.fileId)), 'no fedwire connector is configured in this process; the file waits');

/** `fedwire.poll`: reads the bank's outbox for the wires' answers, then again `pollSeconds` later. */
export const fedwirePollJob = connectorJob(FedwireConnector, async (ctx, rt) => {
  const results = await rt.transport.withOutbox((source) => pollWireAnswers(ctx, rt, source));
  if (results.length > 0) ctx.log.info({ files: results }, 'fedwire: outbox files taken in');
  return new Date(Date.now() + rt.config.pollSeconds * 1000);
});
