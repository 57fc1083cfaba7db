import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listeningTestApp, newWorkspace, operator, type Caller, type TestApp } from '../helpers/app.js';
import { JPEG, PDF, PNG } from '../applications/helpers.js';
import { fund, placeOrder, type OrderView } from './helpers.js';

/** Proofs of payment through a real HTTP server: the test PUTs to the very URL the API issued. */

let t: TestApp;
let short: TestApp;
let c: Caller;
let uploadDir: string;
let shortDir: string;

const filesUnder = (dir: string): string[] =>
  fs.existsSync(dir) ? fs.readdirSync(dir, { recursive: true, withFileTypes: true }).filter((d) => d.isFile()).map((d) => path.join(d.parentPath, d.name)) : [];

beforeAll(async () => {
  uploadDir = fs.mkdtempSync(path.join(os.tmpdir(), 'corridor-proofs-'));
  shortDir = fs.mkdtempSync(path.join(os.tmpdir(), 'corridor-proofs-'));
  t = await listeningTestApp({ UPLOAD_DIR: uploadDir });
  short = await listeningTestApp({ UPLOAD_DIR: shortDir, UPLOAD_URL_TTL_MS: '1500', UPLOAD_BYTES_MAX: '1000' });
  c = await newWorkspace(t.app);
});
afterAll(async () => {
  await t?.close();
  await short?.close();
  fs.rmSync(uploadDir, { recursive: true, force: true });
  fs.rmSync(shortDir, { recursive: true, force: true });
});

interface Issued {
  proofKey: string;
  uploadUrl: string;
  expiresAt: string;
}

async function issue(w: Caller, orderId: string, contentType: string, contentLength: number): Promise<Issued> {
  const res = await w.request('POST', `/v1/orders/${orderId}/settlement/proof-upload-url`, { contentType, contentLength });
  expect(res.statusCode, res.body).toBe(201);
  return res.json<Issued>();
}

async function put(url: string, bytes: Buffer): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(url, { method: 'PUT', body: new Uint8Array(bytes), headers: { 'content-type': 'application/octet-stream' } });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

const submit = (w: Caller, orderId: string, proofKey: string) => w.request('POST', `/v1/orders/${orderId}/settlement/proof`, { proofKey });

