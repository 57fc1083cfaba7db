/**
 * Benchmarks, run on PostgreSQL: `npm run bench -- <name>` (ledger, ...).
 * Uses BENCH_DATABASE_URL, else DATABASE_URL, else postgres://postgres@127.0.0.1:5432/postgres as the
 * admin connection, and makes a fresh database for the run.
 */
import os from 'node:os';
import { freshPostgresDatabase } from '../test/helpers/app.js';
import { growthBench } from './growth.js';
import { ledgerBench } from './ledger.js';
import { payoutsBench } from './payouts.js';
import { webhooksBench } from './webhooks.js';

export interface BenchDb {
  url: string;
  drop: () => Promise<void>;
}

/** A fresh database on the benchmark's PostgreSQL server, dropped after the run. */
export function freshBenchDatabase(): Promise<BenchDb> {
  const admin = process.env.BENCH_DATABASE_URL || process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
  return freshPostgresDatabase(admin, 'corridor_bench');
}

export function percentile(sortedMs: number[], p: number): number {
  if (sortedMs.length === 0) return 0;
  const i = Math.min(sortedMs.length - 1, Math.ceil((p / 100) * sortedMs.length) - 1);
  return sortedMs[Math.max(0, i)] as number;
}

const benches: Record<string, () => Promise<void>> = { ledger: ledgerBench, payouts: payoutsBench, webhooks: webhooksBench, growth: growthBench };

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
