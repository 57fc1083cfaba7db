/**
 * Benchmarks, run on PostgreSQL: `npm run bench -- <name>` (ledger, payouts, scale, webhooks, growth, screening; all
 * when none is named), `--smoke` for each at a tiny size (CI). Each makes a fresh database for its
 * run (bench/measure.ts). This file only picks and runs them: the benchmarks import nothing from it.
 */
import os from 'node:os';
import { growthBench } from './growth.js';
import { ledgerBench } from './ledger.js';
import { payoutsBench } from './payouts.js';
import { scaleBench } from './scale.js';
import { screeningBench } from './screening.js';
import { webhooksBench } from './webhooks.js';

const benches: Record<string, () => Promise<void>> = { ledger: ledgerBench, payouts: payoutsBench, scale: scaleBench, webhooks: webhooksBench, growth: growthBench, screening: screeningBench };

async function main(): Promise<void> {
  const names = process.argv.slice(2).filter((a) => !a.startsWith('-'));
  const chosen = names.length ? names : Object.keys(benches);
  console.log(`machine: ${os.cpus().length} cores, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, node ${process.version}`);
  for (const name of chosen) {
    const bench = benches[name];
    if (!bench) throw new Error(`unknown benchmark ${name}; known: ${Object.keys(benches).join(', ')}`);
    await bench();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
