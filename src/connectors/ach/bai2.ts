import { iso4217Scale } from '../../platform/lib/currencies.js';

/**
 * A reader of BAI2 cash management balance reports (BAI "Cash Management Balance Reporting
 * Specifications, Version 2", the statements US banks send instead of camt.053). No npm package
 * reads BAI2, so this follows the specification:
 *
 * - records 01 (file header), 02 (group header), 03 (account identifier and summaries), 16
 *   (transaction detail), 88 (continuation of the record before it), 49 (account trailer), 98
 *   (group trailer), 99 (file trailer); a record ends with `/`, or at the end of its line when the
 *   bank leaves the slash out; several records may share a physical line (`…/ 16,…`) and a 16's
 *   text may run on to the next line;
 * - amounts carry no decimal point: their currency's ISO 4217 minor unit is implied (USD cents,
 *   JPY yen); the currency is the account's (03), else the group's (02), else USD as the
 *   specification says;
 * - funds types: 0, 1, 2, Z or none (nothing follows), S (immediate, one-day, more than one-day
 *   amounts), V (value date and time), D (a count, then that many pairs of days and amount);
 * - type codes: 001–099 are balances (status), 100–399 credits, 400–699 debits; a detail of any
 *   other code is refused rather than guessed;
 * - the trailers' control totals (the sum of every amount of the account, group, file) and record
 *   counts are checked: a file whose totals disagree with its records is refused, naming the record.
 */

export class Bai2Error extends Error {}

export interface Bai2Summary {
  typeCode: string;
  /** In minor units of the account's currency, signed; undefined when the field is empty. */
  amountMinor: bigint | undefined;
  itemCount: number | undefined;
}

export interface Bai2Transaction {
  typeCode: string;
  direction: 'credit' | 'debit';
  amountMinor: bigint;
  fundsType: string;
  /** For funds type V: the value date, YYYY-MM-DD. */
  valueDate: string | undefined;
  bankReference: string | undefined;
  customerReference: string | undefined;
  text: string | undefined;
}

export interface Bai2Account {
  accountNumber: string;
  currency: string;
  summaries: Bai2Summary[];
  transactions: Bai2Transaction[];
  /** The line of its 03 record. */
  line: number;
}

export interface Bai2Group {
  receiver: string;
  originator: string;
  /** 1 update, 2 deletion, 3 correction, 4 test only. */
  status: string;
  /** YYYY-MM-DD. */
  asOfDate: string;
  asOfTime: string | undefined;
  currency: string;
  accounts: Bai2Account[];
}

export interface Bai2File {
  sender: string;
  receiver: string;
  /** YYYY-MM-DD. */
  createdOn: string;
  createdAt: string;
  fileId: string;
  groups: Bai2Group[];
}

interface RawRecord {
  code: string;
  /** The record's fields after its code, continuations (88) joined on. */
  fields: string[];
  /** For a 16: its text with continuations, the remainder of the record (commas included). */
  line: number;
  /** The physical records it counts for in the trailers (itself and its 88s). */
  records: number;
  /** Text continuations of a 16, each a 88's content. */
  continuations: string[];
}

const CODES = new Set(['01', '02', '03', '16', '88', '49', '98', '99']);

/** Splits the text into records: at a record code after a `/`, or at the start of a line; a line that starts with no record code continues the record before it. */
function recordsOf(text: string): { code: string; body: string; line: number }[] {
  const out: { code: string; body: string; line: number }[] = [];
  const lines = text.replace(/^\uFEFF/, '').split(/\r\n|\n|\r/);
  for (const [i, physical] of lines.entries()) {
    if (physical.trim() === '') continue;
    // Several records on one line: split after a `/` followed by blanks and a record code.
    const parts = physical.split(/\/\s+(?=(?:01|02|03|16|88|49|98|99),)/);
    for (const [j, part] of parts.entries()) {
      const m = /^\s*(\d{2}),/.exec(part);
      if (m && CODES.has(m[1] as string)) {
        out.push({ code: m[1] as string, body: part.slice(m[0].length).replace(/\/\s*$/, ''), line: i + 1 });
        continue;
      }
      const last = out[out.length - 1];
      if (!last || j > 0) throw new Bai2Error(`line ${i + 1}: "${part.slice(0, 20)}" is not a BAI2 record (01, 02, 03, 16, 88, 49, 98 or 99)`);
      // A 16's text broken over a line: the rest of the same record.
      last.body = `${last.body.replace(/\/\s*$/, '')}${part.replace(/\/\s*$/, '')}`;
    }
  }
  return out;
}

