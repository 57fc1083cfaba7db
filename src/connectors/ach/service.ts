import { createHash, randomUUID } from 'node:crypto';
import type { AppContext } from '../../platform/context.js';
import type { Tx } from '../../platform/db/db.js';
import { enqueueMany, LIFECYCLE_JOB_ATTEMPTS_MAX, type NewJob } from '../../platform/jobs/queue.js';
import type { CryptoBox } from '../../platform/lib/crypto-box.js';
import type { FieldError } from '../../platform/lib/errors.js';
import { correctBeneficiaryAccount } from '../../domains/beneficiaries/beneficiaries.port.js';
import { workspaceTermsOf } from '../../domains/accounts/accounts.port.js';
import { addFedBusinessDays } from '../../platform/lib/federal-reserve-calendar.js';
import { reportPayoutOutcomes, type PayoutOutcome } from '../../domains/payouts/payouts.port.js';
import type { HandedOverPayout } from '../connector.js';
import { descriptiveDateOf, localNow, SAME_DAY_LIMIT_CENTS, windowAt, type AchWindow } from './calendar.js';
import { changeCode, correctedFields, returnCode, returnDeadline } from './codes.js';
import type { AchConfig } from './config.js';
import { recordMovement } from '../../controls/reconciliation/reconciliation.port.js';
import { isDebit, NachaError, nachaText, readNacha, TX, writeNacha, type BatchToWrite, type EntryToWrite, type ReadFile, type SecCode } from './nacha.js';
import * as repo from './ach.repository.js';
import { readWhole } from '../bank/bank.port.js';
import type { AchTransport } from './transport.js';
import { isBai2, takeInStatements, type StatementOutcome } from './statements.js';

export const ACH_CUTOFF_JOB = 'ach.cutoff';
export const ACH_UPLOAD_JOB = 'ach.upload';
export const ACH_POLL_JOB = 'ach.poll';

/** NACHA: live entries to a prenoted account wait until the third banking day after the prenote's settlement date. */
export const PRENOTE_WAIT_BANKING_DAYS = 3;

/** What the ACH connector works with: the validated section, the way to the ODFI, the encryption box, and its clock (tests move it across a cut-off). */
export interface AchRuntime {
  config: AchConfig;
  transport: AchTransport;
  box: CryptoBox;
  now: () => Date;
}

/** What an entry needs of a payout, sealed in ach_payouts.instruction. */
export interface AchInstruction {
  sec: SecCode;
  name: string;
  accountNumber: string;
  routingNumber: string;
  accountType: 'checking' | 'savings';
  /** The individual or company identification the receiver sees: the payout's client reference. */
  identification: string;
  reference: string | null;
}

interface BankAccountData {
  accountNumber?: unknown;
  routingNumber?: unknown;
  accountType?: unknown;
}

/** The beneficiary's US bank account as submitted (catalog US_ACCOUNT: accountNumber, routingNumber; accountType checking unless "savings"). */
export function accountOf(beneficiary: Record<string, unknown>): { accountNumber: string; routingNumber: string; accountType: 'checking' | 'savings' } | undefined {
  const accounts = (beneficiary.accounts ?? []) as { type?: string; data?: BankAccountData }[];
  const data = accounts.find((a) => typeof a.data?.accountNumber === 'string' && typeof a.data.routingNumber === 'string')?.data;
  if (!data) return undefined;
  return { accountNumber: String(data.accountNumber), routingNumber: String(data.routingNumber), accountType: data.accountType === 'savings' ? 'savings' : 'checking' };
}

/** A receiver's name as a NACHA entry carries it: printable ASCII, at most 22 characters (the catalog's ACH_22 rule checks it at submit). */
export function submitErrors(beneficiary: Record<string, unknown>): FieldError[] {
  if (!accountOf(beneficiary)) return [{ field: 'beneficiary.accounts', message: 'an ACH payout needs a US bank account: accountNumber and routingNumber', code: 'RECIPIENT_DETAILS_INVALID' }];
  return [];
}

/** What names an account among a workspace's prenotes: a hash of its routing number, account number and type (the details themselves stay sealed). */
const accountKeyOf = (i: Pick<AchInstruction, 'routingNumber' | 'accountNumber' | 'accountType'>): string => createHash('sha256').update(`${i.routingNumber}|${i.accountNumber}|${i.accountType}`).digest('hex');

