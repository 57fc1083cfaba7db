import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { Pool } from 'undici';
import { loadConfig } from '../src/platform/config.js';
import type { AppContext } from '../src/platform/context.js';
import { createWorkspace } from '../src/domains/accounts/accounts.service.js';
import { changeWorkspace } from '../src/domains/accounts/accounts.service.js';
import { createCredential } from '../src/domains/auth/credentials.service.js';
import { createBeneficiary } from '../src/domains/beneficiaries/beneficiaries.service.js';
import { moveFromSystem } from '../src/domains/ledger/funding.service.js';
import { createEndpoint } from '../src/domains/webhooks/webhooks.service.js';
import { openContext } from '../src/runtime.js';
import { CORRIDOR_BIN, freePort, startCorridor } from '../support/processes.js';
import { generateTestPki } from '../support/test-pki.js';
import { benchSize, databaseCpuMs, freshBenchDatabase, ownCpuMs, percentile, processCpuMs, smoke, sustainableOnCores, type BenchDb } from './measure.js';
import { BENCH_QUERY, enableStatements, readCounters, readStatements, resetStatements, statementTable, writesTable } from './statements.js';
import { Receiver } from './receiver.js';
import { bankConnectorsFile, BANK_SIM_INTERVAL_MS, CUTOFF, otlpReceiver, POLL_SECONDS, SCRAPE_MS, scraper, startBankSim } from './production-path.js';

const CONNECTIONS = 50;
const DURATION_S = benchSize('BENCH_DURATION_S', 20, 1);
/** Sustained case: load before the measured window, so the pipeline is full when it starts. */
const WARMUP_S = benchSize('BENCH_WARMUP_S', 10, 0);
/** Sustained case: the sandbox provider's step, so payouts reach `paid` within the run. */
const SANDBOX_STEP_MS = Number(process.env.BENCH_SANDBOX_STEP_MS || 100);
/** Sustained case: payouts created but not yet seen paid at the receiver, past which the load generator waits. */
const UNPAID_MAX = Number(process.env.BENCH_UNPAID_MAX || 1000);
export const WORKSPACES = benchSize('BENCH_WORKSPACES', 100, 2);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface Payer {
  token: string;
  beneficiaryId: string;
}

interface LoadResult {
  perSecond: number;
  p50: number;
  p99: number;
  created: number;
  refused: Map<string, number>;
}

function startServer(env: NodeJS.ProcessEnv, base: string): Promise<ChildProcess> {
  const nodeArgs = process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : [];
  return startCorridor(['start', '--role', 'api'], env, base, { nodeArgs, readyTimeoutMs: 300_000 }); // a loaded machine can take minutes
}

/** `corridor start --role worker` (job runner and webhook engine), resolved once it says it is running. */
export function startWorker(env: NodeJS.ProcessEnv): Promise<ChildProcess> {
  const child = spawn(process.execPath, [CORRIDOR_BIN, 'start', '--role', 'worker'], { env, stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString('utf8');
      if (out.includes('is running')) resolve(child);
    });
    child.once('exit', (code) => reject(new Error(`worker exited with ${code}`)));
  });
}

/**
 * The load generator: CONNECTIONS keep-alive connections, each sending one payout (a new clientRef
 * and its own Idempotency-Key, the next payer in turn) and waiting for its answer before the next,
 * for durationS, the connections spread over the API processes at `base`, on `route` when given (else the one Corridor picks). Before each request it waits while `gate` says no. `live.created` counts the 201s
 * as they come. Every request sent is answered before the count is taken, so the 201s can be
 * compared with the rows written.
 */
async function load(base: string | string[], payers: Payer[], label: string, durationS: number, gate?: () => boolean, live = { created: 0 }, route?: string): Promise<LoadResult> {
  const bases = Array.isArray(base) ? base : [base];
  const pools = bases.map((b) => new Pool(b, { connections: Math.ceil(CONNECTIONS / bases.length), pipelining: 1 }));
  const tally = new Tally(live);
  let n = 0;
  const started = performance.now();
  const until = started + durationS * 1000;
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async (_, c) => {
      const pool = pools[c % pools.length] as Pool;
      while (performance.now() < until) {
        if (gate && !gate()) {
          await sleep(2);
          continue;
        }
        const i = n++;
        const t0 = performance.now();
        tally.answered(t0, await createPayout(pool, payers[i % payers.length] as Payer, `${label}-${i}`, route));
      }
    }),
  );
  await Promise.all(pools.map((p) => p.close()));
  return tally.result(started);
}

