import type { JobHandler } from '../../platform/jobs/runner.js';
import { defineConnector } from '../definition.js';
import { balanceLow } from './conditions.js';
import { parsePaystackConfig } from './config.js';
import { PaystackConnector, paystackConnectorOf } from './connector.js';
import { PAYSTACK_REASONS } from './reasons.js';
import { PAYSTACK_POLL_JOB, PAYSTACK_SEND_JOB, runPoll, runSend } from './service.js';

export { PaystackConnector, paystackConnectorOf } from './connector.js';

const sendJob: JobHandler = async (ctx, job) => {
  const paystack = paystackConnectorOf(ctx);
  if (!paystack) throw new Error('no Paystack connector is configured in this process; the transfer waits');
  return runSend(ctx, paystack.runtime, String(job.payload.payoutId));
};

const pollJob: JobHandler = async (ctx) => {
  const paystack = paystackConnectorOf(ctx);
  if (!paystack) return;
  return runPoll(ctx, paystack.runtime);
};

/**
 * The Paystack connector's definition, from the "paystack" section: a send job per payout, a poll
 * (balance, verification of transfers whose webhook is late), and the low-balance alert.
 */
export const paystack = defineConnector<PaystackConnector>({
  name: 'paystack',
  section: 'paystack',
  build: (section, deps) => new PaystackConnector(parsePaystackConfig(section, deps.config.env), deps.box),
  reasons: PAYSTACK_REASONS,
  jobs: [
    { kind: PAYSTACK_SEND_JOB, handler: sendJob },
    { kind: PAYSTACK_POLL_JOB, handler: pollJob, everyMs: 60_000 },
  ],
  backlog: ['queued'],
  conditions: [balanceLow],
});
