import fs from 'node:fs';

/**
 * Which connector serves which route: the operator's CORRIDOR_CONNECTORS_FILE (JSON), read once at
 * start. `routes` maps a route to a connector name, or to an object of currency → connector name
 * with `"*"` for the other currencies (`"bank_transfer": {"NGN": "paystack", "GBP": "clearbank",
 * "*": "bank"}`); `workspaces` overrides it per workspace, the same way; and every other top-level
 * key is a connector's own section (`bank`, `chains`), which that connector validates when the
 * registry builds it.
 */
export interface ConnectorsConfig {
  routes: Record<string, RouteServers>;
  workspaces: Record<string, Record<string, RouteServers>>;
  sections: Record<string, unknown>;
}

/** Who serves one route: a connector name per currency (ISO 4217 code), `"*"` for every other currency. */
export type RouteServers = Record<string, string>;

/** The wildcard of a route's currencies. */
export const ANY_CURRENCY = '*';

export const NO_CONNECTORS: ConnectorsConfig = { routes: {}, workspaces: {}, sections: {} };

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function nameMap(value: unknown, where: string): Record<string, RouteServers> {
  if (value === undefined) return {};
  if (!isObject(value)) throw new Error(`CORRIDOR_CONNECTORS_FILE: ${where} must be an object of route → connector name`);
  return Object.fromEntries(Object.entries(value).map(([route, served]) => [route, routeServers(served, `${where}.${route}`)]));
}

/** A route's connector name, or its object of currency → connector name (`"*"` for the rest). */
function routeServers(value: unknown, where: string): RouteServers {
  const name = (v: unknown, at: string): string => {
    if (typeof v !== 'string' || v === '') throw new Error(`CORRIDOR_CONNECTORS_FILE: ${at} must be a connector name`);
    return v;
  };
  if (!isObject(value)) return { [ANY_CURRENCY]: name(value, where) };
  const entries = Object.entries(value);
  if (entries.length === 0) throw new Error(`CORRIDOR_CONNECTORS_FILE: ${where} names no connector: give a name, or an object of currency → connector name`);
  for (const [currency, served] of entries) {
    if (currency !== ANY_CURRENCY && !/^[A-Z]{3}$/.test(currency)) throw new Error(`CORRIDOR_CONNECTORS_FILE: ${where}: "${currency}" is not a currency code (three capital letters, or "*" for every other currency)`);
    name(served, `${where}.${currency}`);
  }
  return value as RouteServers;
}

/** Parses the connectors file's text; the names and routes are checked against what exists when the registry is built. */
export function parseConnectorsConfig(text: string): ConnectorsConfig {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw new Error(`CORRIDOR_CONNECTORS_FILE is not valid JSON: ${(err as Error).message}`);
  }
  if (!isObject(parsed)) throw new Error('CORRIDOR_CONNECTORS_FILE must hold a JSON object');
  const { routes, workspaces, ...sections } = parsed;
  if (workspaces !== undefined && !isObject(workspaces)) throw new Error('CORRIDOR_CONNECTORS_FILE: workspaces must be an object of workspace id → routes');
  return {
    routes: nameMap(routes, 'routes'),
    workspaces: Object.fromEntries(Object.entries(workspaces ?? {}).map(([id, map]) => [id, nameMap(map, `workspaces.${id}`)])),
    sections,
  };
}

export function loadConnectorsConfig(file: string | undefined): ConnectorsConfig {
  if (!file) return NO_CONNECTORS;
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    throw new Error(`CORRIDOR_CONNECTORS_FILE ${file} cannot be read: ${(err as Error).message}`);
  }
  return parseConnectorsConfig(text);
}

/** A setting of the connectors file that is missing or wrong: the message names it (`connectors file: ach.odfi.routingNumber must be …`). */
export class ConnectorsFileError extends Error {}

const TIME_OF_DAY = /^([01]\d|2[0-3]):[0-5]\d$/;
const FINGERPRINT = /^[A-Za-z0-9+/]{43}$/;