/** The answers of a case: latencies, 201s and refusals by status and text. */
class Tally {
  private readonly latencies: number[] = [];
  readonly refused = new Map<string, number>();
  constructor(readonly live = { created: 0 }) {}

  /** An answer to a request whose clock started at `t0` (when it was sent, or when a paced load meant to send it). */
  answered(t0: number, answer: { status: number; text: string }): void {
    this.latencies.push(performance.now() - t0);
    if (answer.status === 201) this.live.created++;
    else {
      const key = `${answer.status} ${answer.text.slice(0, 120)}`;
      this.refused.set(key, (this.refused.get(key) ?? 0) + 1);
    }
  }

  result(started: number): LoadResult {
    const elapsedS = (performance.now() - started) / 1000;
    this.latencies.sort((a, b) => a - b);
    const { created } = this.live;
    return { perSecond: Math.round(created / elapsedS), p50: Math.round(percentile(this.latencies, 50)), p99: Math.round(percentile(this.latencies, 99)), created, refused: this.refused };
  }
}

/** One payout of 1.00 EUR to the payer's beneficiary, `key` its clientRef and Idempotency-Key, as an integrator sends it. */
async function createPayout(pool: Pool, payer: Payer, key: string, route?: string): Promise<{ status: number; text: string }> {
  const res = await pool.request({
    path: '/v1/payouts',
    method: 'POST',
    headers: { authorization: `Bearer ${payer.token}`, 'content-type': 'application/json', 'idempotency-key': key },
    body: JSON.stringify({ clientRef: key, amount: '1.00', currency: 'EUR', ...(route ? { route } : {}), beneficiary: { id: payer.beneficiaryId } }),
  });
  return { status: res.statusCode, text: await res.body.text() };
}

/**
 * An open-loop load: payouts sent at `ratePerS`, the i-th due at i / ratePerS seconds from the start
 * whether or not earlier ones were answered (as integrators' requests arrive), over up to CONNECTIONS
 * connections. Each latency counts from the request's due time, not from when a free connection sent
 * it, so a server that falls behind shows its queue in the figures (no coordinated omission).
 */
async function paced(base: string, payers: Payer[], label: string, ratePerS: number, durationS: number): Promise<LoadResult> {
  const pool = new Pool(base, { connections: CONNECTIONS, pipelining: 1 });
  const tally = new Tally();
  const started = performance.now();
  const total = Math.max(1, Math.round(ratePerS * durationS));
  const sent: Promise<void>[] = [];
  for (let i = 0; i < total; i++) {
    const due = started + (i * 1000) / ratePerS;
    const wait = due - performance.now();
    if (wait > 0) await sleep(wait);
    sent.push(createPayout(pool, payers[i % payers.length] as Payer, `${label}-${i}`).then((answer) => tally.answered(due, answer)));
  }
  await Promise.all(sent);
  await pool.close();
  return tally.result(started);
}

/**
 * Creation's latency on one workspace at a steady arrival rate, half the rate the closed-loop case
 * reached (a server run at its limit queues every request, and its p99 is its queue, not its cost).
 */
async function pacedCreation(base: string, payer: Payer, closedLoopPerS: number): Promise<LoadResult & { rate: number }> {
  const rate = Math.max(1, Math.round(closedLoopPerS / 2));
  const r = await paced(base, [payer], 'paced', rate, DURATION_S);
  console.log(`  creation, one workspace, paced at ${rate}/s (half the closed-loop rate; latency from each request's due time): p50 ${r.p50} ms  p99 ${r.p99} ms  (${r.created} created)`);
  for (const [why, count] of r.refused) console.log(`    refused ${count}× ${why}`);
  return { ...r, rate };
}

/** pgbench's TPC-B reference figure (scale 10, 8 clients, 20 s; scale 1 for 1 s in a smoke run). */
const PGBENCH = smoke ? { scale: '1', seconds: '1' } : { scale: '10', seconds: '20' };

/** The pgbench binary: PGBENCH_BIN, else PostgreSQL 15's where Debian puts it, else the PATH's. */
function pgbenchBin(): string {
  if (process.env.PGBENCH_BIN) return process.env.PGBENCH_BIN;
  const debian = '/usr/lib/postgresql/15/bin/pgbench';
  return fs.existsSync(debian) ? debian : 'pgbench';
}

