import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pollInbound } from '../../src/connectors/bank/inbound/inbound.service.js';
import { LocalDirectorySource } from '../../src/connectors/bank/inbound/inbound.source.js';
import { createRunner } from '../../src/jobs.js';
import { operator } from '../helpers/app.js';
import { camt053, camt054, writeAnswer, type EntryAnswer } from '../helpers/bank-answers.js';
import { consoleSignIn, haveChromium, launchBrowser, pageProblems, signedInAdmin, watchCsp, webTestApp, type WebTestApp } from '../helpers/browser.js';
import { bankSection, sshdMissing, startSftpServer, type SftpServer } from '../helpers/sftp-server.js';
import { ADA, fund, payingWorkspace, ref, saveBeneficiary } from '../payouts/helpers.js';
import { BANK_ROUTES, connectorsFile, GRACE } from '../bank/helpers.js';

/**
 * The pages issue 37's remaining point-1 defects touched, in Chromium at 1440 and 390 px: the
 * console's statement (unmatched lines, Match, Ignore, paging) and exceptions pages, the dashboard's
 * CSV check naming saved beneficiaries, and a payout held at the bank connector. No CSP violation,
 * no page wider than the phone, no serious or critical axe violation.
 */

const SETTLEMENT = { id: 'main-eur', iban: 'DE02100100100006820101', currency: 'EUR' };
const DAY = '2026-03-10';

