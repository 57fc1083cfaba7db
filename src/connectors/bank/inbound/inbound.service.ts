import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { AppContext } from '../../../platform/context.js';
import type { Sql, Tx } from '../../../platform/db/db.js';
import type { PageRequest } from '../../../platform/db/pagination.js';
import { isUuid, newId } from '../../../platform/lib/ids.js';
import { payoutIdOfUetr } from '../bank.repository.js';
import { formatAmount, formatIsoAmount } from '../../../platform/lib/money.js';
import { creditLimitMinor, INBOUND_CHUNK_ENTRIES_DEFAULT, INBOUND_MAX_FILE_BYTES_DEFAULT, INBOUND_READ_MEMORY_MB_DEFAULT, type BankAccount } from '../bank.config.js';
import { normaliseIban } from '../../../platform/lib/bank-account.js';
import { receiveRailDeposit } from '../../../domains/deposits/deposits.port.js';
import { reportPayoutOutcomes, type OutcomeResult, type PayoutOutcome } from '../../../domains/payouts/payouts.port.js';
import { findAnyPayout, findAnyPayouts } from '../../../domains/payouts/payouts.port.js';
import { recordException, recordMovement, recordMovements, recordStatement, type NewException, type StatementInput } from '../../../controls/reconciliation/reconciliation.port.js';
import { payoutIdOfEndToEndId } from './end-to-end.js';
import * as repo from './inbound.repository.js';
import type { InboundFileRow } from './inbound.repository.js';
import type { InboundSource, WaitingFile } from './inbound.source.js';
import { readInboundFile } from './inbound.reader.js';
import { InboundParseError, type Amount, type Balance, type Entry, type EntryTransaction, type InboundMessage, type Notification, type ReportedAccount, type PaymentReturn, type Reason, type StatementMessage, type StatusReport } from './iso20022.parse.js';
import { describeReason, RETURN_REASONS, STATUS_REASONS, whoActs } from './reason-codes.js';

/*
 * Taking in what the bank sends back. A file is downloaded to a local file (streamed), hashed as a
 * stream and recorded before it is read (its size, its sha256, status 'received'); one larger than the
 * configured limit is quarantined from the listing's size, never downloaded; one that cannot be read
 * is quarantined with the reason, and the files after it go on. Reading is streamed, in a process
 * of its own for all but small files (inbound.reader.ts), so the API answers while a large file is read;
 * each start of a read is counted first, and a file whose reading stopped the process MAX_READ_ATTEMPTS
 * times is quarantined instead of read again. A file read is applied in chunks of `chunkEntries` entries, each chunk ONE
 * transaction with every posting, event and record it makes and the file's progress: a process killed
 * halfway resumes at the first chunk not committed, and each entry is applied exactly once; a credit
 * is also taken once by the booking's own identity (creditIdentity), whichever file or resend brings
 * it. Payout outcomes go through reportPayoutOutcomes, deposits through the deposits port
 * (receiveRailDeposit). An entry that matches nothing lands in the exceptions with its reason and posts nothing.
 * Never a silent post, never a guess.
 */

/** What the inbound side reads of a bank account of the connection (bank.config.ts BankAccount, "bank".accounts in the connectors file). */
export type InboundAccount = Pick<BankAccount, 'id' | 'iban' | 'currency'>;

export interface InboundOptions {
  accounts: readonly InboundAccount[];
  /** The connector's name as payouts carry it (payouts.provider): when set, an answer about another connector's payout is an exception. */
  connector?: string | undefined;
  /**
   * The payouts a pain.001 message (or one payment information block of it) carried, from the bank
   * connector's own record of what it sent: a rejection of a whole message or block fails them all.
   * Without it such a rejection is an exception for the operator.
   */
  payoutsOfMessage?: ((tx: Tx, originalMessageId: string, paymentInfoId: string | undefined) => Promise<string[]>) | undefined;
  /**
   * Holds payouts for the operator with the reason (the bank connector's held queue): a rejection of a
   * whole message or payment information block is the file's problem, not the beneficiaries', so its
   * payouts are held with the bank's code and text, never failed. Without it such a rejection is an
   * exception for the operator only.
   */
  holdPayouts?: ((tx: Tx, payoutIds: readonly string[], reason: string) => Promise<void>) | undefined;
  /** A file larger than this many bytes (as the listing says) is quarantined unread; default INBOUND_MAX_FILE_BYTES_DEFAULT. */
  maxFileBytes?: number | undefined;
  /** The entries applied in one transaction; default INBOUND_CHUNK_ENTRIES_DEFAULT. */
  chunkEntries?: number | undefined;
  /** The heap, in MB, of the process reading a large file; default INBOUND_READ_MEMORY_MB_DEFAULT. */
  readMemoryMb?: number | undefined;
  /** Called when reading a recorded file starts, its attempt counted (a test stops a process here, as a crash would). */
  onReadStart?: ((fileId: string, attempt: number) => Promise<void> | void) | undefined;
  /** Progress of reading a large file in its own process: the bytes read so far. */
  onReadProgress?: ((bytes: number) => void) | undefined;
  /**
   * The message (MsgId) and payment information block a payout was sent in, from the same record:
   * a rejection naming the payout under another message, or one Corridor never sent, fails nothing.
   */
  sentMessageOf?: ((tx: Tx, payoutId: string) => Promise<{ msgId: string; paymentInfoId: string | undefined } | undefined>) | undefined;
  /** The largest credit posted without the operator, by bank account and currency (bank.config.ts creditLimitMinor); the default bound when absent. */
  creditLimit?: ((bankAccount: string | null, currency: string) => bigint) | undefined;
  /**
   * A status report (pain.002) about a message arrived: the bank connector records it as the bank's
   * acknowledgement of the file that carried the message (idempotent: a report read again changes nothing).
   */
  acknowledged?: ((tx: Tx, originalMessageId: string, groupStatus: string | undefined) => Promise<void>) | undefined;
  /**
   * Opens a downloaded file before it is read (the bank connector's PGP: decrypted and its signature
   * verified): the path of the file to read, or why it cannot be read, and the file is quarantined with
   * that reason. The file is recorded by the hash of the bytes as received, before it is opened.
   */
  open?: ((name: string, local: string, folder: string) => Promise<{ path: string } | { refused: string }>) | undefined;
  /**
   * The bank's Verification of Payee result of a payout it was sent (a pain.002 transaction status
   * RCVC, RVMC, RVNM or RVNA): the bank connector keeps it on the payout as its recipient check.
   * Without it the status is read as the bank accepting the payment.
   */
  payeeVerified?: ((tx: Tx, payout: { id: string; workspaceId: string; accountId: string }, verification: PayeeVerification) => Promise<void>) | undefined;
  /**
   * A statement line that matches no movement of the book is also an exception for the operator: for
   * a rail whose bookings reach Corridor by other messages than its files (ClearBank's webhooks), a
   * line nothing booked is a booking Corridor does not expect. Without it such a line stays unmatched
   * on its statement only (the bank connector's camt.054 books what its camt.053 then confirms).
   */
  unmatchedLinesAreExceptions?: boolean | undefined;
  /** Called after each entry of a file is applied, inside its chunk's transaction, with the entry's number in the file (progress; a test kills a process here). */
  onEntry?: ((index: number) => Promise<void> | void) | undefined;
}

