import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditVerify } from '../../src/cli/audit.js';
import { AuditScope, withAuditScope } from '../../src/controls/audit/audit.service.js';
import { createTestApp, OPERATOR_KEY, operator, type TestApp } from '../helpers/app.js';
import { WebClient } from '../helpers/web-client.js';

interface Workspace {
  id: string;
}
interface Verification {
  chain: string;
  valid: boolean;
  checked: number;
  head: { seq: number; hash: string };
  firstBroken: { seq: number; reason: string; entryId: string | null } | null;
}

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({
    beforeReady: (app, ctx) => {
      // An operator change that writes, then fails: its transaction rolls back.
      app.post('/operator/v1/test-failing-change/:id', { config: { auth: 'operator' } }, async (req) => {
        const { id } = req.params as { id: string };
        await ctx.db.tx(async (tx) => {
          await tx.query("UPDATE workspaces SET name = 'Changed Then Failed' WHERE id = $1", [id]);
          throw new Error('the change failed after writing');
        });
      });
    },
  });
});
afterAll(async () => t?.close());

const verify = async (workspaceId?: string): Promise<Verification> => {
  const res = await operator(t.app, 'GET', `/operator/v1/audit-log/verify${workspaceId ? `?workspaceId=${workspaceId}` : ''}`);
  expect(res.statusCode, res.body).toBe(200);
  return res.json<Verification>();
};

/** A workspace with a few audited changes of its own: its chain. */
async function workspaceWithChain(changes = 4): Promise<string> {
  const ws = (await operator(t.app, 'POST', '/operator/v1/workspaces', { name: 'Chained Ltd', country: 'GB' })).json<Workspace>();
  for (let i = 0; i < changes; i++) {
    const res = await operator(t.app, 'PUT', `/operator/v1/workspaces/${ws.id}/capabilities/payouts`, { enabled: i % 2 === 1 });
    expect(res.statusCode, res.body).toBe(200);
  }
  return ws.id;
}

const entryAt = async (chain: string, seq: number) =>
  (await t.ctx.db.query<{ id: string }>('SELECT id::text AS id FROM operator_audit_log WHERE chain = $1 AND seq = $2', [chain, seq]))[0]!.id;

// An independent check of an export, from docs/audit-log.md alone: JCS canonical JSON, SHA-256, links.
function canonical(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  const o = value as Record<string, unknown>;
  return `{${Object.keys(o)
    .sort()
    .map((k) => `${JSON.stringify(k)}:${canonical(o[k])}`)
    .join(',')}}`;
}
function exportIsIntact(jsonl: string): boolean {
  let prev = '0'.repeat(64);
  let seq = 0;
  for (const line of jsonl.split('\n').filter(Boolean)) {
    const { hash, ...fields } = JSON.parse(line) as { hash: string; prevHash: string; seq: number };
    if (fields.seq !== seq + 1 || fields.prevHash !== prev) return false;
    if (createHash('sha256').update(canonical(fields), 'utf8').digest('hex') !== hash) return false;
    prev = hash;
    seq = fields.seq;
  }
  return seq > 0;
}

