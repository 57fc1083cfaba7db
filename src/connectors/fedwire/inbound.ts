import { createHash } from 'node:crypto';
import type { AppContext } from '../../platform/context.js';
import type { Tx } from '../../platform/db/db.js';
import { newId } from '../../platform/lib/ids.js';
import { formatAmount } from '../../platform/lib/money.js';
import {
  countInboundReadAttempt,
  findInboundFileBySha,
  findInboundMessageFile,
  inboundFileApplied,
  insertInboundFile,
  lockInboundFile,
  payoutIdOfEndToEndId,
  payoutsOfMessage,
  quarantineInboundFile,
  startApplyingInboundFile,
  readWhole,
  takeInEach,
  type InboundFileRow,
  type InboundSource,
  type WaitingFile,
} from '../bank/bank.port.js';
import { reportPayoutOutcomes, type PayoutOutcome } from '../../domains/payouts/payouts.port.js';
import { recordException, recordMovement } from '../../controls/reconciliation/reconciliation.port.js';
import { findWire, wireFileSent, type WireRow } from './fedwire.repository.js';
import type { FedwireRuntime } from './outbound.js';
import { FedwireParseError, parseFedwireFile, type AcknowledgementMessage, type FedwireMessage, type Reason, type ReturnMessage, type StatusMessage, type TransactionStatus } from './parse.js';
import { describeWireReason } from './reasons.js';

/*
 * Taking in what the US bank sends back on the wire channel. Every file is recorded by its hash
 * before it is read (the bank connector's inbound record, bank_inbound_files), its message by type and
 * id: a file read twice, or the same message under another name, applies once. A file is applied in
 * one transaction with every payout move, ledger posting, event and exception it makes, and the file
 * marked processed: a process stopped halfway applies it again from the start, never twice. A file
 * that cannot be read, or that is no message this connector applies, is quarantined with the reason;
 * an answer naming no wire of Corridor's (an unknown UETR or EndToEndId) is an exception with the
 * reason, and nothing moves.
 */

/** Statuses that say the wire is on its way (accepted, pending) but not yet settled: nothing to do yet. */
const UNDER_WAY = new Set(['ACCP', 'ACSP', 'ACTC', 'ACWC', 'ACWP', 'ACIS', 'PDNG', 'RCVD', 'PATC', 'PART']);
/** Settled: the wire reached the beneficiary's bank through Fedwire. */
const SETTLED = new Set(['ACSC', 'ACCC', 'STLD']);

/** Reading a recorded file stopped the process this many times: it is quarantined instead. */
const MAX_READ_ATTEMPTS = 3;

export type WireFileResult = { name: string; outcome: 'processed' | 'duplicate' | 'quarantined' | 'failed'; reason?: string; entries?: number; exceptions?: number };

interface Facts {
  entry_ref: string | null;
  end_to_end_id: string | null;
  direction: 'debit' | 'credit' | null;
  amount_minor: bigint | null;
  currency: string | null;
  booking_date: string | null;
}

const NO_FACTS: Facts = { entry_ref: null, end_to_end_id: null, direction: null, amount_minor: null, currency: null, booking_date: null };

/** One file's application: its transaction, what it counted. */
class Apply {
  entries = 0;
  exceptions = 0;
  constructor(
    readonly ctx: AppContext,
    readonly tx: Tx,
    readonly fw: FedwireRuntime,
    readonly fileId: string,
    readonly messageType: string,
  ) {}

  async exception(code: string, reason: string, facts: Facts): Promise<void> {
    this.exceptions += 1;
    await recordException(this.tx, { file_id: this.fileId, message_type: this.messageType, code, reason, bank_account: this.fw.config.account.id, ...facts });
  }

  /** Reports one payout's outcome; a move its state does not allow is an exception, nothing applied. */
  async report(outcome: PayoutOutcome, facts: Facts): Promise<boolean> {
    const [result] = await reportPayoutOutcomes(this.ctx, this.tx, [outcome]);
    if (result?.applied) return true;
    await this.exception('payout_state', `Payout ${outcome.payoutId} is ${result?.status ?? 'unknown'}: "${outcome.move}" does not apply to it; nothing changed. Who must act: the operator (check the wire with the bank)`, facts);
    return false;
  }

  async movement(wire: WireRow, kind: 'payout' | 'return', facts: Facts): Promise<void> {
    await recordMovement(this.tx, {
      bank_account: this.fw.config.account.id,
      file_id: this.fileId,
      message_type: this.messageType,
      kind,
      direction: kind === 'payout' ? 'debit' : 'credit',
      amount_minor: BigInt(wire.amount_minor),
      currency: wire.currency,
      booking_date: facts.booking_date,
      entry_ref: facts.entry_ref,
      end_to_end_id: wire.end_to_end_id,
      object_type: 'payout',
      object_id: wire.payout_id,
    });
  }
}

const refOf = (r: { uetr: string | undefined; endToEndId: string | undefined }): string => (r.uetr ? `UETR ${r.uetr}` : `EndToEndId ${r.endToEndId}`);

