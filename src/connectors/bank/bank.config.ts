import fs from 'node:fs';
import { normaliseIban } from '../../platform/lib/bank-account.js';
import { DomainError } from '../../platform/lib/errors.js';
import { iso4217Scale } from '../../platform/lib/currencies.js';
import { parseAmount } from '../../platform/lib/money.js';
import { isTimeZone, type BankCalendar } from './bank.calendar.js';
import { toEpcLatin } from './epc-latin.js';

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

export interface BankSftp {
  host: string;
  port: number;
  username: string;
  privateKeyFile: string;
  /** The bank's host key fingerprint: SHA-256 of the key blob, base64 without padding (as `ssh-keygen -l` prints it, `SHA256:` prefix dropped). */
  hostKeySha256: string;
  /** Where Corridor writes files for the bank. */
  inbox: string;
  /** Where the bank writes files for Corridor. */
  outbox: string;
}

export interface BankConfig {
  /** The bank's SFTP server; absent only when `directory` is set (the sandbox bank). */
  sftp: BankSftp | undefined;
  /** Sandbox only: a local folder (`in/`, `out/`) shared with the sandbox bank instead of SFTP. */
  directory: string | undefined;
  accounts: BankAccount[];
  cutoff: { maxPayouts: number; maxSeconds: number };
  pollSeconds: number;
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
const FINGERPRINT = /^[A-Za-z0-9+/]{43}$/;

class BankConfigError extends Error {}

function fail(path: string, why: string): never {
  throw new BankConfigError(`connectors file: bank.${path} ${why}`);
}

function object(value: unknown, path: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) fail(path, 'must be an object');
  return value as Record<string, unknown>;
}

function text(o: Record<string, unknown>, key: string, path: string, fallback?: string): string {
  const value = o[key] ?? fallback;
  if (typeof value !== 'string' || value.trim() === '') fail(`${path}${key}`, 'must be a non-empty string');
  return value;
}

function integer(o: Record<string, unknown>, key: string, path: string, min: number, max: number, fallback?: number): number {
  const value = o[key] ?? fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) fail(`${path}${key}`, `must be an integer from ${min} to ${max}`);
  return value;
}

/** A positive decimal amount of the currency, in minor units. */
function money(value: unknown, currency: string, path: string): bigint {
  if (!/^[A-Z]{3}$/.test(currency)) fail(path, `names an amount in ${currency}, which is not an ISO 4217 code`);
  try {
    return parseAmount(value, currency, path);
  } catch (err) {
    if (err instanceof DomainError) fail(path, `must be a positive decimal amount of ${currency} (${err.message})`);
    throw err;
  }
}

/** Text of the debtor's address, in the EPC Latin set and within its field's length. */
function latinText(o: Record<string, unknown>, key: string, path: string, max: number, required: boolean): string | undefined {
  if (o[key] === undefined && !required) return undefined;
  const converted = toEpcLatin(text(o, key, path));
  if (!converted.ok) fail(`${path}${key}`, `${converted.reason}, which a bank file cannot carry`);
  if (converted.text.length > max) fail(`${path}${key}`, `must be at most ${max} characters`);
  return converted.text;
}

/** An account's `address`: { street, buildingNumber, postcode, town, country }, town and country required. */
function addressSection(value: unknown, path: string): DebtorAddress {
  const o = object(value, path);
  const p = `${path}.`;
  const country = text(o, 'country', p).toUpperCase();
  if (!/^[A-Z]{2}$/.test(country)) fail(`${p}country`, 'must be an ISO 3166 country code of 2 letters');
  return {
    street: latinText(o, 'street', p, 70, false),
    buildingNumber: latinText(o, 'buildingNumber', p, 16, false),
    postcode: latinText(o, 'postcode', p, 16, false),
    town: latinText(o, 'town', p, 35, true) as string,
    country,
  };
}

/** `calendar`: { "timeZone": "Europe/Berlin", "cutoffTime": "15:00" }; by default UTC with no cut-off time. */
function calendarSection(value: unknown): BankCalendar {
  const o = object(value ?? {}, 'calendar');
  const timeZone = text(o, 'timeZone', 'calendar.', 'UTC');
  if (!isTimeZone(timeZone)) fail('calendar.timeZone', `names no time zone this runtime knows: ${timeZone}`);
  const cutoffTime = text(o, 'cutoffTime', 'calendar.', '24:00');
  if (!/^(([01]\d|2[0-3]):[0-5]\d|24:00)$/.test(cutoffTime)) fail('calendar.cutoffTime', 'must be a time HH:MM (24:00 for none)');
  return { timeZone, cutoffTime };
}

/** `maxCredit`: { "<currency>": "<decimal>" }. */
function maxCreditSection(value: unknown): Record<string, bigint> {
  const o = object(value ?? {}, 'maxCredit');
  return Object.fromEntries(Object.entries(o).map(([currency, amount]) => [currency, money(amount, currency, `maxCredit.${currency}`)]));
}

function bool(o: Record<string, unknown>, key: string, path: string, fallback: boolean): boolean {
  const value = o[key] ?? fallback;
  if (typeof value !== 'boolean') fail(`${path}${key}`, 'must be true or false');
  return value;
}

/** `SHA256:abc…` or `abc…`, padding or not: the 43 base64 characters. */
export function normalizeFingerprint(value: string): string | undefined {
  const bare = value.trim().replace(/^SHA256:/, '').replace(/=+$/, '');
  return FINGERPRINT.test(bare) ? bare : undefined;
}

