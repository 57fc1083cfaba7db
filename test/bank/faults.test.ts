import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { createRunner } from '../../src/jobs.js';
import { createTestApp, onPostgres, operator, type TestApp } from '../helpers/app.js';
import { CORRIDOR_BIN, corridorFreeEnv } from '../helpers/processes.js';
import { bankSection, inboxFiles, sshdMissing, startSftpServer, type SftpServer } from '../helpers/sftp-server.js';
import { ADA, fund, payingWorkspace, ref } from '../payouts/helpers.js';
import { BANK_ROUTES, connectorsFile } from './helpers.js';
import { until } from '../helpers/until.js';

const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c().catch(() => undefined);
});

async function started(): Promise<SftpServer> {
  const server = await startSftpServer();
  cleanups.push(server.stop);
  return server;
}

describe.skipIf(sshdMissing)(`the bank's SFTP under faults${sshdMissing ? ` (${sshdMissing})` : ''}`, () => {
  it("refuses a server whose host key is not the pinned one: nothing is sent, the payout stays queued, the operator sees why", async () => {
    const server = await started();
    const file = connectorsFile({ routes: BANK_ROUTES, bank: bankSection(server, { hostKeySha256: server.otherHostKeySha256, cutoff: { maxPayouts: 1, maxSeconds: 1 } }) });
    const t: TestApp = await createTestApp({ env: { CORRIDOR_CONNECTORS_FILE: file, JOB_POLL_MS: '20' } });
    cleanups.push(t.close);
    const runner = createRunner(t.ctx);
    runner.start();
    cleanups.push(() => runner.stop());
    const c = await payingWorkspace(t);
    await fund(c, 'EUR', '100');
    const res = await c.request('POST', '/v1/payouts', { clientRef: ref('pin'), amount: '5.00', currency: 'EUR', route: 'sepa_credit', beneficiary: ADA });
    expect(res.statusCode, res.body).toBe(201);
    const files = await until(
      'a delivery error on the file',
      async () => (await operator(t.app, 'GET', '/operator/v1/bank/files')).json<{ data: { status: string; lastError: string | null }[] }>().data,
      (rows) => rows.some((r) => r.lastError !== null),
    );
    expect(files[0]).toMatchObject({ status: 'recorded', lastError: expect.stringContaining('host key mismatch') });
    expect(files[0]?.lastError).toContain(`pinned SHA256:${server.otherHostKeySha256}`);
    expect(fs.readdirSync(server.inbox)).toEqual([]);
    expect((await c.request('GET', `/v1/payouts/${res.json<{ id: string }>().id}`)).json<{ status: string }>().status).toBe('queued');
  });

  /**
   * A worker process killed with SIGKILL after its file reached the bank's inbox and before it recorded
   * the delivery. The moment is held, not guessed: the test keeps a row lock on the payouts (FOR NO KEY
   * UPDATE: the hand-over and the cut-off still pass), so the worker's delivery transaction waits on its
   * UPDATE of the payouts, which PostgreSQL shows in pg_stat_activity; the file is in the inbox under its
   * final name by then. A worker started afterwards must find the file in the listing and send nothing
   * again. PostgreSQL only: two processes share the database.
   */
  it.skipIf(!onPostgres)('a worker killed between upload and record: after a restart the same payouts leave in no second file, and go processing', async () => {
    const server = await started();
    const payouts = 3;
    const file = connectorsFile({ routes: BANK_ROUTES, bank: bankSection(server, { cutoff: { maxPayouts: payouts, maxSeconds: 3600 } }) });
    const t: TestApp = await createTestApp({ env: { CORRIDOR_CONNECTORS_FILE: file } });
    cleanups.push(t.close);
    const c = await payingWorkspace(t);
    await fund(c, 'EUR', '100');
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'corridor-bank-worker-'));
    cleanups.push(async () => fs.rmSync(dataDir, { recursive: true, force: true }));
    const env = {
      ...corridorFreeEnv(),
      ...t.env,
      CORRIDOR_DATA_DIR: dataDir,
      JOB_POLL_MS: '20',
      // A job the killed worker had claimed is taken over when its lease ends.
      JOB_LEASE_MS: '1000',
      LOG_LEVEL: 'warn',
    };
    const worker = (): ChildProcess => {
      const child = spawn(process.execPath, [CORRIDOR_BIN, 'start', '--role', 'worker'], { env, stdio: ['ignore', 'ignore', 'inherit'] });
      cleanups.push(async () => void child.kill('SIGKILL'));
      return child;
    };
    const create = async () => {
      const res = await c.request('POST', '/v1/payouts', { clientRef: ref('kill'), amount: '2.00', currency: 'EUR', route: 'sepa_credit', beneficiary: ADA });
      expect(res.statusCode, res.body).toBe(201);
      return res.json<{ id: string }>().id;
    };
    const first = worker();
    // All but one payout: their window is neither full nor due.
    const ids: string[] = [];
    for (let i = 0; i < payouts - 1; i++) ids.push(await create());
    const lock = new pg.Client({ connectionString: t.env.DATABASE_URL });
    await lock.connect();
    cleanups.push(() => lock.end());
    await lock.query('BEGIN');
    await lock.query('SELECT id FROM payouts WHERE id = ANY($1::uuid[]) FOR NO KEY UPDATE', [ids]);
    // The last one fills the window: the worker cuts the file, uploads it, and waits on the lock to record it.
    ids.push(await create());
    await until(
      'the file in the inbox and the worker waiting to record it',
      async () => ({
        files: inboxFiles(server).length,
        waiting: (await t.ctx.db.query<{ n: number }>("SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE 'UPDATE payouts%'"))[0]?.n,
      }),
      (s) => s.files === 1 && s.waiting === 1,
    );
    const [sent] = fs.readdirSync(server.inbox);
    const sentInode = fs.statSync(path.join(server.inbox, sent as string)).ino;
    first.kill('SIGKILL');
    await new Promise((r) => first.once('exit', r));
    await lock.query('ROLLBACK');
    const [recorded] = await t.ctx.db.query<{ status: string }>('SELECT status FROM bank_files');
    expect(recorded?.status).toBe('recorded');
    const states = await t.ctx.db.query<{ status: string }>('SELECT status FROM payouts WHERE id = ANY($1::uuid[])', [ids]);
    expect(states.map((s) => s.status)).toEqual(['queued', 'queued', 'queued']);

    const second = worker();
    await until(
      'the payouts processing',
      async () => (await t.ctx.db.query<{ n: number }>("SELECT count(*)::int AS n FROM payouts WHERE id = ANY($1::uuid[]) AND status = 'processing'", [ids]))[0]?.n,
      (n) => n === payouts,
    );
    second.kill('SIGTERM');
    const inbox = fs.readdirSync(server.inbox);
    expect(inbox).toEqual([sent]);
    // The very file the killed worker left, not a second upload under the same name.
    expect(fs.statSync(path.join(server.inbox, sent as string)).ino).toBe(sentInode);
    expect(inboxFiles(server)[0]?.xml.match(/<EndToEndId>/g)).toHaveLength(payouts);
    expect(await t.ctx.db.query('SELECT status FROM bank_files')).toEqual([{ status: 'delivered' }]);
    const events = await t.ctx.db.query<{ n: number }>("SELECT count(*)::int AS n FROM events WHERE type = 'payout.processing' AND data->>'id' = ANY($1)", [ids]);
    expect(events[0]?.n).toBe(payouts);
  });
});
