import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { connect, type Db } from '../../src/platform/db/db.js';
import { ledgerInvariantViolations } from '../../src/domains/ledger/ledger.service.js';
import { onPostgres } from '../helpers/app.js';
import { HttpsReceiver } from '../helpers/https-receiver.js';
import { freePort } from '../helpers/processes.js';
import { canAdminister, createCluster, createStandby, dropCluster, ensureDebianPackages, installedMajor, killPostmaster, promote, type Cluster } from '../helpers/pg-cluster.js';
import { corridorEnv, post, postUntilAnswered, saveAda, startRole, tokenFor, until, type Running } from './helpers.js';

/**
 * Failover to a synchronous streaming standby, on two PostgreSQL clusters of the test's own
 * (Debian's pg_createcluster on loopback ports), whatever TEST_DATABASE_URL names. It runs in the
 * PostgreSQL pass of CI only (TEST_DATABASE_URL set), not again in the embedded-database pass.
 */

const cleanups: (() => Promise<void> | void)[] = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await Promise.resolve(c()).catch(() => undefined);
}, 240_000);

const PAYOUTS = 40;
const KILL_AFTER = 12;
const CLIENTS = 4;

describe.skipIf(!onPostgres)('failover (two PostgreSQL clusters of its own; runs in the PostgreSQL pass only)', () => {
  it('kill -9 of the primary under payout and webhook load, standby promoted: the API and worker processes reconnect through the multi-host DATABASE_URL without a restart; no acknowledged payout lost or doubled, the ledger balanced, every event delivered at least once and applied once', async (ctx) => {
    const unable = (await canAdministerOrInstall()) ?? (installedMajor() ? undefined : 'no PostgreSQL server installed');
    if (unable) {
      ctx.skip(unable);
      return;
    }
    const version = installedMajor() as string;
    const tag = `corridor_fo_${process.pid}`;
    const [primaryPort, standbyPort] = [await freePort(), await freePort()];
    const primary = await createCluster(version, `${tag}_a`, primaryPort);
    cleanups.push(() => dropCluster(primary));
    await psql(primary, 'CREATE DATABASE corridor');
    const standby: Cluster = await createStandby(primary, `${tag}_b`, standbyPort, 'corridor_standby');
    cleanups.push(() => dropCluster(standby));
    // Synchronous once the standby streams (before, every commit would wait for it): a commit is
    // acknowledged once the standby has flushed it, so promoting it loses none.
    await psql(primary, "ALTER SYSTEM SET synchronous_standby_names = 'corridor_standby'");
    await psql(primary, 'SELECT pg_reload_conf()');
    await until('the standby synchronous', async () => (await psql(primary, 'SELECT sync_state FROM pg_stat_replication'))[0]?.sync_state === 'sync', 120_000);

    const databaseUrl = `postgres://postgres@127.0.0.1:${primaryPort},127.0.0.1:${standbyPort}/corridor?target_session_attrs=read-write`;
    const setup = corridorEnv(databaseUrl);
    cleanups.push(setup.cleanup);
    const api: Running = await startRole('api', setup.env);
    cleanups.push(api.stop);
    const worker: Running = await startRole('worker', setup.env);
    cleanups.push(worker.stop);

    const receiver = await HttpsReceiver.start();
    cleanups.push(() => receiver.close());
    const token = await tokenFor(api.base, setup.clientId, setup.clientSecret);
    const endpoint = await postUntilAnswered(api.base, token, '/v1/webhooks', { url: receiver.url('/hooks', '127.0.0.1') }, 'fo-endpoint');
    const signer = new Webhook(endpoint.json.secret as string);
    const beneficiaryId = await saveAda(api.base, token);

    // The load: CLIENTS clients sending keyed payouts, each retried with its key until answered.
    const answered = new Map<string, { id: string; at: number; sentAt: number }>(); // clientRef → the 201's payout
    let killedAt: number | undefined;
    let promotedAt: number | undefined;
    let failover: Promise<void> | undefined;
    let next = 0;
    const client = async () => {
      while (next < PAYOUTS) {
        const clientRef = `fo-${next++}`;
        const sentAt = Date.now();
        const res = await postUntilAnswered(api.base, token, '/v1/payouts', { clientRef, amount: '1.00', currency: 'EUR', beneficiary: { id: beneficiaryId } }, clientRef);
        expect(res.status).toBe(201);
        answered.set(clientRef, { id: res.json.id as string, at: res.at, sentAt });
        if (answered.size >= KILL_AFTER && !failover) {
          failover = (async () => {
            await killPostmaster(primary);
            killedAt = Date.now();
            await promote(standby);
            promotedAt = Date.now();
          })();
        }
      }
    };
    await Promise.all(Array.from({ length: CLIENTS }, client));
    await failover;
    expect(killedAt).toBeDefined();
    // Time to recover: from the kill to the first payout acknowledged that was sent after it.
    const firstAfter = Math.min(...[...answered.values()].filter((a) => a.sentAt > (killedAt as number)).map((a) => a.at));
    const recoveryMs = firstAfter - (killedAt as number);
    console.log(`failover: standby promoted ${(promotedAt as number) - (killedAt as number)} ms after the kill; first payout acknowledged ${recoveryMs} ms after it`);
    expect(Number.isFinite(recoveryMs)).toBe(true);

    // The same processes, never restarted, go on against the promoted standby.
    expect(api.child.exitCode).toBeNull();
    expect(worker.child.exitCode).toBeNull();
    const db: Db = await connect({ databaseUrl, dataDir: setup.dataDir, poolMax: 2 });
    cleanups.push(() => db.close());
    const [where] = await db.query<{ port: number; recovery: boolean }>('SELECT inet_server_port() AS port, pg_is_in_recovery() AS recovery');
    expect(where).toEqual({ port: standbyPort, recovery: false });

    // Every payout the worker carried to paid, and every event of the workspace delivered.
    await until('every payout paid', async () => {
      const [row] = await db.query<{ n: number }>("SELECT count(*)::int AS n FROM payouts WHERE client_ref LIKE 'fo-%' AND status = 'paid'");
      return row?.n === PAYOUTS;
    });
    const events = await db.query<{ id: string; type: string }>(
      "SELECT e.id, e.type FROM events e JOIN webhook_endpoints w ON w.workspace_id = e.workspace_id WHERE e.type LIKE 'payout.%'",
    );
    expect(events.length).toBeGreaterThanOrEqual(PAYOUTS * 2);
    await receiver.waitUntil('/hooks', (got) => events.every((e) => got.some((r) => r.body.includes(`"id":${JSON.stringify(e.id)}`))), 180_000, 'every event');

    // No acknowledged payout lost, none doubled: one payout per key, the one the 201 named, held once.
    const payouts = await db.query<{ id: string; client_ref: string; holds: number }>(
      `SELECT p.id, p.client_ref,
              (SELECT count(*)::int FROM ledger_transfers t WHERE t.reference_type = 'payout' AND t.reference_id = p.id::text AND t.two_phase) AS holds
         FROM payouts p WHERE p.client_ref LIKE 'fo-%'`,
    );
    expect(payouts).toHaveLength(PAYOUTS);
    for (const p of payouts) {
      expect(answered.get(p.client_ref)?.id).toBe(p.id);
      expect(p.holds).toBe(1);
    }
    expect(await ledgerInvariantViolations(db)).toEqual([]);

    // The receiver applies each event once, by its id, however many times it came (each signed):
    // what it applied is exactly the events the promoted standby holds, nothing from the dead primary.
    const applied = new Set<string>();
    let repeats = 0;
    for (const r of receiver.requests('/hooks')) {
      const body = signer.verify(r.body, r.headers as Record<string, string>) as { id: string; type: string };
      if (!body.type.startsWith('payout.')) continue;
      if (applied.has(body.id)) repeats++;
      else applied.add(body.id);
    }
    expect([...applied].sort()).toEqual(events.map((e) => e.id).sort());
    console.log(`failover: ${events.length} events applied once each; ${repeats} repeated deliveries ignored`);

    // A payout sent now is answered and paid at once: nothing is left waiting on the dead primary.
    const after = await post(api.base, token, '/v1/payouts', { clientRef: 'fo-after', amount: '1.00', currency: 'EUR', beneficiary: { id: beneficiaryId } }, 'fo-after');
    expect(after.status).toBe(201);
  }, 900_000);
});

async function canAdministerOrInstall(): Promise<string | undefined> {
  return (await canAdminister()) ?? (await ensureDebianPackages({ pg_createcluster: 'postgresql', pg_basebackup: 'postgresql' }));
}

async function psql(cluster: Cluster, sql: string): Promise<Record<string, unknown>[]> {
  const c = new pg.Client({ connectionString: cluster.url() });
  await c.connect();
  try {
    return (await c.query(sql)).rows as Record<string, unknown>[];
  } finally {
    await c.end();
  }
}
