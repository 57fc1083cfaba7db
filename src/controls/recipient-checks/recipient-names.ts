import { jaroWinkler } from '../screening/matching.js';
import { nameTokens } from '../screening/normalize.js';

/**
 * Corridor's comparison of the name a workspace gave its beneficiary with the name the rail holds for
 * the account (a mobile-money account-name lookup, a NIP name enquiry). Pure. Both names are read as
 * the screening matcher reads them (screening/normalize.ts: transliterated to ASCII, lower case,
 * punctuation, titles, particles and legal forms gone), so order, case, accents and punctuation never
 * matter. Small differences make a close match, for the workspace to look at: a word one side lacks
 * (a middle name), an initial for a word, a typo (Jaro-Winkler, screening/matching.ts).
 */

export type NameComparison = 'match' | 'close_match' | 'no_match';

/** Two words this similar (Jaro-Winkler) are the same word mistyped. */
const TYPO_SIMILARITY = 0.88;
/** At most this many words of the longer name may go unpaired (a middle name, a second surname). */
const UNPAIRED_MAX = 1;

const sorted = (tokens: readonly string[]): string => [...tokens].sort().join(' ');

/** How two words pair: `same`, `initial` (one is the other's first letter), `typo`, or not at all. */
function pairing(a: string, b: string): 'same' | 'initial' | 'typo' | undefined {
  if (a === b) return 'same';
  if (a.length === 1 || b.length === 1) return a[0] === b[0] ? 'initial' : undefined;
  return jaroWinkler(a, b) >= TYPO_SIMILARITY ? 'typo' : undefined;
}

/**
 * Pairs each word of the shorter name with a word of the longer: exact words first, then initials and
 * typos, best first. Answers how many pairs were exact, how many an initial, and how many words of the
 * shorter found none.
 */
function pairWords(shorter: readonly string[], longer: readonly string[]): { same: number; initials: number; unpaired: number } {
  const free = [...longer];
  const left: string[] = [];
  let same = 0;
  for (const word of shorter) {
    const at = free.indexOf(word);
    if (at >= 0) {
      free.splice(at, 1);
      same++;
    } else left.push(word);
  }
  let unpaired = 0;
  let initials = 0;
  for (const word of left) {
    const scored = free.map((other, i) => ({ i, kind: pairing(word, other), score: jaroWinkler(word, other) })).filter((c) => c.kind !== undefined);
    const best = scored.sort((x, y) => y.score - x.score)[0];
    if (!best) unpaired++;
    else {
      free.splice(best.i, 1);
      if (best.kind === 'initial') initials++;
    }
  }
  return { same, initials, unpaired };
}

/**
 * `match` when both names have the same words in any order (or the same letters once their spaces are
 * gone: `Mac Donald`, `MacDonald`); `close_match` when every word of the shorter name (two words at
 * least, against a longer one) pairs with a word of the longer (the same word, an initial, a typo), at
 * least one exactly or, the names being as long, at least one more than by its initial, and the longer
 * has at most one word more; otherwise `no_match`. A name with no comparable word never matches.
 */
export function compareNames(given: string, railName: string): NameComparison {
  const a = nameTokens(given);
  const b = nameTokens(railName);
  if (a.length === 0 || b.length === 0) return 'no_match';
  if (sorted(a) === sorted(b) || a.join('') === b.join('')) return 'match';
  const [shorter, longer] = a.length <= b.length ? [a, b] : [b, a];
  if (longer.length - shorter.length > UNPAIRED_MAX) return 'no_match';
  // A single word against a longer name (a first name alone) is not enough to call it close.
  if (shorter.length === 1 && longer.length > 1) return 'no_match';
  const { same, initials, unpaired } = pairWords(shorter, longer);
  if (unpaired > 0) return 'no_match';
  // Every word paired: close when one pair is exact, or (as many words each side) one is more than an initial.
  return same >= 1 || (shorter.length === longer.length && initials < shorter.length) ? 'close_match' : 'no_match';
}
