import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Caller } from '../helpers/app.js';
import { axeViolations, haveChromium, launchBrowser, signedInAdmin, watchCsp, webTestApp, type WebTestApp } from '../helpers/browser.js';
import { ADA, fund, payingWorkspace, saveBeneficiary } from '../payouts/helpers.js';

/**
 * Finding, exporting and reading on a phone (issue 24, points 3, 4, 5 and 7) in Chromium: the
 * search box, "1–20 of N" with Previous and Next, the end day of a date range, the CSV export
 * against the API's list, and every main page at 390 px with no horizontal overflow and no serious
 * axe-core violation at either width.
 */

let t: WebTestApp;
let browser: Browser;
let c: Caller;
let page: Page;
let problems: string[];
const run = `inv${Date.now().toString(36)}`;

function parseCsv(text: string): string[][] {
  return text.trim().split(/\r?\n/).map((line) => line.split(','));
}

describe.skipIf(!haveChromium)('finding, exporting and reading on a phone (issue 24, points 3 to 7)', () => {
  let payoutId: string;

  beforeAll(async () => {
    t = await webTestApp({ SANDBOX_STEP_MS: '100000' });
    browser = await launchBrowser();
    c = await payingWorkspace(t);
    await fund(c, 'EUR', '20000.00');
    const ada = await saveBeneficiary(c);
    const zanzibar = await saveBeneficiary(c, { ...ADA, name: 'Zanzibar Spice Traders' });
    for (let i = 1; i <= 25; i++) {
      const res = await c.request('POST', '/v1/payouts', { clientRef: `${run}-${String(i).padStart(4, '0')}`, amount: `${10 + i}.00`, currency: 'EUR', beneficiary: { id: i === 7 ? zanzibar : ada } });
      expect(res.statusCode, res.body).toBe(201);
      if (i === 7) payoutId = res.json<{ id: string }>().id;
    }
    page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
    problems = watchCsp(page);
    await signedInAdmin(t, page, c.workspaceId);
  }, 90_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('finds payouts by part of a client reference and by beneficiary name, from the one search box', async () => {
    await page.goto(`${t.base}/dashboard`);
    await page.getByLabel('Search payouts, beneficiaries and orders').fill(`${run.slice(2)}-002`);
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await page.waitForURL((u) => u.pathname === '/dashboard/search');
    const refs = await page.getByRole('table', { name: 'Payouts that match' }).locator('tbody tr').allInnerTexts();
    expect(refs).toHaveLength(6); // 0020 to 0025
    await page.getByLabel('Search payouts, beneficiaries and orders').fill('zanzibar');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await page.waitForURL((u) => u.searchParams.get('q') === 'zanzibar');
    expect(await page.getByRole('table', { name: 'Beneficiaries that match' }).innerText()).toContain('Zanzibar Spice Traders');
    const byName = await page.getByRole('table', { name: 'Payouts that match' }).locator('tbody tr').allInnerTexts();
    expect(byName).toHaveLength(1);
    expect(byName[0]).toContain(`${run}-0007`);
    await page.getByLabel('Search payouts, beneficiaries and orders').fill(payoutId);
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await page.waitForURL((u) => u.pathname === `/dashboard/payouts/${payoutId}`);
    expect(await page.locator('.copyable button.copy').count()).toBeGreaterThan(0);
  });

  it('pages the list as "1–20 of 25" with Next and Previous; the end day of a date range is included', async () => {
    await page.goto(`${t.base}/dashboard/payouts?q=${run}`);
    expect(await page.locator('.pager .range').innerText()).toBe('1–20 of 25');
    await page.getByRole('link', { name: 'Next →' }).click();
    await expect.poll(() => page.locator('.pager .range').innerText()).toBe('21–25 of 25');
    await page.getByRole('link', { name: '← Previous' }).click();
    await expect.poll(() => page.locator('.pager .range').innerText()).toBe('1–20 of 25');
    const today = new Date().toISOString().slice(0, 10);
    await page.goto(`${t.base}/dashboard/payouts?q=${run}&createdFrom=${today}&createdTo=${today}&limit=50`);
    expect(await page.locator('.pager .range').innerText()).toBe('1–25 of 25');
  });

  it('exports the filtered list as CSV, the same payouts the API lists', async () => {
    const res = await page.request.get(`${t.base}/dashboard/payouts/export.csv?q=${run}`);
    expect(res.status()).toBe(200);
    expect(res.headers()['content-type']).toContain('text/csv');
    const [header, ...rows] = parseCsv(await res.text());
    expect(header?.slice(0, 4)).toEqual(['id', 'createdAt', 'clientRef', 'amount']);
    const api = (await c.request('GET', '/v1/payouts?limit=100')).json<{ data: { id: string; clientRef: string; amount: string; status: string }[] }>().data.filter((p) => p.clientRef.startsWith(run));
    expect(rows.map((r) => [r[0], r[2], r[3], r[5]])).toEqual(api.map((p) => [p.id, p.clientRef, p.amount, p.status]));
  });

  it('exports a statement for a period: opening balance, each movement with the running balance, closing balance; and deposits', async () => {
    const today = new Date().toISOString().slice(0, 10);
    const res = await page.request.get(`${t.base}/dashboard/statement.csv?currency=EUR&from=${today}&to=${today}`);
    expect(res.status()).toBe(200);
    const [header, ...lines] = parseCsv(await res.text());
    expect(header?.slice(0, 2)).toEqual(['kind', 'at']);
    expect(lines[0]?.slice(0, 1).concat(lines[0]?.[6] ?? '')).toEqual(['opening', '0.00']);
    const movements = lines.filter((l) => l[0] === 'movement');
    expect(movements.some((m) => m[3] === 'credit' && m[4] === '20000.00')).toBe(true);
    const sum = movements.reduce((acc, m) => acc + (m[3] === 'credit' ? 1 : -1) * Math.round(Number(m[4]) * 100), 0);
    expect(lines[lines.length - 1]?.[0]).toBe('closing');
    expect(Math.round(Number(lines[lines.length - 1]?.[6]) * 100)).toBe(sum);
    const deposits = await page.request.get(`${t.base}/dashboard/receiving/deposits.csv`);
    expect(deposits.status()).toBe(200);
    expect((await deposits.text()).split('\r\n')[0]).toBe('id,createdAt,status,amount,serviceFee,creditedAmount,currency,rail,clientRef,virtualAccountId,failureReason');
    const exported = await page.request.get(`${t.base}/dashboard/events/export.csv`);
    const eventLines = (await exported.text()).trim().split('\r\n');
    expect(eventLines[0]).toBe('id,createdAt,type,objectId,data');
    const listed = (await c.request('GET', '/v1/events?limit=100')).json<{ data: { id: string }[] }>().data;
    expect(eventLines.slice(1).map((l) => l.split(',')[0])).toEqual(listed.map((e) => e.id));
  });

  it('shows amounts grouped with their code and times with UTC on hover', async () => {
    await page.goto(`${t.base}/dashboard`);
    await expect.poll(() => page.locator('.balance .money').first().innerText()).toMatch(/^[\d,]+\.\d\d\sEUR$/);
    expect(await page.locator('.balance .money').first().innerText()).toContain(',');
    // The payouts-per-day chart: SVG drawn on the server, its figures also as a table.
    const chart = page.locator('figure.chart').filter({ hasText: 'Payouts in EUR per day' });
    expect(await chart.locator('svg rect.bar').count()).toBe(14);
    const today = new Date().toISOString().slice(0, 10);
    expect(await chart.locator('table tbody tr').filter({ hasText: today }).locator('td').allTextContents()).toEqual([today, '25']);
    await page.goto(`${t.base}/dashboard/payouts`);
    expect(await page.locator('time').first().getAttribute('title')).toMatch(/UTC$/);
  });

  const MAIN_PAGES = [
    '/dashboard',
    '/dashboard/accounts',
    '/dashboard/payouts',
    '/dashboard/payouts/new',
    '/dashboard/payouts/import',
    '/dashboard/approvals',
    '/dashboard/beneficiaries',
    '/dashboard/beneficiaries/new?currency=EUR&country=DE',
    '/dashboard/orders',
    '/dashboard/orders/new',
    '/dashboard/receiving',
    '/dashboard/onboarding',
    '/dashboard/events',
    '/dashboard/webhooks',
    '/dashboard/credentials',
    '/dashboard/users',
    '/dashboard/sandbox',
  ];

  it('at 390 px no main page is wider than the screen, the menu folds, and at both widths axe finds nothing serious', async () => {
    const found: string[] = [];
    for (const [width, height] of [[1440, 900], [390, 844]] as const) {
      await page.setViewportSize({ width, height });
      for (const url of [...MAIN_PAGES, `/dashboard/payouts/${payoutId}`, `/dashboard/search?q=${run}`]) {
        const res = await page.goto(`${t.base}${url}`);
        expect(res?.status(), url).toBe(200);
        if (width === 390) {
          const overflow = (await page.evaluate('[document.documentElement.scrollWidth, window.innerWidth]')) as [number, number];
          if (overflow[0] > overflow[1]) found.push(`${url} at 390: ${overflow[0]} px wide`);
          expect(await page.locator('details.menu').getAttribute('open'), url).toBeNull();
        }
        for (const v of await axeViolations(page)) found.push(`${url} at ${width}: ${v}`);
      }
    }
    expect(found).toEqual([]);
    // Folded, the menu opens from its button.
    await page.goto(`${t.base}/dashboard/payouts`);
    await page.locator('details.menu > summary').click();
    await page.getByRole('link', { name: 'Beneficiaries' }).click();
    await page.waitForURL((u) => u.pathname === '/dashboard/beneficiaries');
    expect(problems).toEqual([]);
  }, 180_000);
});
