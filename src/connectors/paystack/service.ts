import { createHash, createHmac, randomUUID, timingSafeEqual } from 'node:crypto';
import type { AppContext } from '../../platform/context.js';
import type { Sql, Tx } from '../../platform/db/db.js';
import { enqueueMany, LIFECYCLE_JOB_ATTEMPTS_MAX } from '../../platform/jobs/queue.js';
import type { CryptoBox } from '../../platform/lib/crypto-box.js';
import type { FieldError } from '../../platform/lib/errors.js';
import { reportPayoutOutcomes, type PayoutOutcome } from '../../domains/payouts/payouts.port.js';
import type { HandedOverPayout, RecipientCheck, RecipientCheckRequest } from '../connector.js';
import type { PaystackClient, PaystackTransfer } from './client.js';
import type { PaystackConfig } from './config.js';
import * as repo from './paystack.repository.js';
import { isBalanceShort, reasonOf } from './reasons.js';
import { dedicatedChargeOf, takeDedicatedCharge } from './dedicated-accounts.js';

export const PAYSTACK_SEND_JOB = 'paystack.send';
export const PAYSTACK_POLL_JOB = 'paystack.poll';

/** What the Paystack connector works with: the validated section, the provider's API, the encryption box. */
export interface PaystackRuntime {
  config: PaystackConfig;
  client: PaystackClient;
  box: CryptoBox;
}

/** What a transfer needs of a payout, sealed in paystack_transfers.instruction. */
export interface PaystackInstruction {
  name: string;
  accountNumber: string;
  bankCode: string;
  currency: string;
}

/** The transfer's reference at Paystack: the payout's id, in the lowercase alphanumeric, `-` and `_` the provider allows. */
export const referenceOf = (payoutId: string): string => `corridor-${payoutId.toLowerCase()}`;

/** The beneficiary's Nigerian account as submitted (catalog bank_account: crAccount, the NUBAN, and bankCode). */
export function nubanOf(beneficiary: Record<string, unknown>): { accountNumber: string; bankCode: string } | undefined {
  const accounts = (beneficiary.accounts ?? []) as { data?: { crAccount?: unknown; bankCode?: unknown } }[];
  const data = accounts.find((a) => typeof a.data?.crAccount === 'string' && typeof a.data.bankCode === 'string')?.data;
  return data ? { accountNumber: String(data.crAccount), bankCode: String(data.bankCode) } : undefined;
}

export function submitErrors(beneficiary: Record<string, unknown>): FieldError[] {
  if (!nubanOf(beneficiary)) return [{ field: 'beneficiary.accounts', message: 'a Paystack transfer needs a Nigerian bank account: crAccount (the NUBAN) and bankCode', code: 'RECIPIENT_DETAILS_INVALID' }];
  return [];
}

const sendJob = (payoutId: string) => ({ kind: PAYSTACK_SEND_JOB, payload: { payoutId }, uniqueKey: `${PAYSTACK_SEND_JOB}:${payoutId}`, maxAttempts: LIFECYCLE_JOB_ATTEMPTS_MAX });

/**
 * Takes payouts in, in the payouts step's transaction: each recorded with its reference (fixed now,
 * before anything leaves) and its sealed instruction, and a send job; one that is not NGN or has no
 * NUBAN is held for the operator.
 */
export async function acceptPayouts(rt: PaystackRuntime, tx: Tx, payouts: readonly HandedOverPayout[]): Promise<void> {
  const rows: repo.NewTransfer[] = payouts.map((p) => {
    const account = nubanOf(p.beneficiary);
    const heldReason = p.currency !== 'NGN' ? `Paystack transfers pay NGN only, not ${p.currency}` : !account ? 'the beneficiary has no Nigerian bank account (crAccount, bankCode)' : null;
    const instruction: PaystackInstruction = { name: String(p.beneficiary.name ?? ''), accountNumber: account?.accountNumber ?? '', bankCode: account?.bankCode ?? '', currency: p.currency };
    return { payoutId: p.id, workspaceId: p.workspaceId, amountMinor: p.amountMinor, reference: referenceOf(p.id), instruction: rt.box.sealJson(instruction), status: heldReason ? 'held' : 'pending', heldReason };
  });
  await repo.insertTransfers(tx, rows);
  await enqueueMany(tx, rows.filter((r) => r.status === 'pending').map((r) => sendJob(r.payoutId)));
}