/**
 * One object of a connector's section, read setting by setting: every reader takes the key and,
 * where the setting may be left out, its default; a wrong or missing value throws a
 * ConnectorsFileError naming the setting by its whole path. Strings are trimmed. Every connector
 * reads its section with this (`Section.of('ach', section)`), so they validate and word alike.
 */
export class Section {
  private constructor(
    /** The path of this object in the file: `ach`, `ach.odfi`, `bank.accounts.0`. */
    readonly path: string,
    private readonly values: Record<string, unknown>,
  ) {}

  /** The connector's section itself (the value under its name in the file), which must be an object. */
  static of(name: string, value: unknown): Section {
    if (!isObject(value)) throw new ConnectorsFileError(`connectors file: ${name} must be an object`);
    return new Section(name, value);
  }

  /** Throws naming the setting `key` of this object (or the object itself when key is ''). */
  fail(key: string, why: string): never {
    throw new ConnectorsFileError(`connectors file: ${key === '' ? this.path : `${this.path}.${key}`} ${why}`);
  }

  /** The settings written in this object (for an object keyed by the operator's words, such as currencies). */
  keys(): string[] {
    return Object.keys(this.values);
  }

  has(key: string): boolean {
    return this.values[key] !== undefined;
  }

  /** The value as written, unread (for a setting whose own reader lives with the connector). */
  raw(key: string): unknown {
    return this.values[key];
  }

  /** A nested object; left out, an empty one when `optional` (its settings' defaults apply). */
  object(key: string, options: { optional?: boolean } = {}): Section {
    const value = this.values[key] ?? (options.optional ? {} : undefined);
    if (!isObject(value)) this.fail(key, 'must be an object');
    return new Section(`${this.path}.${key}`, value);
  }

  /** A non-empty array of objects, each read as a Section (`bank.accounts.0`, …). */
  objects(key: string): Section[] {
    const value = this.values[key];
    if (!Array.isArray(value) || value.length === 0) this.fail(key, 'must be a non-empty array');
    return value.map((item, i) => {
      if (!isObject(item)) this.fail(`${key}.${i}`, 'must be an object');
      return new Section(`${this.path}.${key}.${i}`, item);
    });
  }

  /** A non-empty string, trimmed. */
  text(key: string, fallback?: string): string {
    const value = this.values[key] ?? fallback;
    if (typeof value !== 'string' || value.trim() === '') this.fail(key, 'must be a non-empty string');
    return value.trim();
  }

  /** A string that may be left out (undefined then), trimmed when given. */
  optionalText(key: string): string | undefined {
    return this.values[key] === undefined ? undefined : this.text(key);
  }

  /** One of the listed words. */
  oneOf<T extends string>(key: string, words: readonly T[], fallback?: T): T {
    const value = this.text(key, fallback);
    if (!(words as readonly string[]).includes(value)) this.fail(key, `must be one of ${words.map((w) => `"${w}"`).join(', ')}`);
    return value as T;
  }

  integer(key: string, min: number, max: number, fallback?: number): number {
    const value = this.values[key] ?? fallback;
    if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) this.fail(key, `must be an integer from ${min} to ${max}`);
    return value;
  }

  bool(key: string, fallback: boolean): boolean {
    const value = this.values[key] ?? fallback;
    if (typeof value !== 'boolean') this.fail(key, 'must be true or false');
    return value;
  }

  /** A time of day HH:MM (24:00 too when `endOfDay`, for "no cut-off"). */
  time(key: string, fallback?: string, options: { endOfDay?: boolean } = {}): string {
    const value = this.text(key, fallback);
    if (!TIME_OF_DAY.test(value) && !(options.endOfDay && value === '24:00')) this.fail(key, options.endOfDay ? 'must be a time HH:MM (24:00 for none)' : 'must be a time HH:MM');
    return value;
  }

  /** A list of times of day HH:MM, sorted ([] allowed). */
  times(key: string, fallback: readonly string[]): string[] {
    const value = this.values[key] ?? fallback;
    if (!Array.isArray(value) || value.some((t) => typeof t !== 'string' || !TIME_OF_DAY.test(t))) this.fail(key, 'must be an array of times HH:MM');
    return [...(value as string[])].sort();
  }

  /** An IANA time zone this runtime knows. */
  timeZone(key: string, fallback: string): string {
    const value = this.text(key, fallback);
    try {
      new Intl.DateTimeFormat('en', { timeZone: value });
    } catch {
      this.fail(key, `names no time zone this runtime knows: ${value}`);
    }
    return value;
  }
}

