import anyAscii from 'any-ascii';

/**
 * Names as the matcher compares them: transliterated to ASCII (any-ascii: Cyrillic, Arabic, Greek,
 * accented Latin …), lower case, punctuation gone (an apostrophe joins, other marks split), and
 * honorifics, particles and legal-form words dropped. Also the country and date forms the lists use.
 */

/** Words that say nothing about who is named: titles, honorifics, particles, legal forms. */
const NOISE = new Set([
  'mr', 'mrs', 'ms', 'miss', 'mister', 'dr', 'prof', 'professor', 'sir', 'dame', 'lord', 'lady', 'sheikh', 'shaikh', 'sheik',
  'haji', 'hajji', 'hadji', 'mullah', 'mulla', 'maulana', 'general', 'gen', 'colonel', 'col', 'major', 'captain', 'capt',
  'al', 'el', 'ul', 'bin', 'ibn', 'bint', 'ben', 'de', 'del', 'della', 'der', 'den', 'di', 'da', 'do', 'dos', 'du', 'la', 'le', 'van', 'von', 'y',
  'ltd', 'limited', 'llc', 'inc', 'incorporated', 'corp', 'corporation', 'co', 'company', 'plc', 'gmbh', 'ag', 'sa', 'sarl', 'srl', 'bv', 'nv',
  'oao', 'ooo', 'ojsc', 'pjsc', 'jsc', 'ao', 'zao', 'pao', 'the', 'and', 'of', 'fka', 'aka', 'nka',
]);

/** A name's comparable tokens: ASCII, lower case, no punctuation or noise words (single letters kept as initials). */
export function nameTokens(name: string): string[] {
  const ascii = anyAscii(name).toLowerCase().replace(/['`’]/g, '');
  const tokens = ascii.split(/[^a-z0-9]+/).filter((t) => t.length > 0 && !NOISE.has(t));
  // A name made only of noise words (an entity called "The Company") keeps them rather than vanish.
  return tokens.length > 0 ? tokens : ascii.split(/[^a-z0-9]+/).filter((t) => t.length > 0);
}

/** A name as shown in evidence: the tokens joined. */
export const normalizedName = (name: string): string => nameTokens(name).join(' ');

let countryNames: Map<string, string> | undefined;

/** ISO 3166-1 alpha-2 codes by their English names (and common list spellings), lower case. */
function countryIndex(): Map<string, string> {
  if (countryNames) return countryNames;
  const names = new Intl.DisplayNames(['en'], { type: 'region' });
  const index = new Map<string, string>();
  for (let a = 65; a <= 90; a++) {
    for (let b = 65; b <= 90; b++) {
      const code = String.fromCharCode(a, b);
      let name: string | undefined;
      try {
        name = names.of(code);
      } catch {
        name = undefined;
      }
      // The first code of a name wins (RU before SU, GB before UK).
      if (name && name !== code && !index.has(normalizedName(name))) index.set(normalizedName(name), code);
    }
  }
  const extra: Record<string, string> = {
    'iran islamic republic': 'IR', 'islamic republic iran': 'IR', 'russian federation': 'RU', 'united states america': 'US', 'syrian arab republic': 'SY',
    'democratic peoples republic korea': 'KP', 'korea north': 'KP', 'korea democratic peoples republic': 'KP', 'dprk': 'KP',
    'korea republic': 'KR', 'korea south': 'KR', 'united states': 'US', 'usa': 'US', 'united kingdom': 'GB', 'uk': 'GB',
    'burma': 'MM', 'myanmar': 'MM', 'congo democratic republic': 'CD', 'democratic republic congo': 'CD', 'republic congo': 'CG',
    'venezuela bolivarian republic': 'VE', 'bolivia plurinational state': 'BO', 'tanzania united republic': 'TZ', 'lao peoples democratic republic': 'LA',
    'viet nam': 'VN', 'vietnam': 'VN', 'turkey': 'TR', 'turkiye': 'TR', 'palestinian territory': 'PS', 'west bank': 'PS', 'gaza': 'PS',
    'moldova republic': 'MD', 'macedonia': 'MK', 'czech republic': 'CZ', 'ivory coast': 'CI', 'cote divoire': 'CI', 'crimea': 'UA',
  };
  for (const [name, code] of Object.entries(extra)) index.set(name, code);
  countryNames = index;
  return index;
}

/** An ISO alpha-2 code from a code or a country's name as the lists write it; undefined when unknown. */
export function countryCode(value: string | undefined | null): string | undefined {
  if (!value) return undefined;
  const trimmed = value.trim();
  if (/^[A-Za-z]{2}$/.test(trimmed)) return trimmed.toUpperCase();
  const key = normalizedName(trimmed.replace(/\(.*?\)/g, ' '));
  return countryIndex().get(key) ?? countryIndex().get(key.replace(/^the /, ''));
}

const MONTHS: Record<string, string> = { jan: '01', feb: '02', mar: '03', apr: '04', may: '05', jun: '06', jul: '07', aug: '08', sep: '09', oct: '10', nov: '11', dec: '12' };

/**
 * A date of birth as `YYYY-MM-DD`, `YYYY-MM` or `YYYY` from the lists' forms: ISO, `12 Mar 1960`,
 * `Mar 1960`, `1960`, `dd/mm/yyyy` with `00` for an unknown part (UK).
 */
export function birthDate(value: string | undefined | null): string | undefined {
  if (!value) return undefined;
  const v = value.trim();
  let m = /^(\d{4})(?:-(\d{2})(?:-(\d{2}))?)?/.exec(v);
  if (m) return [m[1], m[2], m[3]].filter((p) => p && p !== '00').join('-');
  m = /^(\d{1,2})\/(\d{1,2})\/(\d{4})$/.exec(v);
  if (m) {
    const [, d, mo, y] = m as unknown as [string, string, string, string];
    if (mo === '00' || mo === '0') return y;
    return d === '00' || d === '0' ? `${y}-${mo.padStart(2, '0')}` : `${y}-${mo.padStart(2, '0')}-${d.padStart(2, '0')}`;
  }
  m = /^(?:(\d{1,2}) )?([A-Za-z]{3})[a-z]* (\d{4})$/.exec(v);
  if (m && MONTHS[(m[2] as string).toLowerCase()]) {
    const month = MONTHS[(m[2] as string).toLowerCase()] as string;
    return m[1] ? `${m[3]}-${month}-${m[1].padStart(2, '0')}` : `${m[3]}-${month}`;
  }
  m = /(\d{4})/.exec(v);
  return m ? m[1] : undefined;
}