export function releasePayout(tx: Tx, payoutId: string): Promise<boolean> {
  return repo.releaseTransfer(tx, payoutId);
}

/** The transfer statuses Paystack reports, as what they mean for the payout. */
type Meaning = 'on_its_way' | 'success' | 'failed' | 'reversed';

function meaningOf(status: string): Meaning {
  switch (status) {
    case 'success':
      return 'success';
    case 'failed':
    case 'abandoned':
    case 'rejected':
    case 'blocked':
      return 'failed';
    case 'reversed':
      return 'reversed';
    default:
      // pending, otp, received, queued, processing: Paystack has it, the outcome comes later.
      return 'on_its_way';
  }
}

export type Applied = 'applied' | 'unchanged' | 'exception';

/**
 * Applies what Paystack says of a transfer (its answer to the call, a webhook, a verification), in
 * the caller's transaction, once: the row moves only forward, and the payout moves through the
 * payouts port (compare-and-set, so a repeat or a late report changes nothing). A success pays; a
 * failure fails with the provider's reason in words; a reversal reverts a paid payout (funds back
 * once) or fails one still processing. A transfer whose amount is not the payout's goes to the
 * exceptions, never applied.
 */
export async function applyTransfer(ctx: AppContext, tx: Tx, row: repo.TransferRow, transfer: Pick<PaystackTransfer, 'status' | 'transfer_code' | 'amount' | 'gateway_response'>, source: string): Promise<Applied> {
  if (BigInt(transfer.amount) !== BigInt(row.amount_minor)) {
    await repo.insertException(tx, { id: randomUUID(), source, reference: row.reference, payoutId: row.payout_id, reason: `Paystack reports ${transfer.amount} kobo for the transfer ${row.reference}, the payout is ${row.amount_minor} kobo: nothing applied` });
    return 'exception';
  }
  const meaning = meaningOf(transfer.status);
  const id = row.payout_id;
  const report = async (outcomes: PayoutOutcome[]) => (await reportPayoutOutcomes(ctx, tx, outcomes))[0]?.applied ?? false;
  if (meaning === 'on_its_way') {
    if (!(await repo.markSent(tx, id, transfer.transfer_code))) return 'unchanged';
    await report([{ payoutId: id, move: 'process' }]);
    return 'applied';
  }
  if (meaning === 'success') {
    if (!['pending', 'awaiting_balance', 'sending', 'sent'].includes(row.status)) return 'unchanged';
    await repo.markOutcome(tx, id, 'success', transfer.transfer_code, null);
    await report([{ payoutId: id, move: 'process' }]);
    await report([{ payoutId: id, move: 'pay' }]);
    return 'applied';
  }
  const reason = reasonOf(transfer.gateway_response ?? (meaning === 'reversed' ? 'Transfer reversed' : null));
  const returnReason = { code: reason.code, description: `${reason.words} (${reason.actor} must act)` };
  if (meaning === 'failed') {
    if (!['pending', 'awaiting_balance', 'sending', 'sent'].includes(row.status)) return 'unchanged';
    await repo.markOutcome(tx, id, 'failed', transfer.transfer_code, reason.words);
    await report([{ payoutId: id, move: 'fail', failureReason: `paystack_${reason.code}`, returnReason }]);
    return 'applied';
  }
  if (row.status === 'reversed' || row.status === 'failed' || row.status === 'held' || row.status === 'released') return 'unchanged';
  await repo.markOutcome(tx, id, 'reversed', transfer.transfer_code, reason.words);
  const failureReason = `paystack_${reason.code}`;
  if (!(await report([{ payoutId: id, move: 'revert', failureReason, returnReason }]))) await report([{ payoutId: id, move: 'fail', failureReason, returnReason }]);
  return 'applied';
}

