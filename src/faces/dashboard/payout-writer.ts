import type { Static } from 'typebox';
import type { AppContext } from '../../platform/context.js';
import type { Tx } from '../../platform/db/db.js';
import { checkBody } from '../web/body-check.js';
import { capabilityRefusal, type Caller } from '../../domains/accounts/caller.js';
import { PayoutBody } from '../../domains/payouts/payouts.schemas.js';
import { PayoutService, type PayoutView } from '../../domains/payouts/payouts.service.js';

/**
 * A payout made from a page (the payout form, a row of a CSV), exactly as POST /v1/payouts makes
 * one: the route's capability, its body schema, then the one payout pipeline (the service's checks,
 * the balance hold, the ledger transfers, the events), in the caller's transaction.
 */
export class PagePayouts {
  private readonly service: PayoutService;

  constructor(private readonly ctx: AppContext) {
    this.service = new PayoutService(ctx);
  }

  /** The checks that need no write: capability, schema and the service's own checks of the row. Throws the refusal. */
  async check(caller: Caller, body: unknown) {
    const disabled = capabilityRefusal(caller.workspace, 'payouts');
    if (disabled) throw disabled;
    const request = await this.service.check(caller, checkBody<Static<typeof PayoutBody>>(PayoutBody, body));
    if (request.early) throw request.early;
    const row = request.rows[0];
    if (row && row.ok === false) throw row.error;
    return request;
  }

  /** Checks and writes one payout; throws its refusal (the transaction then stores nothing). */
  async create(tx: Tx, caller: Caller, body: unknown): Promise<PayoutView> {
    const request = await this.check(caller, body);
    const [result] = await this.service.createMany(tx, [request]);
    if (!result || result.kind === 'refused') throw result?.error ?? new Error('payout creation answered nothing');
    if (result.kind !== 'created') throw new Error('a single payout answered as a batch');
    return result.payout;
  }
}
