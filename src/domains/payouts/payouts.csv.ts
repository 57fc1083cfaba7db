import { createHash } from 'node:crypto';
import { fieldError } from '../../platform/lib/errors.js';
import { parseAmount } from '../../platform/lib/money.js';

/**
 * Payouts from a CSV file (the dashboard's bulk upload and `corridor payouts import`): the
 * template, the parsing, each row as the body POST /v1/payouts takes, and the Idempotency-Key of
 * each row, derived from the file's bytes and the row's number, so the same file sent again (a
 * re-upload, a double click, the CLI after the dashboard) answers the payouts already made and pays
 * nobody twice. No HTTP, no SQL: the rows go through the one payout pipeline.
 */

/** The most rows a file may have. */
export const PAYOUT_CSV_ROWS_MAX = 1000;

/** The columns, in the template's order; `beneficiaryId` names a saved beneficiary, else the beneficiary columns describe a new one. */
export const PAYOUT_CSV_COLUMNS = [
  'clientRef',
  'amount',
  'currency',
  'route',
  'beneficiaryId',
  'beneficiaryType',
  'beneficiaryName',
  'beneficiaryCountry',
  'address',
  'city',
  'postcode',
  'iban',
  'bic',
  'accountNumber',
  'routingNumber',
  'sortCode',
  'bankName',
  'reference',
  'purpose',
] as const;
export type PayoutCsvColumn = (typeof PAYOUT_CSV_COLUMNS)[number];

export const PAYOUT_CSV_TEMPLATE = `${PAYOUT_CSV_COLUMNS.join(',')}
invoice-1001,250.00,EUR,,,individual,Ada Lovelace,DE,1 Hauptstrasse,Berlin,10115,DE89370400440532013000,,,,,,Invoice 1001,
invoice-1002,120.50,USD,ach,,business,Globex Trading LLC,US,1 Main Street,New York,10001,,,123456789,021000021,,Chase,Invoice 1002,
`;

export interface PayoutCsvRow {
  /** The row's line in the file (the header is line 1). */
  line: number;
  values: Partial<Record<PayoutCsvColumn, string>>;
}

/** RFC 4180 fields: quoted fields may hold commas, quotes ("") and line breaks. */
function records(text: string): string[][] {
  const out: string[][] = [];
  let record: string[] = [];
  let field = '';
  let quoted = false;
  const endField = () => {
    record.push(field);
    field = '';
  };
  const endRecord = () => {
    endField();
    out.push(record);
    record = [];
  };
  for (let i = 0; i < text.length; i++) {
    const ch = text[i] as string;
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (ch === '"') quoted = false;
      else field += ch;
    } else if (ch === '"' && field === '') quoted = true;
    else if (ch === ',') endField();
    else if (ch === '\n' || ch === '\r') {
      if (ch === '\r' && text[i + 1] === '\n') i++;
      endRecord();
    } else field += ch;
  }
  if (field !== '' || record.length > 0) endRecord();
  return out.filter((r) => r.some((v) => v.trim() !== ''));
}

/**
 * The file's text: UTF-8 only. A file in another encoding (Latin-1 or Windows-1252 from a spreadsheet)
 * is refused, naming the line of its first byte that is not UTF-8, rather than read with its accented
 * letters replaced: which single-byte encoding it is cannot be told for sure, and a guess would send
 * names the payer did not write.
 */
function utf8Text(bytes: Buffer | string, field: string): string {
  if (typeof bytes === 'string') return bytes;
  const decoder = new TextDecoder('utf-8', { fatal: true });
  try {
    return decoder.decode(bytes);
  } catch {
    // Lines split on the newline byte (never part of a multi-byte character): the first that fails is named.
    let line = 1;
    for (let start = 0; start <= bytes.length; line++) {
      const end = bytes.indexOf(0x0a, start);
      const stop = end === -1 ? bytes.length : end;
      try {
        decoder.decode(bytes.subarray(start, stop));
      } catch {
        break;
      }
      start = stop + 1;
    }
    throw fieldError(field, `The file is not UTF-8 (line ${line} has a byte that is not UTF-8, as a file saved as Latin-1 or Windows-1252 has): save it as "CSV UTF-8" and import it again`);
  }
}

