import type { AppContext } from '../../platform/context.js';
import type { CryptoBox } from '../../platform/lib/crypto-box.js';
import type { RecipientCheck, RecipientCheckRequest } from '../connector.js';
import { connectorOf, HandOverConnector } from '../hand-over.js';
import { PaystackClient } from './client.js';
import type { PaystackConfig } from './config.js';
import { acceptPayouts, releasePayout, resolveRecipient, submitErrors, type PaystackRuntime } from './service.js';

/**
 * The Paystack connector: NGN bank transfers to Nigerian NUBAN accounts (the beneficiary's
 * `crAccount` and `bankCode`) over a Paystack-shaped aggregator's API, which reaches NIBSS Instant
 * Payment. A hand-over connector: a queued payout is handed over (`accept`) and recorded with its
 * reference; its send job creates the transfer recipient once per beneficiary account and the
 * transfer from the provider balance; the outcome comes by Paystack's signed webhooks
 * (`transfer.success`, `transfer.failed`, `transfer.reversed`, paystack.routes.ts), or by verifying the
 * transfer by its reference when no webhook came in time. Its recipient check is NIP's name enquiry
 * (GET /bank/resolve).
 */
export class PaystackConnector extends HandOverConnector<PaystackRuntime> {
  readonly name = 'paystack';
  /** Always offered by this rail. */
  declare readonly verifyRecipient: (request: RecipientCheckRequest) => Promise<RecipientCheck>;

  constructor(config: PaystackConfig, box: CryptoBox) {
    super({ config, box, client: new PaystackClient(config) }, { accept: acceptPayouts, release: releasePayout, submitErrors, verifyRecipient: resolveRecipient });
  }
}

/** The Paystack connector of this process, when the connectors file configures one. */
export const paystackConnectorOf = (ctx: Pick<AppContext, 'connectors'>) => connectorOf(ctx, PaystackConnector);
