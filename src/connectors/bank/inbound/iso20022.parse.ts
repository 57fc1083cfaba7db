import { SaxesParser, type SaxesTagPlain } from 'saxes';
import { iso4217Scale } from '../../../platform/lib/currencies.js';

/*
 * Reading the files a bank sends back (ISO 20022): pain.002 status reports, camt.054 debit and credit
 * notifications, camt.053 statements and pacs.004 returns. Read by element names, not by the exact
 * version (the namespace is kept as `version`), so neighbouring versions of a message read the same:
 * pain.002.001.10 and .11, camt.05x.001.08 and the .04 many banks still send, pacs.004.001.09 and .10.
 * What cannot be read is an `InboundParseError` with the reason; nothing is guessed.
 *
 * The XML is read as a stream (saxes, a streaming XML parser) by `MessageReader`: it is fed the file
 * piece by piece and never holds the document's text; each entry (`Ntry`) is read into its `Entry`
 * as soon as it closes, so what stays in memory is the entries read, not the elements they came in.
 * A DOCTYPE (and with it any entity or DTD) ends the reading at once, as does nesting deeper than
 * MAX_DEPTH, a UTF-16 or UTF-32 file, or anything not well-formed. inbound.reader.ts runs a reader
 * in a process of its own, off the event loop that answers the API.
 */

export class InboundParseError extends Error {}

/** Elements that may repeat, always read as arrays whatever one file holds. */
const REPEATING = new Set([
  'OrgnlPmtInfAndSts', 'TxInfAndSts', 'StsRsnInf', 'AddtlInf', 'Ntfctn', 'Stmt', 'Ntry', 'NtryDtls', 'TxDtls', 'Bal', 'Ustrd', 'Strd', 'TxInf', 'RtrRsnInf', 'AddtlNtryInf', 'Rcrd', 'ChrgsInf',
]);

/** ISO 20022 messages nest about twenty elements deep; a file nesting deeper than this is refused, not followed. */
export const MAX_DEPTH = 100;

export type Node = Record<string, unknown>;

const isNode = (v: unknown): v is Node => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The child at a path of element names, or undefined. */
export function at(node: unknown, ...path: string[]): unknown {
  let cur: unknown = node;
  for (const name of path) {
    if (Array.isArray(cur)) cur = cur[0];
    if (!isNode(cur)) return undefined;
    cur = cur[name];
  }
  return cur;
}

export function text(node: unknown, ...path: string[]): string | undefined {
  const v = at(node, ...path);
  const value = Array.isArray(v) ? v[0] : v;
  if (typeof value === 'string') return value;
  if (isNode(value) && typeof value['#text'] === 'string') return value['#text'];
  return undefined;
}

export function list(node: unknown, ...path: string[]): Node[] {
  const v = at(node, ...path);
  if (v === undefined) return [];
  return (Array.isArray(v) ? v : [v]).filter(isNode);
}

export function required(node: unknown, what: string, ...path: string[]): string {
  const v = text(node, ...path);
  if (v === undefined || v === '') throw new InboundParseError(`${what} is missing (${path.join('/')})`);
  return v;
}

/** An ISO amount element (`<Amt Ccy="EUR">12.50</Amt>`) in minor units of its currency; more decimals than the currency has is an error. */
export interface Amount {
  minor: bigint;
  currency: string;
  /** As written in the file. */
  text: string;
}

export function amount(node: unknown, what: string, ...path: string[]): Amount {
  const el = at(node, ...path);
  const value = Array.isArray(el) ? el[0] : el;
  const raw = isNode(value) ? value['#text'] : undefined;
  const currency = isNode(value) ? value['@Ccy'] : undefined;
  if (typeof raw !== 'string' || typeof currency !== 'string') throw new InboundParseError(`${what} has no amount or currency (${path.join('/')})`);
  return toAmount(raw, currency, what);
}

function optionalAmount(node: unknown, what: string, ...path: string[]): Amount | undefined {
  return at(node, ...path) === undefined ? undefined : amount(node, what, ...path);
}

