import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Caller } from '../helpers/app.js';
import { haveChromium, launchBrowser, pageProblems, signedInAdmin, watchCsp, webTestApp, type WebTestApp } from '../helpers/browser.js';
import { ADA, fund, payingWorkspace, saveBeneficiary } from '../payouts/helpers.js';
import { placeOrder, type OrderView } from '../orders/helpers.js';
import { reportPayoutOutcomes } from '../../src/domains/payouts/payouts.outcomes.js';
import { rateFigure } from '../../src/faces/web/codes.js';
import { invertRate } from '../../src/platform/lib/money.js';
import { RETURN_REASONS } from '../../src/connectors/bank/inbound/reason-codes.js';
import { activeAccount, approveOnboarding } from '../virtual-accounts/helpers.js';

/**
 * The lists and what they show (issue 24, points 3 to 6) in Chromium: orders paged "1–20 of N"
 * with Previous, Next and a page size, and exported as CSV with the list's filters (compared with
 * the API's list); every other list with the same pager; codes in words with the code beside them
 * (a bank's return reason, a failure reason, states); an order's rate both ways; and the balance
 * over time per currency on the Overview, day by day equal to the statement's closing balance.
 */

let t: WebTestApp;
let browser: Browser;
let c: Caller;
let page: Page;
let problems: string[];
const run = `lst${Date.now().toString(36)}`;
const DAY_MS = 86_400_000;
const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);

function parseCsv(text: string): string[][] {
  return text.trim().split(/\r?\n/).map((line) => line.split(','));
}

/** The API's orders of this run, newest first (every page). */
async function apiOrders(): Promise<OrderView[]> {
  const all: OrderView[] = [];
  let cursor: string | null = null;
  do {
    const res = await c.request('GET', `/v1/orders?limit=100${cursor ? `&cursor=${cursor}` : ''}`);
    const body = res.json<{ data: OrderView[]; nextCursor: string | null }>();
    all.push(...body.data);
    cursor = body.nextCursor;
  } while (cursor);
  return all.filter((o) => o.clientRef?.startsWith(run));
}

