import type { AppContext } from '../platform/context.js';
import type { Tx } from '../platform/db/db.js';
import type { Job } from '../platform/jobs/queue.js';
import type { JobHandler } from '../platform/jobs/runner.js';
import type { FieldError } from '../platform/lib/errors.js';
import type { AsyncConnector, Connector, ConnectorStep, HandedOverPayout, RecipientCheck, RecipientCheckRequest, SubmittedTexts } from './connector.js';

/**
 * What a hand-over connector's folder gives it: the service functions its payouts go through, all
 * on the runtime its jobs share (its settings, its keys, its client).
 */
export interface HandOverRail<R> {
  /** Takes queued payouts over in the caller's transaction (records what it will send). */
  accept(runtime: R, tx: Tx, payouts: readonly HandedOverPayout[]): Promise<void>;
  /** Lets go of a payout not yet sent (cancelled, failed by the operator); false once on its way. */
  release(tx: Tx, payoutId: string): Promise<boolean>;
  /** What the rail refuses at submit of a payout it will serve on `rail`, naming each field. */
  submitErrors(beneficiary: Record<string, unknown>, rail: string, payout: SubmittedTexts): FieldError[];
  /** The rail's recipient check, where it offers one (a name enquiry, Confirmation of Payee). */
  verifyRecipient?(runtime: R, request: RecipientCheckRequest): Promise<RecipientCheck>;
}

/**
 * A connector that hands each payout over to its rail (a bank's files, ACH's ODFI, Fedwire through a
 * US bank, ClearBank, a mobile-money operator, Paystack) and then learns its fate from the rail (files,
 * webhooks, callbacks, polls):
 * nothing to step by itself (the first look at once, no next move), and once the provider has a
 * payout it cannot be called back from processing. Each such connector is this class with its name,
 * its runtime and its rail's functions.
 */
export abstract class HandOverConnector<R> implements AsyncConnector {
  abstract readonly name: string;
  readonly async = true as const;
  /** Present only where the rail offers a recipient check: the recipient-check control holds payouts on its presence. */
  readonly verifyRecipient?: (request: RecipientCheckRequest) => Promise<RecipientCheck>;

  protected constructor(
    readonly runtime: R,
    private readonly rail: HandOverRail<R>,
  ) {
    const verify = rail.verifyRecipient;
    if (verify) this.verifyRecipient = (request) => verify(runtime, request);
  }

  firstStepMs(): number {
    return 0;
  }

  /** Once the provider has a payout, it is the provider's: it cannot be cancelled in processing. */
  canCancelProcessing(): boolean {
    return false;
  }

  nextStep(): ConnectorStep {
    return { move: 'none', nextInMs: null };
  }

  accept(tx: Tx, payouts: readonly HandedOverPayout[]): Promise<void> {
    return this.rail.accept(this.runtime, tx, payouts);
  }

  release(tx: Tx, payoutId: string): Promise<boolean> {
    return this.rail.release(tx, payoutId);
  }

  submitErrors(rail: string, beneficiary: Record<string, unknown>, payout: SubmittedTexts): FieldError[] {
    return this.rail.submitErrors(beneficiary, rail, payout);
  }
}

/** A connector class, as `connectorOf` and `connectorJob` take it. */
export type ConnectorClass<C extends Connector> = abstract new (...args: never[]) => C;

/** The connector of that class in this process, when the connectors file configures one. */
export function connectorOf<C extends Connector>(ctx: Pick<AppContext, 'connectors'>, kind: ConnectorClass<C>): C | undefined {
  return ctx.connectors.all().find((c): c is C => c instanceof kind);
}

/**
 * A job of a hand-over connector's, run with its runtime. In a process without that connector, a
 * job that carries one payout's or one file's work waits (it throws `waiting`, the words saying
 * what waits, and is retried with backoff, never dropped); a recurring one (no `waiting`) does nothing.
 */
export function connectorJob<R>(kind: ConnectorClass<HandOverConnector<R>>, run: (ctx: AppContext, runtime: R, job: Job) => Promise<void | Date>, waiting?: string): JobHandler {
  return async (ctx, job) => {
    const connector = connectorOf(ctx, kind);
    if (connector) return run(ctx, connector.runtime, job);
    if (waiting) throw new Error(waiting);
  };
}
