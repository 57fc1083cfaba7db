import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOperatorKey } from '../../src/controls/operator/operator.service.js';
import { operator, type Caller } from '../helpers/app.js';
import { consoleSignIn, haveChromium, launchBrowser, watchCsp, webTestApp, type WebTestApp } from '../helpers/browser.js';
import { ADA, balance, fund, payingWorkspace, ref } from '../payouts/helpers.js';
import { LIST_FILES, loadList } from '../screening/helpers.js';

/** The console's screening queue in Chromium: the evidence, release (with dual control), reject, each audited as console. */

const SECOND_KEY = 'op_second_console_key_0123456789';

let t: WebTestApp;
let browser: Browser;
let first: Page;
let second: Page;
let csp: string[][];
let c: Caller;

beforeAll(async () => {
  t = await webTestApp();
  browser = await launchBrowser();
  first = await (await browser.newContext()).newPage();
  second = await (await browser.newContext()).newPage();
  csp = [watchCsp(first), watchCsp(second)];
  await createOperatorKey(t.ctx.db, t.ctx.box, SECOND_KEY, 'second operator');
  const uk = LIST_FILES['uk-ofsi'];
  expect((await loadList(t, 'uk-ofsi', uk.body(), uk.type)).statusCode).toBe(201);
  c = await payingWorkspace(t);
  await fund(c, 'EUR', '100.00');
}, 30_000);
afterAll(async () => {
  await browser?.close();
  await t?.close();
});

async function heldPayout(amount: string): Promise<{ id: string; clientRef: string }> {
  const res = await c.request('POST', '/v1/payouts', { clientRef: ref('console-scr'), amount, currency: 'EUR', beneficiary: { ...ADA, name: 'Khizri Abakarov' } });
  expect(res.statusCode, res.body).toBe(201);
  expect(res.json<{ screening: { status: string } }>().screening.status).toBe('held');
  return res.json<{ id: string; clientRef: string }>();
}
const payoutOf = async (id: string) => (await c.request('GET', `/v1/payouts/${id}`)).json<{ status: string; failureReason: string | null; screening: { status: string } }>();
const row = (page: Page, payoutId: string) => page.locator('#held tr', { hasText: payoutId });

describe.skipIf(!haveChromium)('the console’s screening queue in a browser', () => {
  it('shows a held payout with its evidence; dual control refuses the same operator and takes a second one', async () => {
    const p = await heldPayout('7.00');
    await consoleSignIn(first, t.base);
    await first.getByRole('link', { name: 'Screening' }).click();
    await expect.poll(() => row(first, p.id).textContent()).toContain('uk-ofsi entry 14596');
    expect(await row(first, p.id).textContent()).toContain('“Khizri Abakarov” matched “Khizri ABAKAROV”');

    await first.getByLabel('Release of a held payout').selectOption('on');
    first.once('dialog', (d) => void d.accept());
    await first.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => first.getByRole('status').first().textContent()).toContain('Screening settings saved.');

    first.once('dialog', (d) => void d.accept());
    await row(first, p.id).getByRole('button', { name: 'Release (first of two)' }).click();
    await expect.poll(() => first.getByRole('status').first().textContent()).toContain('a second, different operator must release it');
    first.once('dialog', (d) => void d.accept());
    await row(first, p.id).getByRole('button', { name: 'Release' }).click();
    await expect.poll(() => first.getByRole('alert').first().textContent()).toContain('second, different operator');
    expect((await payoutOf(p.id)).screening.status).toBe('held');

    await consoleSignIn(second, t.base, SECOND_KEY);
    await second.goto(`${t.base}/console/screening`);
    second.once('dialog', (d) => void d.accept());
    await row(second, p.id).getByRole('button', { name: 'Release' }).click();
    await expect.poll(() => second.getByRole('status').first().textContent()).toContain('Released');
    expect(await payoutOf(p.id)).toMatchObject({ status: 'queued', screening: { status: 'released' } });
    await operator(t.app, 'PUT', '/operator/v1/screening/settings', { dualControl: false });
  });

  it('rejects a held payout: it fails with compliance_rejected and the funds come back', async () => {
    const before = await balance(c, 'EUR');
    const p = await heldPayout('9.00');
    await first.goto(`${t.base}/console/screening`);
    first.once('dialog', (d) => void d.accept());
    await row(first, p.id).getByRole('button', { name: 'Reject' }).click();
    await expect.poll(() => first.getByRole('status').first().textContent()).toContain('compliance_rejected');
    expect(await payoutOf(p.id)).toMatchObject({ status: 'failed', failureReason: 'compliance_rejected', screening: { status: 'rejected' } });
    expect((await balance(c, 'EUR'))?.balance).toBe(before?.balance);
    const audit = (await operator(t.app, 'GET', '/operator/v1/audit-log?actor=console&pathContains=/console/screening/')).json<{ data: { path: string; statusCode: number }[] }>().data;
    expect(audit.map((e) => `${e.path} ${e.statusCode}`)).toEqual(expect.arrayContaining([`/console/screening/${p.id}/reject 303`]));
  });

  it('met no Content-Security-Policy violation', () => {
    expect(csp.flat()).toEqual([]);
  });
});