/** The rows of a file; a file that is not this CSV (not UTF-8, no header, unknown columns, too many rows) is refused as a whole naming `field`. */
export function parsePayoutCsv(bytes: Buffer | string, field = 'file'): PayoutCsvRow[] {
  const text = utf8Text(bytes, field).replace(/^\uFEFF/, '');
  const [header, ...rest] = records(text);
  if (!header) throw fieldError(field, 'The file is empty: start from the template (its first line names the columns)');
  const columns = header.map((h) => h.trim());
  const unknown = columns.filter((c) => c !== '' && !(PAYOUT_CSV_COLUMNS as readonly string[]).includes(c));
  if (unknown.length) throw fieldError(field, `Unknown column${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')}: the columns are those of the template (${PAYOUT_CSV_COLUMNS.join(', ')})`);
  for (const needed of ['clientRef', 'amount', 'currency'] as const) {
    if (!columns.includes(needed)) throw fieldError(field, `The file has no ${needed} column: start from the template`);
  }
  if (rest.length === 0) throw fieldError(field, 'The file has a header but no payout');
  if (rest.length > PAYOUT_CSV_ROWS_MAX) throw fieldError(field, `The file has ${rest.length} payouts; at most ${PAYOUT_CSV_ROWS_MAX} are taken at once: split it`);
  return rest.map((record, i) => {
    const values: Partial<Record<PayoutCsvColumn, string>> = {};
    columns.forEach((c, j) => {
      const v = (record[j] ?? '').trim();
      if (c !== '' && v !== '') values[c as PayoutCsvColumn] = v;
    });
    return { line: i + 2, values };
  });
}

/** A row as the JSON body of POST /v1/payouts (checked there, or by the dashboard against the same schema). */
export function payoutBodyOfRow(row: PayoutCsvRow): Record<string, unknown> {
  const v = row.values;
  const currency = v.currency?.toUpperCase();
  const data = Object.fromEntries((['iban', 'bic', 'accountNumber', 'routingNumber', 'sortCode', 'bankName'] as const).flatMap((k) => (v[k] ? [[k, v[k]]] : [])));
  const beneficiary = v.beneficiaryId
    ? { id: v.beneficiaryId }
    : {
        type: v.beneficiaryType ?? 'individual',
        name: v.beneficiaryName,
        country: v.beneficiaryCountry?.toUpperCase(),
        ...(v.address ? { address: v.address } : {}),
        ...(v.city ? { city: v.city } : {}),
        ...(v.postcode ? { postcode: v.postcode } : {}),
        accounts: [{ type: data.iban ? 'iban' : 'bank_account', currency, data }],
      };
  return {
    clientRef: v.clientRef,
    amount: v.amount,
    currency,
    ...(v.route ? { route: v.route } : {}),
    beneficiary,
    ...(v.reference ? { reference: v.reference } : {}),
    ...(v.purpose ? { purpose: v.purpose } : {}),
  };
}

/** The file's digest: the rows' keys are derived from it, so the same bytes always give the same keys. */
export function payoutCsvDigest(bytes: Buffer | string): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** The Idempotency-Key of a row: the file's digest and the row's line (the same for the dashboard and the CLI). */
export function payoutCsvRowKey(digest: string, line: number): string {
  return `csv-${digest.slice(0, 32)}-${line}`;
}

/** Clients references used twice in one file: each later row's refusal, by line. */
export function duplicateRefs(rows: readonly PayoutCsvRow[]): Map<number, string> {
  const first = new Map<string, number>();
  const out = new Map<number, string>();
  for (const row of rows) {
    const ref = row.values.clientRef;
    if (!ref) continue;
    const seen = first.get(ref);
    if (seen !== undefined) out.set(row.line, `clientRef ${ref} is also on line ${seen}: each payout needs its own`);
    else first.set(ref, row.line);
  }
  return out;
}

/** What a file of payouts debits in one currency, against the balance it is paid from. */
export interface BatchFunding {
  currency: string;
  payouts: number;
  amountMinor: bigint;
  feeMinor: bigint;
  /** What the balance is debited: the amounts and the fees. */
  debitMinor: bigint;
  availableMinor: bigint;
  /** The balance after the file; negative when the balance cannot cover it. */
  afterMinor: bigint;
}

/**
 * The file's totals per currency (rows already checked, so each amount reads), with the payout fee
 * of each and the balance after, against the available balances given: a file is sent whole or not
 * at all, so a currency whose balance after is negative stops the whole file before anything is sent.
 */
export function batchFunding(rows: readonly PayoutCsvRow[], feeMinorOf: (currency: string) => bigint, availableMinorOf: (currency: string) => bigint): BatchFunding[] {
  const totals = new Map<string, BatchFunding>();
  for (const row of rows) {
    const currency = row.values.currency?.toUpperCase() ?? '';
    const amountMinor = parseAmount(row.values.amount, currency, 'amount');
    const fee = feeMinorOf(currency);
    const t = totals.get(currency) ?? { currency, payouts: 0, amountMinor: 0n, feeMinor: 0n, debitMinor: 0n, availableMinor: availableMinorOf(currency), afterMinor: 0n };
    t.payouts++;
    t.amountMinor += amountMinor;
    t.feeMinor += fee;
    t.debitMinor += amountMinor + fee;
    t.afterMinor = t.availableMinor - t.debitMinor;
    totals.set(currency, t);
  }
  return [...totals.values()].sort((a, b) => a.currency.localeCompare(b.currency));
}