/** Reading a recorded file stopped the process this many times (out of memory, killed): it is quarantined instead of read again. */
const MAX_READ_ATTEMPTS = 3;

export type FileResult =
  | { name: string; outcome: 'processed'; fileId: string; messageType: string; entries: number; exceptions: number }
  | { name: string; outcome: 'duplicate'; fileId: string }
  | { name: string; outcome: 'quarantined'; fileId: string; reason: string }
  | { name: string; outcome: 'failed'; fileId: string | undefined; error: string };

/** One file's application: where it writes, what it counted. */
class Run {
  entries = 0;
  exceptions = 0;
  constructor(
    readonly ctx: AppContext,
    readonly tx: Tx,
    readonly fileId: string,
    readonly messageType: string,
    readonly options: InboundOptions,
    /** The units of the file (an entry's transaction, a status, a statement, a return) this chunk applies: from `from` up to, not including, `to`. */
    readonly from = 0,
    readonly to = Number.POSITIVE_INFINITY,
    /** The entries of the file applied by earlier chunks. */
    readonly entriesBefore = 0,
  ) {}

  /** Every unit of the file, counted as the apply functions walk it. */
  units = 0;

  /** The payouts this chunk's entries name, read in one statement before they are applied (prefetch); null: no such payout. */
  private readonly payouts = new Map<string, Payout | null>();

  /** Booked debits of this chunk matched to their payouts, paid together by flushPays (one reportPayoutOutcomes). */
  private pendingPays: { payoutId: string; source: string; amount: Amount; facts: EntryFacts }[] = [];

  /** Reads the named payouts in one statement, so the entries of a chunk do not each read theirs. */
  async prefetch(payoutIds: readonly string[]): Promise<void> {
    const ids = [...new Set(payoutIds)].filter((id) => !this.payouts.has(id));
    if (ids.length === 0) return;
    for (const row of await findAnyPayouts(this.tx, ids)) this.payouts.set(row.id, row);
    for (const id of ids) if (!this.payouts.has(id)) this.payouts.set(id, null);
  }

  /** A payout by id: as prefetched (its amount, currency and connector do not change), else read. */
  async payout(id: string): Promise<Payout | undefined> {
    const known = this.payouts.get(id);
    if (known !== undefined) return known ?? undefined;
    return findAnyPayout(this.tx, id);
  }

  /** A booked debit's payout to pay; one already waiting is paid first, so each report moves a payout once. */
  async pay(pending: { payoutId: string; source: string; amount: Amount; facts: EntryFacts }): Promise<void> {
    if (this.pendingPays.some((p) => p.payoutId === pending.payoutId)) await this.flushPays();
    this.pendingPays.push(pending);
  }

  /**
   * Pays the waiting payouts in one report (their balances locked, moves, postings and events written
   * together), records each one's movement, and makes an exception of each the move did not apply to.
   * Called before anything else of the chunk is applied (a return of a payout comes after its payment)
   * and before the chunk commits.
   */
  async flushPays(): Promise<void> {
    const pays = this.pendingPays;
    if (pays.length === 0) return;
    this.pendingPays = [];
    const results = await reportPayoutOutcomes(this.ctx, this.tx, pays.map((p) => ({ payoutId: p.payoutId, move: 'pay' as const })));
    const movements = [];
    for (const [i, p] of pays.entries()) {
      const result = results[i];
      if (result?.applied) movements.push({ ...movementFacts(p.facts, p.amount), file_id: this.fileId, message_type: p.source, kind: 'payout' as const, direction: 'debit' as const, object_type: 'payout' as const, object_id: p.payoutId });
      else await notApplied(this, p.payoutId, 'pay', result, p.facts);
    }
    await recordMovements(this.tx, movements);
  }

  /** Whether the next unit of the file is this chunk's to apply (earlier chunks applied the ones before). */
  takes(): boolean {
    const n = this.units;
    this.units += 1;
    return n >= this.from && n < this.to;
  }

  /** The connection's account a statement or notification is about: by its IBAN, or by the other id a bank may give it in (`Othr/Id`, some banks write the IBAN there). */
  accountOf(reported: ReportedAccount): InboundAccount | undefined {
    const ids = [reported.iban, reported.otherId].filter((id): id is string => id !== undefined).map(normaliseIban);
    return this.options.accounts.find((a) => ids.includes(normaliseIban(a.iban)));
  }

  /** The one account of the connection in a currency, when there is exactly one. */
  accountInCurrency(currency: string): InboundAccount | undefined {
    const found = this.options.accounts.filter((a) => a.currency === currency);
    return found.length === 1 ? found[0] : undefined;
  }

  async entryDone(): Promise<void> {
    this.entries += 1;
    await this.options.onEntry?.(this.entriesBefore + this.entries);
  }

  async exception(code: string, reason: string, e: Partial<Omit<NewException, 'code' | 'reason' | 'file_id' | 'message_type'>>): Promise<undefined> {
    this.exceptions += 1;
    await recordException(this.tx, {
      file_id: this.fileId,
      message_type: this.messageType,
      code,
      reason,
      bank_account: e.bank_account ?? null,
      entry_ref: e.entry_ref ?? null,
      end_to_end_id: e.end_to_end_id ?? null,
      direction: e.direction ?? null,
      amount_minor: e.amount_minor ?? null,
      currency: e.currency ?? null,
      booking_date: e.booking_date ?? null,
    });
    return undefined;
  }
}

/** What an entry's exception or movement says about it. */
interface EntryFacts {
  bank_account: string | null;
  entry_ref: string | null;
  end_to_end_id: string | null;
  direction: 'debit' | 'credit' | null;
  amount_minor: bigint | null;
  currency: string | null;
  booking_date: string | null;
}

/** How an answer names a payout: its EndToEndId, and the UETR a SWIFT payout carries (a bank may echo either, or only the UETR). */
interface PayoutRef {
  endToEndId: string | undefined;
  uetr?: string | undefined;
}

type Payout = NonNullable<Awaited<ReturnType<typeof findAnyPayout>>>;

/** The payout a reference names: by the EndToEndId Corridor wrote, else by the UETR it wrote on a SWIFT payout. */
async function namedPayout(run: Run, ref: PayoutRef): Promise<Payout | undefined> {
  const byEndToEnd = ref.endToEndId ? payoutIdOfEndToEndId(ref.endToEndId) : undefined;
  const found = byEndToEnd ? await run.payout(byEndToEnd) : undefined;
  if (found || !ref.uetr || !isUuid(ref.uetr.trim())) return found;
  const byUetr = await payoutIdOfUetr(run.tx, ref.uetr.trim().toLowerCase());
  return byUetr ? run.payout(byUetr) : undefined;
}

