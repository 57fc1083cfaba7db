import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readNacha } from '../../src/connectors/ach/nacha.js';
import { createTestApp, onPostgres, type TestApp } from '../helpers/app.js';
import { crashCleanups, killHard, lockPayouts, until, waitingOnPayouts, workerStarter } from '../helpers/worker-crash.js';
import { sshdMissing, startSftpServer } from '../helpers/sftp-server.js';
import { connectorsFile } from '../bank/helpers.js';
import { fund, payingWorkspace, ref } from '../payouts/helpers.js';
import { achSection, US_PERSON } from './helpers.js';

const cleanup = crashCleanups();

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
    cleanup(server.stop);
    const t: TestApp = await createTestApp({ env: { CORRIDOR_CONNECTORS_FILE: connectorsFile({ routes: { ach: 'ach' }, ach: achSection(server, { cutoff: { maxPayouts: 5000, maxSeconds: 1 } }) }) } });
    cleanup(t.close);
    const c = await payingWorkspace(t);
    await fund(c, 'USD', '100');
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await c.request('POST', '/v1/payouts', { clientRef: ref('kill'), amount: '2.00', currency: 'USD', route: 'ach', beneficiary: US_PERSON(`9100000${i}`) });
      expect(res.statusCode, res.body).toBe(201);
      ids.push(res.json<{ id: string }>().id);
    }
    const worker = workerStarter(t.env, cleanup);
    const lock = await lockPayouts(t.env.DATABASE_URL!, ids, cleanup);
    const first = worker();
    await until(
      'the file in the inbox and the worker waiting to record it',
      async () => ({
        files: achFiles(server.inbox).length,
        recorded: (await t.ctx.db.query<{ n: number }>("SELECT count(*)::int AS n FROM ach_files WHERE status = 'recorded'"))[0]?.n,
        waiting: await waitingOnPayouts(t.ctx),
      }),
      (s) => s.files === 1 && s.recorded === 1 && s.waiting >= 1,
    );
    const [sent] = achFiles(server.inbox);
    const sentInode = fs.statSync(path.join(server.inbox, sent as string)).ino;
    await killHard(first);
    await lock.release();
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
