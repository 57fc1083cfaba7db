import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';

/** The repository's root (this file is test/helpers/real-world.ts). */
const REPO_ROOT = path.resolve(import.meta.dirname, '../..');

/** A published real-world file (../shared/real-world/, described in its SOURCES.md), read where it lies, never copied in. */
export function realWorldPath(relative: string): string {
  return path.resolve(REPO_ROOT, '../shared/real-world', relative);
}

/** A real-world file's bytes, gunzipped when its name ends in .gz. */
export function realWorldFile(relative: string): Buffer {
  const bytes = fs.readFileSync(realWorldPath(relative));
  return relative.endsWith('.gz') ? zlib.gunzipSync(bytes) : bytes;
}

/**
 * OFAC's SDN CSV set of July 2021 as one body (SDN.CSV, ADD.CSV, ALT.CSV, SDN_COMMENTS.CSV): 8,977
 * entries, with "Digital Currency Address - XBT/ETH/LTC/…" remarks, some continued in SDN_COMMENTS.
 */
export function ofacSdn2021(): Buffer {
  return Buffer.concat(['sdn.csv.gz', 'add.csv', 'alt.csv', 'sdn_comments.csv'].map((f) => realWorldFile(`sanctions/ofac-sdn-2021-07/${f}`)));
}

/** OFAC's SDN CSV set of January 2019 with the later SDN_COMMENTS extract SOURCES.md describes. */
export function ofacSdn2019(): Buffer {
  return Buffer.concat(['sdn.csv', 'add.csv', 'alt.csv', 'sdn_comments.csv'].map((f) => realWorldFile(`sanctions/ofac-sdn-2019-01/${f}`)));
}
