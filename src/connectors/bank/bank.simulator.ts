import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { XMLParser } from 'fast-xml-parser';
import { create } from 'xmlbuilder2';
import type { XMLBuilder } from 'xmlbuilder2/lib/interfaces.js';
import { TEMPORARY_SUFFIX } from './bank.sftp.js';
import { decryptAndVerify, encryptAndSign, isPgpName, type PgpKeys } from './bank.pgp.js';
import { iso4217Scale } from '../../platform/lib/currencies.js';

/*
 * The sandbox bank: a local stand-in for the operator's bank, so integrators can run the real bank
 * connector (pain.001 files, cut-offs, the inbound pipeline, reconciliation's book) in the sandbox
 * and see the ISO 20022 reasons a bank gives. It reads each pain.001 file Corridor writes into
 * `<dir>/in` (the connector's `"directory"` transport) and answers it into `<dir>/out` as a bank
 * would: a pain.002 status report, a camt.054 for what it booked, a pacs.004 for what came back.
 * What happens to each payment is chosen by its amount's first two decimals (MAGIC_AMOUNTS). Run as
 * its own process: `corridor bank-sim --dir <dir>` (src/cli/bank-sim.ts). Never in production: the
 * connector refuses `"directory"` outside the sandbox.
 */

export type MagicOutcome =
  | { kind: 'reject'; code: string }
  | { kind: 'return'; code: string; via: 'pacs.004' | 'camt.054' }
  | { kind: 'pending' }
  | { kind: 'paid' };

/** The amounts that do something else than pay, by their first two decimals (10.61 EUR, 250.71 USD). */
export const MAGIC_AMOUNTS: Readonly<Record<string, MagicOutcome>> = {
  '61': { kind: 'reject', code: 'AC01' },
  '62': { kind: 'reject', code: 'AC04' },
  '63': { kind: 'reject', code: 'AC06' },
  '64': { kind: 'reject', code: 'AM04' },
  '65': { kind: 'reject', code: 'BE04' },
  '66': { kind: 'reject', code: 'RC01' },
  '67': { kind: 'reject', code: 'RR03' },
  '68': { kind: 'reject', code: 'AG01' },
  '71': { kind: 'return', code: 'AC04', via: 'pacs.004' },
  '72': { kind: 'return', code: 'MD07', via: 'pacs.004' },
  '73': { kind: 'return', code: 'AC03', via: 'pacs.004' },
  '74': { kind: 'return', code: 'MS03', via: 'pacs.004' },
  '75': { kind: 'return', code: 'AC06', via: 'camt.054' },
  '81': { kind: 'pending' },
};

/** What the sandbox bank does with a payment of this amount (as the pain.001 writes it, e.g. "10.61"). */
export function magicOutcome(amount: string): MagicOutcome {
  const decimals = amount.split('.')[1] ?? '';
  return (decimals.length >= 2 ? MAGIC_AMOUNTS[decimals.slice(0, 2)] : undefined) ?? { kind: 'paid' };
}

export interface SimTransaction {
  pmtInfId: string;
  endToEndId: string;
  amount: string;
  currency: string;
}

export interface SimFile {
  msgId: string;
  message: string;
  debtorIban: string;
  debtorCurrency: string | undefined;
  transactions: SimTransaction[];
}

const parser = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '@', removeNSPrefix: true, parseTagValue: false, isArray: (name) => name === 'PmtInf' || name === 'CdtTrfTxInf' });

type Node = Record<string, unknown>;
const at = (node: unknown, ...names: string[]): unknown => names.reduce<unknown>((n, name) => (n && typeof n === 'object' ? (n as Node)[name] : undefined), node);
const text = (node: unknown): string | undefined => {
  const value = node && typeof node === 'object' ? (node as Node)['#text'] : node;
  return value === undefined || value === null ? undefined : String(value).trim();
};

