import { randomUUID } from 'node:crypto';
import type { AppContext } from '../../platform/context.js';
import type { Tx } from '../../platform/db/db.js';
import { enqueueMany, LIFECYCLE_JOB_ATTEMPTS_MAX, type NewJob } from '../../platform/jobs/queue.js';
import type { CryptoBox } from '../../platform/lib/crypto-box.js';
import type { FieldError } from '../../platform/lib/errors.js';
import { reportPayoutOutcomes, type PayoutOutcome } from '../../domains/payouts/payouts.port.js';
import type { HandedOverPayout } from '../connector.js';
import { accountErrors, passesModulusCheck, ukAccountOf } from './account.js';
import { BankUnreachable, postSigned } from './client.js';
import { BATCH_ANSWERS, failureWords, reasonOf } from './codes.js';
import type { ClearBankConfig } from './config.js';
import * as repo from './clearbank.repository.js';

export const CLEARBANK_BATCH_JOB = 'clearbank.batch';
export const CLEARBANK_SEND_JOB = 'clearbank.send';
export const FPS_PATH = '/v3/payments/fps';
/** At most this many payments in one request (FPS Initiation API 3.0: `creditTransfers`, 1 to 10). */
export const BATCH_MAX = 10;

export interface ClearBankRuntime {
  config: ClearBankConfig;
  box: CryptoBox;
}

/** What a credit transfer needs of a payout, sealed in clearbank_payments.instruction. */
export interface Instruction {
  name: string;
  sortCode: string;
  accountNumber: string;
  reference: string;
}

/** A payout's end-to-end identification: its id without hyphens (32 characters; the API allows 35). */
export function endToEndIdOf(payoutId: string): string {
  return payoutId.replace(/-/g, '');
}

/** What the connector refuses at submit: not GBP, no UK account, or one failing its modulus check. */
export function submitErrors(beneficiary: Record<string, unknown>): FieldError[] {
  const accounts = (beneficiary.accounts ?? []) as { currency?: unknown }[];
  if (accounts.length > 0 && accounts.every((a) => typeof a.currency === 'string' && a.currency !== 'GBP')) {
    return [{ field: 'beneficiary.accounts', message: 'this route is served by Faster Payments over ClearBank, which pays GBP accounts only', code: 'RECIPIENT_DETAILS_INVALID' }];
  }
  return accountErrors(beneficiary);
}