export function toAmount(raw: string, currency: string, what = 'amount'): Amount {
  const scale = iso4217Scale(currency);
  if (scale === undefined) throw new InboundParseError(`${what}: ${currency} is no ISO 4217 currency`);
  const m = /^(\d{1,24})(?:\.(\d{1,8}))?$/.exec(raw);
  if (!m) throw new InboundParseError(`${what}: ${raw} is not an amount`);
  const decimals = m[2] ?? '';
  if (decimals.replace(/0+$/, '').length > scale) throw new InboundParseError(`${what}: ${raw} ${currency} has more decimals than ${currency} has`);
  const minor = BigInt(m[1] as string) * 10n ** BigInt(scale) + BigInt((decimals + '0'.repeat(scale)).slice(0, scale) || '0');
  return { minor, currency, text: raw };
}

/** A reason as ISO codes it: `Rsn/Cd` (an external code such as AC01) or a proprietary one, with the bank's additional text. */
export interface Reason {
  code: string;
  proprietary: boolean;
  additionalInfo: string | undefined;
}

export function reason(node: Node | undefined): Reason | undefined {
  if (!node) return undefined;
  const cd = text(node, 'Rsn', 'Cd');
  const prtry = text(node, 'Rsn', 'Prtry');
  if (!cd && !prtry) return undefined;
  const v = at(node, 'AddtlInf');
  const info = (Array.isArray(v) ? v : v === undefined ? [] : [v]).filter((x): x is string => typeof x === 'string');
  return { code: (cd ?? prtry) as string, proprietary: !cd, additionalInfo: info.length ? info.join(' ') : undefined };
}

// ---------------------------------------------------------------------------------------------
// pain.002: Customer Payment Status Report

export interface StatusReport {
  kind: 'pain.002';
  version: string;
  messageId: string;
  originalMessageId: string;
  groupStatus: string | undefined;
  groupReason: Reason | undefined;
  paymentInfos: { id: string | undefined; status: string | undefined; reason: Reason | undefined }[];
  transactions: {
    endToEndId: string;
    status: string;
    reason: Reason | undefined;
    paymentInfoId: string | undefined;
    amount: Amount | undefined;
    /** The creditor's name the report gives (`OrgnlTxRef/Cdtr/Pty/Nm`, `Cdtr/Nm` before .001.10): on a Verification of Payee close match, the name the payee's bank holds. */
    creditorName: string | undefined;
  }[];
}

function statusReport(doc: Node, version: string): StatusReport {
  const root = doc['CstmrPmtStsRpt'];
  const group = at(root, 'OrgnlGrpInfAndSts');
  const paymentInfos = list(root, 'OrgnlPmtInfAndSts');
  return {
    kind: 'pain.002',
    version,
    messageId: required(root, 'the message id', 'GrpHdr', 'MsgId'),
    originalMessageId: required(group, 'the original message id', 'OrgnlMsgId'),
    groupStatus: text(group, 'GrpSts'),
    groupReason: reason(list(group, 'StsRsnInf')[0]),
    paymentInfos: paymentInfos.map((p) => ({ id: text(p, 'OrgnlPmtInfId'), status: text(p, 'PmtInfSts'), reason: reason(list(p, 'StsRsnInf')[0]) })),
    transactions: paymentInfos.flatMap((p) =>
      list(p, 'TxInfAndSts').map((tx) => ({
        endToEndId: required(tx, 'a transaction status without OrgnlEndToEndId', 'OrgnlEndToEndId'),
        status: required(tx, 'a transaction status', 'TxSts'),
        reason: reason(list(tx, 'StsRsnInf')[0]),
        paymentInfoId: text(p, 'OrgnlPmtInfId'),
        amount: optionalAmount(tx, 'the original amount', 'OrgnlTxRef', 'Amt', 'InstdAmt'),
        creditorName: text(tx, 'OrgnlTxRef', 'Cdtr', 'Pty', 'Nm') ?? text(tx, 'OrgnlTxRef', 'Cdtr', 'Nm'),
      })),
    ),
  };
}