/** A pain.001 file as the sandbox bank reads it; throws when it is not one. */
export function readPain001(xml: string): SimFile {
  const doc = parser.parse(xml) as Node;
  const root = at(doc, 'Document', 'CstmrCdtTrfInitn');
  const msgId = text(at(root, 'GrpHdr', 'MsgId'));
  if (!root || !msgId) throw new Error('not a pain.001 file (no CstmrCdtTrfInitn/GrpHdr/MsgId)');
  const blocks = (at(root, 'PmtInf') as Node[] | undefined) ?? [];
  const first = blocks[0];
  const transactions = blocks.flatMap((block) =>
    ((block.CdtTrfTxInf as Node[] | undefined) ?? []).map((tx) => {
      const amount = at(tx, 'Amt', 'InstdAmt');
      return { pmtInfId: text(block.PmtInfId) ?? '', endToEndId: text(at(tx, 'PmtId', 'EndToEndId')) ?? '', amount: text(amount) ?? '0', currency: String((amount as Node | undefined)?.['@Ccy'] ?? '') };
    }),
  );
  return {
    msgId,
    message: /urn:iso:std:iso:20022:tech:xsd:(pain\.001\.\d{3}\.\d{2})/.exec(xml)?.[1] ?? 'pain.001.001.09',
    debtorIban: text(at(first, 'DbtrAcct', 'Id', 'IBAN')) ?? '',
    debtorCurrency: text(at(first, 'DbtrAcct', 'Ccy')),
    transactions,
  };
}

// ---------------------------------------------------------------------------------------------
// The answers, in the order the ISO schemas ask for (they validate against src/connectors/bank/inbound/xsd/)

const NS = (message: string) => `urn:iso:std:iso:20022:tech:xsd:${message}`;
const newId = (prefix: string) => `${prefix}${randomBytes(12).toString('hex').toUpperCase()}`;
const dateTime = (d: Date) => d.toISOString().slice(0, 19);
const date = (d: Date) => d.toISOString().slice(0, 10);
const NOTE = 'Corridor sandbox bank';

function document(message: string): { doc: XMLBuilder; root: XMLBuilder } {
  const doc = create({ version: '1.0', encoding: 'UTF-8' });
  return { doc, root: doc.ele(NS(message), 'Document') };
}

const groupHeader = (parent: XMLBuilder, now: Date, prefix: string): XMLBuilder => {
  const hdr = parent.ele('GrpHdr');
  hdr.ele('MsgId').txt(newId(prefix));
  hdr.ele('CreDtTm').txt(dateTime(now));
  return hdr;
};

/** pain.002.001.11: every transaction's status, RJCT with its reason, ACSC (or ACSP, pending) otherwise. */
export function statusReport(file: SimFile, now: Date): string {
  const { doc, root } = document('pain.002.001.11');
  const report = root.ele('CstmrPmtStsRpt');
  groupHeader(report, now, 'STS');
  const group = report.ele('OrgnlGrpInfAndSts');
  group.ele('OrgnlMsgId').txt(file.msgId);
  group.ele('OrgnlMsgNmId').txt(file.message);
  for (const pmtInfId of [...new Set(file.transactions.map((t) => t.pmtInfId))]) {
    const block = report.ele('OrgnlPmtInfAndSts');
    block.ele('OrgnlPmtInfId').txt(pmtInfId);
    for (const t of file.transactions.filter((x) => x.pmtInfId === pmtInfId)) {
      const outcome = magicOutcome(t.amount);
      const tx = block.ele('TxInfAndSts');
      tx.ele('OrgnlEndToEndId').txt(t.endToEndId);
      tx.ele('TxSts').txt(outcome.kind === 'reject' ? 'RJCT' : outcome.kind === 'pending' ? 'ACSP' : 'ACSC');
      if (outcome.kind === 'reject') {
        const reason = tx.ele('StsRsnInf');
        reason.ele('Rsn').ele('Cd').txt(outcome.code);
        reason.ele('AddtlInf').txt(`${NOTE}: magic amount ${t.amount}`);
      }
      tx.ele('OrgnlTxRef').ele('Amt').ele('InstdAmt', { Ccy: t.currency }).txt(t.amount);
    }
  }
  return doc.end({ prettyPrint: true });
}

interface BookedEntry {
  direction: 'debit' | 'credit';
  transaction: SimTransaction;
  returnCode?: string | undefined;
}

/**
 * The sandbox bank's exchange rates, in units of a currency per 1 EUR (millionths): a payment
 * instructed in another currency than the account's (an FX-funded payout, USD from a EUR account) is
 * booked in the account's currency at these rates, as a bank books it. A currency not listed books 1:1.
 */
