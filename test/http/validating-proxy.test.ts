/**
 * A validating proxy accepts the SDK's full flow, uploads included (issue 25): Stoplight Prism
 * (`prism proxy /openapi.json <server> --errors`), a real HTTP proxy between the SDK and a live server,
 * checks every request and every response against the document the server serves. A violation is
 * answered with an error status (a request Prism refuses never reaches the server) or reported in the
 * `sl-violations` header of the forwarded response; the test fails on either, so the document says
 * what the server does and the SDK sends what the document says. A control shows the proxy does catch
 * both kinds: a request the document refuses, and an answer of GET /healthz (no SDK call), which the
 * proxy's copy of the document alone says carries a field the server never sends.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Corridor } from '../../packages/sdk/src/index.js';
import { createRunner } from '../../src/jobs.js';
import type { JobRunner } from '../../src/platform/jobs/runner.js';
import { OPERATOR_KEY, createTestApp, type TestApp } from '../helpers/app.js';
import { BUSINESS, DIRECTOR, PDF } from '../applications/helpers.js';
import { HttpsReceiver } from '../helpers/https-receiver.js';
import { freePort } from '../helpers/processes.js';

interface OpenApi {
  components: { schemas: Record<string, { required?: string[] } & Record<string, unknown>> };
}

/** One exchange through the proxy, as the SDK saw it. */
interface Exchange {
  method: string;
  url: string;
  status: number;
  violations: string | null;
}

let t: TestApp;
let runner: JobRunner;
let prism: ChildProcess;
let prismLog = '';
let proxy: string;
let workDir: string;
const exchanges: Exchange[] = [];

/** The fetch the SDK uses: the global one, with each exchange and its `sl-violations` recorded. */
const recordingFetch: typeof fetch = async (input, init) => {
  const request = new Request(input, init);
  const res = await fetch(request);
  exchanges.push({ method: request.method, url: request.url.replace(proxy, ''), status: res.status, violations: res.headers.get('sl-violations') });
  return res;
};

/**
 * What the proxy found wrong: every exchange of the SDK it flagged (a violation header, its 422 for a
 * request, its 500 for an answer), and the violation or error lines its log wrote since `logFrom`.
 */
function violations(logFrom: number): string[] {
  const flagged = exchanges.filter((e) => e.violations !== null || e.status === 422 || e.status >= 500).map((e) => `${e.method} ${e.url} ${e.status} ${e.violations ?? ''}`);
  const logged = prismLog.slice(logFrom).split('\n').filter((line) => /violation|✖/i.test(line));
  return [...flagged, ...logged];
}

/** Starts `prism proxy` (the devDependency's own bin) and resolves once it listens. */
async function startPrism(spec: string, upstream: string, port: number): Promise<ChildProcess> {
  const bin = path.join(path.dirname(createRequire(import.meta.url).resolve('@stoplight/prism-cli/package.json')), 'dist', 'index.js');
  const child = spawn(process.execPath, [bin, 'proxy', spec, upstream, '--errors', '--host', '127.0.0.1', '--port', String(port)], { stdio: ['ignore', 'pipe', 'pipe'] });
  return new Promise((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      prismLog += chunk.toString('utf8');
      if (prismLog.includes('Prism is listening')) resolve(child);
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', (code) => reject(new Error(`prism exited (${String(code)}) before listening:\n${prismLog}`)));
  });
}

/** An operator call through the proxy (the operator API is in the document too). */
async function operatorCall<T>(method: string, url: string, body?: unknown): Promise<T> {
  const res = await recordingFetch(`${proxy}${url}`, {
    method,
    headers: { authorization: `Bearer ${OPERATOR_KEY}`, ...(method === 'POST' ? { 'idempotency-key': crypto.randomUUID() } : {}), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${url}: ${res.status} ${text}`);
  return JSON.parse(text) as T;
}

beforeAll(async () => {
  const serverPort = await freePort();
  const proxyPort = await freePort();
  proxy = `http://127.0.0.1:${proxyPort}`;
  // The upload URLs the server signs name the proxy, so the SDK's PUTs of files go through it too.
  t = await createTestApp({ env: { PUBLIC_BASE_URL: proxy, JOB_POLL_MS: '20', SANDBOX_STEP_MS: '40' } });
  await t.app.listen({ host: '127.0.0.1', port: serverPort });
  runner = createRunner(t.ctx);
  runner.start();
  workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'corridor-prism-'));
  const spec = path.join(workDir, 'openapi.json');
  const doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json<OpenApi>();
  // The control: one answer the proxy must find wrong. /healthz (no SDK call) is said to carry a field it never has.
  doc.components.schemas.GetHealthzResponse = { ...doc.components.schemas.GetHealthzResponse, required: [...(doc.components.schemas.GetHealthzResponse?.required ?? []), 'prismControl'] };
  fs.writeFileSync(spec, JSON.stringify(doc));
  prism = await startPrism(spec, `http://127.0.0.1:${serverPort}`, proxyPort);
});

