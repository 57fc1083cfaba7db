import type { EntryKind, ListEntry } from '../matching.js';
import { birthDate, countryCode } from '../normalize.js';
import { parseCsv } from './csv.js';

/**
 * The UK's consolidated list of financial sanctions targets (OFSI, `ConList.csv`): a first line
 * `Last Updated,dd/mm/yyyy`, a header row, then one row per name: `Name 6` is the surname (or an
 * entity's whole name), `Name 1`..`Name 5` the others, `Alias Type` says `Primary name` or `AKA`;
 * rows of one target share its `Group ID`. Columns are found by their header, so the newer UK
 * Sanctions List CSV (`Unique ID`, `D.O.B`, `Nationality(/ies)`, `Name type`) reads too.
 */

function column(header: string[], ...names: string[]): number {
  const lower = header.map((h) => h.trim().toLowerCase());
  for (const name of names) {
    const i = lower.indexOf(name.toLowerCase());
    if (i >= 0) return i;
  }
  return -1;
}

function kindOf(type: string | undefined): EntryKind {
  const t = (type ?? '').toLowerCase();
  if (t.startsWith('individual')) return 'individual';
  if (t.startsWith('ship')) return 'vessel';
  return 'entity';
}

export function parseUkCsv(text: string): ListEntry[] {
  const rows = parseCsv(text);
  const headerAt = rows.findIndex((r) => r.some((f) => f.trim().toLowerCase() === 'name 6'));
  if (headerAt < 0) throw new Error('not an OFSI consolidated list: no header with Name 6');
  const header = rows[headerAt] as string[];
  const col = {
    names: ['Name 1', 'Name 2', 'Name 3', 'Name 4', 'Name 5', 'Name 6'].map((n) => column(header, n)),
    id: column(header, 'Group ID', 'Unique ID'),
    type: column(header, 'Group Type', 'Designation Type'),
    aliasType: column(header, 'Alias Type', 'Name type'),
    dob: column(header, 'DOB', 'D.O.B'),
    nationality: column(header, 'Nationality', 'Nationality(/ies)'),
    country: column(header, 'Country', 'Address Country'),
    birthCountry: column(header, 'Country of Birth'),
    regime: column(header, 'Regime', 'Regime Name'),
    entityType: column(header, 'Type of entity'),
    nonLatin: column(header, 'Name Non-Latin Script'),
  };
  const at = (row: string[], i: number) => (i >= 0 ? (row[i] ?? '').trim() : '');
  const entries = new Map<string, ListEntry>();
  for (const row of rows.slice(headerAt + 1)) {
    const id = at(row, col.id);
    if (!id) continue;
    const name = col.names.map((i) => at(row, i)).filter(Boolean).join(' ');
    let entry = entries.get(id);
    if (!entry) {
      const type = at(row, col.type) || (at(row, col.entityType) ? 'entity' : at(row, col.dob) ? 'individual' : 'entity');
      entry = { entryId: id, kind: kindOf(type), name: '', aliases: [], datesOfBirth: [], countries: [], programs: [] };
      entries.set(id, entry);
    }
    const primary = /^primary name$/i.test(at(row, col.aliasType));
    if (name) {
      if (primary && !entry.name) entry.name = name;
      else if (name !== entry.name && !entry.aliases.includes(name)) entry.aliases.push(name);
    }
    const nonLatin = at(row, col.nonLatin);
    if (nonLatin && !entry.aliases.includes(nonLatin)) entry.aliases.push(nonLatin);
    for (const dob of at(row, col.dob).split(/[|;]/)) {
      const d = birthDate(dob.trim());
      if (d && !entry.datesOfBirth.includes(d)) entry.datesOfBirth.push(d);
    }
    for (const c of [...at(row, col.nationality).split(/[|;,]/), at(row, col.country), at(row, col.birthCountry)]) {
      const code = countryCode(c.replace(/^\(\d+\)\s*/, ''));
      if (code && !entry.countries.includes(code)) entry.countries.push(code);
    }
    const regime = at(row, col.regime);
    if (regime && !entry.programs.includes(regime)) entry.programs.push(regime);
  }
  for (const entry of entries.values()) {
    if (!entry.name) entry.name = entry.aliases.shift() ?? '';
  }
  return [...entries.values()].filter((e) => e.name);
}
