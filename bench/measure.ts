import fs from 'node:fs';
import os from 'node:os';
import type { Sql } from '../src/platform/db/db.js';
import { freshPostgresDatabase } from '../support/postgres.js';
import { BENCH_QUERY } from './statements.js';

/** What the benchmarks share: their database, sizes, percentiles and CPU accounting. */

/**
 * `npm run bench -- --smoke` (or BENCH_SMOKE=1): every benchmark once at a tiny size, so that CI
 * notices a broken benchmark; its figures mean nothing.
 */
export const smoke = process.argv.includes('--smoke') || process.env.BENCH_SMOKE === '1';

/** A size of a benchmark: the environment variable `name` when set, else `full`, or `tiny` in a smoke run. */
export function benchSize(name: string, full: number, tiny: number): number {
  const set = process.env[name];
  return set ? Number(set) : smoke ? tiny : full;
}

export interface BenchDb {
  url: string;
  drop: () => Promise<void>;
}

/**
 * A fresh database on the benchmark's PostgreSQL server, dropped after the run: BENCH_DATABASE_URL,
 * else DATABASE_URL, else postgres://postgres@127.0.0.1:5432/postgres is the admin connection.
 */
export function freshBenchDatabase(): Promise<BenchDb> {
  const admin = process.env.BENCH_DATABASE_URL || process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
  return freshPostgresDatabase(admin, 'corridor_bench');
}

export function percentile(sortedMs: number[], p: number): number {
  if (sortedMs.length === 0) return 0;
  const i = Math.min(sortedMs.length - 1, Math.ceil((p / 100) * sortedMs.length) - 1);
  return sortedMs[Math.max(0, i)] as number;
}

/** CPU milliseconds a process on this machine has used so far (0 when it is not here or gone). */
export function processCpuMs(pid: number): number {
  try {
    const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
    return (Number(fields[11]) + Number(fields[12])) * 10; // utime, stime (fields 14 and 15 of the line), 100 ticks per second
  } catch {
    return 0; // not on this machine (a remote server) or gone: counted as nothing
  }
}

/** CPU milliseconds used so far by this process. */
export function ownCpuMs(): number {
  const own = process.cpuUsage();
  return (own.user + own.system) / 1000;
}

/** CPU milliseconds used so far by the server processes of the current database's connections. */
export async function databaseCpuMs(sql: Sql): Promise<number> {
  const pids = await sql.query<{ pid: number }>(`${BENCH_QUERY} SELECT pid FROM pg_stat_activity WHERE datname = current_database()`);
  return pids.reduce((sum, { pid }) => sum + processCpuMs(pid), 0);
}

/** What `cores` idle cores would sustain per second, at `cpuMsPerUnit` CPU ms per unit of work. */
export function sustainableOnCores(cpuMsPerUnit: number, cores = os.cpus().length): number {
  return Math.round((1000 * cores) / cpuMsPerUnit);
}