// ---------------------------------------------------------------------------------------------
// camt.054 and camt.053 entries

/** One transaction inside an entry (`NtryDtls/TxDtls`). */
export interface EntryTransaction {
  endToEndId: string | undefined;
  accountServicerRef: string | undefined;
  amount: Amount | undefined;
  /** The return reason when the bank books a return (`RtrInf/Rsn`). */
  returnReason: Reason | undefined;
  /** The account the money went to (credits: ours, or a virtual account's IBAN). */
  creditorIban: string | undefined;
  debtorIban: string | undefined;
  debtorName: string | undefined;
  /** The payer's reference: the structured creditor reference, else the unstructured remittance text. */
  reference: string | undefined;
  /** The SWIFT UETR the transaction carries (`Refs/UETR`), when the bank gives it. */
  uetr?: string | undefined;
  /**
   * The amount as instructed (`AmtDtls/InstdAmt/Amt`): for a payment in another currency than the
   * account's (an FX-funded payout), the payout's own amount and currency, the entry booking the
   * account-currency amount the bank debited.
   */
  instructedAmount?: Amount | undefined;
  /** The bank's charges taken on the transaction (`Chrgs/TtlChrgsAndTaxAmt`, else the sum of `Chrgs/Rcrd/Amt`). */
  charges?: Amount | undefined;
}

export interface Entry {
  /** The bank's reference of the entry: AcctSvcrRef, else NtryRef. */
  ref: string | undefined;
  /** Both of the entry's own references as written (a bank may reuse one of them across entries). */
  references: { accountServicer: string | undefined; entry: string | undefined };
  amount: Amount;
  direction: 'credit' | 'debit';
  /** BOOK, PDNG, INFO (camt.05x.001.08 `Sts/Cd`, older `Sts`). */
  status: string;
  reversal: boolean;
  bookingDate: string | undefined;
  valueDate: string | undefined;
  /** `BkTxCd/Domn`: domain/family/sub-family, e.g. PMNT/ICDT/RRTN. */
  bankTransactionCode: string | undefined;
  description: string | undefined;
  transactions: EntryTransaction[];
}

/** A calendar date as ISO writes it (YYYY-MM-DD, or the date of a date-time): a month 13 or a 30 February is an error, never a date PostgreSQL is left to refuse. */
export function isoDate(value: string | undefined, what: string): string | undefined {
  if (value === undefined) return undefined;
  const m = /^(\d{4})-(\d{2})-(\d{2})(?:$|T)/.exec(value.trim());
  const [year, month, day] = m ? [Number(m[1]), Number(m[2]), Number(m[3])] : [0, 0, 0];
  const date = new Date(Date.UTC(year, month - 1, day));
  if (!m || month < 1 || month > 12 || date.getUTCFullYear() !== year || date.getUTCMonth() !== month - 1 || date.getUTCDate() !== day) {
    throw new InboundParseError(`${what}: ${value} is not a calendar date`);
  }
  return value.trim().slice(0, 10);
}

const dateOf = (node: unknown, what: string) => isoDate(text(node, 'Dt') ?? text(node, 'DtTm'), what);

function creditorReference(tx: Node): string | undefined {
  const strd = list(tx, 'RmtInf', 'Strd')[0];
  const structured = text(strd, 'CdtrRefInf', 'Ref');
  if (structured) return structured;
  const ustrd = at(tx, 'RmtInf', 'Ustrd');
  const first = Array.isArray(ustrd) ? ustrd[0] : ustrd;
  return typeof first === 'string' ? first : undefined;
}

/** An entry the streaming reader read when its element closed (or why it could not), in place of the element. */
const READ_ENTRY = Symbol('entry read');
const UNREADABLE_ENTRY = Symbol('entry unreadable');

function entry(node: Node): Entry {
  const read = (node as { [READ_ENTRY]?: Entry })[READ_ENTRY];
  if (read) return read;
  const unreadable = (node as { [UNREADABLE_ENTRY]?: string })[UNREADABLE_ENTRY];
  if (unreadable !== undefined) throw new InboundParseError(unreadable);
  return readEntry(node);
}

