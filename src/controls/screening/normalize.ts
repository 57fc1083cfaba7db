import anyAscii from 'any-ascii';
import unhomoglyph from 'unhomoglyph';

/**
 * Names as the matcher compares them: look-alike letters of other scripts inside a Latin word folded
 * to the Latin letters they imitate (Unicode's confusables data, through unhomoglyph: `Рutin` with a
 * Cyrillic Р is `Putin`), then transliterated to ASCII (any-ascii: Cyrillic, Arabic, Greek, accented
 * Latin …), lower case, punctuation gone (an apostrophe joins, other marks split), and honorifics,
 * particles and legal-form words dropped. Also the country and date forms the lists use.
 */

/** Words that say nothing about who is named: titles, honorifics, particles, legal forms. */
const NOISE = new Set([
  'mr', 'mrs', 'ms', 'miss', 'mister', 'dr', 'prof', 'professor', 'sir', 'dame', 'lord', 'lady', 'sheikh', 'shaikh', 'sheik',
  'haji', 'hajji', 'hadji', 'mullah', 'mulla', 'maulana', 'general', 'gen', 'colonel', 'col', 'major', 'captain', 'capt',
  'al', 'el', 'ul', 'bin', 'ibn', 'bint', 'ben', 'de', 'del', 'della', 'der', 'den', 'di', 'da', 'do', 'dos', 'du', 'la', 'le', 'van', 'von', 'y',
  'ltd', 'limited', 'llc', 'inc', 'incorporated', 'corp', 'corporation', 'co', 'company', 'plc', 'gmbh', 'ag', 'sa', 'sarl', 'srl', 'bv', 'nv',
  'oao', 'ooo', 'ojsc', 'pjsc', 'jsc', 'ao', 'zao', 'pao', 'the', 'and', 'of', 'fka', 'aka', 'nka',
]);

/**
 * Words that say what a business does or is, not whose it is ("Trading", "Holdings", "Foundation"):
 * they make a name a business's (a listed name inside such a name is matched, matching.ts) and weigh
 * little when two names are compared.
 */
const BUSINESS_WORDS = new Set([
  'foundation', 'fund', 'trust', 'trading', 'traders', 'trade', 'group', 'holding', 'holdings', 'enterprise', 'enterprises', 'international', 'industries',
  'industrial', 'industry', 'services', 'service', 'partners', 'associates', 'bank', 'capital', 'investment', 'investments', 'import', 'export',
  'imports', 'exports', 'logistics', 'logistic', 'shipping', 'consulting', 'ventures', 'charity', 'association', 'society', 'institute',
  'organisation', 'organization', 'firm', 'agency', 'sons', 'construction', 'constructora', 'design', 'studio', 'motors', 'pharmacy', 'foods',
  'textiles', 'bakery', 'general', 'global', 'establishment', 'commercial', 'development', 'technology', 'technologies', 'engineering', 'oil', 'gas',
]);

/** A word that names a kind of business, not a business (see BUSINESS_WORDS). */
export const isBusinessWord = (token: string): boolean => BUSINESS_WORDS.has(token);

/** Legal forms: dropped from names (NOISE), but they still make a name a business's. */
const LEGAL_FORMS = new Set(['ltd', 'limited', 'llc', 'inc', 'incorporated', 'corp', 'corporation', 'co', 'company', 'plc', 'gmbh', 'ag', 'sa', 'sarl', 'srl', 'bv', 'nv', 'oao', 'ooo', 'ojsc', 'pjsc', 'jsc', 'ao', 'zao', 'pao']);

const LATIN = /\p{Script=Latin}/u;
const OTHER_LETTER = /(?=\p{L})\P{Script=Latin}/u;

/**
 * A word that mixes Latin letters with letters of another script (`Рutin`, `Vladimіr`) has those
 * letters folded to the Latin letters they look like, by Unicode's confusables data; a word written
 * wholly in another script is left for transliteration (`Путин` is `Putin`). A folded letter whose
 * look-alike is not one ASCII letter is kept as it is.
 */
function foldConfusables(word: string): string {
  if (!LATIN.test(word) || !OTHER_LETTER.test(word)) return word;
  let out = '';
  for (const ch of word) {
    if (!OTHER_LETTER.test(ch)) {
      out += ch;
      continue;
    }
    const folded = unhomoglyph(ch);
    // Confusables' prototype of a capital I (Latin, Greek Ι, Cyrillic І) is a small l: a capital stays I.
    const latin = folded === 'l' && ch !== ch.toLowerCase() ? 'I' : folded;
    out += /^[A-Za-z]$/.test(latin) ? latin : ch;
  }
  return out;
}

/** A name as ASCII, lower case, without apostrophes: look-alikes folded, then transliterated. */
function asciiName(name: string): string {
  // eslint-disable-next-line no-control-regex
  const folded = /^[\x00-\x7f]*$/.test(name) ? name : name.normalize('NFKC').split(/(\s+)/).map(foldConfusables).join('');
  return anyAscii(folded).toLowerCase().replace(/['`’]/g, '');
}

/** A name as the matcher reads it: its comparable tokens, and whether it reads as a business's (a word naming a kind of business or a legal form). */
export function readName(name: string): { tokens: string[]; business: boolean } {
  const all = asciiName(name)
    .split(/[^a-z0-9]+/)
    .filter((t) => t.length > 0);
  const tokens = all.filter((t) => !NOISE.has(t));
  // A name made only of noise words (an entity called "The Company") keeps them rather than vanish.
  return { tokens: tokens.length > 0 ? tokens : all, business: all.some((t) => BUSINESS_WORDS.has(t) || LEGAL_FORMS.has(t)) };
}

/** A name's comparable tokens: ASCII, lower case, no punctuation or noise words (single letters kept as initials). */
export const nameTokens = (name: string): string[] => readName(name).tokens;

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