/**
 * The payout an answer names by its EndToEndId (or UETR), when it agrees with the answer; otherwise the
 * exception (unknown EndToEndId, another connector's payout, an amount or currency differing) and undefined.
 */
async function payoutFor(run: Run, ref: PayoutRef, amount: Amount | undefined, facts: EntryFacts): Promise<Payout | undefined> {
  const endToEndId = ref.endToEndId;
  if (!endToEndId && !ref.uetr) return run.exception('no_end_to_end_id', 'The entry names no EndToEndId nor UETR: it cannot be tied to a payout', facts);
  const payout = await namedPayout(run, { endToEndId, uetr: ref.uetr });
  if (!payout) return run.exception('unknown_end_to_end_id', `No payout has the ${[endToEndId && `EndToEndId ${endToEndId}`, ref.uetr && `UETR ${ref.uetr}`].filter(Boolean).join(' or the ')}`, facts);
  if (run.options.connector && payout.provider !== run.options.connector) {
    return run.exception('other_connector', `Payout ${payout.id} is served by ${payout.provider}, not by ${run.options.connector}`, facts);
  }
  if (amount && amount.currency !== payout.currency) {
    return run.exception('currency_mismatch', `The bank reports ${amount.currency}; payout ${payout.id} is in ${payout.currency}`, facts);
  }
  if (amount && amount.minor !== BigInt(payout.amount_minor)) {
    return run.exception('amount_mismatch', `The bank reports ${amount.text} ${amount.currency}; payout ${payout.id} is ${formatAmount(BigInt(payout.amount_minor), payout.currency)} ${payout.currency}`, facts);
  }
  return payout;
}

/** Reports one payout's outcome; a move the payout's state does not allow is an exception, nothing applied. */
async function report(run: Run, outcome: PayoutOutcome, facts: EntryFacts): Promise<boolean> {
  const [result] = await reportPayoutOutcomes(run.ctx, run.tx, [outcome]);
  if (result?.applied) return true;
  await notApplied(run, outcome.payoutId, outcome.move, result, facts);
  return false;
}

/** A reported move the payout's state did not allow: the operator's exception, nothing applied. */
function notApplied(run: Run, payoutId: string, move: PayoutOutcome['move'], result: OutcomeResult | undefined, facts: EntryFacts): Promise<undefined> {
  return run.exception('payout_state', `Payout ${payoutId} is ${result?.status ?? 'unknown'}: "${move}" does not apply to it`, facts);
}

const reasonText = (r: Reason | undefined) => r?.additionalInfo;

// ---------------------------------------------------------------------------------------------
// pain.002

/** A Verification of Payee status of pain.002 (ISO 20022 external status codes; not an API error code). */
export type VopStatusCode = 'RCVC' | 'RVMC' | 'RVNM' | 'RVNA';

/** What the bank's Verification of Payee found, from a pain.002 transaction status. */
export interface PayeeVerification {
  code: VopStatusCode;
  result: 'match' | 'close_match' | 'no_match' | 'unavailable';
  /** The name the payee's bank holds, when the report gives it (a close match). */
  railName: string | null;
  /** The code and its meaning, and the bank's words. */
  reason: string;
}

/** The Verification of Payee statuses of a pain.002 transaction (the ISO external code set), their results and meanings. */
export const VOP_STATUSES: Readonly<Record<PayeeVerification['code'], { result: PayeeVerification['result']; meaning: string }>> = {
  RCVC: { result: 'match', meaning: "the payee's name matches the account holder's" },
  RVMC: { result: 'close_match', meaning: "the payee's name is close to the account holder's" },
  RVNM: { result: 'no_match', meaning: "the payee's name does not match the account holder's" },
  RVNA: { result: 'unavailable', meaning: "the payee's name could not be checked (the payee's bank did not answer, or the account cannot be checked)" },
};

const isVopStatus = (status: string): status is PayeeVerification['code'] => Object.hasOwn(VOP_STATUSES, status);

function verificationOf(t: StatusReport['transactions'][number], code: PayeeVerification['code']): PayeeVerification {
  const { result, meaning } = VOP_STATUSES[code];
  const bankWords = t.reason?.additionalInfo ? ` (the bank: "${t.reason.additionalInfo}")` : '';
  return { code, result, railName: result === 'close_match' || result === 'no_match' ? (t.creditorName ?? null) : null, reason: `${code}: ${meaning}${bankWords}` };
}

const ACCEPTED = new Set(['ACCP', 'ACSP', 'ACSC', 'ACTC', 'ACWC', 'ACWP', 'ACCC', 'ACFC', 'ACIS', 'PART', 'PDNG', 'RCVD', 'PATC', 'STLD']);

async function rejectPayout(run: Run, payoutId: string, why: Reason | undefined, facts: EntryFacts): Promise<void> {
  const returnReason = describeReason(STATUS_REASONS, why?.code ?? 'NARR', reasonText(why) ?? 'Rejected by the bank without a reason code');
  const bankText = reasonText(why) && why?.code !== 'NARR' ? ` (the bank: "${reasonText(why)}")` : '';
  const failureReason = `Rejected by the bank: ${returnReason.code} ${returnReason.description}${bankText}. ${whoActs(returnReason.code)}`;
  await report(run, { payoutId, move: 'fail', returnReason, failureReason }, facts);
}

async function applyStatusReport(run: Run, m: StatusReport): Promise<void> {
  await run.options.acknowledged?.(run.tx, m.originalMessageId, m.groupStatus);
  const listed = new Set<string>();
  for (const t of m.transactions) {
    listed.add(payoutIdOfEndToEndId(t.endToEndId) ?? t.endToEndId);
    if (!run.takes()) continue;
    const facts: EntryFacts = { bank_account: null, entry_ref: m.originalMessageId, end_to_end_id: t.endToEndId, direction: null, amount_minor: t.amount?.minor ?? null, currency: t.amount?.currency ?? null, booking_date: null };
    if (t.status === 'RJCT') {
      const payout = await payoutFor(run, { endToEndId: t.endToEndId }, t.amount, facts);
      const info = m.paymentInfos.find((p) => p.id === t.paymentInfoId);
      const blockRejected = m.groupStatus === 'RJCT' || info?.status === 'RJCT';
      if (payout && (await sentIn(run, payout.id, m.originalMessageId, t.paymentInfoId, facts))) {
        // A transaction listed under a rejected file or block, with no reason of its own, is held with the block's reason like the others.
        if (blockRejected && !t.reason && run.options.holdPayouts) await holdForBlock(run, m, [payout.id], info?.id, info?.reason ?? m.groupReason, facts);
        else await rejectPayout(run, payout.id, t.reason ?? info?.reason ?? m.groupReason, facts);
      }
    } else if (isVopStatus(t.status)) {
      const payout = run.options.payeeVerified ? await payoutFor(run, { endToEndId: t.endToEndId }, t.amount, facts) : undefined;
      if (payout && (await sentIn(run, payout.id, m.originalMessageId, t.paymentInfoId, facts))) {
        await run.options.payeeVerified?.(run.tx, { id: payout.id, workspaceId: payout.workspace_id, accountId: payout.account_id }, verificationOf(t, t.status));
      }
    } else if (!ACCEPTED.has(t.status)) {
      await run.exception('unknown_status', `Transaction status ${t.status} is not one Corridor reads`, facts);
    }
    await run.entryDone();
  }
  const rejectedBlocks = m.groupStatus === 'RJCT' ? [{ id: undefined, reason: m.groupReason }] : m.paymentInfos.filter((p) => p.status === 'RJCT');
  for (const block of rejectedBlocks) if (run.takes()) await rejectBlock(run, m, block.id, block.reason ?? m.groupReason, listed);
}