function readEntry(node: Node): Entry {
  const direction = required(node, 'CdtDbtInd of an entry', 'CdtDbtInd');
  if (direction !== 'CRDT' && direction !== 'DBIT') throw new InboundParseError(`CdtDbtInd ${direction} is neither CRDT nor DBIT`);
  const domain = at(node, 'BkTxCd', 'Domn');
  const code = domain ? [text(domain, 'Cd'), text(domain, 'Fmly', 'Cd'), text(domain, 'Fmly', 'SubFmlyCd')].filter(Boolean).join('/') : text(node, 'BkTxCd', 'Prtry', 'Cd');
  const extra = at(node, 'AddtlNtryInf');
  return {
    ref: text(node, 'AcctSvcrRef') ?? text(node, 'NtryRef'),
    references: { accountServicer: text(node, 'AcctSvcrRef'), entry: text(node, 'NtryRef') },
    amount: amount(node, 'the amount of an entry', 'Amt'),
    direction: direction === 'CRDT' ? 'credit' : 'debit',
    status: text(node, 'Sts', 'Cd') ?? required(node, 'the status of an entry', 'Sts'),
    reversal: text(node, 'RvslInd') === 'true',
    bookingDate: dateOf(at(node, 'BookgDt'), 'the booking date of an entry (BookgDt)'),
    valueDate: dateOf(at(node, 'ValDt'), 'the value date of an entry (ValDt)'),
    bankTransactionCode: code || undefined,
    description: Array.isArray(extra) && typeof extra[0] === 'string' ? extra[0] : undefined,
    transactions: list(node, 'NtryDtls').flatMap((d) =>
      list(d, 'TxDtls').map((tx) => ({
        endToEndId: text(tx, 'Refs', 'EndToEndId'),
        accountServicerRef: text(tx, 'Refs', 'AcctSvcrRef'),
        amount: optionalAmount(tx, 'the amount of a transaction', 'Amt') ?? optionalAmount(tx, 'the amount of a transaction', 'AmtDtls', 'TxAmt', 'Amt'),
        returnReason: reason(at(tx, 'RtrInf') as Node | undefined),
        creditorIban: text(tx, 'RltdPties', 'CdtrAcct', 'Id', 'IBAN'),
        debtorIban: text(tx, 'RltdPties', 'DbtrAcct', 'Id', 'IBAN'),
        debtorName: text(tx, 'RltdPties', 'Dbtr', 'Nm') ?? text(tx, 'RltdPties', 'Dbtr', 'Pty', 'Nm'),
        reference: creditorReference(tx),
        uetr: text(tx, 'Refs', 'UETR'),
        instructedAmount: optionalAmount(tx, 'the instructed amount of a transaction', 'AmtDtls', 'InstdAmt', 'Amt'),
        charges: chargesOf(at(tx, 'Chrgs')),
      })),
    ),
  };
}

/**
 * The charges a bank took, as camt (`Chrgs`: `TtlChrgsAndTaxAmt`, else its records `Rcrd/Amt`; .001.02
 * writes `Chrgs/Amt`) or pacs.004 (`ChrgsInf/Amt`) write them: their sum in one currency, or undefined
 * when there are none. Charges in several currencies cannot be summed: an error, never a guess.
 */
export function chargesOf(node: unknown, records = 'Rcrd'): Amount | undefined {
  const first = Array.isArray(node) ? node[0] : node;
  const total = optionalAmount(first, 'the total charges (TtlChrgsAndTaxAmt)', 'TtlChrgsAndTaxAmt');
  if (total) return total;
  const parts = [...(Array.isArray(node) ? node : node === undefined ? [] : [node]).flatMap((c) => [c, ...list(c, records)])]
    .map((c) => (isNode(c) && at(c, 'Amt') !== undefined ? amount(c, 'a charge', 'Amt') : undefined))
    .filter((a): a is Amount => a !== undefined);
  if (parts.length === 0) return undefined;
  const currency = (parts[0] as Amount).currency;
  if (parts.some((p) => p.currency !== currency)) throw new InboundParseError('charges in more than one currency');
  const minor = parts.reduce((sum, p) => sum + p.minor, 0n);
  return { minor, currency, text: formatMinor(minor, currency) };
}

