import type { Section } from '../../platform/connectors-file.js';

/**
 * The names of the files exchanged with a bank (the "bank" section's `fileNames`): banks' host-to-host
 * services often ask for their own names, and send theirs.
 *
 *   "fileNames": { "outbound": "{bic}_{date:yyyyMMdd}_{seq:4}.xml",
 *                  "inbound": ["*.xml", "CAMT05?_*.xml.pgp", "re:^PAIN002_[0-9]+\\.xml$"] }
 *
 * `outbound` is a template; its placeholders: `{account}` (the account's id), `{bic}`, `{scheme}`
 * (sepa, swift), `{msgId}` (the file's MsgId), `{date:<pattern>}` (the day the file is made in the bank's
 * time zone; pattern letters yyyy, yy, MM, dd, HH, mm, ss) and `{seq}` or `{seq:<width>}` (the file's number
 * of that account and day, from 1, zero-padded to width). A name must be unique: the template holds
 * `{msgId}`, or `{seq}` with a `{date:…}` that has the year, month and day. Literal text is letters,
 * digits, `.`, `_` and `-`. With `pgp`, `.pgp` is added to a name that does not end in `.pgp` or `.gpg`.
 * Default: `pain001-{scheme}-{account}-{msgId}.xml`.
 *
 * `inbound` lists the names taken from the bank's outbox: globs (`*` any characters, `?` one) or, after
 * `re:`, a regular expression; a name matching none is left where it lies. Default: `*.xml` (and
 * `*.pgp`, `*.gpg`, `*.asc` with `pgp`).
 */

export const DEFAULT_OUTBOUND_TEMPLATE = 'pain001-{scheme}-{account}-{msgId}.xml';

/** What an outbound name is made of. */
export interface NameParts {
  account: string;
  bic: string;
  scheme: string;
  msgId: string;
  /** When the file is made. */
  at: Date;
  /** The bank's time zone (its calendar's). */
  timeZone: string;
  /** The file's number of its account and day (1, 2, …). */
  seq: number;
}

type Piece = { literal: string } | { field: 'account' | 'bic' | 'scheme' | 'msgId' } | { date: string } | { seq: number };

export interface OutboundTemplate {
  source: string;
  pieces: Piece[];
  /** Whether a name needs the day's count of files (`{seq}`). */
  usesSeq: boolean;
}

const DATE_LETTERS = /yyyy|yy|MM|dd|HH|mm|ss/g;
const LITERAL = /^[A-Za-z0-9._-]*$/;

/** Parses a template, or says what is wrong with it (for the start-up error). */
export function parseOutboundTemplate(source: string): OutboundTemplate | string {
  const pieces: Piece[] = [];
  let rest = source;
  while (rest.length > 0) {
    const open = rest.indexOf('{');
    const literal = open === -1 ? rest : rest.slice(0, open);
    if (!LITERAL.test(literal)) return `has "${literal}" outside a placeholder: only letters, digits, ".", "_" and "-" may be written around them`;
    if (literal) pieces.push({ literal });
    if (open === -1) break;
    const close = rest.indexOf('}', open);
    if (close === -1) return 'has a "{" without its "}"';
    const inner = rest.slice(open + 1, close);
    const [name, arg] = inner.includes(':') ? [inner.slice(0, inner.indexOf(':')), inner.slice(inner.indexOf(':') + 1)] : [inner, undefined];
    if ((name === 'account' || name === 'bic' || name === 'scheme' || name === 'msgId') && arg === undefined) pieces.push({ field: name });
    else if (name === 'date' && arg && LITERAL.test(arg.replace(DATE_LETTERS, '')) && /yy|MM|dd|HH|mm|ss/.test(arg)) pieces.push({ date: arg });
    else if (name === 'seq' && (arg === undefined || /^[1-9]$/.test(arg))) pieces.push({ seq: arg === undefined ? 1 : Number(arg) });
    else return `has the placeholder {${inner}}, which is not one of {account}, {bic}, {scheme}, {msgId}, {date:<yyyy MM dd HH mm ss>}, {seq} or {seq:<width 1-9>}`;
    rest = rest.slice(close + 1);
  }
  const hasMsgId = pieces.some((p) => 'field' in p && p.field === 'msgId');
  const usesSeq = pieces.some((p) => 'seq' in p);
  const datesDay = pieces.some((p) => 'date' in p && /yy/.test(p.date) && p.date.includes('MM') && p.date.includes('dd'));
  if (!hasMsgId && !(usesSeq && datesDay)) return 'must make every file name unique: give {msgId}, or {seq} with a {date:…} holding the year, month and day (yyyyMMdd)';
  if (!/[A-Za-z0-9]/.test(source.replace(/\{[^}]*\}/g, 'x'))) return 'must give a name';
  return { source, pieces, usesSeq };
}