/** TPC-B in a scratch database of its own on the same server (initialised, run, dropped), through the same transport. */
export async function pgbenchTps(): Promise<number> {
  const scratch = await freshBenchDatabase();
  try {
    const url = transportUrl(scratch.url);
    const env = { ...process.env };
    execFileSync(pgbenchBin(), ['-i', '-q', '-s', PGBENCH.scale, url], { env, stdio: 'ignore' });
    const out = execFileSync(pgbenchBin(), ['-c', '8', '-j', '2', '-T', PGBENCH.seconds, url], { env, encoding: 'utf8' });
    const match = /tps = ([0-9.]+)/.exec(out);
    if (!match?.[1]) throw new Error(`pgbench printed no tps:\n${out}`);
    return Math.round(Number(match[1]));
  } finally {
    await scratch.drop();
  }
}

/** The same database through the Unix socket in BENCH_DATABASE_SOCKET (a directory), when set. */
export function transportUrl(tcpUrl: string): string {
  const socketDir = process.env.BENCH_DATABASE_SOCKET;
  if (!socketDir) return tcpUrl;
  const url = new URL(tcpUrl);
  return `postgres://${url.username}@${url.pathname}?host=${socketDir}`;
}

export type Cpu = Record<'api' | 'workers' | 'database' | 'receiver' | 'client', number>;

const cpuPer = (after: Cpu, before: Cpu, units: number): Cpu => ({
  api: (after.api - before.api) / units,
  workers: (after.workers - before.workers) / units,
  database: (after.database - before.database) / units,
  receiver: (after.receiver - before.receiver) / units,
  client: (after.client - before.client) / units,
});

function printCpu(label: string, cpu: Cpu, withWorkers: boolean): void {
  const serving = cpu.api + (withWorkers ? cpu.workers : 0) + cpu.database;
  console.log(
    `    CPU per payout${label}: API ${cpu.api.toFixed(3)} ms, ` +
      (withWorkers ? `workers ${cpu.workers.toFixed(3)} ms, ` : '') +
      `PostgreSQL ${cpu.database.toFixed(3)} ms (load generator ${cpu.client.toFixed(3)} ms` +
      (withWorkers ? `, webhook receiver ${cpu.receiver.toFixed(3)} ms` : '') +
      `); ${withWorkers ? 'API, workers and PostgreSQL' : 'API and PostgreSQL'} on ${os.cpus().length} idle cores could sustain about ${sustainableOnCores(serving)} payouts/s`,
  );
}

/**
 * Creation: the API process alone (no worker runs), HTTP load for DURATION_S; where the server
 * preloads pg_stat_statements, PostgreSQL's work per created payout statement by statement (reset at
 * the case's start), and in any case the transactions and row and index writes per created payout.
 */
export async function creation(ctx: AppContext, cpuNow: () => Promise<Cpu>, base: string, payers: Payer[], label: string, title: string, statements: boolean, route?: string): Promise<LoadResult> {
  if (statements) await resetStatements(ctx.db);
  const countersStart = await readCounters(ctx.db);
  const before = await cpuNow();
  const r = await load(base, payers, label, DURATION_S, undefined, undefined, route);
  const cpu = cpuPer(await cpuNow(), before, r.created);
  const rows = statements ? await readStatements(ctx.db) : [];
  const countersEnd = await readCounters(ctx.db);
  console.log(`  ${title} ${r.perSecond} payouts/s  p50 ${r.p50} ms  p99 ${r.p99} ms  (${r.created} created)`);
  for (const [why, count] of r.refused) console.log(`    refused ${count}× ${why}`);
  printCpu('', cpu, false);
  if (r.created > 0) {
    console.log(`    PostgreSQL's work per created payout (${r.created} created; counts, not times, are comparable across machines and loads):`);
    if (statements) for (const line of statementTable(rows, r.created)) console.log(`      ${line}`);
    for (const line of writesTable(countersStart, countersEnd, r.created)) console.log(`      ${line}`);
  }
  return r;
}

interface Backlog {
  unpaid: number;
  dueJobs: number;
  pendingJobs: number;
  undispatched: number;
}

/** The payouts a step job names (a job names several, or one in its `payoutId` for a job of an earlier version). */
const STEP_PAYOUTS = `COALESCE(jsonb_array_length(payload->'payoutIds'), 1)`;