/** Applies a transfer's state to the payout of its reference, in a transaction of its own. */
async function applyByReference(ctx: AppContext, reference: string, transfer: PaystackTransfer, source: string): Promise<Applied> {
  return ctx.db.tx(async (tx) => {
    const row = await repo.findByReference(tx, reference);
    if (!row) return 'unchanged';
    return applyTransfer(ctx, tx, row, transfer, source);
  });
}

/** Fails a payout Paystack refused outright (a definitive 4xx), with the provider's reason in words. */
async function failRefused(ctx: AppContext, row: repo.TransferRow, message: string): Promise<void> {
  const reason = reasonOf(message);
  await ctx.db.tx(async (tx) => {
    const locked = await repo.findTransfer(tx, row.payout_id, true);
    if (!locked || !['pending', 'awaiting_balance', 'sending'].includes(locked.status)) return;
    await repo.markOutcome(tx, row.payout_id, 'failed', null, reason.words);
    await reportPayoutOutcomes(ctx, tx, [{ payoutId: row.payout_id, move: 'fail', failureReason: `paystack_${reason.code}`, returnReason: { code: reason.code, description: `${reason.words} (${reason.actor} must act)` } }]);
  });
}

/** The beneficiary account's transfer recipient: kept from the first time, else created (Paystack answers an existing one for a known account) and kept. */
async function recipientOf(ctx: AppContext, rt: PaystackRuntime, row: repo.TransferRow, ins: PaystackInstruction): Promise<{ code: string } | { refused: string }> {
  const kept = await repo.findRecipient(ctx.db, row.workspace_id, ins.bankCode, ins.accountNumber);
  if (kept) return { code: kept };
  const answer = await rt.client.createRecipient({ name: ins.name, accountNumber: ins.accountNumber, bankCode: ins.bankCode, currency: ins.currency });
  if (answer.kind === 'ambiguous') throw new Error(answer.message);
  if (answer.kind === 'refused') return { refused: answer.message };
  await repo.insertRecipient(ctx.db, row.workspace_id, ins.bankCode, ins.accountNumber, answer.data.recipient_code);
  return { code: answer.data.recipient_code };
}

/** Reads the provider balance and keeps it for the console and the low-balance alert; undefined when Paystack does not answer. */
export async function readBalance(ctx: AppContext, rt: PaystackRuntime): Promise<bigint | undefined> {
  const answer = await rt.client.balance();
  if (answer.kind !== 'ok') return undefined;
  await repo.upsertBalances(ctx.db, answer.data.map((b) => ({ currency: b.currency, balanceMinor: BigInt(b.balance) })), new Date());
  const ngn = answer.data.find((b) => b.currency === 'NGN');
  return ngn ? BigInt(ngn.balance) : 0n;
}

/** The NGN provider balance: read from Paystack now (and kept), else as last read (`stale`); undefined when it was never read. */
export async function ngnBalance(ctx: AppContext, rt: PaystackRuntime): Promise<{ balanceMinor: bigint; readAt: Date; stale: boolean } | undefined> {
  const now = await readBalance(ctx, rt);
  if (now !== undefined) return { balanceMinor: now, readAt: new Date(), stale: false };
  const kept = (await repo.balances(ctx.db)).find((b) => b.currency === 'NGN');
  return kept ? { balanceMinor: BigInt(kept.balance_minor), readAt: kept.read_at, stale: true } : undefined;
}

/**
 * Sends one payout's transfer, exactly once across retries and crashes. The row is marked `sending`
 * before the call; a row found `sending` (a retry, or a worker that died mid-call) is first looked up
 * by its reference, and sent again, identically, only when Paystack has no transfer of it. An
 * ambiguous answer is followed by the same look-up. A payout the provider balance cannot cover waits
 * in the queue (the job runs again after `pollSeconds`), never failed; a definitive refusal fails it
 * with the provider's reason.
 */
