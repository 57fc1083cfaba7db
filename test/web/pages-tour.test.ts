import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRunner } from '../../src/jobs.js';
import { completeBusiness } from '../applications/helpers.js';
import { fund, payingWorkspace, ref, saveBeneficiary, waitFor } from '../payouts/helpers.js';
import type { Caller } from '../helpers/app.js';
import { HttpsReceiver } from '../helpers/https-receiver.js';
import { acceptInvitation, consoleSignIn, haveChromium, launchBrowser, signedInAdmin, watchCsp, webTestApp, type WebTestApp } from '../helpers/browser.js';

/**
 * A tour of every main page of the dashboard and the console, on a workspace with data in it: each
 * page answers 200 with its heading, breaks no CSP rule, logs no error, and labels every field.
 * With SCREENSHOTS_DIR set (`npm run screenshots`), each page is also saved there for docs/guides/dashboard.md.
 */
const SCREENSHOTS_DIR = process.env.SCREENSHOTS_DIR;

/** Inputs a screen reader could not name (run in the page; written as text, the tests have no DOM types). */
const UNLABELLED_FIELDS = `[...document.querySelectorAll('input:not([type=hidden]):not([hidden]), select, textarea')]
  .filter((el) => el.labels.length === 0 && !el.getAttribute('aria-label'))
  .map((el) => el.outerHTML.slice(0, 120))`;

async function unlabelledFields(page: Page): Promise<string[]> {
  return page.evaluate(UNLABELLED_FIELDS) as Promise<string[]>;
}

async function visit(page: Page, base: string, url: string, heading: string, shot: string | undefined, problems: string[]): Promise<void> {
  const res = await page.goto(`${base}${url}`);
  expect(res?.status(), url).toBe(200);
  await expect.poll(() => page.locator('h1').first().innerText()).toMatch(new RegExp(`^${heading}`));
  expect(await unlabelledFields(page), url).toEqual([]);
  expect(problems, url).toEqual([]);
  if (SCREENSHOTS_DIR && shot) await page.screenshot({ path: path.join(SCREENSHOTS_DIR, `${shot}.png`), fullPage: true });
}