/** The remittance text a Faster Payment carries: the payer's reference, else the client reference (18 characters reach the payee). */
function referenceOf(p: HandedOverPayout): string {
  return (p.reference ?? p.clientRef).replace(/[^a-zA-Z0-9/\-?:().,'+ ]/g, ' ').trim().slice(0, 35) || 'PAYOUT';
}

const batchJob = (runAt: Date): NewJob => ({ kind: CLEARBANK_BATCH_JOB, payload: {}, runAt, maxAttempts: LIFECYCLE_JOB_ATTEMPTS_MAX });

/**
 * Takes payouts in, in the payouts step's transaction: each is recorded pending with its sealed
 * instruction; one that is not GBP or has no valid UK account is held for the operator. A batching
 * job runs after the section's `batch.maxSeconds`.
 */
export async function acceptPayouts(rt: ClearBankRuntime, tx: Tx, payouts: readonly HandedOverPayout[]): Promise<void> {
  const rows: repo.NewPayment[] = payouts.map((p) => {
    const found = ukAccountOf(p.beneficiary);
    const account = 'account' in found ? found.account : undefined;
    const heldReason =
      p.currency !== 'GBP' ? `Faster Payments pay GBP only, not ${p.currency}` : !account ? found && 'error' in found ? found.error.message : 'no UK account' : !passesModulusCheck(account) ? 'the sort code and account number fail the UK modulus check' : null;
    const instruction: Instruction = { name: String(p.beneficiary.name ?? '').slice(0, 140), sortCode: account?.sortCode ?? '', accountNumber: account?.accountNumber ?? '', reference: referenceOf(p) };
    return { payoutId: p.id, workspaceId: p.workspaceId, amountMinor: p.amountMinor, endToEndId: endToEndIdOf(p.id), instruction: rt.box.sealJson(instruction), status: heldReason ? 'held' : 'pending', heldReason };
  });
  await repo.insertPayments(tx, rows);
  await enqueueMany(tx, [batchJob(new Date(Date.now() + rt.config.batch.maxSeconds * 1000))]);
}

export async function releasePayment(tx: Tx, payoutId: string): Promise<boolean> {
  return (await repo.releasePayment(tx, payoutId)) !== 'in_batch';
}

/** Minor units (pence) as the API's decimal amount. */
function poundsOf(minor: string): number {
  const n = BigInt(minor);
  return Number(`${n / 100n}.${(n % 100n).toString().padStart(2, '0')}`);
}

/** The request body of one batch, as sent (FPS Initiation API 3.0 `BatchCreateCreditTransferRequest`). */
export function batchBody(rt: ClearBankRuntime, batchId: string, rows: readonly repo.PendingRow[]): string {
  const { debtor } = rt.config;
  return JSON.stringify({
    paymentInstructions: [
      {
        debtor: { address: debtor.address },
        paymentInstructionIdentification: endToEndIdOf(batchId),
        paymentTypeCode: 'SIP',
        debtorAccount: { identification: { iban: debtor.iban } },
        creditTransfers: rows.map((row) => {
          const i = rt.box.openJson<Instruction>(row.instruction);
          return {
            paymentIdentification: { instructionIdentification: row.end_to_end_id, endToEndIdentification: row.end_to_end_id },
            amount: { currency: 'GBP', instructedAmount: poundsOf(row.amount_minor) },
            creditor: { name: i.name },
            creditorAccount: { identification: { other: { identification: `${i.sortCode}${i.accountNumber}`, schemeName: { code: 'BBAN' } } } },
            remittanceInformation: { structured: { creditorReferenceInformation: { reference: i.reference } } },
          };
        }),
      },
    ],
  });
}

/**
 * Cuts batches, each in one transaction: the oldest due pending payments, at most 10, become one
 * request, recorded with its X-Request-Id and exact body (sealed) and its send job before anything
 * is sent. Answers when to look again while payments wait.
 */
export async function runBatching(ctx: AppContext, rt: ClearBankRuntime): Promise<Date | undefined> {
  for (;;) {
    const cut = await ctx.db.tx(async (tx) => {
      await repo.lockBatching(tx);
      const rows = await repo.duePayments(tx, BATCH_MAX, rt.config.batch.maxSeconds);
      if (rows.length === 0) return false;
      const id = randomUUID();
      await repo.insertBatch(tx, { id, requestId: randomUUID(), body: rt.box.encrypt(batchBody(rt, id, rows)), payments: rows.length }, rows.map((r) => r.payout_id));
      await enqueueMany(tx, [{ kind: CLEARBANK_SEND_JOB, payload: { batchId: id }, uniqueKey: `${CLEARBANK_SEND_JOB}:${id}`, maxAttempts: LIFECYCLE_JOB_ATTEMPTS_MAX }]);
      return true;
    });
    if (!cut) break;
  }
  const oldest = await repo.oldestPending(ctx.db);
  return oldest ? new Date(Math.max(Date.now(), oldest.getTime() + rt.config.batch.maxSeconds * 1000) + 50) : undefined;
}

interface TransactionAnswer {
  endToEndIdentification?: unknown;
  response?: unknown;
}

function answersOf(body: unknown): TransactionAnswer[] | undefined {
  const list = (body as { transactions?: unknown } | undefined)?.transactions;
  return Array.isArray(list) ? (list as TransactionAnswer[]) : undefined;
}

function problemWords(body: unknown): string {
  const b = (body ?? {}) as { title?: unknown; detail?: unknown; errors?: unknown };
  const parts = [typeof b.title === 'string' ? b.title : '', typeof b.detail === 'string' ? b.detail : '', b.errors ? JSON.stringify(b.errors) : ''].filter(Boolean);
  return parts.join(' ').slice(0, 500) || 'no details given';
}

/**
 * A send job: sends a recorded batch (again, after a crash or a failed attempt: the same body, the
 * same X-Request-Id, which ClearBank answers as the first without paying twice), then in one
 * transaction takes each payment's answer: accepted ones go processing, refused ones fail with the
 * bank's reason in words, and the others of the batch go on. A batch the bank refuses as a whole
 * (a 4xx without per-payment answers) holds its payments for the operator with the bank's words;
 * no answer, a 401/403/404 or a 5xx keeps the batch recorded and the job retries.
 */
export async function runSend(ctx: AppContext, rt: ClearBankRuntime, batchId: string): Promise<void> {
  const batch = await repo.findBatch(ctx.db, batchId);
  if (!batch || batch.status !== 'recorded') return;
  const body = rt.box.decrypt(batch.body);
  let answer;
  try {
    answer = await postSigned(rt.config, rt.config.baseUrl, FPS_PATH, body, batch.request_id);
  } catch (err) {
    await repo.recordBatchError(ctx.db, batchId, err instanceof Error ? err.message : String(err));
    throw err;
  }
  const answers = answersOf(answer.body);
  const retryable = answer.status >= 500 || answer.status === 401 || answer.status === 403 || answer.status === 404 || answer.status === 429 || (answer.status === 202 && !answers);
  if (retryable) {
    const message = `ClearBank answered ${answer.status} to batch ${batchId}: ${problemWords(answer.body)}`;
    await repo.recordBatchError(ctx.db, batchId, message);
    throw new BankUnreachable(message);
  }
  await ctx.db.tx(async (tx) => {
    const locked = await repo.findBatch(tx, batchId, true);
    if (!locked || locked.status !== 'recorded') return;
    const payments = await repo.paymentsOfBatch(tx, batchId);
    const byE2e = new Map((answers ?? []).map((a) => [String(a.endToEndIdentification), String(a.response)]));
    const outcomes: PayoutOutcome[] = [];
    for (const p of payments) {
      if (p.status !== 'batched') continue;
      const response = byE2e.get(p.end_to_end_id);
      if (response === 'Accepted') {
        await repo.setPaymentStatus(tx, p.payout_id, 'accepted', { sent: true });
        outcomes.push({ payoutId: p.payout_id, move: 'process' });
      } else if (response !== undefined) {
        const reason = reasonOf(response, BATCH_ANSWERS);
        await repo.setPaymentStatus(tx, p.payout_id, 'refused', { reasonCode: response });
        outcomes.push({ payoutId: p.payout_id, move: 'fail', failureReason: failureWords('Refused by ClearBank', reason), returnReason: { code: reason.code, description: reason.words } });
      } else {
        const why = answers ? 'ClearBank answered the batch without this payment' : `ClearBank refused the whole batch (${answer.status}): ${problemWords(answer.body)}`;
        await repo.holdPayment(tx, p.payout_id, why);
      }
    }
    await repo.markAnswered(tx, batchId, answer.status);
    await reportPayoutOutcomes(ctx, tx, outcomes);
  });
}