/** Payouts of the sustained case not yet paid (or failed), payouts whose step is due now and pending, events not yet dispatched. */
async function backlogOf(ctx: AppContext, since: Date): Promise<Backlog> {
  const [row] = await ctx.db.query<Backlog>(
    `${BENCH_QUERY} SELECT (SELECT count(*)::int FROM payouts WHERE status IN ('created', 'queued', 'processing') AND created_at >= $1) AS unpaid,
            (SELECT COALESCE(sum(${STEP_PAYOUTS}), 0)::int FROM jobs WHERE kind = 'payout.step' AND run_at <= now()) AS "dueJobs",
            (SELECT COALESCE(sum(${STEP_PAYOUTS}), 0)::int FROM jobs WHERE kind = 'payout.step') AS "pendingJobs",
            (SELECT count(*)::int FROM event_outbox) AS undispatched`,
    [since],
  );
  return row as Backlog;
}

export interface Sustained {
  perSecond: number;
  p99: number;
  /** The backlog of unpaid payouts grew over the window by more than a tenth of BENCH_UNPAID_MAX. */
  growing: boolean;
  /** 201 answers of the whole case (warm-up included). */
  created: number;
  refused: number;
  /** `payout.paid` received over the whole case (warm-up included). */
  paid: number;
}

/**
 * Sustained: API and worker processes together over WORKSPACES workspaces, each with a webhook
 * endpoint at the local HTTPS receiver. The load generator keeps at most UNPAID_MAX payouts between
 * its 201 and the receiver's `payout.paid`, so the backlog is bounded by construction; the figure is
 * `payout.paid` events of its own payouts (clientRef `<label>-<n>`) received per second over DURATION_S after WARMUP_S, with the backlog at the
 * window's start and end printed to show whether it grows. Over the same window, where the server
 * preloads pg_stat_statements, PostgreSQL's work per paid payout statement by statement (reset at the
 * window's start), and in any case the transactions and row and index writes per paid payout.
 */
export async function sustained(
  ctx: AppContext,
  cpuNow: () => Promise<Cpu>,
  bases: string[],
  payers: Payer[],
  receiver: Receiver,
  options: { title: string; label: string; statements: boolean; route?: string; stepMs?: string },
): Promise<Sustained> {
  const since = new Date();
  // Only this case's payouts (their clientRef carries its label): a payout of an earlier case paid late is not counted.
  const paidSeen = async () => (await receiver.ask<{ byLabel: Record<string, number> }>({ type: 'count' })).byLabel[`payout.paid ${options.label}`] ?? 0;
  const paidAtStart = await paidSeen();
  let paid = 0;
  let polling = true;
  const poller = (async () => {
    while (polling) {
      paid = (await paidSeen()) - paidAtStart;
      await sleep(50);
    }
  })();
  const live = { created: 0 };
  const loading = load(bases, payers, options.label, WARMUP_S + DURATION_S, () => live.created - paid < UNPAID_MAX, live, options.route);
  await sleep(WARMUP_S * 1000);
  const startBacklog = await backlogOf(ctx, since);
  if (options.statements) await resetStatements(ctx.db);
  const countersStart = await readCounters(ctx.db);
  const startPaid = paid;
  const startCreated = live.created;
  const cpuStart = await cpuNow();
  const t0 = performance.now();
  await sleep(DURATION_S * 1000);
  const windowS = (performance.now() - t0) / 1000;
  const paidInWindow = paid - startPaid;
  const cpu = cpuPer(await cpuNow(), cpuStart, paidInWindow);
  const statements = options.statements ? await readStatements(ctx.db) : [];
  const countersEnd = await readCounters(ctx.db);
  const endBacklog = await backlogOf(ctx, since);
  const endCreated = live.created;
  const r = await loading;
  polling = false;
  await poller;
  const perSecond = Math.round(paidInWindow / windowS);
  console.log(
    `  ${options.title} (${options.stepMs ?? `SANDBOX_STEP_MS=${SANDBOX_STEP_MS}`}, webhooks to a local HTTPS receiver): ` +
      `${perSecond} payouts/s reaching paid (payout.paid received) over ${windowS.toFixed(1)} s after ${WARMUP_S} s warm-up; ` +
      `${Math.round((endCreated - startCreated) / windowS)} created/s in the window; creation p99 ${r.p99} ms`,
  );
  for (const [why, count] of r.refused) console.log(`    refused ${count}× ${why}`);
  const show = (b: Backlog) => `${b.unpaid} unpaid payouts, ${b.dueJobs} payouts with a step due (${b.pendingJobs} pending), ${b.undispatched} undispatched events`;
  console.log(`    backlog at window start: ${show(startBacklog)}`);
  const growing = endBacklog.unpaid - startBacklog.unpaid > UNPAID_MAX / 10;
  console.log(`    backlog at window end:   ${show(endBacklog)} (${growing ? 'growing: not a steady state' : 'steady'})`);
  printCpu('', cpu, true);
  if (paidInWindow > 0) {
    console.log(`    PostgreSQL's work per paid payout over the window (${paidInWindow} paid; counts, not times, are comparable across machines and loads):`);
    if (options.statements) for (const line of statementTable(statements, paidInWindow)) console.log(`      ${line}`);
    for (const line of writesTable(countersStart, countersEnd, paidInWindow)) console.log(`      ${line}`);
  }
  return { perSecond, p99: r.p99, growing, created: r.created, refused: [...r.refused.values()].reduce((a, b) => a + b, 0), paid };
}

