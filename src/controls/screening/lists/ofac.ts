import { XMLParser } from 'fast-xml-parser';
import type { EntryKind, ListEntry } from '../matching.js';
import { birthDate, countryCode } from '../normalize.js';
import { digitalCurrencyOf, remarksAddresses, type ListedAddress } from './addresses.js';
import { parseCsv } from './csv.js';

/**
 * OFAC's Specially Designated Nationals list, in either of its official forms:
 * - the CSV set (SDN.CSV, ALT.CSV, ADD.CSV, SDN_COMMENTS.CSV; no header row, `-0-` for empty), one
 *   body holding any of them concatenated in any order: a row of 12 fields is an SDN.CSV entry, of 5
 *   an ALT.CSV alias, of 6 an ADD.CSV address, of 2 an SDN_COMMENTS.CSV continuation of an entry's
 *   Remarks (which SDN.CSV cuts at 1,000 characters, mid-word: the two are joined as they are).
 *   Dates of birth, nationalities, aliases and digital-currency addresses are read from the Remarks;
 * - SDN.XML (`sdnList` of `sdnEntry`), addresses from its `idList`.
 * Each answers the entries and the digital-currency addresses they carry (lists/addresses.ts).
 */

export interface OfacParsed {
  entries: ListEntry[];
  addresses: ListedAddress[];
}

const empty = (v: string | undefined): string | undefined => {
  const t = (v ?? '').trim();
  return t === '' || t === '-0-' ? undefined : t;
};

function kindOf(type: string | undefined): EntryKind {
  const t = (type ?? '').toLowerCase();
  if (t === 'individual') return 'individual';
  if (t === 'vessel') return 'vessel';
  if (t === 'aircraft') return 'aircraft';
  return 'entity';
}

/** `LAST, First Middle` → `First Middle LAST` (an individual's name as SDN.CSV writes it). */
const personName = (name: string): string => {
  const comma = name.indexOf(',');
  return comma > 0 ? `${name.slice(comma + 1).trim()} ${name.slice(0, comma).trim()}` : name;
};

/** What Remarks say: `DOB 12 Mar 1960; POB …; nationality Iran; citizen Iran; a.k.a. '…'`. */
function remarksFacts(remarks: string | undefined): { dobs: string[]; countries: string[]; akas: string[] } {
  const out = { dobs: [] as string[], countries: [] as string[], akas: [] as string[] };
  if (!remarks) return out;
  for (const part of remarks.split(';')) {
    const p = part.trim();
    let m = /^DOB (?:circa |c\. )?(.+?)(?: to .*)?$/i.exec(p);
    if (m) {
      const d = birthDate(m[1]);
      if (d) out.dobs.push(d);
      continue;
    }
    m = /^(?:nationality|citizen) (.+?)\.?$/i.exec(p);
    if (m) {
      const c = countryCode(m[1]);
      if (c) out.countries.push(c);
      continue;
    }
    for (const aka of p.matchAll(/[af]\.k\.a\.,? '([^']+)'/gi)) out.akas.push(aka[1] as string);
  }
  return out;
}

export function parseOfacCsv(text: string): OfacParsed {
  const entries = new Map<string, ListEntry>();
  const remarks = new Map<string, string>();
  const comments = new Map<string, string>();
  const pending: { id: string; alias?: string; country?: string }[] = [];
  for (const row of parseCsv(text)) {
    const id = empty(row[0]);
    if (!id || !/^\d+$/.test(id)) continue;
    if (row.length === 12) {
      const rawName = empty(row[1]) ?? '';
      const kind = kindOf(empty(row[2]));
      entries.set(id, {
        entryId: id,
        kind,
        name: kind === 'individual' ? personName(rawName) : rawName,
        aliases: [],
        datesOfBirth: [],
        countries: [],
        programs: (empty(row[3]) ?? '').split(/\]\s*\[|[[\]]/).map((s) => s.trim()).filter(Boolean),
      });
      if (empty(row[11])) remarks.set(id, row[11] as string);
    } else if (row.length === 5) {
      const alias = empty(row[3]);
      if (alias) pending.push({ id, alias });
    } else if (row.length === 6) {
      const country = countryCode(empty(row[4]));
      if (country) pending.push({ id, country });
    } else if (row.length === 2 && empty(row[1])) {
      comments.set(id, (comments.get(id) ?? '') + (row[1] as string));
    }
  }
  const addresses: ListedAddress[] = [];
  for (const [id, entry] of entries) {
    const full = `${remarks.get(id) ?? ''}${comments.get(id) ?? ''}`.trim();
    if (!full) continue;
    const facts = remarksFacts(full);
    entry.aliases.push(...facts.akas);
    entry.datesOfBirth.push(...facts.dobs);
    entry.countries.push(...facts.countries);
    for (const a of remarksAddresses(full)) addresses.push({ entryId: id, entryName: entry.name, ...a });
  }
  for (const p of pending) {
    const entry = entries.get(p.id);
    if (!entry) continue;
    if (p.alias) entry.aliases.push(entry.kind === 'individual' ? personName(p.alias) : p.alias);
    if (p.country && !entry.countries.includes(p.country)) entry.countries.push(p.country);
  }
  return { entries: [...entries.values()], addresses };
}

const XML_ARRAYS = new Set(['sdnEntry', 'aka', 'address', 'nationality', 'citizenship', 'dateOfBirthItem', 'program', 'placeOfBirthItem', 'id']);

type Node = Record<string, unknown>;
const list = (node: unknown, key: string): Node[] => ((node as Node | undefined)?.[key] as Node[] | undefined) ?? [];
const text = (node: unknown, key: string): string | undefined => {
  const v = (node as Node | undefined)?.[key];
  return v === undefined || v === null || v === '' ? undefined : String(v);
};
const joined = (node: unknown): string => [text(node, 'firstName'), text(node, 'lastName')].filter(Boolean).join(' ');

export function parseOfacXml(xml: string): OfacParsed {
  const doc = new XMLParser({ removeNSPrefix: true, parseTagValue: false, isArray: (name) => XML_ARRAYS.has(name) }).parse(xml) as Node;
  const root = doc.sdnList as Node | undefined;
  if (!root) throw new Error('not an SDN XML file: no sdnList');
  const addresses: ListedAddress[] = [];
  const entries = list(root, 'sdnEntry').map((e): ListEntry => {
    const countries = [
      ...list(e.nationalityList, 'nationality').map((n) => text(n, 'country')),
      ...list(e.citizenshipList, 'citizenship').map((n) => text(n, 'country')),
      ...list(e.addressList, 'address').map((n) => text(n, 'country')),
    ].flatMap((c) => countryCode(c) ?? []);
    return {
      entryId: text(e, 'uid') ?? '',
      kind: kindOf(text(e, 'sdnType')),
      name: joined(e),
      aliases: list(e.akaList, 'aka').map(joined).filter(Boolean),
      datesOfBirth: list(e.dateOfBirthList, 'dateOfBirthItem').flatMap((d) => birthDate(text(d, 'dateOfBirth')?.replace(/^circa /i, '')) ?? []),
      countries: [...new Set(countries)],
      programs: list(e.programList, 'program').map((p) => String(p)),
    };
  });
  for (const [i, e] of list(root, 'sdnEntry').entries()) {
    for (const id of list(e.idList, 'id')) {
      const currency = digitalCurrencyOf(text(id, 'idType'));
      const address = text(id, 'idNumber')?.trim();
      const entry = entries[i] as ListEntry;
      if (currency && address) addresses.push({ entryId: entry.entryId, entryName: entry.name, currency, address });
    }
  }
  return { entries, addresses };
}
