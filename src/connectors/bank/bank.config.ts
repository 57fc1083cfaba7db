import { fileExchangeSettings, Section, type FileExchangeSettings, type SftpSettings } from '../../platform/connectors-file.js';
import { normaliseIban } from '../../platform/lib/bank-account.js';
import { DomainError } from '../../platform/lib/errors.js';
import { iso4217Scale } from '../../platform/lib/currencies.js';
import { parseAmount } from '../../platform/lib/money.js';
import type { BankCalendar } from './bank.calendar.js';
import { toEpcLatin } from './epc-latin.js';
import { fileNamesSection, type FileNames } from './bank.filenames.js';
import { pgpSection, type PgpSettings } from './bank.pgp.js';

/**
 * The "bank" section of CORRIDOR_CONNECTORS_FILE, validated at start (a bad section refuses to
 * start, naming the setting). The inbound side reads `accounts`, `sftp.outbox` and `pollSeconds`.
 *
 *   { "sftp": { "host", "port", "username", "privateKeyFile", "hostKeySha256", "inbox": "/in", "outbox": "/out" },
 *     "accounts": [{ "id": "eur-main", "iban": "…", "bic": "…", "name": "…", "currency": "EUR" }],
 *     "cutoff": { "maxPayouts": 500, "maxSeconds": 60 }, "pollSeconds": 30,
 *     "inbound": { "maxFileBytes": 26214400, "chunkEntries": 500, "readMemoryMb": 512 },
 *     "maxCredit": { "EUR": "5000000.00" }, "calendar": { "timeZone": "Europe/Berlin", "cutoffTime": "15:00" } }
 *
 * An account may carry its postal address (`"address": { "street", "buildingNumber", "postcode",
 * "town", "country" }`, written as the debtor's in every file) and `"batchBooking": true` (default
 * false: one debit per payout on the statement).
 *
 * An account may carry its own `"maxCredit": "250000.00"` (in its currency); a credit above the
 * limit is held as an exception for the operator, never posted (creditLimitMinor).
 *
 * `pgp` (bank.pgp.ts) encrypts and signs the files sent and decrypts and verifies those received;
 * `fileNames` (bank.filenames.ts) gives the bank's own names for the files sent and received.
 *
 * In the sandbox only, `"directory": "<path>"` may stand instead of `sftp`: the files go to
 * `<path>/in` and come back from `<path>/out` on the local disk, where the sandbox bank
 * (`corridor bank-sim --dir <path>`, bank.simulator.ts) answers them.
 */
export interface BankAccount {
  /** The operator's name for the account: letters, digits and dashes (it appears in file names). */
  id: string;
  iban: string;
  bic: string;
  /** The account holder's name as the bank knows it (the debtor and initiating party of every file). */
  name: string;
  currency: string;
  /** The largest single credit to this account taken in without the operator, in minor units of its currency (`maxCredit`). */
  maxCreditMinor: bigint | undefined;
  /** The account holder's postal address (the debtor's PstlAdr): compulsory for SWIFT and for SEPA payees outside the EEA. */
  address: DebtorAddress | undefined;
  /** `BtchBookg`: one debit per file block (true) or one per payout (false, the default). */
  batchBooking: boolean;
}

/** A structured postal address as a file writes it: town and country always. */
export interface DebtorAddress {
  street?: string | undefined;
  buildingNumber?: string | undefined;
  postcode?: string | undefined;
  town: string;
  country: string;
}

/** The bank's SFTP server (the connectors file's `sftp`), as every file connector reads it. */
export type BankSftp = SftpSettings;