/** Joins each 88 onto the record before it. */
function joined(text: string): RawRecord[] {
  const out: RawRecord[] = [];
  for (const r of recordsOf(text)) {
    if (r.code === '88') {
      const prev = out[out.length - 1];
      if (!prev || !['03', '16', '49', '98', '99', '01', '02'].includes(prev.code)) throw new Bai2Error(`line ${r.line}: a continuation (88) follows no record it can continue`);
      prev.records += 1;
      if (prev.code === '16') prev.continuations.push(r.body);
      else prev.fields.push(...r.body.split(','));
      continue;
    }
    out.push({ code: r.code, fields: r.code === '16' ? [r.body] : r.body.split(','), line: r.line, records: 1, continuations: [] });
  }
  return out;
}

const date = (yymmdd: string, line: number, what: string): string => {
  if (!/^\d{6}$/.test(yymmdd)) throw new Bai2Error(`line ${line}: the ${what} "${yymmdd}" is not a date YYMMDD`);
  const yy = Number(yymmdd.slice(0, 2));
  // The specification's two-digit years: 00–69 are 2000–2069, 70–99 are 1970–1999.
  return `${yy < 70 ? 2000 + yy : 1900 + yy}-${yymmdd.slice(2, 4)}-${yymmdd.slice(4, 6)}`;
};

const scaleOf = (currency: string, line: number): number => {
  const scale = iso4217Scale(currency);
  if (scale === undefined) throw new Bai2Error(`line ${line}: currency "${currency}" is not an ISO 4217 code`);
  return scale;
};

/** An amount field: optional sign, digits, no decimal point (the currency's minor unit is implied). */
function amount(value: string | undefined, line: number, what: string): bigint | undefined {
  const v = (value ?? '').trim();
  if (v === '') return undefined;
  if (!/^[+-]?\d+$/.test(v)) throw new Bai2Error(`line ${line}: the ${what} "${v}" is not an amount (digits, no decimal point)`);
  return BigInt(v);
}

const count = (value: string | undefined, line: number): number | undefined => {
  const v = (value ?? '').trim();
  if (v === '') return undefined;
  if (!/^\d+$/.test(v)) throw new Bai2Error(`line ${line}: the item count "${v}" is not a number`);
  return Number(v);
};

/** How many fields a funds type's details take after it, reading them from `fields` at `at`. */
function fundsDetails(type: string, fields: string[], at: number, line: number): { used: number; valueDate?: string; sum: bigint } {
  switch (type) {
    case '':
    case '0':
    case '1':
    case '2':
    case 'Z':
      return { used: 0, sum: 0n };
    case 'S':
      return { used: 3, sum: [0, 1, 2].reduce((s, k) => s + (amount(fields[at + k], line, 'availability amount') ?? 0n), 0n) };
    case 'V':
      return { used: 2, valueDate: fields[at] ? date(fields[at] as string, line, 'value date') : undefined, sum: 0n };
    case 'D': {
      const n = count(fields[at], line) ?? 0;
      let sum = 0n;
      for (let k = 0; k < n; k++) sum += amount(fields[at + 2 + 2 * k], line, 'distributed availability amount') ?? 0n;
      return { used: 1 + 2 * n, sum };
    }
    default:
      throw new Bai2Error(`line ${line}: funds type "${type}" is not one of 0, 1, 2, S, V, D, Z`);
  }
}

