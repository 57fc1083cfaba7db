import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { connect, type Db } from '../../src/platform/db/db.js';
import { ledgerInvariantViolations } from '../../src/domains/ledger/ledger.service.js';
import { onPostgres } from '../helpers/app.js';
import { CORRIDOR_BIN, freePort } from '../helpers/processes.js';
import { asAdmin, asPostgres, canAdminister, createCluster, dropCluster, emptyDataDir, ensureDebianPackages, installedMajor, startCluster, type Cluster } from '../helpers/pg-cluster.js';
import { corridorEnv, postUntilAnswered, saveAda, startRole, tokenFor, until } from './helpers.js';

/**
 * The backup drill of docs/operations.md: pgBackRest (Debian's package) with WAL archiving on a
 * PostgreSQL cluster of the test's own, a full backup taken while payouts run, a point-in-time
 * restore into a new cluster, Corridor started on it. Whatever TEST_DATABASE_URL names, it runs on
 * its own clusters, in the PostgreSQL pass of CI only (TEST_DATABASE_URL set).
 */

const run = promisify(execFile);
const cleanups: (() => Promise<void> | void)[] = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await Promise.resolve(c()).catch(() => undefined);
}, 240_000);

const BATCH = 8;
const STANZA = 'corridor';

async function query<T extends pg.QueryResultRow>(url: string, sql: string): Promise<T[]> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return (await c.query<T>(sql)).rows;
  } finally {
    await c.end();
  }
}

