import { createHash } from 'node:crypto';
import type { AppContext } from '../../../context.js';
import type { Sql, Tx } from '../../../db/db.js';
import type { PageRequest } from '../../../db/pagination.js';
import { DomainError } from '../../../lib/errors.js';
import { isUuid, newId } from '../../../lib/ids.js';
import { formatAmount } from '../../../lib/money.js';
import { creditDeposit } from '../../deposits/deposits.service.js';
import { reportPayoutOutcomes, type PayoutOutcome } from '../../payouts/payouts.outcomes.js';
import { findAnyPayout } from '../../payouts/payouts.read.js';
import { depositPostedFrom, recordException, recordMovement, recordStatement, type NewException } from '../../reconciliation/reconciliation.service.js';
import { findVirtualAccountById, findVirtualAccountByIban } from '../../virtual-accounts/virtual-accounts.service.js';
import { creditLimitMinor } from '../bank.config.js';
import { payoutIdOfEndToEndId } from './end-to-end.js';
import * as repo from './inbound.repository.js';
import type { InboundFileRow } from './inbound.repository.js';
import type { InboundSource } from './inbound.source.js';
import { InboundParseError, parseInbound, type Amount, type Entry, type EntryTransaction, type InboundMessage, type Notification, type PaymentReturn, type Reason, type StatementMessage, type StatusReport } from './iso20022.parse.js';
import { describeReason, RETURN_REASONS, STATUS_REASONS } from './reason-codes.js';

/*
 * Taking in what the bank sends back. Each file is applied in ONE transaction with every posting,
 * event and record it makes, the file's row (its sha256, its message id) written first: a file read
 * twice, or a process killed halfway and started again, applies each entry exactly once. Payout
 * outcomes go through reportPayoutOutcomes, deposits through the operator credit's deposit service.
 * An unreadable file is quarantined with the reason; an entry that matches nothing lands in the
 * exceptions with its reason and posts nothing. Never a silent post, never a guess.
 */

/** A bank account of the connection ("bank".accounts in the connectors file). */
export interface BankAccount {
  id: string;
  iban: string;
  bic?: string | undefined;
  name?: string | undefined;
  currency: string;
}

export interface InboundOptions {
  accounts: readonly BankAccount[];
  /** The connector's name as payouts carry it (payouts.provider): when set, an answer about another connector's payout is an exception. */
  connector?: string | undefined;
  /**
   * The payouts a pain.001 message (or one payment information block of it) carried, from the bank
   * connector's own record of what it sent: a rejection of a whole message or block fails them all.
   * Without it such a rejection is an exception for the operator.
   */
  payoutsOfMessage?: ((tx: Tx, originalMessageId: string, paymentInfoId: string | undefined) => Promise<string[]>) | undefined;
  /**
   * The message (MsgId) and payment information block a payout was sent in, from the same record:
   * a rejection naming the payout under another message, or one Corridor never sent, fails nothing.
   */
  sentMessageOf?: ((tx: Tx, payoutId: string) => Promise<{ msgId: string; paymentInfoId: string | undefined } | undefined>) | undefined;
  /** The largest credit posted without the operator, by bank account and currency (bank.config.ts creditLimitMinor); the default bound when absent. */
  creditLimit?: ((bankAccount: string | null, currency: string) => bigint) | undefined;
  /** Called after each entry of a file is applied, inside its transaction (progress; a test kills a process here). */
  onEntry?: ((index: number) => Promise<void> | void) | undefined;
}

export type FileResult =
  | { name: string; outcome: 'processed'; fileId: string; messageType: string; entries: number; exceptions: number }
  | { name: string; outcome: 'duplicate'; fileId: string }
  | { name: string; outcome: 'quarantined'; fileId: string; reason: string };

