import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JobHandler } from '../../src/platform/jobs/runner.js';
import { jobHandlers } from '../../src/jobs.js';
import { createStorage } from '../../src/platform/storage/storage.js';
import { listeningTestApp, newWorkspace, type Caller, type TestApp } from '../helpers/app.js';
import { addPerson, createApplication, JPEG, PDF, PNG } from './helpers.js';

/** Uploads through a real HTTP server: the test PUTs to the very URL the API issued. */

let t: TestApp;
let short: TestApp;
let acme: Caller;
let globex: Caller;
let uploadDir: string;
let shortDir: string;

function filesUnder(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { recursive: true, withFileTypes: true }).filter((d) => d.isFile()).map((d) => path.join(d.parentPath, d.name));
}

beforeAll(async () => {
  uploadDir = fs.mkdtempSync(path.join(os.tmpdir(), 'corridor-uploads-'));
  shortDir = fs.mkdtempSync(path.join(os.tmpdir(), 'corridor-uploads-'));
  t = await listeningTestApp({ UPLOAD_DIR: uploadDir });
  short = await listeningTestApp({ UPLOAD_DIR: shortDir, UPLOAD_URL_TTL_MS: '300', UPLOAD_BYTES_MAX: '1000' });
  acme = await newWorkspace(t.app, { name: 'Acme Ltd' });
  globex = await newWorkspace(t.app, { name: 'Globex Inc' });
});
afterAll(async () => {
  await t?.close();
  await short?.close();
  fs.rmSync(uploadDir, { recursive: true, force: true });
  fs.rmSync(shortDir, { recursive: true, force: true });
});

interface Issued {
  documentKey: string;
  uploadUrl: string;
  expiresAt: string;
}

async function issue(c: Caller, applicationId: string, contentType: string, contentLength: number): Promise<Issued> {
  const res = await c.request('POST', `/v2/applications/${applicationId}/documents/upload-url`, { contentType, contentLength });
  expect(res.statusCode, res.body).toBe(201);
  return res.json<Issued>();
}

async function put(url: string, bytes: Buffer, contentType = 'application/octet-stream'): Promise<{ status: number; body: Record<string, unknown>; type: string }> {
  const res = await fetch(url, { method: 'PUT', body: new Uint8Array(bytes), headers: { 'content-type': contentType } });
  return { status: res.status, body: (await res.json()) as Record<string, unknown>, type: res.headers.get('content-type') ?? '' };
}

/**
 * Sends a PUT's headers and a first chunk of a body that never completes (Content-Length says
 * `declared` bytes): the answer, if the server gives one within `waitMs` without the rest of the body.
 */
function putNeverFinished(url: string, declared: number, waitMs = 3000): Promise<{ status: number; body: Record<string, unknown> } | 'no answer'> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: 'PUT', headers: { 'content-type': 'application/pdf', 'content-length': String(declared) } });
    const timer = setTimeout(() => {
      req.destroy();
      resolve('no answer');
    }, waitMs);
    req.on('response', (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => {
        clearTimeout(timer);
        req.destroy();
        resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) as Record<string, unknown> });
      });
    });
    req.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    req.write(Buffer.alloc(64 * 1024, 'a'));
  });
}

const register = (c: Caller, applicationId: string, body: Record<string, unknown>) => c.request('POST', `/v2/applications/${applicationId}/documents`, body);

