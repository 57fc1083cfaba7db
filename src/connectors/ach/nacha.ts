/**
 * NACHA files, written and read: the 94-character records of the ACH network (file header 1, batch
 * header 5, entry 6, addenda 7, batch control 8, file control 9), blocked to ten records with lines
 * of nines. The writer makes the PPD (individuals) and CCD (businesses) credit files Corridor sends;
 * the reader takes any file an ODFI sends back (returns with Addenda 99, notifications of change with
 * Addenda 98, dishonored and contested returns) and checks its controls, refusing a file whose counts,
 * hashes or totals do not add up, with the reason.
 */

export const RECORD_LENGTH = 94;
export const BLOCKING_FACTOR = 10;

/** The transaction codes Corridor writes: credits to a checking or a savings account, their prenotes, and the offset debit of a balanced file. */
export const TX = { checkingCredit: '22', checkingPrenote: '23', checkingDebit: '27', savingsCredit: '32', savingsPrenote: '33', savingsDebit: '37' } as const;

export type SecCode = 'PPD' | 'CCD';

export interface EntryToWrite {
  transactionCode: string;
  /** The RDFI's 9-digit ABA routing number (check digit included). */
  routingNumber: string;
  accountNumber: string;
  amountCents: bigint;
  /** PPD: individual identification number; CCD: identification number (15). */
  identification: string;
  /** PPD: individual name; CCD: receiving company name (22). */
  name: string;
  traceNumber: string;
  /** One Addenda 05 of payment-related information (80), when the payer gave a reference. */
  addenda?: string | undefined;
  /** A whole addenda record (94), as an RDFI writes an Addenda 98 or 99 (the sandbox ACH bank). */
  addendaRecord?: string | undefined;
}

export interface BatchToWrite {
  sec: SecCode;
  companyName: string;
  companyId: string;
  /** Company entry description (10): what the receiver sees on the statement. */
  description: string;
  /** Company descriptive date (6), e.g. "SD1300" for a Same Day entry's intended window. */
  descriptiveDate: string;
  /** YYMMDD. */
  effectiveDate: string;
  entries: EntryToWrite[];
  /** A balanced batch ends with one debit to the originator's settlement account for the sum of its credits. */
  offset?: { routingNumber: string; accountNumber: string; transactionCode: string; name: string; traceNumber: string } | undefined;
}

export interface FileToWrite {
  /** The ODFI's routing number (the file's immediate destination). */
  destination: string;
  destinationName: string;
  /** The immediate origin (10): the ODFI routing number with a leading blank, or the originator's id as the ODFI wants it. */
  origin: string;
  originName: string;
  createdAt: Date;
  /** A to Z, 0 to 9: distinguishes files of one day. */
  idModifier: string;
  referenceCode: string;
  odfi8: string;
  batches: BatchToWrite[];
}

export interface WrittenFile {
  text: string;
  entryCount: number;
  entryHash: string;
  totalDebitCents: bigint;
  totalCreditCents: bigint;
  blockCount: number;
}

/** NACHA text is upper-case ASCII in practice; anything outside printable ASCII is refused before a file is built. */
export function nachaText(value: string): string {
  return value
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[^ -~]/g, '?')
    .toUpperCase();
}

const alpha = (value: string, length: number): string => nachaText(value).slice(0, length).padEnd(length, ' ');
const num = (value: bigint | number | string, length: number): string => {
  const text = String(value);
  if (!/^[0-9]+$/.test(text) || text.length > length) throw new Error(`NACHA numeric field of ${length} digits cannot hold ${text}`);
  return text.padStart(length, '0');
};

const yymmdd = (d: Date): string => `${String(d.getUTCFullYear() % 100).padStart(2, '0')}${String(d.getUTCMonth() + 1).padStart(2, '0')}${String(d.getUTCDate()).padStart(2, '0')}`;
const hhmm = (d: Date): string => `${String(d.getUTCHours()).padStart(2, '0')}${String(d.getUTCMinutes()).padStart(2, '0')}`;

