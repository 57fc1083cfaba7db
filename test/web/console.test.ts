import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { completeBusiness, PNG } from '../applications/helpers.js';
import { newWorkspace, operator, type Caller } from '../helpers/app.js';
import { consoleSignIn, haveChromium, launchBrowser, watchCsp, webTestApp, type WebTestApp } from '../helpers/browser.js';
import { balance, placeOrder, transfersOf, type OrderView } from '../orders/helpers.js';

/** The operator console in Chromium: every action through the operator's services, each in the audit log as `console`. */

let t: WebTestApp;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let csp: string[];

beforeAll(async () => {
  t = await webTestApp();
  browser = await launchBrowser();
  context = await browser.newContext();
  page = await context.newPage();
  csp = watchCsp(page);
}, 30_000);
afterAll(async () => {
  await browser?.close();
  await t?.close();
});

interface AuditEntry {
  method: string;
  path: string;
  statusCode: number;
  actor: string | null;
  workspaceId: string | null;
  operatorKeyId: string | null;
}

async function consoleAudit(query: string): Promise<AuditEntry[]> {
  const res = await operator(t.app, 'GET', `/operator/v1/audit-log?actor=console&limit=100${query}`);
  expect(res.statusCode, res.body).toBe(200);
  return res.json<{ data: AuditEntry[] }>().data;
}

/** A settlement-funded order with its proof of payment uploaded over HTTP, as the order tests do. */
async function orderWithProof(c: Caller): Promise<OrderView> {
  const order = await placeOrder(c, { fromAmount: '1000.00', funding: 'settlement' });
  const issued = await c.request('POST', `/v1/orders/${order.id}/settlement/proof-upload-url`, { contentType: 'image/png', contentLength: PNG.length });
  expect(issued.statusCode, issued.body).toBe(201);
  const { proofKey, uploadUrl } = issued.json<{ proofKey: string; uploadUrl: string }>();
  expect((await fetch(uploadUrl, { method: 'PUT', body: new Uint8Array(PNG) })).status).toBe(200);
  const submitted = await c.request('POST', `/v1/orders/${order.id}/settlement/proof`, { proofKey });
  expect(submitted.statusCode, submitted.body).toBe(200);
  return order;
}