export interface BenchSetup {
  db: BenchDb;
  ctx: AppContext;
  env: NodeJS.ProcessEnv;
  receiver: Receiver;
  /** One payer per workspace: the first for the hot case, the others spread. */
  credentials: { clientId: string; clientSecret: string; beneficiaryId: string }[];
  /** pg_stat_statements could be turned on in the benchmark's database. */
  statements: boolean;
  close: () => Promise<void>;
}

/**
 * A fresh database with WORKSPACES + 1 funded workspaces, each with a saved beneficiary, a webhook
 * endpoint at the receiver (another process) and an API credential; the environment of the
 * Corridor processes (extra settings added), and pg_stat_statements where the server preloads it.
 */
export async function setUp(extraEnv: NodeJS.ProcessEnv = {}): Promise<BenchSetup> {
  const db = await freshBenchDatabase();
  const pkiDir = fs.mkdtempSync(path.join(os.tmpdir(), 'corridor-bench-pki-'));
  const pki = generateTestPki(pkiDir);
  const receiver = await Receiver.start(pki.certFile, pki.keyFile);
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATABASE_URL: transportUrl(db.url),
    CORRIDOR_DATA_DIR: 'memory://',
    CORRIDOR_ENCRYPTION_KEY: Buffer.alloc(32, 9).toString('base64'),
    CORRIDOR_ENV: 'sandbox',
    HOST: '127.0.0.1',
    // One issuer for every API process, as behind a load balancer: a token from one is good at all.
    PUBLIC_BASE_URL: 'http://corridor.bench',
    LOG_LEVEL: 'warn',
    RATE_LIMIT_PER_SECOND: '100000000',
    TOKEN_RATE_LIMIT_PER_MINUTE: '100000',
    SANDBOX_STEP_MS: String(SANDBOX_STEP_MS),
    JOB_POLL_MS: '50',
    WEBHOOK_CA_FILE: pki.caFile,
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
    ...extraEnv,
  };
  const ctx = await openContext(loadConfig(env), pino({ level: 'warn' }));
  const close = async () => {
    receiver.stop();
    await ctx.db.close();
    await db.drop();
    fs.rmSync(pkiDir, { recursive: true, force: true });
  };
  try {
    const enabled = await enableStatements(ctx.db);
    if (!enabled.ok) console.log(`  pg_stat_statements is not available on this server (${enabled.reason}): the per-statement table is left out`);
    const credentials: BenchSetup['credentials'] = [];
    for (let i = 0; i <= WORKSPACES; i++) {
      credentials.push(
        await ctx.db.tx(async (tx) => {
          const ws = await createWorkspace(tx, { name: `Bench ${i}`, country: 'GB' });
          await changeWorkspace(tx, ws.id, { settings: { businessIdentity: { companyName: `Bench ${i} Ltd`, country: 'GB' } } });
          await moveFromSystem(tx, { workspaceId: ws.id, accountId: ws.id, currency: 'EUR', amountMinor: 10n ** 12n, system: 'sandbox_funding', reference: { type: 'funding' } });
          const b = await createBeneficiary(tx, ctx.box, { workspaceId: ws.id, subAccountId: undefined }, { type: 'individual', name: 'Ada Lovelace', country: 'DE', accounts: [{ type: 'iban', currency: 'EUR', data: { iban: 'DE89370400440532013000' } }] });
          await createEndpoint(tx, ctx.box, { allowPrivateNetworks: true, urlLengthMax: 2048, endpointsMax: 20 }, { workspaceId: ws.id }, { url: `https://localhost:${receiver.port}/webhooks` });
          const cred = await createCredential(tx, ctx.box, ws.id, { scopes: ['write:payouts'] });
          return { ...cred, beneficiaryId: b.id };
        }),
      );
    }
    return { db, ctx, env, receiver, credentials, statements: enabled.ok, close };
  } catch (err) {
    await close();
    throw err;
  }
}

