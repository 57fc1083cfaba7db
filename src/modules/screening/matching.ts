import { nameTokens } from './normalize.js';

/**
 * Fuzzy name matching against the loaded lists, in memory. Every name and alias of a list version
 * is tokenised once (normalize.ts) and indexed by blocking keys of its tokens (their first three
 * letters, and the first three consonants of a coarse consonant skeleton, so `Mohammed` and
 * `Muhammad`, `Hussein` and `Husayn` share a key); a screen scores only the names sharing keys with
 * enough of the subject's tokens. The score pairs tokens (any order) by Jaro-Winkler, an initial
 * pairing with a token of its letter, and is moved by date of birth and country where both sides
 * have them.
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
/** An initial paired with a token of its letter. */
const INITIAL_SIMILARITY = 0.9;
/** Pairs below this similarity are not paired at all. */
const PAIR_FLOOR = 0.75;

function tokenSimilarity(a: string, b: string): number {
  if (a.length === 1 || b.length === 1) return a[0] === b[0] ? (a.length === b.length ? 1 : INITIAL_SIMILARITY) : 0;
  return jaroWinkler(a, b);
}

/**
 * The score of two token lists, in any order: tokens paired greedily by similarity; matched pairs
 * count by their similarity and length, a token left unpaired counts against the score at
 * UNMATCHED_WEIGHT. Also compared whole (tokens joined) for names written together or apart.
 */
export function nameScore(q: readonly string[], c: readonly string[]): number {
  if (q.length === 0 || c.length === 0) return 0;
  const pairs: { i: number; j: number; s: number }[] = [];
  for (let i = 0; i < q.length; i++) {
    for (let j = 0; j < c.length; j++) {
      const s = tokenSimilarity(q[i] as string, c[j] as string);
      if (s >= PAIR_FLOOR) pairs.push({ i, j, s });
    }
  }
  pairs.sort((x, y) => y.s - x.s);
  const qUsed = new Uint8Array(q.length);
  const cUsed = new Uint8Array(c.length);
  let num = 0;
  let den = 0;
  for (const { i, j, s } of pairs) {
    if (qUsed[i] || cUsed[j]) continue;
    qUsed[i] = 1;
    cUsed[j] = 1;
    const w = (q[i] as string).length + (c[j] as string).length;
    num += s * w;
    den += w;
  }
  for (let i = 0; i < q.length; i++) if (!qUsed[i]) den += UNMATCHED_WEIGHT * (q[i] as string).length;
  for (let j = 0; j < c.length; j++) if (!cUsed[j]) den += UNMATCHED_WEIGHT * (c[j] as string).length;
  let score = den > 0 ? num / den : 0;
  // One token against several (a surname alone) is never enough by itself.
  if ((q.length === 1) !== (c.length === 1)) score *= 0.95;
  const whole = q.length + c.length > 2 ? jaroWinkler(q.join(''), c.join('')) * 0.97 : 0;
  return Math.max(score, whole);
}

/** What date of birth, country and kind say: added to a name score where both sides have them. */
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
  if (subject.kind === 'business' && entry.kind === 'individual') delta -= 0.05;
  if (subject.kind === 'individual' && entry.kind !== 'individual') delta -= 0.05;
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

/** Names whose name score is this far below the threshold are still scored with their adjustments. */
const ADJUSTMENT_REACH = 0.15;
/** Hits reported per subject at most. */
export const HITS_MAX = 10;

export class ListIndex {
  private readonly names: IndexedName[] = [];
  private readonly postings = new Map<string, number[]>();
  private readonly counts: Uint16Array;
  /** Which query token of which screen last counted a name (a screen's tokens: screens * 8 + 1..7). */
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

  /** The entries matching a subject at or above `threshold` (0..1), best first, one hit per entry. */
  screen(subject: Subject, threshold: number): Hit[] {
    const q = nameTokens(subject.name);
    const words = q.filter((t) => t.length > 1);
    if (words.length === 0) return [];
    // Each query token counts once for a name, through keys no earlier token used (two tokens
    // sharing a key, "Zheina Zheikha", must not make one shared token look like two).
    const touched: number[] = [];
    const usedKeys = new Set<string>();
    let stamp = 0;
    let counting = 0;
    for (const token of [...new Set(words)].slice(0, 7)) {
      stamp++;
      const keys = blockingKeys(token).filter((key) => !usedKeys.has(key));
      if (keys.length > 0) counting++;
      for (const key of keys) {
        usedKeys.add(key);
        for (const n of this.postings.get(key) ?? []) {
          if (this.stamps[n] === this.screens * 8 + stamp) continue;
          this.stamps[n] = this.screens * 8 + stamp;
          if (this.counts[n] === 0) touched.push(n);
          (this.counts as Uint16Array)[n] = (this.counts[n] as number) + 1;
        }
      }
    }
    this.screens = (this.screens + 1) % 0x1fffffff;
    const needQ = Math.min(2, counting);
    const best = new Map<number, { score: number; name: string }>();
    for (const n of touched) {
      const shared = this.counts[n] as number;
      (this.counts as Uint16Array)[n] = 0;
      const name = this.names[n] as IndexedName;
      if (shared < Math.min(needQ, Math.max(1, name.words))) continue;
      const base = nameScore(q, name.tokens);
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
}

/** A subject screened against every active list: every list's hits, best first. */
export function screenAll(indexes: readonly ListIndex[], subject: Subject, threshold: number): Hit[] {
  return indexes
    .flatMap((index) => index.screen(subject, threshold))
    .sort((a, b) => b.score - a.score)
    .slice(0, HITS_MAX);
}
