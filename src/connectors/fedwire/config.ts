import { isAbaRoutingNumber } from '../../platform/lib/bank-account.js';
import { parseSftpSection, toEpcLatin, type BankSftp } from '../bank/bank.port.js';
import { FUNDS_SERVICE, minutesOf } from './calendar.js';

/**
 * The "fedwire" section of CORRIDOR_CONNECTORS_FILE, validated at start (a bad section refuses to
 * start, naming the setting):
 *
 *   { "sftp": { "host", "port", "username", "privateKeyFile", "hostKeySha256", "inbox", "outbox" },
 *     "account": { "id": "usd-wires", "name": "Corridor Payments Inc", "accountNumber": "5647772655",
 *                  "routingNumber": "011104238", "address": { "street", "buildingNumber", "postcode", "town", "subdivision", "country" } },
 *     "bankCutoff": "17:00", "cutoff": { "maxPayouts": 100, "maxSeconds": 30 }, "pollSeconds": 30,
 *     "maxFileBytes": 5242880 }
 *
 * `account` is the operator's USD account at its US bank, debited for every wire; its routing number
 * is the bank's ABA number. `bankCutoff` is the bank's own cut-off for wire files, Eastern Time (at the
 * latest the Fed's 18:00 for customer transfers). In the sandbox only, `"directory"` may stand instead
 * of `sftp` (a local folder with `in/` and `out/`).
 */
export interface FedwireAccount {
  id: string;
  name: string;
  accountNumber: string;
  routingNumber: string;
  address: FedwireAddress | undefined;
}

export interface FedwireAddress {
  street?: string | undefined;
  buildingNumber?: string | undefined;
  postcode?: string | undefined;
  town: string;
  subdivision?: string | undefined;
  country: string;
}

export interface FedwireConfig {
  sftp: BankSftp | undefined;
  directory: string | undefined;
  account: FedwireAccount;
  bankCutoff: string;
  cutoff: { maxPayouts: number; maxSeconds: number };
  pollSeconds: number;
  maxFileBytes: number;
}

class FedwireConfigError extends Error {}

function fail(path: string, why: string): never {
  throw new FedwireConfigError(`connectors file: fedwire.${path} ${why}`);
}

function object(value: unknown, path: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) fail(path, 'must be an object');
  return value as Record<string, unknown>;
}

function text(o: Record<string, unknown>, key: string, path: string, fallback?: string): string {
  const value = o[key] ?? fallback;
  if (typeof value !== 'string' || value.trim() === '') fail(`${path}${key}`, 'must be a non-empty string');
  return value.trim();
}

function integer(o: Record<string, unknown>, key: string, path: string, min: number, max: number, fallback: number): number {
  const value = o[key] ?? fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) fail(`${path}${key}`, `must be an integer from ${min} to ${max}`);
  return value;
}

/** A text every wire file carries, in the EPC Latin set (a subset of what Fedwire takes) and within its field's length. */
function latin(o: Record<string, unknown>, key: string, path: string, max: number, required: boolean): string | undefined {
  if (o[key] === undefined && !required) return undefined;
  const converted = toEpcLatin(text(o, key, path));
  if (!converted.ok) fail(`${path}${key}`, `${converted.reason}, which a wire file cannot carry`);
  if (converted.text.length > max) fail(`${path}${key}`, `must be at most ${max} characters`);
  return converted.text;
}

function addressSection(value: unknown): FedwireAddress {
  const o = object(value, 'account.address');
  const p = 'account.address.';
  const country = text(o, 'country', p).toUpperCase();
  if (!/^[A-Z]{2}$/.test(country)) fail(`${p}country`, 'must be an ISO 3166 country code of 2 letters');
  return {
    street: latin(o, 'street', p, 70, false),
    buildingNumber: latin(o, 'buildingNumber', p, 16, false),
    postcode: latin(o, 'postcode', p, 16, false),
    town: latin(o, 'town', p, 35, true) as string,
    subdivision: latin(o, 'subdivision', p, 35, false),
    country,
  };
}

function accountSection(value: unknown): FedwireAccount {
  const o = object(value, 'account');
  const id = text(o, 'id', 'account.');
  if (!/^[A-Za-z0-9-]{1,32}$/.test(id)) fail('account.id', 'must be 1 to 32 letters, digits or dashes');
  const accountNumber = text(o, 'accountNumber', 'account.');
  if (!/^[0-9]{4,17}$/.test(accountNumber)) fail('account.accountNumber', 'must be 4 to 17 digits');
  const routingNumber = text(o, 'routingNumber', 'account.');
  if (!isAbaRoutingNumber(routingNumber)) fail('account.routingNumber', 'must be a 9-digit ABA routing number with a valid check digit');
  return {
    id,
    name: latin(o, 'name', 'account.', 70, true) as string,
    accountNumber,
    routingNumber,
    address: o.address === undefined ? undefined : addressSection(o.address),
  };
}

function cutoffTime(o: Record<string, unknown>): string {
  const value = text(o, 'bankCutoff', '', '17:00');
  if (!/^([01]\d|2[0-3]):[0-5]\d$/.test(value)) fail('bankCutoff', 'must be a time HH:MM, Eastern Time');
  if (minutesOf(value) > FUNDS_SERVICE.customerTransferCutoff) fail('bankCutoff', 'must be at the latest 18:00: the Fedwire Funds Service takes customer transfers until 18:00 ET');
  return value;
}

/** The "fedwire" section as validated; throws naming the first bad setting. `env` is CORRIDOR_ENV: `directory` only in the sandbox. */
export function parseFedwireConfig(section: unknown, env = 'production'): FedwireConfig {
  const o = object(section, '(section)');
  const cutoff = object(o.cutoff ?? {}, 'cutoff');
  let directory: string | undefined;
  if (o.directory !== undefined) {
    if (env !== 'sandbox') fail('directory', 'is a local folder for the sandbox only (CORRIDOR_ENV=sandbox); a real bank is reached with "sftp"');
    if (o.sftp !== undefined) fail('directory', 'and fedwire.sftp exclude each other: give one');
    directory = text(o, 'directory', '');
  }
  return {
    sftp: directory === undefined ? parseSftpSection(o.sftp, 'fedwire') : undefined,
    directory,
    account: accountSection(o.account),
    bankCutoff: cutoffTime(o),
    cutoff: {
      maxPayouts: integer(cutoff, 'maxPayouts', 'cutoff.', 1, 10_000, 100),
      maxSeconds: integer(cutoff, 'maxSeconds', 'cutoff.', 1, 3_600, 30),
    },
    pollSeconds: integer(o, 'pollSeconds', '', 1, 86_400, 30),
    maxFileBytes: integer(o, 'maxFileBytes', '', 1, 1024 * 1024 * 1024, 5 * 1024 * 1024),
  };
}
