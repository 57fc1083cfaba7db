import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appendAudit, purgeStoredBytes, verifyAuditChain } from '../../src/controls/audit/audit.service.js';
import { createTestApp, type Caller, type TestApp } from '../helpers/app.js';
import { dashboardUser, type WebClient } from '../helpers/web-client.js';
import { DE_IBAN, fund, payingWorkspace } from '../payouts/helpers.js';

/**
 * Files uploaded from the pages (a payroll CSV with every employee's IBAN, a passport image) reach
 * the audit log as their name, type, size and digest only (issue 37, point 1), on both databases.
 */

let t: TestApp;
let c: Caller;
let admin: WebClient;

beforeAll(async () => {
  t = await createTestApp({ env: { SANDBOX_STEP_MS: '600000' } });
  c = await payingWorkspace(t);
  await fund(c, 'EUR', '1000');
  admin = await dashboardUser(t.app, c.workspaceId, 'upload-admin@example.com');
});
afterAll(async () => t?.close());

describe('an uploaded file in the audit log', () => {
  it('keeps a payroll CSV as its name, type, size and digest, never its rows or IBANs', async () => {
    const csv = Buffer.from(`clientRef,amount,currency,beneficiaryType,beneficiaryName,beneficiaryCountry,iban\naudit-upload-1,12.00,EUR,individual,Erika Mustermann,DE,${DE_IBAN}\n`);
    expect((await admin.get('/dashboard/payouts/import')).statusCode).toBe(200);
    const checked = await admin.postMultipart('/dashboard/payouts/import', {}, { file: { filename: 'payroll.csv', contentType: 'text/csv', bytes: csv } });
    expect(checked.statusCode, checked.body).toBeLessThan(400);

    const rows = await t.ctx.db.query<{ body: string }>(`SELECT body::text AS body FROM operator_audit_log WHERE workspace_id = $1 AND path = '/dashboard/payouts/import'`, [c.workspaceId]);
    expect(rows).toHaveLength(1);
    const body = rows[0]!.body;
    expect(body).not.toContain(DE_IBAN);
    expect(body).not.toContain('Mustermann');
    expect(JSON.parse(body)).toMatchObject({ file: { filename: 'payroll.csv', contentType: 'text/csv', size: csv.length, sha256: createHash('sha256').update(csv).digest('hex') } });
    expect(body.length).toBeLessThan(400);
  });
});

describe('the bytes earlier versions stored (migration 0080)', () => {
  it('are replaced by their size and digest, and the chain is relinked so it verifies, with old and new hashes kept', async () => {
    const csv = Buffer.from(`iban\n${DE_IBAN}\n`);
    const numbered = Object.fromEntries([...csv].map((b, i) => [String(i), b]));
    const digest = { size: csv.length, sha256: createHash('sha256').update(csv).digest('hex') };
    const entry = (path: string, body: unknown) => ({ operatorKeyId: null, method: 'POST', path, statusCode: 303, requestId: `req-${path}`, workspaceId: c.workspaceId, body, actor: 'user:test' });
    await t.ctx.db.tx((tx) => appendAudit(tx, entry('/dashboard/old-import', { file: { filename: 'payroll.csv', contentType: 'text/csv', bytes: numbered } })));
    await t.ctx.db.tx((tx) => appendAudit(tx, entry('/dashboard/old-document', { proof: { type: 'Buffer', data: [...csv] }, note: 'kept' })));
    await t.ctx.db.tx((tx) => appendAudit(tx, entry('/dashboard/later', { name: 'a later change', list: [1, 2, 3] })));
    expect((await verifyAuditChain(t.ctx.db, c.workspaceId)).valid).toBe(true);
    const [before] = await t.ctx.db.query<{ n: string }>('SELECT count(*)::text AS n FROM audit_relinks');

    const result = await t.ctx.db.tx((tx) => purgeStoredBytes(tx));
    expect(result.purged).toBe(2);

    const bodies = await t.ctx.db.query<{ path: string; body: unknown }>(`SELECT path, body FROM operator_audit_log WHERE workspace_id = $1 AND path LIKE '/dashboard/%' ORDER BY seq`, [c.workspaceId]);
    const byPath = new Map(bodies.map((r) => [r.path, r.body]));
    expect(byPath.get('/dashboard/old-import')).toEqual({ file: { filename: 'payroll.csv', contentType: 'text/csv', ...digest } });
    expect(byPath.get('/dashboard/old-document')).toEqual({ proof: digest, note: 'kept' });
    expect(byPath.get('/dashboard/later')).toEqual({ name: 'a later change', list: [1, 2, 3] });
    expect(JSON.stringify(bodies)).not.toContain(DE_IBAN);

    const verified = await verifyAuditChain(t.ctx.db, c.workspaceId);
    expect(verified.valid, JSON.stringify(verified.firstBroken)).toBe(true);
    const relinks = await t.ctx.db.query<{ reason: string; old_hash: string; new_hash: string }>('SELECT reason, old_hash, new_hash FROM audit_relinks WHERE chain = $1 ORDER BY seq', [c.workspaceId]);
    expect(relinks.length).toBe(result.relinked);
    expect(relinks.filter((r) => r.reason === 'stored_bytes_purged')).toHaveLength(2);
    expect(relinks.at(-1)?.new_hash).toBe(verified.head.hash);
    for (const r of relinks) expect(r.old_hash).not.toBe(r.new_hash);
    expect(Number(before?.n)).toBe(0);

    // A second run finds nothing left to purge and changes nothing.
    expect(await t.ctx.db.tx((tx) => purgeStoredBytes(tx))).toEqual({ purged: 0, relinked: 0 });
  });
});