/** The entry hash: the sum of the RDFIs' 8-digit routing numbers, its rightmost ten digits. */
export function entryHash(routing8: readonly string[]): string {
  const sum = routing8.reduce((s, r) => s + BigInt(r), 0n);
  return num(sum % 10_000_000_000n, 10);
}

export const isCredit = (code: string): boolean => ['2', '3'].includes(code[0] ?? '') && ['1', '2', '3', '4'].includes(code[1] ?? '');
export const isDebit = (code: string): boolean => ['2', '3'].includes(code[0] ?? '') && ['6', '7', '8', '9'].includes(code[1] ?? '');

function check(record: string): string {
  if (record.length !== RECORD_LENGTH) throw new Error(`NACHA record of ${record.length} characters, not ${RECORD_LENGTH}: ${record}`);
  return record;
}

/** Writes a file: every record 94 characters, control records computed from the entries, blocked to ten with lines of nines. */
export function writeNacha(file: FileToWrite): WrittenFile {
  const lines: string[] = [];
  lines.push(
    check(
      `101${alpha(` ${file.destination}`, 10)}${alpha(file.origin, 10)}${yymmdd(file.createdAt)}${hhmm(file.createdAt)}${file.idModifier}094101${alpha(file.destinationName, 23)}${alpha(file.originName, 23)}${alpha(file.referenceCode, 8)}`,
    ),
  );
  let fileEntries = 0;
  let fileDebit = 0n;
  let fileCredit = 0n;
  const fileRouting: string[] = [];
  file.batches.forEach((batch, i) => {
    const batchNumber = num(i + 1, 7);
    const entries = [...batch.entries];
    const credits = entries.filter((e) => !isDebit(e.transactionCode)).reduce((s, e) => s + e.amountCents, 0n);
    const entryDebits = entries.filter((e) => isDebit(e.transactionCode)).reduce((s, e) => s + e.amountCents, 0n);
    const hasDebits = batch.offset !== undefined || entries.some((e) => isDebit(e.transactionCode));
    const hasCredits = entries.some((e) => !isDebit(e.transactionCode));
    const serviceClass = hasDebits && hasCredits ? '200' : hasDebits ? '225' : '220';
    lines.push(
      check(
        `5${serviceClass}${alpha(batch.companyName, 16)}${alpha('', 20)}${alpha(batch.companyId, 10)}${batch.sec}${alpha(batch.description, 10)}${alpha(batch.descriptiveDate, 6)}${batch.effectiveDate}   1${file.odfi8}${batchNumber}`,
      ),
    );
    let count = 0;
    const routing: string[] = [];
    const entryLine = (e: { transactionCode: string; routingNumber: string; accountNumber: string; amountCents: bigint; identification: string; name: string; traceNumber: string }, addenda: boolean) =>
      check(
        `6${e.transactionCode}${e.routingNumber.slice(0, 8)}${e.routingNumber.slice(8, 9)}${alpha(e.accountNumber, 17)}${num(e.amountCents, 10)}${alpha(e.identification, 15)}${alpha(e.name, 22)}  ${addenda ? '1' : '0'}${num(e.traceNumber, 15)}`,
      );
    for (const e of entries) {
      lines.push(entryLine(e, e.addenda !== undefined || e.addendaRecord !== undefined));
      routing.push(e.routingNumber.slice(0, 8));
      count++;
      if (e.addenda !== undefined) {
        lines.push(check(`705${alpha(e.addenda, 80)}0001${e.traceNumber.slice(-7)}`));
        count++;
      }
      if (e.addendaRecord !== undefined) {
        lines.push(check(e.addendaRecord));
        count++;
      }
    }
    let debits = entryDebits;
    if (batch.offset) {
      const o = batch.offset;
      lines.push(entryLine({ ...o, amountCents: credits, identification: '' }, false));
      routing.push(o.routingNumber.slice(0, 8));
      count++;
      debits += credits;
    }
    const hash = entryHash(routing);
    lines.push(check(`8${serviceClass}${num(count, 6)}${hash}${num(debits, 12)}${num(credits, 12)}${alpha(batch.companyId, 10)}${alpha('', 19)}${alpha('', 6)}${file.odfi8}${batchNumber}`));
    fileEntries += count;
    fileDebit += debits;
    fileCredit += credits;
    fileRouting.push(...routing);
  });
  const records = lines.length + 1;
  const blockCount = Math.ceil(records / BLOCKING_FACTOR);
  const hash = entryHash(fileRouting);
  lines.push(check(`9${num(file.batches.length, 6)}${num(blockCount, 6)}${num(fileEntries, 8)}${hash}${num(fileDebit, 12)}${num(fileCredit, 12)}${' '.repeat(39)}`));
  while (lines.length % BLOCKING_FACTOR !== 0) lines.push('9'.repeat(RECORD_LENGTH));
  return { text: `${lines.join('\n')}\n`, entryCount: fileEntries, entryHash: hash, totalDebitCents: fileDebit, totalCreditCents: fileCredit, blockCount };
}

