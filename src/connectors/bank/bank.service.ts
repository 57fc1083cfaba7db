import type { RailProgress } from '../connector.js';
import { createHash, randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { AppContext } from '../../platform/context.js';
import type { Sql, Tx } from '../../platform/db/db.js';
import { enqueueMany, LIFECYCLE_JOB_ATTEMPTS_MAX, type NewJob } from '../../platform/jobs/queue.js';
import type { CryptoBox } from '../../platform/lib/crypto-box.js';
import { formatAmount } from '../../platform/lib/money.js';
import type { PageRequest } from '../../platform/db/pagination.js';
import { reportPayoutOutcomes } from '../../domains/payouts/payouts.port.js';
import { executionDate, type BankCalendar } from './bank.calendar.js';
import { creditLimitMinor, debtorAccountFor, type BankAccount, type BankConfig } from './bank.config.js';
import { creditTransferOf, endToEndIdOf, type BeneficiarySnapshot, type TransferSource } from './bank.instructions.js';
import * as repo from './bank.repository.js';
import { pollInbound, type InboundOptions, type PayeeVerification } from './inbound/inbound.service.js';
import { recordReportedCheck } from '../../controls/recipient-checks/recipient-checks.port.js';
import { HostKeyMismatchError } from './bank.sftp.js';
import { bankDay, renderFileName } from './bank.filenames.js';
import { isPgpName, type BankPgp } from './bank.pgp.js';
import type { BankTransport } from './bank.transport.js';
import { buildPain001, schemeOfRoute, transferAtLine, type BuiltFile, type CreditTransfer, type PaymentBatch, type Scheme } from './pain001.js';
import { validatePain001, type Validation } from './pain001.validate.js';

export const BANK_CUTOFF_JOB = 'bank.cutoff';
export const BANK_UPLOAD_JOB = 'bank.upload';
export const BANK_POLL_JOB = 'bank.poll';

/** What the outbound side works with: the validated section, the way to the bank (SFTP, or the sandbox bank's folder), the encryption box. */
export interface BankRuntime {
  config: BankConfig;
  transport: BankTransport;
  box: CryptoBox;
  /** The section's `pgp` with its keys opened: files are encrypted and signed when it is there. */
  pgp?: BankPgp | undefined;
}

/** A payout handed over to the bank connector (the payouts step's HandedOverPayout, with its funding currency and reference). */
export interface BankHandOver {
  id: string;
  workspaceId: string;
  amountMinor: bigint;
  currency: string;
  route: string;
  fundingCurrency: string;
  beneficiary: Record<string, unknown>;
  sender: Record<string, unknown> | null;
  reference: string | null;
}

/** What a file needs of a payout, sealed in bank_payouts.instruction. */
interface Instruction {
  amount: string;
  currency: string;
  beneficiary: BeneficiarySnapshot;
  sender: Record<string, unknown> | null;
  reference: string | null;
}

const cutoffJob = (account: string, scheme: string, runAt: Date): NewJob => ({
  kind: BANK_CUTOFF_JOB,
  payload: { account, scheme },
  runAt,
  maxAttempts: LIFECYCLE_JOB_ATTEMPTS_MAX,
});

/**
 * Takes payouts into the bank's pipeline, in the payouts step's transaction: each is recorded
 * pending in its window (debtor account and scheme) with its EndToEndId, and a UETR when it goes by
 * SWIFT; a payout no window can take (no account in its funding currency) is held for the operator.
 * Each window gets a cut-off job at the end of its seconds, and one at once when it is full.
 */
export async function acceptPayouts(bank: BankRuntime, tx: Tx, payouts: readonly BankHandOver[]): Promise<void> {
  const rows: repo.NewBankPayout[] = payouts.map((p) => {
    const scheme = schemeOfRoute(p.route) ?? null;
    const debtor = debtorAccountFor(bank.config, p.fundingCurrency);
    const heldReason = !scheme ? `the bank connector does not serve the ${p.route} route` : !debtor ? `no bank account in ${p.fundingCurrency} is configured` : null;
    const instruction: Instruction = { amount: formatAmount(p.amountMinor, p.currency), currency: p.currency, beneficiary: p.beneficiary as BeneficiarySnapshot, sender: p.sender, reference: p.reference };
    return {
      payoutId: p.id,
      workspaceId: p.workspaceId,
      route: p.route,
      scheme,
      debtorAccount: debtor?.id ?? null,
      currency: p.currency,
      amountMinor: p.amountMinor,
      endToEndId: endToEndIdOf(p.id),
      uetr: scheme === 'swift' ? randomUUID() : null,
      instruction: bank.box.sealJson(instruction),
      status: heldReason ? 'held' : 'pending',
      heldReason,
    };
  });
  await repo.insertBankPayouts(tx, rows);
  const windows = [...new Map(rows.filter((r) => r.status === 'pending').map((r) => [`${r.debtorAccount}:${r.scheme}`, { debtorAccount: r.debtorAccount as string, scheme: r.scheme as string }])).values()];
  const now = Date.now();
  const jobs = windows.map((w) => cutoffJob(w.debtorAccount, w.scheme, new Date(now + bank.config.cutoff.maxSeconds * 1000)));
  for (const w of await repo.pendingWindows(tx, windows)) {
    if (w.n >= bank.config.cutoff.maxPayouts) jobs.push(cutoffJob(w.debtor_account, w.scheme, new Date(now)));
  }
  await enqueueMany(tx, jobs);
}

/**
 * A queued payout ends before it leaves (cancelled, or failed by the operator): a pending or held one
 * is let go (it will be in no file); one in a file already cannot be stopped (false). The cut-off locks
 * the same row, so the two never cross: a payout is either in its file or released.
 */
export async function releasePayout(tx: Tx, payoutId: string): Promise<boolean> {
  return (await repo.releaseBankPayout(tx, payoutId)) !== 'in_file';
}

/** MsgId: the file id without dashes (32 characters; ISO allows 35), unique, never reused (files are never deleted). */
const msgIdOf = (fileId: string): string => fileId.replace(/-/g, '');

/** The file's payment information blocks: one per rail (SEPA credit, SEPA instant, SWIFT), in the window's order; PmtInfId `<MsgId>-<n>` (at most 35 characters). */
function batchesOf(msgId: string, transfers: readonly { route: string; transfer: CreditTransfer }[]): PaymentBatch[] {
  const routes = [...new Set(transfers.map((t) => t.route))];
  return routes.map((route, i) => ({
    id: `${msgId}-${i + 1}`,
    instant: route === 'sepa_inst',
    transfers: transfers.filter((t) => t.route === route).map((t) => t.transfer),
  }));
}

type Cut = 'none' | 'recorded' | 'invalid' | 'held';

/** One attempt at a window's file: its identity, blocks and bytes, and what the schema says of it. */
interface Attempt {
  fileId: string;
  msgId: string;
  createdAt: Date;
  batches: PaymentBatch[];
  built: BuiltFile;
  bytes: Buffer;
  validation: Validation;
}

async function attemptFile(calendar: BankCalendar, account: BankAccount, scheme: Scheme, transfers: readonly { route: string; transfer: CreditTransfer }[]): Promise<Attempt> {
  const fileId = randomUUID();
  const msgId = msgIdOf(fileId);
  const createdAt = new Date();
  const batches = batchesOf(msgId, transfers);
  const built = buildPain001({
    scheme,
    msgId,
    createdAt,
    executionDate: executionDate(createdAt, calendar),
    debtor: { name: account.name, iban: account.iban, bic: account.bic, currency: account.currency, address: account.address },
    batchBooking: account.batchBooking,
    batches,
  });
  return { fileId, msgId, createdAt, batches, built, bytes: Buffer.from(built.xml, 'utf8'), validation: await validatePain001(built.xml, scheme) };
}

/**
 * The name the file goes under: the section's `fileNames.outbound` template (its `{seq}` counted
 * under the account's lock), `.pgp` added when the file is encrypted.
 */
async function fileNameOf(bank: BankRuntime, tx: Tx, account: BankAccount, scheme: Scheme, a: Attempt, at: Date): Promise<string> {
  const template = bank.config.fileNames.outbound;
  const timeZone = bank.config.calendar.timeZone;
  const seq = template.usesSeq ? await repo.nextFileSeq(tx, account.id, bankDay(at, timeZone), timeZone) : 0;
  const name = renderFileName(template, { account: account.id, bic: account.bic, scheme, msgId: a.msgId, at, timeZone, seq });
  return bank.pgp && !isPgpName(name) ? `${name}.pgp` : name;
}

/**
 * Records a file as it will be sent: with `pgp`, the validated XML encrypted to the bank's key and
 * signed with ours, and those bytes recorded (sealed), so that every delivery, a resend after a crash
 * too, sends the very bytes recorded. An invalid attempt is recorded as written (it never leaves).
 */
async function recordAttempt(bank: BankRuntime, tx: Tx, account: BankAccount, scheme: Scheme, a: Attempt): Promise<void> {
  const sent = bank.pgp && a.validation.valid ? await bank.pgp.encryptAndSign(a.bytes) : a.bytes;
  await repo.insertBankFile(tx, {
    id: a.fileId,
    msgId: a.msgId,
    fileName: await fileNameOf(bank, tx, account, scheme, a, a.createdAt),
    debtorAccount: account.id,
    scheme,
    message: a.built.message,
    content: bank.box.encrypt(sent.toString('base64')),
    sha256: createHash('sha256').update(sent).digest('hex'),
    byteSize: sent.length,
    nbOfTxs: a.built.nbOfTxs,
    ctrlSum: a.built.ctrlSum,
    status: a.validation.valid ? 'recorded' : 'invalid',
    validationError: a.validation.valid ? null : a.validation.errors.join('\n'),
  });
}

/** The validator's messages by the EndToEndId of the transfer they concern; those about no one transfer under `undefined`. */
function failuresByTransfer(a: Attempt): Map<string | undefined, string[]> {
  const at = transferAtLine(a.built.xml);
  const by = new Map<string | undefined, string[]>();
  for (const f of a.validation.failures) {
    const id = f.line === undefined ? undefined : at(f.line);
    by.set(id, [...(by.get(id) ?? []), f.line === undefined ? f.message : `line ${f.line}: ${f.message}`]);
  }
  return by;
}

const heldReasonOf = (a: Attempt, errors: readonly string[]): string => `file ${a.msgId} failed ${a.built.message} validation: ${errors.join('; ')}`.slice(0, 4000);

/**
 * Cuts at most one file of a window, in one transaction: when the window holds maxPayouts payouts or
 * its oldest has waited maxSeconds, its oldest payouts (at most maxPayouts) are written as a pain.001
 * file and validated against the scheme's XSD. A valid file is recorded (bytes, SHA-256, MsgId) with
 * its upload job before anything is sent. A payout can only ever hold itself: one whose text cannot
 * be written is held before the file is built, and when the schema refuses a file, the attempt is
 * recorded as invalid (it never leaves), the payouts the validator's messages point at are held for the
 * operator with those messages, and the file is built again of the others. Only a fault of the file
 * itself (no one payout at fault) holds every payout of the attempt.
 */
async function cutOneFile(ctx: AppContext, bank: BankRuntime, tx: Tx, account: BankAccount, scheme: Scheme): Promise<Cut> {
  await repo.lockWindow(tx, account.id, scheme);
  const { maxPayouts, maxSeconds } = bank.config.cutoff;
  const pending = await repo.pendingOfWindow(tx, account.id, scheme, maxPayouts, maxSeconds);
  if (pending.length === 0 || (pending.length < maxPayouts && !pending[0]?.due)) return 'none';
  let transfers: { route: string; transfer: CreditTransfer }[] = [];
  for (const row of pending) {
    const instruction = bank.box.openJson<Instruction>(row.instruction);
    const source: TransferSource = { id: row.payout_id, ...instruction, uetr: row.uetr };
    try {
      transfers.push({ route: row.route, transfer: creditTransferOf(source) });
    } catch (err) {
      await repo.holdBankPayouts(tx, [row.payout_id], null, (err as Error).message);
    }
  }
  for (;;) {
    // Every payout of the window was held: nothing to file, look at the window again.
    if (transfers.length === 0) return 'held';
    const attempt = await attemptFile(bank.config.calendar, account, scheme, transfers);
    await recordAttempt(bank, tx, account, scheme, attempt);
    if (attempt.validation.valid) {
      const blocks = attempt.batches.flatMap((b) => b.transfers.map((t) => ({ payoutId: payoutIdOf(t.endToEndId, pending), pmtInfId: b.id })));
      await repo.fileInBlocks(tx, attempt.fileId, blocks);
      await enqueueMany(tx, [{ kind: BANK_UPLOAD_JOB, payload: { fileId: attempt.fileId }, uniqueKey: `${BANK_UPLOAD_JOB}:${attempt.fileId}`, maxAttempts: LIFECYCLE_JOB_ATTEMPTS_MAX }]);
      return 'recorded';
    }
    const byTransfer = failuresByTransfer(attempt);
    const fileLevel = byTransfer.get(undefined);
    ctx.log.error({ fileId: attempt.fileId, msgId: attempt.msgId, errors: attempt.validation.errors }, 'bank: a pain.001 file failed its schema; the payouts at fault are held for the operator');
    if (fileLevel || byTransfer.size === 0) {
      const ids = transfers.map((t) => payoutIdOf(t.transfer.endToEndId, pending));
      await repo.holdBankPayouts(tx, ids, attempt.fileId, heldReasonOf(attempt, attempt.validation.errors));
      return 'invalid';
    }
    for (const [endToEndId, errors] of byTransfer) {
      await repo.holdBankPayouts(tx, [payoutIdOf(endToEndId as string, pending)], attempt.fileId, heldReasonOf(attempt, errors));
    }
    transfers = transfers.filter((t) => !byTransfer.has(t.transfer.endToEndId));
  }
}

function payoutIdOf(endToEndId: string, rows: readonly repo.PendingRow[]): string {
  return (rows.find((r) => endToEndIdOf(r.payout_id) === endToEndId) as repo.PendingRow).payout_id;
}

/** The window a cut-off job names, if the configuration still has its account. */
function windowOf(bank: BankRuntime, payload: Record<string, unknown>): { account: BankAccount; scheme: Scheme } | undefined {
  const account = bank.config.accounts.find((a) => a.id === payload.account);
  const scheme = payload.scheme === 'sepa' || payload.scheme === 'swift' ? payload.scheme : undefined;
  return account && scheme ? { account, scheme } : undefined;
}

/**
 * A cut-off job: cuts the window's files while it is full or due (each file its own transaction).
 * Returns when to look again when payouts are left waiting (their window is not due yet).
 */
export async function runCutoff(ctx: AppContext, bank: BankRuntime, payload: Record<string, unknown>): Promise<Date | undefined> {
  const window = windowOf(bank, payload);
  if (!window) return undefined;
  while ((await ctx.db.tx((tx) => cutOneFile(ctx, bank, tx, window.account, window.scheme))) !== 'none');
  const [left] = await repo.pendingWindows(ctx.db, [{ debtorAccount: window.account.id, scheme: window.scheme }]);
  if (!left) return undefined;
  return new Date(Math.max(Date.now(), left.oldest.getTime() + bank.config.cutoff.maxSeconds * 1000) + 50);
}

/**
 * An upload job: sends a recorded file to the bank's inbox (unless the listing shows it arrived
 * before a crash), then in one transaction marks it delivered and moves its payouts to processing
 * (with the UETR of each SWIFT payout). A failed attempt is kept on the file for the operator and
 * the job retries with backoff; a host key mismatch sends nothing. The fedwire connector delivers
 * its files (scheme 'fedwire', src/connectors/fedwire) through this same step, with its own transport.
 */
export async function runUpload(ctx: AppContext, bank: Pick<BankRuntime, 'transport' | 'box'>, fileId: string): Promise<void> {
  const file = await repo.findBankFile(ctx.db, fileId);
  if (!file || file.status !== 'recorded') return;
  const bytes = Buffer.from(bank.box.decrypt(file.content), 'base64');
  try {
    const outcome = await bank.transport.deliver(file.file_name, bytes);
    ctx.log.info({ fileId, msgId: file.msg_id, outcome }, 'bank: pain.001 file in the bank inbox');
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    if (err instanceof HostKeyMismatchError) ctx.log.error({ fileId, expected: err.expected, presented: err.presented }, 'bank: SFTP host key mismatch, nothing sent');
    await repo.recordFileError(ctx.db, fileId, message);
    throw err;
  }
  await ctx.db.tx(async (tx) => {
    if (!(await repo.markFileDelivered(tx, fileId))) return;
    const payouts = await repo.deliverFilePayouts(tx, fileId);
    await reportPayoutOutcomes(
      ctx,
      tx,
      payouts.map((p) => ({ payoutId: p.payout_id, move: 'process' as const, ...(p.uetr ? { rail: { uetr: p.uetr } } : {}) })),
    );
  });
}

/**
 * The bank's Verification of Payee of a payout it was sent (RCVC, RVMC, RVNM, RVNA in its pain.002):
 * kept on the payout as its recipient check (the name checked is the beneficiary's as the file wrote it).
 */
async function keepVerification(bank: BankRuntime, tx: Tx, payout: { id: string; workspaceId: string; accountId: string }, v: PayeeVerification): Promise<void> {
  const sealed = await repo.instructionOf(tx, payout.id);
  if (!sealed) return;
  const instruction = bank.box.openJson<Instruction>(sealed);
  await recordReportedCheck(tx, { payoutId: payout.id, workspaceId: payout.workspaceId, accountId: payout.accountId, connector: 'bank', name: instruction.beneficiary.name ?? '', result: v.result, railName: v.railName, reason: v.reason });
}

/**
 * With `pgp`, a file from the bank is read only once decrypted and its signature verified: a `.pgp`,
 * `.gpg` or `.asc` file is opened into `<folder>/opened.xml`; one that cannot be decrypted or is not
 * signed by the bank is refused with the reason (quarantined, for the operator to take up with the
 * bank), and so is a file in clear while `requireIncoming` holds.
 */
function openWith(pgp: BankPgp): NonNullable<InboundOptions['open']> {
  return async (name, local, folder) => {
    if (!isPgpName(name)) {
      return pgp.settings.requireIncoming ? { refused: 'the file is not PGP-encrypted, and "bank".pgp.requireIncoming asks every file from the bank to be encrypted and signed: not read' } : { path: local };
    }
    const opened = await pgp.decryptAndVerify(await fs.readFile(local));
    if (!opened.ok) return { refused: opened.reason };
    const to = path.join(folder, 'opened.xml');
    await fs.writeFile(to, opened.plain);
    return { path: to };
  };
}

/**
 * One look at the bank's outbox (every `pollSeconds`): the files there are handed to the inbound
 * side (`pollInbound`), which takes each in once; a rejection of a whole message or block fails the
 * payouts this connector recorded in it. Returns when to look again.
 */
export async function runPoll(ctx: AppContext, bank: BankRuntime, connectorName: string): Promise<Date> {
  const results = await bank.transport.withOutbox((source) =>
    pollInbound(ctx, source, {
      accounts: bank.config.accounts,
      connector: connectorName,
      payoutsOfMessage: (tx, msgId, pmtInfId) => repo.payoutsOfMessage(tx, msgId, pmtInfId),
      holdPayouts: (tx, payoutIds, reason) => repo.holdBankPayouts(tx, payoutIds, null, reason),
      acknowledged: (tx, msgId, groupStatus) => repo.markFileAcknowledged(tx, msgId, groupStatus),
      open: bank.pgp ? openWith(bank.pgp) : undefined,
      payeeVerified: (tx, payout, v) => keepVerification(bank, tx, payout, v),
      maxFileBytes: bank.config.inbound.maxFileBytes,
      chunkEntries: bank.config.inbound.chunkEntries,
      readMemoryMb: bank.config.inbound.readMemoryMb,
      creditLimit: (account, currency) => creditLimitMinor(bank.config, account, currency),
      sentMessageOf: async (tx, payoutId) => {
        const sent = await repo.sentMessageOf(tx, payoutId);
        return sent ? { msgId: sent.msg_id, paymentInfoId: sent.pmt_inf_id ?? undefined } : undefined;
      },
    }),
  );
  if (results.length > 0) ctx.log.info({ files: results.map((r) => ({ name: r.name, outcome: r.outcome, ...('reason' in r ? { reason: r.reason } : {}) })) }, 'bank: outbox files taken in');
  return new Date(Date.now() + bank.config.pollSeconds * 1000);
}

// ---------------------------------------------------------------------------------------------
// The operator's reads

export function fileView(row: repo.BankFileRow) {
  return {
    id: row.id,
    msgId: row.msg_id,
    fileName: row.file_name,
    debtorAccount: row.debtor_account,
    scheme: row.scheme,
    message: row.message,
    status: row.status,
    payouts: row.nb_of_txs,
    controlSum: row.ctrl_sum.replace(/\.?0+$/, '') || '0',
    sha256: row.sha256,
    bytes: row.byte_size,
    validationError: row.validation_error,
    lastError: row.last_error,
    lastErrorAt: row.last_error_at ? row.last_error_at.toISOString() : null,
    createdAt: row.created_at.toISOString(),
    deliveredAt: row.delivered_at ? row.delivered_at.toISOString() : null,
  };
}

export function heldPayoutView(row: repo.HeldPayoutRow) {
  return {
    payoutId: row.payout_id,
    workspaceId: row.workspace_id,
    route: row.route,
    debtorAccount: row.debtor_account,
    amount: formatAmount(BigInt(row.amount_minor), row.currency),
    currency: row.currency,
    fileId: row.file_id,
    reason: row.held_reason ?? '',
    heldAt: row.updated_at.toISOString(),
  };
}

export function listBankFiles(sql: Sql, f: repo.FileFilters) {
  return repo.listBankFiles(sql, f, fileView);
}

export function listHeldPayouts(sql: Sql, f: PageRequest) {
  return repo.listHeldPayouts(sql, f, heldPayoutView);
}

/**
 * Where a payout stands at the bank connector, for the workspace's page: held before any file left
 * (why, in words; the operator acts, never the customer for the operator's problem), or waiting for
 * the next file. The technical detail (the validator's messages) stays on the console.
 */
export async function payoutProgress(bank: BankRuntime, sql: Sql, payoutId: string): Promise<RailProgress | undefined> {
  const row = await repo.findBankPayout(sql, payoutId);
  if (!row) return undefined;
  if (row.status === 'held') {
    const cause = row.file_id
      ? 'the payment file it was written into failed the bank’s format check, so that file was never sent'
      : row.held_reason?.startsWith('the bank connector does not serve') || row.held_reason?.startsWith('no bank account')
        ? 'the bank connection is not yet set up to send this kind of payment'
        : 'its details could not be written in the bank’s payment format';
    return {
      stage: 'held',
      actor: 'operator',
      why: `Held before it reached the bank: ${cause}. Nothing has been sent to the bank.`,
      next: 'Our operations team has been told and acts on it: they correct it and send it in a new file, or fail it, and then the amount and fee come back to your balance. Until then the amount stays reserved, and you can still cancel the payout here.',
    };
  }
  if (row.status === 'pending') {
    const every = bank.config.cutoff.maxSeconds;
    return {
      stage: 'waiting',
      actor: 'operator',
      why: `Waiting for the next payment file to the bank: a file is made at least every ${every < 120 ? `${every} seconds` : `${Math.round(every / 60)} minutes`} and sent on the bank’s business days.`,
      next: 'When the file is sent the payout moves to processing; the bank’s answer then pays it, or says why not. It can be cancelled until the file is made.',
    };
  }
  return undefined;
}
