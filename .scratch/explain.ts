import { randomBytes, randomUUID } from 'node:crypto';
import pg from 'pg';
import { connect } from '../src/db/db.js';
import { migrate } from '../src/db/migrate.js';
import { CryptoBox } from '../src/lib/crypto-box.js';
import { insertEvents } from '../src/modules/events/events.repository.js';
import { dispatchEvents } from '../src/modules/webhooks/webhooks.repository.js';

const name = `scratch_h26a_${randomBytes(3).toString('hex')}`;
const admin = new pg.Client({ connectionString: 'postgres://postgres@127.0.0.1:5432/postgres' });
await admin.connect();
await admin.query(`CREATE DATABASE ${name}`);
const url = `postgres://postgres@127.0.0.1:5432/${name}`;
const db = await connect({ databaseUrl: url, poolMax: 2 });
try {
  await migrate(db, CryptoBox.fromKey(randomBytes(32)));
  const ws = randomUUID();
  await db.query(`INSERT INTO workspaces (id, name, country, enabled_currencies) VALUES ($1, 'Acme', 'GB', '{EUR}')`, [ws]);
  await db.query(`INSERT INTO webhook_endpoints (id, workspace_id, url, secret_encrypted, created_at) VALUES ($1, $2, 'https://x.test/h', 'x', now() - interval '1 day')`, [randomUUID(), ws]);
  const mk = (n: number) => Array.from({ length: n }, (_, i) => ({ id: `evt_${randomBytes(8).toString('hex')}`, workspaceId: ws, type: 'payout.paid', data: { id: randomUUID(), object: 'payout', amount: '10.00', currency: 'EUR', status: 'paid', n: i } }));
  for (let r = 0; r < Number(process.env.ROUNDS ?? 20); r++) {
    await insertEvents(db, mk(50));
    const mode = process.env.MODE ?? 'plain';
    if (r === Number(process.env.ROUNDS ?? 20) - 1) {
      const c = new pg.Client({ connectionString: url });
      await c.connect();
      await c.query('LOAD \'auto_explain\'');
      await c.query("SET auto_explain.log_min_duration = 0; SET auto_explain.log_analyze = on; SET auto_explain.log_nested_statements = on; SET client_min_messages = log; SET auto_explain.log_buffers = on; SET auto_explain.log_wal = on");
      c.on('notice', (n) => console.log(n.message));
      const sqlc = { query: async (t: string, p?: readonly unknown[]) => (await c.query(t, p as unknown[])).rows, exec: async () => {} };
      const t0 = performance.now();
      const r2 = await dispatchEvents(sqlc as never, 500, mode === 'lease' ? { workerId: 'w', leaseMs: 5000, free: [], depth: 100, room: 100 } : undefined);
      console.log('ms', performance.now() - t0, r2.events, r2.leased.length);
      await c.end();
    } else await dispatchEvents(db, 500, process.env.MODE === 'lease' ? { workerId: 'w', leaseMs: 5000, free: [], depth: 100, room: 100 } : undefined);
  }
} finally {
  await db.close();
  await admin.query(`DROP DATABASE ${name}`);
  await admin.end();
}