export const SANDBOX_RATES_PER_EUR: Readonly<Record<string, bigint>> = { EUR: 1_000_000n, USD: 1_080_000n, GBP: 850_000n, CHF: 940_000n };

/** An amount instructed in one currency as the sandbox bank books it on an account in another: the booked amount, and the rate as ISO writes XchgRate (units of the instructed currency per unit of the account's). */
export function bookedInAccountCurrency(amount: string, currency: string, accountCurrency: string): { amount: string; rate: string } {
  const scaleOf = (c: string) => iso4217Scale(c) ?? 2;
  const perEur = (c: string) => SANDBOX_RATES_PER_EUR[c] ?? 1_000_000n;
  const [whole = '0', fraction = ''] = amount.split('.');
  const instructedMinor = BigInt(whole + fraction.padEnd(scaleOf(currency), '0').slice(0, scaleOf(currency)));
  // accountMinor = instructed / (perEur[currency] / perEur[account]), at the account currency's scale, rounded half up.
  const numerator = instructedMinor * perEur(accountCurrency) * 10n ** BigInt(scaleOf(accountCurrency)) * 2n;
  const denominator = perEur(currency) * 10n ** BigInt(scaleOf(currency));
  const accountMinor = (numerator / denominator + 1n) / 2n;
  const scale = scaleOf(accountCurrency);
  const digits = accountMinor.toString().padStart(scale + 1, '0');
  const booked = scale === 0 ? digits : `${digits.slice(0, -scale)}.${digits.slice(-scale)}`;
  const rateMicro = (perEur(currency) * 1_000_000n) / perEur(accountCurrency);
  const rate = `${rateMicro / 1_000_000n}.${(rateMicro % 1_000_000n).toString().padStart(6, '0')}`;
  return { amount: booked, rate };
}

function notificationEntry(parent: XMLBuilder, e: BookedEntry, day: string, accountCurrency: string | undefined): void {
  const cd = e.direction === 'credit' ? 'CRDT' : 'DBIT';
  const t = e.transaction;
  // Booked in the account's currency, as banks do; the instructed amount and the rate kept in AmtDtls.
  const converted = accountCurrency !== undefined && accountCurrency !== t.currency ? bookedInAccountCurrency(t.amount, t.currency, accountCurrency) : undefined;
  const booked = converted ? { amount: converted.amount, currency: accountCurrency as string } : { amount: t.amount, currency: t.currency };
  const ntry = parent.ele('Ntry');
  ntry.ele('Amt', { Ccy: booked.currency }).txt(booked.amount);
  ntry.ele('CdtDbtInd').txt(cd);
  ntry.ele('Sts').ele('Cd').txt('BOOK');
  ntry.ele('BookgDt').ele('Dt').txt(day);
  ntry.ele('ValDt').ele('Dt').txt(day);
  ntry.ele('AcctSvcrRef').txt(newId('SBX'));
  const family = ntry.ele('BkTxCd').ele('Domn');
  family.ele('Cd').txt('PMNT');
  const fmly = family.ele('Fmly');
  fmly.ele('Cd').txt('ICDT');
  fmly.ele('SubFmlyCd').txt(e.returnCode ? 'RRTN' : 'ESCT');
  const tx = ntry.ele('NtryDtls').ele('TxDtls');
  tx.ele('Refs').ele('EndToEndId').txt(t.endToEndId);
  tx.ele('Amt', { Ccy: booked.currency }).txt(booked.amount);
  tx.ele('CdtDbtInd').txt(cd);
  if (converted) {
    const instructed = tx.ele('AmtDtls').ele('InstdAmt');
    instructed.ele('Amt', { Ccy: t.currency }).txt(t.amount);
    const xchg = instructed.ele('CcyXchg');
    xchg.ele('SrcCcy').txt(booked.currency);
    xchg.ele('TrgtCcy').txt(t.currency);
    xchg.ele('UnitCcy').txt(booked.currency);
    xchg.ele('XchgRate').txt(converted.rate);
  }
  if (e.returnCode) {
    const rtr = tx.ele('RtrInf');
    rtr.ele('Rsn').ele('Cd').txt(e.returnCode);
    rtr.ele('AddtlInf').txt(`${NOTE}: magic amount ${t.amount}`);
  }
}

