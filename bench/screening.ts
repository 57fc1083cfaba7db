import os from 'node:os';
import { parseListFile } from '../src/controls/screening/lists/index.js';
import { ListIndex, screenAll, type Subject } from '../src/controls/screening/matching.js';
import { ordinaryNames } from '../support/ordinary-names.js';
import { realSanctionsLists } from '../support/real-world.js';
import { benchSize, percentile } from './measure.js';

/**
 * Sanctions screening per payout: a generated OFAC SDN CSV of 20,000 entries (names built from
 * transliterated syllables, 1 to 3 aliases each, dates of birth, nationalities, a fifth of them
 * entities) is parsed and indexed as a load does, then payouts are screened as at submit (the
 * beneficiary and the sender: two names each) against it. In memory, as the API screens; no database.
 */

const ENTRIES = benchSize('BENCH_SCREENING_ENTRIES', 20_000, 500);
const PAYOUTS = benchSize('BENCH_SCREENING_PAYOUTS', 20_000, 200);
const ORDINARY = benchSize('BENCH_SCREENING_NAMES', 5_000, 200);
const THRESHOLD = 0.9;

/** A small deterministic generator (the same list every run). */
function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

const ONSETS = ['', 'b', 'd', 'f', 'g', 'h', 'k', 'kh', 'l', 'm', 'n', 'r', 's', 'sh', 't', 'v', 'y', 'z', 'zh', 'ch', 'j', 'p', 'q'];
const VOWELS = ['a', 'e', 'i', 'o', 'u', 'aa', 'ou', 'ei', 'ya'];
const CODAS = ['', '', 'n', 'r', 'l', 'm', 'd', 's', 'v', 'k'];
const COUNTRIES = ['RU', 'IR', 'KP', 'SY', 'IQ', 'AF', 'VE', 'CU', 'BY', 'MM', 'LY', 'SD', 'YE', 'CN', 'LB'];
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

function word(rnd: () => number): string {
  const syllables = 2 + Math.floor(rnd() * 2);
  let w = '';
  for (let i = 0; i < syllables; i++) w += `${ONSETS[Math.floor(rnd() * ONSETS.length)]}${VOWELS[Math.floor(rnd() * VOWELS.length)]}${CODAS[Math.floor(rnd() * CODAS.length)]}`;
  return w.charAt(0).toUpperCase() + w.slice(1);
}

const csvField = (s: string) => `"${s.replace(/"/g, '""')}"`;

/** SDN.CSV, ALT.CSV and ADD.CSV rows of `n` generated entries, as one body; also the names of some entries to screen. */
function generatedList(n: number, rnd: () => number): { body: Buffer; listed: Subject[] } {
  const sdn: string[] = [];
  const alt: string[] = [];
  const add: string[] = [];
  const listed: Subject[] = [];
  for (let i = 1; i <= n; i++) {
    const person = rnd() < 0.8;
    const country = COUNTRIES[Math.floor(rnd() * COUNTRIES.length)] as string;
    const first = `${word(rnd)}${rnd() < 0.4 ? ` ${word(rnd)}` : ''}`;
    const last = word(rnd).toUpperCase();
    const name = person ? `${last}, ${first}` : `${word(rnd).toUpperCase()} ${word(rnd).toUpperCase()} TRADING LLC`;
    const dob = `${1 + Math.floor(rnd() * 28)} ${MONTHS[Math.floor(rnd() * 12)]} ${1940 + Math.floor(rnd() * 60)}`;
    sdn.push([i, csvField(name), person ? '"individual"' : '-0- ', '"SDGT"', '-0- ', '-0- ', '-0- ', '-0- ', '-0- ', '-0- ', '-0- ', csvField(person ? `DOB ${dob}; nationality ${country}.` : '-0- ')].join(','));
    const aliases = 1 + Math.floor(rnd() * 3);
    for (let a = 0; a < aliases; a++) alt.push([i, i * 10 + a, '"aka"', csvField(person ? `${word(rnd).toUpperCase()}, ${first}` : `${word(rnd).toUpperCase()} GROUP`), '-0- '].join(','));
    add.push([i, i, '-0- ', '"City"', csvField(country), '-0- '].join(','));
    if (i % Math.max(1, Math.floor(n / 200)) === 0) listed.push({ name: person ? `${first} ${last}` : name, kind: person ? 'individual' : 'business' });
  }
  return { body: Buffer.from(`${[...sdn, ...alt, ...add].join('\r\n')}\r\n`), listed };
}

