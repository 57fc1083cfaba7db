import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { corridorFreeEnv, freePort, REPOSITORY_CORRIDOR_BIN } from '../helpers/processes.js';
import { postgresUrl, freshPostgresDatabase } from '../helpers/app.js';

interface Span {
  traceId: string;
  name: string;
  attributes: { key: string; value: { stringValue?: string; intValue?: string | number } }[];
}

let otlp: http.Server;
const spans: Span[] = [];
let child: ChildProcess | undefined;
let output = '';
let errors = '';
let dataDir: string;
let dropDb: (() => Promise<void>) | undefined;

beforeAll(async () => {
  // A local OTLP/HTTP receiver: keeps the spans of every JSON export it gets.
  otlp = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.url === '/v1/traces') {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { resourceSpans: { scopeSpans: { spans: Span[] }[] }[] };
        for (const rs of body.resourceSpans) for (const ss of rs.scopeSpans) spans.push(...ss.spans);
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => otlp.listen(0, '127.0.0.1', resolve));
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'corridor-trace-'));
  const db = postgresUrl ? await freshPostgresDatabase() : undefined;
  dropDb = db?.drop;
  const port = await freePort();
  // bin/corridor.js itself, not the tests' transpiled copy: its loader hooks for the instrumentations are what is tested.
  child = spawn(process.execPath, [REPOSITORY_CORRIDOR_BIN, 'start'], {
    env: {
      ...corridorFreeEnv(),
      PORT: String(port),
      HOST: '127.0.0.1',
      CORRIDOR_DATA_DIR: dataDir,
      ...(db ? { DATABASE_URL: db.url } : {}),
      CORRIDOR_BOOTSTRAP_CLIENT_ID: '6f1c2a3e-4b5d-4e6f-8a9b-0c1d2e3f4a5b',
      CORRIDOR_BOOTSTRAP_CLIENT_SECRET: 'trace_secret_0123456789abcdef',
      LOG_LEVEL: 'info',
      OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${(otlp.address() as AddressInfo).port}`,
      OTEL_SERVICE_NAME: 'corridor-test',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout?.on('data', (c: Buffer) => (output += c.toString('utf8')));
  child.stderr?.on('data', (c: Buffer) => (errors += c.toString('utf8')));
  const base = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 180_000;
  for (;;) {
    try {
      if ((await fetch(`${base}/readyz`)).ok) break;
    } catch {
      // not up yet
    }
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`corridor did not start (exit ${child.exitCode}): ${output} ${errors}`);
    await new Promise((r) => setTimeout(r, 200));
  }
  const token = await fetch(`${base}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ grant_type: 'client_credentials', client_id: '6f1c2a3e-4b5d-4e6f-8a9b-0c1d2e3f4a5b', client_secret: 'trace_secret_0123456789abcdef', audience: 'corridor-api' }),
  });
  expect(token.status).toBe(200);
  const { access_token: accessToken } = (await token.json()) as { access_token: string };
  const balances = await fetch(`${base}/v1/ledger/balances`, { headers: { authorization: `Bearer ${accessToken}`, 'x-request-id': 'req_traced_balances' } });
  expect(balances.status).toBe(200);
}, 240_000);
afterAll(async () => {
  child?.kill('SIGKILL');
  await new Promise((resolve) => otlp?.close(resolve));
  await dropDb?.();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

const attribute = (span: Span, key: string): string | undefined => {
  const v = span.attributes.find((a) => a.key === key)?.value;
  return v?.stringValue ?? (v?.intValue === undefined ? undefined : String(v.intValue));
};

describe('OpenTelemetry traces, with OTEL_EXPORTER_OTLP_ENDPOINT set', () => {
  it('exports the HTTP request, its Fastify route and its database work to the OTLP receiver, and logs the trace id beside the request id', async () => {
    const deadline = Date.now() + 60_000;
    const balancesSpan = () => spans.find((s) => attribute(s, 'http.route') === '/v1/ledger/balances' && /GET/.test(s.name));
    while (!balancesSpan() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
    const server = balancesSpan();
    expect(server, JSON.stringify(spans.map((s) => s.name))).toBeDefined();
    const inTrace = spans.filter((s) => s.traceId === server?.traceId);
    // Fastify's own spans (request handler, hooks) sit in the same trace as the HTTP server span.
    expect(inTrace.some((s) => /request handler|onRequest|preHandler|fastify/i.test(s.name))).toBe(true);
    if (postgresUrl) {
      // The pg instrumentation's spans (db.system, or db.system.name in the newer conventions).
      const isPg = (s: Span) => s.traceId === server?.traceId && [attribute(s, 'db.system'), attribute(s, 'db.system.name')].includes('postgresql');
      for (let i = 0; i < 100 && !spans.some(isPg); i++) await new Promise((r) => setTimeout(r, 200));
      expect(spans.some(isPg), JSON.stringify(inTrace.map((s) => s.name))).toBe(true);
    }
    const lines = output.split('\n').filter((l) => l.includes('"reqId":"req_traced_balances"'));
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) expect(JSON.parse(line)).toMatchObject({ reqId: 'req_traced_balances', traceId: server?.traceId });
  });
});
