import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pollInbound } from '../../src/connectors/bank/inbound/inbound.service.js';
import { LocalDirectorySource } from '../../src/connectors/bank/inbound/inbound.source.js';
import { createTestApp, OPERATOR_KEY, operator, type TestApp } from '../helpers/app.js';
import { camt053, camt054, writeAnswer, type EntryAnswer } from '../helpers/bank-answers.js';
import { WebClient } from '../helpers/web-client.js';
import { fund, payingWorkspace, ref, saveBeneficiary } from '../payouts/helpers.js';

/**
 * The console's reconciliation as a desk works it (issue 37 point 1): a long statement read a page at
 * a time, unmatched lines only by default, a line matched by hand to the movement it is, who ignored or
 * matched what and when, and the history of resolved exceptions.
 */

const SETTLEMENT = { id: 'main-eur', iban: 'DE02100100100006820101', currency: 'EUR' };
const DAY = '2026-03-09';
let t: TestApp;
let dir: string;
let payoutId: string;
let statementPath: string;
const client = () => new WebClient(t.app);
let web: WebClient;

beforeAll(async () => {
  t = await createTestApp({ env: { SANDBOX_STEP_MS: '600000' } });
  const c = await payingWorkspace(t);
  await fund(c, 'EUR', '1000.00');
  const beneficiaryId = await saveBeneficiary(c);
  const created = await c.request('POST', '/v1/payouts', { clientRef: ref('recon'), amount: '42.00', currency: 'EUR', beneficiary: { id: beneficiaryId } });
  expect(created.statusCode, created.body).toBe(201);
  payoutId = created.json<{ id: string }>().id;
  expect((await operator(t.app, 'POST', `/operator/v1/payouts/${payoutId}/process`)).statusCode).toBe(200);
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'corridor-console-recon-work-'));
  const source = new LocalDirectorySource(dir);
  // The payout is booked by its EndToEndId; the day's statement shows it under the bank's own reference only (no automatic match), among 25 fees.
  writeAnswer(dir, 'a-debit.xml', camt054({ account: SETTLEMENT, entries: [{ direction: 'debit', amount: '42.00', endToEndId: payoutId, ref: 'BOOK-42', bookingDate: DAY }] }));
  writeAnswer(dir, 'b-unknown.xml', camt054({ account: SETTLEMENT, entries: [{ direction: 'debit', amount: '7.77', endToEndId: '00000000-0000-4000-8000-000000000777' }] }));
  const fees: EntryAnswer[] = Array.from({ length: 25 }, (_, i) => ({ direction: 'debit', amount: `0.${String(10 + i)}`, ref: `FEE-${i}` }));
  writeAnswer(dir, 'c-statement.xml', camt053({ account: SETTLEMENT, date: DAY, opening: '1000.00', statementId: 'STMT-0309', entries: [{ direction: 'debit', amount: '42.00', ref: 'STMT-REF-42' }, ...fees] }));
  for (let i = 0; i < 3; i++) await pollInbound(t.ctx, source, { accounts: [SETTLEMENT] });
  web = client();
  await web.get('/console/sign-in');
  expect((await web.post('/console/sign-in/key', { operatorKey: OPERATOR_KEY })).statusCode).toBe(303);
  const page = await web.get(`/console/reconciliation?bankAccount=main-eur&date=${DAY}`);
  statementPath = `/console/reconciliation/statements/${/\/console\/reconciliation\/statements\/([0-9a-f-]{36})/.exec(page.body)?.[1]}`;
}, 300_000);
afterAll(async () => {
  await t.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('console reconciliation work', () => {
  it('shows a long statement a page at a time, unmatched lines first, and the next page', async () => {
    const first = await web.get(statementPath);
    expect(first.statusCode, first.body).toBe(200);
    expect(first.body).toContain('0 matched · 26 unmatched · 0 ignored');
    expect(first.body).toContain('<option value="unmatched" selected>Unmatched only</option>');
    expect(first.body).toContain('1–20 of 26');
    expect(first.body.match(/\/ignore"/g)).toHaveLength(20);
    const next = /href="([^"]+)" rel="next"/.exec(first.body)?.[1]?.replaceAll('&amp;', '&');
    expect(next).toContain('lines=unmatched');
    const second = await web.get(next as string);
    expect(second.body).toContain('21–26 of 26');
    expect(second.body).toContain('FEE-24');
    expect(second.body).not.toContain('STMT-REF-42');
  });

  it('matches a line by hand to the movement of the day it is, saying who did it and when', async () => {
    const page = await web.get(statementPath);
    const lineId = /\/console\/reconciliation\/lines\/([0-9a-f-]{36})\/match/.exec(page.body)?.[1];
    expect(lineId).toBeTruthy();
    // Only the movement that agrees (debit 42.00 EUR) is offered, named by its payout.
    const movementId = /<option value="([0-9a-f-]{36})">payout ([0-9a-f-]{36}) · 42\.00 EUR/.exec(page.body);
    expect(movementId?.[2]).toBe(payoutId);
    const matched = await web.post(`/console/reconciliation/lines/${lineId}/match`, { movementId: movementId?.[1] as string });
    expect(matched.statusCode, matched.body).toBe(303);
    const all = await web.get(`${statementPath}?lines=all`);
    expect(all.body).toContain('1 matched · 25 unmatched · 0 ignored');
    expect(all.body).toMatch(new RegExp(`payout <code>${payoutId}</code><br><span class="muted">by console \\(operator key\\), `));
    const lines = (await operator(t.app, 'GET', `/operator/v1/reconciliation/statements/${statementPath.split('/').pop()}/lines`)).json<{ data: { status: string; decidedBy: string; decidedAt: string }[] }>().data;
    expect(lines[0]).toMatchObject({ status: 'matched', decidedBy: 'console' });
    // Matched twice: refused, nothing changed.
    const again = await web.post(`/console/reconciliation/lines/${lineId}/match`, { movementId: movementId?.[1] as string });
    expect(again.statusCode).toBe(409);
    // An ignored line says why, by whom and when.
    const fee = /\/console\/reconciliation\/lines\/([0-9a-f-]{36})\/ignore/.exec((await web.get(statementPath)).body)?.[1];
    expect((await web.post(`/console/reconciliation/lines/${fee}/ignore`, { reason: 'Bank fee, booked to charges' })).statusCode).toBe(303);
    const after = await web.get(`${statementPath}?lines=all`);
    expect(after.body).toMatch(/ignored: Bank fee, booked to charges<br><span class="muted">by console \(operator key\), /);
    expect(after.body).not.toMatch(/<script>|style="/);
  });

  it('keeps the history of resolved exceptions with what was done, by whom and when', async () => {
    const open = await web.get('/console/reconciliation/exceptions?status=open');
    expect(open.statusCode, open.body).toBe(200);
    const id = /\/console\/reconciliation\/exceptions\/([0-9a-f-]{36})\/resolve/.exec(open.body)?.[1];
    expect(id).toBeTruthy();
    expect((await web.post(`/console/reconciliation/exceptions/${id}/resolve`, { resolution: 'Returned to the payer' })).statusCode).toBe(303);
    const resolved = await web.get('/console/reconciliation/exceptions?status=resolved');
    expect(resolved.body).toMatch(/Returned to the payer<br><span class="muted">by console \(operator key\), /);
    expect(resolved.body).toContain('1–1 of 1');
    const stillOpen = await web.get('/console/reconciliation/exceptions?status=open');
    expect(stillOpen.body).not.toContain(id as string);
  });
});