describe.skipIf(!onPostgres)('backup drill (pgBackRest on PostgreSQL clusters of its own; runs in the PostgreSQL pass only)', () => {
  it('a full backup taken while payouts run and the archived WAL restore to a chosen time in a new cluster: Corridor starts on it with the same encryption key, its audit chains verify, its ledger balances, the payouts acknowledged before the target are there and those after it are not', async (ctx) => {
    const unable = (await canAdminister()) ?? (await ensureDebianPackages({ pg_createcluster: 'postgresql', pgbackrest: 'pgbackrest' })) ?? (installedMajor() ? undefined : 'no PostgreSQL server installed');
    if (unable) {
      ctx.skip(unable);
      return;
    }
    const version = installedMajor() as string;
    const tag = `corridor_br_${process.pid}`;

    // pgBackRest's configuration and repository: a directory of the postgres user's.
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'corridor-pgbackrest-'));
    cleanups.push(() => asAdmin('rm', ['-rf', dir]).then(() => undefined));
    const conf = path.join(dir, 'pgbackrest.conf');
    const sourcePort = await freePort();
    const source = clusterPaths(version, `${tag}_src`);
    fs.writeFileSync(
      conf,
      [
        '[global]',
        `repo1-path=${dir}/repo`,
        'repo1-retention-full=2',
        `log-path=${dir}/log`,
        `lock-path=${dir}/lock`,
        `spool-path=${dir}/spool`,
        'log-level-console=warn',
        'log-level-file=off',
        'compress-type=none',
        'start-fast=y',
        '',
        `[${STANZA}]`,
        `pg1-path=${source.dataDir}`,
        `pg1-port=${sourcePort}`,
        '',
      ].join('\n'),
    );
    await asAdmin('chown', ['-R', 'postgres:postgres', dir]);
    const pgbackrest = (...args: string[]) => asPostgres('pgbackrest', [`--config=${conf}`, `--stanza=${STANZA}`, ...args], { timeoutMs: 600_000 });

    // The cluster Corridor runs on, archiving its WAL with pgBackRest.
    const cluster = await createCluster(version, source.name, sourcePort, {
      archive_mode: 'on',
      archive_command: `pgbackrest --config=${conf} --stanza=${STANZA} archive-push %p`,
    });
    cleanups.push(() => dropCluster(cluster));
    await query(cluster.url(), 'CREATE DATABASE corridor');
    await pgbackrest('stanza-create');

    const setup = corridorEnv(cluster.url('corridor'));
    cleanups.push(setup.cleanup);
    const corridor = await startRole('all', setup.env);
    cleanups.push(corridor.stop);
    const token = await tokenFor(corridor.base, setup.clientId, setup.clientSecret);
    const beneficiaryId = await saveAda(corridor.base, token);
    const payouts = async (prefix: string) => {
      const ids = new Map<string, string>();
      await Promise.all(
        Array.from({ length: BATCH }, async (_, i) => {
          const clientRef = `${prefix}-${i}`;
          const res = await postUntilAnswered(corridor.base, token, '/v1/payouts', { clientRef, amount: '2.50', currency: 'EUR', beneficiary: { id: beneficiaryId } }, clientRef);
          ids.set(clientRef, res.json.id as string);
        }),
      );
      await until(`${prefix} paid`, async () => {
        const [row] = await query<{ n: number }>(cluster.url('corridor'), `SELECT count(*)::int AS n FROM payouts WHERE client_ref LIKE '${prefix}-%' AND status = 'paid'`);
        return row?.n === BATCH;
      });
      return ids;
    };

    // A full backup while the first batch of payouts runs (the backup is online: WAL is archived meanwhile).
    const [before] = await Promise.all([payouts('before'), pgbackrest('--type=full', 'backup')]);
    // A restore to a time starts from a backup that ended before it (pgBackRest keeps whole seconds).
    await new Promise((r) => setTimeout(r, 1_500));
    // The chosen time: after the first batch, before the second (the server's clock, as recovery reads it).
    const [{ target } = { target: '' }] = await query<{ target: string }>(cluster.url(), 'SELECT clock_timestamp()::text AS target');
    await new Promise((r) => setTimeout(r, 1_500));
    const after = await payouts('after');
    // Every WAL segment up to now archived (check switches WAL and waits for it in the repository).
    await pgbackrest('check');
    await corridor.stop();

    // The drill: a new cluster restored to the chosen time, promoted when it reaches it.
    const restoredPort = await freePort();
    const restored = await createCluster(version, `${tag}_pitr`, restoredPort, {}, { start: false });
    cleanups.push(() => dropCluster(restored));
    await emptyDataDir(restored);
    const startedAt = Date.now();
    await pgbackrest(`--pg1-path=${restored.dataDir}`, '--type=time', `--target=${target}`, '--target-action=promote', 'restore');
    await startCluster(restored);
    await until('recovery to the target', async () => {
      const [row] = await query<{ recovery: boolean }>(restored.url(), 'SELECT pg_is_in_recovery() AS recovery').catch(() => [{ recovery: true }]);
      return row?.recovery === false;
    });
    console.log(`backup drill: restored to ${target} and promoted in ${Date.now() - startedAt} ms`);

    // Corridor started on it: the same encryption key (CORRIDOR_ENCRYPTION_KEY), migrations applied at start.
    const restoredEnv = { ...setup.env, DATABASE_URL: restored.url('corridor') };
    const again = await startRole('all', restoredEnv);
    cleanups.push(again.stop);
    const db: Db = await connect({ databaseUrl: restored.url('corridor'), dataDir: setup.dataDir, poolMax: 2 });
    cleanups.push(() => db.close());

    // The payouts acknowledged before the target are there, paid; those after it are not.
    const rows = await db.query<{ id: string; client_ref: string; status: string }>("SELECT id, client_ref, status FROM payouts WHERE client_ref LIKE 'before-%' OR client_ref LIKE 'after-%'");
    expect(rows.filter((r) => r.client_ref.startsWith('after-'))).toEqual([]);
    expect(new Map(rows.map((r) => [r.client_ref, r.id]))).toEqual(before);
    for (const r of rows) expect(r.status).toBe('paid');
    expect(after.size).toBe(BATCH);
    expect(await ledgerInvariantViolations(db)).toEqual([]);

    // The runbook's checks: `corridor ledger verify` and `corridor audit verify` (exit 0), the
    // operator's audit chain and the workspace's.
    expect((await run(process.execPath, [CORRIDOR_BIN, 'ledger', 'verify'], { env: restoredEnv })).stdout).toMatch(/every invariant holds/);
    const [{ workspace_id: workspaceId } = { workspace_id: '' }] = await db.query<{ workspace_id: string }>('SELECT workspace_id FROM payouts LIMIT 1');
    for (const args of [['audit', 'verify', '--operator'], ['audit', 'verify', '--workspace', workspaceId]]) {
      const { stdout } = await run(process.execPath, [CORRIDOR_BIN, ...args], { env: restoredEnv });
      expect(stdout).toMatch(/: intact, entries/);
    }

    // The sealed data reads back with the kept key, and the restored Corridor takes new payouts.
    const token2 = await tokenFor(again.base, setup.clientId, setup.clientSecret);
    const beneficiary = await fetch(`${again.base}/v1/beneficiaries/${beneficiaryId}`, { headers: { authorization: `Bearer ${token2}` } });
    expect(((await beneficiary.json()) as { name: string }).name).toBe('Ada Lovelace');
    const fresh = await postUntilAnswered(again.base, token2, '/v1/payouts', { clientRef: 'restored-1', amount: '1.00', currency: 'EUR', beneficiary: { id: beneficiaryId } }, 'restored-1');
    expect(fresh.status).toBe(201);
  }, 900_000);
});

/** The cluster's names and paths before it exists (the pgBackRest configuration names its data directory). */
function clusterPaths(version: string, name: string): Pick<Cluster, 'name' | 'dataDir'> {
  return { name, dataDir: `/var/lib/postgresql/${version}/${name}` };
}
