import { isBusinessWord, nameTokens, readName } from './normalize.js';

/**
 * Fuzzy name matching against the loaded lists, in memory. Every name and alias of a list version
 * is tokenised once (normalize.ts: look-alike letters folded, transliterated, noise words dropped)
 * and indexed by blocking keys of its tokens (their first three letters, and the first three
 * consonants of a coarse consonant skeleton, so `Mohammed` and `Muhammad`, `Hussein` and `Husayn`
 * share a key); a screen scores only the names sharing keys with enough of the subject's tokens (or
 * of its neighbouring tokens joined, for a name split in two). The score pairs tokens (any order) by
 * Jaro-Winkler, an initial pairing with a token of its letter; a business's name may hold a listed
 * name among other words; the score is moved by date of birth and country where both sides have
 * them, never by the kind (person or business) the customer gave.
 */

export const LIST_NAMES = ['ofac-sdn', 'un', 'eu', 'uk-ofsi'] as const;
export type ListName = (typeof LIST_NAMES)[number];
export type EntryKind = 'individual' | 'entity' | 'vessel' | 'aircraft';

/** One entry of a sanctions list, as every format is read into. */
export interface ListEntry {
  entryId: string;
  kind: EntryKind;
  name: string;
  aliases: string[];
  /** `YYYY`, `YYYY-MM` or `YYYY-MM-DD`. */
  datesOfBirth: string[];
  /** ISO alpha-2 codes: nationality, citizenship, address or birth countries. */
  countries: string[];
  programs: string[];
}

/** Who is screened: a beneficiary, or a payout's recipient or sender. */
export interface Subject {
  name: string;
  kind?: 'individual' | 'business' | undefined;
  country?: string | undefined;
  dateOfBirth?: string | undefined;
}

/** A possible match, with its evidence. */
export interface Hit {
  list: ListName;
  entryId: string;
  /** The entry's primary name. */
  entryName: string;
  /** The name or alias of the entry that matched. */
  matchedName: string;
  /** The name screened (the beneficiary's, the sender's). */
  subjectName: string;
  /** 0..1, after the date of birth and country adjustments. */
  score: number;
}

// ---------------------------------------------------------------------------------------------
// Jaro-Winkler

/** Jaro-Winkler similarity of two strings (prefix scale 0.1, up to 4 letters, boost above 0.7). */
export function jaroWinkler(a: string, b: string): number {
  if (a === b) return 1;
  const la = a.length;
  const lb = b.length;
  if (la === 0 || lb === 0) return 0;
  const window = Math.max(0, Math.floor(Math.max(la, lb) / 2) - 1);
  const aMatched = new Uint8Array(la);
  const bMatched = new Uint8Array(lb);
  let matches = 0;
  for (let i = 0; i < la; i++) {
    const from = Math.max(0, i - window);
    const to = Math.min(lb - 1, i + window);
    for (let j = from; j <= to; j++) {
      if (bMatched[j] || a.charCodeAt(i) !== b.charCodeAt(j)) continue;
      aMatched[i] = 1;
      bMatched[j] = 1;
      matches++;
      break;
    }
  }
  if (matches === 0) return 0;
  let transpositions = 0;
  let k = 0;
  for (let i = 0; i < la; i++) {
    if (!aMatched[i]) continue;
    while (!bMatched[k]) k++;
    if (a.charCodeAt(i) !== b.charCodeAt(k)) transpositions++;
    k++;
  }
  const m = matches;
  const jaro = (m / la + m / lb + (m - transpositions / 2) / m) / 3;
  if (jaro <= 0.7) return jaro;
  let prefix = 0;
  while (prefix < 4 && prefix < la && prefix < lb && a.charCodeAt(prefix) === b.charCodeAt(prefix)) prefix++;
  return jaro + prefix * 0.1 * (1 - jaro);
}

// ---------------------------------------------------------------------------------------------
// Name scores

/** How much an unmatched token (a middle name one side lacks) weighs against a score. */
const UNMATCHED_WEIGHT = 0.2;
/**
 * How much a word of a business name beyond a listed name weighs ("Vladimir Putin Foundation" against
 * "Vladimir Putin"): a listed name inside a business name is that name's business, so the extra words
 * barely count.
 */