/**
 * Whether a payout went to the bank in the message (and block) a rejection names; when not (another
 * message, or one Corridor never sent), the operator's exception, and the payout is left as it is.
 */
async function sentIn(run: Run, payoutId: string, msgId: string, paymentInfoId: string | undefined, facts: EntryFacts): Promise<boolean> {
  if (!run.options.sentMessageOf) return true;
  const sent = await run.options.sentMessageOf(run.tx, payoutId);
  if (sent && sent.msgId === msgId && (paymentInfoId === undefined || paymentInfoId === sent.paymentInfoId)) return true;
  const named = paymentInfoId ? `message ${msgId}, payment information ${paymentInfoId}` : `message ${msgId}`;
  const where = sent ? `it went in message ${sent.msgId}${sent.paymentInfoId ? `, payment information ${sent.paymentInfoId}` : ''}` : 'Corridor sent it in no file the bank received';
  await run.exception('message_mismatch', `The bank rejects payout ${payoutId} in ${named}, but ${where}: nothing was failed; the operator checks with the bank`, facts);
  return false;
}

/** A whole message or payment information block rejected: every payout it carried that the report did not list one by one. */
async function rejectBlock(run: Run, m: StatusReport, paymentInfoId: string | undefined, reason: Reason | undefined, listed: Set<string>): Promise<void> {
  const facts: EntryFacts = { bank_account: null, entry_ref: paymentInfoId ?? m.originalMessageId, end_to_end_id: null, direction: null, amount_minor: null, currency: null, booking_date: null };
  const what = paymentInfoId ? `payment information ${paymentInfoId} of message ${m.originalMessageId}` : `message ${m.originalMessageId}`;
  if (!run.options.payoutsOfMessage) {
    await run.exception('block_rejected', `The bank rejected ${what} (${reason?.code ?? 'no code'}) without listing its payouts; fail them by hand`, facts);
    return;
  }
  const ids = await run.options.payoutsOfMessage(run.tx, m.originalMessageId, paymentInfoId);
  if (ids.length === 0) await run.exception('block_rejected', `The bank rejected ${what}, which Corridor did not send`, facts);
  const unlisted = ids.filter((id) => !listed.has(id));
  if (unlisted.length === 0) return;
  if (run.options.holdPayouts) {
    await holdForBlock(run, m, unlisted, paymentInfoId, reason, facts);
    for (let i = 0; i < unlisted.length; i++) await run.entryDone();
    return;
  }
  for (const id of unlisted) {
    await rejectPayout(run, id, reason, { ...facts, end_to_end_id: id });
    await run.entryDone();
  }
}

/** The bank's code and its own text, as the operator reads them. */
function bankReasonWords(reason: Reason | undefined): string {
  if (!reason) return 'no reason code';
  const described = describeReason(STATUS_REASONS, reason.code, reason.additionalInfo);
  const text = reason.additionalInfo && reason.additionalInfo !== described.description ? ` (the bank: "${reason.additionalInfo}")` : '';
  return `${reason.code} ${described.description}${text}`;
}

/**
 * A whole message or payment information block rejected (the debit account unknown, a control sum
 * wrong, the file's format): the file's problem, not the beneficiaries'. Its payouts are held for the
 * operator with the bank's code and text (they stay processing, their holds in place), and one
 * exception says what happened; the operator puts it right with the bank, then fails them so the workspace sends them again.
 */
async function holdForBlock(run: Run, m: StatusReport, payoutIds: readonly string[], paymentInfoId: string | undefined, reason: Reason | undefined, facts: EntryFacts): Promise<void> {
  const what = paymentInfoId ? `payment information ${paymentInfoId} of message ${m.originalMessageId}` : `message ${m.originalMessageId}`;
  const why = `The bank rejected ${what} as a whole: ${bankReasonWords(reason)}. The file's problem, not the beneficiaries': the payouts are held, not failed; the operator puts it right with the bank, then fails them so the workspace can send them again`;
  await (run.options.holdPayouts as NonNullable<InboundOptions['holdPayouts']>)(run.tx, payoutIds, why);
  await run.exception('block_rejected', `${why} (${payoutIds.length} payout${payoutIds.length === 1 ? '' : 's'} held)`, facts);
}

// ---------------------------------------------------------------------------------------------
// camt.054 (and the money entries of camt.053 share the shape)

const isReturnEntry = (entry: Entry, tx: EntryTransaction) => tx.returnReason !== undefined || /\/RRTN$|\/RPCR$/.test(entry.bankTransactionCode ?? '');

/** The transactions of an entry, each with its amount (a single-transaction entry without TxDtls reads as one). */
function transactionsOf(entry: Entry): (EntryTransaction & { amount: Amount | undefined; ref: string | undefined })[] {
  const txs = entry.transactions.length > 0 ? entry.transactions : [{ endToEndId: undefined, accountServicerRef: undefined, amount: undefined, returnReason: undefined, creditorIban: undefined, debtorIban: undefined, debtorName: undefined, reference: undefined }];
  return txs.map((t) => ({ ...t, amount: t.amount ?? (txs.length === 1 ? entry.amount : undefined), ref: t.accountServicerRef ?? entry.ref }));
}

/** One unit of a notification this chunk applies: a notification that is not read, or one transaction of a booked entry. */
type NotificationUnit =
  | { kind: 'unread'; n: Notification['notifications'][number]; account: InboundAccount | undefined }
  | { kind: 'transaction'; account: InboundAccount; entry: Entry; tx: ReturnType<typeof transactionsOf>[number]; position: number };