afterAll(async () => {
  prism?.kill('SIGTERM');
  await runner?.stop();
  await t?.close();
  if (workDir) fs.rmSync(workDir, { recursive: true, force: true });
});

describe('the SDK through a validating proxy (Prism, --errors)', () => {
  it('runs the whole integration with no request or response violation', async () => {
    const logFrom = prismLog.length;
    // The operator makes the workspace and its credential (through the proxy as well).
    const ws = await operatorCall<{ id: string }>('POST', '/operator/v1/workspaces', { name: 'Proxy Ltd', country: 'GB' });
    await operatorCall('PUT', `/operator/v1/workspaces/${ws.id}/settings`, {
      businessIdentity: { companyName: 'Proxy Ltd', registrationNumber: '12345678', country: 'GB', address: '1 King Street', city: 'London', postalCode: 'EC2V 8AU' },
    });
    const credential = await operatorCall<{ clientId: string; clientSecret: string }>('POST', `/operator/v1/workspaces/${ws.id}/credentials`, {});
    const corridor = new Corridor({ baseUrl: proxy, clientId: credential.clientId, clientSecret: credential.clientSecret, fetch: recordingFetch, retryBaseDelayMs: 20 });

    // Token (the SDK fetches it), funds, a beneficiary, a quote and a payout on it, paid by the sandbox.
    await corridor.sandbox.fundBalance({ currency: 'USD', amount: '1000.00' });
    await corridor.sandbox.fundBalance({ currency: 'EUR', amount: '1000.00' });
    const receiver = await HttpsReceiver.start();
    try {
      const webhook = await corridor.webhooks.create({ url: receiver.url('/hooks'), events: ['payout.paid'] });
      const beneficiary = await corridor.beneficiaries.create({
        type: 'individual',
        name: 'Ada Lovelace',
        country: 'DE',
        address: '1 Hauptstrasse',
        city: 'Berlin',
        postcode: '10115',
        accounts: [{ type: 'iban', currency: 'EUR', data: { iban: 'DE89370400440532013000' } }],
      });
      const quote = await corridor.fx.quotes.create({ fromCurrency: 'USD', toCurrency: 'EUR', toAmount: '50.00', intent: 'payout' });
      const payout = await corridor.payouts.create({ clientRef: 'proxy-1', amount: '50.00', currency: 'EUR', beneficiary: { id: beneficiary.id }, quoteId: quote.id, senderInfo: { type: 'individual', firstName: 'Grace', lastName: 'Hopper', country: 'DE' } });
      // The sandbox provider moves it (the workers run): read it until it is paid.
      let status = payout.status;
      while (status !== 'paid' && status !== 'failed') status = (await corridor.payouts.get({ id: payout.id })).status;
      expect(status).toBe('paid');

      // The event, read back and delivered: the signature verifies and the payload is the payout.
      const events = await corridor.events.list({ types: ['payout.paid'] } as never);
      expect(events.data.map((e) => e.type)).toContain('payout.paid');
      const [delivered] = await receiver.waitFor('/hooks', 1);
      const event = await corridor.webhooks.constructEvent(delivered!.body, delivered!.headers as Record<string, string>, webhook.secret);
      expect(event.type).toBe('payout.paid');
      await corridor.webhooks.deliveries.list({ id: webhook.id });
    } finally {
      await receiver.close();
    }

    // Onboarding: an application, a person, a document through the signed upload URL (the SDK's
    // helper: upload URL, PUT /v2/uploads/{key}, registration), and one by hand.
    const application = await corridor.applications.create(BUSINESS);
    const person = await corridor.applications.persons.create({ id: application.id }, DIRECTOR);
    await corridor.applications.documents.upload({ id: application.id }, { file: PDF, contentType: 'application/pdf', type: 'photo_id', personId: person.id });
    const issued = await corridor.applications.documents.uploadUrl({ id: application.id }, { contentType: 'application/pdf', contentLength: PDF.byteLength });
    const put = await recordingFetch(issued.uploadUrl, { method: 'PUT', headers: { 'content-type': 'application/pdf' }, body: PDF });
    expect(put.status).toBe(200);
    await corridor.applications.documents.create({ id: application.id }, { documentKey: issued.documentKey, type: 'certificate_of_incorporation' });
    const terms = await corridor.applications.terms.get();
    await corridor.applications.terms.accept({ id: application.id }, { version: terms.version });
    await corridor.applications.submit({ id: application.id });
    await corridor.sandbox.applications.review({ id: application.id }, { decision: 'approve' });
    expect((await corridor.applications.get({ id: application.id })).status).toBe('approved');

    // A trade-desk order paid by transfer, with its proof of payment uploaded by the SDK's helper.
    const order = await corridor.orders.create({ clientRef: 'proxy-order', fromCurrency: 'USD', toCurrency: 'EUR', fromAmount: '100.00', funding: 'settlement' });
    await corridor.orders.settlement.uploadProof({ id: order.id }, { file: PDF, contentType: 'application/pdf' });

    // Lists, page by page.
    await corridor.beneficiaries.create({ type: 'individual', name: 'Grace Hopper', country: 'DE', address: '2 Hauptstrasse', city: 'Berlin', postcode: '10115', accounts: [{ type: 'iban', currency: 'EUR', data: { iban: 'DE89370400440532013000' } }] });
    const beneficiaries: string[] = [];
    for await (const b of corridor.beneficiaries.list({ limit: 1 })) beneficiaries.push(b.id);
    expect(beneficiaries).toHaveLength(2);
    const firstPage = await corridor.events.list({ limit: 1 });
    expect(firstPage.hasMore).toBe(true);
    await corridor.events.list({ limit: 1, cursor: firstPage.nextCursor! } as never);
    for (const list of [corridor.payouts.list({ limit: 1 }), corridor.orders.list(), corridor.applications.documents.list({ id: application.id }), corridor.transactions.list({ limit: 2 })]) await list;
    await corridor.balances.get();

    // The errors an integrator meets are described too: each shape, as the document says it.
    const unknown = '3f2b8c1e-7a4d-4e5f-9b6a-1c2d3e4f5a6b';
    const statusOf = (call: Promise<unknown>) => call.then(() => 200, (err: { status?: number }) => err.status);
    expect(await statusOf(corridor.payouts.get({ id: unknown }))).toBe(404);
    expect(await statusOf(corridor.webhooks.get({ id: unknown }))).toBe(404);
    expect(await statusOf(corridor.payouts.create({ clientRef: 'proxy-2', amount: '10.00', currency: 'EUR', beneficiary: { id: unknown } }))).toBe(400);
    expect(await statusOf(corridor.fx.conversions.create({ quoteId: unknown }))).toBe(404);
    expect(await statusOf(corridor.applications.submit({ id: application.id }))).toBe(409);
    expect((await recordingFetch(`${proxy}/v1/payouts`, { headers: { authorization: 'Bearer not-a-token' } })).status).toBe(401);

    // Every exchange went through the proxy, and it found nothing wrong with any.
    const seen = new Set(exchanges.map((e) => `${e.method} ${e.url.replace(/\?.*$/, '')}`));
    expect(seen).toContain('POST /oauth/token');
    expect(exchanges.filter((e) => e.method === 'PUT' && e.url.startsWith('/v2/uploads/')).length).toBe(3);
    expect(violations(logFrom)).toEqual([]);
  });

  it('the proxy does catch violations: a request the document refuses, an answer it does not describe', async () => {
    // Refused by the proxy (422, Prism's own problem), never forwarded.
    const refused = await fetch(`${proxy}/operator/v1/workspaces`, { method: 'POST', headers: { authorization: `Bearer ${OPERATOR_KEY}`, 'idempotency-key': crypto.randomUUID(), 'content-type': 'application/json' }, body: JSON.stringify({ country: 42 }) });
    expect(refused.status).toBe(422);
    expect(await refused.json()).toMatchObject({ type: 'https://stoplight.io/prism/errors#UNPROCESSABLE_ENTITY', validation: expect.arrayContaining([expect.objectContaining({ message: "Request body must have required property 'name'" })]) });
    // The server's answer, found wrong against the (altered) document: 500 and the violation in sl-violations.
    const health = await fetch(`${proxy}/healthz`);
    expect(health.status).toBe(500);
    expect(health.headers.get('sl-violations')).toMatch(/must have required property 'prismControl'/);
  });
});