function formatMinor(minor: bigint, currency: string): string {
  const scale = iso4217Scale(currency) ?? 0;
  if (scale === 0) return minor.toString();
  const s = minor.toString().padStart(scale + 1, '0');
  return `${s.slice(0, -scale)}.${s.slice(-scale)}`;
}

/** The account a notification or statement is about: its IBAN (or other id) and currency. */
export interface ReportedAccount {
  iban: string | undefined;
  otherId: string | undefined;
  currency: string | undefined;
}

function account(node: unknown): ReportedAccount {
  return { iban: text(node, 'Acct', 'Id', 'IBAN'), otherId: text(node, 'Acct', 'Id', 'Othr', 'Id'), currency: text(node, 'Acct', 'Ccy') };
}

/**
 * What a statement or notification says, read on its own: one that cannot be read carries the reason
 * (`unreadable`) instead of failing the file, so one account's content never blocks another's.
 */
function readOnItsOwn<T extends object>(read: () => T, empty: T): T & { unreadable?: string } {
  try {
    return read();
  } catch (err) {
    if (!(err instanceof InboundParseError)) throw err;
    return { ...empty, unreadable: err.message };
  }
}

export interface Notification {
  kind: 'camt.054';
  version: string;
  messageId: string;
  notifications: { id: string; account: ReportedAccount; entries: Entry[]; unreadable?: string | undefined }[];
}

function notification(doc: Node, version: string): Notification {
  const root = doc['BkToCstmrDbtCdtNtfctn'];
  return {
    kind: 'camt.054',
    version,
    messageId: required(root, 'the message id', 'GrpHdr', 'MsgId'),
    notifications: list(root, 'Ntfctn').map((n) => ({ id: text(n, 'Id') ?? '(no id)', account: account(n), ...readOnItsOwn(() => ({ entries: list(n, 'Ntry').map(entry) }), { entries: [] }) })),
  };
}

export interface Balance {
  /** OPBD (opening booked), CLBD (closing booked), PRCD, ITBD, CLAV ... */
  type: string;
  amount: Amount;
  /** Signed: a DBIT balance is negative. */
  signedMinor: bigint;
  date: string | undefined;
}

export interface Statement {
  id: string;
  account: ReportedAccount;
  /** The statement's electronic sequence number (ElctrncSeqNb), one more for each statement the bank sends for the account. */
  electronicSeq?: bigint | undefined;
  /** Its legal sequence number (LglSeqNb), the paper statement's, which some banks send alone. */
  legalSeq?: bigint | undefined;
  /** The date the statement was made (of CreDtTm). */
  createdAt: string | undefined;
  fromDate: string | undefined;
  toDate: string | undefined;
  balances: Balance[];
  entries: Entry[];
  /** Why the statement could not be read (the others of the message are read all the same). */
  unreadable?: string | undefined;
}

export interface StatementMessage {
  kind: 'camt.053';
  version: string;
  messageId: string;
  statements: Statement[];
}

function balance(node: Node): Balance {
  const type = text(node, 'Tp', 'CdOrPrtry', 'Cd') ?? text(node, 'Tp', 'CdOrPrtry', 'Prtry') ?? 'OTHR';
  const amt = amount(node, 'a balance', 'Amt');
  const sign = text(node, 'CdtDbtInd') === 'DBIT' ? -1n : 1n;
  return { type, amount: amt, signedMinor: amt.minor * sign, date: dateOf(at(node, 'Dt'), `the date of the ${type} balance`) };
}

/**
 * A statement sequence number (ISO 20022 Number: up to 18 digits, no fraction); one written otherwise
 * is taken as not given, since the statement's money does not depend on it.
 */