describe.skipIf(!haveChromium || Boolean(sshdMissing))('point 1 pages in a browser', () => {
  let t: WebTestApp;
  let server: SftpServer;
  let browser: Browser;
  let page: Page;
  let problems: string[];
  let runner: ReturnType<typeof createRunner>;
  let heldId: string;
  let dir: string;

  beforeAll(async () => {
    server = await startSftpServer();
    const file = connectorsFile({ routes: BANK_ROUTES, bank: bankSection(server, { cutoff: { maxPayouts: 500, maxSeconds: 3600 }, accounts: [{ id: 'eur-main', iban: 'DE02100100109307118603', bic: 'PBNKDEFFXXX', name: 'Corridor Payments GmbH', currency: 'EUR' }] }) });
    t = await webTestApp({ CORRIDOR_CONNECTORS_FILE: file, JOB_POLL_MS: '50' });
    runner = createRunner(t.ctx);
    runner.start();
    const c = await payingWorkspace(t);
    await fund(c, 'EUR', '500');
    await fund(c, 'USD', '100');
    await saveBeneficiary(c, ADA);
    const held = await c.request('POST', '/v1/payouts', { clientRef: ref('held'), amount: '5.00', currency: 'USD', route: 'swift', beneficiary: GRACE });
    expect(held.statusCode, held.body).toBe(201);
    heldId = held.json<{ id: string }>().id;
    // A statement with an unmatched payout line and fees, and an exception.
    const paid = await c.request('POST', '/v1/payouts', { clientRef: ref('recon'), amount: '42.00', currency: 'EUR', route: 'sepa_credit', beneficiary: ADA });
    const paidId = paid.json<{ id: string }>().id;
    for (const wait = Date.now() + 120_000; Date.now() < wait; ) {
      if ((await t.ctx.db.query('SELECT 1 FROM bank_payouts WHERE payout_id = ANY($1::uuid[])', [[heldId, paidId]])).length === 2) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    await operator(t.app, 'POST', `/operator/v1/payouts/${paidId}/process`);
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'corridor-point1-browser-'));
    writeAnswer(dir, 'a-debit.xml', camt054({ account: SETTLEMENT, entries: [{ direction: 'debit', amount: '42.00', endToEndId: paidId, ref: 'BOOK-42', bookingDate: DAY }] }));
    writeAnswer(dir, 'b-unknown.xml', camt054({ account: SETTLEMENT, entries: [{ direction: 'debit', amount: '7.77', endToEndId: '00000000-0000-4000-8000-000000000777' }] }));
    const fees: EntryAnswer[] = Array.from({ length: 22 }, (_, i) => ({ direction: 'debit', amount: `0.${String(10 + i)}`, ref: `FEE-${i}` }));
    writeAnswer(dir, 'c-statement.xml', camt053({ account: SETTLEMENT, date: DAY, opening: '1000.00', statementId: 'STMT-0310', entries: [{ direction: 'debit', amount: '42.00', ref: 'STMT-REF-42' }, ...fees] }));
    for (let i = 0; i < 3; i++) await pollInbound(t.ctx, new LocalDirectorySource(dir), { accounts: [SETTLEMENT] });
    browser = await launchBrowser();
    page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
    problems = watchCsp(page);
    await signedInAdmin(t, page, c.workspaceId);
  }, 300_000);
  afterAll(async () => {
    await browser?.close();
    await runner?.stop();
    await t?.close();
    await server?.stop();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('the dashboard pages: a held payout, the CSV check naming a saved beneficiary', async () => {
    const found: string[] = [];
    const csv = path.join(dir, 'batch.csv');
    fs.writeFileSync(csv, `clientRef,amount,currency,beneficiaryType,beneficiaryName,beneficiaryCountry,address,city,postcode,iban\nb-1,10.00,EUR,individual,Ada Lovelace,DE,1 Hauptstrasse,Berlin,10115,${'DE89370400440532013000'}\n`);
    for (const [width, height] of [[1440, 900], [390, 844]] as const) {
      await page.setViewportSize({ width, height });
      await page.goto(`${t.base}/dashboard/payouts/${heldId}`);
      expect(await page.locator('main').innerText()).toContain('Held at the bank connection');
      found.push(...(await pageProblems(page, `held payout at ${width}`)));
      await page.goto(`${t.base}/dashboard/payouts/import`);
      found.push(...(await pageProblems(page, `import at ${width}`)));
      await page.getByLabel('Payouts file (CSV)').setInputFiles(csv);
      await page.getByRole('button', { name: 'Check the file' }).click();
      await page.getByText('(saved: same name and account)').waitFor({ state: 'attached' });
      found.push(...(await pageProblems(page, `import check at ${width}`)));
    }
    expect(found).toEqual([]);
    expect(problems).toEqual([]);
  });

  it('the console pages: a statement with Match and paging, and the exceptions with their history', async () => {
    const found: string[] = [];
    const consolePage = await browser.newPage({ viewport: { width: 1440, height: 900 } });
    const consoleProblems = watchCsp(consolePage);
    await consoleSignIn(consolePage, t.base);
    await consolePage.goto(`${t.base}/console/reconciliation?bankAccount=main-eur&date=${DAY}`);
    await consolePage.getByRole('link', { name: 'STMT-0310' }).click();
    const statement = consolePage.url();
    expect(await consolePage.locator('main').innerText()).toContain('1–20 of 23');
    await consolePage.getByRole('button', { name: 'Match line 1' }).click();
    await consolePage.waitForURL((u) => u.pathname === new URL(statement).pathname);
    expect(await consolePage.locator('main').innerText()).toContain('1 matched · 22 unmatched');
    await consolePage.goto(`${t.base}/console/reconciliation/exceptions?status=open`);
    await consolePage.getByLabel('What was done').first().fill('Returned to the payer');
    await consolePage.getByRole('button', { name: 'Resolve' }).first().click();
    await consolePage.waitForURL((u) => u.pathname === '/console/reconciliation');
    await consolePage.goto(`${t.base}/console/reconciliation/exceptions?status=resolved`);
    expect(await consolePage.locator('main').innerText()).toContain('Returned to the payer');
    for (const [width, height] of [[1440, 900], [390, 844]] as const) {
      await consolePage.setViewportSize({ width, height });
      for (const url of [new URL(statement).pathname, `${new URL(statement).pathname}?lines=all`, '/console/reconciliation', '/console/reconciliation/exceptions', '/console/reconciliation/exceptions?status=resolved']) {
        const res = await consolePage.goto(`${t.base}${url}`);
        expect(res?.status(), url).toBe(200);
        found.push(...(await pageProblems(consolePage, `${url} at ${width}`)));
      }
    }
    expect(found).toEqual([]);
    expect(consoleProblems).toEqual([]);
  });
});