describe('the audit log as hash chains', () => {
  it('keeps one intact chain per workspace and one for the operator, verified by the API and the CLI', async () => {
    const id = await workspaceWithChain();
    const chain = await verify(id);
    expect(chain).toMatchObject({ chain: id, valid: true, firstBroken: null });
    // The workspace's creation names no workspace in its path: the operator's chain has it.
    expect(chain.head.seq).toBe(4);
    expect(chain.checked).toBe(4);
    expect(await verify()).toMatchObject({ chain: 'operator', valid: true });
    const cli = await auditVerify(t.ctx.db, { workspaceId: id });
    expect(cli.ok).toBe(true);
    expect(cli.output).toContain(`audit chain ${id}: intact, entries 1 to 4`);
  });

  it('detects a deleted entry', async () => {
    const id = await workspaceWithChain();
    await t.ctx.db.query('DELETE FROM operator_audit_log WHERE id = $1', [await entryAt(id, 2)]);
    expect((await verify(id)).firstBroken).toMatchObject({ seq: 2, reason: 'missing' });
    const cli = await auditVerify(t.ctx.db, { workspaceId: id });
    expect(cli.ok).toBe(false);
    expect(cli.output).toContain('BROKEN at seq 2 (missing)');
  });

  it('detects the newest entry deleted (against the chain head)', async () => {
    const id = await workspaceWithChain();
    await t.ctx.db.query('DELETE FROM operator_audit_log WHERE id = $1', [await entryAt(id, 4)]);
    expect((await verify(id)).firstBroken).toMatchObject({ seq: 4, reason: 'missing' });
    expect((await auditVerify(t.ctx.db, { workspaceId: id })).ok).toBe(false);
  });

  it('detects an edited entry', async () => {
    const id = await workspaceWithChain();
    const target = await entryAt(id, 3);
    await t.ctx.db.query(`UPDATE operator_audit_log SET body = '{"enabled": true}'::jsonb WHERE id = $1`, [target]);
    expect((await verify(id)).firstBroken).toMatchObject({ seq: 3, reason: 'hash_mismatch', entryId: target });
    const cli = await auditVerify(t.ctx.db, { workspaceId: id });
    expect(cli.output).toContain('BROKEN at seq 3 (hash_mismatch)');
  });

  it('detects reordered entries', async () => {
    const id = await workspaceWithChain();
    const [two, three] = [await entryAt(id, 2), await entryAt(id, 3)];
    await t.ctx.db.tx(async (tx) => {
      await tx.query('UPDATE operator_audit_log SET seq = -1 WHERE id = $1', [two]);
      await tx.query('UPDATE operator_audit_log SET seq = 2 WHERE id = $1', [three]);
      await tx.query('UPDATE operator_audit_log SET seq = 3 WHERE id = $1', [two]);
    });
    expect((await verify(id)).firstBroken).toMatchObject({ seq: 2, reason: 'prev_hash_mismatch' });
    expect((await auditVerify(t.ctx.db, { workspaceId: id })).output).toContain('BROKEN at seq 2 (prev_hash_mismatch)');
  });

  it('stays one valid chain under concurrent appends', async () => {
    const id = await workspaceWithChain(0);
    const codes = ['EUR', 'GBP', 'USD', 'NGN', 'KES', 'GHS', 'XOF', 'ZAR'];
    const answers = await Promise.all(codes.flatMap((code) => [true, false].map((enabled) => operator(t.app, 'PUT', `/operator/v1/workspaces/${id}/currencies/${code}`, { enabled }))));
    const seqs = (await t.ctx.db.query<{ seq: number }>('SELECT seq::int AS seq FROM operator_audit_log WHERE chain = $1 ORDER BY seq', [id])).map((r) => r.seq);
    expect(seqs).toEqual(answers.map((_, i) => i + 1));
    expect(await verify(id)).toMatchObject({ valid: true, head: { seq: answers.length } });
  });

  it('exports a chain as JSON Lines that verifies without Corridor, and shows an edit', async () => {
    const id = await workspaceWithChain();
    const res = await operator(t.app, 'GET', `/operator/v1/audit-log/export?workspaceId=${id}`);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/jsonl/);
    const lines = res.body.split('\n').filter(Boolean);
    expect(lines).toHaveLength(4);
    expect(exportIsIntact(res.body)).toBe(true);
    const edited = res.body.replace('"enabled":true', '"enabled":false');
    expect(exportIsIntact(edited)).toBe(false);
    expect(exportIsIntact(lines.filter((_, i) => i !== 1).join('\n'))).toBe(false);
  });
});