describe.skipIf(!haveChromium)('the operator console in a browser', () => {
  it('refuses a wrong operator key with a generic message, then signs in with the right one', async () => {
    await page.goto(`${t.base}/console/sign-in`);
    await page.getByLabel('Operator key').fill('op_wrong_key_000000000');
    await page.getByRole('button', { name: 'Sign in with the key' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('That operator key is not valid.');
    expect(new URL(page.url()).pathname).toBe('/console/sign-in/key');
    await consoleSignIn(page, t.base);
  });

  it('creates a workspace and enables a currency; the API agrees and the audit log has both as console', async () => {
    await page.getByLabel('Name').fill('Console Made Ltd');
    await page.getByLabel('Country').fill('DE');
    await page.getByRole('button', { name: 'Create workspace' }).click();
    await expect.poll(() => page.locator('h1').textContent()).toBe('Console Made Ltd');
    const workspaceId = new URL(page.url()).pathname.split('/').pop() as string;

    await page.getByLabel('Currency to enable').selectOption('GHS');
    await page.getByRole('button', { name: 'Enable currency' }).click();
    await expect.poll(() => page.getByRole('button', { name: 'Disable GHS' }).count()).toBe(1);

    const ws = await operator(t.app, 'GET', `/operator/v1/workspaces/${workspaceId}`);
    expect(ws.json()).toMatchObject({ name: 'Console Made Ltd', country: 'DE' });
    expect(ws.json<{ enabledCurrencies: string[] }>().enabledCurrencies).toContain('GHS');

    const entries = await consoleAudit(`&workspaceId=${workspaceId}`);
    expect(entries.map((e) => `${e.method} ${e.path} ${e.statusCode}`)).toContain(`POST /console/workspaces/${workspaceId}/currencies 303`);
    expect(entries.every((e) => e.operatorKeyId !== null)).toBe(true);
    const created = await consoleAudit('&pathContains=/console/workspaces&method=POST');
    expect(created.some((e) => e.path === '/console/workspaces' && e.statusCode === 303)).toBe(true);

    // The audit page filters by workspace: only this workspace's entries.
    await page.goto(`${t.base}/console/audit?workspaceId=${workspaceId}`);
    const rows = page.locator('table tbody tr');
    await expect.poll(() => rows.count()).toBeGreaterThan(0);
    const texts = await rows.allTextContents();
    expect(texts.every((r) => r.includes(workspaceId))).toBe(true);
    expect(texts.some((r) => r.includes(`/console/workspaces/${workspaceId}/currencies`))).toBe(true);
  });

  it('completes a settlement-funded order: confirm, execute, complete; the proof is viewable; the ledger moved', async () => {
    const c = await newWorkspace(t.app);
    const order = await orderWithProof(c);
    const before = await balance(c, 'USD');

    await page.goto(`${t.base}/console/orders?status=awaiting_funds&workspaceId=${c.workspaceId}`);
    await page.getByRole('link', { name: order.id }).click();
    await expect.poll(() => page.locator('h1').textContent()).toBe(`Order ${order.id}`);
    const proof = await context.request.get(`${t.base}/console/orders/${order.id}/proof`);
    expect(proof.status()).toBe(200);
    expect(proof.headers()['content-type']).toBe('image/png');
    expect(Buffer.from(await proof.body()).equals(PNG)).toBe(true);

    // Confirming funds and completing ask first (the questions say what each does), then say what they did.
    const asked: string[] = [];
    page.on('dialog', (d) => void (asked.push(d.message()), d.accept()));
    await page.getByRole('button', { name: 'Confirm funds received' }).click();
    await expect.poll(() => page.getByRole('button', { name: 'Start execution' }).count()).toBe(1);
    expect(await page.locator('.notice-success').textContent()).toContain(`Funds confirmed as received for order ${order.id}`);
    await page.getByRole('button', { name: 'Start execution' }).click();
    await expect.poll(() => page.getByRole('button', { name: 'Complete order' }).count()).toBe(1);
    await page.getByRole('button', { name: 'Complete order' }).click();
    await expect.poll(() => page.locator('main').textContent()).toContain('No move from completed');
    expect(await page.locator('.notice-success').textContent()).toContain(`Order ${order.id} completed`);
    page.removeAllListeners('dialog');
    expect(asked).toEqual([
      expect.stringMatching(/^Confirm that \S+ EUR arrived for this order\?/),
      `Complete this order? Final amount ${order.toAmount} USD against the quoted ${order.toAmount} USD.`,
    ]);

    const res = await c.request('GET', `/v1/orders/${order.id}`);
    expect(res.json<OrderView>()).toMatchObject({ status: 'completed', toAmount: order.toAmount, settlement: { status: 'received' } });
    expect(await balance(c, 'EUR')).toMatchObject({ balance: '0.00', pendingOut: '0.00' });
    const usdBefore = BigInt((before?.balance ?? '0.00').replace('.', ''));
    expect(BigInt((await balance(c, 'USD'))!.balance.replace('.', '')) - usdBefore).toBe(BigInt(order.toAmount.replace('.', '')));
    expect((await transfersOf(t, order.id)).map((x) => [x.currency, x.status])).toEqual([
      ['EUR', 'posted'],
      ['EUR', 'posted'],
      ['USD', 'posted'],
    ]);
    const moves = (await consoleAudit(`&pathContains=/console/orders/${order.id}`)).map((e) => `${e.path} ${e.statusCode}`);
    expect(moves).toEqual(expect.arrayContaining(['confirm-funds', 'execute', 'complete'].map((m) => `/console/orders/${order.id}/${m} 303`)));
  });

  it('approves a submitted business application after viewing its documents', async () => {
    const c = await newWorkspace(t.app);
    const { application } = await completeBusiness(t.app, c);
    const submitted = await c.request('POST', `/v2/applications/${application.id}/submit`);
    expect(submitted.json()).toMatchObject({ status: 'under_review' });

    await page.goto(`${t.base}/console/applications?workspaceId=${c.workspaceId}`);
    await page.getByRole('link', { name: 'Acme Trading Ltd' }).click();
    await expect.poll(() => page.locator('h1').textContent()).toBe('Acme Trading Ltd');
    const href = await page.getByRole('link', { name: /Open photo_id/ }).getAttribute('href');
    const file = await context.request.get(`${t.base}${href}`);
    expect(file.status()).toBe(200);
    expect(file.headers()['content-type']).toBe('image/png');
    expect(file.headers()['content-disposition']).toMatch(/^inline; filename="photo_id-/);
    expect(Buffer.from(await file.body()).equals(PNG)).toBe(true);
    const pdf = await context.request.get(`${t.base}${await page.getByRole('link', { name: /Open certificate_of_incorporation/ }).getAttribute('href')}`);
    expect(pdf.headers()['content-disposition']).toMatch(/^attachment; /);
    expect((await pdf.body()).subarray(0, 4).toString()).toBe('%PDF');

    page.once('dialog', (d) => {
      expect(d.message()).toBe('Approve the application of Acme Trading Ltd? The account may then use what it applied for.');
      void d.accept();
    });
    await page.getByRole('button', { name: 'Approve application' }).click();
    await expect.poll(() => page.locator('main').textContent()).toContain('this one is approved');
    expect(await page.locator('.notice-success').textContent()).toContain(`Application ${application.id} approved.`);
    expect((await c.request('GET', `/v2/applications/${application.id}`)).json()).toMatchObject({ status: 'approved' });
    const review = await consoleAudit(`&pathContains=/console/applications/${application.id}/review`);
    expect(review.map((e) => e.statusCode)).toEqual([303]);
  });

  it('shows a refusal beside the form and changes nothing', async () => {
    const c = await newWorkspace(t.app);
    await page.goto(`${t.base}/console/workspaces/${c.workspaceId}`);
    await page.getByLabel('Amount').fill('1.234');
    await page.getByLabel('Reason').fill('Correction');
    page.once('dialog', (d) => void d.accept());
    await page.getByRole('button', { name: 'Adjust balance' }).click();
    await expect.poll(() => page.locator('#balances [role=alert]').textContent()).toContain('amount');
    expect((await balance(c, 'EUR'))?.balance ?? '0.00').toBe('0.00');
  });

  it('shows which connector serves each route', async () => {
    await page.goto(`${t.base}/console/connectors`);
    const row = page.getByRole('row', { name: /sepa_credit/ });
    await expect.poll(() => row.textContent()).toContain('simulated');
  });

  it('met no Content-Security-Policy violation on any page', () => {
    expect(csp).toEqual([]);
  });
});