async function applyNotification(run: Run, m: Notification): Promise<void> {
  // First this chunk's units, then the payouts their booked debits name read in one statement, then each unit applied.
  const units: NotificationUnit[] = [];
  for (const n of m.notifications) {
    const account = run.accountOf(n.account);
    // Only the connection's accounts are read, each notification on its own: another account's, or one that cannot be read, is one exception, and the others go on.
    if (!account || n.unreadable !== undefined) {
      if (run.takes()) units.push({ kind: 'unread', n, account });
      continue;
    }
    for (const entry of n.entries) {
      for (const [position, tx] of transactionsOf(entry).entries()) if (run.takes()) units.push({ kind: 'transaction', account, entry, tx, position });
    }
  }
  const debited = units.flatMap((u) => (u.kind === 'transaction' && u.entry.direction === 'debit' && u.tx.endToEndId ? [payoutIdOfEndToEndId(u.tx.endToEndId)] : []));
  await run.prefetch(debited.filter((id): id is string => id !== undefined));
  for (const u of units) {
    if (u.kind === 'unread') {
      const { n, account } = u;
      const facts: EntryFacts = { bank_account: account?.id ?? null, entry_ref: n.id, end_to_end_id: null, direction: null, amount_minor: null, currency: n.account.currency ?? null, booking_date: null };
      if (!account) await run.exception('unknown_bank_account', `Notification ${n.id} is about ${n.account.iban ?? n.account.otherId ?? 'an unnamed account'}, which is no bank account of the connection: not read`, facts);
      else await run.exception('unreadable_notification', `Notification ${n.id} of ${account.id} could not be read (${n.unreadable ?? ''}): nothing of it applied; the bank must correct and resend it`, facts);
    } else {
      const { account, entry, tx, position } = u;
      const facts: EntryFacts = { bank_account: account.id, entry_ref: tx.ref ?? null, end_to_end_id: tx.endToEndId ?? null, direction: entry.direction, amount_minor: tx.amount?.minor ?? null, currency: tx.amount?.currency ?? null, booking_date: entry.bookingDate ?? null };
      if (entry.status !== 'BOOK') {
        // Pending or information only: nothing moves until the bank books it.
      } else if (!tx.amount) await run.exception('no_amount', 'A transaction of a batch entry carries no amount', facts);
      else await applyBookedEntry(run, m.kind, entry, tx, tx.amount, facts, creditIdentity(account, entry, tx, position, tx.amount));
    }
    await run.entryDone();
  }
  await run.flushPays();
}

async function applyBookedEntry(run: Run, source: string, entry: Entry, tx: EntryTransaction, amount: Amount, facts: EntryFacts, identity: string | undefined): Promise<void> {
  const returned = isReturnEntry(entry, tx);
  if (entry.direction === 'debit' && !returned && !entry.reversal) return payOut(run, source, tx, amount, facts);
  // Whatever else the entry is may concern a payout paid earlier in the chunk (its return): the payments waiting go first.
  await run.flushPays();
  if (entry.direction === 'credit' && (returned || entry.reversal)) {
    // A return booked in the account's currency of a payout instructed in another matches on the instructed amount, as the debit did.
    const converted = tx.instructedAmount !== undefined && tx.instructedAmount.currency !== amount.currency;
    const ref = { endToEndId: tx.endToEndId, uetr: tx.uetr };
    if (converted) return returnPayout(run, source, ref, tx.instructedAmount as Amount, tx.returnReason, facts, {}, amount);
    return returnPayout(run, source, ref, amount, tx.returnReason, facts, { original: tx.instructedAmount, charges: tx.charges });
  }
  if (entry.direction === 'credit') return deposit(run, source, tx, amount, facts, identity);
  await run.exception('unsupported_entry', 'A debit that reverses or returns an earlier credit: Corridor posts nothing for it; settle it by hand', facts);
}

/**
 * A booked debit: the payout left the account, it is paid. It matches on the amount as instructed
 * (`AmtDtls/InstdAmt`) when the bank gives it, so an FX-funded payout (instructed in USD, debited
 * from a EUR account) matches on its USD amount; the movement books what the bank debited, in the
 * account's currency, so the statement's line finds it. The payouts a chunk pays are paid together
 * (Run.flushPays): a bank's notification books hundreds of payments, each once.
 */
async function payOut(run: Run, source: string, tx: EntryTransaction, amount: Amount, facts: EntryFacts): Promise<void> {
  const payout = await payoutFor(run, { endToEndId: tx.endToEndId, uetr: tx.uetr }, tx.instructedAmount ?? amount, facts);
  if (payout) await run.pay({ payoutId: payout.id, source, amount, facts });
}

const movementFacts = (facts: EntryFacts, amount: Amount) => ({
  bank_account: facts.bank_account,
  amount_minor: amount.minor,
  currency: amount.currency,
  booking_date: facts.booking_date,
  entry_ref: facts.entry_ref,
  end_to_end_id: facts.end_to_end_id,
});

/** What a return says besides the amount that came back: the amount first sent and the charges taken, when it says so. */
interface ReturnDetail {
  original?: Amount | undefined;
  charges?: Amount | undefined;
}

/**
 * The charges a return came back net of, in its currency: the charges it states (ChrgsInf, Chrgs), else
 * the difference between the amount first sent (OrgnlIntrBkSttlmAmt, AmtDtls/InstdAmt) and the amount
 * returned. Zero when it states neither, or the amounts are in other currencies.
 */
function returnCharges(amount: Amount, detail: ReturnDetail): bigint {
  if (detail.charges && detail.charges.currency === amount.currency && detail.charges.minor > 0n) return detail.charges.minor;
  if (detail.original && detail.original.currency === amount.currency && detail.original.minor > amount.minor) return detail.original.minor - amount.minor;
  return 0n;
}

/**
 * Money of a paid payout back on the account (camt.054 return entry, pacs.004): reverted in full to the
 * workspace with the ISO return reason. A return net of the charges the banks took matches on the
 * amount returned plus the charges; the charges are the operator's bank fee (PayoutOutcome.bankChargesMinor),
 * kept on the return's movement beside the net amount the bank booked. Never an amount mismatch.
 */
async function returnPayout(run: Run, source: string, ref: PayoutRef, amount: Amount, why: Reason | undefined, facts: EntryFacts, detail: ReturnDetail = {}, booked: Amount = amount): Promise<void> {
  const charges = returnCharges(amount, detail);
  const gross: Amount = charges > 0n ? { minor: amount.minor + charges, currency: amount.currency, text: formatIsoAmount(amount.minor + charges, amount.currency) } : amount;
  const payout = await payoutFor(run, ref, gross, facts);
  if (!payout) return;
  const returnReason = describeReason(RETURN_REASONS, why?.code ?? 'NARR', reasonText(why) ?? 'Returned by the bank without a reason code');
  const net = charges > 0n ? ` (${amount.text} ${amount.currency} came back, ${formatIsoAmount(charges, amount.currency)} ${amount.currency} taken in bank charges, borne by the operator)` : '';
  const outcome: PayoutOutcome = { payoutId: payout.id, move: 'revert', returnReason, failureReason: `Returned by the beneficiary's bank: ${returnReason.code} ${returnReason.description}${net}`, ...(charges > 0n ? { bankChargesMinor: charges } : {}) };
  if (!(await report(run, outcome, facts))) return;
  await recordMovement(run.tx, { ...movementFacts(facts, booked), file_id: run.fileId, message_type: source, kind: 'return', direction: 'credit', object_type: 'payout', object_id: payout.id, ...(charges > 0n ? { charges_minor: charges } : {}) });
}