/** An API process on a free port: its base URL and process. */
export async function startApi(env: NodeJS.ProcessEnv): Promise<{ base: string; child: ChildProcess }> {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  return { base, child: await startServer({ ...env, PORT: String(port) }, base) };
}

/** An access token per credential, from the API at `base`. */
export async function payersOf(base: string, credentials: BenchSetup['credentials']): Promise<Payer[]> {
  const payers: Payer[] = [];
  for (const c of credentials) {
    const res = await fetch(`${base}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ client_id: c.clientId, client_secret: c.clientSecret, audience: 'corridor-api', grant_type: 'client_credentials' }),
    });
    payers.push({ token: ((await res.json()) as { access_token: string }).access_token, beneficiaryId: c.beneficiaryId });
  }
  return payers;
}

/** CPU so far of the given API and worker processes, the database's server processes, the receiver and this process. */
export function cpuReader(ctx: AppContext, receiver: Receiver, apis: () => ChildProcess[], workers: () => ChildProcess[]): () => Promise<Cpu> {
  const sum = (children: ChildProcess[]) => children.reduce((s, c) => s + processCpuMs(c.pid ?? 0), 0);
  return async () => ({
    api: sum(apis()),
    workers: sum(workers()),
    database: await databaseCpuMs(ctx.db),
    receiver: (await receiver.ask<{ ms: number }>({ type: 'cpu' })).ms,
    client: ownCpuMs(),
  });
}

export interface ProductionPath {
  hotPerSecond: number;
  hotP99: number;
  steady: Sustained;
  spans: number;
  scrapes: number;
}

/**
 * The production path (bench/production-path.ts): creation on one workspace (the API process alone),
 * then API, worker and sandbox bank together over WORKSPACES workspaces on the bank connector's
 * `sepa_credit` route, paid payouts counted at the webhook receiver as in the simulated case; each
 * process's metrics scraped and its traces exported by OTLP to a local receiver. On the database of
 * `setup`, whose earlier cases' payouts stay where they are (their step jobs removed). Throws when
 * nothing reached `paid` through the bank, no span reached the receiver, or a scrape failed.
 */
export async function productionPath(setup: BenchSetup): Promise<ProductionPath> {
  const { ctx, receiver } = setup;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'corridor-bench-bank-'));
  const otlp = await otlpReceiver();
  const apiMetrics = await freePort();
  const workerMetrics = await freePort();
  const env: NodeJS.ProcessEnv = { ...setup.env, CORRIDOR_CONNECTORS_FILE: bankConnectorsFile(dir), OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url, OTEL_SERVICE_NAME: 'corridor-bench' };
  let api: ChildProcess | undefined;
  let worker: ChildProcess | undefined;
  let bankSim: ChildProcess | undefined;
  const scraping = scraper(() => [...(api ? [apiMetrics] : []), ...(worker ? [workerMetrics] : [])].map((p) => `http://127.0.0.1:${p}/metrics`));
  try {
    const started = await startApi({ ...env, METRICS_PORT: String(apiMetrics) });
    api = started.child;
    const payers = await payersOf(started.base, setup.credentials);
    const cpuNow = cpuReader(ctx, receiver, () => (api ? [api] : []), () => (worker ? [worker] : []));
    console.log(
      `  production path: the bank connector (sepa_credit; pain.001 files cut at ${CUTOFF.maxPayouts} payouts or ${CUTOFF.maxSeconds} s, its outbox read every ${POLL_SECONDS} s) ` +
        `and its sandbox bank (corridor bank-sim in a local folder, every ${BANK_SIM_INTERVAL_MS} ms); metrics on METRICS_PORT scraped every ${SCRAPE_MS / 1000} s; ` +
        `traces exported by OTLP/HTTP to a local receiver`,
    );
    const hot = await creation(ctx, cpuNow, started.base, payers.slice(0, 1), 'bank-hot', 'creation, one workspace, traced: ', setup.statements, 'sepa_credit');
    // Each case measures its own payouts: those of the creation case wait where they are.
    await ctx.db.query(`${BENCH_QUERY} DELETE FROM jobs WHERE kind = 'payout.step'`);
    bankSim = startBankSim(path.join(dir, 'bank'));
    worker = await startWorker({ ...env, METRICS_PORT: String(workerMetrics) });
    const steady = await sustained(ctx, cpuNow, [started.base], payers.slice(1), receiver, {
      title: `sustained through the bank connector, API + worker over ${WORKSPACES} workspaces, traced`,
      label: 'bank-sustained',
      statements: setup.statements,
      route: 'sepa_credit',
      stepMs: 'pain.001 out, pain.002 and camt.054 in',
    });
    // A smoke run's window is shorter than a file's round trip, and a loaded machine's round trip can be longer than any window: the first paid payout is waited for (up to 5 minutes) before the run is failed.
    const deadline = Date.now() + 300_000;
    const paidThroughBank = async () =>
      (await ctx.db.query<{ n: number }>(`${BENCH_QUERY} SELECT count(*)::int AS n FROM payouts WHERE status = 'paid' AND client_ref LIKE 'bank-sustained-%'`))[0]?.n ?? 0;
    let paid = await paidThroughBank();
    while (paid === 0 && Date.now() < deadline) {
      await sleep(500);
      paid = await paidThroughBank();
    }
    const [files] = await ctx.db.query<{ files: number; payouts: number; upload: number }>(
      `${BENCH_QUERY} SELECT count(*)::int AS files, COALESCE(sum(nb_of_txs), 0)::int AS payouts, COALESCE(max(extract(epoch FROM delivered_at - created_at)), 0)::float AS upload FROM bank_files`,
    );
    const inbound = await ctx.db.query<{ type: string; status: string; files: number; entries: number; span: number }>(
      `${BENCH_QUERY} SELECT COALESCE(message_type, '?') AS type, status, count(*)::int AS files, sum(entries)::int AS entries, extract(epoch FROM max(received_at) - min(received_at))::float AS span
         FROM bank_inbound_files GROUP BY 1, 2 ORDER BY 1, 2`,
    );
    const states = await ctx.db.query<{ status: string; n: number }>(`${BENCH_QUERY} SELECT status, count(*)::int AS n FROM payouts WHERE client_ref LIKE 'bank-sustained-%' GROUP BY 1 ORDER BY 1`);
    console.log(
      `    the case's payouts by status: ${states.map((r) => `${r.n} ${r.status}`).join(', ')}; answers taken in: ` +
        `${inbound.map((r) => `${r.files} ${r.type} ${r.status} (${r.entries} entries, over ${r.span.toFixed(1)} s)`).join(', ')}; the slowest upload ${files?.upload.toFixed(1)} s after its file was cut`,
    );
    await sleep(1500); // the span processor exports every second
    const tally = await scraping.stop();
    console.log(
      `    ${paid} payouts paid through the bank; ${files?.files} pain.001 files carrying ${files?.payouts} payouts; ${otlp.spans()} spans in ${otlp.exports()} OTLP exports; ` +
        `${tally.ok} metrics scrapes (${Math.round(tally.bytes / Math.max(1, tally.ok) / 1024)} KiB each), ${tally.failed} failed`,
    );
    if (paid === 0) throw new Error('no payout reached paid through the bank connector');
    if (otlp.spans() === 0) throw new Error('no span reached the OTLP receiver');
    if (tally.ok === 0 || tally.failed > 0) throw new Error(`metrics scrapes: ${tally.ok} answered, ${tally.failed} failed`);
    return { hotPerSecond: hot.perSecond, hotP99: hot.p99, steady, spans: otlp.spans(), scrapes: tally.ok };
  } finally {
    await scraping.stop().catch(() => undefined);
    // The sandbox bank and the worker may still be writing in the folder: it goes once they have exited.
    await Promise.all([api, worker, bankSim].map((child) => (child ? exited(child) : undefined)));
    await otlp.close();
    fs.rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
  }
}

/** Sends SIGTERM and resolves once the process has exited (SIGKILL after 30 s). */
function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const kill = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.once('exit', () => {
      clearTimeout(kill);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

const loadAverage = () => os.loadavg().map((l) => l.toFixed(1)).join(' ');

export async function payoutsBench(): Promise<void> {
  const setup = await setUp();
  const { ctx, env, receiver } = setup;
  let server: ChildProcess | undefined;
  let worker: ChildProcess | undefined;
  try {
    const api = await startApi(env);
    server = api.child;
    const base = api.base;
    const payers = await payersOf(base, setup.credentials);
    const cpuNow = cpuReader(ctx, receiver, () => (server ? [server] : []), () => (worker ? [worker] : []));
    const transport = process.env.BENCH_DATABASE_SOCKET ? `Unix socket in ${process.env.BENCH_DATABASE_SOCKET}` : 'TCP';
    console.log(
      `payouts: ${CONNECTIONS} connections, each request with its own Idempotency-Key, ${DURATION_S} s per case, HTTP to one API process, PostgreSQL on this machine over ${transport}; load average ${loadAverage()}`,
    );
    const hot = await creation(ctx, cpuNow, base, payers.slice(0, 1), 'hot', 'creation, one workspace: ', setup.statements);
    const steadyRate = await pacedCreation(base, payers[0] as Payer, hot.perSecond);
    const many = await creation(ctx, cpuNow, base, payers.slice(1), 'many', `creation, ${WORKSPACES} workspaces:`, setup.statements);
    const [counts] = await ctx.db.query<{ payouts: number; holds: number }>(
      `${BENCH_QUERY} SELECT (SELECT count(*)::int FROM payouts) AS payouts,
              (SELECT count(*)::int FROM ledger_transfers WHERE reference_type = 'payout' AND two_phase) AS holds`,
    );
    const created = hot.created + steadyRate.created + many.created;
    console.log(`  afterwards: ${counts?.payouts} payouts, ${counts?.holds} holds, ${created} answered 201`);
    if (counts?.payouts !== created || counts.holds !== created) throw new Error('payouts and holds must equal the 201 answers');
    // The creation cases' payouts stay where they are: the sustained case measures only its own.
    await ctx.db.query(`${BENCH_QUERY} DELETE FROM jobs WHERE kind = 'payout.step'`);
    worker = await startWorker(env);
    const steady = await sustained(ctx, cpuNow, [base], payers.slice(1), receiver, {
      title: `sustained, API + worker over ${WORKSPACES} workspaces`,
      label: 'sustained',
      statements: setup.statements,
    });
    server.kill('SIGTERM');
    server = undefined;
    worker.kill('SIGTERM');
    worker = undefined;
    const bank = await productionPath(setup);
    const tps = await pgbenchTps();
    console.log(`  pgbench TPC-B (scale ${PGBENCH.scale}, 8 clients, ${PGBENCH.seconds} s) in a scratch database on the same PostgreSQL over ${transport}: ${tps} tps; load average ${loadAverage()}`);
    console.log(
      `payouts hot_per_s=${hot.perSecond} many_per_s=${many.perSecond} sustained_per_s=${steady.perSecond} p99_ms=${hot.p99} paced_per_s=${steadyRate.rate} paced_p99_ms=${steadyRate.p99} tpcb_tps=${tps} ` +
        `ratio=${(hot.perSecond / tps).toFixed(2)} sustained_ratio=${(steady.perSecond / tps).toFixed(2)} many_ratio=${(many.perSecond / tps).toFixed(2)} ` +
        `sustained_p99_ms=${steady.p99} backlog=${steady.growing ? 'growing' : 'steady'} ` +
        `bank_hot_p99_ms=${bank.hotP99} bank_hot_per_s=${bank.hotPerSecond} bank_sustained_per_s=${bank.steady.perSecond} bank_sustained_ratio=${(bank.steady.perSecond / tps).toFixed(2)} ` +
        `bank_sustained_p99_ms=${bank.steady.p99} bank_backlog=${bank.steady.growing ? 'growing' : 'steady'} spans=${bank.spans} scrapes=${bank.scrapes}`,
    );
  } finally {
    server?.kill('SIGKILL');
    worker?.kill('SIGKILL');
    await setup.close();
  }
}