function sftpSection(value: unknown): BankSftp {
  const o = object(value, 'sftp');
  const privateKeyFile = text(o, 'privateKeyFile', 'sftp.');
  try {
    fs.accessSync(privateKeyFile, fs.constants.R_OK);
  } catch {
    fail('sftp.privateKeyFile', `names a file that cannot be read: ${privateKeyFile}`);
  }
  const hostKeySha256 = normalizeFingerprint(text(o, 'hostKeySha256', 'sftp.')) ?? fail('sftp.hostKeySha256', 'must be a SHA-256 fingerprint (SHA256:<43 base64 characters>)');
  return {
    host: text(o, 'host', 'sftp.'),
    port: integer(o, 'port', 'sftp.', 1, 65535, 22),
    username: text(o, 'username', 'sftp.'),
    privateKeyFile,
    hostKeySha256,
    inbox: text(o, 'inbox', 'sftp.', '/in'),
    outbox: text(o, 'outbox', 'sftp.', '/out'),
  };
}

/**
 * An `sftp` object as another file connector's section carries it (fedwire): validated as the bank's,
 * its errors naming that section.
 */
export function parseSftpSection(value: unknown, section: string): BankSftp {
  try {
    return sftpSection(value);
  } catch (err) {
    if (err instanceof BankConfigError) throw new BankConfigError(err.message.replace('connectors file: bank.', `connectors file: ${section}.`));
    throw err;
  }
}

function accountsSection(value: unknown): BankAccount[] {
  if (!Array.isArray(value) || value.length === 0) fail('accounts', 'must be a non-empty array');
  const seen = new Set<string>();
  return value.map((item, i) => {
    const o = object(item, `accounts.${i}`);
    const p = `accounts.${i}.`;
    const currency = text(o, 'currency', p);
    const account = {
      id: text(o, 'id', p),
      iban: normaliseIban(text(o, 'iban', p)),
      bic: text(o, 'bic', p).toUpperCase(),
      name: text(o, 'name', p),
      currency,
      maxCreditMinor: o.maxCredit === undefined ? undefined : money(o.maxCredit, currency, `${p}maxCredit`),
      address: o.address === undefined ? undefined : addressSection(o.address, `${p}address`),
      batchBooking: bool(o, 'batchBooking', p, false),
    };
    if (!ACCOUNT_ID.test(account.id)) fail(`${p}id`, 'must be 1 to 32 letters, digits or dashes');
    if (seen.has(account.id)) fail(`${p}id`, `repeats "${account.id}"`);
    seen.add(account.id);
    if (!IBAN.test(account.iban)) fail(`${p}iban`, 'must be an IBAN');
    if (!BIC.test(account.bic)) fail(`${p}bic`, 'must be a BIC of 8 or 11 characters');
    if (!/^[A-Z]{3}$/.test(account.currency)) fail(`${p}currency`, 'must be an ISO 4217 code');
    // The debtor's name goes in every file: in the EPC Latin set, as payouts' texts are.
    const name = toEpcLatin(account.name);
    if (!name.ok) fail(`${p}name`, `${name.reason}, which a bank file cannot carry`);
    if (name.text.length > 70) fail(`${p}name`, 'must be at most 70 characters');
    return { ...account, name: name.text };
  });
}

/** The sandbox bank's folder: only in the sandbox, and instead of `sftp`. */
function directorySection(o: Record<string, unknown>, env: string): string | undefined {
  if (o.directory === undefined) return undefined;
  if (env !== 'sandbox') fail('directory', 'is the sandbox bank\'s folder and only allowed with CORRIDOR_ENV=sandbox; a real bank is reached with "sftp"');
  if (o.sftp !== undefined) fail('directory', 'and bank.sftp exclude each other: give one');
  return text(o, 'directory', '');
}

/**
 * The "bank" section as validated; throws an Error naming the first bad setting. `env` is the
 * process's CORRIDOR_ENV: `directory` (the sandbox bank) is refused outside the sandbox.
 */
export function parseBankConfig(section: unknown, env = 'production'): BankConfig {
  const o = object(section, '(section)');
  const cutoff = object(o.cutoff ?? {}, 'cutoff');
  const inbound = object(o.inbound ?? {}, 'inbound');
  const directory = directorySection(o, env);
  return {
    sftp: directory === undefined ? sftpSection(o.sftp) : undefined,
    directory,
    accounts: accountsSection(o.accounts),
    cutoff: {
      maxPayouts: integer(cutoff, 'maxPayouts', 'cutoff.', 1, CUTOFF_MAX_PAYOUTS_MAX, 500),
      maxSeconds: integer(cutoff, 'maxSeconds', 'cutoff.', 1, CUTOFF_MAX_SECONDS_MAX, 60),
    },
    pollSeconds: integer(o, 'pollSeconds', '', 1, CUTOFF_MAX_SECONDS_MAX, 30),
    inbound: {
      maxFileBytes: integer(inbound, 'maxFileBytes', 'inbound.', 1, INBOUND_MAX_FILE_BYTES_MAX, INBOUND_MAX_FILE_BYTES_DEFAULT),
      chunkEntries: integer(inbound, 'chunkEntries', 'inbound.', 1, 10_000, INBOUND_CHUNK_ENTRIES_DEFAULT),
      readMemoryMb: integer(inbound, 'readMemoryMb', 'inbound.', 32, 65_536, INBOUND_READ_MEMORY_MB_DEFAULT),
    },
    maxCredit: maxCreditSection(o.maxCredit),
    calendar: calendarSection(o.calendar),
  };
}

/** The debtor account of a payout: the first account in its funding currency. */
export function debtorAccountFor(config: BankConfig, fundingCurrency: string): BankAccount | undefined {
  return config.accounts.find((a) => a.currency === fundingCurrency);
}