function sequenceNumber(raw: string | undefined): bigint | undefined {
  const digits = raw?.trim().replace(/\.0*$/, '');
  return digits !== undefined && /^\d{1,18}$/.test(digits) ? BigInt(digits) : undefined;
}

function statement(doc: Node, version: string): StatementMessage {
  const root = doc['BkToCstmrStmt'];
  return {
    kind: 'camt.053',
    version,
    messageId: required(root, 'the message id', 'GrpHdr', 'MsgId'),
    statements: list(root, 'Stmt').map((s) => ({
      id: text(s, 'Id') ?? '(no id)',
      account: account(s),
      electronicSeq: sequenceNumber(text(s, 'ElctrncSeqNb')),
      legalSeq: sequenceNumber(text(s, 'LglSeqNb')),
      ...readOnItsOwn(
        () => {
          required(s, 'a statement id', 'Id');
          return {
            createdAt: isoDate(text(s, 'CreDtTm'), 'the creation time of the statement (CreDtTm)'),
            fromDate: isoDate(text(s, 'FrToDt', 'FrDtTm'), 'the start of the statement period (FrDtTm)'),
            toDate: isoDate(text(s, 'FrToDt', 'ToDtTm'), 'the end of the statement period (ToDtTm)'),
            balances: list(s, 'Bal').map(balance),
            entries: list(s, 'Ntry').map(entry),
          };
        },
        { createdAt: undefined, fromDate: undefined, toDate: undefined, balances: [], entries: [] },
      ),
    })),
  };
}

// ---------------------------------------------------------------------------------------------
// pacs.004: Payment Return

export interface PaymentReturn {
  kind: 'pacs.004';
  version: string;
  messageId: string;
  returns: {
    /** The payout's EndToEndId as the return names it (OrgnlEndToEndId); a return may name it by its UETR alone. */
    endToEndId: string | undefined;
    /** OrgnlUETR: the UETR of the payment returned (SWIFT). */
    uetr: string | undefined;
    returnId: string | undefined;
    /** What came back (RtrdIntrBkSttlmAmt): net of the charges the banks on the way took. */
    amount: Amount;
    /** The amount first settled (OrgnlIntrBkSttlmAmt), when given: the payout's amount, the charges the difference. */
    originalAmount: Amount | undefined;
    /** The charges the returning banks took (ChrgsInf/Amt, summed), when given. */
    charges: Amount | undefined;
    reason: Reason | undefined;
    settlementDate: string | undefined;
  }[];
}

function paymentReturn(doc: Node, version: string): PaymentReturn {
  const root = doc['PmtRtr'];
  const groupDate = isoDate(text(root, 'GrpHdr', 'IntrBkSttlmDt'), 'the settlement date (GrpHdr/IntrBkSttlmDt)');
  return {
    kind: 'pacs.004',
    version,
    messageId: required(root, 'the message id', 'GrpHdr', 'MsgId'),
    returns: list(root, 'TxInf').map((tx) => ({
      endToEndId: text(tx, 'OrgnlEndToEndId') ?? (text(tx, 'OrgnlUETR') ? undefined : required(tx, 'a return without OrgnlEndToEndId or OrgnlUETR', 'OrgnlEndToEndId')),
      uetr: text(tx, 'OrgnlUETR'),
      returnId: text(tx, 'RtrId'),
      amount: amount(tx, 'the returned amount', 'RtrdIntrBkSttlmAmt'),
      originalAmount: optionalAmount(tx, 'the original settled amount', 'OrgnlIntrBkSttlmAmt'),
      charges: chargesOf(at(tx, 'ChrgsInf'), 'none'),
      reason: reason(list(tx, 'RtrRsnInf')[0]),
      settlementDate: isoDate(text(tx, 'IntrBkSttlmDt'), 'the settlement date of a return (IntrBkSttlmDt)') ?? groupDate,
    })),
  };
}

export type InboundMessage = StatusReport | Notification | StatementMessage | PaymentReturn;