const cutoffJob = (runAt: Date): NewJob => ({ kind: ACH_CUTOFF_JOB, payload: {}, runAt, maxAttempts: LIFECYCLE_JOB_ATTEMPTS_MAX });

/**
 * Takes payouts in, in the payouts step's transaction: each is recorded pending with its sealed
 * instruction (PPD for an individual, CCD for a business); one without a US account is held for the
 * operator. A cut-off job runs at the end of the section's seconds, and at once when enough wait.
 */
export async function acceptPayouts(ach: AchRuntime, tx: Tx, payouts: readonly HandedOverPayout[]): Promise<void> {
  const accepted = payouts.map((p) => {
    const account = accountOf(p.beneficiary);
    const heldReason = p.currency !== 'USD' ? `ACH pays USD only, not ${p.currency}` : !account ? 'the beneficiary has no US bank account (accountNumber, routingNumber)' : null;
    const instruction: AchInstruction = {
      sec: p.beneficiary.type === 'business' ? 'CCD' : 'PPD',
      name: String(p.beneficiary.name ?? ''),
      accountNumber: account?.accountNumber ?? '',
      routingNumber: account?.routingNumber ?? '',
      accountType: account?.accountType ?? 'checking',
      identification: p.clientRef.slice(0, 15),
      reference: p.reference,
    };
    return { payoutId: p.id, workspaceId: p.workspaceId, amountMinor: p.amountMinor, instruction, status: heldReason ? ('held' as const) : ('pending' as const), heldReason, prenoteId: null as string | null };
  });
  const prenoting = new Map<string, boolean>();
  for (const row of accepted) {
    if (row.status !== 'pending') continue;
    if (!prenoting.has(row.workspaceId)) prenoting.set(row.workspaceId, (await workspaceTermsOf(tx, row.workspaceId))?.achPrenotes === true);
    if (!prenoting.get(row.workspaceId)) continue;
    const prenote = await repo.prenoteOfAccount(tx, { id: randomUUID(), workspaceId: row.workspaceId, accountKey: accountKeyOf(row.instruction), payoutId: row.payoutId, instruction: ach.box.sealJson(row.instruction) });
    if (prenote.status === 'returned') {
      row.status = 'held';
      row.heldReason = `the account's prenote was returned ${prenote.return_code ?? ''} (${prenote.return_reason ?? ''}): ACH cannot pay it. Who must act: the workspace (pay another account of the beneficiary)`;
    } else if (prenote.status !== 'cleared') row.prenoteId = prenote.id;
  }
  await repo.insertAchPayouts(tx, accepted.map((r) => ({ ...r, instruction: ach.box.sealJson(r.instruction) })));
  const now = Date.now();
  const jobs = [cutoffJob(new Date(now + ach.config.cutoff.maxSeconds * 1000))];
  if ((await repo.pendingSummary(tx)).n >= ach.config.cutoff.maxPayouts) jobs.push(cutoffJob(new Date(now)));
  await enqueueMany(tx, jobs);
}

export async function releasePayout(tx: Tx, payoutId: string): Promise<boolean> {
  return (await repo.releaseAchPayout(tx, payoutId)) !== 'in_file';
}

const ID_MODIFIERS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
const yymmdd = (date: string): string => date.slice(2).replace(/-/g, '');

/** The batches of a file: one per SEC code and window (a Same Day file puts entries above the Same Day limit in a next-day batch). */
function batchesOf(ach: AchRuntime, window: AchWindow, nextDay: AchWindow, entries: readonly { instruction: AchInstruction; entry: EntryToWrite }[]): BatchToWrite[] {
  const groups = new Map<string, { sec: SecCode; window: AchWindow; entries: EntryToWrite[] }>();
  for (const { instruction, entry } of entries) {
    const w = window.sameDay && entry.amountCents > SAME_DAY_LIMIT_CENTS ? nextDay : window;
    const key = `${instruction.sec}:${w.effectiveDate}:${w.sameDay}`;
    const group = groups.get(key) ?? { sec: instruction.sec, window: w, entries: [] };
    group.entries.push(entry);
    groups.set(key, group);
  }
  const { config } = ach;
  return [...groups.values()].map((g) => ({
    sec: g.sec,
    companyName: config.originator.name,
    companyId: config.originator.companyId,
    description: config.description,
    descriptiveDate: descriptiveDateOf(g.window),
    effectiveDate: yymmdd(g.window.effectiveDate),
    entries: g.entries,
    offset: config.balanced
      ? {
          routingNumber: config.odfi.routingNumber,
          accountNumber: config.balanced.accountNumber,
          transactionCode: config.balanced.accountType === 'savings' ? TX.savingsDebit : TX.checkingDebit,
          name: config.originator.name,
          traceNumber: `${config.odfi.routingNumber.slice(0, 8)}0000000`,
        }
      : undefined,
  }));
}

