import fs from 'node:fs';
import { normalizeFingerprint, type BankSftp } from '../bank/bank.config.js';
import { isAbaRoutingNumber } from '../../platform/lib/bank-account.js';
import { isTimeZone, type AchCalendar } from './calendar.js';

/**
 * The "ach" section of CORRIDOR_CONNECTORS_FILE, validated at start (a bad section refuses to start,
 * naming the setting):
 *
 *   { "sftp": { "host", "port", "username", "privateKeyFile", "hostKeySha256", "inbox": "/in", "outbox": "/out" },
 *     "odfi": { "routingNumber": "121042882", "name": "MY BANK", "origin": " 121042882" },
 *     "originator": { "name": "CORRIDOR PAYMENTS", "companyId": "1234567890" },
 *     "balanced": { "accountNumber": "987654321", "accountType": "checking" },
 *     "calendar": { "timeZone": "America/New_York", "sameDayCutoffs": ["10:00", "14:00"], "nextDayCutoff": "18:00" },
 *     "cutoff": { "maxPayouts": 5000, "maxSeconds": 60 }, "pollSeconds": 30, "description": "PAYOUT" }
 *
 * `balanced` (absent: unbalanced files, as most ODFIs want) makes every batch end with one debit to
 * the originator's settlement account for its credits. In the sandbox only, `"directory": "<path>"`
 * may stand instead of `sftp`: files go to `<path>/in` and come back from `<path>/out` (the sandbox
 * ACH bank, sandbox.ts, answers there).
 */
export interface AchConfig {
  sftp: BankSftp | undefined;
  directory: string | undefined;
  odfi: { routingNumber: string; name: string; origin: string };
  originator: { name: string; companyId: string };
  balanced: { accountNumber: string; accountType: 'checking' | 'savings' } | undefined;
  calendar: AchCalendar;
  cutoff: { maxPayouts: number; maxSeconds: number };
  pollSeconds: number;
  description: string;
}

class AchConfigError extends Error {}

function fail(path: string, why: string): never {
  throw new AchConfigError(`connectors file: ach.${path} ${why}`);
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

function integer(o: Record<string, unknown>, key: string, path: string, min: number, max: number, fallback: number): number {
  const value = o[key] ?? fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) fail(`${path}${key}`, `must be an integer from ${min} to ${max}`);
  return value;
}

function ascii(o: Record<string, unknown>, key: string, path: string, max: number, fallback?: string): string {
  const value = text(o, key, path, fallback);
  if (!/^[ -~]+$/.test(value)) fail(`${path}${key}`, 'must be printable ASCII (NACHA files carry no other characters)');
  if (value.length > max) fail(`${path}${key}`, `must be at most ${max} characters`);
  return value;
}

const TIME = /^([01]\d|2[0-3]):[0-5]\d$/;

function sftpSection(value: unknown): BankSftp {
  const o = object(value, 'sftp');
  const privateKeyFile = text(o, 'privateKeyFile', 'sftp.');
  try {
    fs.accessSync(privateKeyFile, fs.constants.R_OK);
  } catch {
    fail('sftp.privateKeyFile', `names a file that cannot be read: ${privateKeyFile}`);
  }
  return {
    host: text(o, 'host', 'sftp.'),
    port: integer(o, 'port', 'sftp.', 1, 65535, 22),
    username: text(o, 'username', 'sftp.'),
    privateKeyFile,
    hostKeySha256: normalizeFingerprint(text(o, 'hostKeySha256', 'sftp.')) ?? fail('sftp.hostKeySha256', 'must be a SHA-256 fingerprint (SHA256:<43 base64 characters>)'),
    inbox: text(o, 'inbox', 'sftp.', '/in'),
    outbox: text(o, 'outbox', 'sftp.', '/out'),
  };
}

function calendarSection(value: unknown): AchCalendar {
  const o = object(value ?? {}, 'calendar');
  const timeZone = text(o, 'timeZone', 'calendar.', 'America/New_York');
  if (!isTimeZone(timeZone)) fail('calendar.timeZone', `names no time zone this runtime knows: ${timeZone}`);
  const sameDay = o.sameDayCutoffs ?? ['10:30', '14:45'];
  if (!Array.isArray(sameDay) || sameDay.some((t) => typeof t !== 'string' || !TIME.test(t))) fail('calendar.sameDayCutoffs', 'must be an array of times HH:MM ([] for no Same Day ACH)');
  const sorted = [...(sameDay as string[])].sort();
  const nextDayCutoff = text(o, 'nextDayCutoff', 'calendar.', '20:00');
  if (!TIME.test(nextDayCutoff)) fail('calendar.nextDayCutoff', 'must be a time HH:MM');
  if (sorted.some((t) => t >= nextDayCutoff)) fail('calendar.sameDayCutoffs', 'must all be before calendar.nextDayCutoff');
  return { timeZone, sameDayCutoffs: sorted, nextDayCutoff };
}

/** The "ach" section as validated; throws naming the first bad setting. `directory` (the sandbox ACH bank) is refused outside the sandbox. */
export function parseAchConfig(section: unknown, env = 'production'): AchConfig {
  const o = object(section, '(section)');
  let directory: string | undefined;
  if (o.directory !== undefined) {
    if (env !== 'sandbox') fail('directory', 'is the sandbox ACH bank\'s folder and only allowed with CORRIDOR_ENV=sandbox; a real ODFI is reached with "sftp"');
    if (o.sftp !== undefined) fail('directory', 'and ach.sftp exclude each other: give one');
    directory = text(o, 'directory', '');
  }
  const odfi = object(o.odfi, 'odfi');
  const routingNumber = text(odfi, 'routingNumber', 'odfi.');
  if (!isAbaRoutingNumber(routingNumber)) fail('odfi.routingNumber', 'must be a 9-digit ABA routing number with its check digit');
  const originator = object(o.originator, 'originator');
  const companyId = ascii(originator, 'companyId', 'originator.', 10);
  let balanced: AchConfig['balanced'];
  if (o.balanced !== undefined) {
    const b = object(o.balanced, 'balanced');
    const accountNumber = text(b, 'accountNumber', 'balanced.');
    if (!/^[0-9]{4,17}$/.test(accountNumber)) fail('balanced.accountNumber', 'must be 4 to 17 digits');
    const accountType = text(b, 'accountType', 'balanced.', 'checking');
    if (accountType !== 'checking' && accountType !== 'savings') fail('balanced.accountType', 'must be "checking" or "savings"');
    balanced = { accountNumber, accountType };
  }
  const cutoff = object(o.cutoff ?? {}, 'cutoff');
  return {
    sftp: directory === undefined ? sftpSection(o.sftp) : undefined,
    directory,
    odfi: { routingNumber, name: ascii(odfi, 'name', 'odfi.', 23), origin: ascii(odfi, 'origin', 'odfi.', 10, ` ${routingNumber}`) },
    originator: { name: ascii(originator, 'name', 'originator.', 16), companyId },
    balanced,
    calendar: calendarSection(o.calendar),
    cutoff: { maxPayouts: integer(cutoff, 'maxPayouts', 'cutoff.', 1, 100_000, 5000), maxSeconds: integer(cutoff, 'maxSeconds', 'cutoff.', 1, 86_400, 60) },
    pollSeconds: integer(o, 'pollSeconds', '', 1, 86_400, 30),
    description: ascii(o, 'description', '', 10, 'PAYOUT'),
  };
}