export interface BankConfig extends FileExchangeSettings {
  accounts: BankAccount[];
  /**
   * The bank's answers: a file larger than `maxFileBytes` (from the SFTP listing, before any download)
   * is quarantined unread; a large file is read in a process of its own whose heap is `readMemoryMb` (a file
   * that needs more is quarantined); a file is applied `chunkEntries` entries to a transaction.
   */
  inbound: { maxFileBytes: number; chunkEntries: number; readMemoryMb: number };
  /** The largest single credit taken in without the operator, by currency, in minor units (`maxCredit`). */
  maxCredit: Record<string, bigint>;
  /** When the bank executes: its time zone and cut-off time (`calendar`); weekends and TARGET2 closing days never. */
  calendar: BankCalendar;
  /** OpenPGP of the files both ways (`pgp`, bank.pgp.ts): absent, files go and come in clear. */
  pgp: PgpSettings | undefined;
  /** The outbound names' template and the inbound names taken (`fileNames`, bank.filenames.ts). */
  fileNames: FileNames;
}

/**
 * A credit larger than this many units of its currency is held for the operator unless the
 * configuration says otherwise: more than the EPC's ceiling for one SEPA transfer (999,999,999.99), far
 * beyond what one credit to a payments company's account is.
 */
export const CREDIT_MAX_UNITS_DEFAULT = 1_000_000_000n;

/**
 * The largest credit in `currency` to the bank account `accountId` that is posted without the
 * operator: the account's `maxCredit` (in its currency), else the section's `maxCredit` for the
 * currency, else CREDIT_MAX_UNITS_DEFAULT units.
 */
export function creditLimitMinor(config: Pick<BankConfig, 'accounts' | 'maxCredit'> | undefined, accountId: string | null, currency: string): bigint {
  const account = config?.accounts.find((a) => a.id === accountId);
  if (account?.maxCreditMinor !== undefined && account.currency === currency) return account.maxCreditMinor;
  return config?.maxCredit[currency] ?? CREDIT_MAX_UNITS_DEFAULT * 10n ** BigInt(iso4217Scale(currency) ?? 2);
}

export const INBOUND_MAX_FILE_BYTES_DEFAULT = 25 * 1024 * 1024;
export const INBOUND_MAX_FILE_BYTES_MAX = 1024 * 1024 * 1024;
export const INBOUND_CHUNK_ENTRIES_DEFAULT = 500;
/** The heap of the process reading a large file, in MB: a 25 MiB notification reads in well under 256 MB. */
export const INBOUND_READ_MEMORY_MB_DEFAULT = 512;

/** Files of at most this many payouts (EPC and CBPR+ set no lower bound; banks often take 10,000 or more). */
export const CUTOFF_MAX_PAYOUTS_MAX = 100_000;
export const CUTOFF_MAX_SECONDS_MAX = 86_400;

const ACCOUNT_ID = /^[A-Za-z0-9-]{1,32}$/;
const IBAN = /^[A-Z]{2}[0-9]{2}[A-Za-z0-9]{1,30}$/;
const BIC = /^[A-Z0-9]{4}[A-Z]{2}[A-Z0-9]{2}([A-Z0-9]{3})?$/;

/** A positive decimal amount of the currency, in minor units. */
function money(o: Section, key: string, currency: string): bigint {
  if (!/^[A-Z]{3}$/.test(currency)) o.fail(key, `names an amount in ${currency}, which is not an ISO 4217 code`);
  try {
    return parseAmount(o.raw(key), currency, `${o.path}.${key}`);
  } catch (err) {
    if (err instanceof DomainError) o.fail(key, `must be a positive decimal amount of ${currency} (${err.message})`);
    throw err;
  }
}

/** Text of the debtor's address, in the EPC Latin set and within its field's length. */
function latinText(o: Section, key: string, max: number): string {
  const converted = toEpcLatin(o.text(key));
  if (!converted.ok) o.fail(key, `${converted.reason}, which a bank file cannot carry`);
  if (converted.text.length > max) o.fail(key, `must be at most ${max} characters`);
  return converted.text;
}

const optionalLatin = (o: Section, key: string, max: number): string | undefined => (o.has(key) ? latinText(o, key, max) : undefined);

