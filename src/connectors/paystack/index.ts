import { defineConnector } from '../definition.js';
import { balanceLow } from './conditions.js';
import { parsePaystackConfig } from './config.js';
import { PaystackConnector } from './connector.js';
import { connectorJob } from '../hand-over.js';
import { PAYSTACK_REASONS } from './reasons.js';
import { PAYSTACK_POLL_JOB, PAYSTACK_SEND_JOB, runPoll, runSend } from './service.js';

export { PaystackConnector, paystackConnectorOf } from './connector.js';

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
    { kind: PAYSTACK_SEND_JOB, handler: connectorJob(PaystackConnector, (ctx, rt, job) => runSend(ctx, rt, String(job.payload.payoutId)), 'no Paystack connector is configured in this process; the transfer waits') },
    { kind: PAYSTACK_POLL_JOB, handler: connectorJob(PaystackConnector, (ctx, rt) => runPoll(ctx, rt)), everyMs: 60_000 },
  ],
  backlog: ['queued'],
  conditions: [balanceLow],
});