describe('document upload through a signed URL', () => {
  it('issues a URL valid 15 minutes, takes the PUT over HTTP, and registers, lists, reads and deletes the document', async () => {
    const a = await createApplication(acme);
    const issued = await issue(acme, a.id, 'application/pdf', PDF.length);
    expect(issued.documentKey).toMatch(/^upl_/);
    expect(issued.uploadUrl.startsWith(`${t.config.publicBaseUrl}/v2/uploads/${issued.documentKey}?`)).toBe(true);
    const ttl = Date.parse(issued.expiresAt) - Date.now();
    expect(ttl).toBeGreaterThan(14 * 60_000);
    expect(ttl).toBeLessThanOrEqual(15 * 60_000);

    const uploaded = await put(issued.uploadUrl, PDF, 'application/pdf');
    expect(uploaded).toMatchObject({ status: 200, body: { key: issued.documentKey, contentType: 'application/pdf', contentLength: PDF.length } });

    const doc = await register(acme, a.id, { documentKey: issued.documentKey, type: 'certificate_of_incorporation' });
    expect(doc.statusCode, doc.body).toBe(201);
    expect(doc.json()).toMatchObject({ applicationId: a.id, personId: null, type: 'certificate_of_incorporation', contentType: 'application/pdf', sizeBytes: PDF.length, documentKey: issued.documentKey });
    const id = doc.json().id as string;
    expect((await acme.request('GET', `/v2/applications/${a.id}/documents`)).json().data.map((d: { id: string }) => d.id)).toEqual([id]);
    expect((await acme.request('GET', `/v2/applications/${a.id}/documents/${id}`)).json().id).toBe(id);
    expect((await globex.request('GET', `/v2/applications/${a.id}/documents/${id}`)).statusCode).toBe(404);
    expect((await globex.request('DELETE', `/v2/applications/${a.id}/documents/${id}`)).statusCode).toBe(404);

    // Stored encrypted at rest, and read back whole through the storage interface.
    const [row] = await t.ctx.db.query<{ storage_key: string }>('SELECT storage_key FROM uploads WHERE key = $1', [issued.documentKey]);
    const file = path.join(uploadDir, ...(row?.storage_key ?? '').split('/'));
    expect(fs.existsSync(file)).toBe(true);
    expect(fs.readFileSync(file).includes(Buffer.from('%PDF'))).toBe(false);
    expect((await createStorage(t.config, t.ctx.box).get(row?.storage_key ?? ''))?.equals(PDF)).toBe(true);

    expect((await acme.request('DELETE', `/v2/applications/${a.id}/documents/${id}`)).statusCode).toBe(204);
    expect((await acme.request('GET', `/v2/applications/${a.id}/documents`)).json().data).toEqual([]);
    expect((await acme.request('GET', `/v2/applications/${a.id}/documents/${id}`)).statusCode).toBe(404);
  });

  it('accepts JPEG and PNG, and a person’s document names the person', async () => {
    const a = await createApplication(acme);
    const personId = await addPerson(acme, a.id);
    for (const [bytes, type] of [[JPEG, 'image/jpeg'], [PNG, 'image/png']] as const) {
      const issued = await issue(acme, a.id, type, bytes.length);
      expect((await put(issued.uploadUrl, bytes, type)).status).toBe(200);
      const doc = await register(acme, a.id, { documentKey: issued.documentKey, type: 'photo_id', personId });
      expect(doc.json()).toMatchObject({ personId, contentType: type });
    }
  });

  it('takes files larger than the 1 MiB JSON body limit, up to UPLOAD_BYTES_MAX', async () => {
    const a = await createApplication(acme);
    const big = Buffer.concat([PNG, Buffer.alloc(3 * 1024 * 1024)]);
    const issued = await issue(acme, a.id, 'image/png', big.length);
    expect(await put(issued.uploadUrl, big, 'image/png')).toMatchObject({ status: 200, body: { contentLength: big.length } });
    const over = await acme.request('POST', `/v2/applications/${a.id}/documents/upload-url`, { contentType: 'image/png', contentLength: 10 * 1024 * 1024 + 1 });
    expect(over.json().errors[0]).toMatchObject({ field: 'contentLength', code: 'UPLOAD_TOO_LARGE' });
  });

  it('takes one file per URL: a second PUT is 409 UPLOAD_URL_USED', async () => {
    const a = await createApplication(acme);
    const issued = await issue(acme, a.id, 'application/pdf', PDF.length);
    expect((await put(issued.uploadUrl, PDF)).status).toBe(200);
    const again = await put(issued.uploadUrl, PDF);
    expect(again).toMatchObject({ status: 409, body: { code: 'UPLOAD_URL_USED' } });
    expect(again.type).toMatch(/^application\/problem\+json/);
  });

  it('refuses a size other than declared, a type not allowed and a type other than declared, storing nothing; a right PUT still works', async () => {
    const a = await createApplication(acme);
    const issued = await issue(acme, a.id, 'application/pdf', PDF.length);
    const before = filesUnder(uploadDir).length;
    const cases: [Buffer, number, string][] = [
      [Buffer.concat([PDF, Buffer.from(' ')]), 400, 'UPLOAD_SIZE_MISMATCH'],
      [PDF.subarray(0, PDF.length - 1), 400, 'UPLOAD_SIZE_MISMATCH'],
      [Buffer.alloc(PDF.length, 'a'), 415, 'UPLOAD_TYPE_NOT_ALLOWED'],
      [Buffer.concat([PNG, Buffer.alloc(PDF.length - PNG.length)]).subarray(0, PDF.length), 415, 'UPLOAD_TYPE_MISMATCH'],
    ];
    for (const [bytes, status, code] of cases) {
      expect(await put(issued.uploadUrl, bytes), code).toMatchObject({ status, body: { code } });
    }
    expect(filesUnder(uploadDir).length).toBe(before);
    const [row] = await t.ctx.db.query<{ uploaded_at: Date | null }>('SELECT uploaded_at FROM uploads WHERE key = $1', [issued.documentKey]);
    expect(row?.uploaded_at).toBeNull();
    expect((await register(acme, a.id, { documentKey: issued.documentKey, type: 'other' })).json().code).toBe('DOCUMENT_NOT_UPLOADED');
    expect((await put(issued.uploadUrl, PDF)).status).toBe(200);
    expect(filesUnder(uploadDir).length).toBe(before + 1);
  });

  it('refuses a URL whose signature, key or expiry was altered (403 UPLOAD_URL_INVALID)', async () => {
    const a = await createApplication(acme);
    const issued = await issue(acme, a.id, 'application/pdf', PDF.length);
    const url = new URL(issued.uploadUrl);
    const signature = url.searchParams.get('signature') ?? '';
    const forged = new URL(url);
    forged.searchParams.set('signature', `${signature[0] === 'a' ? 'b' : 'a'}${signature.slice(1)}`);
    const later = new URL(url);
    later.searchParams.set('expires', String(Number(url.searchParams.get('expires')) + 60_000));
    const other = await issue(acme, a.id, 'application/pdf', PDF.length);
    const swapped = new URL(other.uploadUrl);
    swapped.searchParams.set('signature', signature);
    for (const u of [forged, later, swapped]) expect(await put(u.toString(), PDF)).toMatchObject({ status: 403, body: { code: 'UPLOAD_URL_INVALID' } });
    const unsigned = new URL(url);
    unsigned.search = '';
    expect((await put(unsigned.toString(), PDF)).status).toBe(400);
  });

  it('refuses a bad signature, an expired URL, a used URL or a Content-Length other than declared before reading the body', async () => {
    const madeUp = `${t.config.publicBaseUrl}/v2/uploads/upl_${'A'.repeat(24)}?expires=${Date.now() + 60_000}&signature=${'0'.repeat(64)}`;
    expect(await putNeverFinished(madeUp, 10 * 1024 * 1024)).toMatchObject({ status: 403, body: { code: 'UPLOAD_URL_INVALID' } });
    const unsigned = new URL(madeUp);
    unsigned.search = '';
    expect(await putNeverFinished(unsigned.toString(), 10 * 1024 * 1024)).toMatchObject({ status: 400 });
    const a = await createApplication(acme);
    const issued = await issue(acme, a.id, 'application/pdf', PDF.length);
    expect(await putNeverFinished(issued.uploadUrl, 10 * 1024 * 1024)).toMatchObject({ status: 400, body: { code: 'UPLOAD_SIZE_MISMATCH' } });
    expect((await put(issued.uploadUrl, PDF)).status).toBe(200);
    expect(await putNeverFinished(issued.uploadUrl, PDF.length + 64 * 1024)).toMatchObject({ status: 409, body: { code: 'UPLOAD_URL_USED' } });
    const c = await newWorkspace(short.app);
    const expiring = await issue(c, (await createApplication(c)).id, 'application/pdf', PDF.length);
    await new Promise((r) => setTimeout(r, 400));
    expect(await putNeverFinished(expiring.uploadUrl, 1000)).toMatchObject({ status: 403, body: { code: 'UPLOAD_URL_EXPIRED' } });
  });

  it('refuses an expired URL (403 UPLOAD_URL_EXPIRED) and files over UPLOAD_BYTES_MAX (400 on issue, 413 on PUT)', async () => {
    const c = await newWorkspace(short.app);
    const a = await createApplication(c);
    const issued = await issue(c, a.id, 'application/pdf', PDF.length);
    await new Promise((r) => setTimeout(r, 400));
    expect(await put(issued.uploadUrl, PDF)).toMatchObject({ status: 403, body: { code: 'UPLOAD_URL_EXPIRED' } });
    const big = await c.request('POST', `/v2/applications/${a.id}/documents/upload-url`, { contentType: 'application/pdf', contentLength: 1001 });
    expect(big.statusCode).toBe(400);
    expect(big.json().errors[0]).toMatchObject({ field: 'contentLength', code: 'UPLOAD_TOO_LARGE' });
    const fits = await issue(c, a.id, 'application/pdf', 1000);
    const tooLarge = await put(fits.uploadUrl, Buffer.concat([PDF, Buffer.alloc(2000)]));
    expect(tooLarge).toMatchObject({ status: 413, body: { code: 'UPLOAD_TOO_LARGE' } });
    expect(filesUnder(shortDir)).toEqual([]);
    // The uploads.cleanup job forgets the slots that expired unfilled.
    await new Promise((r) => setTimeout(r, 400));
    await (jobHandlers.get('uploads.cleanup') as JobHandler | undefined)?.(short.ctx, undefined as never);
    const left = await short.ctx.db.query<{ n: number }>('SELECT count(*)::int AS n FROM uploads WHERE uploaded_at IS NULL');
    expect(left[0]?.n).toBe(0);
  });
});