/**
 * A booked credit's identity: the booking itself, never one reference alone (banks reuse their
 * references across transactions, and a second notification of a booking may add a transaction
 * reference the first lacked). The account, the entry's own references (AcctSvcrRef and NtryRef)
 * or, when the entry has none, the transaction's AcctSvcrRef, with the transaction's position in the
 * entry, its amount and currency. Without any bank reference a credit cannot be told from its
 * resend: undefined, and it is held for the operator.
 */
export function creditIdentity(account: Pick<BankAccount, 'id'>, entry: Entry, tx: EntryTransaction, position: number, amount: Amount): string | undefined {
  const { accountServicer, entry: entryRef } = entry.references;
  const refs = accountServicer || entryRef ? ['entry', accountServicer ?? '', entryRef ?? ''] : tx.accountServicerRef ? ['transaction', tx.accountServicerRef] : undefined;
  if (!refs) return undefined;
  return JSON.stringify([account.id, 'credit', ...refs, position, amount.currency, amount.minor.toString()]);
}

/** A credit: a deposit into the virtual account whose IBAN (the creditor account) or reference (its id) it names, once per booking. */
async function deposit(run: Run, source: string, tx: EntryTransaction, amount: Amount, facts: EntryFacts, identity: string | undefined): Promise<void> {
  if (!identity) {
    await run.exception('unidentified_credit', 'The credit carries no bank reference (AcctSvcrRef, NtryRef) that tells it from a resend: held, nothing credited. The operator checks it with the bank and credits it by hand', facts);
    return;
  }
  if (!(await repo.takeEntryKey(run.tx, identity, run.fileId))) {
    await run.exception('duplicate_entry', `This booking (bank reference ${facts.entry_ref ?? '(none)'}, ${amount.text} ${amount.currency}) was credited before: nothing posted again`, facts);
    return;
  }
  const limit = run.options.creditLimit?.(facts.bank_account, amount.currency) ?? creditLimitMinor(undefined, facts.bank_account, amount.currency);
  if (amount.minor > limit) {
    await run.exception('amount_over_limit', `A credit of ${amount.text} ${amount.currency} is above the ${formatIsoAmount(limit, amount.currency)} ${amount.currency} a credit to this account may be without the operator (bank maxCredit): nothing was posted; the operator checks it with the bank and posts it by hand if it is real`, facts);
    await repo.releaseEntryKey(run.tx, identity);
    return;
  }
  const landed = await receiveRailDeposit(run.ctx, run.tx, {
    currency: amount.currency,
    amount: formatIsoAmount(amount.minor, amount.currency),
    rail: 'bank_transfer',
    railRef: `bank:${facts.entry_ref ?? newId()}`,
    to: { iban: tx.creditorIban, reference: tx.reference },
  });
  if (!landed.landed) {
    await repo.releaseEntryKey(run.tx, identity);
    if (landed.reason === 'unknown_virtual_account') await run.exception('unknown_virtual_account', landed.message, facts);
    else await run.exception('deposit_refused', `The deposit into virtual account ${landed.virtualAccountId} was refused: ${landed.message}`, facts);
    return;
  }
  await recordMovement(run.tx, { ...movementFacts(facts, amount), file_id: run.fileId, message_type: source, kind: 'deposit', direction: 'credit', object_type: 'deposit', object_id: landed.deposit.id });
}

// ---------------------------------------------------------------------------------------------
// pacs.004 and camt.053

async function applyReturns(run: Run, m: PaymentReturn): Promise<void> {
  for (const r of m.returns) {
    if (!run.takes()) continue;
    const account = run.accountInCurrency(r.amount.currency);
    const facts: EntryFacts = { bank_account: account?.id ?? null, entry_ref: r.returnId ?? null, end_to_end_id: r.endToEndId ?? r.uetr ?? null, direction: 'credit', amount_minor: r.amount.minor, currency: r.amount.currency, booking_date: r.settlementDate ?? null };
    await returnPayout(run, m.kind, { endToEndId: r.endToEndId, uetr: r.uetr }, r.amount, r.reason, facts, { original: r.originalAmount, charges: r.charges });
    await run.entryDone();
  }
}

/**
 * A statement's opening and closing balances, booked ones first: OPBD (or PRCD, the previous
 * closing) and CLBD; a page of a paginated statement opens or closes on an interim booked balance
 * (ITBD); a statement with available balances only (OPAV, CLAV) is reconciled on those. FWAV and
 * ITAV (forward and interim available) never stand for the day's opening or closing.
 */
export function openingAndClosing(balances: readonly Balance[]): { opening: Balance | undefined; closing: Balance | undefined } {
  const of = (type: string) => balances.find((b) => b.type === type);
  const interim = balances.filter((b) => b.type === 'ITBD');
  const booked = of('OPBD') ?? of('PRCD');
  const closed = of('CLBD');
  // Two interim balances: the page opens on the first and closes on the last; one: it stands for whichever booked end is missing.
  const opening = booked ?? (interim.length > 1 || closed ? interim[0] : undefined) ?? of('OPAV');
  const closing = closed ?? (interim.length > 1 || booked ? interim[interim.length - 1] : undefined) ?? of('CLAV');
  return { opening, closing };
}

async function applyStatements(run: Run, m: StatementMessage): Promise<void> {
  for (const s of m.statements) {
    if (!run.takes()) continue;
    const account = run.accountOf(s.account);
    const { opening, closing } = openingAndClosing(s.balances);
    const date = closing?.date ?? s.toDate ?? s.createdAt?.slice(0, 10);
    const facts: EntryFacts = { bank_account: account?.id ?? null, entry_ref: s.id, end_to_end_id: null, direction: null, amount_minor: null, currency: s.account.currency ?? null, booking_date: date ?? null };
    if (!account) await run.exception('unknown_bank_account', `Statement ${s.id} is about ${s.account.iban ?? 'an unnamed account'}, which is no bank account of the connection: not read`, facts);
    else if (s.unreadable !== undefined) await run.exception('unreadable_statement', `Statement ${s.id} of ${account.id} could not be read (${s.unreadable}): not recorded; the bank must correct and resend it`, facts);
    else if (!opening || !closing || !date) await run.exception('statement_incomplete', `Statement ${s.id} lacks an opening balance (OPBD, PRCD, ITBD, OPAV) or a closing one (CLBD, ITBD, CLAV), or its date`, facts);
    else {
      const lines = s.entries.filter((e) => e.status === 'BOOK').flatMap((entry) =>
        (entry.transactions.length > 1 && entry.transactions.every((t) => t.amount) ? transactionsOf(entry) : [{ ...transactionsOf(entry)[0], amount: entry.amount, ref: entry.ref, endToEndId: entry.transactions.length === 1 ? entry.transactions[0]?.endToEndId : undefined }]).map((t) => ({
          entryRef: t.ref,
          endToEndId: t.endToEndId,
          direction: entry.direction,
          amountMinor: (t.amount as Amount).minor,
          currency: (t.amount as Amount).currency,
          bookingDate: entry.bookingDate,
          bankTransactionCode: entry.bankTransactionCode,
          description: entry.description ?? t.reference,
        })),
      );
      const recorded = await recordStatement(run.tx, { fileId: run.fileId, bankAccount: account.id, statementId: s.id, iban: s.account.iban, currency: closing.amount.currency, date, electronicSeq: s.electronicSeq, legalSeq: s.legalSeq, openingMinor: opening.signedMinor, closingMinor: closing.signedMinor, lines });
      if (recorded.duplicate) await run.exception('duplicate_statement', `Statement ${s.id} of ${account.id} was taken in before`, facts);
      else if (run.options.unmatchedLinesAreExceptions) await unexpectedBookings(run, s.id, account, recorded.unmatchedLines);
    }
    await run.entryDone();
  }
}