async function wireOf(run: Apply, ref: { uetr: string | undefined; endToEndId: string | undefined }, facts: Facts): Promise<WireRow | undefined> {
  const wire = await findWire(run.tx, ref);
  if (!wire) await run.exception('unknown_reference', `No Fedwire payout of Corridor has the ${refOf(ref)}: nothing applied. Who must act: the operator (ask the bank what the answer is about)`, facts);
  return wire;
}

async function rejectWire(run: Apply, payoutId: string, reason: Reason | undefined, facts: Facts): Promise<void> {
  const r = describeWireReason(reason?.code, reason?.additionalInfo);
  await run.report({ payoutId, move: 'fail', returnReason: { code: r.code, description: r.description }, failureReason: `Rejected by Fedwire: ${r.code} ${r.description}. Who must act: ${r.actorWords}` }, facts);
}

async function applyStatus(run: Apply, s: TransactionStatus, m: StatusMessage): Promise<void> {
  const facts: Facts = { ...NO_FACTS, entry_ref: s.originalMessageId ?? m.messageId, end_to_end_id: s.endToEndId ?? null };
  if (!SETTLED.has(s.status) && s.status !== 'RJCT' && !UNDER_WAY.has(s.status)) {
    await run.exception('unknown_status', `Transaction status ${s.status} for the ${refOf(s)} is not one Corridor reads: nothing applied`, facts);
    return;
  }
  const wire = await wireOf(run, s, facts);
  if (!wire) return;
  if (SETTLED.has(s.status)) {
    if (await run.report({ payoutId: wire.payout_id, move: 'pay' }, facts)) await run.movement(wire, 'payout', { ...facts, direction: 'debit' });
  } else if (s.status === 'RJCT') {
    await rejectWire(run, wire.payout_id, s.reason, facts);
  }
}

async function applyStatuses(run: Apply, m: StatusMessage): Promise<void> {
  const listed = new Set<string>();
  for (const s of m.statuses) {
    const id = s.endToEndId ? payoutIdOfEndToEndId(s.endToEndId) : undefined;
    if (id) listed.add(id);
    await applyStatus(run, s, m);
    run.entries += 1;
  }
  if (!m.groupRejected) return;
  // The bank refused the whole wire file: every wire it carried that the report did not list one by one.
  const { originalMessageId, reason } = m.groupRejected;
  const facts: Facts = { ...NO_FACTS, entry_ref: originalMessageId };
  const ids = await payoutsOfMessage(run.tx, originalMessageId, undefined);
  if (ids.length === 0) await run.exception('unknown_reference', `The bank rejected message ${originalMessageId}, which is no wire file Corridor delivered. Who must act: the operator`, facts);
  for (const id of ids.filter((i) => !listed.has(i))) {
    await rejectWire(run, id, reason, { ...facts, end_to_end_id: id.replace(/-/g, '') });
    run.entries += 1;
  }
}

/** A pacs.004: the wire's money came back. Its payout is reverted (paid → failed) with the return reason, and the funds go back once. */
async function applyReturns(run: Apply, m: ReturnMessage): Promise<void> {
  for (const r of m.returns) {
    run.entries += 1;
    const facts: Facts = { entry_ref: r.returnId ?? m.messageId, end_to_end_id: r.endToEndId ?? null, direction: 'credit', amount_minor: r.amount.minor, currency: r.amount.currency, booking_date: r.settlementDate ?? null };
    const wire = await wireOf(run, r, facts);
    if (!wire) continue;
    if (r.amount.currency !== wire.currency || r.amount.minor !== BigInt(wire.amount_minor)) {
      await run.exception('amount_mismatch', `The bank returns ${r.amount.text} ${r.amount.currency} for payout ${wire.payout_id}, which is ${formatAmount(BigInt(wire.amount_minor), wire.currency)} ${wire.currency}: nothing applied. Who must act: the operator (a partial return is settled by hand)`, facts);
      continue;
    }
    const why = describeWireReason(r.reason?.code, r.reason?.additionalInfo);
    const revert: PayoutOutcome = {
      payoutId: wire.payout_id,
      move: 'revert',
      returnReason: { code: why.code, description: why.description },
      failureReason: `Returned over Fedwire by the beneficiary's bank: ${why.code} ${why.description}. Who must act: ${why.actorWords}`,
    };
    const [first] = await reportPayoutOutcomes(run.ctx, run.tx, [revert]);
    // The return came before the settlement status: it settled (a return follows a settled wire), then came back.
    const applied = first?.applied || (first?.status === 'processing' && (await run.report({ payoutId: wire.payout_id, move: 'pay' }, facts)) && (await run.report(revert, facts)));
    if (!applied) {
      if (first?.status !== 'processing') await run.exception('payout_state', `Payout ${wire.payout_id} is ${first?.status ?? 'unknown'}: the return does not apply to it; nothing changed. Who must act: the operator`, facts);
      continue;
    }
    await run.movement(wire, 'return', facts);
  }
}

