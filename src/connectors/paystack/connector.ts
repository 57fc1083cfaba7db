import type { AppContext } from '../../platform/context.js';
import type { Tx } from '../../platform/db/db.js';
import type { CryptoBox } from '../../platform/lib/crypto-box.js';
import type { FieldError } from '../../platform/lib/errors.js';
import type { AsyncConnector, ConnectorStep, HandedOverPayout, RecipientCheck, RecipientCheckRequest } from '../connector.js';
import { PaystackClient } from './client.js';
import type { PaystackConfig } from './config.js';
import { acceptPayouts, releasePayout, resolveRecipient, submitErrors, type PaystackRuntime } from './service.js';

/**
 * The Paystack connector: NGN bank transfers to Nigerian NUBAN accounts (the beneficiary's
 * `crAccount` and `bankCode`) over a Paystack-shaped aggregator's API, which reaches NIBSS Instant
 * Payment. An async connector: a queued payout is handed over (`accept`) and recorded with its
 * reference; its send job creates the transfer recipient once per beneficiary account and the
 * transfer from the provider balance; the outcome comes by Paystack's signed webhooks
 * (`transfer.success`, `transfer.failed`, `transfer.reversed`, paystack.routes.ts), or by verifying the
 * transfer by its reference when no webhook came in time. Its recipient check is NIP's name enquiry
 * (GET /bank/resolve).
 */
export class PaystackConnector implements AsyncConnector {
  readonly name = 'paystack';
  readonly async = true as const;
  readonly runtime: PaystackRuntime;

  constructor(config: PaystackConfig, box: CryptoBox) {
    this.runtime = { config, box, client: new PaystackClient(config) };
  }

  firstStepMs(): number {
    return 0;
  }

  /** Once at Paystack a transfer cannot be called back. */
  canCancelProcessing(): boolean {
    return false;
  }

  nextStep(): ConnectorStep {
    return { move: 'none', nextInMs: null };
  }

  accept(tx: Tx, payouts: readonly HandedOverPayout[]): Promise<void> {
    return acceptPayouts(this.runtime, tx, payouts);
  }

  release(tx: Tx, payoutId: string): Promise<boolean> {
    return releasePayout(tx, payoutId);
  }

  submitErrors(_rail: string, beneficiary: Record<string, unknown>): FieldError[] {
    return submitErrors(beneficiary);
  }

  verifyRecipient(request: RecipientCheckRequest): Promise<RecipientCheck> {
    return resolveRecipient(this.runtime, request);
  }
}

/** The Paystack connector of this process, when the connectors file configures one. */
export function paystackConnectorOf(ctx: Pick<AppContext, 'connectors'>): PaystackConnector | undefined {
  return ctx.connectors.all().find((c): c is PaystackConnector => c instanceof PaystackConnector);
}