const normal = (iban: string | undefined) => iban?.replace(/\s+/g, '').toUpperCase();

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
  ) {}

  accountByIban(iban: string | undefined): BankAccount | undefined {
    return iban ? this.options.accounts.find((a) => normal(a.iban) === normal(iban)) : undefined;
  }

  /** The one account of the connection in a currency, when there is exactly one. */
  accountInCurrency(currency: string): BankAccount | undefined {
    const found = this.options.accounts.filter((a) => a.currency === currency);
    return found.length === 1 ? found[0] : undefined;
  }

  async entryDone(): Promise<void> {
    this.entries += 1;
    await this.options.onEntry?.(this.entries);
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

/**
 * The payout an answer names by its EndToEndId, when it agrees with the answer; otherwise the
 * exception (unknown EndToEndId, another connector's payout, an amount or currency differing) and undefined.
 */
async function payoutFor(run: Run, endToEndId: string | undefined, amount: Amount | undefined, facts: EntryFacts): Promise<NonNullable<Awaited<ReturnType<typeof findAnyPayout>>> | undefined> {
  if (!endToEndId) return run.exception('no_end_to_end_id', 'The entry names no EndToEndId: it cannot be tied to a payout', facts);
  const payoutId = payoutIdOfEndToEndId(endToEndId);
  const payout = payoutId ? await findAnyPayout(run.tx, payoutId) : undefined;
  if (!payout) return run.exception('unknown_end_to_end_id', `No payout has the EndToEndId ${endToEndId}`, facts);
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
  await run.exception('payout_state', `Payout ${outcome.payoutId} is ${result?.status ?? 'unknown'}: "${outcome.move}" does not apply to it`, facts);
  return false;
}

const reasonText = (r: Reason | undefined) => r?.additionalInfo;

// ---------------------------------------------------------------------------------------------
// pain.002

const ACCEPTED = new Set(['ACCP', 'ACSP', 'ACSC', 'ACTC', 'ACWC', 'ACWP', 'ACCC', 'ACFC', 'ACIS', 'PART', 'PDNG', 'RCVD', 'PATC', 'STLD']);

async function rejectPayout(run: Run, payoutId: string, why: Reason | undefined, facts: EntryFacts): Promise<void> {
  const returnReason = describeReason(STATUS_REASONS, why?.code ?? 'NARR', reasonText(why) ?? 'Rejected by the bank without a reason code');
  await report(run, { payoutId, move: 'fail', returnReason, failureReason: `Rejected by the bank: ${returnReason.code} ${returnReason.description}` }, facts);
}

async function applyStatusReport(run: Run, m: StatusReport): Promise<void> {
  const listed = new Set<string>();
  for (const t of m.transactions) {
    listed.add(payoutIdOfEndToEndId(t.endToEndId) ?? t.endToEndId);
    const facts: EntryFacts = { bank_account: null, entry_ref: m.originalMessageId, end_to_end_id: t.endToEndId, direction: null, amount_minor: t.amount?.minor ?? null, currency: t.amount?.currency ?? null, booking_date: null };
    if (t.status === 'RJCT') {
      const payout = await payoutFor(run, t.endToEndId, t.amount, facts);
      const info = m.paymentInfos.find((p) => p.id === t.paymentInfoId);
      if (payout && (await sentIn(run, payout.id, m.originalMessageId, t.paymentInfoId, facts))) await rejectPayout(run, payout.id, t.reason ?? info?.reason ?? m.groupReason, facts);
    } else if (!ACCEPTED.has(t.status)) {
      await run.exception('unknown_status', `Transaction status ${t.status} is not one Corridor reads`, facts);
    }
    await run.entryDone();
  }
  const rejectedBlocks = m.groupStatus === 'RJCT' ? [{ id: undefined, reason: m.groupReason }] : m.paymentInfos.filter((p) => p.status === 'RJCT');
  for (const block of rejectedBlocks) await rejectBlock(run, m, block.id, block.reason ?? m.groupReason, listed);
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
  for (const id of ids.filter((id) => !listed.has(id))) {
    await rejectPayout(run, id, reason, { ...facts, end_to_end_id: id });
    await run.entryDone();
  }
}

// ---------------------------------------------------------------------------------------------
// camt.054 (and the money entries of camt.053 share the shape)

const isReturnEntry = (entry: Entry, tx: EntryTransaction) => tx.returnReason !== undefined || /\/RRTN$|\/RPCR$/.test(entry.bankTransactionCode ?? '');

/** The transactions of an entry, each with its amount (a single-transaction entry without TxDtls reads as one). */
function transactionsOf(entry: Entry): (EntryTransaction & { amount: Amount | undefined; ref: string | undefined })[] {
  const txs = entry.transactions.length > 0 ? entry.transactions : [{ endToEndId: undefined, accountServicerRef: undefined, amount: undefined, returnReason: undefined, creditorIban: undefined, debtorIban: undefined, debtorName: undefined, reference: undefined }];
  return txs.map((t) => ({ ...t, amount: t.amount ?? (txs.length === 1 ? entry.amount : undefined), ref: t.accountServicerRef ?? entry.ref }));
}

async function applyNotification(run: Run, m: Notification): Promise<void> {
  for (const n of m.notifications) {
    const account = run.accountByIban(n.account.iban);
    for (const entry of n.entries) {
      for (const tx of transactionsOf(entry)) {
        const facts: EntryFacts = { bank_account: account?.id ?? null, entry_ref: tx.ref ?? null, end_to_end_id: tx.endToEndId ?? null, direction: entry.direction, amount_minor: tx.amount?.minor ?? null, currency: tx.amount?.currency ?? null, booking_date: entry.bookingDate ?? null };
        if (!account) await run.exception('unknown_bank_account', `The notification is about ${n.account.iban ?? n.account.otherId ?? 'an unnamed account'}, which is no bank account of the connection`, facts);
        else if (entry.status !== 'BOOK') {
          // Pending or information only: nothing moves until the bank books it.
        } else if (!tx.amount) await run.exception('no_amount', 'A transaction of a batch entry carries no amount', facts);
        else await applyBookedEntry(run, m.kind, entry, tx, tx.amount, facts);
        await run.entryDone();
      }
    }
  }
}

async function applyBookedEntry(run: Run, source: string, entry: Entry, tx: EntryTransaction, amount: Amount, facts: EntryFacts): Promise<void> {
  const returned = isReturnEntry(entry, tx);
  if (entry.direction === 'debit' && !returned && !entry.reversal) return payOut(run, source, tx, amount, facts);
  if (entry.direction === 'credit' && (returned || entry.reversal)) return returnPayout(run, source, tx.endToEndId, amount, tx.returnReason, facts);
  if (entry.direction === 'credit') return deposit(run, source, tx, amount, facts);
  await run.exception('unsupported_entry', 'A debit that reverses or returns an earlier credit: Corridor posts nothing for it; settle it by hand', facts);
}

/** A booked debit: the payout left the account, it is paid. */
async function payOut(run: Run, source: string, tx: EntryTransaction, amount: Amount, facts: EntryFacts): Promise<void> {
  const payout = await payoutFor(run, tx.endToEndId, amount, facts);
  if (!payout) return;
  if (!(await report(run, { payoutId: payout.id, move: 'pay' }, facts))) return;
  await recordMovement(run.tx, { ...movementFacts(facts, amount), file_id: run.fileId, message_type: source, kind: 'payout', direction: 'debit', object_type: 'payout', object_id: payout.id });
}

const movementFacts = (facts: EntryFacts, amount: Amount) => ({
  bank_account: facts.bank_account,
  amount_minor: amount.minor,
  currency: amount.currency,
  booking_date: facts.booking_date,
  entry_ref: facts.entry_ref,
  end_to_end_id: facts.end_to_end_id,
});

/** Money of a paid payout back on the account (camt.054 return entry, pacs.004): reverted with the ISO return reason. */
async function returnPayout(run: Run, source: string, endToEndId: string | undefined, amount: Amount, why: Reason | undefined, facts: EntryFacts): Promise<void> {
  const payout = await payoutFor(run, endToEndId, amount, facts);
  if (!payout) return;
  const returnReason = describeReason(RETURN_REASONS, why?.code ?? 'NARR', reasonText(why) ?? 'Returned by the bank without a reason code');
  const outcome: PayoutOutcome = { payoutId: payout.id, move: 'revert', returnReason, failureReason: `Returned by the beneficiary's bank: ${returnReason.code} ${returnReason.description}` };
  if (!(await report(run, outcome, facts))) return;
  await recordMovement(run.tx, { ...movementFacts(facts, amount), file_id: run.fileId, message_type: source, kind: 'return', direction: 'credit', object_type: 'payout', object_id: payout.id });
}

/** A credit: a deposit into the virtual account whose IBAN (the creditor account) or reference (its id) it names. */
async function deposit(run: Run, source: string, tx: EntryTransaction, amount: Amount, facts: EntryFacts): Promise<void> {
  if (facts.entry_ref && (await depositPostedFrom(run.tx, facts.bank_account, facts.entry_ref))) {
    await run.exception('duplicate_entry', `A deposit was already posted from the bank's entry ${facts.entry_ref}`, facts);
    return;
  }
  const byIban = tx.creditorIban ? await findVirtualAccountByIban(run.ctx, run.tx, tx.creditorIban, amount.currency) : undefined;
  const byRef = !byIban && tx.reference && isUuid(tx.reference.trim()) ? await findVirtualAccountById(run.tx, tx.reference.trim()) : undefined;
  const account = byIban ?? (byRef?.status === 'active' && byRef.currency === amount.currency && byRef.deactivated_at === null ? byRef : undefined);
  if (!account) {
    await run.exception('unknown_virtual_account', `No active ${amount.currency} virtual account has the IBAN ${tx.creditorIban ?? '(none)'} or the reference ${tx.reference ?? '(none)'}`, facts);
    return;
  }
  const limit = run.options.creditLimit?.(facts.bank_account, amount.currency) ?? creditLimitMinor(undefined, facts.bank_account, amount.currency);
  if (amount.minor > limit) {
    await run.exception('amount_over_limit', `A credit of ${amount.text} ${amount.currency} is above the ${formatAmount(limit, amount.currency)} ${amount.currency} a credit to this account may be without the operator (bank maxCredit): nothing was posted; the operator checks it with the bank and posts it by hand if it is real`, facts);
    return;
  }
  try {
    const row = await creditDeposit(run.tx, { virtualAccountId: account.id, amount: formatAmount(amount.minor, amount.currency), currency: amount.currency, rail: 'bank_transfer', clientRef: `bank:${facts.entry_ref ?? newId()}`.slice(0, 100) });
    await recordMovement(run.tx, { ...movementFacts(facts, amount), file_id: run.fileId, message_type: source, kind: 'deposit', direction: 'credit', object_type: 'deposit', object_id: row.id });
  } catch (err) {
    if (!(err instanceof DomainError)) throw err;
    await run.exception('deposit_refused', `The deposit into virtual account ${account.id} was refused: ${err.message}`, facts);
  }
}

// ---------------------------------------------------------------------------------------------
// pacs.004 and camt.053

async function applyReturns(run: Run, m: PaymentReturn): Promise<void> {
  for (const r of m.returns) {
    const account = run.accountInCurrency(r.amount.currency);
    const facts: EntryFacts = { bank_account: account?.id ?? null, entry_ref: r.returnId ?? null, end_to_end_id: r.endToEndId, direction: 'credit', amount_minor: r.amount.minor, currency: r.amount.currency, booking_date: r.settlementDate ?? null };
    await returnPayout(run, m.kind, r.endToEndId, r.amount, r.reason, facts);
    await run.entryDone();
  }
}

async function applyStatements(run: Run, m: StatementMessage): Promise<void> {
  for (const s of m.statements) {
    const account = run.accountByIban(s.account.iban);
    const opening = s.balances.find((b) => b.type === 'OPBD') ?? s.balances.find((b) => b.type === 'PRCD');
    const closing = s.balances.find((b) => b.type === 'CLBD');
    const date = closing?.date ?? s.toDate ?? s.createdAt?.slice(0, 10);
    const facts: EntryFacts = { bank_account: account?.id ?? null, entry_ref: s.id, end_to_end_id: null, direction: null, amount_minor: null, currency: s.account.currency ?? null, booking_date: date ?? null };
    if (!account) await run.exception('unknown_bank_account', `Statement ${s.id} is about ${s.account.iban ?? 'an unnamed account'}, which is no bank account of the connection`, facts);
    else if (!opening || !closing || !date) await run.exception('statement_incomplete', `Statement ${s.id} lacks an opening (OPBD) or closing (CLBD) balance or its date`, facts);
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
      const recorded = await recordStatement(run.tx, { fileId: run.fileId, bankAccount: account.id, statementId: s.id, iban: s.account.iban, currency: closing.amount.currency, date, openingMinor: opening.signedMinor, closingMinor: closing.signedMinor, lines });
      if (recorded.duplicate) await run.exception('duplicate_statement', `Statement ${s.id} of ${account.id} was taken in before`, facts);
    }
    await run.entryDone();
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

async function quarantine(ctx: AppContext, name: string, sha256: string, reason: string, message?: InboundMessage): Promise<FileResult> {
  const row = await ctx.db.tx((tx) =>
    repo.insertFile(tx, { id: newId(), name, sha256, message_type: message?.kind ?? null, message_version: message?.version ?? null, message_id: message?.messageId ?? null, status: 'quarantined', reason }),
  );
  if (!row) return duplicateOf(ctx.db, name, sha256);
  ctx.log.warn({ file: name, reason }, 'bank file quarantined');
  return { name, outcome: 'quarantined', fileId: row.id, reason };
}

async function duplicateOf(sql: Sql, name: string, sha256: string): Promise<FileResult> {
  const existing = (await repo.findFileBySha(sql, sha256)) as InboundFileRow;
  return { name, outcome: 'duplicate', fileId: existing.id };
}

/** Takes in one file of the source: applies it once in one transaction, or quarantines it, or knows it already. */
export async function takeInFile(ctx: AppContext, source: InboundSource, name: string, options: InboundOptions): Promise<FileResult> {
  const content = await source.read(name);
  const sha256 = createHash('sha256').update(content).digest('hex');
  if (await repo.findFileBySha(ctx.db, sha256)) return duplicateOf(ctx.db, name, sha256);
  let message: InboundMessage;
  try {
    message = parseInbound(content);
  } catch (err) {
    if (!(err instanceof InboundParseError)) throw err;
    return quarantine(ctx, name, sha256, err.message);
  }
  const earlier = await repo.findProcessedMessage(ctx.db, message.kind, message.messageId);
  if (earlier) return quarantine(ctx, name, sha256, `message id ${message.messageId} was taken in before, from ${earlier.name}`, message);
  const result = await ctx.db.tx(async (tx): Promise<FileResult | undefined> => {
    const file = await repo.insertFile(tx, { id: newId(), name, sha256, message_type: message.kind, message_version: message.version, message_id: message.messageId, status: 'processed', reason: null });
    if (!file) return undefined; // another process took it in meanwhile
    const run = new Run(ctx, tx, file.id, message.kind, options);
    await (APPLY[message.kind] as (run: Run, m: InboundMessage) => Promise<void>)(run, message);
    await repo.setCounts(tx, file.id, run.entries, run.exceptions);
    return { name, outcome: 'processed', fileId: file.id, messageType: message.kind, entries: run.entries, exceptions: run.exceptions };
  });
  return result ?? (await repo.findFileBySha(ctx.db, sha256) ? duplicateOf(ctx.db, name, sha256) : quarantine(ctx, name, sha256, `message id ${message.messageId} was taken in meanwhile from another file`, message));
}

/** One look at the bank's outbox: every file waiting, in order, each taken in once and then archived (or quarantined, moved aside). */
export async function pollInbound(ctx: AppContext, source: InboundSource, options: InboundOptions): Promise<FileResult[]> {
  const results: FileResult[] = [];
  for (const name of await source.list()) {
    const result = await takeInFile(ctx, source, name, options);
    results.push(result);
    if (result.outcome === 'quarantined') await source.quarantine?.(name);
    else await source.archive?.(name);
  }
  return results;
}

function fileData(f: InboundFileRow) {
  return {
    id: f.id,
    name: f.name,
    sha256: f.sha256,
    messageType: f.message_type,
    messageVersion: f.message_version,
    messageId: f.message_id,
    status: f.status,
    reason: f.reason,
    entries: f.entries,
    exceptions: f.exceptions,
    receivedAt: f.received_at.toISOString(),
  };
}

/** The files taken in, newest first (quarantined ones with their reason). */
export function listInboundFiles(sql: Sql, f: PageRequest & { status?: string | undefined }) {
  return repo.listFiles(sql, f, fileData);
}