// ---------------------------------------------------------------------------------------------
// Reading

export interface ReturnAddenda {
  kind: 'return' | 'dishonored' | 'contested';
  /** R01…R85 as the addenda carries it. */
  code: string;
  originalTrace: string;
  originalRdfi: string;
  /** Date of death (R14, R15), YYMMDD, when given. */
  dateOfDeath: string | undefined;
  information: string;
  traceNumber: string;
}

export interface ChangeAddenda {
  /** C01…C13 (and the refused-NOC codes C61…C69). */
  code: string;
  originalTrace: string;
  originalRdfi: string;
  correctedData: string;
  traceNumber: string;
}

export interface ReadEntry {
  transactionCode: string;
  rdfiRouting8: string;
  checkDigit: string;
  accountNumber: string;
  amountCents: bigint;
  identification: string;
  name: string;
  traceNumber: string;
  prenote: boolean;
  /** Payment-related information of Addenda 05, in order. */
  remittance: string[];
  returns: ReturnAddenda[];
  change: ChangeAddenda | undefined;
}

export interface ReadBatch {
  serviceClass: string;
  companyName: string;
  companyId: string;
  sec: string;
  description: string;
  effectiveDate: string;
  odfi8: string;
  batchNumber: string;
  entries: ReadEntry[];
}

export interface ReadFile {
  destination: string;
  origin: string;
  creationDate: string;
  idModifier: string;
  destinationName: string;
  originName: string;
  batches: ReadBatch[];
  entryHash: string;
  totalDebitCents: bigint;
  totalCreditCents: bigint;
}

/** A file the reader refuses, with the line and the reason. */
export class NachaError extends Error {
  constructor(
    readonly line: number | undefined,
    readonly reason: string,
  ) {
    super(line === undefined ? reason : `line ${line}: ${reason}`);
  }
}

const field = (line: string, from: number, to: number): string => line.slice(from - 1, to);
const digits = (line: string, from: number, to: number, n: number, what: string): string => {
  const v = field(line, from, to);
  if (!/^[0-9]+$/.test(v)) throw new NachaError(n, `${what} (positions ${from}-${to}) must be digits, found "${v}"`);
  return v;
};

function readReturn(line: string, n: number): ReturnAddenda {
  const code = field(line, 4, 6);
  const numeric = Number(code.slice(1));
  const kind = numeric >= 61 && numeric <= 70 ? 'dishonored' : numeric >= 71 && numeric <= 77 ? 'contested' : 'return';
  const dateOfDeath = field(line, 22, 27).trim();
  return {
    kind,
    code,
    originalTrace: digits(line, 7, 21, n, 'the original entry trace number'),
    originalRdfi: field(line, 28, 35),
    dateOfDeath: kind === 'return' && dateOfDeath !== '' ? dateOfDeath : undefined,
    information: (kind === 'return' ? field(line, 36, 79) : field(line, 36, 79)).trim(),
    traceNumber: field(line, 80, 94),
  };
}

