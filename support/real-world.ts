import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';

/**
 * The published files of `../shared/real-world/` (see its SOURCES.md), read in place beside the
 * repository, never copied into it: for tests and benchmarks alike.
 */

export const REPO_ROOT = fileURLToPath(new URL('..', import.meta.url));

/** A path under `../shared/real-world/`, from the repository root. */
export const realWorldPath = (...parts: string[]): string => path.resolve(REPO_ROOT, '../shared/real-world', ...parts);

const read = (...parts: string[]): Buffer => {
  const file = realWorldPath(...parts);
  const bytes = fs.readFileSync(file);
  return file.endsWith('.gz') ? gunzipSync(bytes) : bytes;
};

/**
 * The real sanctions lists as a load takes them: OFAC's SDN CSV set of July 2021 (SDN, ALT and ADD
 * concatenated in one body) and the UN Security Council consolidated list of February 2026.
 */
export function realSanctionsLists(): { 'ofac-sdn': Buffer; un: Buffer } {
  const ofac = ['sdn.csv.gz', 'alt.csv', 'add.csv'].map((f) => read('sanctions', 'ofac-sdn-2021-07', f));
  return { 'ofac-sdn': Buffer.concat(ofac.flatMap((b) => [b, Buffer.from('\r\n')])), un: read('sanctions', 'UN_consolidated.xml.gz') };
}