describe('POST /v2/applications/{id}/documents', () => {
  it('refuses a key registered already, a key of another application, and a person of another application', async () => {
    const a = await createApplication(acme);
    const b = await createApplication(acme);
    const otherPerson = await addPerson(acme, b.id);
    const issued = await issue(acme, a.id, 'application/pdf', PDF.length);
    await put(issued.uploadUrl, PDF);
    const wrongApp = await register(acme, b.id, { documentKey: issued.documentKey, type: 'other' });
    expect(wrongApp.statusCode).toBe(400);
    expect(wrongApp.json().errors[0].field).toBe('documentKey');
    expect((await register(acme, a.id, { documentKey: issued.documentKey, type: 'photo_id', personId: otherPerson })).json().errors[0].field).toBe('personId');
    expect((await register(acme, a.id, { documentKey: issued.documentKey, type: 'other' })).statusCode).toBe(201);
    expect((await register(acme, a.id, { documentKey: issued.documentKey, type: 'other' })).json().code).toBe('DOCUMENT_KEY_USED');
    expect((await register(globex, a.id, { documentKey: issued.documentKey, type: 'other' })).statusCode).toBe(404);
    expect((await globex.request('POST', `/v2/applications/${a.id}/documents/upload-url`, { contentType: 'application/pdf', contentLength: 10 })).statusCode).toBe(404);
  });

  it('refuses an upload URL for a type other than PDF, JPEG or PNG', async () => {
    const a = await createApplication(acme);
    const res = await acme.request('POST', `/v2/applications/${a.id}/documents/upload-url`, { contentType: 'image/gif', contentLength: 10 });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors[0].field).toBe('contentType');
  });
});
