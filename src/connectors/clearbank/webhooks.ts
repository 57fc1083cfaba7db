import { randomUUID } from 'node:crypto';
import type { AppContext } from '../../platform/context.js';
import { reportPayoutOutcomes, type PayoutOutcome } from '../../domains/payouts/payouts.port.js';
import { CANCELLATION_CODES, failureWords, reasonOf } from './codes.js';
import { recordMovement } from '../../controls/reconciliation/reconciliation.port.js';
import type { Tx } from '../../platform/db/db.js';
import * as repo from './clearbank.repository.js';
import { STATEMENT_MESSAGE_ID, STATEMENT_PAGES_MAX, statementReady } from './statements.js';

/**
 * ClearBank's webhooks as Corridor takes them in: `{ "Type", "Version", "Payload", "Nonce" }`, signed
 * by ClearBank (`DigitalSignature`, verified by the route before this runs). Each is taken in once by
 * its identity, its type and the payload's TransactionId (the Nonce is random per delivery), in the
 * transaction that applies it:
 *
 * - `TransactionSettled`, a debit of one of Corridor's payments: paid;
 * - `TransactionRejected`, a debit of one of Corridor's payments: failed with its CancellationCode in words;
 * - `TransactionSettled` of a credit that is a return (`IsReturn`) naming one of Corridor's payments
 *   by its EndToEndTransactionId (an inbound FPS return): reverted, the funds back once through the
 *   payouts port (a return follows a settlement: one whose settlement webhook is still to come is
 *   paid first, and the late settlement then changes nothing).
 *
 * - `Statements.ReadyForDownload`, a camt.053 statement generated (MessageId, TotalPages): recorded
 *   once by its MessageId and fetched into reconciliation (statements.ts).
 *
 * Each settlement and return applied is also booked in reconciliation's book of the ClearBank
 * account (`statements.bankAccount`), so the day's statement matches it line by line.
 *
 * Anything else that names no payment of Corridor's, or a move its payout can no longer make, is kept
 * as an exception with its reason for the operator, never guessed. A settlement that arrives before
 * Corridor recorded the bank's acceptance of the batch (a crash in between) is answered "not yet": the
 * bank delivers it again.
 */

export interface Webhook {
  Type?: unknown;
  Version?: unknown;
  Payload?: Record<string, unknown>;
  Nonce?: unknown;
}

export type WebhookResult = { outcome: 'applied' | 'unchanged' | 'exception' | 'seen'; reason?: string } | { outcome: 'not_yet'; reason: string };

const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

/** What a settlement or return booked on the ClearBank account, in reconciliation's book of it (no file: a webhook booked it). */
async function book(tx: Tx, bankAccount: string, payment: repo.PaymentRow, kind: 'payout' | 'return', p: Record<string, unknown>, transactionId: string | null): Promise<void> {
  const at = str(p.TimestampModified);
  const day = at && /^\d{4}-\d{2}-\d{2}/.test(at) ? at.slice(0, 10) : new Date().toISOString().slice(0, 10);
  await recordMovement(tx, {
    bank_account: bankAccount,
    file_id: null,
    message_type: 'clearbank.webhook',
    kind,
    direction: kind === 'payout' ? 'debit' : 'credit',
    amount_minor: BigInt(payment.amount_minor),
    currency: 'GBP',
    booking_date: day,
    entry_ref: transactionId,
    end_to_end_id: payment.end_to_end_id,
    object_type: 'payout',
    object_id: payment.payout_id,
  });
}

const STATEMENT_READY = 'Statements.ReadyForDownload';

