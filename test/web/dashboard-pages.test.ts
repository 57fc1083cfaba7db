import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRunner } from '../../src/jobs.js';
import type { JobRunner } from '../../src/platform/jobs/runner.js';
import type { Caller } from '../helpers/app.js';
import { acceptInvitation, haveChromium, invite, launchBrowser, signedInAdmin, watchCsp, webTestApp, type WebTestApp } from '../helpers/browser.js';
import { completeBusiness } from '../applications/helpers.js';
import { HttpsReceiver } from '../helpers/https-receiver.js';
import { placeOrder } from '../orders/helpers.js';
import { balance, fund, payingWorkspace, ref, saveBeneficiary, waitFor, type PayoutView } from '../payouts/helpers.js';

let t: WebTestApp;
let runner: JobRunner;
let receiver: HttpsReceiver;
let browser: Browser;
let c: Caller;
let adminPage: Page;
let csp: string[];

/** A payout the sandbox provider leaves in processing (amount ending .14), for the tools to move. */
async function processingPayout(owner: Caller, beneficiaryId: string): Promise<PayoutView> {
  const res = await owner.request('POST', '/v1/payouts', { clientRef: ref('dash'), amount: '10.14', currency: 'EUR', beneficiary: { id: beneficiaryId } });
  expect(res.statusCode, res.body).toBe(201);
  return waitFor(owner, res.json<PayoutView>().id, (p) => p.status === 'processing');
}

async function payoutStatus(owner: Caller, id: string): Promise<string> {
  return (await owner.request('GET', `/v1/payouts/${id}`)).json<PayoutView>().status;
}