describe.skipIf(!haveChromium)('lists, codes in words, rates and the balance chart (issue 24, points 3 to 6)', () => {
  let returnedId: string;
  let failedId: string;
  let orderId: string;

  beforeAll(async () => {
    t = await webTestApp({ SANDBOX_STEP_MS: '100000' });
    browser = await launchBrowser();
    c = await payingWorkspace(t);
    // A history over several days: funded 5 days ago and 2 days ago (the transfers dated then), and today.
    await fund(c, 'EUR', '1000.00');
    await t.ctx.db.query("UPDATE ledger_transfers SET created_at = now() - interval '5 days' WHERE currency = 'EUR' AND credit_account_id IN (SELECT id FROM ledger_accounts WHERE account_id = $1)", [c.workspaceId]);
    await fund(c, 'EUR', '500.25');
    await t.ctx.db.query("UPDATE ledger_transfers SET created_at = now() - interval '2 days' WHERE currency = 'EUR' AND created_at > now() - interval '1 hour' AND credit_account_id IN (SELECT id FROM ledger_accounts WHERE account_id = $1)", [c.workspaceId]);
    await fund(c, 'EUR', '20000.00');
    await fund(c, 'USD', '300.00');
    // Deposits to an EUR virtual account (onboarding approved first): two credited, one failed.
    await approveOnboarding(t.app, c);
    const eur = await activeAccount(c, 'EUR');
    for (const [amount, outcome] of [['40.00', undefined], ['41.00', 'failed'], ['42.00', undefined]] as const) {
      const res = await c.request('POST', '/v1/sandbox/deposits', { virtualAccountId: eur.id, amount, clientRef: `${run}-d${amount}`, ...(outcome ? { outcome } : {}) });
      expect(res.statusCode, res.body).toBe(201);
    }
    for (let i = 1; i <= 25; i++) {
      const order = await placeOrder(c, { clientRef: `${run}-${String(i).padStart(2, '0')}`, fromAmount: `${100 + i}.00`, funding: i % 5 === 0 ? 'balance' : 'settlement' });
      if (i === 1) orderId = order.id;
    }
    for (let i = 1; i <= 22; i++) await saveBeneficiary(c, { ...ADA, name: `${run} Person ${i}` });
    const beneficiaryId = await saveBeneficiary(c);
    const payout = async (amount: string) => {
      const res = await c.request('POST', '/v1/payouts', { clientRef: `${run}-p${amount}`, amount, currency: 'EUR', beneficiary: { id: beneficiaryId } });
      expect(res.statusCode, res.body).toBe(201);
      return res.json<{ id: string }>().id;
    };
    returnedId = await payout('12.00');
    failedId = await payout('13.00');
    // The outcomes a bank reports (src/connectors/bank/inbound reports these the same way): paid then returned with AC04; refused.
    const ac04 = { code: 'AC04', description: RETURN_REASONS.AC04!.description };
    await t.ctx.db.tx((tx) =>
      reportPayoutOutcomes(t.ctx, tx, [
        { payoutId: returnedId, move: 'process' },
        { payoutId: failedId, move: 'process' },
      ]),
    );
    await t.ctx.db.tx((tx) => reportPayoutOutcomes(t.ctx, tx, [{ payoutId: returnedId, move: 'pay' }, { payoutId: failedId, move: 'fail', failureReason: 'beneficiary_account_invalid' }]));
    const [reverted] = await t.ctx.db.tx((tx) => reportPayoutOutcomes(t.ctx, tx, [{ payoutId: returnedId, move: 'revert', returnReason: ac04, failureReason: `Returned by the beneficiary's bank: AC04 ${ac04.description}` }]));
    expect(reverted?.status).toBe('failed');
    page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
    problems = watchCsp(page);
    await signedInAdmin(t, page, c.workspaceId);
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('pages the orders "1–20 of 25" with Next, Previous and a page size, keeping the filters', async () => {
    await page.goto(`${t.base}/dashboard/orders?q=${run}`);
    expect(await page.locator('.pager .range').innerText()).toBe('1–20 of 25');
    expect(await page.locator('main table tbody tr').count()).toBe(20);
    await page.getByRole('link', { name: 'Next →' }).click();
    await expect.poll(() => page.locator('.pager .range').innerText()).toBe('21–25 of 25');
    expect(new URL(page.url()).searchParams.get('q')).toBe(run);
    await page.getByRole('link', { name: '← Previous' }).click();
    await expect.poll(() => page.locator('.pager .range').innerText()).toBe('1–20 of 25');
    await page.getByRole('link', { name: '50 rows per page' }).click();
    await expect.poll(() => page.locator('.pager .range').innerText()).toBe('1–25 of 25');
    expect(new URL(page.url()).searchParams.get('q')).toBe(run);
    // The filters narrow the count: 5 of the 25 are balance-funded and were executed or are awaiting funds no more.
    const awaiting = (await apiOrders()).filter((o) => o.status === 'awaiting_funds').length;
    await page.goto(`${t.base}/dashboard/orders?q=${run}&status=awaiting_funds`);
    expect(await page.locator('.pager .range').innerText()).toBe(`1–${Math.min(20, awaiting)} of ${awaiting}`);
  });

  it('exports the orders as CSV with the list\'s filters: the same orders, fields and order as the API lists', async () => {
    const res = await page.request.get(`${t.base}/dashboard/orders/export.csv?q=${run}`);
    expect(res.status()).toBe(200);
    expect(res.headers()['content-type']).toContain('text/csv');
    expect(res.headers()['content-disposition']).toContain('orders.csv');
    const [header, ...rows] = parseCsv(await res.text());
    expect(header).toEqual(['id', 'createdAt', 'clientRef', 'status', 'fromAmount', 'fromCurrency', 'toAmount', 'toCurrency', 'rate', 'funding', 'beneficiaryId', 'accountId', 'failureReason', 'uetr', 'fundedAt', 'completedAt']);
    const api = await apiOrders();
    expect(api).toHaveLength(25);
    expect(rows.map((r) => [r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7], r[8], r[9]])).toEqual(
      api.map((o) => [o.id, o.createdAt, o.clientRef, o.status, o.fromAmount, o.fromCurrency, o.toAmount, o.toCurrency, o.rate, (o as unknown as { funding: string }).funding]),
    );
    const filtered = parseCsv(await (await page.request.get(`${t.base}/dashboard/orders/export.csv?q=${run}&status=awaiting_funds`)).text()).slice(1);
    expect(filtered.map((r) => r[0])).toEqual(api.filter((o) => o.status === 'awaiting_funds').map((o) => o.id));
    // The export link on the list carries the list's filters.
    await page.goto(`${t.base}/dashboard/orders?q=${run}&status=awaiting_funds`);
    const href = await page.getByRole('link', { name: 'Export these orders (CSV)' }).getAttribute('href');
    expect(new URL(href ?? '', t.base).searchParams.toString()).toBe(`status=awaiting_funds&q=${run}`);
  });

  it('finds orders by part of a client reference and payouts by amount from the one search box, and opens every order match', async () => {
    await page.goto(`${t.base}/dashboard`);
    await page.getByLabel('Search payouts, beneficiaries and orders').fill(`${run.slice(3)}-1`);
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await page.waitForURL((u) => u.pathname === '/dashboard/search');
    const orders = await page.getByRole('table', { name: 'Orders that match' }).locator('tbody tr').allInnerTexts();
    expect(orders).toHaveLength(10); // -10 to -19
    await page.locator('section', { hasText: 'Orders that match' }).getByRole('link', { name: 'See every match' }).click();
    await page.waitForURL((u) => u.pathname === '/dashboard/orders');
    expect(await page.locator('.pager .range').innerText()).toBe('1–10 of 10');
    await page.getByLabel('Search payouts, beneficiaries and orders').fill('12.00');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await page.waitForURL((u) => u.searchParams.get('q') === '12.00');
    expect(await page.getByRole('table', { name: 'Payouts that match' }).innerText()).toContain(`${run}-p12.00`);
  });

  it('exports the deposits with the list\'s status filter: the same deposits the API lists; a failed one says why in words', async () => {
    const api = (await c.request('GET', '/v1/deposits?limit=100')).json<{ data: { id: string; status: string; amount: string; failureReason: string | null }[] }>().data;
    expect(api).toHaveLength(3);
    const all = parseCsv(await (await page.request.get(`${t.base}/dashboard/receiving/deposits.csv`)).text()).slice(1);
    expect(all.map((r) => [r[0], r[2], r[3]])).toEqual(api.map((d) => [d.id, d.status, d.amount]));
    const failed = parseCsv(await (await page.request.get(`${t.base}/dashboard/receiving/deposits.csv?status=failed`)).text()).slice(1);
    expect(failed.map((r) => r[0])).toEqual(api.filter((d) => d.status === 'failed').map((d) => d.id));
    expect(failed).toHaveLength(1);
    await page.goto(`${t.base}/dashboard/receiving`);
    const row = page.getByRole('table', { name: 'Deposits, newest first' }).locator('tbody tr', { hasText: '41.00' });
    expect(await row.locator('.reason code').innerText()).toBe(api.find((d) => d.status === 'failed')?.failureReason);
  });

  it('shows ids and account numbers with a copy button on the detail pages', async () => {
    const beneficiary = (await c.request('GET', '/v1/beneficiaries?limit=1')).json<{ data: { id: string; accounts: { data: { iban?: string } }[] }[] }>().data[0];
    await page.goto(`${t.base}/dashboard/beneficiaries/${beneficiary?.id}`);
    await expect.poll(() => page.getByRole('button', { name: `Copy ${beneficiary?.id}` }).count()).toBe(1);
    expect(await page.getByRole('button', { name: `Copy ${beneficiary?.accounts[0]?.data.iban}` }).count()).toBe(1);
    expect(await page.locator('dl.inline-facts dt').first().innerText()).toBe('IBAN');
    const event = (await c.request('GET', '/v1/events?limit=1')).json<{ data: { id: string }[] }>().data[0];
    await page.goto(`${t.base}/dashboard/events/${event?.id}`);
    expect(await page.getByRole('button', { name: `Copy ${event?.id}` }).count()).toBe(1);
    await page.goto(`${t.base}/dashboard/orders/${orderId}`);
    expect(await page.getByRole('button', { name: `Copy ${orderId}` }).count()).toBe(1);
  });

  it('requests a virtual account from Receiving once onboarding is approved: it opens and is listed with its bank details', async () => {
    await page.goto(`${t.base}/dashboard/receiving`);
    await page.getByLabel('Virtual account currency').selectOption('GBP');
    await page.getByRole('button', { name: 'Request a virtual account' }).click();
    await expect.poll(() => page.getByRole('status').first().innerText()).toContain('Your GBP virtual account was requested');
    const api = (await c.request('GET', '/v1/virtual-accounts')).json<{ data: { currency: string; status: string; iban?: string; accountNumber?: string }[] }>().data.find((a) => a.currency === 'GBP');
    expect(api?.status).toBe('active');
    const row = page.getByRole('table', { name: 'Virtual accounts and their bank details' }).locator('tbody tr', { hasText: 'GBP' });
    expect(await row.innerText()).toContain((api?.iban ?? api?.accountNumber) as string);
  });

  it('pages every list the same way: "N–M of T" with Previous, Next and the page size', async () => {
    await page.goto(`${t.base}/dashboard/beneficiaries`);
    expect(await page.locator('.pager .range').innerText()).toBe('1–20 of 23');
    await page.getByRole('link', { name: 'Next →' }).click();
    await expect.poll(() => page.locator('.pager .range').innerText()).toBe('21–23 of 23');
    await page.getByRole('link', { name: '← Previous' }).click();
    await expect.poll(() => page.locator('.pager .range').innerText()).toBe('1–20 of 23');
    const lists: [string, number | undefined][] = [
      ['/dashboard', undefined],
      ['/dashboard/accounts', 0],
      ['/dashboard/payouts', 2],
      ['/dashboard/approvals', 0],
      ['/dashboard/receiving', 3],
      ['/dashboard/onboarding', 1],
      ['/dashboard/events', undefined],
      ['/dashboard/webhooks', 0],
      ['/dashboard/credentials', undefined],
    ];
    for (const [url, total] of lists) {
      await page.goto(`${t.base}${url}`);
      const range = await page.locator('.pager .range').innerText();
      expect(range, url).toMatch(/^(\d[\d,]*–\d[\d,]* of \d[\d,]*|0 of 0)$/);
      if (total !== undefined) expect(range, url).toBe(total === 0 ? '0 of 0' : `1–${total} of ${total}`);
      expect(await page.locator('.pager').innerText(), url).toMatch(/← Previous[\s\S]*Next →[\s\S]*Rows per page: 20 · 50 · 100/);
    }
    // The events list counts what the API lists.
    const events = (await c.request('GET', '/v1/events?limit=100')).json<{ data: unknown[] }>().data.length;
    await page.goto(`${t.base}/dashboard/events?limit=100`);
    expect(await page.locator('.pager .range').innerText()).toBe(`1–${events} of ${events}`);
  });

  it('shows codes in words with the code beside them: a bank\'s return reason, a failure reason, states by family', async () => {
    await page.goto(`${t.base}/dashboard/payouts/${returnedId}`);
    const facts = await page.locator('dl.facts').innerText();
    expect(facts).toMatch(/Bank reason\s+closed account number AC04/);
    expect(facts).toMatch(/Failure reason\s+Returned by the beneficiary's bank: closed account number AC04/);
    expect(await page.locator('.timeline').innerText()).toContain('closed account number AC04');
    expect(await page.locator('.reason[title]').first().getAttribute('title')).toContain('closed on the receiving bank');
    await page.goto(`${t.base}/dashboard/payouts/${failedId}`);
    expect(await page.locator('dl.facts').innerText()).toMatch(/Failure reason\s+the beneficiary's account was refused as invalid beneficiary_account_invalid/);
    // States: the words, the code beside them where it differs, one colour per family.
    await page.goto(`${t.base}/dashboard/orders?q=${run}&status=awaiting_funds`);
    const awaiting = page.locator('main table .status').first();
    expect(await awaiting.innerText()).toBe('awaiting funds awaiting_funds');
    expect(await awaiting.getAttribute('class')).toContain('family-moving');
    await page.goto(`${t.base}/dashboard/payouts?q=${run}`);
    const failed = page.locator('main table .status');
    expect(await failed.allInnerTexts()).toEqual(['failed', 'failed']);
    expect(await failed.first().getAttribute('class')).toContain('family-stopped');
    expect(problems).toEqual([]);
  });

  it('shows an order\'s rate both ways to a sensible precision, from the one formatter', async () => {
    const order = (await apiOrders()).find((o) => o.id === orderId) as OrderView;
    await page.goto(`${t.base}/dashboard/orders/${orderId}`);
    const facts = await page.locator('dl.facts').first().innerText();
    // The order's rate is EUR per 1 USD.
    const inverse = rateFigure(invertRate(order.rate));
    expect(facts).toContain(`Rate\n1 USD = ${rateFigure(order.rate)} EUR · 1 EUR = ${inverse} USD`);
    expect(rateFigure(order.rate)).toMatch(/^\d+\.\d{4}$/);
    expect(await page.locator('.rate').getAttribute('title')).toBe(`exact: 1 USD = ${order.rate} EUR`);
  });

  it('charts the balance at the end of each day per currency: each day equals the statement\'s closing balance for that day', async () => {
    await page.goto(`${t.base}/dashboard`);
    const chart = page.locator('#balance-charts figure.chart').filter({ hasText: 'EUR balance at the end of each day' });
    expect(await chart.locator('svg rect.bar').count()).toBe(30);
    const rows = await chart.locator('table tbody tr').evaluateAll((trs) => trs.map((tr) => Array.from(tr.querySelectorAll('td')).map((td) => (td as { textContent: string | null }).textContent ?? '')));
    expect(rows).toHaveLength(30);
    const today = Date.now();
    expect(rows[29]?.[0]).toBe(dayOf(today));
    for (const [day, shown] of rows as [string, string][]) {
      const statement = parseCsv(await (await page.request.get(`${t.base}/dashboard/statement.csv?currency=EUR&from=${day}&to=${day}`)).text());
      const closing = statement[statement.length - 1];
      expect(closing?.[0]).toBe('closing');
      expect(shown, day).toBe(`${closing?.[6]} EUR`);
    }
    // The history is there, not a flat line: nothing a week ago, 1,000.00 after the first funding, 1,500.25 after the second.
    const byDay = new Map(rows.map((r) => [r[0], r[1]]));
    expect(byDay.get(dayOf(today - 7 * DAY_MS))).toBe('0.00 EUR');
    expect(byDay.get(dayOf(today - 4 * DAY_MS))).toBe('1000.00 EUR');
    expect(byDay.get(dayOf(today - 1 * DAY_MS))).toBe('1500.25 EUR');
    // Today's equals the ledger API's posted balance (totalBalance: the holds of pending payouts and orders not taken off).
    const api = (await c.request('GET', '/v1/ledger/balances')).json<{ balances: { currency: string; totalBalance: string }[] }>().balances.find((b) => b.currency === 'EUR');
    expect(byDay.get(dayOf(today))).toBe(`${api?.totalBalance} EUR`);
    expect(await page.locator('#balance-charts figure.chart').filter({ hasText: 'USD balance' }).count()).toBe(1);
  });

  it('keeps the changed pages within a phone\'s width, and axe finds nothing serious at either width', async () => {
    const found: string[] = [];
    for (const [width, height] of [[1440, 900], [390, 844]] as const) {
      await page.setViewportSize({ width, height });
      const beneficiary = (await c.request('GET', '/v1/beneficiaries?limit=1')).json<{ data: { id: string }[] }>().data[0]?.id;
      const event = (await c.request('GET', '/v1/events?limit=1')).json<{ data: { id: string }[] }>().data[0]?.id;
      for (const url of ['/dashboard', `/dashboard/orders?q=${run}`, `/dashboard/orders/${orderId}`, `/dashboard/payouts/${returnedId}`, `/dashboard/payouts/${failedId}`, '/dashboard/beneficiaries', `/dashboard/beneficiaries/${beneficiary}`, '/dashboard/events', `/dashboard/events/${event}`, '/dashboard/receiving']) {
        const res = await page.goto(`${t.base}${url}`);
        expect(res?.status(), url).toBe(200);
        found.push(...(await pageProblems(page, `${url} at ${width}`)));
      }
    }
    expect(found).toEqual([]);
    expect(problems).toEqual([]);
  }, 120_000);
});
