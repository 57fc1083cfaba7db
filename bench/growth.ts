import fs from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance, InjectOptions } from 'fastify';
import { pino } from 'pino';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/platform/config.js';
import type { AppContext } from '../src/platform/context.js';
import { createRunner } from '../src/jobs.js';
import { changeWorkspace } from '../src/domains/accounts/accounts.service.js';
import { createWorkspace } from '../src/domains/accounts/accounts.service.js';
import { createCredential } from '../src/domains/auth/credentials.service.js';
import { openContext } from '../src/runtime.js';
import { generateTestPki } from '../support/test-pki.js';
import { benchSize, freshBenchDatabase } from './measure.js';

const PAYOUTS = benchSize('BENCH_GROWTH_PAYOUTS', 10_000, 200);
const BATCH = 100;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));


interface TableSize {
  table: string;
  rows: number;
  bytes: number;
}

/**
 * How the database grows per million payouts (issue 14.8): PAYOUTS payouts created over HTTP in
 * batches of 100 (each request with an Idempotency-Key) to a saved beneficiary, carried to `paid`
 * by a worker (sandbox provider), every event delivered to one HTTPS endpoint; then the size of each
 * table with its indexes and TOAST (pg_total_relation_size) less its size before: after VACUUM (space
 * as allocated, dead rows' space reusable) and after VACUUM FULL (live data only).
 */
