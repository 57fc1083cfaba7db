import type { ListEntry, ListName } from '../matching.js';
import type { ListedAddress } from './addresses.js';
import { parseEuXml } from './eu.js';
import { parseOfacCsv, parseOfacXml } from './ofac.js';
import { parseUkCsv } from './uk.js';
import { parseUnXml } from './un.js';

/** The formats a list file may come in, recognised from its content. */
export type ListFormat = 'ofac-csv' | 'ofac-xml' | 'un-xml' | 'eu-xml' | 'uk-csv';

export interface ParsedList {
  format: ListFormat;
  entries: ListEntry[];
  /** The digital-currency addresses the entries carry (only OFAC's SDN lists them). */
  addresses: ListedAddress[];
}

/** A file's text: UTF-8 (a byte-order mark dropped), or Latin-1 where it is not valid UTF-8 (older OFAC CSVs). */
export function fileText(bytes: Uint8Array): string {
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch {
    return new TextDecoder('latin1').decode(bytes);
  }
}

const isXml = (text: string) => /^\s*<(\?xml|[A-Za-z])/.test(text);

/** Reads a list file in its list's official format; throws an Error saying what is wrong when it is not one. */
export function parseListFile(list: ListName, bytes: Uint8Array): ParsedList {
  const text = fileText(bytes);
  switch (list) {
    case 'ofac-sdn':
      return isXml(text) ? { format: 'ofac-xml', ...parseOfacXml(text) } : { format: 'ofac-csv', ...parseOfacCsv(text) };
    case 'un':
      return { format: 'un-xml', entries: parseUnXml(text), addresses: [] };
    case 'eu':
      return { format: 'eu-xml', entries: parseEuXml(text), addresses: [] };
    case 'uk-ofsi':
      return { format: 'uk-csv', entries: parseUkCsv(text), addresses: [] };
  }
}
