import type { Browser, Dialog, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { operator } from '../helpers/app.js';
import { consoleSignIn, haveChromium, launchBrowser, watchCsp, webTestApp, type WebTestApp } from '../helpers/browser.js';
import { placeOrder, type OrderView } from '../orders/helpers.js';
import { balance, fund, payingWorkspace, ref, saveBeneficiary, type PayoutView } from '../payouts/helpers.js';

/**
 * The console asks before it moves money (issue 23, point 4), as Mark failed and Revert did: each
 * question names what it does, dismissing it changes nothing, and after the change the page says
 * what was done.
 */

let t: WebTestApp;
let browser: Browser;
let page: Page;
let csp: string[];

beforeAll(async () => {
  // Steps far apart: a payout stays where the operator puts it.
  t = await webTestApp({ SANDBOX_STEP_MS: '600000' });
  if (!haveChromium) return;
  browser = await launchBrowser();
  page = await (await browser.newContext()).newPage();
  csp = watchCsp(page);
  await consoleSignIn(page, t.base);
}, 30_000);
afterAll(async () => {
  await browser?.close();
  await t?.close();
});

/** Clicks a button whose form asks first: answers the question (accept or dismiss) and returns it. */
async function clickAnswering(button: ReturnType<Page['getByRole']>, accept: boolean): Promise<string> {
  const asked = new Promise<string>((resolve) => {
    page.once('dialog', (dialog: Dialog) => {
      resolve(dialog.message());
      void (accept ? dialog.accept() : dialog.dismiss());
    });
  });
  await button.click();
  return asked;
}

const notice = () => page.locator('.notice-success').textContent();

describe.skipIf(!haveChromium)('the console confirms before it moves money, then says what it did', () => {
  it('Mark paid: asks with the payout named; dismissed, the payout stays processing; accepted, it is paid and the queue says so', async () => {
    const c = await payingWorkspace(t);
    await fund(c, 'EUR', '100');
    const beneficiaryId = await saveBeneficiary(c);
    const created = await c.request('POST', '/v1/payouts', { clientRef: ref('mark'), amount: '12.00', currency: 'EUR', beneficiary: { id: beneficiaryId } });
    const payout = created.json<PayoutView>();
    expect((await operator(t.app, 'POST', `/operator/v1/payouts/${payout.id}/process`, {})).statusCode).toBe(200);

    await page.goto(`${t.base}/console/payouts?status=processing&provider=all&workspaceId=${c.workspaceId}`);
    const markPaid = page.getByRole('button', { name: 'Mark paid' });
    expect(await clickAnswering(markPaid, false)).toBe(`Mark payout ${payout.clientRef} of 12.00 EUR paid? Its held funds are posted to the rail.`);
    expect((await c.request('GET', `/v1/payouts/${payout.id}`)).json<PayoutView>().status).toBe('processing');

    await page.reload();
    await clickAnswering(page.getByRole('button', { name: 'Mark paid' }), true);
    await expect.poll(notice).toContain(`Payout ${payout.id} marked paid`);
    expect(new URL(page.url()).searchParams.get('workspaceId')).toBe(c.workspaceId); // back to the queue, filters kept
    expect((await c.request('GET', `/v1/payouts/${payout.id}`)).json<PayoutView>().status).toBe('paid');
  });

  it('credits a deposit (the form and a pending one) only after the question, and says so', async () => {
    const c = await payingWorkspace(t);
    const before = await balance(c, 'USDC');
    await page.goto(`${t.base}/console/deposits`);
    await page.getByLabel('Workspace id').first().fill(c.workspaceId);
    await page.getByLabel('Currency').first().fill('USDC');
    await page.getByLabel('Amount').fill('25.00');
    await page.getByLabel('Rail').selectOption('crypto');
    expect(await clickAnswering(page.getByRole('button', { name: 'Credit deposit' }), false)).toBe('Credit 25.00 USDC to the account? The deposit is posted to its balance.');
    expect(await balance(c, 'USDC')).toEqual(before);
    await clickAnswering(page.getByRole('button', { name: 'Credit deposit' }), true);
    await expect.poll(notice).toContain('credited to the account');
    expect(Number((await balance(c, 'USDC'))?.balance)).toBe(Number(before?.balance ?? '0') + 25);

    const pending = await c.request('POST', '/v1/sandbox/deposits', { currency: 'USDC', amount: '5.00', rail: 'crypto', outcome: 'pending' });
    expect(pending.statusCode, pending.body).toBe(201);
    const id = pending.json<{ id: string }>().id;
    await page.goto(`${t.base}/console/deposits?status=pending&workspaceId=${c.workspaceId}`);
    expect(await clickAnswering(page.getByRole('button', { name: 'Credit (complete)' }), true)).toBe(`Credit the deposit of 5.000000 USDC to workspace ${c.workspaceId}?`);
    await expect.poll(notice).toContain(`Deposit ${id} completed`);
  });

  it('completes an order asking with the final amount typed against the quoted one', async () => {
    const c = await payingWorkspace(t);
    await fund(c, 'EUR', '200');
    const order = await placeOrder(c, { fromAmount: '100.00', funding: 'balance' });
    expect((await operator(t.app, 'POST', `/operator/v1/orders/${order.id}/execute`, {})).statusCode).toBe(200);
    await page.goto(`${t.base}/console/orders/${order.id}`);
    const final = (Number(order.toAmount) - 1).toFixed(2);
    const rate = (100 / Number(final)).toFixed(6);
    await page.getByLabel('Final amount delivered').fill(final);
    await page.getByLabel('Final rate').fill(rate);
    const complete = page.getByRole('button', { name: 'Complete order' });
    expect(await clickAnswering(complete, false)).toBe(`Complete this order? Final amount ${final} USD against the quoted ${order.toAmount} USD.`);
    expect((await c.request('GET', `/v1/orders/${order.id}`)).json<OrderView>().status).toBe('executing');
    await clickAnswering(complete, true);
    await expect.poll(notice).toContain(`Order ${order.id} completed`);
    expect((await c.request('GET', `/v1/orders/${order.id}`)).json<OrderView>()).toMatchObject({ status: 'completed', toAmount: final });
  });

  it('switches a capability off only after the question, and says so; switching on does not ask', async () => {
    const c = await payingWorkspace(t);
    await page.goto(`${t.base}/console/workspaces/${c.workspaceId}`);
    const off = page.getByRole('button', { name: 'Switch off payouts', exact: true });
    expect(await clickAnswering(off, false)).toMatch(/^Switch off payouts for .+\? Its calls through it are refused at once/);
    expect((await operator(t.app, 'GET', `/operator/v1/workspaces/${c.workspaceId}`)).json().capabilities.payouts).toBe(true);
    await clickAnswering(off, true);
    await expect.poll(notice).toContain('Capability switched off');
    expect((await operator(t.app, 'GET', `/operator/v1/workspaces/${c.workspaceId}`)).json().capabilities.payouts).toBe(false);
    await page.getByRole('button', { name: 'Switch on payouts', exact: true }).click();
    await expect.poll(notice).toContain('Capability switched on');
  });

  it('met no Content-Security-Policy violation', () => {
    expect(csp).toEqual([]);
  });
});
