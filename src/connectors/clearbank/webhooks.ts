import { randomUUID } from 'node:crypto';
import type { AppContext } from '../../platform/context.js';
import { reportPayoutOutcomes, type PayoutOutcome } from '../../domains/payouts/payouts.port.js';
import { CANCELLATION_CODES, failureWords, reasonOf } from './codes.js';
import * as repo from './clearbank.repository.js';

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

export async function takeInWebhook(ctx: AppContext, raw: string, hook: Webhook): Promise<WebhookResult> {
  const type = str(hook.Type) ?? '';
  const p = hook.Payload ?? {};
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
      if (payment.status === 'accepted') await reportPayoutOutcomes(ctx, tx, [{ payoutId: payment.payout_id, move: 'pay' }]);
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
    return record('applied', payment.payout_id, null);
  });
}