/** The bank's SFTP server as a file connector's section names it (`sftp`). */
export interface SftpSettings {
  host: string;
  port: number;
  username: string;
  privateKeyFile: string;
  /** The server's host key fingerprint: SHA-256 of the key blob, base64 without padding (as `ssh-keygen -l` prints it, `SHA256:` prefix dropped). */
  hostKeySha256: string;
  /** Where Corridor writes files for the bank. */
  inbox: string;
  /** Where the bank writes files for Corridor. */
  outbox: string;
}

/** `SHA256:abc…` or `abc…`, padding or not: the 43 base64 characters, or undefined. */
export function normalizeFingerprint(value: string): string | undefined {
  const bare = value.trim().replace(/^SHA256:/, '').replace(/=+$/, '');
  return FINGERPRINT.test(bare) ? bare : undefined;
}

/** What every connector exchanging files with a bank reads alike: where the files go, when a file is cut, how often the answers are looked for. */
export interface FileExchangeSettings {
  /** The bank's SFTP server; absent only when `directory` is set. */
  sftp: SftpSettings | undefined;
  /** Sandbox only: a local folder (`in/`, `out/`) shared with the connector's simulator instead of SFTP. */
  directory: string | undefined;
  /** A file is cut when `maxPayouts` wait or the oldest waited `maxSeconds`. */
  cutoff: { maxPayouts: number; maxSeconds: number };
  /** Seconds between looks at the bank's outbox. */
  pollSeconds: number;
}

/**
 * Reads `sftp` (or, with CORRIDOR_ENV=sandbox only, `directory` instead of it), `cutoff`
 * ({ maxPayouts, maxSeconds }) and `pollSeconds` of a file connector's section. `limits` bound the
 * cut-off and give its defaults.
 */
export function fileExchangeSettings(
  s: Section,
  env: string,
  limits: { maxPayouts: number; maxPayoutsDefault: number; maxSeconds: number; maxSecondsDefault: number },
): FileExchangeSettings {
  let directory: string | undefined;
  if (s.has('directory')) {
    if (env !== 'sandbox') s.fail('directory', 'is a local folder for the sandbox only (CORRIDOR_ENV=sandbox); a real bank is reached with "sftp"');
    if (s.has('sftp')) s.fail('directory', `and ${s.path}.sftp exclude each other: give one`);
    directory = s.text('directory');
  }
  const cutoff = s.object('cutoff', { optional: true });
  return {
    sftp: directory === undefined ? sftpSettings(s.object('sftp')) : undefined,
    directory,
    cutoff: {
      maxPayouts: cutoff.integer('maxPayouts', 1, limits.maxPayouts, limits.maxPayoutsDefault),
      maxSeconds: cutoff.integer('maxSeconds', 1, limits.maxSeconds, limits.maxSecondsDefault),
    },
    pollSeconds: s.integer('pollSeconds', 1, 86_400, 30),
  };
}

/** An `sftp` object: host, port (22), username, a readable privateKeyFile, the pinned hostKeySha256, inbox (/in) and outbox (/out). */
export function sftpSettings(o: Section): SftpSettings {
  const privateKeyFile = o.text('privateKeyFile');
  try {
    fs.accessSync(privateKeyFile, fs.constants.R_OK);
  } catch {
    o.fail('privateKeyFile', `names a file that cannot be read: ${privateKeyFile}`);
  }
  return {
    host: o.text('host'),
    port: o.integer('port', 1, 65535, 22),
    username: o.text('username'),
    privateKeyFile,
    hostKeySha256: normalizeFingerprint(o.text('hostKeySha256')) ?? o.fail('hostKeySha256', 'must be a SHA-256 fingerprint (SHA256:<43 base64 characters>)'),
    inbox: o.text('inbox', '/in'),
    outbox: o.text('outbox', '/out'),
  };
}
