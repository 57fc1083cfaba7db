import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pollInbound } from '../../src/connectors/bank/inbound/inbound.service.js';
import { LocalDirectorySource } from '../../src/connectors/bank/inbound/inbound.source.js';
import { createTestApp, OPERATOR_KEY, operator, type TestApp } from '../helpers/app.js';
import { camt053, camt054, writeAnswer } from '../helpers/bank-answers.js';
import { WebClient } from '../helpers/web-client.js';

/** The console's Reconciliation page: statements per bank account and day with the difference, a statement's lines, ignoring a line, the exceptions queue. */

const SETTLEMENT = { id: 'main-eur', iban: 'DE02100100100006820101', currency: 'EUR' };
let t: TestApp;
let dir: string;
beforeAll(async () => {
  t = await createTestApp();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'corridor-console-recon-'));
  writeAnswer(dir, 'a-notification.xml', camt054({ account: SETTLEMENT, entries: [{ direction: 'debit', amount: '9.99', endToEndId: '00000000-0000-4000-8000-000000000001' }] }));
  writeAnswer(dir, 'b-statement.xml', camt053({ account: SETTLEMENT, date: '2026-03-06', opening: '100.00', statementId: 'STMT-0306', entries: [{ direction: 'debit', amount: '2.00', ref: 'FEE-0306' }] }));
  await pollInbound(t.ctx, new LocalDirectorySource(dir), { accounts: [SETTLEMENT] });
}, 300_000);
afterAll(async () => {
  await t.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('console reconciliation', () => {
  it('shows the day with its difference and the exceptions; an unmatched line is ignored with a reason, audited as console', async () => {
    const client = new WebClient(t.app);
    await client.get('/console/sign-in');
    const signed = await client.post('/console/sign-in/key', { operatorKey: OPERATOR_KEY });
    expect(signed.statusCode, signed.body).toBe(303);
    const page = await client.get('/console/reconciliation?bankAccount=main-eur&date=2026-03-06');
    expect(page.statusCode, page.body).toBe(200);
    expect(page.body).toContain('STMT-0306');
    expect(page.body).toContain('0 matched · 1 unmatched · 0 ignored');
    expect(page.body).toContain('unknown_end_to_end_id');
    expect(page.body).not.toMatch(/<script>|style="/);
    const statementId = /\/console\/reconciliation\/statements\/([0-9a-f-]{36})/.exec(page.body)?.[1];
    const statement = await client.get(`/console/reconciliation/statements/${statementId}`);
    expect(statement.statusCode, statement.body).toBe(200);
    // Its CSV opens from the console as signed in (it answered 401: the link went to the operator API).
    const csvHref = /href="([^"]+lines\.csv)"/.exec(statement.body)?.[1] ?? '';
    const csv = await client.get(csvHref);
    expect(csv.statusCode, csv.body).toBe(200);
    expect(csv.headers['content-type']).toContain('text/csv');
    expect(csv.body.split('\n')[0]).toMatch(/,/);
    expect(csv.body).toContain('STMT-0306');
    const lineId = /\/console\/reconciliation\/lines\/([0-9a-f-]{36})\/ignore/.exec(statement.body)?.[1];
    const ignored = await client.post(`/console/reconciliation/lines/${lineId}/ignore`, { reason: 'Account fee, booked to bank charges' });
    expect(ignored.statusCode, ignored.body).toBe(303);
    const lines = (await operator(t.app, 'GET', `/operator/v1/reconciliation/statements/${statementId}/lines`)).json<{ data: { status: string; reason: string; decidedBy: string }[] }>().data;
    expect(lines[0]).toMatchObject({ status: 'ignored', reason: 'Account fee, booked to bank charges', decidedBy: 'console' });
    const audit = (await operator(t.app, 'GET', '/operator/v1/audit-log?actor=console&limit=20')).json<{ data: { path: string }[] }>().data;
    expect(audit.map((a) => a.path)).toContain(`/console/reconciliation/lines/${lineId}/ignore`);
  });
});