const CONTAINED_EXTRA_WEIGHT = 0.05;
/** A name of one word against a name of several (a surname alone, a listed nickname): never enough by itself. */
const ONE_AGAINST_SEVERAL = 0.88;
/** Names compared whole only when the shorter is at least this share of the longer (no prefix alone matches). */
const WHOLE_LENGTH_RATIO = 0.8;
/** An initial paired with a token of its letter; a listed initial ("AHMED, A.") paired with a word screened. */
const INITIAL_SIMILARITY = 0.9;
const LISTED_INITIAL_SIMILARITY = 0.8;
/** Pairs below this similarity are not paired at all. */
const PAIR_FLOOR = 0.75;

/** The similarity of a word screened (`a`) and a listed word (`b`); an initial on the list stands for less than one given. */
function tokenSimilarity(a: string, b: string): number {
  if (a.length === 1 || b.length === 1) return a[0] === b[0] ? (a.length === b.length ? 1 : b.length === 1 ? LISTED_INITIAL_SIMILARITY : INITIAL_SIMILARITY) : 0;
  return jaroWinkler(a, b);
}

/** A word of the name screened, or two neighbours joined (a name split in two: `Pu-tin`, `Abdul Rahman`). */
interface Piece {
  first: number;
  last: number;
  text: string;
}

function pieces(q: readonly string[]): Piece[] {
  const out: Piece[] = q.map((text, i) => ({ first: i, last: i, text }));
  for (let i = 0; i + 1 < q.length; i++) {
    const a = q[i] as string;
    const b = q[i + 1] as string;
    if (a.length > 1 && b.length > 1) out.push({ first: i, last: i + 1, text: a + b });
  }
  return out;
}

/** A name screened, read once for every list: its words, its neighbouring words joined, and whether it is compared as a business's. */
export interface Query {
  tokens: readonly string[];
  pieces: readonly Piece[];
  /** A business's name (given as one, or holding a word naming a kind of business): it may hold a listed name among other words. */
  contained: boolean;
}

export function queryOf(subject: Subject): Query {
  const { tokens, business } = readName(subject.name);
  return { tokens, pieces: pieces(tokens), contained: subject.kind === 'business' || business };
}

/**
 * The score of the name screened (`q`) against a listed name (`c`), in any order: the words of `q`,
 * and its neighbouring words joined, paired greedily with the listed words by similarity; matched
 * pairs count by their similarity and length, a word left unpaired counts against the score at
 * UNMATCHED_WEIGHT (a word of a business name beyond a listed name of two words or more, at
 * CONTAINED_EXTRA_WEIGHT). Also compared whole (words joined) for names written together or apart.
 */
export function nameScore(query: Query, c: readonly string[]): number {
  const q = query.tokens;
  if (q.length === 0 || c.length === 0) return 0;
  const pairs: { p: Piece; j: number; s: number }[] = [];
  for (const p of query.pieces) {
    const joined = p.first !== p.last;
    for (let j = 0; j < c.length; j++) {
      const listed = c[j] as string;
      // Two words joined are compared only with a listed word of their first letter and about their length.
      if (joined && (listed.charCodeAt(0) !== p.text.charCodeAt(0) || Math.abs(listed.length - p.text.length) > 2)) continue;
      const s = tokenSimilarity(p.text, listed);
      if (s >= PAIR_FLOOR) pairs.push({ p, j, s });
    }
  }
  pairs.sort((x, y) => y.s - x.s);
  const qUsed = new Uint8Array(q.length);
  const cUsed = new Uint8Array(c.length);
  let num = 0;
  let den = 0;
  for (const { p, j, s } of pairs) {
    if (qUsed[p.first] || qUsed[p.last] || cUsed[j]) continue;
    qUsed[p.first] = 1;
    qUsed[p.last] = 1;
    cUsed[j] = 1;
    const w = weight(p.text) + weight(c[j] as string);
    num += s * w;
    den += w;
  }
  const listedWords = c.filter((t) => t.length > 1).length;
  const extraWeight = query.contained && listedWords >= 2 ? CONTAINED_EXTRA_WEIGHT : UNMATCHED_WEIGHT;
  let unpairedWord = false;
  for (let i = 0; i < q.length; i++) {
    if (qUsed[i]) continue;
    den += extraWeight * weight(q[i] as string);
    if ((q[i] as string).length > 1) unpairedWord = true;
  }
  for (let j = 0; j < c.length; j++) if (!cUsed[j]) den += UNMATCHED_WEIGHT * weight(c[j] as string);
  let score = den > 0 ? num / den : 0;
  // One word against several, or a listed name of one word (and initials) against a name with a word it lacks.
  if ((q.length === 1) !== (c.length === 1) || (listedWords === 1 && unpairedWord)) score *= ONE_AGAINST_SEVERAL;
  return Math.max(score, wholeScore(q, c));
}