describe.skipIf(!haveChromium)('dashboard workspace pages in Chromium', () => {
  let beneficiaryId: string;

  beforeAll(async () => {
    t = await webTestApp({ JOB_POLL_MS: '20', SANDBOX_STEP_MS: '40', WEBHOOK_RETRY_DELAYS_MS: '50,100,200,400,800' });
    runner = createRunner(t.ctx);
    runner.start();
    receiver = await HttpsReceiver.start();
    browser = await launchBrowser();
    c = await payingWorkspace(t);
    beneficiaryId = await saveBeneficiary(c);
    adminPage = await browser.newPage();
    csp = watchCsp(adminPage);
    await signedInAdmin(t, adminPage, c.workspaceId);
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await runner?.stop();
    await receiver?.close();
    await t?.close();
  });

  it('funds a balance from the sandbox tools: the overview and GET /v1/ledger/balances show it', async () => {
    const page = adminPage;
    await page.goto(`${t.base}/dashboard/sandbox`);
    await page.getByLabel('Currency', { exact: true }).selectOption('EUR');
    await page.getByLabel('Amount', { exact: true }).fill('1000.00');
    await page.getByRole('button', { name: 'Add test money' }).click();
    await expect.poll(() => new URL(page.url()).pathname).toBe('/dashboard');
    await expect.poll(() => page.locator('.balance').filter({ hasText: 'EUR' }).textContent()).toMatch(/1,?000\.00/);
    expect(await balance(c, 'EUR')).toMatchObject({ balance: '1000.00' });
  });

  it('refuses an amount finer than the currency allows, with the form shown again and nothing changed', async () => {
    const page = adminPage;
    await page.goto(`${t.base}/dashboard/sandbox`);
    await page.getByLabel('Amount', { exact: true }).fill('1.234');
    const response = page.waitForResponse((r) => r.url().endsWith('/dashboard/sandbox/fund'));
    await page.getByRole('button', { name: 'Add test money' }).click();
    expect((await response).status()).toBe(400);
    await expect.poll(() => page.getByRole('alert').first().textContent()).toBeTruthy();
    expect(await page.getByLabel('Amount', { exact: true }).inputValue()).toBe('1.234');
    expect(await balance(c, 'EUR')).toMatchObject({ balance: '1000.00' });
  });

  it('lists, filters and opens a payout: its timeline has its events and their webhook delivery attempts; the sandbox marks it paid', async () => {
    const page = adminPage;
    const hook = await c.request('POST', '/v1/webhooks', { url: receiver.url('/dashboard-pages') });
    expect(hook.statusCode, hook.body).toBe(201);
    const payout = await processingPayout(c, beneficiaryId);
    await receiver.waitFor('/dashboard-pages', 1);

    await page.goto(`${t.base}/dashboard/payouts`);
    await expect.poll(() => page.getByRole('link', { name: payout.clientRef }).count()).toBe(1);
    await page.getByLabel('Status').selectOption('paid');
    await page.getByRole('button', { name: 'Filter' }).click();
    await expect.poll(() => new URL(page.url()).searchParams.get('status')).toBe('paid');
    expect(await page.getByRole('link', { name: payout.clientRef }).count()).toBe(0);
    await page.getByLabel('Status').selectOption('processing');
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.getByRole('link', { name: payout.clientRef }).click();

    await expect.poll(() => new URL(page.url()).pathname).toBe(`/dashboard/payouts/${payout.id}`);
    const main = page.locator('main');
    expect(await main.textContent()).toContain('10.14');
    expect(await page.locator('ol.timeline').textContent()).toContain('payout.processing');
    const deliveries = page.getByRole('table', { name: 'Webhook deliveries of these events and their attempts' });
    await expect.poll(async () => {
      await page.reload();
      return deliveries.textContent();
    }).toMatch(/succeeded[\s\S]*attempt 1 at .*HTTP 200/);

    await page.getByRole('button', { name: 'Sandbox: mark paid' }).click();
    await expect.poll(() => payoutStatus(c, payout.id)).toBe('paid');
    await expect.poll(() => page.locator('ol.timeline').textContent()).toContain('payout.paid');
    expect(await page.getByRole('button', { name: 'Cancel this payout' }).count()).toBe(0);

    // A reversal is recorded but never sent to webhooks nor served by the events API: shown, not linked.
    await page.getByRole('button', { name: 'Sandbox: revert' }).click();
    await expect.poll(() => payoutStatus(c, payout.id)).toBe('failed');
    const reverted = page.locator('ol.timeline li', { hasText: 'payout.reverted' });
    await expect.poll(() => reverted.textContent()).toContain('recorded, not sent to webhooks');
    expect(await reverted.locator('a').count()).toBe(0);
    expect(await page.locator('ol.timeline li', { hasText: 'payout.paid' }).locator('a').count()).toBe(1);
  });

  it('cancels a processing payout from its page, as POST /v1/payouts/:id/cancel does: held funds return', async () => {
    const page = adminPage;
    const before = await balance(c, 'EUR');
    const payout = await processingPayout(c, beneficiaryId);
    await page.goto(`${t.base}/dashboard/payouts/${payout.id}`);
    page.once('dialog', (dialog) => void dialog.accept());
    await page.getByRole('button', { name: 'Cancel this payout' }).click();
    await expect.poll(() => payoutStatus(c, payout.id)).toBe('cancelled');
    expect(await balance(c, 'EUR')).toMatchObject({ balance: before?.balance });
  });

  it('shows a settlement-funded order with its instructions, and moves it from its page', async () => {
    const page = adminPage;
    const order = await placeOrder(c, { clientRef: ref('ord'), fromAmount: '25.00', funding: 'settlement' });
    await page.goto(`${t.base}/dashboard/orders`);
    await page.getByRole('link', { name: order.clientRef as string }).click();
    const instructions = page.locator('section', { hasText: 'Settlement instructions' });
    expect(await instructions.textContent()).toContain(order.settlement?.reference);
    expect(await instructions.textContent()).toContain('25.00');
    await page.getByRole('button', { name: 'Sandbox: settlement received' }).click();
    await expect.poll(async () => (await c.request('GET', `/v1/orders/${order.id}`)).json<{ status: string }>().status).toBe('funds_received');
  });

  it('shows what an application lacks for submit, as submit lists it', async () => {
    const page = adminPage;
    const created = await c.request('POST', '/v2/applications', { applicationType: 'business', businessInfo: { registeredName: 'Acme Payments Ltd' } });
    expect(created.statusCode, created.body).toBe(201);
    const id = created.json<{ id: string }>().id;
    const submit = await c.request('POST', `/v2/applications/${id}/submit`);
    expect(submit.statusCode).toBe(422);
    const missing = submit.json<{ errors: { field: string }[] }>().errors.map((e) => e.field);
    expect(missing.length).toBeGreaterThan(0);
    await page.goto(`${t.base}/dashboard/onboarding`);
    const items = await page.locator('section', { hasText: id }).locator('ul.missing li code').allTextContents();
    expect(items).toEqual(missing);
  });

  it('asks for more information on a submitted application from the sandbox review, and shows what the reviewer asked', async () => {
    const page = adminPage;
    const { application } = await completeBusiness(t.app, c);
    expect((await c.request('POST', `/v2/applications/${application.id}/submit`)).statusCode).toBe(200);
    await page.goto(`${t.base}/dashboard/onboarding`);
    const card = page.locator('section', { hasText: application.id });
    await card.getByLabel('Decision').selectOption('request_info');
    await card.getByLabel('Reason (required to ask for more information)').fill('Please upload a clearer certificate');
    await card.getByRole('button', { name: 'Sandbox: record this review' }).click();
    await expect.poll(async () => (await c.request('GET', `/v2/applications/${application.id}`)).json<{ status: string }>().status).toBe('more_info_requested');
    await expect.poll(() => page.locator('section', { hasText: application.id }).textContent()).toContain('The reviewer asked: Please upload a clearer certificate');
  });

  it('shows the other pages with no CSP violation: beneficiaries, receiving, events and an event with its payload', async () => {
    const page = adminPage;
    await page.goto(`${t.base}/dashboard/beneficiaries`);
    await page.getByRole('link', { name: 'Ada Lovelace' }).click();
    expect(await page.locator('main').textContent()).toContain('DE89370400440532013000');
    for (const path of ['/dashboard/receiving', '/dashboard/events', '/dashboard/events?type=payout.paid']) {
      const res = await page.goto(`${t.base}${path}`);
      expect(res?.status(), path).toBe(200);
    }
    await page.locator('main table a').first().click();
    expect(await page.locator('pre.json').textContent()).toContain('"type": "payout.paid"');
    expect(csp).toEqual([]);
  });

  it('answers 404 for another workspace\'s payout', async () => {
    const other = await payingWorkspace(t);
    await fund(other, 'EUR', '50.00');
    const theirs = await processingPayout(other, await saveBeneficiary(other));
    const res = await adminPage.goto(`${t.base}/dashboard/payouts/${theirs.id}`);
    expect(res?.status()).toBe(404);
    expect(await adminPage.locator('main').textContent()).not.toContain(theirs.clientRef);
    expect(csp).toEqual([]);
  });

  it('lets a viewer read every page but change nothing: no forms, and a tool POST with a valid CSRF token is 403', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    const problems = watchCsp(page);
    await acceptInvitation(page, await invite(t, c.workspaceId, `viewer-${Date.now()}@example.com`, 'viewer'));
    const payout = await processingPayout(c, beneficiaryId);
    await page.goto(`${t.base}/dashboard/payouts/${payout.id}`);
    expect(await page.locator('main').textContent()).toContain(payout.clientRef);
    expect(await page.locator('main form[method="post"]').count()).toBe(0);
    await page.goto(`${t.base}/dashboard/sandbox`);
    expect(await page.locator('main form[method="post"]').count()).toBe(0);

    const before = await balance(c, 'EUR');
    const csrf = await page.locator('input[name="_csrf"]').first().inputValue();
    const fundRes = await page.request.post(`${t.base}/dashboard/sandbox/fund`, { form: { _csrf: csrf, currency: 'EUR', amount: '5.00' } });
    expect(fundRes.status()).toBe(403);
    const moveRes = await page.request.post(`${t.base}/dashboard/sandbox/payouts/${payout.id}/pay`, { form: { _csrf: csrf } });
    expect(moveRes.status()).toBe(403);
    expect(await balance(c, 'EUR')).toEqual(before);
    expect(await payoutStatus(c, payout.id)).toBe('processing');
    expect(problems).toEqual([]);
    await context.close();
  });
});