function directionOf(typeCode: string, line: number): 'credit' | 'debit' {
  const n = Number(typeCode);
  if (!/^\d{3}$/.test(typeCode)) throw new Bai2Error(`line ${line}: type code "${typeCode}" is not three digits`);
  if (n >= 100 && n <= 399) return 'credit';
  if (n >= 400 && n <= 699) return 'debit';
  throw new Bai2Error(`line ${line}: a transaction of type code ${typeCode}, which is neither a credit (100–399) nor a debit (400–699): not guessed`);
}

/** The 03 record: account number, currency, then summaries (type code, amount, item count, funds type and its details). */
function accountOf(r: RawRecord, groupCurrency: string): { account: Bai2Account; total: bigint } {
  const [accountNumber = '', currencyField = '', ...rest] = r.fields.map((f) => f.trim());
  if (accountNumber === '') throw new Bai2Error(`line ${r.line}: an account identifier (03) without an account number`);
  const currency = currencyField || groupCurrency;
  scaleOf(currency, r.line);
  const summaries: Bai2Summary[] = [];
  let total = 0n;
  let i = 0;
  while (i < rest.length) {
    const typeCode = rest[i] as string;
    if (typeCode === '') {
      i += 1;
      continue;
    }
    if (!/^\d{3}$/.test(typeCode)) throw new Bai2Error(`line ${r.line}: account ${accountNumber}: summary type code "${typeCode}" is not three digits`);
    const amountMinor = amount(rest[i + 1], r.line, `amount of summary ${typeCode}`);
    const itemCount = count(rest[i + 2], r.line);
    const funds = fundsDetails(rest[i + 3] ?? '', rest, i + 4, r.line);
    summaries.push({ typeCode, amountMinor, itemCount });
    total += amountMinor ?? 0n;
    i += 4 + funds.used;
  }
  return { account: { accountNumber, currency, summaries, transactions: [], line: r.line }, total };
}

/** The 16 record: type code, amount, funds type and its details, bank reference, customer reference, and the text (the rest, commas included, with its continuations). */
function transactionOf(r: RawRecord): { transaction: Bai2Transaction; total: bigint } {
  const body = r.fields[0] as string;
  const fields = body.split(',');
  const typeCode = (fields[0] ?? '').trim();
  const direction = directionOf(typeCode, r.line);
  const amountMinor = amount(fields[1], r.line, 'transaction amount');
  if (amountMinor === undefined || amountMinor < 0n) throw new Bai2Error(`line ${r.line}: a transaction (16) needs an unsigned amount`);
  const fundsType = (fields[2] ?? '').trim();
  const funds = fundsDetails(fundsType, fields, 3, r.line);
  const at = 3 + funds.used;
  const text = [fields.slice(at + 2).join(','), ...r.continuations].map((t) => t.trim()).filter((t) => t !== '').join(' ');
  const opt = (v: string | undefined) => (v && v.trim() !== '' ? v.trim() : undefined);
  return {
    transaction: { typeCode, direction, amountMinor, fundsType, valueDate: funds.valueDate, bankReference: opt(fields[at]), customerReference: opt(fields[at + 1]), text: text === '' ? undefined : text },
    total: amountMinor,
  };
}

function checkTrailer(r: RawRecord, what: string, expected: { total: bigint; records: number; count?: number }): void {
  const total = amount(r.fields[0], r.line, `${what} control total`);
  const n = r.code === '49' ? count(r.fields[1], r.line) : count(r.fields[2], r.line);
  if (total !== expected.total) throw new Bai2Error(`line ${r.line}: the ${what} control total is ${total ?? 'missing'}, its records add up to ${expected.total}`);
  if (n !== expected.records) throw new Bai2Error(`line ${r.line}: the ${what} counts ${n ?? 'no'} records, it has ${expected.records}`);
  if (expected.count !== undefined) {
    const c = count(r.fields[1], r.line);
    if (c !== expected.count) throw new Bai2Error(`line ${r.line}: the ${what} counts ${c ?? 'no'} ${r.code === '98' ? 'accounts' : 'groups'}, it has ${expected.count}`);
  }
}