/** The parts of a date in a time zone, zero-padded. */
function zoned(at: Date, timeZone: string): Record<string, string> {
  const parts = new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23' }).formatToParts(at);
  const get = (type: string) => parts.find((p) => p.type === type)?.value ?? '';
  const yyyy = get('year');
  return { yyyy, yy: yyyy.slice(2), MM: get('month'), dd: get('day'), HH: get('hour'), mm: get('minute'), ss: get('second') };
}

/** The day a file is made on, YYYY-MM-DD in the bank's time zone (the `{seq}` counts files of one day). */
export function bankDay(at: Date, timeZone: string): string {
  const z = zoned(at, timeZone);
  return `${z.yyyy}-${z.MM}-${z.dd}`;
}

export function renderFileName(template: OutboundTemplate, parts: NameParts): string {
  const z = zoned(parts.at, parts.timeZone);
  return template.pieces
    .map((p) => {
      if ('literal' in p) return p.literal;
      if ('field' in p) return parts[p.field];
      if ('date' in p) return p.date.replace(DATE_LETTERS, (letters) => z[letters] ?? letters);
      return String(parts.seq).padStart(p.seq, '0');
    })
    .join('');
}

/** Which names of the bank's outbox are taken in. */
export type NameFilter = (name: string) => boolean;

function globToRegExp(glob: string): RegExp {
  const escaped = glob.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.');
  return new RegExp(`^${escaped}$`, 'i');
}

/** The `inbound` patterns as one filter, or what is wrong with one of them. */
export function parseInboundPatterns(patterns: readonly unknown[]): NameFilter | { index: number; why: string } {
  const tests: RegExp[] = [];
  for (const [index, pattern] of patterns.entries()) {
    if (typeof pattern !== 'string' || pattern.trim() === '') return { index, why: 'must be a non-empty string: a glob such as "*.xml", or "re:" and a regular expression' };
    if (pattern.startsWith('re:')) {
      try {
        tests.push(new RegExp(pattern.slice(3)));
      } catch (err) {
        return { index, why: `is not a regular expression (${(err as Error).message})` };
      }
    } else {
      if (pattern.includes('/')) return { index, why: 'names a file, never a folder: no "/"' };
      tests.push(globToRegExp(pattern));
    }
  }
  return (name) => tests.some((t) => t.test(name));
}

export interface FileNames {
  outbound: OutboundTemplate;
  /** The inbound patterns as written (undefined: the default). */
  inboundPatterns: string[] | undefined;
  inbound: NameFilter;
}

const DEFAULT_INBOUND = ['*.xml'];
const DEFAULT_INBOUND_PGP = ['*.xml', '*.pgp', '*.gpg', '*.asc'];

/** The section's `fileNames`, validated: a bad template or pattern refuses to start, naming it. */
export function fileNamesSection(o: Section, pgp: boolean): FileNames {
  const outbound = parseOutboundTemplate(o.text('outbound', DEFAULT_OUTBOUND_TEMPLATE));
  if (typeof outbound === 'string') o.fail('outbound', outbound);
  const raw = o.raw('inbound');
  if (raw !== undefined && (!Array.isArray(raw) || raw.length === 0)) o.fail('inbound', 'must be a non-empty array of name patterns');
  const inboundPatterns = raw === undefined ? undefined : (raw as unknown[]).map(String);
  const inbound = parseInboundPatterns((raw as unknown[] | undefined) ?? (pgp ? DEFAULT_INBOUND_PGP : DEFAULT_INBOUND));
  if (typeof inbound !== 'function') return o.fail(`inbound.${inbound.index}`, inbound.why);
  return { outbound, inboundPatterns, inbound };
}