/** An account's `address`: { street, buildingNumber, postcode, town, country }, town and country required. */
function addressSection(o: Section): DebtorAddress {
  const country = o.text('country').toUpperCase();
  if (!/^[A-Z]{2}$/.test(country)) o.fail('country', 'must be an ISO 3166 country code of 2 letters');
  return {
    street: optionalLatin(o, 'street', 70),
    buildingNumber: optionalLatin(o, 'buildingNumber', 16),
    postcode: optionalLatin(o, 'postcode', 16),
    town: latinText(o, 'town', 35),
    country,
  };
}

/** `calendar`: { "timeZone": "Europe/Berlin", "cutoffTime": "15:00" }; by default UTC with no cut-off time. */
function calendarSection(o: Section): BankCalendar {
  return { timeZone: o.timeZone('timeZone', 'UTC'), cutoffTime: o.time('cutoffTime', '24:00', { endOfDay: true }) };
}

/** `maxCredit`: { "<currency>": "<decimal>" }. */
function maxCreditSection(o: Section): Record<string, bigint> {
  return Object.fromEntries(o.keys().map((currency) => [currency, money(o, currency, currency)]));
}

function accountsSection(s: Section): BankAccount[] {
  const seen = new Set<string>();
  return s.objects('accounts').map((o) => {
    const currency = o.text('currency');
    const id = o.text('id');
    if (!ACCOUNT_ID.test(id)) o.fail('id', 'must be 1 to 32 letters, digits or dashes');
    if (seen.has(id)) o.fail('id', `repeats "${id}"`);
    seen.add(id);
    const iban = normaliseIban(o.text('iban'));
    if (!IBAN.test(iban)) o.fail('iban', 'must be an IBAN');
    const bic = o.text('bic').toUpperCase();
    if (!BIC.test(bic)) o.fail('bic', 'must be a BIC of 8 or 11 characters');
    if (!/^[A-Z]{3}$/.test(currency)) o.fail('currency', 'must be an ISO 4217 code');
    return {
      id,
      iban,
      bic,
      // The debtor's name goes in every file: in the EPC Latin set, as payouts' texts are.
      name: latinText(o, 'name', 70),
      currency,
      maxCreditMinor: o.has('maxCredit') ? money(o, 'maxCredit', currency) : undefined,
      address: o.has('address') ? addressSection(o.object('address')) : undefined,
      batchBooking: o.bool('batchBooking', false),
    };
  });
}

/**
 * The "bank" section as validated; throws an Error naming the first bad setting. `env` is the
 * process's CORRIDOR_ENV: `directory` (the sandbox bank) is refused outside the sandbox.
 */
export function parseBankConfig(section: unknown, env = 'production'): BankConfig {
  const o = Section.of('bank', section);
  const exchange = fileExchangeSettings(o, env, { maxPayouts: CUTOFF_MAX_PAYOUTS_MAX, maxPayoutsDefault: 500, maxSeconds: CUTOFF_MAX_SECONDS_MAX, maxSecondsDefault: 60 });
  const inbound = o.object('inbound', { optional: true });
  const pgp = o.has('pgp') ? pgpSection(o.object('pgp')) : undefined;
  return {
    ...exchange,
    accounts: accountsSection(o),
    inbound: {
      maxFileBytes: inbound.integer('maxFileBytes', 1, INBOUND_MAX_FILE_BYTES_MAX, INBOUND_MAX_FILE_BYTES_DEFAULT),
      chunkEntries: inbound.integer('chunkEntries', 1, 10_000, INBOUND_CHUNK_ENTRIES_DEFAULT),
      readMemoryMb: inbound.integer('readMemoryMb', 32, 65_536, INBOUND_READ_MEMORY_MB_DEFAULT),
    },
    maxCredit: maxCreditSection(o.object('maxCredit', { optional: true })),
    calendar: calendarSection(o.object('calendar', { optional: true })),
    pgp,
    fileNames: fileNamesSection(o.object('fileNames', { optional: true }), pgp !== undefined),
  };
}

/** The debtor account of a payout: the first account in its funding currency. */
export function debtorAccountFor(config: BankConfig, fundingCurrency: string): BankAccount | undefined {
  return config.accounts.find((a) => a.currency === fundingCurrency);
}
