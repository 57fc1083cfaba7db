import type { ChildProcess } from 'node:child_process';
import type net from 'node:net';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import { afterAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { createRunner } from '../../src/jobs.js';
import { ledgerInvariantViolations } from '../../src/domains/ledger/ledger.service.js';
import { createTestApp, freshPostgresDatabase, onPostgres, type TestApp } from '../helpers/app.js';
import { corridorFreeEnv, freePort, startCorridor } from '../helpers/processes.js';
import { ADA, balance, fund, payingWorkspace, ref, saveBeneficiary } from './helpers.js';

/** Proofs under concurrency and faults. They need a real server: PostgreSQL only. */

const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c().catch(() => undefined);
});

async function listen(t: TestApp): Promise<string> {
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = t.app.server.address() as net.AddressInfo;
  return `http://127.0.0.1:${port}`;
}

describe.skipIf(!onPostgres)('payouts under concurrency and faults (PostgreSQL)', () => {
  it('500 concurrent payouts against a balance that covers 300: exactly 300 are held, none overdraws, the rest are refused', async () => {
    const t = await createTestApp({ env: { SANDBOX_STEP_MS: '600000' } });
    cleanups.push(t.close);
    const c = await payingWorkspace(t);
    await fund(c, 'EUR', '300.00');
    const beneficiaryId = await saveBeneficiary(c);
    const base = await listen(t);
    const answers = await Promise.all(
      Array.from({ length: 500 }, async () => {
        const res = await fetch(`${base}/v1/payouts`, {
          method: 'POST',
          headers: { authorization: `Bearer ${c.token}`, 'content-type': 'application/json' },
          body: JSON.stringify({ clientRef: ref('c'), amount: '1.00', currency: 'EUR', beneficiary: { id: beneficiaryId } }),
        });
        return { status: res.status, body: (await res.json()) as { code?: string; status?: string } };
      }),
    );
    const created = answers.filter((a) => a.status === 201);
    const refused = answers.filter((a) => a.status === 400);
    expect(created).toHaveLength(300);
    expect(refused).toHaveLength(200);
    for (const r of refused) expect(r.body.code).toBe('INSUFFICIENT_BALANCE');
    expect(await balance(c, 'EUR')).toMatchObject({ balance: '0.00', pendingOut: '300.00', totalBalance: '300.00' });
    const [held] = await t.ctx.db.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM ledger_transfers t JOIN payouts p ON p.hold_transfer_id = t.id WHERE p.workspace_id = $1 AND t.status = 'pending'",
      [c.workspaceId],
    );
    expect(held?.n).toBe(300);
    expect(await ledgerInvariantViolations(t.ctx.db)).toEqual([]);
  });

  it('the same clientRef sent at once through the batched and the single-transaction paths makes one payout and one refusal', async () => {
    const t = await createTestApp({ env: { SANDBOX_STEP_MS: '600000' } });
    cleanups.push(t.close);
    const c = await payingWorkspace(t);
    await fund(c, 'EUR', '100');
    const beneficiaryId = await saveBeneficiary(c);
    const base = await listen(t);
    for (let round = 0; round < 10; round++) {
      const clientRef = ref('race');
      const send = (beneficiary: unknown) =>
        fetch(`${base}/v1/payouts`, {
          method: 'POST',
          headers: { authorization: `Bearer ${c.token}`, 'content-type': 'application/json' },
          body: JSON.stringify({ clientRef, amount: '1.00', currency: 'EUR', beneficiary }),
        }).then((r) => r.status);
      const statuses = await Promise.all([send({ id: beneficiaryId }), send(ADA), send({ id: beneficiaryId })]);
      expect(statuses.sort()).toEqual([201, 400, 400]);
    }
  });

  it('two workers on one queue never move a payout twice', async () => {
    const t = await createTestApp({ env: { SANDBOX_STEP_MS: '30', JOB_POLL_MS: '10' } });
    cleanups.push(t.close);
    const second = await createTestApp({ databaseUrl: t.env.DATABASE_URL, env: { ...t.env, SANDBOX_STEP_MS: '30', JOB_POLL_MS: '10' } });
    const c = await payingWorkspace(t);
    await fund(c, 'EUR', '1000');
    const beneficiaryId = await saveBeneficiary(c);
    const ids: string[] = [];
    for (let i = 0; i < 60; i++) {
      const res = await c.request('POST', '/v1/payouts', { clientRef: ref('w'), amount: '1.00', currency: 'EUR', beneficiary: { id: beneficiaryId } });
      ids.push(res.json<{ id: string }>().id);
    }
    const runners = [createRunner(t.ctx), createRunner(second.ctx)];
    runners.forEach((r) => r.start());
    try {
      const deadline = Date.now() + 30_000;
      for (;;) {
        const [row] = await t.ctx.db.query<{ n: number }>("SELECT count(*)::int AS n FROM payouts WHERE id = ANY($1) AND status = 'paid'", [ids]);
        if (row?.n === ids.length) break;
        if (Date.now() > deadline) throw new Error(`only ${row?.n} of ${ids.length} paid`);
        await new Promise((r) => setTimeout(r, 50));
      }
    } finally {
      await Promise.all(runners.map((r) => r.stop()));
      await second.app.close();
      await second.ctx.db.close();
    }
    const events = await t.ctx.db.query<{ id: string; types: string[] }>(
      "SELECT data->>'id' AS id, array_agg(type ORDER BY seq) AS types FROM events WHERE data->>'id' = ANY($1) GROUP BY 1",
      [ids],
    );
    expect(events).toHaveLength(ids.length);
    for (const e of events) expect(e.types).toEqual(['payout.processing', 'payout.paid']);
    expect(await ledgerInvariantViolations(t.ctx.db)).toEqual([]);
  });

  it('a server killed with SIGKILL mid-load loses and doubles nothing: every 201 exists, is held once and ends; retries with the same Idempotency-Key create no twin', async () => {
    const pgdb = await freshPostgresDatabase();
    cleanups.push(pgdb.drop);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'corridor-kill-'));
    cleanups.push(async () => fs.rmSync(dir, { recursive: true, force: true }));
    const port = await freePort();
    const clientId = randomUUID();
    const env = {
      ...corridorFreeEnv(),
      DATABASE_URL: pgdb.url,
      CORRIDOR_DATA_DIR: dir,
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      SANDBOX_STEP_MS: '50',
      JOB_POLL_MS: '20',
      // A leased job the killed worker had claimed is taken over when its lease ends; a payout step
      // job it had taken is due again at once (taken in the step's transaction, which died with it).
      JOB_LEASE_MS: '2000',
      RATE_LIMIT_PER_SECOND: '100000',
      CORRIDOR_BOOTSTRAP_CLIENT_ID: clientId,
      CORRIDOR_BOOTSTRAP_CLIENT_SECRET: 'cs_kill_test_secret_0123456789',
      CORRIDOR_BOOTSTRAP_OPERATOR_KEY: 'op_kill_test_key_0123456789',
    };
    const base = `http://127.0.0.1:${port}`;
    let server = await startServer(env, base);
    const token = await tokenFor(base, clientId, 'cs_kill_test_secret_0123456789');
    const beneficiary = await (await post(base, token, '/v1/beneficiaries', ADA)).json() as { id: string };

    const requests = Array.from({ length: 1200 }, (_, i) => ({ key: `kill-${i}`, body: { clientRef: `kill-${i}`, amount: '1.00', currency: 'EUR', beneficiary: { id: beneficiary.id } } }));
    const answered = new Map<string, string>(); // clientRef → payout id
    // Killed mid-load: once 100 payouts are answered, whatever the machine's speed (a fixed delay let a fast run finish first).
    let killed = false;
    let next = 0;
    const worker = async () => {
      while (next < requests.length) {
        const r = requests[next++] as (typeof requests)[number];
        try {
          const res = await post(base, token, '/v1/payouts', r.body, r.key);
          if (res.status === 201) answered.set(r.body.clientRef, ((await res.json()) as { id: string }).id);
        } catch {
          // no answer: the server died under it
        }
        if (!killed && answered.size >= 100) {
          killed = true;
          server.kill('SIGKILL');
        }
      }
    };
    await Promise.all(Array.from({ length: 16 }, worker));
    expect(killed).toBe(true);
    expect(answered.size).toBeGreaterThan(0);
    expect(answered.size).toBeLessThan(requests.length);

    server = await startServer(env, base);
    // Every request that got no 201 is retried with its Idempotency-Key and body.
    for (const r of requests) {
      if (answered.has(r.body.clientRef)) continue;
      const res = await post(base, token, '/v1/payouts', r.body, r.key);
      expect(res.status, await res.clone().text()).toBe(201);
      answered.set(r.body.clientRef, ((await res.json()) as { id: string }).id);
    }
    const db = new pg.Client({ connectionString: pgdb.url });
    await db.connect();
    try {
      const deadline = Date.now() + 60_000;
      for (;;) {
        const { rows } = await db.query<{ n: number }>("SELECT count(*)::int AS n FROM payouts WHERE status NOT IN ('paid', 'failed', 'cancelled')");
        if (rows[0]?.n === 0) break;
        if (Date.now() > deadline) throw new Error(`${rows[0]?.n} payouts not terminal`);
        await new Promise((r) => setTimeout(r, 100));
      }
      const { rows: payouts } = await db.query<{ id: string; client_ref: string; status: string; holds: number }>(
        `SELECT p.id, p.client_ref, p.status,
                (SELECT count(*)::int FROM ledger_transfers t WHERE t.reference_type = 'payout' AND t.reference_id = p.id::text AND t.two_phase) AS holds
           FROM payouts p WHERE p.client_ref LIKE 'kill-%'`,
      );
      expect(payouts).toHaveLength(requests.length);
      for (const p of payouts) {
        expect(answered.get(p.client_ref)).toBe(p.id);
        expect(p.status).toBe('paid');
        expect(p.holds).toBe(1);
      }
      const { rows: events } = await db.query<{ n: number }>("SELECT count(*)::int AS n FROM events WHERE type = 'payout.paid' AND data->>'clientRef' LIKE 'kill-%'");
      expect(events[0]?.n).toBe(requests.length);
    } finally {
      await db.end();
      server.kill('SIGTERM');
    }
  }, 180_000);
});

async function startServer(env: NodeJS.ProcessEnv, base: string): Promise<ChildProcess> {
  const child = await startCorridor(['start'], env, base);
  cleanups.push(async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  return child;
}

async function tokenFor(base: string, clientId: string, secret: string): Promise<string> {
  const res = await fetch(`${base}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ client_id: clientId, client_secret: secret, audience: 'corridor-api', grant_type: 'client_credentials' }),
  });
  return ((await res.json()) as { access_token: string }).access_token;
}

function post(base: string, token: string, url: string, body: unknown, key?: string): Promise<Response> {
  return fetch(`${base}${url}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...(key ? { 'idempotency-key': key } : {}) },
    body: JSON.stringify(body),
  });
}
