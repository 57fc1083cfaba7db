import { execFileSync, type ChildProcess } from 'node:child_process';
import { pino } from 'pino';
import { loadConfig } from '../src/config.js';
import { createWorkspace } from '../src/modules/accounts/accounts.service.js';
import { updateWorkspace } from '../src/modules/accounts/accounts.repository.js';
import { createCredential } from '../src/modules/auth/credentials.service.js';
import { createBeneficiary } from '../src/modules/beneficiaries/beneficiaries.service.js';
import { moveFromSystem } from '../src/modules/ledger/funding.service.js';
import { openContext } from '../src/runtime.js';
import { Pool } from 'undici';
import { freePort, startCorridor } from '../test/helpers/processes.js';
import { freshBenchDatabase, percentile } from './run.js';

const CONNECTIONS = 50;
const DURATION_S = Number(process.env.BENCH_DURATION_S || 20);
const WORKSPACES = 100;

interface Payer {
  token: string;
  beneficiaryId: string;
}

function startServer(env: NodeJS.ProcessEnv, base: string): Promise<ChildProcess> {
  const nodeArgs = process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : [];
  return startCorridor(['start', '--role', 'api'], env, base, { nodeArgs });
}

/**
 * The load generator: CONNECTIONS keep-alive connections, each sending one payout (a new clientRef,
 * the next payer in turn) and waiting for its answer before the next, for DURATION_S. Every request
 * sent is answered before the count is taken, so the 201s can be compared with the rows written.
 */
async function load(base: string, payers: Payer[], label: string): Promise<{ perSecond: number; p50: number; p99: number; created: number; refused: Map<string, number> }> {
  const pool = new Pool(base, { connections: CONNECTIONS, pipelining: 1 });
  const latencies: number[] = [];
  const refused = new Map<string, number>();
  let created = 0;
  let n = 0;
  const started = performance.now();
  const until = started + DURATION_S * 1000;
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async () => {
      while (performance.now() < until) {
        const i = n++;
        const payer = payers[i % payers.length] as Payer;
        const t0 = performance.now();
        const res = await pool.request({
          path: '/v1/payouts',
          method: 'POST',
          headers: { authorization: `Bearer ${payer.token}`, 'content-type': 'application/json' },
          body: JSON.stringify({ clientRef: `${label}-${i}`, amount: '1.00', currency: 'EUR', beneficiary: { id: payer.beneficiaryId } }),
        });
        const text = await res.body.text();
        latencies.push(performance.now() - t0);
        if (res.statusCode === 201) created++;
        else {
          const key = `${res.statusCode} ${text.slice(0, 120)}`;
          refused.set(key, (refused.get(key) ?? 0) + 1);
        }
      }
    }),
  );
  const elapsedS = (performance.now() - started) / 1000;
  await pool.close();
  latencies.sort((a, b) => a - b);
  return { perSecond: Math.round(created / elapsedS), p50: Math.round(percentile(latencies, 50)), p99: Math.round(percentile(latencies, 99)), created, refused };
}

function pgbenchTps(url: string): number {
  const env = { ...process.env };
  execFileSync('pgbench', ['-i', '-q', '-s', '10', url], { env, stdio: 'ignore' });
  const out = execFileSync('pgbench', ['-c', '8', '-j', '2', '-T', '20', url], { env, encoding: 'utf8' });
  const match = /tps = ([0-9.]+)/.exec(out);
  if (!match?.[1]) throw new Error(`pgbench printed no tps:\n${out}`);
  return Math.round(Number(match[1]));
}