export async function growthBench(): Promise<void> {
  const db = await freshBenchDatabase();
  const pkiDir = fs.mkdtempSync(path.join(os.tmpdir(), 'corridor-growth-pki-'));
  const pki = generateTestPki(pkiDir);
  const receiver = https.createServer({ cert: fs.readFileSync(pki.certFile), key: fs.readFileSync(pki.keyFile) }, (req, res) => {
    req.resume().on('end', () => res.writeHead(200).end('ok'));
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const port = (receiver.address() as AddressInfo).port;
  const config = loadConfig({
    ...process.env,
    DATABASE_URL: db.url,
    CORRIDOR_DATA_DIR: 'memory://',
    CORRIDOR_ENCRYPTION_KEY: Buffer.alloc(32, 5).toString('base64'),
    CORRIDOR_ENV: 'sandbox',
    RATE_LIMIT_PER_SECOND: '100000000',
    TOKEN_RATE_LIMIT_PER_MINUTE: '100000',
    SANDBOX_STEP_MS: '1',
    JOB_POLL_MS: '10',
    WEBHOOK_CA_FILE: pki.caFile,
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
    LOG_LEVEL: 'warn',
  });
  const ctx = await openContext(config, pino({ level: 'warn' }));
  const app = await buildApp(ctx);
  const runner = createRunner(ctx);
  try {
    const c = await growthWorkspace(app, ctx);
    await c.request('POST', '/v1/sandbox/balances/fund', { currency: 'EUR', amount: String(PAYOUTS * 20) });
    const hook = await c.request('POST', '/v1/webhooks', { url: `https://localhost:${port}/hook` });
    if (hook.statusCode !== 201) throw new Error(hook.body);
    const beneficiaryId = (await c.request('POST', '/v1/beneficiaries', ADA)).json<{ id: string }>().id;
    await ctx.db.exec('VACUUM ANALYZE');
    const before = await tableSizes(ctx);

    runner.start();
    const started = Date.now();
    for (let i = 0; i < PAYOUTS; i += BATCH) {
      const rows = Array.from({ length: Math.min(BATCH, PAYOUTS - i) }, (_, j) => ({
        clientRef: `growth-${i + j}`,
        amount: '10.50',
        currency: 'EUR',
        beneficiary: { id: beneficiaryId },
        reference: `Invoice ${i + j}`,
        metadata: { orderId: `ord_${i + j}` },
      }));
      const res = await c.request('POST', '/v1/payouts', rows, { 'idempotency-key': `growth-${i}` });
      if (res.statusCode !== 201) throw new Error(`${res.statusCode} ${res.body.slice(0, 500)}`);
    }
    while (!(await settled(ctx))) await sleep(200);
    const seconds = (Date.now() - started) / 1000;
    await runner.stop();
    await ctx.db.exec('VACUUM ANALYZE');
    const after = await tableSizes(ctx);
    await ctx.db.exec('VACUUM FULL ANALYZE');
    const compacted = await tableSizes(ctx);

    console.log(`growth: ${PAYOUTS} payouts (batches of ${BATCH}, keyed) paid and their events delivered to 1 endpoint in ${seconds.toFixed(0)} s, PostgreSQL`);
    console.log('  table                rows/payout  bytes/payout  per million (VACUUM)  per million (VACUUM FULL)');
    const totals = { bytes: 0, compacted: 0 };
    for (const a of after) {
      const b = before.find((x) => x.table === a.table) ?? { rows: 0, bytes: 0 };
      const full = compacted.find((x) => x.table === a.table) ?? a;
      const bytes = a.bytes - b.bytes;
      const fullBytes = full.bytes - b.bytes;
      if (bytes <= 8192 && a.rows === b.rows) continue;
      totals.bytes += bytes;
      totals.compacted += fullBytes;
      console.log(
        `  ${a.table.padEnd(20)} ${((a.rows - b.rows) / PAYOUTS).toFixed(2).padStart(11)}  ${Math.round(bytes / PAYOUTS).toString().padStart(12)}  ${gib(bytes).padStart(20)}  ${gib(fullBytes).padStart(25)}`,
      );
    }
    console.log(`  ${'total'.padEnd(20)} ${''.padStart(11)}  ${Math.round(totals.bytes / PAYOUTS).toString().padStart(12)}  ${gib(totals.bytes).padStart(20)}  ${gib(totals.compacted).padStart(25)}`);
    console.log(`growth bytes_per_payout=${Math.round(totals.bytes / PAYOUTS)} gib_per_million=${((totals.bytes / PAYOUTS) * 1e6 / 2 ** 30).toFixed(2)}`);
  } finally {
    await runner.stop();
    await app.close();
    await ctx.db.close();
    await db.drop();
    receiver.close();
    fs.rmSync(pkiDir, { recursive: true, force: true });
  }
}

/** The beneficiary the payouts go to (any EUR rail pays it). */
const ADA = {
  type: 'individual',
  name: 'Ada Lovelace',
  country: 'DE',
  address: '1 Hauptstrasse',
  city: 'Berlin',
  postcode: '10115',
  accounts: [{ type: 'iban', currency: 'EUR', data: { iban: 'DE89370400440532013000' } }],
};

/** The payer: a workspace with a business identity and a credential of every scope, as HTTP requests with its token. */
async function growthWorkspace(app: FastifyInstance, ctx: AppContext) {
  const issued = await ctx.db.tx(async (tx) => {
    const ws = await createWorkspace(tx, { name: 'Growth Ltd', country: 'DE' });
    await changeWorkspace(tx, ws.id, {
      settings: { businessIdentity: { companyName: 'Growth Ltd', registrationNumber: '1', country: 'DE', address: '1 Weg', city: 'Berlin', postalCode: '10115' } },
    });
    return createCredential(tx, ctx.box, ws.id, {});
  });
  const tokenRes = await app.inject({
    method: 'POST',
    url: '/oauth/token',
    payload: { client_id: issued.clientId, client_secret: issued.clientSecret, audience: 'corridor-api', grant_type: 'client_credentials' },
  });
  if (tokenRes.statusCode !== 200) throw new Error(tokenRes.body);
  const token = tokenRes.json<{ access_token: string }>().access_token;
  return {
    request: (method: InjectOptions['method'], url: string, body?: unknown, headers: Record<string, string> = {}) =>
      app.inject({ method, url, headers: { authorization: `Bearer ${token}`, ...headers }, ...(body === undefined ? {} : { payload: body as object }) }),
  };
}

/** Bytes grown for PAYOUTS payouts, scaled to a million payouts. */
const gib = (bytes: number): string => `${((bytes / PAYOUTS) * 1e6 / 2 ** 30).toFixed(2)} GiB`;

/** Every payout final, no job left, every event dispatched and delivered. */
async function settled(ctx: { db: { query: <T>(sql: string) => Promise<T[]> } }): Promise<boolean> {
  const [row] = await ctx.db.query<{ done: boolean }>(
    `SELECT NOT EXISTS (SELECT 1 FROM payouts WHERE status NOT IN ('paid', 'failed', 'cancelled'))
        AND NOT EXISTS (SELECT 1 FROM jobs WHERE kind = 'payout.step')
        AND NOT EXISTS (SELECT 1 FROM event_outbox)
        AND NOT EXISTS (SELECT 1 FROM webhook_deliveries WHERE status = 'pending') AS done`,
  );
  return row?.done ?? false;
}

/** pg_total_relation_size (heap, indexes, TOAST) and live rows of every table. */
async function tableSizes(ctx: { db: { query: <T>(sql: string) => Promise<T[]> } }): Promise<TableSize[]> {
  const rows = await ctx.db.query<{ table: string; rows: string; bytes: string }>(
    `SELECT c.relname AS table, c.reltuples::bigint::text AS rows, pg_total_relation_size(c.oid)::text AS bytes
       FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE c.relkind = 'r' AND n.nspname = 'public' ORDER BY pg_total_relation_size(c.oid) DESC`,
  );
  return rows.map((r) => ({ table: r.table, rows: Math.max(0, Number(r.rows)), bytes: Number(r.bytes) }));
}