/** YYMMDD of a batch header as YYYY-MM-DD (this century's). */
const isoDate = (d: string): string => `20${d.slice(0, 2)}-${d.slice(2, 4)}-${d.slice(4, 6)}`;

/**
 * What the ODFI settles of a file on the operator's settlement account, per effective date: the
 * credits of its batches less their debits (a balanced batch's offset debit is the same money, drawn
 * from that account: not counted twice). A net debit leaves the account; a zero nets nothing.
 */
export function settlementsOf(batches: readonly BatchToWrite[]): repo.AchSettlement[] {
  const net = new Map<string, bigint>();
  for (const b of batches) {
    const sum = b.entries.reduce((s, e) => s + (isDebit(e.transactionCode) ? -e.amountCents : e.amountCents), 0n);
    const date = isoDate(b.effectiveDate);
    net.set(date, (net.get(date) ?? 0n) + sum);
  }
  return [...net]
    .filter(([, n]) => n !== 0n)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([effectiveDate, n]) => ({ effectiveDate, direction: n > 0n ? ('debit' as const) : ('credit' as const), amountMinor: n > 0n ? n : -n }));
}

/** The reference the ODFI's BAI2 report carries for a file's settlement: the file header's reference code (positions 87-94). */
export const settlementReference = (fileId: string): string => nachaText(fileId.slice(0, 8));

/**
 * Books a delivered file's settlement on the settlement account, in the transaction that marks it
 * delivered: one movement per effective date, named by the file's reference code, which a BAI2
 * statement's line of that account matches (reconciliation.service).
 */
async function bookSettlement(ach: AchRuntime, tx: Tx, fileId: string): Promise<void> {
  const account = ach.config.settlementAccount;
  if (!account) return;
  for (const s of await repo.settlementsOf(tx, fileId)) {
    await recordMovement(tx, {
      bank_account: account,
      file_id: null,
      message_type: 'nacha',
      kind: 'payout',
      direction: s.direction,
      amount_minor: s.amountMinor,
      currency: 'USD',
      booking_date: s.effectiveDate,
      entry_ref: null,
      end_to_end_id: settlementReference(fileId),
      object_type: 'ach_file',
      object_id: fileId,
    });
  }
}

/**
 * Cuts at most one file, in one transaction: when maxPayouts wait or the oldest waited maxSeconds,
 * the oldest (at most maxPayouts) become one NACHA file for the window the clock is in (Same Day
 * before the ODFI's last Same Day cut-off, else next day; weekends and Federal Reserve holidays
 * skipped), each entry with a trace number of its own. The file (bytes sealed, SHA-256) is recorded
 * with its upload job before anything is sent.
 */