/** The lines of a statement nothing in the book explains, each an exception naming who must act. */
async function unexpectedBookings(run: Run, statementId: string, account: InboundAccount, lines: StatementInput['lines']): Promise<void> {
  for (const line of lines) {
    const amount = `${formatIsoAmount(line.amountMinor, line.currency)} ${line.currency}`;
    const names = [line.entryRef && `bank reference ${line.entryRef}`, line.endToEndId && `EndToEndId ${line.endToEndId}`, line.description && `"${line.description}"`].filter(Boolean).join(', ');
    await run.exception(
      'unexpected_booking',
      `Statement ${statementId} of ${account.id} books a ${line.direction} of ${amount} (${names || 'no reference'}) that nothing Corridor booked explains (no payout settled or returned by this rail): nothing was posted. The operator finds out with the bank what it is, then matches the line by hand or ignores it with the reason`,
      { bank_account: account.id, entry_ref: line.entryRef ?? null, end_to_end_id: line.endToEndId ?? null, direction: line.direction, amount_minor: line.amountMinor, currency: line.currency, booking_date: line.bookingDate ?? null },
    );
  }
}

const APPLY: { [K in InboundMessage['kind']]: (run: Run, m: Extract<InboundMessage, { kind: K }>) => Promise<void> } = {
  'pain.002': applyStatusReport,
  'camt.054': applyNotification,
  'camt.053': applyStatements,
  'pacs.004': applyReturns,
};

// ---------------------------------------------------------------------------------------------
// Files

const errorText = (err: unknown) => (err instanceof Error ? err.message : String(err));

/** Moves the event loop on: requests are answered between the chunks of a long file. */
const yieldToOthers = () => new Promise<void>((resolve) => setImmediate(resolve));

async function quarantined(ctx: AppContext, name: string, fileId: string, reason: string): Promise<FileResult> {
  ctx.log.warn({ file: name, fileId, reason }, 'bank file quarantined');
  return { name, outcome: 'quarantined', fileId, reason };
}

/** A file over the size limit: recorded from the listing and quarantined, not one byte of it downloaded. */
async function quarantineUnread(ctx: AppContext, file: WaitingFile, limit: number): Promise<FileResult> {
  const reason = `the file is ${file.size} bytes, above the limit of ${limit} bytes ("bank".inbound.maxFileBytes): not read. Ask the bank to split it, or raise the limit`;
  const row = (await repo.findUnreadFile(ctx.db, file.name, file.size)) ?? (await repo.insertFile(ctx.db, { id: newId(), name: file.name, sha256: null, size: file.size, status: 'quarantined', reason }));
  return quarantined(ctx, file.name, (row as InboundFileRow).id, reason);
}

/** The sha256 of a local file, hashed as it streams (never held whole). */
async function sha256Of(file: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const piece of createReadStream(file, { highWaterMark: 1024 * 1024 })) hash.update(piece as Buffer);
  return hash.digest('hex');
}

/**
 * Records a file downloaded from the source before anything else is done with it: the row found by
 * its hash (a file seen before, perhaps left halfway by a process that died), or a new one 'received'.
 */
async function recordFile(ctx: AppContext, name: string, sha256: string, size: number): Promise<{ file: InboundFileRow; fresh: boolean }> {
  const existing = await repo.findFileBySha(ctx.db, sha256);
  if (existing) return { file: existing, fresh: false };
  const inserted = await repo.insertFile(ctx.db, { id: newId(), name, sha256, size, status: 'received', reason: null });
  return inserted ? { file: inserted, fresh: true } : { file: (await repo.findFileBySha(ctx.db, sha256)) as InboundFileRow, fresh: false };
}

/** The reason, when not one statement or notification of a file could be read: the file is quarantined whole, as any file that cannot be read. */
function wholeFileUnreadable(message: InboundMessage): string | undefined {
  const parts = message.kind === 'camt.053' ? message.statements : message.kind === 'camt.054' ? message.notifications : [];
  return parts.length > 0 && parts.every((p) => p.unreadable !== undefined) ? parts[0]?.unreadable : undefined;
}

/** A downloaded file, where it lies and how large it is. */
interface Downloaded {
  path: string;
  size: number;
}

const read = (local: Downloaded, options: InboundOptions) =>
  readInboundFile(local.path, local.size, { memoryMb: options.readMemoryMb ?? INBOUND_READ_MEMORY_MB_DEFAULT, onProgress: options.onReadProgress });

/**
 * Reads a recorded file into its message, or quarantines it with the reason: whatever the reader
 * cannot take (not XML, an impossible date, a field missing, more memory than the reader may use)
 * holds this file only. Each read is counted first, so a file that kills the process while it is
 * read is quarantined after MAX_READ_ATTEMPTS instead of killing it again after every restart.
 */
async function readFile(ctx: AppContext, file: InboundFileRow, fresh: boolean, local: Downloaded, options: InboundOptions): Promise<{ message: InboundMessage } | FileResult> {
  const attempt = fresh ? file.attempts : await repo.countAttempt(ctx.db, file.id);
  const quarantine = async (reason: string, message?: InboundMessage) => {
    await repo.quarantineFile(ctx.db, file.id, reason, message && { type: message.kind, version: message.version, id: message.messageId });
    return quarantined(ctx, file.name, file.id, reason);
  };
  if (attempt > MAX_READ_ATTEMPTS) return quarantine(`reading the file was started ${attempt - 1} times and never finished (the process stopped while reading it): not read again`);
  if (local.size === 0) return quarantine('the file is empty (0 bytes)');
  await options.onReadStart?.(file.id, attempt);
  let message: InboundMessage;
  try {
    message = await read(local, options);
  } catch (err) {
    if (!(err instanceof InboundParseError)) throw err;
    return quarantine(err.message);
  }
  const nothingReadable = wholeFileUnreadable(message);
  if (nothingReadable) return quarantine(nothingReadable, message);
  const earlier = await repo.findMessageFile(ctx.db, message.kind, message.messageId, file.id);
  if (earlier) return quarantine(`message id ${message.messageId} was taken in before, from ${earlier.name}`, message);
  const applying = await repo.startApplying(ctx.db, file.id, { type: message.kind, version: message.version, id: message.messageId });
  if (!applying) return quarantine(`message id ${message.messageId} was taken in meanwhile from another file`, message);
  return { message };
}

