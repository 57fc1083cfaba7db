import { pino } from 'pino';
import { loadConfig } from '../src/platform/config.js';
import { createWorkspace } from '../src/domains/accounts/accounts.service.js';
import { moveFromSystem } from '../src/domains/ledger/funding.service.js';
import { HoldBatcher } from '../src/domains/ledger/hold-batcher.js';
import { ledgerInvariantViolations } from '../src/domains/ledger/ledger.service.js';
import { openContext } from '../src/runtime.js';
import { benchSize, freshBenchDatabase, percentile } from './measure.js';

const CALLERS = 50;
const DURATION_MS = benchSize('BENCH_DURATION_MS', 10_000, 1000);
const ACCOUNTS = 100;

/** 50 callers issuing holds of 0.01 EUR for a fixed time, each waiting for its answer before the next. */
async function run(batcher: HoldBatcher, accounts: string[]): Promise<{ perSecond: number; p50: number; p99: number; count: number }> {
  const latencies: number[] = [];
  const until = Date.now() + DURATION_MS;
  const started = Date.now();
  let refused = 0;
  await Promise.all(
    Array.from({ length: CALLERS }, async (_, caller) => {
      let i = caller;
      while (Date.now() < until) {
        const accountId = accounts[i++ % accounts.length] as string;
        const t0 = performance.now();
        const result = await batcher.submit({ accountId, currency: 'EUR', legs: [{ amountMinor: 1n, credit: { system: 'provider_clearing', code: 'sepa_inst' } }], reference: { type: 'bench' } });
        latencies.push(performance.now() - t0);
        if (!result.ok) refused++;
      }
    }),
  );
  if (refused) throw new Error(`${refused} holds refused`);
  const elapsedS = (Date.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  return { perSecond: Math.round(latencies.length / elapsedS), p50: percentile(latencies, 50), p99: percentile(latencies, 99), count: latencies.length };
}

export async function ledgerBench(): Promise<void> {
  const db = await freshBenchDatabase();
  const config = loadConfig({ ...process.env, DATABASE_URL: db.url, CORRIDOR_DATA_DIR: 'memory://', CORRIDOR_ENCRYPTION_KEY: Buffer.alloc(32, 7).toString('base64'), LOG_LEVEL: 'warn' });
  const ctx = await openContext(config, pino({ level: 'warn' }));
  try {
    const accounts: string[] = [];
    for (let i = 0; i < ACCOUNTS; i++) {
      await ctx.db.tx(async (tx) => {
        const ws = await createWorkspace(tx, { name: `Bench ${i}`, country: 'DE' });
        await moveFromSystem(tx, { workspaceId: ws.id, accountId: ws.id, currency: 'EUR', amountMinor: 10n ** 12n, system: 'sandbox_funding', reference: { type: 'funding' } });
        accounts.push(ws.id);
      });
    }
    const batcher = new HoldBatcher(ctx.db);
    console.log(`ledger: ${CALLERS} concurrent callers, ${DURATION_MS / 1000} s per case, PostgreSQL, pool ${config.limits.dbPoolMax}`);
    const hot = await run(batcher, accounts.slice(0, 1));
    console.log(`  hot account:   ${hot.perSecond} holds/s  p50 ${hot.p50.toFixed(1)} ms  p99 ${hot.p99.toFixed(1)} ms  (${hot.count} holds)`);
    const many = await run(batcher, accounts);
    console.log(`  100 accounts:  ${many.perSecond} holds/s  p50 ${many.p50.toFixed(1)} ms  p99 ${many.p99.toFixed(1)} ms  (${many.count} holds)`);
    const violations = await ledgerInvariantViolations(ctx.db);
    if (violations.length) throw new Error(`ledger invariants broken: ${JSON.stringify(violations.slice(0, 5))}`);
    console.log('  invariants: hold after the run');
    console.log(
      `ledger hot_holds_per_s=${hot.perSecond} many_holds_per_s=${many.perSecond} hot_p99_ms=${hot.p99.toFixed(1)} many_p99_ms=${many.p99.toFixed(1)}`,
    );
  } finally {
    await ctx.db.close();
    await db.drop();
  }
}