async function cutOneFile(ach: AchRuntime, tx: Tx): Promise<boolean> {
  await repo.lockCutoff(tx);
  const { maxPayouts, maxSeconds } = ach.config.cutoff;
  const pending = await repo.pendingPayouts(tx, maxPayouts, maxSeconds);
  const prenotes = await repo.pendingPrenotes(tx, maxPayouts, maxSeconds);
  const payoutsDue = pending.length > 0 && (pending.length >= maxPayouts || pending[0]?.due === true);
  if (!payoutsDue && !prenotes.some((p) => p.due)) return false;
  const traces = await repo.nextTraceSequences(tx, pending.length + prenotes.length);
  const odfi8 = ach.config.odfi.routingNumber.slice(0, 8);
  const prenoteEntries = prenotes.map((row, i) => {
    const instruction = ach.box.openJson<AchInstruction>(row.instruction);
    const entry: EntryToWrite = {
      transactionCode: instruction.accountType === 'savings' ? TX.savingsPrenote : TX.checkingPrenote,
      routingNumber: instruction.routingNumber,
      accountNumber: instruction.accountNumber,
      amountCents: 0n,
      identification: instruction.identification,
      name: instruction.name,
      traceNumber: `${odfi8}${(traces[pending.length + i] as string).padStart(7, '0')}`,
    };
    return { prenoteId: row.id, instruction, entry };
  });
  const entries = pending.map((row, i) => {
    const instruction = ach.box.openJson<AchInstruction>(row.instruction);
    const savings = instruction.accountType === 'savings';
    const entry: EntryToWrite = {
      transactionCode: savings ? TX.savingsCredit : TX.checkingCredit,
      routingNumber: instruction.routingNumber,
      accountNumber: instruction.accountNumber,
      amountCents: BigInt(row.amount_minor),
      identification: instruction.identification,
      name: instruction.name,
      traceNumber: `${odfi8}${(traces[i] as string).padStart(7, '0')}`,
      addenda: instruction.reference ? instruction.reference.slice(0, 80) : undefined,
    };
    return { payoutId: row.payout_id, instruction, entry };
  });
  const now = ach.now();
  const window = windowAt(now, ach.config.calendar);
  const nextDay = windowAt(now, { ...ach.config.calendar, sameDayCutoffs: [] });
  const day = localNow(now, ach.config.calendar.timeZone).date.replace(/-/g, '');
  const modifier = ID_MODIFIERS[(await repo.filesOfDay(tx, day)) % ID_MODIFIERS.length] as string;
  const id = randomUUID();
  const batches = batchesOf(ach, window, nextDay, [...prenoteEntries, ...entries]);
  const written = writeNacha({
    destination: ach.config.odfi.routingNumber,
    destinationName: ach.config.odfi.name,
    origin: ach.config.odfi.origin,
    originName: ach.config.originator.name,
    createdAt: now,
    idModifier: modifier,
    referenceCode: settlementReference(id),
    odfi8,
    batches,
  });
  const bytes = Buffer.from(written.text, 'ascii');
  await repo.insertAchFile(tx, {
    id,
    fileName: `ach-${day}-${modifier}-${id.slice(0, 8)}.ach`,
    idModifier: modifier,
    effectiveDate: window.effectiveDate,
    sameDay: window.sameDay,
    content: ach.box.encrypt(bytes.toString('base64')),
    sha256: createHash('sha256').update(bytes).digest('hex'),
    byteSize: bytes.length,
    entryCount: written.entryCount,
    entryHash: written.entryHash,
    totalDebit: written.totalDebitCents,
    totalCredit: written.totalCreditCents,
  });
  await repo.fileInEntries(tx, id, entries.map((e) => ({ payoutId: e.payoutId, traceNumber: e.entry.traceNumber })));
  await repo.insertSettlements(tx, id, settlementsOf(batches));
  const clearsOn = addFedBusinessDays(window.effectiveDate, PRENOTE_WAIT_BANKING_DAYS);
  await repo.filePrenotes(tx, id, prenoteEntries.map((p) => ({ id: p.prenoteId, traceNumber: p.entry.traceNumber })), window.effectiveDate, clearsOn);
  await enqueueMany(tx, [{ kind: ACH_UPLOAD_JOB, payload: { fileId: id }, uniqueKey: `${ACH_UPLOAD_JOB}:${id}`, maxAttempts: LIFECYCLE_JOB_ATTEMPTS_MAX }]);
  return true;
}

/** A cut-off job: cuts files while payouts are due; answers when to look again while some wait. */
export async function runCutoff(ctx: AppContext, ach: AchRuntime): Promise<Date | undefined> {
  while (await ctx.db.tx((tx) => cutOneFile(ach, tx)));
  const left = await repo.pendingSummary(ctx.db);
  if (left.n === 0 || !left.oldest) return undefined;
  return new Date(Math.max(Date.now(), left.oldest.getTime() + ach.config.cutoff.maxSeconds * 1000) + 50);
}

/**
 * An upload job: sends a recorded file to the ODFI (unless the listing shows it arrived before a
 * crash: the same name and bytes), then in one transaction marks it and its payouts delivered and
 * moves the payouts to processing. A failed attempt is kept on the file and the job retries.
 */
