import { createHash, randomUUID } from 'node:crypto';
import type { AppContext } from '../../platform/context.js';
import type { Tx } from '../../platform/db/db.js';
import { enqueueMany, LIFECYCLE_JOB_ATTEMPTS_MAX, type NewJob } from '../../platform/jobs/queue.js';
import type { CryptoBox } from '../../platform/lib/crypto-box.js';
import { formatAmount } from '../../platform/lib/money.js';
import {
  endToEndIdOf,
  fileInBlocks,
  holdBankPayouts,
  insertBankFile,
  insertBankPayouts,
  lockWindow,
  pendingOfWindow,
  pendingWindows,
  toEpcLatin,
  transferAtLine,
  validatePain001,
  type BankTransport,
  type NewBankPayout,
  type PendingRow,
} from '../bank/bank.port.js';
import type { HandedOverPayout } from '../connector.js';
import { fedwireExecutionDate } from './calendar.js';
import type { FedwireAddress, FedwireConfig } from './config.js';
import { buildWireFile, FEDWIRE_MESSAGE, type WireTransfer } from './pain001.js';

export const FEDWIRE_CUTOFF_JOB = 'fedwire.cutoff';
export const FEDWIRE_UPLOAD_JOB = 'fedwire.upload';
export const FEDWIRE_POLL_JOB = 'fedwire.poll';

/** The outbound record's scheme for wires (bank_payouts, bank_files). */
export const SCHEME = 'fedwire';

/** What the connector works with: its validated section, the way to the bank (the bank connector's transport), the encryption box. */
export interface FedwireRuntime {
  config: FedwireConfig;
  transport: BankTransport;
  box: CryptoBox;
}

/** What a wire file needs of a payout, sealed in bank_payouts.instruction (it names the beneficiary). */
interface Instruction {
  amount: string;
  currency: string;
  beneficiary: Record<string, unknown>;
  sender: Record<string, unknown> | null;
  reference: string | null;
}

const cutoffJob = (runAt: Date): NewJob => ({ kind: FEDWIRE_CUTOFF_JOB, payload: {}, runAt, maxAttempts: LIFECYCLE_JOB_ATTEMPTS_MAX });

/**
 * Takes payouts in, in the payouts step's transaction: each recorded pending with its EndToEndId and
 * a new UETR (kept for good: the file, the bank's pacs.008 and the Fed's answers all carry it); one
 * that is no USD wire is held for the operator. A cut-off job looks at the window after its seconds,
 * and at once when it is full. A payout handed over twice is recorded once (its UETR is the first's).
 */
export async function acceptWires(fw: FedwireRuntime, tx: Tx, payouts: readonly HandedOverPayout[]): Promise<void> {
  const account = fw.config.account;
  const rows: NewBankPayout[] = payouts.map((p) => {
    const heldReason = p.rail !== 'fedwire' ? `the fedwire connector does not serve the ${p.rail} rail` : p.currency !== 'USD' || p.fundingCurrency !== 'USD' ? `a Fedwire payout is paid from the USD account in USD; this one is ${p.currency} funded in ${p.fundingCurrency}` : null;
    const instruction: Instruction = { amount: formatAmount(p.amountMinor, p.currency), currency: p.currency, beneficiary: p.beneficiary, sender: p.sender, reference: p.reference };
    return {
      payoutId: p.id,
      workspaceId: p.workspaceId,
      route: p.rail,
      scheme: SCHEME,
      debtorAccount: account.id,
      currency: p.currency,
      amountMinor: p.amountMinor,
      endToEndId: endToEndIdOf(p.id),
      uetr: randomUUID(),
      instruction: fw.box.sealJson(instruction),
      status: heldReason ? 'held' : 'pending',
      heldReason,
    };
  });
  await insertBankPayouts(tx, rows);
  const now = Date.now();
  const jobs = [cutoffJob(new Date(now + fw.config.cutoff.maxSeconds * 1000))];
  const [window] = await pendingWindows(tx, [{ debtorAccount: account.id, scheme: SCHEME }]);
  if (window && window.n >= fw.config.cutoff.maxPayouts) jobs.push(cutoffJob(new Date(now)));
  await enqueueMany(tx, jobs);
}

