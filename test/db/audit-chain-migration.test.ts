import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../src/platform/db/db.js';
import { listMigrations, migrate } from '../../src/platform/db/migrate.js';
import { CryptoBox } from '../../src/platform/lib/crypto-box.js';
import { verifyAuditChain } from '../../src/controls/audit/audit.service.js';
import { blankDatabase } from '../helpers/app.js';

describe('migration 0027 chains the entries written before it', () => {
  let db: Db;
  let close: (() => Promise<void>) | undefined;
  beforeAll(async () => {
    ({ db, close } = await blankDatabase());
  });
  afterAll(async () => {
    await close?.();
  });

  it('in the order they were written, each into its workspace chain, and both chains verify', async () => {
    const box = CryptoBox.fromKey(randomBytes(32));
    const all = listMigrations();
    await migrate(db, box, all.filter((m) => m.version < '0027'));
    const workspace = randomUUID();
    const rows: [string, string | null, string][] = [
      ['2024-01-01T00:00:00.000001Z', null, '{"name":"A","nested":{"b":1,"a":[1,2]}}'],
      ['2024-01-01T00:00:01Z', workspace, '{"enabled":true}'],
      ['2024-01-01T00:00:02Z', null, 'null'],
      ['2024-01-01T00:00:03.5Z', workspace, '{"z":"é🚀","a":null}'],
    ];
    for (const [at, ws, body] of rows) {
      await db.query(
        `INSERT INTO operator_audit_log (id, at, operator_key, method, path, status_code, request_id, workspace_id, body, actor)
         VALUES ($1, $2::timestamptz, NULL, 'POST', '/x', 200, 'req', $3, $4::jsonb, 'console')`,
        [randomUUID(), at, ws, body],
      );
    }
    await migrate(db, box, all);
    expect(await verifyAuditChain(db, undefined)).toMatchObject({ valid: true, checked: 2, head: { seq: 2 } });
    expect(await verifyAuditChain(db, workspace)).toMatchObject({ valid: true, checked: 2, head: { seq: 2 } });
    const order = await db.query<{ seq: number; at: string }>(`SELECT seq::int AS seq, to_char(at AT TIME ZONE 'UTC', 'SS.US') AS at FROM operator_audit_log WHERE chain = 'operator' ORDER BY seq`);
    expect(order).toEqual([
      { seq: 1, at: '00.000001' },
      { seq: 2, at: '02.000000' },
    ]);
  });
});