const READERS: Record<string, (doc: Node, version: string) => InboundMessage> = {
  CstmrPmtStsRpt: statusReport,
  BkToCstmrDbtCdtNtfctn: notification,
  BkToCstmrStmt: statement,
  PmtRtr: paymentReturn,
};

/**
 * The message's <Document>: the root element, or the one inside an envelope (CBPR+ and other SWIFT
 * files wrap it with its Business Application Header, <AppHdr>, in an <Envelope> or <RequestPayload>).
 */
function documentOf(parsed: Node): Node | undefined {
  const root = parsed['Document'];
  if (isNode(root)) return root;
  for (const wrapper of Object.values(parsed).filter(isNode)) {
    if (isNode(wrapper['Document'])) return wrapper['Document'];
  }
  return undefined;
}

/**
 * The message and version a Document's namespace names: `camt.053.001.08`, and national variants
 * in their own namespaces such as SIX's `http://www.six-interbank-clearing.com/de/pain.002.001.03.ch.02.xsd`
 * (`pain.002.001.03.ch.02`).
 */
function versionOf(namespaces: readonly string[]): string {
  for (const ns of namespaces) {
    const version = /([a-z]{4}\.\d{3}\.\d{3}\.\d{2}(?:\.[a-z]{2}\.\d{2})?)/.exec(ns)?.[1];
    if (version) return version;
  }
  return 'unknown';
}

const localName = (name: string) => name.slice(name.indexOf(':') + 1);

/** An element being read: its attributes and children as they come, its text. */
interface Open {
  name: string;
  node: Node;
  text: string;
  children: boolean;
  attributes: boolean;
}

/** Adds a read element to its parent: repeating elements (and any name met twice) as arrays. */
function attach(parent: Node, name: string, value: unknown): void {
  const existing = parent[name];
  if (REPEATING.has(name)) {
    if (Array.isArray(existing)) existing.push(value);
    else parent[name] = existing === undefined ? [value] : [existing, value];
  } else if (existing === undefined) parent[name] = value;
  else if (Array.isArray(existing)) existing.push(value);
  else parent[name] = [existing, value];
}

/**
 * Reads one message from its bytes as they come (`write`, then `end`), without ever holding the
 * file's text: the elements become nodes (attributes as `@name`, text as the value or `#text`,
 * namespace prefixes dropped), and each `Ntry` its `Entry` the moment it closes.
 */
export class MessageReader {
  private readonly parser = new SaxesParser({ xmlns: false });
  private readonly decoder = new TextDecoder('utf-8');
  private readonly root: Node = {};
  private readonly stack: Open[] = [];
  private namespaces: string[] | undefined;
  private started = false;
  /** The bytes written so far. */
  bytes = 0;

  constructor() {
    this.parser.on('doctype', () => {
      throw new InboundParseError('the file declares a DOCTYPE or entities, which ISO 20022 messages never do');
    });
    this.parser.on('opentag', (tag: SaxesTagPlain) => this.open(tag));
    this.parser.on('text', (text: string) => this.textOf(text));
    this.parser.on('cdata', (text: string) => this.textOf(text));
    this.parser.on('closetag', () => this.close());
  }

  /** The next bytes of the file. */
  write(chunk: Uint8Array): void {
    if (!this.started && chunk.length > 0) this.start(chunk);
    this.bytes += chunk.length;
    this.feed(this.decoder.decode(chunk, { stream: true }));
  }

  /** The file is all written: the message it holds, or an InboundParseError with the reason. */
  end(): InboundMessage {
    const { doc, version } = this.document();
    const name = Object.keys(doc).find((k) => k in READERS);
    if (!name) throw new InboundParseError(`a ${version} message: Corridor reads pain.002, camt.053, camt.054 and pacs.004`);
    try {
      return (READERS[name] as (typeof READERS)[string])(doc, version);
    } catch (err) {
      if (err instanceof InboundParseError) throw err;
      throw new InboundParseError(`unreadable ${version}: ${err instanceof Error ? err.message : String(err)}`);
    }
  }