export async function payoutsBench(): Promise<void> {
  const db = await freshBenchDatabase();
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATABASE_URL: db.url,
    CORRIDOR_DATA_DIR: 'memory://',
    CORRIDOR_ENCRYPTION_KEY: Buffer.alloc(32, 9).toString('base64'),
    CORRIDOR_ENV: 'sandbox',
    PORT: String(port),
    HOST: '127.0.0.1',
    LOG_LEVEL: 'warn',
    RATE_LIMIT_PER_SECOND: '100000000',
    TOKEN_RATE_LIMIT_PER_MINUTE: '100000',
  };
  const ctx = await openContext(loadConfig(env), pino({ level: 'warn' }));
  let server: ChildProcess | undefined;
  try {
    const credentials: { clientId: string; clientSecret: string; beneficiaryId: string }[] = [];
    for (let i = 0; i <= WORKSPACES; i++) {
      credentials.push(
        await ctx.db.tx(async (tx) => {
          const ws = await createWorkspace(tx, { name: `Bench ${i}`, country: 'GB' });
          await updateWorkspace(tx, ws.id, { settings: { businessIdentity: { companyName: `Bench ${i} Ltd`, country: 'GB' } } });
          await moveFromSystem(tx, { workspaceId: ws.id, accountId: ws.id, currency: 'EUR', amountMinor: 10n ** 12n, system: 'sandbox_funding', reference: { type: 'funding' } });
          const b = await createBeneficiary(tx, { workspaceId: ws.id, subAccountId: undefined }, { type: 'individual', name: 'Ada Lovelace', country: 'DE', accounts: [{ type: 'iban', currency: 'EUR', data: { iban: 'DE89370400440532013000' } }] });
          const cred = await createCredential(tx, ctx.box, ws.id, { scopes: ['write:payouts'] });
          return { ...cred, beneficiaryId: b.id };
        }),
      );
    }
    server = await startServer(env, base);
    const payers: Payer[] = [];
    for (const c of credentials) {
      const res = await fetch(`${base}/oauth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ client_id: c.clientId, client_secret: c.clientSecret, audience: 'corridor-api', grant_type: 'client_credentials' }),
      });
      payers.push({ token: ((await res.json()) as { access_token: string }).access_token, beneficiaryId: c.beneficiaryId });
    }
    console.log(`payouts: ${CONNECTIONS} connections, ${DURATION_S} s per case, HTTP to one API process, PostgreSQL on this machine`);
    const hot = await load(base, payers.slice(0, 1), 'hot');
    console.log(`  one workspace:  ${hot.perSecond} payouts/s  p50 ${hot.p50} ms  p99 ${hot.p99} ms  (${hot.created} created)`);
    for (const [why, count] of hot.refused) console.log(`    refused ${count}× ${why}`);
    const many = await load(base, payers.slice(1), 'many');
    console.log(`  100 workspaces: ${many.perSecond} payouts/s  p50 ${many.p50} ms  p99 ${many.p99} ms  (${many.created} created)`);
    for (const [why, count] of many.refused) console.log(`    refused ${count}× ${why}`);
    const [counts] = await ctx.db.query<{ payouts: number; holds: number }>(
      `SELECT (SELECT count(*)::int FROM payouts) AS payouts,
              (SELECT count(*)::int FROM ledger_transfers WHERE reference_type = 'payout' AND two_phase) AS holds`,
    );
    const created = hot.created + many.created;
    console.log(`  afterwards: ${counts?.payouts} payouts, ${counts?.holds} holds, ${created} answered 201`);
    if (counts?.payouts !== created || counts.holds !== created) throw new Error('payouts and holds must equal the 201 answers');
    server.kill('SIGTERM');
    server = undefined;
    const tps = pgbenchTps(db.url);
    console.log(`  pgbench TPC-B (scale 10, 8 clients, 20 s) on the same PostgreSQL: ${tps} tps`);
    console.log(`payouts hot_per_s=${hot.perSecond} many_per_s=${many.perSecond} p99_ms=${hot.p99} tpcb_tps=${tps} ratio=${(hot.perSecond / tps).toFixed(2)}`);
  } finally {
    server?.kill('SIGKILL');
    await ctx.db.close();
    await db.drop();
  }
}