describe.skipIf(!haveChromium)('a tour of the dashboard and the console', () => {
  let t: WebTestApp;
  let browser: Browser;
  let c: Caller;
  let payoutId: string;
  let stopRunner: () => Promise<void>;
  let receiver: HttpsReceiver;

  beforeAll(async () => {
    if (SCREENSHOTS_DIR) mkdirSync(SCREENSHOTS_DIR, { recursive: true });
    t = await webTestApp({ SANDBOX_STEP_MS: '50', WEBHOOK_RETRY_DELAYS_MS: '100,100,100,100,100' });
    const runner = createRunner(t.ctx);
    runner.start();
    stopRunner = () => runner.stop();
    c = await payingWorkspace(t);
    await fund(c, 'EUR', '25000.00');
    await fund(c, 'USD', '12000.00');
    receiver = await HttpsReceiver.start();
    const hook = await c.request('POST', '/v1/webhooks', { url: receiver.url('/corridor'), events: ['payout.processing', 'payout.paid', 'payout.failed'] });
    expect(hook.statusCode, hook.body).toBe(201);
    expect((await c.request('POST', '/v1/accounts', { name: 'Acme Lagos', country: 'NG' })).statusCode).toBe(201);
    const beneficiaryId = await saveBeneficiary(c);
    for (const amount of ['120.00', '75.50', '310.13']) {
      const res = await c.request('POST', '/v1/payouts', { amount, currency: 'EUR', beneficiary: { id: beneficiaryId }, clientRef: ref('tour') }, { 'idempotency-key': ref('k') });
      expect(res.statusCode, res.body).toBe(201);
      payoutId = res.json<{ id: string }>().id;
    }
    await waitFor(c, payoutId, (p) => p.status === 'failed' || p.status === 'paid');
    const { application } = await completeBusiness(t.app, c);
    expect((await c.request('POST', `/v2/applications/${application.id}/submit`)).statusCode).toBe(200);
    for (const [fromAmount, funding] of [['2500.00', 'settlement'], ['800.00', 'balance']]) {
      const order = await c.request('POST', '/v1/orders', { clientRef: ref('desk'), fromCurrency: 'EUR', toCurrency: 'USD', fromAmount, funding }, { 'idempotency-key': ref('k') });
      expect(order.statusCode, order.body).toBe(201);
    }
    browser = await launchBrowser();
  }, 90_000);
  afterAll(async () => {
    await browser?.close();
    await stopRunner?.();
    await receiver?.close();
    await t?.close();
  });

  it('shows every dashboard page to an admin', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
    const page = await context.newPage();
    const problems = watchCsp(page);
    page.on('console', (msg) => msg.type() === 'error' && problems.push(msg.text()));
    await signedInAdmin(t, page, c.workspaceId, 'ops@acme.example');
    const pages: [string, string, string][] = [
      ['/dashboard', 'Overview', 'dashboard-overview'],
      ['/dashboard/accounts', 'Accounts', 'dashboard-accounts'],
      ['/dashboard/payouts', 'Payouts', 'dashboard-payouts'],
      [`/dashboard/payouts/${payoutId}`, 'Payout', 'dashboard-payout'],
      ['/dashboard/approvals', 'Approvals', 'dashboard-approvals'],
      ['/dashboard/beneficiaries', 'Beneficiaries', 'dashboard-beneficiaries'],
      ['/dashboard/orders', 'Orders', 'dashboard-orders'],
      ['/dashboard/receiving', 'Receiving', 'dashboard-receiving'],
      ['/dashboard/onboarding', 'Onboarding', 'dashboard-onboarding'],
      ['/dashboard/events', 'Events', 'dashboard-events'],
      ['/dashboard/webhooks', 'Webhooks', 'dashboard-webhooks'],
      ['/dashboard/credentials', 'Credentials', 'dashboard-credentials'],
      ['/dashboard/users', 'Users', 'dashboard-users'],
      ['/dashboard/sandbox', 'Sandbox', 'dashboard-sandbox'],
      ['/dashboard/account', 'Security', 'dashboard-security'],
    ];
    for (const [url, heading, shot] of pages) await visit(page, t.base, url, heading, shot, problems);
    await context.close();
  }, 120_000);

  it('shows every console page to the operator', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
    const page = await context.newPage();
    const problems = watchCsp(page);
    page.on('console', (msg) => msg.type() === 'error' && problems.push(msg.text()));
    await consoleSignIn(page, t.base);
    const pages: [string, string, string][] = [
      ['/console', 'Workspaces', 'console-workspaces'],
      ['/console/payouts', 'Payouts', 'console-payouts'],
      ['/console/screening', 'Sanctions screening', 'console-screening'],
      ['/console/orders', 'Orders', 'console-orders'],
      ['/console/applications', 'Applications', 'console-applications'],
      ['/console/virtual-accounts', 'Virtual accounts', 'console-virtual-accounts'],
      ['/console/deposits', 'Deposits', 'console-deposits'],
      ['/console/bank', 'Bank files', 'console-bank'],
      ['/console/reconciliation', 'Reconciliation', 'console-reconciliation'],
      ['/console/operators', 'Operators', 'console-operators'],
      ['/console/audit', 'Audit log', 'console-audit'],
    ];
    for (const [url, heading, shot] of pages) await visit(page, t.base, url, heading, shot, problems);

    // An operator user, invited from the Operators page, accepts in another browser and has the console as theirs.
    await page.goto(`${t.base}/console/operators`);
    await page.getByLabel('Email').fill('grace@operator.example');
    await page.getByRole('button', { name: 'Invite' }).click();
    const link = (await page.locator('code.secret').textContent()) ?? '';
    expect(link).toMatch(/\/console\/invitation\?token=inv_/);
    const staff = await browser.newContext({ viewport: { width: 1280, height: 860 } });
    const staffPage = await staff.newPage();
    const staffProblems = watchCsp(staffPage);
    await acceptInvitation(staffPage, link);
    for (const [url, heading] of [
      ['/console', 'Workspaces'],
      ['/console/account', 'Security'],
    ]) {
      await visit(staffPage, t.base, url as string, heading as string, undefined, staffProblems);
    }
    await expect.poll(() => staffPage.locator('.who').innerText()).toContain('grace@operator.example');
    await staff.close();
    await context.close();
  }, 120_000);
});
