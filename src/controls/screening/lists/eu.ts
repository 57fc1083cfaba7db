import { XMLParser } from 'fast-xml-parser';
import type { EntryKind, ListEntry } from '../matching.js';
import { birthDate } from '../normalize.js';

/**
 * The EU Consolidated Financial Sanctions List, XML (`export` of `sanctionEntity`, its facts in
 * attributes: `nameAlias@wholeName`, `citizenship@countryIso2Code`, `birthdate@birthdate|year`,
 * `address@countryIso2Code`). An entry's id is its EU reference number (`EU.27.28`), else its logicalId.
 * The first name alias is the entry's name, the others its aliases. Country `00` is unknown.
 */

const ARRAYS = new Set(['sanctionEntity', 'nameAlias', 'citizenship', 'birthdate', 'address', 'identification']);

type Node = Record<string, unknown>;
const nodes = (node: unknown, key: string): Node[] => ((node as Node | undefined)?.[key] as Node[] | undefined) ?? [];
const attr = (node: unknown, key: string): string | undefined => {
  const v = (node as Node | undefined)?.[key];
  return v === undefined || v === null || v === '' ? undefined : String(v).trim();
};
const iso = (node: Node): string[] => {
  const code = attr(node, 'countryIso2Code');
  return code && /^[A-Z]{2}$/.test(code) && code !== '00' ? [code] : [];
};

function kindOf(code: string | undefined): EntryKind {
  return code === 'person' ? 'individual' : 'entity';
}

export function parseEuXml(xml: string): ListEntry[] {
  const doc = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '', removeNSPrefix: true, parseTagValue: false, parseAttributeValue: false, isArray: (name) => ARRAYS.has(name) }).parse(xml) as Node;
  const root = doc.export as Node | undefined;
  if (!root) throw new Error('not an EU consolidated list: no export');
  return nodes(root, 'sanctionEntity').map((e): ListEntry => {
    const names = nodes(e, 'nameAlias').flatMap((a) => attr(a, 'wholeName') ?? ([attr(a, 'firstName'), attr(a, 'middleName'), attr(a, 'lastName')].filter(Boolean).join(' ') || []));
    const unique = [...new Set(names)];
    return {
      entryId: attr(e, 'euReferenceNumber') ?? attr(e, 'logicalId') ?? '',
      kind: kindOf(attr(e.subjectType, 'code')),
      name: unique[0] ?? '',
      aliases: unique.slice(1),
      datesOfBirth: nodes(e, 'birthdate').flatMap((b) => birthDate(attr(b, 'birthdate') ?? attr(b, 'year')) ?? []),
      countries: [...new Set([...nodes(e, 'citizenship').flatMap(iso), ...nodes(e, 'address').flatMap(iso), ...nodes(e, 'birthdate').flatMap(iso)])],
      programs: [attr(e.regulation, 'programme')].flatMap((p) => p ?? []),
    };
  });
}
