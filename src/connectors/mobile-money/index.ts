import type { AppContext } from '../../platform/context.js';
import type { CryptoBox } from '../../platform/lib/crypto-box.js';
import type { RecipientCheck, RecipientCheckRequest } from '../connector.js';
import { defineConnector } from '../definition.js';
import { connectorJob, connectorOf, HandOverConnector } from '../hand-over.js';
import { GsmaClient } from './client.js';
import { MOBILE_MONEY_REASONS } from './codes.js';
import { parseMobileMoneyConfig, type MobileMoneyConfig } from './config.js';
import { callbackRefused, unknownCallback } from './mobile-money.conditions.js';
import { acceptPayouts, MOMO_COLLECT_JOB, MOMO_POLL_JOB, MOMO_SEND_JOB, releasePayout, runPoll, runSend, submitErrors, verifyRecipient, type MomoRuntime } from './service.js';

/**
 * The mobile-money connector (docs/guides/mobile-money.md): payouts to wallets through an operator or
 * aggregator over the GSMA Mobile Money API v1.2. A hand-over connector: a queued payout is handed
 * over (`accept`) with its disbursement request recorded; a job sends it (X-CorrelationID the
 * payout's id), the provider's acceptance makes it processing, and its callback (or, when none comes
 * in time, a poll of the provider) makes it paid, failed with the provider's reason, or reverted.
 * Its recipient check is the provider's account-name lookup. Collections (collections.ts) ask a
 * payer's phone for money with a request to pay (`merchantpay`), sent, called back and polled the same way.
 */
export class MobileMoneyConnector extends HandOverConnector<MomoRuntime> {
  readonly name = 'mobile-money';
  /** Always offered by this rail. */
  declare readonly verifyRecipient: (request: RecipientCheckRequest) => Promise<RecipientCheck>;

  constructor(config: MobileMoneyConfig, box: CryptoBox) {
    const client = new GsmaClient({ baseUrl: config.baseUrl, apiKey: () => box.decrypt(config.apiKey), clientId: config.clientId, timeoutMs: config.requestTimeoutMs });
    super({ config, box, client }, { accept: acceptPayouts, release: releasePayout, submitErrors, verifyRecipient });
  }
}

/** The mobile-money connector of this process, when the connectors file configures one. */
export const mobileMoneyConnectorOf = (ctx: Pick<AppContext, 'connectors'>) => connectorOf(ctx, MobileMoneyConnector);

/** The mobile-money connector's definition, from the "mobile-money" section: its jobs send each disbursement and request to pay, and ask the provider about overdue callbacks; its alerts, callbacks unknown or refused. */
export const mobileMoney = defineConnector<MobileMoneyConnector>({
  name: 'mobile-money',
  section: 'mobile-money',
  build: (section, deps) => new MobileMoneyConnector(parseMobileMoneyConfig(section, deps.config.env, deps.config.publicBaseUrl), deps.box),
  reasons: MOBILE_MONEY_REASONS,
  jobs: [
    {
      kind: MOMO_SEND_JOB,
      handler: connectorJob(MobileMoneyConnector, (ctx, rt, job) => runSend(ctx, rt, 'payout', String(job.payload.payoutId)), 'no mobile-money connector is configured in this process; the disbursement waits'),
    },
    {
      kind: MOMO_COLLECT_JOB,
      handler: connectorJob(MobileMoneyConnector, (ctx, rt, job) => runSend(ctx, rt, 'collection', String(job.payload.depositId)), 'no mobile-money connector is configured in this process; the request to pay waits'),
    },
    { kind: MOMO_POLL_JOB, handler: connectorJob(MobileMoneyConnector, (ctx, rt) => runPoll(ctx, rt)), everyMs: 60_000 },
  ],
  backlog: ['queued', 'processing'],
  conditions: [unknownCallback, callbackRefused],
});