export async function screeningBench(): Promise<void> {
  await realListsBench();
  const rnd = random(23);
  const { body, listed } = generatedList(ENTRIES, rnd);
  const t0 = performance.now();
  const { entries } = parseListFile('ofac-sdn', body);
  const t1 = performance.now();
  const index = new ListIndex('ofac-sdn', 'bench', entries);
  const t2 = performance.now();
  console.log(`screening: ${entries.length} entries, ${index.nameCount} names and aliases (${(body.byteLength / 2 ** 20).toFixed(1)} MiB of SDN CSV), threshold ${THRESHOLD}`);
  console.log(`  load: parse ${(t1 - t0).toFixed(0)} ms, index ${(t2 - t1).toFixed(0)} ms`);

  // Warm-up (the JIT), not measured.
  for (let i = 0; i < Math.min(500, PAYOUTS); i++) screenAll([index], { name: `${word(rnd)} ${word(rnd)}` }, THRESHOLD);
  // Payouts as submitted: a beneficiary and a sender each, one in 100 naming a listed entry (its words reordered).
  const latencies: number[] = [];
  let held = 0;
  let heldListed = 0;
  for (let i = 0; i < PAYOUTS; i++) {
    const listedOne = i % 100 === 0 ? listed[(i / 100) % listed.length] : undefined;
    const beneficiary: Subject = listedOne ? { ...listedOne, name: listedOne.name.split(' ').reverse().join(' ') } : { name: `${word(rnd)} ${word(rnd)}`, kind: 'individual', country: 'DE', dateOfBirth: '1980-01-01' };
    const sender: Subject = { name: `${word(rnd)} ${word(rnd)}`, kind: 'individual', country: 'GB' };
    const started = performance.now();
    const hits = [...screenAll([index], beneficiary, THRESHOLD), ...screenAll([index], sender, THRESHOLD)];
    latencies.push(performance.now() - started);
    if (hits.length > 0) held++;
    if (hits.length > 0 && listedOne) heldListed++;
  }
  latencies.sort((a, b) => a - b);
  const mean = latencies.reduce((a, b) => a + b, 0) / latencies.length;
  console.log(`  per payout (beneficiary and sender): mean ${mean.toFixed(3)} ms  p50 ${percentile(latencies, 50).toFixed(3)} ms  p99 ${percentile(latencies, 99).toFixed(3)} ms  max ${(latencies[latencies.length - 1] ?? 0).toFixed(3)} ms  (${PAYOUTS} payouts)`);
  console.log(`  load average during the run: ${os.loadavg().map((l) => l.toFixed(1)).join(' ')} (the p99 and max move with it: pauses, not matching)`);
  console.log(`  held: ${heldListed} of the ${Math.ceil(PAYOUTS / 100)} payouts naming a listed entry; ${held - heldListed} of the ${PAYOUTS - Math.ceil(PAYOUTS / 100)} others (random names, some close to listed ones)`);
}

/**
 * One name at a time against the real lists (OFAC's SDN CSV set of July 2021 and the UN consolidated
 * list, from ../shared/real-world): ordinary names (support/ordinary-names.ts) screened as a
 * beneficiary is, each timed alone; also how many of them are flagged (false positives).
 */
async function realListsBench(): Promise<void> {
  const files = realSanctionsLists();
  const t0 = performance.now();
  const indexes = (['ofac-sdn', 'un'] as const).map((list) => new ListIndex(list, list, parseListFile(list, files[list]).entries));
  const t1 = performance.now();
  console.log(`screening, real lists: OFAC SDN 2021-07 and UN 2026-02, ${indexes.map((i) => `${i.list} ${i.entries.length} entries / ${i.nameCount} names`).join(', ')}; parse and index ${(t1 - t0).toFixed(0)} ms`);
  const names = ordinaryNames(ORDINARY);
  for (const n of names.slice(0, 500)) screenAll(indexes, n, THRESHOLD);
  const latencies: number[] = [];
  let flagged = 0;
  for (const n of names) {
    const started = performance.now();
    const hits = screenAll(indexes, n, THRESHOLD);
    latencies.push(performance.now() - started);
    if (hits.length > 0) flagged++;
  }
  latencies.sort((a, b) => a - b);
  const mean = latencies.reduce((a, b) => a + b, 0) / latencies.length;
  console.log(`  one name: mean ${mean.toFixed(3)} ms  p50 ${percentile(latencies, 50).toFixed(3)} ms  p99 ${percentile(latencies, 99).toFixed(3)} ms  max ${(latencies[latencies.length - 1] ?? 0).toFixed(3)} ms  (${names.length} ordinary names)`);
  console.log(`  flagged: ${flagged} of ${names.length} ordinary names (${((100 * flagged) / names.length).toFixed(2)} %) at threshold ${THRESHOLD}`);
}