/** camt.054.001.08: entries booked on the debtor account today. */
export function notification(file: SimFile, entries: readonly BookedEntry[], now: Date): string {
  const { doc, root } = document('camt.054.001.08');
  const message = root.ele('BkToCstmrDbtCdtNtfctn');
  groupHeader(message, now, 'NTF');
  const ntfctn = message.ele('Ntfctn');
  ntfctn.ele('Id').txt(newId('N'));
  ntfctn.ele('CreDtTm').txt(dateTime(now));
  const acct = ntfctn.ele('Acct');
  acct.ele('Id').ele('IBAN').txt(file.debtorIban);
  if (file.debtorCurrency) acct.ele('Ccy').txt(file.debtorCurrency);
  for (const e of entries) notificationEntry(ntfctn, e, date(now), file.debtorCurrency);
  return doc.end({ prettyPrint: true });
}

/** pacs.004.001.10: payments returned by the beneficiary's bank, with their ISO return reason. */
export function paymentReturn(returns: readonly { transaction: SimTransaction; code: string }[], now: Date): string {
  const { doc, root } = document('pacs.004.001.10');
  const message = root.ele('PmtRtr');
  const hdr = groupHeader(message, now, 'RTR');
  hdr.ele('NbOfTxs').txt(String(returns.length));
  hdr.ele('SttlmInf').ele('SttlmMtd').txt('CLRG');
  for (const r of returns) {
    const tx = message.ele('TxInf');
    tx.ele('RtrId').txt(newId('R'));
    tx.ele('OrgnlEndToEndId').txt(r.transaction.endToEndId);
    tx.ele('RtrdIntrBkSttlmAmt', { Ccy: r.transaction.currency }).txt(r.transaction.amount);
    tx.ele('IntrBkSttlmDt').txt(date(now));
    const reason = tx.ele('RtrRsnInf');
    reason.ele('Rsn').ele('Cd').txt(r.code);
    reason.ele('AddtlInf').txt(`${NOTE}: magic amount ${r.transaction.amount}`);
  }
  return doc.end({ prettyPrint: true });
}

/** The answers to one pain.001 file, in the order the bank sends them (names sort in that order). */
export function answersTo(file: SimFile, now: Date): { kind: string; xml: string }[] {
  const outcomes = file.transactions.map((transaction) => ({ transaction, outcome: magicOutcome(transaction.amount) }));
  const booked = outcomes.filter((o) => o.outcome.kind === 'paid' || o.outcome.kind === 'return');
  const viaPacs = outcomes.flatMap((o) => (o.outcome.kind === 'return' && o.outcome.via === 'pacs.004' ? [{ transaction: o.transaction, code: o.outcome.code }] : []));
  const viaCamt = outcomes.flatMap((o) => (o.outcome.kind === 'return' && o.outcome.via === 'camt.054' ? [{ direction: 'credit' as const, transaction: o.transaction, returnCode: o.outcome.code }] : []));
  const answers = [{ kind: 'pain002', xml: statusReport(file, now) }];
  if (booked.length > 0) answers.push({ kind: 'camt054', xml: notification(file, booked.map((o) => ({ direction: 'debit' as const, transaction: o.transaction })), now) });
  if (viaPacs.length > 0) answers.push({ kind: 'pacs004', xml: paymentReturn(viaPacs, now) });
  if (viaCamt.length > 0) answers.push({ kind: 'camt054-return', xml: notification(file, viaCamt, now) });
  return answers;
}

// ---------------------------------------------------------------------------------------------
// The folder

export interface SandboxBankOptions {
  /** The folder the connector's `"directory"` names: pain.001 files arrive in `in/`, answers go to `out/`. */
  dir: string;
  log?: ((line: string) => void) | undefined;
  now?: (() => Date) | undefined;
  /**
   * The bank's PGP, as a host-to-host service with PGP works: `theirs` is Corridor's public key,
   * `ours` the bank's private key. A file that is not PGP-encrypted and signed by Corridor is not
   * answered (moved to `in/unreadable/`); every answer is encrypted to Corridor and signed, `<name>.xml.pgp`.
   */
  pgp?: PgpKeys | undefined;
}