export async function runUpload(ctx: AppContext, ach: AchRuntime, fileId: string): Promise<void> {
  const file = await repo.findAchFile(ctx.db, fileId);
  if (!file || file.status !== 'recorded') return;
  const bytes = Buffer.from(ach.box.decrypt(file.content), 'base64');
  try {
    const outcome = await ach.transport.deliver(file.file_name, bytes);
    ctx.log.info({ fileId, outcome }, 'ach: NACHA file at the ODFI');
  } catch (err) {
    await repo.recordFileError(ctx.db, fileId, err instanceof Error ? err.message : String(err));
    throw err;
  }
  await ctx.db.tx(async (tx) => {
    const payouts = await repo.markDelivered(tx, fileId);
    if (!payouts) return;
    await bookSettlement(ach, tx, fileId);
    await reportPayoutOutcomes(ctx, tx, payouts.map((payoutId) => ({ payoutId, move: 'process' as const })));
  });
}

/** Payouts whose file's effective date has come (in the ODFI's time zone) are settled: paid. A return after that reverts them. */
export async function settle(ctx: AppContext, ach: AchRuntime): Promise<number> {
  const today = localNow(ach.now(), ach.config.calendar.timeZone).date;
  return ctx.db.tx(async (tx) => {
    const ids = await repo.settleDue(tx, today);
    await reportPayoutOutcomes(ctx, tx, ids.map((payoutId) => ({ payoutId, move: 'pay' as const })));
    // Prenotes whose waiting period passed without a return clear: the payouts that waited are filed at the next cut-off.
    if ((await repo.clearDuePrenotes(tx, today)) > 0) await enqueueMany(tx, [cutoffJob(new Date())]);
    return ids.length;
  });
}

/**
 * A prenote returned: the account cannot take ACH entries. The prenote keeps the code and its words
 * (a later payout to the account is held with them), and the payouts that waited for it fail with
 * the return's code, their funds back once; the workspace is told by their payout.failed events.
 */
async function prenoteReturned(ctx: AppContext, tx: Tx, prenote: repo.PrenoteRow, code: string, words: string): Promise<void> {
  const waiting = await repo.returnPrenote(tx, prenote.id, code, words);
  await reportPayoutOutcomes(
    ctx,
    tx,
    waiting.map((payoutId) => ({ payoutId, move: 'fail' as const, failureReason: `ach_prenote_return_${code.toLowerCase()}`, returnReason: { code, description: `the account's prenote was returned: ${words}` } })),
  );
}

/** A notification of change on a prenote: the prenote's account and the payouts waiting for it take the corrected details before they are filed. */
async function correctWaiting(ach: AchRuntime, tx: Tx, prenote: repo.PrenoteRow, fields: Partial<Record<string, string>>): Promise<void> {
  const changes = Object.fromEntries(Object.entries(fields).filter(([k, v]) => v !== '' && v !== undefined && ['accountNumber', 'routingNumber', 'accountType'].includes(k)));
  const corrected = { ...ach.box.openJson<AchInstruction>(prenote.instruction), ...changes } as AchInstruction;
  await repo.correctPrenote(tx, prenote.id, accountKeyOf(corrected), ach.box.sealJson(corrected));
  for (const w of await repo.waitingForPrenote(tx, prenote.id)) await repo.replaceInstruction(tx, w.payout_id, ach.box.sealJson({ ...ach.box.openJson<AchInstruction>(w.instruction), ...changes }));
}

/** A return credited back to the settlement account on its batch's effective date, named by the original entry's trace number (and the return's own). */
async function bookReturn(ach: AchRuntime, tx: Tx, r: { payoutId: string; amountMinor: bigint; date: string; trace: string; originalTrace: string }): Promise<void> {
  const account = ach.config.settlementAccount;
  if (!account || r.amountMinor === 0n) return;
  await recordMovement(tx, {
    bank_account: account,
    file_id: null,
    message_type: 'nacha',
    kind: 'return',
    direction: 'credit',
    amount_minor: r.amountMinor,
    currency: 'USD',
    booking_date: r.date,
    entry_ref: r.trace,
    end_to_end_id: r.originalTrace,
    object_type: 'payout',
    object_id: r.payoutId,
  });
}