/**
 * Reads a NACHA file and checks it: record lengths (a line shorter than 94 characters is taken as
 * one whose trailing blanks were trimmed), record order, each batch's and the file's entry counts,
 * entry hash and totals, and the block count. IAT batches are refused: Corridor neither sends nor
 * takes in international ACH. Throws a NachaError naming the line and what is wrong.
 */
export function readNacha(text: string): ReadFile {
  const raw = text.replace(/\r\n?/g, '\n').split('\n');
  while (raw.length > 0 && raw[raw.length - 1]?.trim() === '') raw.pop();
  if (raw.length === 0) throw new NachaError(undefined, 'the file is empty');
  const lines = raw.map((l, i) => {
    if (l.length > RECORD_LENGTH) throw new NachaError(i + 1, `a record of ${l.length} characters; NACHA records are ${RECORD_LENGTH}`);
    return l.padEnd(RECORD_LENGTH, ' ');
  });
  const header = lines[0] as string;
  if (header[0] !== '1') throw new NachaError(1, 'the file does not begin with a file header record (type 1)');
  if (field(header, 35, 37) !== '094') throw new NachaError(1, `record size ${field(header, 35, 37)}, not 094`);
  const file: ReadFile = {
    destination: field(header, 4, 13).trim(),
    origin: field(header, 14, 23).trim(),
    creationDate: field(header, 24, 29),
    idModifier: field(header, 34, 34),
    destinationName: field(header, 41, 63).trim(),
    originName: field(header, 64, 86).trim(),
    batches: [],
    entryHash: '',
    totalDebitCents: 0n,
    totalCreditCents: 0n,
  };
  let batch: ReadBatch | undefined;
  let batchRouting: string[] = [];
  let batchCount = 0;
  let batchDebit = 0n;
  let batchCredit = 0n;
  let entry: ReadEntry | undefined;
  const fileRouting: string[] = [];
  let fileCount = 0;
  let fileDebit = 0n;
  let fileCredit = 0n;
  let control: string | undefined;
  let controlLine = 0;
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i] as string;
    const n = i + 1;
    if (control !== undefined) {
      if (line !== '9'.repeat(RECORD_LENGTH)) throw new NachaError(n, 'a record after the file control record that is not block fill (nines)');
      continue;
    }
    switch (line[0]) {
      case '5': {
        if (batch) throw new NachaError(n, 'a batch header inside a batch that has no control record');
        const sec = field(line, 51, 53);
        if (sec === 'IAT') throw new NachaError(n, 'an IAT (international ACH) batch: Corridor sends no international ACH entries and takes none in');
        batch = {
          serviceClass: field(line, 2, 4),
          companyName: field(line, 5, 20).trim(),
          companyId: field(line, 41, 50).trim(),
          sec,
          description: field(line, 54, 63).trim(),
          effectiveDate: field(line, 70, 75),
          odfi8: field(line, 80, 87),
          batchNumber: field(line, 88, 94),
          entries: [],
        };
        batchRouting = [];
        batchCount = 0;
        batchDebit = 0n;
        batchCredit = 0n;
        entry = undefined;
        break;
      }
      case '6': {
        if (!batch) throw new NachaError(n, 'an entry outside a batch');
        const transactionCode = digits(line, 2, 3, n, 'the transaction code');
        const amountCents = BigInt(digits(line, 30, 39, n, 'the amount'));
        const routing8 = digits(line, 4, 11, n, "the receiving DFI's routing number");
        entry = {
          transactionCode,
          rdfiRouting8: routing8,
          checkDigit: field(line, 12, 12),
          accountNumber: field(line, 13, 29).trim(),
          amountCents,
          identification: field(line, 40, 54).trim(),
          name: field(line, 55, 76).trim(),
          traceNumber: field(line, 80, 94),
          prenote: ['3', '8'].includes(transactionCode[1] as string) && amountCents === 0n,
          remittance: [],
          returns: [],
          change: undefined,
        };
        batch.entries.push(entry);
        batchRouting.push(routing8);
        batchCount++;
        if (isCredit(transactionCode)) batchCredit += amountCents;
        else if (isDebit(transactionCode)) batchDebit += amountCents;
        else throw new NachaError(n, `transaction code ${transactionCode} is neither a credit nor a debit`);
        break;
      }
      case '7': {
        if (!batch || !entry) throw new NachaError(n, 'an addenda record without its entry');
        const type = field(line, 2, 3);
        if (type === '99') entry.returns.push(readReturn(line, n));
        else if (type === '98')
          entry.change = {
            code: field(line, 4, 6),
            originalTrace: digits(line, 7, 21, n, 'the original entry trace number'),
            originalRdfi: field(line, 28, 35),
            correctedData: field(line, 36, 64).trim(),
            traceNumber: field(line, 80, 94),
          };
        else if (type === '05') entry.remittance.push(field(line, 4, 83).trim());
        else throw new NachaError(n, `addenda type ${type} is not read here (05, 98 and 99 are)`);
        batchCount++;
        break;
      }
      case '8': {
        if (!batch) throw new NachaError(n, 'a batch control record without its batch');
        const count = Number(digits(line, 5, 10, n, 'the entry/addenda count'));
        const hash = digits(line, 11, 20, n, 'the entry hash');
        const debit = BigInt(digits(line, 21, 32, n, 'the total debit'));
        const credit = BigInt(digits(line, 33, 44, n, 'the total credit'));
        if (count !== batchCount) throw new NachaError(n, `batch ${batch.batchNumber}: the control counts ${count} entries and addenda, the batch holds ${batchCount}`);
        if (hash !== entryHash(batchRouting)) throw new NachaError(n, `batch ${batch.batchNumber}: entry hash ${hash}, the entries add up to ${entryHash(batchRouting)}`);
        if (debit !== batchDebit || credit !== batchCredit)
          throw new NachaError(n, `batch ${batch.batchNumber}: the control totals debit ${debit} and credit ${credit} cents, the entries add up to ${batchDebit} and ${batchCredit}`);
        file.batches.push(batch);
        fileRouting.push(...batchRouting);
        fileCount += batchCount;
        fileDebit += batchDebit;
        fileCredit += batchCredit;
        batch = undefined;
        entry = undefined;
        break;
      }
      case '9': {
        if (batch) throw new NachaError(n, `batch ${batch.batchNumber} has no control record`);
        control = line;
        controlLine = n;
        break;
      }
      default:
        throw new NachaError(n, `unknown record type "${line[0]}"`);
    }
  }
  if (control === undefined) throw new NachaError(undefined, batch ? `batch ${batch.batchNumber} has no control record and the file no file control record` : 'the file has no file control record (type 9)');
  const batches = Number(digits(control, 2, 7, controlLine, 'the batch count'));
  const count = Number(digits(control, 14, 21, controlLine, 'the entry/addenda count'));
  const hash = digits(control, 22, 31, controlLine, 'the entry hash');
  const debit = BigInt(digits(control, 32, 43, controlLine, 'the total debit'));
  const credit = BigInt(digits(control, 44, 55, controlLine, 'the total credit'));
  if (batches !== file.batches.length) throw new NachaError(controlLine, `the file control counts ${batches} batches, the file holds ${file.batches.length}`);
  if (count !== fileCount) throw new NachaError(controlLine, `the file control counts ${count} entries and addenda, the batches hold ${fileCount}`);
  if (hash !== entryHash(fileRouting)) throw new NachaError(controlLine, `the file entry hash ${hash}, the entries add up to ${entryHash(fileRouting)}`);
  if (debit !== fileDebit || credit !== fileCredit) throw new NachaError(controlLine, `the file control totals debit ${debit} and credit ${credit} cents, the batches add up to ${fileDebit} and ${fileCredit}`);
  file.entryHash = hash;
  file.totalDebitCents = debit;
  file.totalCreditCents = credit;
  return file;
}

/** The ABA check digit of an 8-digit routing prefix. */
export function abaCheckDigit(routing8: string): string {
  const w = [3, 7, 1, 3, 7, 1, 3, 7];
  const sum = [...routing8].reduce((s, d, i) => s + Number(d) * (w[i] as number), 0);
  return String((10 - (sum % 10)) % 10);
}