  /** The file is all written: its <Document> and the message version its namespace names, whatever the message. */
  document(): { doc: Node; version: string } {
    this.feed(this.decoder.decode());
    this.guard(() => this.parser.close());
    const doc = documentOf(this.root);
    if (!doc) throw new InboundParseError('no ISO 20022 <Document> root element, nor one inside an envelope beside its Business Application Header');
    return { doc, version: versionOf(this.namespaces ?? []) };
  }

  /** ISO 20022 files are UTF-8: a UTF-16 or UTF-32 one (its byte order mark, or the zero bytes of its first characters) is refused, not read as garbage. */
  private start(first: Uint8Array): void {
    this.started = true;
    const [a, b] = [first[0], first[1]];
    if ((a === 0xff && b === 0xfe) || (a === 0xfe && b === 0xff) || a === 0 || b === 0) {
      throw new InboundParseError('the file is UTF-16 or UTF-32; ISO 20022 messages are UTF-8');
    }
  }

  private feed(text: string): void {
    if (text) this.guard(() => this.parser.write(text));
  }

  private guard(step: () => unknown): void {
    try {
      step();
    } catch (err) {
      if (err instanceof InboundParseError) throw err;
      throw new InboundParseError(`not well-formed XML: ${err instanceof Error ? err.message : String(err)}`);
    }
  }

  private open(tag: SaxesTagPlain): void {
    if (this.stack.length >= MAX_DEPTH) throw new InboundParseError(`the elements nest deeper than ${MAX_DEPTH} levels, which no ISO 20022 message does`);
    const name = localName(tag.name);
    const node: Node = {};
    let attributes = false;
    const namespaces: string[] = [];
    for (const [key, value] of Object.entries(tag.attributes)) {
      if (key === 'xmlns' || key.startsWith('xmlns:')) namespaces.push(value);
      else {
        node[`@${localName(key)}`] = value;
        attributes = true;
      }
    }
    if (name === 'Document' && this.namespaces === undefined) this.namespaces = namespaces;
    const parent = this.stack[this.stack.length - 1];
    if (parent) parent.children = true;
    this.stack.push({ name, node, text: '', children: false, attributes });
  }

  private textOf(text: string): void {
    const current = this.stack[this.stack.length - 1];
    // The whitespace between an element's children is not kept (a notification's thousands of entries would pile it up).
    if (current && !(current.children && text.trim() === '')) current.text += text;
  }

  private close(): void {
    const el = this.stack.pop() as Open;
    const text = el.text.trim();
    let value: unknown;
    if (!el.children && !el.attributes) value = text;
    else {
      if (text) el.node['#text'] = text;
      value = el.node;
    }
    if (el.name === 'Ntry') value = readNow(value as Node);
    attach(this.stack[this.stack.length - 1]?.node ?? this.root, el.name, value);
  }
}

/** An entry read the moment its element closes: the entry, or why it cannot be read (thrown when its notification or statement is read). */
function readNow(node: Node): Node {
  try {
    return { [READ_ENTRY]: readEntry(node) } as Node;
  } catch (err) {
    if (!(err instanceof InboundParseError)) throw err;
    return { [UNREADABLE_ENTRY]: err.message } as Node;
  }
}

/** Reads one inbound file held in memory (a small file, a test); throws InboundParseError with the reason when it is not a message Corridor reads. */
export function parseInbound(file: Buffer | string): InboundMessage {
  const reader = new MessageReader();
  reader.write(typeof file === 'string' ? Buffer.from(file, 'utf8') : file);
  return reader.end();
}

/**
 * An ISO 20022 file's <Document> and the message version its namespace names, read with the same safe
 * reader (a DOCTYPE or entity refused, nesting bounded, UTF-8 only), for messages the bank connector
 * does not apply itself: the fedwire connector's reader (src/connectors/fedwire/parse.ts).
 */
export function readIsoDocument(file: Buffer | string): { doc: Node; version: string } {
  const reader = new MessageReader();
  reader.write(typeof file === 'string' ? Buffer.from(file, 'utf8') : file);
  return reader.document();
}
