/**
 * The SDK as a package (issue 25, point 4): `npm run sdk:pack` makes a tarball that an application
 * outside this repository installs (offline, no link), imports as `@corridor/sdk`, and uses against
 * a live server: a call's `lastResponse` (request id, headers) and the upload helper (URL, PUT,
 * registration in one call).
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listeningTestApp, newWorkspace, type Caller, type TestApp } from '../../../test/helpers/app.js';

const ROOT = path.resolve(import.meta.dirname, '..', '..', '..');

function run(command: string, args: string[], cwd: string, env: Record<string, string> = {}): Promise<string> {
  return new Promise((resolve, reject) =>
    execFile(command, args, { cwd, env: { ...process.env, ...env }, timeout: 300_000, maxBuffer: 10 * 1024 * 1024 }, (err, stdout, stderr) =>
      err ? reject(new Error(`${command} ${args.join(' ')}: ${err.message}\n${stderr}`)) : resolve(stdout),
    ),
  );
}

let t: TestApp;
let caller: Caller;
let appDir: string;

beforeAll(async () => {
  t = await listeningTestApp();
  caller = await newWorkspace(t.app);
  appDir = fs.mkdtempSync(path.join(os.tmpdir(), 'corridor-sdk-app-'));
}, 300_000);
afterAll(async () => {
  await t.close();
  fs.rmSync(appDir, { recursive: true, force: true });
});

const APP = `import { Corridor } from '@corridor/sdk';

const corridor = new Corridor({ baseUrl: process.env.BASE, clientId: process.env.CLIENT_ID, clientSecret: process.env.CLIENT_SECRET });
const account = await corridor.accounts.current();
const application = await corridor.applications.create({ applicationType: 'business' });
const pdf = new TextEncoder().encode('%PDF-1.4\\n1 0 obj\\n<< /Type /Catalog >>\\nendobj\\ntrailer\\n<< /Root 1 0 R >>\\n%%EOF\\n');
const document = await corridor.applications.documents.upload({ id: application.id }, { file: pdf, contentType: 'application/pdf', type: 'certificate_of_incorporation' });
console.log(JSON.stringify({
  account: account.id,
  requestId: account.lastResponse.requestId,
  status: account.lastResponse.status,
  contentType: account.lastResponse.headers.get('content-type'),
  enumerable: Object.keys(account).includes('lastResponse'),
  document: { id: document.id, type: document.type, status: document.lastResponse.status },
}));
`;

describe('npm run sdk:pack', () => {
  it('makes a tarball an application installs without linking, and uses against a live server', async () => {
    await run('npm', ['run', '-s', 'sdk:pack'], ROOT);
    const tarball = path.join(ROOT, 'packages', 'sdk', 'corridor-sdk-0.1.0.tgz');
    expect(fs.existsSync(tarball)).toBe(true);

    fs.writeFileSync(path.join(appDir, 'package.json'), JSON.stringify({ name: 'integrator-app', private: true, type: 'module' }));
    await run('npm', ['install', '--offline', '--no-audit', '--no-fund', tarball], appDir);
    const installed = path.join(appDir, 'node_modules', '@corridor', 'sdk');
    expect(fs.lstatSync(installed).isSymbolicLink()).toBe(false);
    expect(fs.existsSync(path.join(installed, 'dist', 'index.d.ts'))).toBe(true);
    expect(JSON.parse(fs.readFileSync(path.join(appDir, 'package.json'), 'utf8')).dependencies['@corridor/sdk']).toMatch(/^file:/);

    fs.writeFileSync(path.join(appDir, 'app.mjs'), APP);
    const out = JSON.parse(await run(process.execPath, ['app.mjs'], appDir, { BASE: t.config.publicBaseUrl, CLIENT_ID: caller.clientId, CLIENT_SECRET: caller.clientSecret })) as {
      account: string;
      requestId: string;
      status: number;
      contentType: string;
      enumerable: boolean;
      document: { id: string; type: string; status: number };
    };
    expect(out.account).toBe(caller.workspaceId);
    expect(out.requestId).toMatch(/^req_/);
    expect(out.status).toBe(200);
    expect(out.contentType).toMatch(/^application\/json/);
    expect(out.enumerable).toBe(false);
    expect(out.document).toMatchObject({ type: 'certificate_of_incorporation', status: 201 });
    const listed = await caller.request('GET', `/v2/applications`);
    const applicationId = listed.json<{ data: { id: string }[] }>().data[0]!.id;
    const documents = await caller.request('GET', `/v2/applications/${applicationId}/documents`);
    expect(documents.json<{ data: { id: string }[] }>().data.map((d) => d.id)).toEqual([out.document.id]);
  }, 300_000);

  it('is required from a CommonJS application, typed there too, and works against a live server', async () => {
    await run('npm', ['run', '-s', 'sdk:pack'], ROOT);
    const cjsDir = fs.mkdtempSync(path.join(os.tmpdir(), 'corridor-sdk-cjs-'));
    try {
      fs.writeFileSync(path.join(cjsDir, 'package.json'), JSON.stringify({ name: 'integrator-cjs-app', private: true, type: 'commonjs' }));
      await run('npm', ['install', '--offline', '--no-audit', '--no-fund', path.join(ROOT, 'packages', 'sdk', 'corridor-sdk-0.1.0.tgz')], cjsDir);
      // TypeScript compiling for CommonJS finds the declarations through the package's "require" condition.
      fs.writeFileSync(
        path.join(cjsDir, 'app.cts'),
        `import { Corridor, CorridorError, type Payout } from '@corridor/sdk';
const corridor = new Corridor({ baseUrl: process.env.BASE as string, clientId: process.env.CLIENT_ID as string, clientSecret: process.env.CLIENT_SECRET as string });
async function main(): Promise<void> {
  const account = await corridor.accounts.current();
  let code: string | undefined;
  try {
    await corridor.payouts.get({ id: '00000000-0000-4000-8000-000000000000' });
  } catch (err) {
    if (err instanceof CorridorError) code = err.code;
  }
  const none: Payout[] = [];
  console.log(JSON.stringify({ account: account.id, status: account.lastResponse.status, code, none: none.length, loadedAs: typeof module }));
}
void main();
`,
      );
      await run(process.execPath, [path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '--strict', '--module', 'nodenext', '--moduleResolution', 'nodenext', '--target', 'es2022', '--types', 'node', '--typeRoots', path.join(ROOT, 'node_modules', '@types'), '--skipLibCheck', 'app.cts'], cjsDir);
      expect(fs.existsSync(path.join(cjsDir, 'app.cjs'))).toBe(true);
      expect(fs.readFileSync(path.join(cjsDir, 'app.cjs'), 'utf8')).toContain('require("@corridor/sdk")');
      const out = JSON.parse(await run(process.execPath, ['app.cjs'], cjsDir, { BASE: t.config.publicBaseUrl, CLIENT_ID: caller.clientId, CLIENT_SECRET: caller.clientSecret })) as Record<string, unknown>;
      expect(out).toEqual({ account: caller.workspaceId, status: 200, code: expect.stringMatching(/NOT_FOUND/), none: 0, loadedAs: 'object' });
    } finally {
      fs.rmSync(cjsDir, { recursive: true, force: true });
    }
  }, 300_000);
});