export interface Answered {
  file: string;
  msgId?: string | undefined;
  answers: string[];
  error?: string | undefined;
}

let sequence = 0;
const stamp = (now: Date) => `${now.toISOString().replace(/[-:.]/g, '').slice(0, 18)}-${String(++sequence % 1_000_000).padStart(6, '0')}`;

async function writeAtomically(file: string, bytes: string | Buffer): Promise<void> {
  await fs.writeFile(`${file}${TEMPORARY_SUFFIX}`, bytes);
  await fs.rename(`${file}${TEMPORARY_SUFFIX}`, file);
}

/** A file of the inbox as text: with PGP, decrypted and Corridor's signature verified (or an Error saying why not). */
async function readInboxFile(name: string, bytes: Buffer, pgp: PgpKeys | undefined): Promise<string> {
  if (!pgp) return bytes.toString('utf8');
  if (!isPgpName(name)) throw new Error('not PGP-encrypted, and this bank takes PGP files only');
  const opened = await decryptAndVerify(pgp, bytes);
  if (!opened.ok) throw new Error(opened.reason);
  return opened.plain.toString('utf8');
}

/**
 * One look at the inbox: every pain.001 file waiting (final names only) is answered into `out/` and
 * then moved to `in/answered/` (a file that is not a pain.001 to `in/unreadable/`), so each is
 * answered once. A file delivered again after Corridor was interrupted (the same name already
 * answered) is answered no second time.
 */
export async function answerInbox(options: SandboxBankOptions): Promise<Answered[]> {
  const inbox = path.join(options.dir, 'in');
  const outbox = path.join(options.dir, 'out');
  for (const dir of [inbox, outbox, path.join(inbox, 'answered'), path.join(inbox, 'unreadable')]) await fs.mkdir(dir, { recursive: true });
  const names = (await fs.readdir(inbox, { withFileTypes: true })).filter((e) => e.isFile() && (e.name.toLowerCase().endsWith('.xml') || (options.pgp !== undefined && isPgpName(e.name)))).map((e) => e.name).sort();
  const done: Answered[] = [];
  for (const name of names) {
    const source = path.join(inbox, name);
    const answered = path.join(inbox, 'answered', name);
    if (await fs.stat(answered).catch(() => undefined)) {
      await fs.rm(source);
      continue;
    }
    let file: SimFile;
    try {
      file = readPain001(await readInboxFile(name, await fs.readFile(source), options.pgp));
    } catch (err) {
      await fs.rename(source, path.join(inbox, 'unreadable', name));
      const error = err instanceof Error ? err.message : String(err);
      options.log?.(`${name}: not answered, ${error}`);
      done.push({ file: name, answers: [], error });
      continue;
    }
    const now = options.now?.() ?? new Date();
    const written: string[] = [];
    for (const answer of answersTo(file, now)) {
      const out = `${stamp(now)}-${answer.kind}-${file.msgId}.xml${options.pgp ? '.pgp' : ''}`;
      await writeAtomically(path.join(outbox, out), options.pgp ? await encryptAndSign(options.pgp, Buffer.from(answer.xml, 'utf8')) : answer.xml);
      written.push(out);
    }
    await fs.rename(source, answered);
    options.log?.(`${name}: ${file.transactions.length} payment(s) answered with ${written.map((w) => w.split('-').slice(2, -1).join('-')).join(', ')}`);
    done.push({ file: name, msgId: file.msgId, answers: written });
  }
  return done;
}

/**
 * Answers the inbox every `intervalMs` until the signal aborts. Each wait's abort listener goes
 * with the wait (timers/promises removes it when the timer fires), so a long run adds none.
 */
export async function runSandboxBank(options: SandboxBankOptions & { intervalMs: number; signal: AbortSignal }): Promise<void> {
  while (!options.signal.aborted) {
    try {
      await answerInbox(options);
    } catch (err) {
      options.log?.(`error: ${err instanceof Error ? err.message : String(err)}`);
    }
    await sleep(options.intervalMs, undefined, { signal: options.signal }).catch((err: unknown) => {
      if (!options.signal.aborted) throw err;
    });
  }
}
