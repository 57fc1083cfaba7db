import { XMLParser } from 'fast-xml-parser';
import type { ListEntry } from '../matching.js';
import { birthDate, countryCode } from '../normalize.js';

/**
 * The UN Security Council Consolidated List, XML (`CONSOLIDATED_LIST` of `INDIVIDUALS/INDIVIDUAL` and
 * `ENTITIES/ENTITY`). An entry's id is its permanent reference number (`QDi.001`), else its DATAID.
 * Aliases of quality `Low` are left out (the list itself calls them too broad to identify anyone).
 */

const ARRAYS = new Set(['INDIVIDUAL', 'ENTITY', 'INDIVIDUAL_ALIAS', 'ENTITY_ALIAS', 'INDIVIDUAL_ADDRESS', 'ENTITY_ADDRESS', 'INDIVIDUAL_DATE_OF_BIRTH', 'INDIVIDUAL_PLACE_OF_BIRTH', 'VALUE']);

type Node = Record<string, unknown>;
const nodes = (node: unknown, key: string): Node[] => ((node as Node | undefined)?.[key] as Node[] | undefined) ?? [];
const text = (node: unknown, key: string): string | undefined => {
  const v = (node as Node | undefined)?.[key];
  return v === undefined || v === null || v === '' ? undefined : String(v).trim();
};

function aliases(entry: Node, key: string): string[] {
  return nodes(entry, key)
    .filter((a) => (text(a, 'QUALITY') ?? '').toLowerCase() !== 'low')
    .flatMap((a) => text(a, 'ALIAS_NAME') ?? []);
}

function dates(entry: Node): string[] {
  return nodes(entry, 'INDIVIDUAL_DATE_OF_BIRTH').flatMap((d) => birthDate(text(d, 'DATE') ?? text(d, 'YEAR') ?? text(d, 'FROM_YEAR')) ?? []);
}

export function parseUnXml(xml: string): ListEntry[] {
  const doc = new XMLParser({ parseTagValue: false, isArray: (name) => ARRAYS.has(name) }).parse(xml) as Node;
  const root = doc.CONSOLIDATED_LIST as Node | undefined;
  if (!root) throw new Error('not a UN consolidated list: no CONSOLIDATED_LIST');
  const id = (e: Node) => text(e, 'REFERENCE_NUMBER') ?? text(e, 'DATAID') ?? '';
  const program = (e: Node) => [text(e, 'UN_LIST_TYPE')].flatMap((p) => p ?? []);
  const individuals = nodes(root.INDIVIDUALS, 'INDIVIDUAL').map((e): ListEntry => {
    const countries = [
      ...nodes(e.NATIONALITY, 'VALUE').map((v) => String(v)),
      ...nodes(e, 'INDIVIDUAL_ADDRESS').map((a) => text(a, 'COUNTRY')),
      ...nodes(e, 'INDIVIDUAL_PLACE_OF_BIRTH').map((a) => text(a, 'COUNTRY')),
    ].flatMap((c) => countryCode(c) ?? []);
    const original = text(e, 'NAME_ORIGINAL_SCRIPT');
    return {
      entryId: id(e),
      kind: 'individual',
      name: ['FIRST_NAME', 'SECOND_NAME', 'THIRD_NAME', 'FOURTH_NAME'].flatMap((k) => text(e, k) ?? []).join(' '),
      aliases: [...aliases(e, 'INDIVIDUAL_ALIAS'), ...(original ? [original] : [])],
      datesOfBirth: dates(e),
      countries: [...new Set(countries)],
      programs: program(e),
    };
  });
  const entities = nodes(root.ENTITIES, 'ENTITY').map((e): ListEntry => ({
    entryId: id(e),
    kind: 'entity',
    name: text(e, 'FIRST_NAME') ?? '',
    aliases: aliases(e, 'ENTITY_ALIAS'),
    datesOfBirth: [],
    countries: [...new Set(nodes(e, 'ENTITY_ADDRESS').flatMap((a) => countryCode(text(a, 'COUNTRY')) ?? []))],
    programs: program(e),
  }));
  return [...individuals, ...entities];
}