/** Reads a BAI2 file whole; throws Bai2Error naming the line of the first thing wrong. */
export function readBai2(text: string): Bai2File {
  const records = joined(text);
  const first = records[0];
  if (!first || first.code !== '01') throw new Bai2Error('the file does not start with a file header (01)');
  const [sender = '', receiver = '', created = '', createdAt = '', fileId = '', , , version = ''] = first.fields.map((f) => f.trim());
  if (version !== '2') throw new Bai2Error(`line ${first.line}: version "${version}" is not BAI2 (2)`);
  const file: Bai2File = { sender, receiver, createdOn: date(created, first.line, 'creation date'), createdAt, fileId, groups: [] };
  let fileTotal = 0n;
  let fileRecords = first.records;
  let group: { g: Bai2Group; total: bigint; records: number } | undefined;
  let account: { a: Bai2Account; total: bigint; records: number } | undefined;
  let ended = false;
  for (const r of records.slice(1)) {
    if (ended) throw new Bai2Error(`line ${r.line}: a record after the file trailer (99)`);
    fileRecords += r.records;
    switch (r.code) {
      case '02': {
        if (group) throw new Bai2Error(`line ${r.line}: a group header (02) before the group trailer (98) of the group before`);
        const [rcv = '', orig = '', status = '', asOf = '', asOfTime = '', currency = ''] = r.fields.map((f) => f.trim());
        if (!['1', '2', '3', '4'].includes(status)) throw new Bai2Error(`line ${r.line}: group status "${status}" is not 1, 2, 3 or 4`);
        const g: Bai2Group = { receiver: rcv, originator: orig, status, asOfDate: date(asOf, r.line, 'as-of date'), asOfTime: asOfTime || undefined, currency: currency || 'USD', accounts: [] };
        scaleOf(g.currency, r.line);
        group = { g, total: 0n, records: r.records };
        break;
      }
      case '03': {
        if (!group) throw new Bai2Error(`line ${r.line}: an account (03) outside a group`);
        if (account) throw new Bai2Error(`line ${r.line}: an account (03) before the account trailer (49) of the account before`);
        const { account: a, total } = accountOf(r, group.g.currency);
        account = { a, total, records: r.records };
        break;
      }
      case '16': {
        if (!account) throw new Bai2Error(`line ${r.line}: a transaction (16) outside an account`);
        const { transaction, total } = transactionOf(r);
        account.a.transactions.push(transaction);
        account.total += total;
        account.records += r.records;
        break;
      }
      case '49': {
        if (!account || !group) throw new Bai2Error(`line ${r.line}: an account trailer (49) without its account (03)`);
        account.records += r.records;
        checkTrailer(r, `account ${account.a.accountNumber}'s`, { total: account.total, records: account.records });
        group.g.accounts.push(account.a);
        group.total += account.total;
        group.records += account.records;
        account = undefined;
        break;
      }
      case '98': {
        if (!group || account) throw new Bai2Error(`line ${r.line}: a group trailer (98) ${account ? 'before its last account trailer (49)' : 'without its group (02)'}`);
        group.records += r.records;
        checkTrailer(r, 'group', { total: group.total, records: group.records, count: group.g.accounts.length });
        file.groups.push(group.g);
        fileTotal += group.total;
        group = undefined;
        break;
      }
      case '99': {
        if (group) throw new Bai2Error(`line ${r.line}: the file trailer (99) before the group trailer (98)`);
        checkTrailer(r, 'file', { total: fileTotal, records: fileRecords, count: file.groups.length });
        ended = true;
        break;
      }
      default:
        throw new Bai2Error(`line ${r.line}: a second file header (01)`);
    }
  }
  if (!ended) throw new Bai2Error('the file ends without its file trailer (99)');
  return file;
}

/** An account's balance of a type code (010 opening ledger, 015 closing ledger, 040 opening available, 045 closing available), if reported. */
export function balanceOf(account: Bai2Account, typeCode: string): bigint | undefined {
  return account.summaries.find((s) => s.typeCode === typeCode)?.amountMinor;
}

/** The scale the amounts of a currency are written in (digits after the implied decimal point). */
export const bai2Scale = (currency: string): number => iso4217Scale(currency) ?? 2;
