/**
 * Request logs (issue 38, point 7): a workspace's recent API requests (method, path, status, request
 * id, Idempotency-Key, time, caller, redacted bodies) through GET /v1/request-logs, the dashboard's
 * Request logs page and `corridor logs tail`; written in batches off the request's path; deleted by
 * the retention job.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Corridor } from '../../packages/sdk/src/index.js';
import { tailLogs } from '../../src/cli/logs.js';
import type { Sql } from '../../src/platform/db/db.js';
import { retentionSweep } from '../../src/retention.js';
import { RequestLogRecorder, type AnsweredRequest } from '../../src/controls/request-logs/request-logs.service.js';
import { createTestApp, newWorkspace, type Caller, type TestApp } from '../helpers/app.js';
import { dashboardUser } from '../helpers/web-client.js';

interface Logged {
  id: string;
  requestId: string;
  method: string;
  path: string;
  status: number;
  idempotencyKey: string | null;
  caller: string;
  requestBody: unknown;
  responseBody: unknown;
  createdAt: string;
}

const ADA = {
  type: 'individual',
  name: 'Ada Lovelace',
  country: 'DE',
  address: '1 Hauptstrasse',
  city: 'Berlin',
  postcode: '10115',
  email: 'ada@example.com',
  accounts: [{ type: 'iban', currency: 'EUR', data: { iban: 'DE89370400440532013000' } }],
};
const PERSONAL = ['Ada Lovelace', 'Hauptstrasse', 'Berlin', '10115', 'ada@example.com', 'DE89370400440532013000'];

let t: TestApp;
let a: Caller;
let b: Caller;

beforeAll(async () => {
  t = await createTestApp({ env: { REQUEST_LOG_FLUSH_MS: '20' } });
  a = await newWorkspace(t.app, { name: 'Logged Ltd' });
  b = await newWorkspace(t.app, { name: 'Other Ltd' });
}, 300_000);
afterAll(async () => {
  await t.close();
});

async function logsOf(c: Caller, query = ''): Promise<Logged[]> {
  const res = await c.request('GET', `/v1/request-logs?limit=100${query}`);
  expect(res.statusCode, res.body).toBe(200);
  return res.json<{ data: Logged[] }>().data;
}

/** The log entry of a request id, once its batch is written (about REQUEST_LOG_FLUSH_MS later). */
async function logged(c: Caller, requestId: string): Promise<Logged> {
  for (;;) {
    const found = (await logsOf(c)).find((l) => l.requestId === requestId);
    if (found) return found;
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('GET /v1/request-logs', () => {
  it('lists the workspace\'s requests with method, path, status, request id, key, caller and bodies without secrets or personal data', async () => {
    const created = await a.request('POST', '/v1/beneficiaries', ADA, { 'idempotency-key': 'log-ben-1' });
    expect(created.statusCode, created.body).toBe(201);
    const refused = await a.request('POST', '/v1/beneficiaries', { ...ADA, country: 'Germany' }, { 'idempotency-key': 'log-ben-2' });
    expect(refused.statusCode).toBe(400);
    const read = await a.request('GET', `/v1/beneficiaries/${created.json<{ id: string }>().id}?token=abc`);

    const post = await logged(a, String(created.headers['x-request-id']));
    expect(post).toMatchObject({ method: 'POST', path: '/v1/beneficiaries', status: 201, idempotencyKey: 'log-ben-1', caller: a.clientId });
    expect(Date.parse(post.createdAt)).toBeGreaterThan(Date.now() - 600_000);
    expect(post.requestBody).toMatchObject({ type: 'individual', country: 'DE', name: '[redacted]', email: '[redacted]', accounts: [{ type: 'iban', currency: 'EUR', data: { iban: '[redacted]' } }] });
    expect(post.responseBody).toMatchObject({ id: created.json<{ id: string }>().id, name: '[redacted]' });
    const failed = await logged(a, String(refused.headers['x-request-id']));
    expect(failed).toMatchObject({ status: 400, idempotencyKey: 'log-ben-2' });
    expect(JSON.stringify(failed.responseBody)).toMatch(/country/);
    const get = await logged(a, String(read.headers['x-request-id']));
    expect(get).toMatchObject({ method: 'GET', status: 200, idempotencyKey: null });
    expect(get.path).toMatch(/\?token=\[redacted\]$/);

    const all = await logsOf(a);
    const text = JSON.stringify(all);
    for (const value of PERSONAL) expect(text, value).not.toContain(value);
    // Reading the log is not logged (the tail would fill it), nor is the token request.
    expect(all.some((l) => l.path.startsWith('/v1/request-logs') || l.path.startsWith('/oauth'))).toBe(false);
    expect((await logsOf(a, '&failed=true')).map((l) => l.status)).toEqual([400]);
    expect((await logsOf(a, '&method=GET')).every((l) => l.method === 'GET')).toBe(true);
  });

  it('is scoped to the workspace', async () => {
    const mine = await b.request('GET', '/v1/accounts');
    await logged(b, String(mine.headers['x-request-id']));
    const theirs = await logsOf(a);
    expect(theirs.every((l) => l.caller === a.clientId)).toBe(true);
    const other = (await logsOf(b)).find((l) => l.caller === b.clientId) as Logged;
    expect((await a.request('GET', `/v1/request-logs/${other.id}`)).statusCode).toBe(404);
    expect((await b.request('GET', `/v1/request-logs/${other.id}`)).json<Logged>().requestId).toBe(other.requestId);
  });
});

describe('the recorder', () => {
  it('never writes on a request\'s path: requests wait in a buffer written one INSERT per batch, and a full buffer drops, not blocks', async () => {
    let statements = 0;
    const counting: Sql = { query: (text, params) => (statements++, t.ctx.db.query(text, params)), exec: (s) => t.ctx.db.exec(s) };
    const recorder = new RequestLogRecorder(counting, t.ctx.log, { flushMs: 60_000, batchMax: 500, bufferMax: 1300 });
    const request = (i: number): AnsweredRequest => ({
      workspaceId: a.workspaceId,
      accountId: a.workspaceId,
      requestId: `req_batch_${i}`,
      method: 'GET',
      url: '/v1/batch-test',
      status: 200,
      durationMs: 1,
      idempotencyKey: undefined,
      caller: 'batch-test',
      requestBody: undefined,
      responseText: '{"ok":true}',
      startedAt: new Date(),
    });
    for (let i = 0; i < 1200; i++) recorder.record(request(i));
    recorder.record(request(1200));
    for (let i = 1201; i < 1400; i++) recorder.record(request(i));
    await recorder.close();
    expect(recorder.dropped).toBeGreaterThan(0);
    const rows = await t.ctx.db.query<{ n: string }>(`SELECT count(*)::text AS n FROM request_logs WHERE caller = 'batch-test'`);
    expect(Number(rows[0]?.n)).toBe(1400 - recorder.dropped);
    expect(statements).toBe(Math.ceil((1400 - recorder.dropped) / 500));
  });
});

describe('retention', () => {
  it('deletes requests logged longer ago than RETENTION_REQUEST_LOGS_DAYS (7 by default)', async () => {
    const res = await a.request('GET', '/v1/accounts?old=1');
    const old = await logged(a, String(res.headers['x-request-id']));
    await t.ctx.db.query(`UPDATE request_logs SET created_at = now() - interval '8 days' WHERE id = $1`, [old.id]);
    await retentionSweep(t.ctx);
    expect((await a.request('GET', `/v1/request-logs/${old.id}`)).statusCode).toBe(404);
    expect((await logsOf(a)).length).toBeGreaterThan(0);
  });
});

describe('the dashboard', () => {
  it('lists the requests and shows one with its redacted bodies, under the pages\' strict CSP', async () => {
    const user = await dashboardUser(t.app, a.workspaceId, 'dev@logged.example', 'viewer');
    const list = await user.get('/dashboard/request-logs?method=POST');
    expect(list.statusCode).toBe(200);
    expect(String(list.headers['content-security-policy'])).toMatch(/script-src 'self'/);
    expect(String(list.headers['content-security-policy'])).not.toMatch(/unsafe-inline/);
    expect(list.body).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    expect(list.body).toContain('/v1/beneficiaries');
    const href = /href="(\/dashboard\/request-logs\/[0-9a-f-]{36})"/.exec(list.body)?.[1] as string;
    const one = await user.get(href);
    expect(one.statusCode).toBe(200);
    expect(one.body).toContain('[redacted]');
    for (const value of PERSONAL) expect(one.body, value).not.toContain(value);
    expect(list.body).toContain('href="/dashboard/request-logs"');
  });
});

describe('corridor logs tail', () => {
  it('prints the requests made after it started, one line each, until stopped', async () => {
    const base = await t.app.listen({ port: 0, host: '127.0.0.1' });
    const sdk = new Corridor({ baseUrl: base, clientId: a.clientId, clientSecret: a.clientSecret, retryBaseDelayMs: 20 });
    const lines: string[] = [];
    const controller = new AbortController();
    const tailing = tailLogs({ corridor: sdk, intervalMs: 50, signal: controller.signal, write: (l) => lines.push(l) });
    // Started: the requests before now are known (the first line says so).
    while (lines.length === 0) await new Promise((r) => setTimeout(r, 20));
    const res = await a.request('POST', '/v1/beneficiaries', ADA, { 'idempotency-key': 'log-tail-1' });
    const requestId = String(res.headers['x-request-id']);
    while (!lines.some((l) => l.includes(requestId))) await new Promise((r) => setTimeout(r, 20));
    controller.abort();
    await tailing;
    const line = lines.find((l) => l.includes(requestId)) as string;
    expect(line).toMatch(/ 201 POST +\/v1\/beneficiaries {2}\d+ ms {2}/);
    expect(line).toContain('key=log-tail-1');
    expect(line).toContain(a.clientId);
    // Only what came after it started: the earlier beneficiary is not printed.
    expect(lines.filter((l) => l.includes('key=log-ben-1'))).toEqual([]);
  });
});
