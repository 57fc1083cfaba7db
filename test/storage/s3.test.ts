import fs from 'node:fs';
import { createRequire } from 'node:module';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/platform/config.js';
import { S3Store } from '../../src/platform/storage/s3-store.js';
import { createStorage } from '../../src/platform/storage/storage.js';
import { createApplication, PDF } from '../applications/helpers.js';
import { createTestApp, newWorkspace, type TestApp } from '../helpers/app.js';

/** The S3 adapter against a local S3-compatible server (s3rver) started here. */

interface S3rverServer {
  run(): Promise<{ port: number }>;
  close(): Promise<void>;
}
const S3rver = createRequire(import.meta.url)('s3rver') as new (options: Record<string, unknown>) => S3rverServer;

const BUCKET = 'corridor-test';
let server: S3rverServer;
let s3Dir: string;
let uploadDir: string;
let s3Env: Record<string, string>;
let t: TestApp;

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

beforeAll(async () => {
  s3Dir = fs.mkdtempSync(path.join(os.tmpdir(), 'corridor-s3-'));
  uploadDir = fs.mkdtempSync(path.join(os.tmpdir(), 'corridor-uploads-'));
  server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory: s3Dir, configureBuckets: [{ name: BUCKET, configs: [] }] });
  const { port } = await server.run();
  s3Env = {
    S3_ENDPOINT: `http://127.0.0.1:${port}`,
    S3_BUCKET: BUCKET,
    S3_REGION: 'us-east-1',
    S3_ACCESS_KEY_ID: 'S3RVER',
    S3_SECRET_ACCESS_KEY: 'S3RVER',
    S3_FORCE_PATH_STYLE: 'true',
  };
  const apiPort = await freePort();
  t = await createTestApp({ env: { ...s3Env, UPLOAD_DIR: uploadDir, PUBLIC_BASE_URL: `http://127.0.0.1:${apiPort}` } });
  await t.app.listen({ host: '127.0.0.1', port: apiPort });
});
afterAll(async () => {
  await t?.close();
  await server?.close();
  fs.rmSync(s3Dir, { recursive: true, force: true });
  fs.rmSync(uploadDir, { recursive: true, force: true });
});

describe('S3Store', () => {
  it('puts and gets an object, and answers undefined for a missing key', async () => {
    const config = loadConfig(s3Env);
    const store = new S3Store(config.s3!);
    await store.put('tests/one', PDF, 'application/pdf');
    expect((await store.get('tests/one'))?.equals(PDF)).toBe(true);
    expect(await store.get('tests/missing')).toBeUndefined();
  });
});

describe('uploads with S3_* set', () => {
  it('stores a document PUT to the signed URL in the bucket, and nothing on local disk', async () => {
    expect(t.config.s3?.bucket).toBe(BUCKET);
    const c = await newWorkspace(t.app);
    const a = await createApplication(c);
    const issued = await c.request('POST', `/v2/applications/${a.id}/documents/upload-url`, { contentType: 'application/pdf', contentLength: PDF.length });
    const { documentKey, uploadUrl } = issued.json<{ documentKey: string; uploadUrl: string }>();
    const put = await fetch(uploadUrl, { method: 'PUT', body: new Uint8Array(PDF), headers: { 'content-type': 'application/pdf' } });
    expect(put.status, await put.clone().text()).toBe(200);
    const [row] = await t.ctx.db.query<{ storage_key: string }>('SELECT storage_key FROM uploads WHERE key = $1', [documentKey]);
    const storage = createStorage(t.config, t.ctx.box);
    expect(storage.kind).toBe('s3');
    expect((await storage.get(row!.storage_key))?.equals(PDF)).toBe(true);
    expect(fs.readdirSync(uploadDir)).toEqual([]);
    const registered = await c.request('POST', `/v2/applications/${a.id}/documents`, { documentKey, type: 'certificate_of_incorporation' });
    expect(registered.statusCode, registered.body).toBe(201);
  });
});
