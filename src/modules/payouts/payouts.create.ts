import type { AppContext } from '../../context.js';
import type { Tx } from '../../db/db.js';
import { AppError } from '../../http/errors.js';
import { newId } from '../../lib/ids.js';
import { payoutProviderFor } from '../../providers/index.js';
import { recordEvent } from '../events/events.service.js';
import { consumeQuote } from '../fx/fx.service.js';
import { ledger } from '../ledger/ledger.service.js';
import { payoutEventData, scheduleStep } from './payouts.lifecycle.js';
import * as repo from './payouts.repository.js';
import type { PayoutRow } from './payouts.repository.js';

/** A payout that passed every submit-time check, ready to be funded and stored. */
export interface PreparedPayout {
  workspaceId: string;
  accountId: string;
  clientRef: string;
  currency: string;
  amountMinor: bigint;
  feeMinor: bigint;
  route: string;
  crypto: boolean;
  beneficiaryId: string | null;
  beneficiary: Record<string, unknown>;
  sender: Record<string, unknown> | null;
  quoteId: string | null;
  purpose: string | null;
  reference: string | null;
  metadata: Record<string, string> | null;
}

export const duplicateClientRef = (): AppError =>
  new AppError({ status: 400, message: 'Payout with this client reference already exists' });

const insufficient = (): AppError => new AppError({ status: 400, code: 'INSUFFICIENT_BALANCE', message: 'INSUFFICIENT_BALANCE' });

export type CreateResult = { created: PayoutRow } | { failedForBalance: PayoutRow };

/**
 * Funds and stores one prepared payout in the caller's transaction: the quote consumed (if any),
 * the amount and fee held, the payout row, and its first provider step as a durable job. A fiat
 * payout without a quote that the balance cannot cover is stored as `failed` with its only event,
 * `payout.failed` (the caller answers 400 INSUFFICIENT_BALANCE); a quote-funded or crypto payout
 * the balance cannot cover throws, so nothing is written.
 */
export async function fundAndStore(ctx: AppContext, tx: Tx, p: PreparedPayout): Promise<CreateResult> {
  await repo.lockClientRefs(tx, [p]);
  if (await repo.clientRefExists(tx, p.workspaceId, p.clientRef)) throw duplicateClientRef();
  const id = newId();
  let fundingCurrency = p.currency;
  let fundingMinor = p.amountMinor;
  if (p.quoteId) {
    const quote = await consumeQuote(tx, { workspaceId: p.workspaceId, accountId: p.accountId, quoteId: p.quoteId, intent: 'payout', usedBy: { type: 'payout', id } });
    if (quote.toCurrency !== p.currency || quote.toAmountMinor !== p.amountMinor) {
      throw new AppError({ status: 400, code: 'QUOTE_AMOUNT_MISMATCH', message: 'The quote is locked to another currency or amount than this payout', details: [{ field: 'quoteId', message: 'quoteId is locked to another currency or amount than this payout', code: 'QUOTE_AMOUNT_MISMATCH' }] });
    }
    fundingCurrency = quote.fromCurrency;
    fundingMinor = quote.fromAmountMinor;
  }
  const provider = payoutProviderFor(ctx.config);
  const customer = { customer: p.accountId, workspaceId: p.workspaceId };
  const base = {
    id,
    workspaceId: p.workspaceId,
    accountId: p.accountId,
    clientRef: p.clientRef,
    currency: p.currency,
    amountMinor: p.amountMinor,
    feeMinor: p.feeMinor,
    route: p.route,
    provider: provider.name,
    beneficiaryId: p.beneficiaryId,
    beneficiary: p.beneficiary,
    sender: p.sender,
    quoteId: p.quoteId,
    fundingCurrency,
    fundingMinor,
    purpose: p.purpose,
    reference: p.reference,
    metadata: p.metadata,
  };
  let holds: { hold: string; fee: string | null };
  try {
    holds = await tx.savepoint(async (sp) => {
      const hold = await ledger.hold(sp, {
        debit: customer,
        credit: p.quoteId ? { system: 'fx_desk' } : { system: 'provider_clearing', code: p.route },
        currency: fundingCurrency,
        amountMinor: fundingMinor,
        reference: { type: 'payout', id },
      });
      const fee =
        p.feeMinor > 0n
          ? await ledger.hold(sp, { debit: customer, credit: { system: 'fee_revenue' }, currency: fundingCurrency, amountMinor: p.feeMinor, reference: { type: 'payout', id }, description: 'Payout fee' })
          : null;
      return { hold, fee };
    });
  } catch (err) {
    if (!(err instanceof AppError && err.code === 'INSUFFICIENT_BALANCE')) throw err;
    if (p.quoteId || p.crypto) throw insufficient();
    const failed = await repo.insertPayout(tx, { ...base, status: 'failed', holdTransferId: null, feeTransferId: null, failureReason: 'insufficient_balance' });
    await recordEvent(tx, { workspaceId: p.workspaceId, accountId: accountOf(failed), type: 'payout.failed', data: payoutEventData(failed) });
    return { failedForBalance: failed };
  }
  const row = await repo.insertPayout(tx, { ...base, status: 'queued', holdTransferId: holds.hold, feeTransferId: holds.fee, failureReason: null });
  await scheduleStep(tx, id, provider.firstStepMs());
  return { created: row };
}

const accountOf = (row: PayoutRow): string | undefined => (row.account_id === row.workspace_id ? undefined : row.account_id);

export { insufficient as insufficientBalanceError };