export async function runSend(ctx: AppContext, rt: PaystackRuntime, payoutId: string): Promise<Date | undefined> {
  const row = await repo.findTransfer(ctx.db, payoutId);
  if (!row || !['pending', 'awaiting_balance', 'sending'].includes(row.status)) return undefined;
  if (row.status === 'sending') {
    const found = await rt.client.verifyTransfer(row.reference);
    if (found.kind === 'ok') {
      await applyByReference(ctx, row.reference, found.data, 'verify');
      return undefined;
    }
    if (found.kind === 'ambiguous' || found.status !== 404) {
      await repo.recordError(ctx.db, payoutId, found.message);
      throw new Error(`paystack: transfer ${row.reference} could not be looked up: ${found.message}`);
    }
  }
  const ins = rt.box.openJson<PaystackInstruction>(row.instruction);
  const recipient = await recipientOf(ctx, rt, row, ins);
  if ('refused' in recipient) {
    await failRefused(ctx, row, recipient.refused);
    return undefined;
  }
  const later = new Date(Date.now() + rt.config.pollSeconds * 1000);
  const balance = await readBalance(ctx, rt);
  if (balance !== undefined && balance < BigInt(row.amount_minor)) {
    await repo.markAwaitingBalance(ctx.db, payoutId, `the provider balance (${balance} kobo) does not cover ${row.amount_minor} kobo`);
    return later;
  }
  if (!(await repo.markSending(ctx.db, payoutId, recipient.code))) return undefined;
  const sent = await rt.client.initiateTransfer({ amountMinor: BigInt(row.amount_minor), recipient: recipient.code, reference: row.reference, reason: rt.config.narration, currency: ins.currency });
  if (sent.kind === 'ok') {
    await applyByReference(ctx, row.reference, sent.data, 'transfer');
    return undefined;
  }
  if (sent.kind === 'refused' && isBalanceShort(sent.message)) {
    await repo.markAwaitingBalance(ctx.db, payoutId, sent.message);
    return later;
  }
  if (sent.kind === 'refused' && reasonOf(sent.message).code !== 'reference_exists') {
    await failRefused(ctx, row, sent.message);
    return undefined;
  }
  // Ambiguous, or Paystack has this reference already: look before anything else.
  const found = await rt.client.verifyTransfer(row.reference);
  if (found.kind === 'ok') {
    await applyByReference(ctx, row.reference, found.data, 'verify');
    return undefined;
  }
  await repo.recordError(ctx.db, payoutId, sent.message);
  throw new Error(`paystack: transfer ${row.reference} not confirmed: ${sent.message}`);
}

/**
 * The poll: reads the provider balance, and verifies by reference every transfer whose webhook has
 * not come within `webhookWaitSeconds` (and every one left mid-send), applying what Paystack says. A
 * transfer left mid-send that Paystack does not have is sent again by its send job.
 */
export async function runPoll(ctx: AppContext, rt: PaystackRuntime): Promise<Date> {
  await readBalance(ctx, rt);
  for (const row of await repo.dueForVerify(ctx.db, rt.config.webhookWaitSeconds, 200)) {
    const found = await rt.client.verifyTransfer(row.reference);
    if (found.kind === 'ok') await applyByReference(ctx, row.reference, found.data, 'verify');
    else if (found.kind === 'refused' && found.status === 404 && row.status === 'sending') await ctx.db.tx((tx) => enqueueMany(tx, [sendJob(row.payout_id)]));
    else await repo.recordError(ctx.db, row.payout_id, `verify: ${found.message}`);
  }
  return new Date(Date.now() + rt.config.pollSeconds * 1000);
}

/** Whether `signature` is the hex HMAC-SHA512 of the raw body with the secret key, as Paystack signs its webhooks (`x-paystack-signature`). */
export function signatureValid(secretKey: string, rawBody: Buffer, signature: string | undefined): boolean {
  if (!signature || !/^[0-9a-f]{128}$/i.test(signature)) return false;
  const expected = createHmac('sha512', secretKey).update(rawBody).digest();
  return timingSafeEqual(expected, Buffer.from(signature, 'hex'));
}

export type WebhookAnswer = { status: 200; outcome: Applied | 'duplicate' | 'ignored' } | { status: 401 | 400; outcome: 'forged' | 'malformed' };

const TRANSFER_EVENTS: Record<string, string> = { 'transfer.success': 'success', 'transfer.failed': 'failed', 'transfer.reversed': 'reversed' };