/**
 * Applies a read file from its first unapplied chunk: each chunk one transaction, the file's row
 * locked first (a second process applying the same file waits, then goes on from the progress the
 * first committed), its units applied, its progress written. Between chunks the event loop moves on.
 */
async function applyChunks(ctx: AppContext, fileId: string, message: InboundMessage, options: InboundOptions): Promise<FileResult> {
  const size = options.chunkEntries ?? INBOUND_CHUNK_ENTRIES_DEFAULT;
  for (;;) {
    const step = await ctx.db.tx(async (tx) => {
      const file = (await repo.lockFile(tx, fileId)) as InboundFileRow;
      if (file.status !== 'applying') return file;
      const run = new Run(ctx, tx, file.id, message.kind, options, file.units_applied, file.units_applied + size, file.entries);
      await (APPLY[message.kind] as (run: Run, m: InboundMessage) => Promise<void>)(run, message);
      const done = file.units_applied + size >= run.units;
      await repo.chunkApplied(tx, file.id, { units: Math.min(size, run.units - file.units_applied), entries: run.entries, exceptions: run.exceptions, done });
      return { ...file, status: done ? 'processed' : 'applying', entries: file.entries + run.entries, exceptions: file.exceptions + run.exceptions };
    });
    if (step.status === 'processed') return { name: step.name, outcome: 'processed', fileId, messageType: message.kind, entries: step.entries, exceptions: step.exceptions };
    if (step.status !== 'applying') return { name: step.name, outcome: 'duplicate', fileId };
    await yieldToOthers();
  }
}

/** A file that could not be taken in for a reason other than its content (the database away), with its row when it was recorded. */
export class TakeInError extends Error {
  constructor(
    readonly fileId: string | undefined,
    cause: unknown,
  ) {
    super(errorText(cause), { cause });
  }
}

/** Takes in one file of the source: quarantines it, applies it chunk by chunk (or goes on where a stopped process left it), or knows it already. */
export async function takeInFile(ctx: AppContext, source: InboundSource, waiting: WaitingFile, options: InboundOptions): Promise<FileResult> {
  const limit = options.maxFileBytes ?? INBOUND_MAX_FILE_BYTES_DEFAULT;
  if (waiting.size > limit) return quarantineUnread(ctx, waiting, limit);
  const folder = await fs.mkdtemp(path.join(os.tmpdir(), 'corridor-bank-'));
  let fileId: string | undefined;
  try {
    const local = { path: path.join(folder, 'file.xml'), size: 0 };
    await source.download(waiting.name, local.path);
    local.size = (await fs.stat(local.path)).size;
    // The listing may have been made before the bank finished writing: the size downloaded is held to the limit too.
    if (local.size > limit) return await quarantineUnread(ctx, { name: waiting.name, size: local.size }, limit);
    const { file, fresh } = await recordFile(ctx, waiting.name, await sha256Of(local.path), local.size);
    fileId = file.id;
    if (file.status === 'processed' || file.status === 'quarantined') return { name: waiting.name, outcome: 'duplicate', fileId: file.id };
    if (options.open) {
      const opened = await options.open(waiting.name, local.path, folder);
      if ('refused' in opened) {
        await repo.quarantineFile(ctx.db, file.id, opened.refused);
        return await quarantined(ctx, waiting.name, file.id, opened.refused);
      }
      local.path = opened.path;
      local.size = (await fs.stat(local.path)).size;
    }
    if (file.status === 'received') {
      const result = await readFile(ctx, file, fresh, local, options);
      if ('outcome' in result) return result;
      return await applyChunks(ctx, file.id, result.message, options);
    }
    // A file a stopped process left applying halfway: the same bytes (its hash) read into the same units, applied from the first chunk not committed.
    return await applyChunks(ctx, file.id, await read(local, options), options);
  } catch (err) {
    throw new TakeInError(fileId, err);
  } finally {
    await fs.rm(folder, { recursive: true, force: true });
  }
}

/**
 * One look at the bank's outbox: every file waiting, in order, each taken in once and then archived
 * (or quarantined, moved aside). A file that fails for another reason (the database away) is logged
 * and noted on its row, and the files after it are still taken in; it is tried again at the next look.
 */
export function pollInbound(ctx: AppContext, source: InboundSource, options: InboundOptions): Promise<FileResult[]> {
  return takeInEach(ctx, source, (waiting) => takeInFile(ctx, source, waiting, options), (name, fileId, error) => ({ name, outcome: 'failed', fileId, error }));
}

/**
 * The look itself, for any reader of a bank's outbox (this one, the fedwire connector's): each file
 * taken in by `takeIn`, then archived, or quarantined when its outcome says so; one that throws is
 * noted on its row (found by its hash) and logged, `failed` says what to report, and the next goes on.
 */
export async function takeInEach<R extends { outcome: string }>(
  ctx: AppContext,
  source: InboundSource,
  takeIn: (waiting: WaitingFile) => Promise<R>,
  failed: (name: string, fileId: string | undefined, error: string) => R,
): Promise<R[]> {
  const results: R[] = [];
  for (const waiting of await source.list()) {
    let result: R;
    try {
      result = await takeIn(waiting);
    } catch (failure) {
      const { fileId, cause } = failure instanceof TakeInError ? failure : { fileId: undefined, cause: failure };
      if (fileId) await repo.setLastError(ctx.db, fileId, errorText(cause)).catch(() => undefined);
      ctx.log.error({ file: waiting.name, err: cause }, 'bank file could not be taken in; the next files go on, it is tried again at the next look');
      results.push(failed(waiting.name, fileId, errorText(cause)));
      continue;
    }
    results.push(result);
    if (result.outcome === 'quarantined') await source.quarantine?.(waiting.name);
    else await source.archive?.(waiting.name);
  }
  return results;
}

function fileData(f: InboundFileRow) {
  return {
    id: f.id,
    name: f.name,
    sha256: f.sha256,
    bytes: f.size_bytes === null ? null : Number(f.size_bytes),
    messageType: f.message_type,
    messageVersion: f.message_version,
    messageId: f.message_id,
    status: f.status,
    reason: f.reason,
    entries: f.entries,
    exceptions: f.exceptions,
    lastError: f.last_error,
    receivedAt: f.received_at.toISOString(),
  };
}

/** The files taken in, newest first (quarantined ones with their reason). */
export function listInboundFiles(sql: Sql, f: PageRequest & { status?: string | undefined }) {
  return repo.listFiles(sql, f, fileData);
}