describe('proof of payment of a bank-transfer settlement', () => {
  it('issues a URL valid 15 minutes, takes the PUT over HTTP, registers the proof, and the operator reads it back', async () => {
    const order = await placeOrder(c, { fromAmount: '2500.00' });
    expect(order.settlement?.requirements.proofOfPayment).toBe(true);
    expect((await operator(t.app, 'GET', `/operator/v1/orders/${order.id}/settlement/proof`)).statusCode).toBe(404);

    const issued = await issue(c, order.id, 'application/pdf', PDF.length);
    expect(issued.proofKey).toMatch(/^upl_/);
    expect(issued.uploadUrl.startsWith(`${t.config.publicBaseUrl}/`)).toBe(true);
    const ttl = Date.parse(issued.expiresAt) - Date.now();
    expect(ttl).toBeGreaterThan(14 * 60_000);
    expect(ttl).toBeLessThanOrEqual(15 * 60_000);

    expect((await submit(c, order.id, issued.proofKey)).json()).toMatchObject({ statusCode: 409, code: 'PROOF_NOT_UPLOADED' });
    const stored = await put(issued.uploadUrl, PDF);
    expect(stored.status).toBe(200);
    expect(stored.body).toMatchObject({ key: issued.proofKey, contentType: 'application/pdf', contentLength: PDF.length });
    // Encrypted at rest: the bytes on disk are not the file.
    const files = filesUnder(uploadDir);
    expect(files).toHaveLength(1);
    expect(fs.readFileSync(files[0]!).includes(Buffer.from('%PDF'))).toBe(false);

    const res = await submit(c, order.id, issued.proofKey);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json<OrderView>()).toMatchObject({ status: 'awaiting_funds', settlement: { status: 'proof_submitted' } });

    const read = await operator(t.app, 'GET', `/operator/v1/orders/${order.id}/settlement/proof`);
    expect(read.statusCode).toBe(200);
    expect(read.headers['content-type']).toBe('application/pdf');
    expect(Buffer.from(read.rawPayload).equals(PDF)).toBe(true);
    // As the console's route sends it: never sniffed, never cached, a PDF downloaded under a plain name.
    expect(read.headers).toMatchObject({
      'x-content-type-options': 'nosniff',
      'cache-control': 'no-store',
      'content-disposition': `attachment; filename="proof-of-payment-${order.id}.pdf"`,
    });
    const audit = (await operator(t.app, 'GET', '/operator/v1/audit-log')).json<{ data: { path: string }[] }>();
    expect(audit.data.map((e) => e.path)).toContain(`/operator/v1/orders/${order.id}/settlement/proof`);

    // A later proof replaces it while the order awaits funds; the desk then confirms.
    const second = await issue(c, order.id, 'image/png', PNG.length);
    expect((await put(second.uploadUrl, PNG)).status).toBe(200);
    expect((await submit(c, order.id, second.proofKey)).statusCode).toBe(200);
    const image = await operator(t.app, 'GET', `/operator/v1/orders/${order.id}/settlement/proof`);
    expect(image.headers).toMatchObject({ 'content-type': 'image/png', 'x-content-type-options': 'nosniff', 'cache-control': 'no-store' });
    expect(image.headers['content-disposition']).toBe(`inline; filename="proof-of-payment-${order.id}.png"`);
    expect((await operator(t.app, 'POST', `/operator/v1/orders/${order.id}/confirm-funds`)).json()).toMatchObject({ status: 'funds_received', settlement: { status: 'received' } });
  });

  it('refuses an order without proofOfPayment (balance-funded, crypto) and an order no longer awaiting funds: 409, nothing issued', async () => {
    const w = await newWorkspace(t.app);
    await fund(w, 'EUR', '10.00');
    const balanceFunded = await placeOrder(w, { fromAmount: '10.00' });
    const crypto = await placeOrder(w, { fromCurrency: 'USDC', toCurrency: 'EUR', fromAmount: '10' });
    for (const id of [balanceFunded.id, crypto.id]) {
      const res = await w.request('POST', `/v1/orders/${id}/settlement/proof-upload-url`, { contentType: 'application/pdf', contentLength: 100 });
      expect(res.statusCode).toBe(409);
      expect(res.json()).toMatchObject({ code: 'PROOF_NOT_REQUIRED' });
    }
    const cancelled = await placeOrder(w, { fromAmount: '99.00' });
    const issued = await issue(w, cancelled.id, 'image/jpeg', JPEG.length);
    expect((await put(issued.uploadUrl, JPEG)).status).toBe(200);
    expect((await w.request('POST', `/v1/orders/${cancelled.id}/cancel`)).statusCode).toBe(200);
    const late = await w.request('POST', `/v1/orders/${cancelled.id}/settlement/proof-upload-url`, { contentType: 'application/pdf', contentLength: 100 });
    expect(late.json()).toMatchObject({ statusCode: 409, code: 'ORDER_NOT_AWAITING_FUNDS' });
    expect((await submit(w, cancelled.id, issued.proofKey)).json()).toMatchObject({ statusCode: 409, code: 'ORDER_NOT_AWAITING_FUNDS' });
    const [{ n }] = (await t.ctx.db.query<{ n: number }>("SELECT count(*)::int AS n FROM uploads WHERE owner_id = ANY($1::uuid[])", [[balanceFunded.id, crypto.id]])) as [{ n: number }];
    expect(n).toBe(0);
  });

  it('refuses a disallowed type, a bad length, a proofKey of another order, and a JSON-number length, in the legacy envelope', async () => {
    const order = await placeOrder(c, { fromAmount: '80.00' });
    const gif = await c.request('POST', `/v1/orders/${order.id}/settlement/proof-upload-url`, { contentType: 'image/gif', contentLength: 100 });
    expect(gif.statusCode).toBe(400);
    expect(gif.json()).toMatchObject({ statusCode: 400, details: [{ field: 'contentType' }] });
    const zero = await c.request('POST', `/v1/orders/${order.id}/settlement/proof-upload-url`, { contentType: 'application/pdf', contentLength: 0 });
    expect(zero.statusCode).toBe(400);
    const huge = await c.request('POST', `/v1/orders/${order.id}/settlement/proof-upload-url`, { contentType: 'application/pdf', contentLength: 10 * 1024 * 1024 + 1 });
    expect(huge.statusCode).toBe(400);
    expect(huge.json().details[0]).toMatchObject({ field: 'contentLength', code: 'UPLOAD_TOO_LARGE' });
    const other = await placeOrder(c, { fromAmount: '81.00' });
    const foreign = await issue(c, other.id, 'image/png', PNG.length);
    expect((await put(foreign.uploadUrl, PNG)).status).toBe(200);
    const wrong = await submit(c, order.id, foreign.proofKey);
    expect(wrong.statusCode).toBe(400);
    expect(wrong.json().details[0].field).toBe('proofKey');
  });

  it('refuses bytes that are not what they claim, a wrong size, an expired and a reused URL: clear 4xx, nothing stored', async () => {
    const w = await newWorkspace(short.app);
    const order = await placeOrder(w, { fromAmount: '500.00' });
    const tooBig = await w.request('POST', `/v1/orders/${order.id}/settlement/proof-upload-url`, { contentType: 'application/pdf', contentLength: 1001 });
    expect(tooBig.json().details[0]).toMatchObject({ code: 'UPLOAD_TOO_LARGE' });

    const claimsPdf = await issue(w, order.id, 'application/pdf', PNG.length);
    const mismatch = await put(claimsPdf.uploadUrl, PNG);
    expect(mismatch).toMatchObject({ status: 415, body: { code: 'UPLOAD_TYPE_MISMATCH' } });
    const text = Buffer.alloc(PNG.length, 'a');
    const notAllowed = await put((await issue(w, order.id, 'image/png', text.length)).uploadUrl, text);
    expect(notAllowed).toMatchObject({ status: 415, body: { code: 'UPLOAD_TYPE_NOT_ALLOWED' } });
    const size = await put((await issue(w, order.id, 'image/png', PNG.length + 1)).uploadUrl, PNG);
    expect(size).toMatchObject({ status: 400, body: { code: 'UPLOAD_SIZE_MISMATCH' } });
    const expiring = await issue(w, order.id, 'image/png', PNG.length);
    await new Promise((r) => setTimeout(r, 1600));
    expect(await put(expiring.uploadUrl, PNG)).toMatchObject({ status: 403, body: { code: 'UPLOAD_URL_EXPIRED' } });
    expect(filesUnder(shortDir)).toHaveLength(0);
    expect((await submit(w, order.id, expiring.proofKey)).json()).toMatchObject({ code: 'PROOF_NOT_UPLOADED' });

    const once = await issue(w, order.id, 'image/png', PNG.length);
    expect((await put(once.uploadUrl, PNG)).status).toBe(200);
    expect(await put(once.uploadUrl, PNG)).toMatchObject({ status: 409, body: { code: 'UPLOAD_URL_USED' } });
    expect(filesUnder(shortDir)).toHaveLength(1);
    expect((await submit(w, order.id, once.proofKey)).json()).toMatchObject({ settlement: { status: 'proof_submitted' } });
  });

  it('replays the upload URL for a repeated Idempotency-Key', async () => {
    const order = await placeOrder(c, { fromAmount: '90.00' });
    const body = { contentType: 'application/pdf', contentLength: PDF.length };
    const first = await c.request('POST', `/v1/orders/${order.id}/settlement/proof-upload-url`, body, { 'idempotency-key': 'proof-url-1' });
    const again = await c.request('POST', `/v1/orders/${order.id}/settlement/proof-upload-url`, body, { 'idempotency-key': 'proof-url-1' });
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.json()).toEqual(first.json());
  });
});
