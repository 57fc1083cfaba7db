import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { readNacha } from '../../src/connectors/ach/nacha.js';
import { createTestApp, onPostgres, type TestApp } from '../helpers/app.js';
import { CORRIDOR_BIN, corridorFreeEnv } from '../helpers/processes.js';
import { sshdMissing, startSftpServer } from '../helpers/sftp-server.js';
import { connectorsFile } from '../bank/helpers.js';
import { fund, payingWorkspace, ref } from '../payouts/helpers.js';
import { achSection, US_PERSON } from './helpers.js';

const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c().catch(() => undefined);
});

async function until<T>(what: string, read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 120_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`${what}: still ${JSON.stringify(value)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const achFiles = (dir: string) => fs.readdirSync(dir).filter((n) => n.endsWith('.ach'));

describe.skipIf(sshdMissing)('the ACH connector under a crash', () => {
  /**
   * A worker process killed with SIGKILL after its NACHA file reached the ODFI's inbox and before it
   * recorded the delivery. The moment is held, not guessed: the test keeps a row lock on the payouts
   * (FOR NO KEY UPDATE), so the worker's delivery transaction waits on the payouts, which PostgreSQL
   * shows in pg_stat_activity, with the file in the inbox under its final name. A worker started
   * afterwards finds the file in the listing and sends nothing again. PostgreSQL only: two processes
   * share the database.
   */
  it.skipIf(!onPostgres)('a worker killed between upload and record: after a restart the payouts leave in no second file, and go processing', async () => {
    const server = await startSftpServer();
    cleanups.push(server.stop);
    const t: TestApp = await createTestApp({ env: { CORRIDOR_CONNECTORS_FILE: connectorsFile({ routes: { ach: 'ach' }, ach: achSection(server, { cutoff: { maxPayouts: 5000, maxSeconds: 1 } }) }) } });
    cleanups.push(t.close);
    const c = await payingWorkspace(t);
    await fund(c, 'USD', '100');
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await c.request('POST', '/v1/payouts', { clientRef: ref('kill'), amount: '2.00', currency: 'USD', route: 'ach', beneficiary: US_PERSON(`9100000${i}`) });
      expect(res.statusCode, res.body).toBe(201);
      ids.push(res.json<{ id: string }>().id);
    }
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'corridor-ach-worker-'));
    cleanups.push(async () => fs.rmSync(dataDir, { recursive: true, force: true }));
    const env = { ...corridorFreeEnv(), ...t.env, CORRIDOR_DATA_DIR: dataDir, JOB_POLL_MS: '20', JOB_LEASE_MS: '1000', LOG_LEVEL: 'warn' };
    const worker = (): ChildProcess => {
      const child = spawn(process.execPath, [CORRIDOR_BIN, 'start', '--role', 'worker'], { env, stdio: ['ignore', 'ignore', 'inherit'] });
      cleanups.push(async () => void child.kill('SIGKILL'));
      return child;
    };
    const lock = new pg.Client({ connectionString: t.env.DATABASE_URL });
    await lock.connect();
    cleanups.push(() => lock.end());
    await lock.query('BEGIN');
    await lock.query('SELECT id FROM payouts WHERE id = ANY($1::uuid[]) FOR NO KEY UPDATE', [ids]);
    const first = worker();
    await until(
      'the file in the inbox and the worker waiting to record it',
      async () => ({
        files: achFiles(server.inbox).length,
        recorded: (await t.ctx.db.query<{ n: number }>("SELECT count(*)::int AS n FROM ach_files WHERE status = 'recorded'"))[0]?.n,
        waiting: (await t.ctx.db.query<{ n: number }>("SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query ILIKE '%payouts%'"))[0]?.n,
      }),
      (s) => s.files === 1 && s.recorded === 1 && (s.waiting ?? 0) >= 1,
    );
    const [sent] = achFiles(server.inbox);
    const sentInode = fs.statSync(path.join(server.inbox, sent as string)).ino;
    first.kill('SIGKILL');
    await new Promise((r) => first.once('exit', r));
    await lock.query('ROLLBACK');
    expect(await t.ctx.db.query('SELECT status FROM ach_files')).toEqual([{ status: 'recorded' }]);

    const second = worker();
    await until(
      'the payouts processing',
      async () => (await t.ctx.db.query<{ n: number }>("SELECT count(*)::int AS n FROM payouts WHERE id = ANY($1::uuid[]) AND status IN ('processing', 'paid')", [ids]))[0]?.n,
      (n) => n === ids.length,
    );
    second.kill('SIGTERM');
    expect(achFiles(server.inbox)).toEqual([sent]);
    // The very file the killed worker left, not a second upload under the same name.
    expect(fs.statSync(path.join(server.inbox, sent as string)).ino).toBe(sentInode);
    expect(readNacha(fs.readFileSync(path.join(server.inbox, sent as string), 'latin1')).batches.flatMap((b) => b.entries)).toHaveLength(3);
    expect(await t.ctx.db.query('SELECT status FROM ach_files')).toEqual([{ status: 'delivered' }]);
    const events = await t.ctx.db.query<{ n: number }>("SELECT count(*)::int AS n FROM events WHERE type = 'payout.processing' AND data->>'id' = ANY($1)", [ids]);
    expect(events[0]?.n).toBe(ids.length);
  }, 300_000);
});