describe('an audit entry commits with its change', () => {
  it('a committed change and its entry are written by the same transaction', async () => {
    const id = await workspaceWithChain(0);
    const answered = await operator(t.app, 'PUT', `/operator/v1/workspaces/${id}/capabilities/payouts`, { enabled: false });
    expect(answered.statusCode, answered.body).toBe(200);
    const [entry] = await t.ctx.db.query<{ xmin: string; status_code: number }>('SELECT xmin::text AS xmin, status_code FROM operator_audit_log WHERE request_id = $1', [
      answered.headers['x-request-id'],
    ]);
    const [workspace] = await t.ctx.db.query<{ xmin: string }>('SELECT xmin::text AS xmin FROM workspaces WHERE id = $1', [id]);
    expect(entry).toMatchObject({ status_code: 200 });
    expect(entry?.xmin).toBe(workspace?.xmin);
  });

  it('a keyed POST (runIdempotent) writes its entry in its own transaction too, with its status', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/operator/v1/workspaces',
      headers: { authorization: `Bearer ${OPERATOR_KEY}`, 'idempotency-key': 'audit-same-tx-1' },
      payload: { name: 'Keyed Audit', country: 'GB' },
    });
    expect(res.statusCode).toBe(201);
    const ws = res.json<Workspace>();
    const [entry] = await t.ctx.db.query<{ xmin: string; status_code: number }>('SELECT xmin::text AS xmin, status_code FROM operator_audit_log WHERE request_id = $1', [res.headers['x-request-id']]);
    // The work ran in a savepoint (its rows carry the subtransaction's id); the stored answer is the top transaction's.
    const [stored] = await t.ctx.db.query<{ xmin: string }>("SELECT xmin::text AS xmin FROM idempotency_keys WHERE scope = 'operator' AND key = 'audit-same-tx-1'");
    expect(entry).toMatchObject({ status_code: 201, xmin: stored?.xmin });
    expect(await t.ctx.db.query('SELECT 1 FROM workspaces WHERE id = $1', [ws.id])).toHaveLength(1);
  });

  it('a change that rolls back leaves no entry of it: only the failed answer is recorded', async () => {
    const id = await workspaceWithChain(0);
    const before = (await verify(id)).head.seq;
    const res = await operator(t.app, 'POST', `/operator/v1/test-failing-change/${id}`, {});
    expect(res.statusCode).toBe(500);
    const entries = await t.ctx.db.query<{ status_code: number }>('SELECT status_code FROM operator_audit_log WHERE request_id = $1', [res.headers['x-request-id']]);
    expect(entries).toEqual([{ status_code: 500 }]);
    const [ws] = await t.ctx.db.query<{ name: string }>('SELECT name FROM workspaces WHERE id = $1', [id]);
    expect(ws?.name).toBe('Chained Ltd');
    expect((await verify(id)).head.seq).toBe(before);
  });

  it('in the scope itself: a rolled-back transaction takes the entry with it, a committed one keeps it', async () => {
    const id = await workspaceWithChain(0);
    const draft = { operatorKeyId: null, method: 'PUT', path: `/test/${id}`, requestId: 'req_scope_test', workspaceId: id, body: null };
    const failing = new AuditScope(draft, () => 200);
    await expect(
      withAuditScope(failing, () =>
        t.ctx.db.tx(async (tx) => {
          await tx.query("UPDATE workspaces SET name = 'Rolled Back' WHERE id = $1", [id]);
          throw new Error('rolled back');
        }),
      ),
    ).rejects.toThrow('rolled back');
    expect(failing.recorded).toBe(false);
    expect(await t.ctx.db.query('SELECT 1 FROM operator_audit_log WHERE request_id = $1', ['req_scope_test'])).toHaveLength(0);

    const committing = new AuditScope(draft, () => 200);
    await withAuditScope(committing, () => t.ctx.db.tx((tx) => tx.query("UPDATE workspaces SET name = 'Committed' WHERE id = $1", [id])));
    expect(committing.recorded).toBe(true);
    expect(await t.ctx.db.query('SELECT 1 FROM operator_audit_log WHERE request_id = $1', ['req_scope_test'])).toHaveLength(1);
    // Nothing more once answered: the committed change already carries the entry.
    await committing.writeAnswered(t.ctx.db, 200);
    expect(await t.ctx.db.query('SELECT 1 FROM operator_audit_log WHERE request_id = $1', ['req_scope_test'])).toHaveLength(1);
    expect((await verify(id)).valid).toBe(true);
  });
});

describe('moves from the queues carry their workspace', () => {
  it('a deposit credited from the console, and one credited through the operator API, are in the workspace chain and view', async () => {
    const id = await workspaceWithChain(0);
    const client = new WebClient(t.app);
    await client.get('/console/sign-in');
    expect((await client.post('/console/sign-in/key', { operatorKey: OPERATOR_KEY })).statusCode).toBe(303);
    await client.get('/console/deposits');
    const credited = await client.post('/console/deposits', { workspaceId: id, currency: 'USDC', amount: '12.00', rail: 'crypto', clientRef: 'console-credit-1' });
    expect(credited.statusCode, credited.body).toBe(303);
    const api = await operator(t.app, 'POST', '/operator/v1/deposits', { workspaceId: id, currency: 'USDC', amount: '5.00', rail: 'crypto', clientRef: 'api-credit-1' });
    expect(api.statusCode, api.body).toBe(201);

    const view = await operator(t.app, 'GET', `/operator/v1/audit-log?workspaceId=${id}&limit=100`);
    const entries = view.json<{ data: { path: string; statusCode: number; workspaceId: string; actor: string | null }[] }>().data;
    expect(entries).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ path: '/console/deposits', statusCode: 303, workspaceId: id, actor: 'console' }),
        expect.objectContaining({ path: '/operator/v1/deposits', statusCode: 201, workspaceId: id }),
      ]),
    );
    expect(await verify(id)).toMatchObject({ valid: true, head: { seq: 2 } });
    // The console's view of the workspace lists them.
    const page = await client.get(`/console/audit?workspaceId=${id}`);
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('/console/deposits');
  });
});