const str = (value: unknown): string | undefined => (typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined);

/** A text in the EPC Latin set (a subset of Fedwire's), within its field; throws naming the field (the payout is then held alone). */
function latin(field: string, value: string | undefined, max: number): string | undefined {
  if (value === undefined) return undefined;
  const converted = toEpcLatin(value);
  if (!converted.ok) throw new Error(`${field} ${converted.reason}, which a wire file cannot carry`);
  if (converted.text.length > max) throw new Error(`${field} is ${converted.text.length} characters; a wire file takes at most ${max}`);
  return converted.text;
}

function senderName(sender: Record<string, unknown> | null): string | undefined {
  if (!sender) return undefined;
  const info = (sender.senderInfo ?? sender) as Record<string, unknown>;
  return str(info.companyName) ?? ([str(info.firstName), str(info.lastName)].filter(Boolean).join(' ') || undefined);
}

function addressOf(b: Record<string, unknown>): FedwireAddress | undefined {
  const country = str(b.country);
  const town = str(b.city);
  if (!country || !town) return undefined;
  const street = [str(b.address), str(b.addressLine2)].filter(Boolean).join(', ') || undefined;
  return {
    street: latin('beneficiary.address', street, 70),
    postcode: latin('beneficiary.postcode', str(b.postcode), 16),
    town: latin('beneficiary.city', town, 35) as string,
    subdivision: latin('beneficiary.countrySubdivision', str(b.countrySubdivision), 35),
    country: country.toUpperCase(),
  };
}

/** A pending payout as a wire: its US account (account number and ABA routing number); an Error (held) when it has none. */
export function wireTransferOf(payoutId: string, uetr: string, i: Instruction): WireTransfer {
  const accounts = (i.beneficiary.accounts ?? []) as { type?: string; data?: Record<string, unknown> }[];
  const data = accounts.find((a) => a.type === 'bank_account' && str(a.data?.routingNumber) && str(a.data?.accountNumber))?.data;
  if (!data) throw new Error('the beneficiary has no US bank account (accountNumber and routingNumber)');
  return {
    endToEndId: endToEndIdOf(payoutId),
    uetr,
    amount: i.amount,
    creditor: { name: latin('beneficiary.name', str(i.beneficiary.name), 70) ?? '', address: addressOf(i.beneficiary) },
    accountNumber: str(data.accountNumber) as string,
    routingNumber: str(data.routingNumber) as string,
    remittance: latin('reference', str(i.reference), 140),
    ultimateDebtor: latin('senderInfo', senderName(i.sender), 70),
  };
}

type Cut = 'none' | 'recorded' | 'invalid' | 'held';

/** The validator's messages by the EndToEndId of the transfer on their line; those about no transfer under `undefined`. */
function failuresByTransfer(xml: string, failures: readonly { line: number | undefined; message: string }[]): Map<string | undefined, string[]> {
  const at = transferAtLine(xml);
  const by = new Map<string | undefined, string[]>();
  for (const f of failures) {
    const id = f.line === undefined ? undefined : at(f.line);
    by.set(id, [...(by.get(id) ?? []), f.line === undefined ? f.message : `line ${f.line}: ${f.message}`]);
  }
  return by;
}

/**
 * Cuts at most one wire file, in one transaction: when the window holds maxPayouts payouts or its
 * oldest has waited maxSeconds, its oldest payouts are written as one pain.001.001.10 file for the
 * next Fedwire business day the bank can still make (calendar.ts), validated against the ISO schema,
 * and recorded (bytes sealed, SHA-256, MsgId) with its upload job before anything is sent. A payout
 * whose text or account cannot be written is held alone; a file the schema refuses is recorded as
 * invalid (it never leaves), the payouts it names held with the validator's words, and it is built
 * again of the others.
 */