export async function takeInWebhook(ctx: AppContext, raw: string, hook: Webhook, bankAccount: string): Promise<WebhookResult> {
  const type = str(hook.Type) ?? '';
  const p = hook.Payload ?? {};
  if (type === STATEMENT_READY) return takeInStatementReady(ctx, raw, p);
  const transactionId = str(p.TransactionId) ?? '';
  const identity = `${type}:${transactionId}`;
  const e2e = str(p.EndToEndTransactionId) ?? null;
  return ctx.db.tx(async (tx) => {
    await repo.lockIdentity(tx, identity);
    if (await repo.webhookSeen(tx, identity)) return { outcome: 'seen' };
    const record = async (outcome: 'applied' | 'unchanged' | 'exception', payoutId: string | null, reason: string | null): Promise<WebhookResult> => {
      await repo.insertWebhook(tx, { id: randomUUID(), identity, type, endToEndId: e2e, payoutId, outcome, reason, body: ctx.box.encrypt(raw) });
      return reason ? { outcome, reason } : { outcome };
    };
    if (!transactionId) return record('exception', null, `a ${type || 'webhook'} without TransactionId`);
    if (type !== 'TransactionSettled' && type !== 'TransactionRejected') return record('exception', null, `a ${type || 'webhook'} webhook, which this connector does not take`);
    if (p.Scheme !== undefined && p.Scheme !== 'FasterPayments') return record('exception', null, `a ${type} of scheme ${String(p.Scheme)}, not Faster Payments`);
    const payment = e2e ? await repo.paymentOfEndToEnd(tx, e2e) : undefined;
    if (!payment) return record('exception', null, `a ${type} (${String(p.DebitCreditCode)}) for EndToEndTransactionId ${e2e ?? '(none)'}, which names no payment of Corridor's`);
    const isReturn = p.IsReturn === true || p.IsReturn === 'True' || p.IsReturn === 'true';
    const credit = p.DebitCreditCode === 'Credit';
    if (payment.status === 'batched') return { outcome: 'not_yet', reason: "the bank's answer to the batch is not recorded yet" };
    let outcome: PayoutOutcome;
    let status: repo.PaymentStatus;
    const code = str(p.CancellationCode);
    if (type === 'TransactionSettled' && !credit && !isReturn) {
      // A settlement that arrives after the return of the same payment (delivered out of order) is already counted.
      if (payment.status === 'returned') return record('unchanged', payment.payout_id, null);
      outcome = { payoutId: payment.payout_id, move: 'pay' };
      status = 'settled';
    } else if (type === 'TransactionRejected' && !credit) {
      const reason = reasonOf(code ?? 'OTHR', CANCELLATION_CODES, str(p.CancellationReason));
      outcome = { payoutId: payment.payout_id, move: 'fail', failureReason: failureWords('Rejected by Faster Payments', reason), returnReason: { code: reason.code, description: reason.words } };
      status = 'rejected';
    } else if (type === 'TransactionSettled' && credit && isReturn) {
      const reason = reasonOf(code ?? 'OTHR', CANCELLATION_CODES, str(p.CancellationReason) ?? "the payee's bank returned the payment");
      // A return follows a settlement: one whose settlement webhook has not arrived yet is paid first, then reverted.
      if (payment.status === 'accepted') {
        await reportPayoutOutcomes(ctx, tx, [{ payoutId: payment.payout_id, move: 'pay' }]);
        await book(tx, bankAccount, payment, 'payout', p, payment.transaction_id ?? null);
      }
      outcome = { payoutId: payment.payout_id, move: 'revert', failureReason: failureWords("Returned by the payee's bank", reason), returnReason: { code: reason.code, description: reason.words } };
      status = 'returned';
    } else {
      return record('exception', payment.payout_id, `a ${type} (${String(p.DebitCreditCode)}${isReturn ? ', a return' : ''}) of payment ${payment.end_to_end_id}, which Corridor does not expect`);
    }
    const [result] = await reportPayoutOutcomes(ctx, tx, [outcome]);
    if (!result?.applied) {
      return record(payment.status === status ? 'unchanged' : 'exception', payment.payout_id, payment.status === status ? null : `a ${type} of a payout that is ${result?.status ?? 'unknown'}: nothing moved`);
    }
    await repo.setPaymentStatus(tx, payment.payout_id, status, { reasonCode: code ?? null, transactionId });
    if (status === 'settled') await book(tx, bankAccount, payment, 'payout', p, transactionId);
    if (status === 'returned') await book(tx, bankAccount, payment, 'return', p, transactionId);
    return record('applied', payment.payout_id, null);
  });
}

/** A statement ready for download: taken in once by its MessageId, its fetch queued in the same transaction. */
function takeInStatementReady(ctx: AppContext, raw: string, p: Record<string, unknown>): Promise<WebhookResult> {
  const messageId = str(p.MessageId) ?? '';
  const pages = Number(p.TotalPages);
  const identity = `${STATEMENT_READY}:${messageId}`;
  return ctx.db.tx(async (tx) => {
    await repo.lockIdentity(tx, identity);
    if (await repo.webhookSeen(tx, identity)) return { outcome: 'seen' };
    const record = async (outcome: 'applied' | 'unchanged' | 'exception', reason: string | null): Promise<WebhookResult> => {
      await repo.insertWebhook(tx, { id: randomUUID(), identity, type: STATEMENT_READY, endToEndId: null, payoutId: null, outcome, reason, body: ctx.box.encrypt(raw) });
      return reason ? { outcome, reason } : { outcome };
    };
    if (!STATEMENT_MESSAGE_ID.test(messageId)) return record('exception', `a ${STATEMENT_READY} whose MessageId ${JSON.stringify(messageId)} is not a ClearBank statement id (CAMT053_<date>_<date>_<8 characters>): nothing fetched`);
    if (!Number.isInteger(pages) || pages < 1 || pages > STATEMENT_PAGES_MAX) return record('exception', `a ${STATEMENT_READY} of ${messageId} with TotalPages ${String(p.TotalPages)}, not 1 to ${STATEMENT_PAGES_MAX}: nothing fetched`);
    return record((await statementReady(tx, messageId, pages)) ? 'applied' : 'unchanged', null);
  });
}