/** A word's weight in a score: its length, a quarter of it for a word naming a kind of business ("trading"). */
const weight = (token: string): number => (isBusinessWord(token) ? token.length / 4 : token.length);

/** Written together or apart ("Abdulrahman" and "Abdul Rahman"): the names' words joined, compared when their lengths are close. */
function wholeScore(q: readonly string[], c: readonly string[]): number {
  if (q.length + c.length <= 2) return 0;
  const a = q.join('');
  const b = c.join('');
  if (Math.min(a.length, b.length) < WHOLE_LENGTH_RATIO * Math.max(a.length, b.length)) return 0;
  return jaroWinkler(a, b) * 0.97;
}

/**
 * What date of birth and country say: added to a name score where both sides have them. The kind
 * (person or business) the customer gave moves nothing: it is theirs to choose, so a listed person's
 * name scores the same given as a business's.
 */
export function adjustment(subject: Subject, entry: ListEntry): number {
  let delta = 0;
  if (subject.dateOfBirth && entry.datesOfBirth.length > 0) {
    const dob = subject.dateOfBirth;
    const year = Number(dob.slice(0, 4));
    let best = -0.15;
    for (const listed of entry.datesOfBirth) {
      if (listed.length === 10 && listed === dob) best = Math.max(best, 0.05);
      else if (dob.startsWith(listed)) best = Math.max(best, 0.03);
      else if (Math.abs(Number(listed.slice(0, 4)) - year) <= 1) best = Math.max(best, 0);
    }
    delta += best;
  }
  if (subject.country && entry.countries.length > 0) delta += entry.countries.includes(subject.country) ? 0.02 : -0.03;
  return delta;
}

// ---------------------------------------------------------------------------------------------
// The index of one list version

const CONSONANT_MAP: Record<string, string> = { q: 'k', c: 'k', z: 's', v: 'f', w: 'f', j: 'g', x: 'k' };

/** A coarse consonant skeleton: vowels, h and y gone, similar consonants merged, repeats collapsed. */
function skeleton(token: string): string {
  let out = '';
  for (const ch of token) {
    if ('aeiouyh'.includes(ch)) continue;
    const mapped = CONSONANT_MAP[ch] ?? ch;
    if (out[out.length - 1] !== mapped) out += mapped;
  }
  return out;
}

/** The blocking keys of a token (none for an initial). */
function blockingKeys(token: string): string[] {
  if (token.length < 2) return [];
  const keys = [`p${token.slice(0, 3)}`];
  const sk = skeleton(token).slice(0, 3);
  if (sk.length >= 2 || (sk.length === 1 && token.length <= 4)) keys.push(`s${sk}`);
  return keys;
}

interface IndexedName {
  entry: number;
  name: string;
  tokens: string[];
  /** Tokens that are not initials. */
  words: number;
}

/** Words of a name screened that look names up; with their neighbours joined, the keys looked up at most. */
const QUERY_WORDS_MAX = 7;
const QUERY_KEYS_MAX = 13;
/** A name's stamp is the screen's number times this plus the word's place (1..QUERY_KEYS_MAX): it fits 32 bits. */
const STAMPS_PER_SCREEN = 16;
const SCREENS_WRAP = Math.floor(0xffffffff / STAMPS_PER_SCREEN);

/** Names whose name score is this far below the threshold are still scored with their adjustments. */
const ADJUSTMENT_REACH = 0.15;
/** Hits reported per subject at most. */
export const HITS_MAX = 10;

export class ListIndex {
  private readonly names: IndexedName[] = [];
  private readonly postings = new Map<string, number[]>();
  private readonly counts: Uint16Array;
  /** Which query word of which screen last counted a name (see STAMPS_PER_SCREEN). */
  private readonly stamps: Uint32Array;
  private screens = 0;
  /** Names indexed. */
  readonly nameCount: number;