export type InboundOutcome =
  | { name: string; outcome: 'applied'; returns: number; changes: number; exceptions: number }
  | { name: string; outcome: 'refused'; reason: string }
  | { name: string; outcome: 'seen' }
  | StatementOutcome;

/** Why a file Corridor reads cannot be applied, or undefined: it must hold returns or notifications of change only. */
export function applicableReason(file: ReadFile): string | undefined {
  for (const b of file.batches) {
    for (const e of b.entries) {
      if (e.returns.length === 0 && !e.change)
        return `batch ${b.batchNumber} (${b.sec}) holds entry ${e.traceNumber} that is neither a return (Addenda 99) nor a notification of change (Addenda 98): an ODFI sends Corridor only returns and corrections of its own credits`;
    }
  }
  return undefined;
}

/**
 * Applies one inbound file in the caller's transaction: each return moves its payout (the original
 * trace number names it) to failed (still processing) or reverted (settled, paid) with its code and
 * words, the funds back once, when it comes within its window (returnDeadline: 2 banking days after
 * settlement for most codes; a late one is the operator's exception, nothing moved); a notification of change corrects the beneficiary's account (audited,
 * the workspace told); a dishonored or contested return, or a code for a trace Corridor never sent,
 * goes to the operator's exceptions with its words.
 */
export async function applyInbound(ctx: AppContext, ach: AchRuntime, tx: Tx, fileId: string, file: ReadFile): Promise<{ returns: number; changes: number; exceptions: number }> {
  let returns = 0;
  let changes = 0;
  let exceptions = 0;
  const today = localNow(ach.now(), ach.config.calendar.timeZone).date;
  const exception = async (code: string, reason: string, actor: string, trace: string | null, payoutId: string | null) => {
    exceptions++;
    await repo.insertException(tx, { id: randomUUID(), fileId, code, reason, actor, traceNumber: trace, payoutId });
  };
  for (const batch of file.batches) {
    for (const entry of batch.entries) {
      for (const ret of entry.returns) {
        const payout = await repo.payoutOfTrace(tx, ret.originalTrace);
        const code = returnCode(ret.code);
        const prenote = payout ? undefined : await repo.prenoteOfTrace(tx, ret.originalTrace);
        if (prenote && ret.kind === 'return') {
          await prenoteReturned(ctx, tx, prenote, ret.code, code.words);
          returns++;
          continue;
        }
        if (!payout) {
          await exception(ret.code, `${ret.kind} ${ret.code} (${code.words}) for trace ${ret.originalTrace}, which Corridor never sent`, 'operator', ret.originalTrace, null);
          continue;
        }
        if (ret.kind !== 'return') {
          await exception(ret.code, `${ret.kind} return ${ret.code}: ${code.words}; the payout keeps its state until the operator settles it with the ODFI`, 'operator', ret.originalTrace, payout.payout_id);
          continue;
        }
        const deadline = returnDeadline(code, payout.effective_date);
        if (today > deadline) {
          await exception(
            ret.code,
            `late return ${ret.code} (${code.words}) of an entry settled on ${payout.effective_date}: it came on ${today}, after its window closed on ${deadline}; the payout keeps its state. Who must act: the operator (the ODFI may dishonor an untimely return, R68, within 5 banking days of its settlement)`,
            'operator',
            ret.originalTrace,
            payout.payout_id,
          );
          continue;
        }
        const move: PayoutOutcome['move'] = payout.status === 'settled' ? 'revert' : 'fail';
        const [result] = await reportPayoutOutcomes(ctx, tx, [{ payoutId: payout.payout_id, move, failureReason: `ach_return_${ret.code.toLowerCase()}`, returnReason: { code: ret.code, description: code.words } }]);
        if (result?.applied) {
          await repo.markReturned(tx, payout.payout_id);
          await bookReturn(ach, tx, { payoutId: payout.payout_id, amountMinor: entry.amountCents, date: /^[0-9]{6}$/.test(batch.effectiveDate) ? isoDate(batch.effectiveDate) : today, trace: entry.traceNumber, originalTrace: ret.originalTrace });
          returns++;
        } else await exception(ret.code, `return ${ret.code} (${code.words}) of a payout that is ${result?.status ?? 'unknown'}: nothing moved`, 'operator', ret.originalTrace, payout.payout_id);
      }
      if (entry.change) {
        const c = entry.change;
        const prenote = await repo.prenoteOfTrace(tx, c.originalTrace);
        const payout = prenote ? { payout_id: prenote.payout_id, workspace_id: prenote.workspace_id, instruction: prenote.instruction } : await repo.payoutOfTrace(tx, c.originalTrace);
        const change = changeCode(c.code);
        if (!payout || !change) {
          await exception(c.code, !payout ? `notification of change ${c.code} for trace ${c.originalTrace}, which Corridor never sent` : `change code ${c.code} is not one of C01 to C13`, 'operator', c.originalTrace, payout?.payout_id ?? null);
          continue;
        }
        const fields = correctedFields(change, c.correctedData);
        const instruction = ach.box.openJson<AchInstruction>(payout.instruction);
        const corrected = await correctBeneficiaryAccount(ctx, tx, {
          workspaceId: payout.workspace_id,
          payoutId: payout.payout_id,
          match: { accountNumber: instruction.accountNumber, routingNumber: instruction.routingNumber },
          changes: Object.fromEntries(Object.entries(fields).filter(([k, v]) => v !== '' && k !== 'name' && k !== 'identification')),
          code: c.code,
          words: change.words,
        });
        if (prenote) await correctWaiting(ach, tx, prenote, fields);
        if (corrected) changes++;
        else await exception(c.code, `notification of change ${c.code} (${change.words}): the payout's beneficiary is not saved or no longer has that account; the workspace must correct it`, 'workspace', c.originalTrace, payout.payout_id);
      }
    }
  }
  return { returns, changes, exceptions };
}

