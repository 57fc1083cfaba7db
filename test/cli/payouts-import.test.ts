import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Corridor } from '../../packages/sdk/src/index.js';
import { importPayouts } from '../../src/cli/payouts-import.js';
import { listeningTestApp, type Caller, type TestApp } from '../helpers/app.js';
import { invite, PASSWORD } from '../helpers/browser.js';
import { CORRIDOR_BIN, corridorFreeEnv } from '../helpers/processes.js';
import { WebClient } from '../helpers/web-client.js';
import { fund, payingWorkspace, saveBeneficiary } from '../payouts/helpers.js';

/** `corridor payouts import file.csv`: the whole file checked first, then each row once, with the same keys as the dashboard's upload. */

let t: TestApp;
let c: Caller;
let beneficiaryId: string;
let dir: string;

function csvFile(name: string, rows: number, run: string, bad: readonly number[] = []): string {
  let text = 'clientRef,amount,currency,beneficiaryId\n';
  for (let i = 1; i <= rows; i++) text += `${run}-${i},${bad.includes(i) ? '-3' : '2.50'},EUR,${beneficiaryId}\n`;
  const file = path.join(dir, name);
  writeFileSync(file, text);
  return file;
}

async function countWithRef(prefix: string): Promise<number> {
  const rows = await t.ctx.db.query<{ n: string }>('SELECT count(*)::text AS n FROM payouts WHERE workspace_id = $1 AND client_ref LIKE $2', [c.workspaceId, `${prefix}-%`]);
  return Number(rows[0]?.n);
}

describe('corridor payouts import', () => {
  let corridor: Corridor;
  const output: string[] = [];

  beforeAll(async () => {
    t = await listeningTestApp();
    c = await payingWorkspace(t);
    beneficiaryId = await saveBeneficiary(c);
    await fund(c, 'EUR', '1000.00');
    dir = mkdtempSync(path.join(tmpdir(), 'corridor-import-'));
    corridor = new Corridor({ baseUrl: t.config.publicBaseUrl, clientId: c.clientId, clientSecret: c.clientSecret, audience: 'corridor-api' });
  }, 30_000);
  afterAll(async () => {
    await t?.close();
  });

  it('refuses a file with bad rows as a whole, naming each line, and sends nothing (also from the binary)', async () => {
    const run = `cli${Date.now().toString(36)}a`;
    const file = csvFile('bad.csv', 12, run, [3, 9]);
    const log: string[] = [];
    const summary = await importPayouts(corridor, file, (text) => output.push(text), (text) => log.push(text));
    expect(summary).toMatchObject({ rows: 12, invalid: 2, sent: 0 });
    expect(log.map((l) => l.split(':')[0])).toEqual(['line 4', 'line 10']);
    expect(await countWithRef(run)).toBe(0);
    const bin = await new Promise<{ code: number; stderr: string }>((resolve) =>
      execFile(process.execPath, [CORRIDOR_BIN, 'payouts', 'import', file, '--base-url', t.config.publicBaseUrl, '--client-id', c.clientId, '--client-secret', c.clientSecret], { env: corridorFreeEnv(), timeout: 30_000 }, (err, _stdout, stderr) =>
        resolve({ code: err ? 1 : 0, stderr }),
      ),
    );
    expect(bin.code).toBe(1);
    expect(bin.stderr).toContain('2 of 12 rows need fixing; nothing was sent');
  });

  it('sends each row once: the same file again, or the dashboard upload of it, makes no second payout', async () => {
    const run = `cli${Date.now().toString(36)}b`;
    const file = csvFile('good.csv', 12, run);
    const first = await importPayouts(corridor, file, (text) => output.push(text), () => undefined);
    expect(first).toMatchObject({ rows: 12, sent: 12, refused: 0 });
    expect(await countWithRef(run)).toBe(12);
    expect(await importPayouts(corridor, file, () => undefined, () => undefined)).toMatchObject({ sent: 12, refused: 0 });
    expect(await countWithRef(run)).toBe(12);

    // The dashboard's send of the same bytes derives the same keys: it answers the payouts made here.
    const web = new WebClient(t.app, new URL(t.config.publicBaseUrl).origin);
    await web.acceptInvitation(await invite(t, c.workspaceId, `importer-${run}@example.com`, 'admin'), PASSWORD);
    await web.get('/dashboard/payouts/import');
    const { readFileSync } = await import('node:fs');
    const sent = await web.post('/dashboard/payouts/import/send', { file64: readFileSync(file).toString('base64') });
    expect(sent.statusCode, sent.body).toBe(200);
    expect(sent.body).toContain('12 already sent before');
    expect(await countWithRef(run)).toBe(12);
  });
});