/** An admi.007: the Fed (through the bank) acknowledges a message. One of Corridor's wire files is noted; any other reference is an exception. */
async function applyAcknowledgements(run: Apply, m: AcknowledgementMessage): Promise<void> {
  for (const a of m.acknowledgements) {
    run.entries += 1;
    const facts: Facts = { ...NO_FACTS, entry_ref: a.reference };
    if (!(await wireFileSent(run.tx, a.reference))) {
      await run.exception('unknown_reference', `The acknowledgement names ${a.reference}${a.messageName ? ` (a ${a.messageName})` : ''}, which is no wire file Corridor delivered: nothing applied. Who must act: the operator`, facts);
    } else if (a.statusCode !== undefined && a.statusCode !== 'TS01') {
      await run.exception('acknowledgement_status', `Wire file ${a.reference} was acknowledged with status ${a.statusCode}, not TS01 (received): the operator checks its wires with the bank`, facts);
    }
  }
}

function applyMessage(run: Apply, m: FedwireMessage): Promise<void> {
  if (m.kind === 'pacs.004') return applyReturns(run, m);
  if (m.kind === 'admi.007') return applyAcknowledgements(run, m);
  return applyStatuses(run, m);
}

const errorText = (err: unknown) => (err instanceof Error ? err.message : String(err));

/** Applies a read file in one transaction (its row locked first: a second process waits, then finds it processed). */
async function applyFile(ctx: AppContext, fw: FedwireRuntime, file: InboundFileRow, m: FedwireMessage): Promise<WireFileResult> {
  return ctx.db.tx(async (tx) => {
    const row = (await lockInboundFile(tx, file.id)) as InboundFileRow;
    if (row.status !== 'applying') return { name: file.name, outcome: 'duplicate' as const };
    const run = new Apply(ctx, tx, fw, file.id, m.kind);
    await applyMessage(run, m);
    await inboundFileApplied(tx, file.id, { units: 1, entries: run.entries, exceptions: run.exceptions, done: true });
    return { name: file.name, outcome: 'processed' as const, entries: run.entries, exceptions: run.exceptions };
  });
}

/** Takes in one waiting file: records it by its hash, reads it (or quarantines it with the reason), applies it once. */
export async function takeInWireFile(ctx: AppContext, fw: FedwireRuntime, source: InboundSource, waiting: WaitingFile): Promise<WireFileResult> {
  if (waiting.size > fw.config.maxFileBytes) {
    const reason = `the file is ${waiting.size} bytes, above the limit of ${fw.config.maxFileBytes} bytes ("fedwire".maxFileBytes): not read`;
    await insertInboundFile(ctx.db, { id: newId(), name: waiting.name, sha256: null, size: waiting.size, status: 'quarantined', reason });
    return { name: waiting.name, outcome: 'quarantined', reason };
  }
  const content = await readWhole(source, waiting.name);
  const sha256 = createHash('sha256').update(content).digest('hex');
  let file = await findInboundFileBySha(ctx.db, sha256);
  const fresh = !file;
  if (!file) file = (await insertInboundFile(ctx.db, { id: newId(), name: waiting.name, sha256, size: content.length, status: 'received', reason: null })) ?? (await findInboundFileBySha(ctx.db, sha256));
  if (!file || file.status === 'processed' || file.status === 'quarantined') return { name: waiting.name, outcome: 'duplicate' };
  const quarantine = async (reason: string, m?: FedwireMessage): Promise<WireFileResult> => {
    await quarantineInboundFile(ctx.db, (file as InboundFileRow).id, reason, m && { type: m.kind, version: m.version, id: m.messageId });
    ctx.log.warn({ file: waiting.name, reason }, 'fedwire: bank file quarantined');
    return { name: waiting.name, outcome: 'quarantined', reason };
  };
  let message: FedwireMessage;
  try {
    message = parseFedwireFile(content);
  } catch (err) {
    if (file.status !== 'received') throw err;
    return quarantine(err instanceof FedwireParseError ? err.message : `the file could not be read: ${errorText(err)}`);
  }
  if (file.status === 'received') {
    const attempt = fresh ? file.attempts : await countInboundReadAttempt(ctx.db, file.id);
    if (attempt > MAX_READ_ATTEMPTS) return quarantine(`reading the file stopped the process ${attempt - 1} times; not read again`, message);
    const earlier = await findInboundMessageFile(ctx.db, message.kind, message.messageId, file.id);
    if (earlier) return quarantine(`message id ${message.messageId} was taken in before, from ${earlier.name}`, message);
    const applying = await startApplyingInboundFile(ctx.db, file.id, { type: message.kind, version: message.version, id: message.messageId });
    if (!applying) return quarantine(`message id ${message.messageId} was taken in meanwhile from another file`, message);
    file = applying;
  }
  return applyFile(ctx, fw, file, message);
}

/** One look at the bank's outbox: every waiting file in order, each taken in once, then archived (or quarantined); one that fails is tried again next time. */
export function pollWireAnswers(ctx: AppContext, fw: FedwireRuntime, source: InboundSource): Promise<WireFileResult[]> {
  return takeInEach(ctx, source, (waiting) => takeInWireFile(ctx, fw, source, waiting), (name, _fileId, error) => ({ name, outcome: 'failed', reason: error }));
}