async function cutOneFile(ctx: AppContext, fw: FedwireRuntime, tx: Tx): Promise<Cut> {
  const account = fw.config.account;
  await lockWindow(tx, account.id, SCHEME);
  const { maxPayouts, maxSeconds } = fw.config.cutoff;
  const pending: PendingRow[] = await pendingOfWindow(tx, account.id, SCHEME, maxPayouts, maxSeconds);
  if (pending.length === 0 || (pending.length < maxPayouts && !pending[0]?.due)) return 'none';
  let transfers: { payoutId: string; transfer: WireTransfer }[] = [];
  for (const row of pending) {
    try {
      transfers.push({ payoutId: row.payout_id, transfer: wireTransferOf(row.payout_id, row.uetr as string, fw.box.openJson<Instruction>(row.instruction)) });
    } catch (err) {
      await holdBankPayouts(tx, [row.payout_id], null, (err as Error).message);
    }
  }
  for (;;) {
    if (transfers.length === 0) return 'held';
    const fileId = randomUUID();
    const msgId = fileId.replace(/-/g, '');
    const createdAt = new Date();
    const built = buildWireFile({ msgId, pmtInfId: `${msgId}-1`, createdAt, executionDate: fedwireExecutionDate(createdAt, fw.config.bankCutoff), debtor: account, transfers: transfers.map((t) => t.transfer) });
    const validation = await validatePain001(built.xml, 'swift');
    const bytes = Buffer.from(built.xml, 'utf8');
    await insertBankFile(tx, {
      id: fileId,
      msgId,
      fileName: `pain001-fedwire-${account.id}-${msgId}.xml`,
      debtorAccount: account.id,
      scheme: SCHEME,
      message: FEDWIRE_MESSAGE,
      content: fw.box.encrypt(bytes.toString('base64')),
      sha256: createHash('sha256').update(bytes).digest('hex'),
      byteSize: bytes.length,
      nbOfTxs: built.nbOfTxs,
      ctrlSum: built.ctrlSum,
      status: validation.valid ? 'recorded' : 'invalid',
      validationError: validation.valid ? null : validation.errors.join('\n'),
    });
    if (validation.valid) {
      await fileInBlocks(tx, fileId, transfers.map((t) => ({ payoutId: t.payoutId, pmtInfId: `${msgId}-1` })));
      await enqueueMany(tx, [{ kind: FEDWIRE_UPLOAD_JOB, payload: { fileId }, uniqueKey: `${FEDWIRE_UPLOAD_JOB}:${fileId}`, maxAttempts: LIFECYCLE_JOB_ATTEMPTS_MAX }]);
      return 'recorded';
    }
    ctx.log.error({ fileId, msgId, errors: validation.errors }, 'fedwire: a wire file failed its schema; the payouts at fault are held for the operator');
    const byTransfer = failuresByTransfer(built.xml, validation.failures);
    const why = (errors: readonly string[]) => `wire file ${msgId} failed ${FEDWIRE_MESSAGE} validation: ${errors.join('; ')}`.slice(0, 4000);
    if (byTransfer.has(undefined) || byTransfer.size === 0) {
      await holdBankPayouts(tx, transfers.map((t) => t.payoutId), fileId, why(validation.errors));
      return 'invalid';
    }
    for (const [endToEndId, errors] of byTransfer) {
      const at = transfers.find((t) => t.transfer.endToEndId === endToEndId);
      if (at) await holdBankPayouts(tx, [at.payoutId], fileId, why(errors));
    }
    transfers = transfers.filter((t) => !byTransfer.has(t.transfer.endToEndId));
  }
}

/** A cut-off job: cuts files while the window is full or due (each its own transaction); when payouts are left waiting, when to look again. */
export async function runWireCutoff(ctx: AppContext, fw: FedwireRuntime): Promise<Date | undefined> {
  while ((await ctx.db.tx((tx) => cutOneFile(ctx, fw, tx))) !== 'none');
  const [left] = await pendingWindows(ctx.db, [{ debtorAccount: fw.config.account.id, scheme: SCHEME }]);
  if (!left) return undefined;
  return new Date(Math.max(Date.now(), left.oldest.getTime() + fw.config.cutoff.maxSeconds * 1000) + 50);
}