/**
 * Takes one webhook in: refused (401, nothing recorded) unless its signature is Paystack's; then
 * recorded by the hash of its raw body, so a repeated delivery is answered 200 and applies nothing;
 * a transfer event moves its payout (`applyTransfer`), one naming a reference Corridor never sent goes
 * to the exceptions; a `charge.success` on a dedicated account becomes a deposit once by its reference
 * (takeDedicatedCharge), or an exception; other events are recorded and left.
 */
export async function takeWebhook(ctx: AppContext, rt: PaystackRuntime, rawBody: Buffer, signature: string | undefined): Promise<WebhookAnswer> {
  if (!signatureValid(rt.config.secretKey, rawBody, signature)) return { status: 401, outcome: 'forged' };
  let body: { event?: unknown; data?: Record<string, unknown> };
  try {
    body = JSON.parse(rawBody.toString('utf8')) as typeof body;
  } catch {
    return { status: 400, outcome: 'malformed' };
  }
  const event = typeof body.event === 'string' ? body.event : '';
  const data = body.data ?? {};
  const reference = typeof data.reference === 'string' ? data.reference : null;
  const sha256 = createHash('sha256').update(rawBody).digest('hex');
  return ctx.db.tx(async (tx): Promise<WebhookAnswer> => {
    const status = TRANSFER_EVENTS[event];
    let outcome: Applied | 'ignored' = 'ignored';
    let unknown = false;
    const charge = event === 'charge.success' ? dedicatedChargeOf(data) : undefined;
    if (charge) {
      outcome = await takeDedicatedCharge(ctx, tx, charge);
    } else if (status && reference) {
      const row = await repo.findByReference(tx, reference);
      if (!row) {
        outcome = 'exception';
        unknown = true;
      } else {
        outcome = await applyTransfer(ctx, tx, row, { status, transfer_code: String(data.transfer_code ?? ''), amount: Number(data.amount), gateway_response: typeof data.gateway_response === 'string' ? data.gateway_response : null }, `webhook ${event}`);
      }
    }
    if (!(await repo.insertWebhook(tx, { sha256, event, reference, outcome }))) throw new DuplicateWebhook();
    if (unknown) {
      await repo.insertException(tx, { id: randomUUID(), source: `webhook ${event}`, reference, payoutId: null, reason: `${event} for the reference ${reference}, which Corridor never sent` });
    }
    return { status: 200, outcome };
  }).catch((err: unknown) => {
    if (err instanceof DuplicateWebhook) return { status: 200 as const, outcome: 'duplicate' as const };
    throw err;
  });
}

/** Thrown inside the webhook's transaction when its body was taken in before: the transaction rolls back, nothing applied twice. */
class DuplicateWebhook extends Error {}

/** NIP name enquiry through Paystack (GET /bank/resolve): the holder's name, not found, or unavailable. */
export async function resolveRecipient(rt: PaystackRuntime, request: RecipientCheckRequest): Promise<RecipientCheck> {
  const account = nubanOf(request.beneficiary);
  if (!account) return { kind: 'account_not_found', reason: 'the beneficiary has no Nigerian bank account (crAccount, bankCode)' };
  const answer = await rt.client.resolveAccount(account.accountNumber, account.bankCode);
  if (answer.kind === 'ok') return { kind: 'account_name', accountName: answer.data.account_name };
  if (answer.kind === 'refused' && answer.status !== 401 && answer.status !== 403) return { kind: 'account_not_found', reason: reasonOf(answer.message).words };
  return { kind: 'unavailable', reason: answer.message };
}

/** The provider balances as last read, for the console. */
export async function balancesOf(sql: Sql): Promise<{ currency: string; balance: string; readAt: Date }[]> {
  return (await repo.balances(sql)).map((b) => {
    const minor = BigInt(b.balance_minor);
    return { currency: b.currency, balance: `${minor / 100n}.${(minor % 100n).toString().padStart(2, '0')}`, readAt: b.read_at };
  });
}

/** The latest webhooks or answers the connector could not apply (unknown references, amount mismatches), newest first. */
export function exceptionsOf(sql: Sql, limit = 50): Promise<repo.ExceptionRow[]> {
  return repo.listExceptions(sql, limit);
}
