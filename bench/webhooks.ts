import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { loadConfig } from '../src/platform/config.js';
import type { AppContext } from '../src/platform/context.js';
import { createWorkspace } from '../src/domains/accounts/accounts.service.js';
import { recordEvent } from '../src/domains/events/events.service.js';
import { WebhookEngine } from '../src/domains/webhooks/delivery-engine.js';
import { createEndpoint } from '../src/domains/webhooks/webhooks.service.js';
import { openContext } from '../src/runtime.js';
import { generateTestPki } from '../support/test-pki.js';
import { benchSize, databaseCpuMs, freshBenchDatabase, ownCpuMs, percentile, sustainableOnCores } from './measure.js';
import { Receiver } from './receiver.js';

const BACKLOG = benchSize('BENCH_WEBHOOK_BACKLOG', 20_000, 200);
const LOAD_DURATION_MS = benchSize('BENCH_DURATION_MS', 10_000, 1000);
const LOAD_EVENTS_PER_S = benchSize('BENCH_WEBHOOK_LOAD_PER_S', 200, 40);
const PRODUCERS = 20;
const now = () => performance.timeOrigin + performance.now();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const payoutData = (i: number) => ({ id: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`, clientRef: `bench-${i}`, amount: '125.50', currency: 'EUR', status: 'paid', completedAt: new Date().toISOString() });

/** CPU milliseconds used so far by this process, the receiver and the database's server processes. */
async function cpuMs(ctx: AppContext, receiver: Receiver): Promise<{ engine: number; receiver: number; database: number }> {
  return { engine: ownCpuMs(), receiver: (await receiver.ask<{ ms: number }>({ type: 'cpu' })).ms, database: await databaseCpuMs(ctx.db) };
}

/** True once every event is dispatched and no delivery is pending (both read from partial indexes, cheap). */
async function allDelivered(ctx: AppContext): Promise<boolean> {
  const [row] = await ctx.db.query<{ done: boolean }>(
    `SELECT NOT EXISTS (SELECT 1 FROM event_outbox)
        AND NOT EXISTS (SELECT 1 FROM webhook_deliveries WHERE status = 'pending') AS done`,
  );
  return row?.done ?? false;
}

/** Drain: a backlog of BACKLOG events, recorded while no worker runs, then one engine delivers them. */
async function drain(ctx: AppContext, workspaceId: string, receiver: Receiver): Promise<{ perSecond: number; seconds: number; cpuMsPerDelivery: { engine: number; receiver: number; database: number } }> {
  for (let i = 0; i < BACKLOG; i += 1000) {
    await ctx.db.tx(async (tx) => {
      for (let j = i; j < Math.min(i + 1000, BACKLOG); j++) await recordEvent(tx, { workspaceId, type: 'payout.paid', data: payoutData(j) });
    });
  }
  const engine = new WebhookEngine(ctx);
  const cpuBefore = await cpuMs(ctx, receiver);
  const started = now();
  engine.start();
  while (!(await allDelivered(ctx))) await sleep(20);
  const seconds = (now() - started) / 1000;
  const cpuAfter = await cpuMs(ctx, receiver);
  await engine.stop();
  const per = (k: 'engine' | 'receiver' | 'database') => (cpuAfter[k] - cpuBefore[k]) / BACKLOG;
  return { perSecond: Math.round(BACKLOG / seconds), seconds, cpuMsPerDelivery: { engine: per('engine'), receiver: per('receiver'), database: per('database') } };
}

/**
 * Lag: PRODUCERS callers commit payout-like events at LOAD_EVENTS_PER_S in all for LOAD_DURATION_MS,
 * each noting its commit time; the receiver notes each event's first arrival.
 */
async function lag(ctx: AppContext, workspaceId: string, receiver: Receiver): Promise<{ p50: number; p99: number; max: number; count: number }> {
  const engine = new WebhookEngine(ctx);
  engine.start();
  const committed = new Map<string, number>();
  const intervalMs = (1000 * PRODUCERS) / LOAD_EVENTS_PER_S;
  const until = now() + LOAD_DURATION_MS;
  let n = BACKLOG;
  await Promise.all(
    Array.from({ length: PRODUCERS }, async (_, p) => {
      await sleep((p * intervalMs) / PRODUCERS);
      for (let next = now(); next < until; next += intervalMs) {
        await sleep(Math.max(0, next - now()));
        const id = await ctx.db.tx(async (tx) => {
          await tx.query('SELECT pg_sleep(0.001)'); // the rest of a payout's transaction
          return recordEvent(tx, { workspaceId, type: 'payout.processing', data: payoutData(n++) });
        });
        committed.set(id, now());
      }
    }),
  );
  const ids = [...committed.keys()];
  const deadline = now() + 30_000;
  let arrivals: (number | null)[] = [];
  for (;;) {
    arrivals = (await receiver.ask<{ arrivals: (number | null)[] }>({ type: 'arrivals', ids })).arrivals;
    if (arrivals.every((a) => a !== null) || now() > deadline) break;
    await sleep(100);
  }
  await engine.stop();
  const missing = arrivals.filter((a) => a === null).length;
  if (missing) throw new Error(`${missing} of ${ids.length} events never arrived`);
  const lags = ids.map((id, i) => (arrivals[i] as number) - (committed.get(id) as number)).sort((a, b) => a - b);
  return { p50: percentile(lags, 50), p99: percentile(lags, 99), max: lags[lags.length - 1] ?? 0, count: lags.length };
}

export async function webhooksBench(): Promise<void> {
  const db = await freshBenchDatabase();
  const pkiDir = fs.mkdtempSync(path.join(os.tmpdir(), 'corridor-bench-pki-'));
  const pki = generateTestPki(pkiDir);
  const receiver = await Receiver.start(pki.certFile, pki.keyFile);
  const config = loadConfig({
    ...process.env,
    DATABASE_URL: db.url,
    CORRIDOR_DATA_DIR: 'memory://',
    CORRIDOR_ENCRYPTION_KEY: Buffer.alloc(32, 7).toString('base64'),
    LOG_LEVEL: 'warn',
    WEBHOOK_CA_FILE: pki.caFile,
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
  });
  const ctx = await openContext(config, pino({ level: 'warn' }));
  try {
    const workspaceId = await ctx.db.tx(async (tx) => {
      const ws = await createWorkspace(tx, { name: 'Bench', country: 'DE' });
      await createEndpoint(tx, ctx.box, { allowPrivateNetworks: true, urlLengthMax: 2048, endpointsMax: 20 }, { workspaceId: ws.id }, {
        url: `https://localhost:${receiver.port}/webhooks`,
      });
      return ws.id;
    });
    console.log(
      `webhooks: one HTTPS endpoint in another process, PostgreSQL, per-endpoint concurrency ${config.webhookEndpointConcurrency}, in flight max ${config.webhookInFlightMax}`,
    );
    const backlog = await drain(ctx, workspaceId, receiver);
    console.log(`  backlog of ${BACKLOG} events delivered in ${backlog.seconds.toFixed(2)} s: ${backlog.perSecond} deliveries/s`);
    const cpu = backlog.cpuMsPerDelivery;
    const cpuTotal = cpu.engine + cpu.receiver + cpu.database;
    console.log(
      `  CPU per delivery: engine ${cpu.engine.toFixed(3)} ms, receiver ${cpu.receiver.toFixed(3)} ms, PostgreSQL ${cpu.database.toFixed(3)} ms; ` +
        `all three on ${os.cpus().length} idle cores could sustain about ${sustainableOnCores(cpuTotal)} deliveries/s`,
    );
    const load = await lag(ctx, workspaceId, receiver);
    console.log(
      `  ${LOAD_EVENTS_PER_S} payout events/s from ${PRODUCERS} producers for ${LOAD_DURATION_MS / 1000} s: commit to first attempt p50 ${load.p50.toFixed(1)} ms  p99 ${load.p99.toFixed(1)} ms  max ${load.max.toFixed(1)} ms  (${load.count} events)`,
    );
    const counted = await receiver.ask<{ requests: number; unique: number }>({ type: 'count' });
    const [succeeded] = await ctx.db.query<{ n: number }>("SELECT count(*)::int AS n FROM webhook_deliveries WHERE status = 'succeeded'");
    console.log(`  receiver: ${counted.requests} requests, ${counted.unique} distinct events; ${succeeded?.n} deliveries recorded as succeeded`);
    console.log(`webhooks deliveries_per_s=${backlog.perSecond} lag_p50_ms=${Math.round(load.p50)} lag_p99_ms=${Math.round(load.p99)}`);
  } finally {
    receiver.stop();
    await ctx.db.close();
    await db.drop();
    fs.rmSync(pkiDir, { recursive: true, force: true });
  }
}