  constructor(
    readonly list: ListName,
    readonly versionId: string,
    readonly entries: readonly ListEntry[],
  ) {
    entries.forEach((entry, e) => {
      const seen = new Set<string>();
      for (const name of [entry.name, ...entry.aliases]) {
        const tokens = nameTokens(name);
        const key = tokens.join(' ');
        if (tokens.length === 0 || seen.has(key)) continue;
        seen.add(key);
        const n = this.names.length;
        this.names.push({ entry: e, name, tokens, words: tokens.filter((t) => t.length > 1).length });
        const keys = new Set(tokens.flatMap(blockingKeys));
        for (const k of keys) {
          const list = this.postings.get(k);
          if (list) list.push(n);
          else this.postings.set(k, [n]);
        }
      }
    });
    this.nameCount = this.names.length;
    this.counts = new Uint16Array(this.names.length);
    this.stamps = new Uint32Array(this.names.length);
  }

  /** The entries matching a subject at or above `threshold` (0..1), best first, one hit per entry; `query` is the subject's name read (queryOf). */
  screen(subject: Subject, threshold: number, query: Query = queryOf(subject)): Hit[] {
    const words = [...new Set(query.tokens.filter((t) => t.length > 1))].slice(0, QUERY_WORDS_MAX);
    if (words.length === 0) return [];
    const touched = this.candidates([...words, ...query.pieces.filter((p) => p.first !== p.last).map((p) => p.text)].slice(0, QUERY_KEYS_MAX));
    const needQ = Math.min(2, touched.counting);
    const best = new Map<number, { score: number; name: string }>();
    for (const n of touched.names) {
      const shared = this.counts[n] as number;
      (this.counts as Uint16Array)[n] = 0;
      const name = this.names[n] as IndexedName;
      if (shared < Math.min(needQ, Math.max(1, name.words))) continue;
      const base = nameScore(query, name.tokens);
      if (base < threshold - ADJUSTMENT_REACH) continue;
      const entry = this.entries[name.entry] as ListEntry;
      const score = Math.min(1, Math.max(0, base + adjustment(subject, entry)));
      if (score < threshold) continue;
      const prior = best.get(name.entry);
      if (!prior || prior.score < score) best.set(name.entry, { score, name: name.name });
    }
    return [...best.entries()]
      .map(([e, m]): Hit => {
        const entry = this.entries[e] as ListEntry;
        return { list: this.list, entryId: entry.entryId, entryName: entry.name, matchedName: m.name, subjectName: subject.name, score: Math.round(m.score * 1000) / 1000 };
      })
      .sort((a, b) => b.score - a.score)
      .slice(0, HITS_MAX);
  }

  /**
   * The names sharing blocking keys with the words screened (and their neighbours joined), each with
   * how many of those words it shares (left in `counts`, for the caller to read and reset). Each word
   * counts once for a name, through keys no earlier word used (two words sharing a key, "Zheina
   * Zheikha", must not make one shared word look like two).
   */
  private candidates(tokens: readonly string[]): { names: number[]; counting: number } {
    const names: number[] = [];
    const usedKeys = new Set<string>();
    let counting = 0;
    tokens.forEach((token, t) => {
      const stamp = this.screens * STAMPS_PER_SCREEN + t + 1;
      const keys = blockingKeys(token).filter((key) => !usedKeys.has(key));
      if (keys.length > 0) counting++;
      for (const key of keys) {
        usedKeys.add(key);
        for (const n of this.postings.get(key) ?? []) {
          if (this.stamps[n] === stamp) continue;
          this.stamps[n] = stamp;
          if (this.counts[n] === 0) names.push(n);
          (this.counts as Uint16Array)[n] = (this.counts[n] as number) + 1;
        }
      }
    });
    this.screens = (this.screens + 1) % SCREENS_WRAP;
    return { names, counting };
  }
}

/** A subject screened against every active list: every list's hits, best first. */
export function screenAll(indexes: readonly ListIndex[], subject: Subject, threshold: number): Hit[] {
  const query = queryOf(subject);
  return indexes
    .flatMap((index) => index.screen(subject, threshold, query))
    .sort((a, b) => b.score - a.score)
    .slice(0, HITS_MAX);
}
