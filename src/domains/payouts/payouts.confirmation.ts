import type { Readable } from 'node:stream';
import type { AppContext } from '../../platform/context.js';
import { PdfWriter } from '../../platform/lib/pdf.js';
import { getAccount, getWorkspace } from '../accounts/accounts.service.js';
import { getPayout, openedRecipient, payoutData } from './payouts.read.js';
import { findSealedParties } from './payouts.steps.repository.js';

/**
 * A payment confirmation: one payout as a document its payer can send the payee (who paid whom,
 * how much, when, under which reference, and where the payment stands), read from the payout as
 * GET /v1/payouts/{id} answers it and from the recipient and sender recorded at submit.
 */
export interface PayoutConfirmation {
  payoutId: string;
  status: string;
  amount: string;
  currency: string;
  payer: string;
  originator: string | null;
  payee: string;
  payeeAccount: string | null;
  reference: string | null;
  clientRef: string;
  createdAt: string;
  completedAt: string | null;
  failureReason: string | null;
  railReference: string | null;
  operatorName: string;
}

const last4 = (text: unknown): string => (typeof text === 'string' ? text.replace(/\s+/g, '').slice(-4) : '');

/** The account paid, as a payee recognises it without the document giving the whole number away: its kind and last four characters (a chain address in full: it is public). */
export function accountShown(account: Record<string, unknown> | undefined): string | null {
  if (!account) return null;
  const data = (account.data ?? {}) as Record<string, unknown>;
  switch (account.type) {
    case 'iban':
      return `IBAN ending ${last4(data.iban)}`;
    case 'bank_account':
      return `bank account ending ${last4(data.accountNumber ?? data.crAccount)}${typeof data.bankName === 'string' ? ` at ${data.bankName}` : ''}`;
    case 'mobile_money':
      return `mobile money ${typeof data.network === 'string' ? `(${data.network}) ` : ''}number ending ${last4(data.phoneNumber)}`;
    case 'crypto':
      return `${String(data.network ?? 'chain')} address ${String(data.address ?? '')}`;
    default:
      return null;
  }
}

/** A person's or a company's name from a recipient or sender record. */
function nameOf(party: Record<string, unknown> | null | undefined): string | null {
  if (!party) return null;
  if (typeof party.name === 'string' && party.name) return party.name;
  if (typeof party.companyName === 'string' && party.companyName) return party.companyName;
  const person = [party.firstName, party.lastName].filter((p): p is string => typeof p === 'string' && p !== '').join(' ');
  return person || null;
}

/** The confirmation of a workspace's payout; another workspace's payout (or none) is not found. */
export async function payoutConfirmation(ctx: Pick<AppContext, 'db' | 'box' | 'config'>, workspaceId: string, id: string): Promise<PayoutConfirmation> {
  const payout = payoutData(await getPayout(ctx.db, workspaceId, id));
  const workspace = await getWorkspace(ctx.db, workspaceId);
  const subAccount = payout.accountId ? await getAccount(ctx.db, workspaceId, payout.accountId) : undefined;
  const recipient = (await openedRecipient(ctx.db, ctx.box, id)) ?? {};
  const [sealed] = await findSealedParties(ctx.db, [id]);
  const sender = sealed?.sender ? ctx.box.openJson<Record<string, unknown>>(sealed.sender) : null;
  const accounts = (Array.isArray(recipient.accounts) ? recipient.accounts : []) as Record<string, unknown>[];
  return {
    payoutId: payout.id,
    status: payout.status,
    amount: payout.amount,
    currency: payout.currency,
    payer: subAccount ? `${workspace.name} (${subAccount.name})` : workspace.name,
    originator: nameOf(sender),
    payee: nameOf(recipient) ?? 'the beneficiary',
    payeeAccount: accountShown(accounts.find((a) => a.currency === payout.currency) ?? accounts[0]),
    reference: payout.reference ?? null,
    clientRef: payout.clientRef,
    createdAt: payout.createdAt,
    completedAt: payout.completedAt,
    failureReason: payout.failureReason,
    railReference: payout.uetr ? `UETR ${payout.uetr}` : payout.txHash ? `transaction ${payout.txHash}${payout.chain ? ` on ${payout.chain}` : ''}` : null,
    operatorName: ctx.config.operatorName,
  };
}

/** The file name a confirmation is sent under: its clientRef, kept to letters, digits, dot, dash and underscore. */
export const confirmationFileName = (c: PayoutConfirmation): string => `payment-confirmation-${c.clientRef.replace(/[^A-Za-z0-9._-]+/g, '_').slice(0, 100)}.pdf`;

const utc = (iso: string | null): string | null => (iso ? iso.replace('T', ' ').replace(/\.\d+Z$/, ' UTC').replace(/Z$/, ' UTC') : null);

/** Where the payment stands, in a sentence a payee reads. */
function standing(c: PayoutConfirmation): string {
  switch (c.status) {
    case 'paid':
      return `Paid on ${utc(c.completedAt) ?? 'the date above'}: the payment left ${c.operatorName} for the payee's account. Its arrival depends on the receiving bank or provider.`;
    case 'failed':
      return `Not paid: the payment failed${c.failureReason ? ` (${c.failureReason})` : ''}. No money reached the payee through it.`;
    case 'cancelled':
      return 'Not paid: the payment was cancelled before it was sent.';
    default:
      return `Not yet paid: the payment is ${c.status}. This document confirms the instruction; the payment itself is confirmed once its status is paid.`;
  }
}

/** The confirmation as a one-page PDF. */
export function confirmationPdf(c: PayoutConfirmation): Readable {
  const pdf = new PdfWriter({ title: `Payment confirmation ${c.clientRef}`, author: c.operatorName, subject: `Payment from ${c.payer} to ${c.payee}` });
  pdf.title('Payment confirmation', `Issued by ${c.operatorName} on ${utc(new Date().toISOString())}`);
  pdf.facts([
    ['Status', c.status],
    ['Amount', `${c.amount} ${c.currency}`],
    ['Payer', c.payer],
    ['On behalf of', c.originator],
    ['Payee', c.payee],
    ['Payee account', c.payeeAccount],
    ['Reference', c.reference],
    ['Payer reference', c.clientRef],
    ['Date', utc(c.createdAt)],
    ['Paid on', c.status === 'paid' ? utc(c.completedAt) : null],
    ['Rail reference', c.railReference],
    ['Payment id', c.payoutId],
  ]);
  pdf.paragraph(standing(c));
  pdf.end();
  return pdf.stream;
}
