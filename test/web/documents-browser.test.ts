import fs from 'node:fs';
import type { Browser, Download, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Caller } from '../helpers/app.js';
import { haveChromium, launchBrowser, pageProblems, signedInAdmin, watchCsp, webTestApp, type WebTestApp } from '../helpers/browser.js';
import { pdfText } from '../helpers/pdf-text.js';
import { ADA, fund, payingWorkspace, ref, saveBeneficiary } from '../payouts/helpers.js';

/**
 * Issue 37 point 8 in Chromium at 1440 and 390 px: the Overview's statement form downloads the PDF
 * statement and a payout's page its payment confirmation, each the document the API answers. No CSP
 * violation, no page wider than the phone, no serious or critical axe violation.
 */

const today = new Date().toISOString().slice(0, 10);

async function downloaded(download: Download): Promise<Buffer> {
  const file = await download.path();
  return fs.readFileSync(file);
}

describe.skipIf(!haveChromium)('documents in a browser', () => {
  let t: WebTestApp;
  let c: Caller;
  let browser: Browser;
  let page: Page;
  let problems: string[];
  let payoutId: string;

  beforeAll(async () => {
    t = await webTestApp({ CORRIDOR_OPERATOR_NAME: 'Example Payments B.V.' });
    c = await payingWorkspace(t);
    await fund(c, 'EUR', '500.00');
    const beneficiaryId = await saveBeneficiary(c, ADA);
    const created = await c.request('POST', '/v1/payouts', { clientRef: ref('doc'), amount: '42.00', currency: 'EUR', beneficiary: { id: beneficiaryId }, reference: 'Invoice 9' });
    expect(created.statusCode, created.body).toBe(201);
    payoutId = created.json<{ id: string }>().id;
    for (const move of ['process', 'pay']) expect((await c.request('POST', `/v1/sandbox/payouts/${payoutId}/${move}`)).statusCode).toBe(200);
    browser = await launchBrowser();
    page = await browser.newPage({ viewport: { width: 1440, height: 900 }, acceptDownloads: true });
    problems = watchCsp(page);
    await signedInAdmin(t, page, c.workspaceId);
  }, 300_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('downloads the statement and the payment confirmation as PDFs with the API\'s figures, at both widths', async () => {
    const found: string[] = [];
    const csv = (await c.request('GET', `/v1/statements?currency=EUR&from=${today}&to=${today}`)).body.trim().split('\r\n');
    const closing = csv[csv.length - 1]!.split(',')[6];
    for (const [width, height] of [[1440, 900], [390, 844]] as const) {
      await page.setViewportSize({ width, height });
      await page.goto(`${t.base}/dashboard`);
      await page.getByLabel('Statement currency').selectOption('EUR');
      await page.getByLabel('From (UTC)').fill(today);
      await page.getByLabel('To (UTC, including that day)').fill(today);
      found.push(...(await pageProblems(page, `overview at ${width}`)));
      const [statement] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download the statement (PDF)' }).click()]);
      expect(statement.suggestedFilename()).toBe(`statement-EUR-${today}-${today}.pdf`);
      const text = pdfText(await downloaded(statement));
      expect(text.rows.find((r) => r.includes('Closing balance'))?.at(-1)).toBe(closing);

      await page.goto(`${t.base}/dashboard/payouts/${payoutId}`);
      found.push(...(await pageProblems(page, `payout at ${width}`)));
      const [confirmation] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Download the payment confirmation (PDF)' }).click()]);
      const letter = pdfText(await downloaded(confirmation));
      expect(letter.rows).toContainEqual(['Payee', ADA.name]);
      expect(letter.rows).toContainEqual(['Amount', '42.00 EUR']);
      expect(letter.rows).toContainEqual(['Status', 'paid']);
    }
    expect(found).toEqual([]);
    expect(problems).toEqual([]);
  }, 180_000);
});