/**
 * One look at the ODFI's outbox: each NACHA file is taken in once by its SHA-256 (recorded in the
 * transaction that applies it); one that cannot be read, or holds what Corridor never sends back, is
 * recorded refused with the reason and moved to quarantine. Then payouts due are settled.
 */
export async function runPoll(ctx: AppContext, ach: AchRuntime): Promise<Date> {
  const results: InboundOutcome[] = await ach.transport.withOutbox(async (source) => {
    const out: InboundOutcome[] = [];
    for (const waiting of await source.list()) {
      const bytes = await readWhole(source, waiting.name);
      out.push(await takeIn(ctx, ach, waiting.name, bytes));
      const last = out[out.length - 1] as InboundOutcome;
      // A file seen before (the same bytes again) may find its archived twin in the way: it stays, and its hash keeps it from applying.
      const move = last.outcome === 'refused' ? source.quarantine?.(waiting.name) : source.archive?.(waiting.name);
      await move?.catch((err: unknown) => {
        if (last.outcome !== 'seen') throw err;
        ctx.log.warn({ name: waiting.name }, 'ach: a file taken in before is in the outbox again; left there, it applies nothing');
      });
    }
    return out;
  });
  if (results.length > 0) ctx.log.info({ files: results }, 'ach: ODFI files taken in');
  await settle(ctx, ach);
  return new Date(Date.now() + ach.config.pollSeconds * 1000);
}

/** Takes one inbound file in, once: read, checked, applied and recorded in one transaction. A BAI2 statement goes to reconciliation (statements.ts). */
export async function takeIn(ctx: AppContext, ach: AchRuntime, name: string, bytes: Buffer): Promise<InboundOutcome> {
  if (isBai2(bytes)) return takeInStatements(ctx, ach.config, name, bytes);
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  if (await repo.inboundFileBySha(ctx.db, sha256)) return { name, outcome: 'seen' };
  let file: ReadFile | undefined;
  let reason: string | undefined;
  try {
    file = readNacha(bytes.toString('latin1'));
    reason = applicableReason(file);
  } catch (err) {
    if (!(err instanceof NachaError)) throw err;
    reason = `not a valid NACHA file: ${err.message}`;
  }
  return ctx.db.tx(async (tx) => {
    const id = randomUUID();
    if (!(await repo.insertInboundFile(tx, { id, name, sha256, status: reason ? 'refused' : 'processed', reason: reason ?? null }))) return { name, outcome: 'seen' as const };
    if (reason || !file) return { name, outcome: 'refused' as const, reason: reason ?? '' };
    const counts = await applyInbound(ctx, ach, tx, id, file);
    await repo.countInbound(tx, id, counts);
    return { name, outcome: 'applied' as const, ...counts };
  });
}
