import { readFileSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRunner } from '../../src/jobs.js';
import type { JobRunner } from '../../src/platform/jobs/runner.js';
import type { Caller } from '../helpers/app.js';
import { haveChromium, launchBrowser, signedInAdmin, watchCsp, webTestApp, type WebTestApp } from '../helpers/browser.js';
import { DE_IBAN, fund, payingWorkspace, saveBeneficiary, waitFor } from '../payouts/helpers.js';
import { PDF, PNG } from '../applications/helpers.js';
import { rateFigure } from '../../src/faces/web/codes.js';

/**
 * Doing the work from the dashboard (issue 24, points 1 and 2) in Chromium: a payout from the form
 * reaches paid; one paid from another currency shows its quote first and its debit and rate after;
 * a beneficiary from the form the corridor's requirements draw; 200 payouts from a CSV, checked
 * whole first, then sent once however often the file comes back.
 */

let t: WebTestApp;
let runner: JobRunner;
let browser: Browser;
let c: Caller;
let page: Page;
let problems: string[];

/** A CSV of `n` payouts to saved beneficiary `beneficiaryId` (a new beneficiary on every 10th row), `bad` lines broken. */
function csv(n: number, beneficiaryId: string, run: string, bad: readonly number[] = []): string {
  let text = 'clientRef,amount,currency,beneficiaryId,beneficiaryType,beneficiaryName,beneficiaryCountry,iban\n';
  for (let i = 1; i <= n; i++) {
    const amount = bad.includes(i) ? 'ten' : `${(1 + (i % 7)).toFixed(2)}`;
    text += i % 10 === 0 ? `${run}-${i},${amount},EUR,,individual,Row ${i} Person,DE,${DE_IBAN}\n` : `${run}-${i},${amount},EUR,${beneficiaryId},,,,\n`;
  }
  return text;
}

async function countWithRef(prefix: string): Promise<number> {
  const rows = await t.ctx.db.query<{ n: string }>('SELECT count(*)::text AS n FROM payouts WHERE workspace_id = $1 AND client_ref LIKE $2', [c.workspaceId, `${prefix}-%`]);
  return Number(rows[0]?.n);
}

async function upload(name: string, text: string): Promise<void> {
  await page.goto(`${t.base}/dashboard/payouts/import`);
  await page.getByLabel('Payouts file (CSV)').setInputFiles({ name, mimeType: 'text/csv', buffer: Buffer.from(text) });
  await page.getByRole('button', { name: 'Check the file' }).click();
  await page.waitForLoadState('load');
}

describe.skipIf(!haveChromium)('creating from the dashboard (issue 24, points 1 and 2)', () => {
  let beneficiaryId: string;

  beforeAll(async () => {
    t = await webTestApp({ JOB_POLL_MS: '20', SANDBOX_STEP_MS: '40' });
    runner = createRunner(t.ctx);
    runner.start();
    browser = await launchBrowser();
    c = await payingWorkspace(t);
    beneficiaryId = await saveBeneficiary(c);
    await fund(c, 'EUR', '5000.00');
    await fund(c, 'USD', '5000.00');
    page = await browser.newPage();
    problems = watchCsp(page);
    await signedInAdmin(t, page, c.workspaceId);
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await runner?.stop();
    await t?.close();
  });

  it('sends a payout from the form to a saved beneficiary; it reaches paid', async () => {
    await page.goto(`${t.base}/dashboard/payouts`);
    await page.getByRole('link', { name: 'Send a payout' }).click();
    await page.getByLabel('Beneficiary', { exact: true }).selectOption(beneficiaryId);
    await page.getByLabel('Amount').fill('25.00');
    await page.getByLabel('Currency').selectOption('EUR');
    await page.getByRole('button', { name: 'Continue' }).click();
    // Reviewed first: nothing is sent until confirmed.
    await page.getByRole('heading', { name: 'Check the payout' }).waitFor();
    expect(await page.locator('dl.facts').innerText()).toMatch(/The beneficiary receives\s+25.00\sEUR/);
    await page.getByRole('button', { name: 'Confirm and send' }).click();
    await page.waitForURL((u) => /^\/dashboard\/payouts\/[0-9a-f-]{36}$/.test(u.pathname));
    const id = new URL(page.url()).pathname.split('/').pop() as string;
    expect((await waitFor(c, id, (p) => p.status === 'paid')).amount).toBe('25.00');
    await page.reload();
    expect(await page.locator('dl.facts').innerText()).toMatch(/Status\s+paid/);
    expect(problems).toEqual([]);
  });

  it('asks for the route only where the account has several rails, without JavaScript too: none for EUR, the one rail implied, a choice for a US account', async () => {
    const us = await saveBeneficiary(c, {
      type: 'individual',
      name: 'Grace Hopper',
      country: 'US',
      address: '1 Wall Street',
      city: 'New York',
      postcode: '10005',
      countrySubdivision: 'NY',
      accounts: [{ type: 'bank_account', currency: 'USD', country: 'US', data: { accountNumber: '123456789', routingNumber: '021000021', bankName: 'Chase' } }] });
    const uae = await saveBeneficiary(c, {
      type: 'individual',
      name: 'Ada Lovelace',
      country: 'AE',
      address: '1 Sheikh Zayed Road',
      city: 'Dubai',
      postcode: '00000',
      accounts: [{ type: 'bank_account', currency: 'USD', country: 'AE', data: { accountNumber: 'ACC123456', swiftCode: 'DEUTDEFF' } }],
    });
    const context = await browser.newContext({ javaScriptEnabled: false, storageState: await page.context().storageState() });
    const plain = await context.newPage();
    const payoutOf = async () => {
      await plain.waitForURL((u) => /^\/dashboard\/payouts\/[0-9a-f-]{36}$/.test(u.pathname));
      return (await c.request('GET', `/v1/payouts/${new URL(plain.url()).pathname.split('/').pop() ?? ''}`)).json<{ route: string; amount: string }>();
    };
    const fill = async (beneficiary: string, amount: string, currency: string) => {
      await plain.getByLabel('Beneficiary', { exact: true }).selectOption(beneficiary);
      await plain.getByLabel('Amount').fill(amount);
      await plain.getByLabel('Currency').selectOption(currency);
      await plain.getByRole('button', { name: 'Continue' }).click();
    };
    // Every payout ends on its review before anything is sent.
    const confirm = async () => {
      await plain.getByRole('heading', { name: 'Check the payout' }).waitFor();
      await plain.getByRole('button', { name: 'Confirm and send' }).click();
    };

    // EUR to an IBAN is routed automatically: no Route field.
    await plain.goto(`${t.base}/dashboard/payouts/new`);
    expect(await plain.getByLabel('Route', { exact: true }).count()).toBe(0);
    await fill(beneficiaryId, '11.00', 'EUR');
    await confirm();
    expect(await payoutOf()).toMatchObject({ amount: '11.00', route: 'international' });

    // USD to an account only SWIFT pays: nothing asked, the one rail sent.
    await plain.goto(`${t.base}/dashboard/payouts/new`);
    await fill(uae, '20.00', 'USD');
    await confirm();
    expect(await payoutOf()).toMatchObject({ amount: '20.00', route: 'swift' });

    // USD to a US account its details suit for ACH and Fedwire: the form comes back asking which, the rest kept; nothing sent until then.
    await plain.goto(`${t.base}/dashboard/payouts/new`);
    await fill(us, '30.00', 'USD');
    await plain.getByRole('status').filter({ hasText: 'choose the route' }).waitFor();
    expect(await plain.getByLabel('Route', { exact: true }).locator('option').evaluateAll((options) => options.map((o) => o.getAttribute('value')))).toEqual(['', 'ach', 'fedwire']);
    expect(await plain.getByLabel('Amount').inputValue()).toBe('30.00');
    const [sent] = await t.ctx.db.query<{ n: number }>("SELECT count(*)::int AS n FROM payouts WHERE workspace_id = $1 AND currency = 'USD' AND amount_minor = 3000", [c.workspaceId]);
    expect(sent?.n).toBe(0);
    await plain.getByLabel('Route', { exact: true }).selectOption('fedwire');
    await plain.getByRole('button', { name: 'Continue' }).click();
    await confirm();
    expect(await payoutOf()).toMatchObject({ amount: '30.00', route: 'fedwire' });
    await context.close();
  });

  it('shows a bad amount beside its field, with nothing sent', async () => {
    await page.goto(`${t.base}/dashboard/payouts/new`);
    await page.getByLabel('Beneficiary', { exact: true }).selectOption(beneficiaryId);
    await page.getByLabel('Amount').fill('1.234');
    await page.getByRole('button', { name: 'Continue' }).click();
    await expect.poll(() => page.getByLabel('Amount').getAttribute('aria-invalid')).toBe('true');
    expect(await page.getByLabel('Amount').inputValue()).toBe('1.234');
  });

  it('pays EUR from the USD balance: the quote (debit, rate, fee, expiry) first, re-quoted when it expired, then the payout shows its debit and rate', async () => {
    await page.goto(`${t.base}/dashboard/payouts/new`);
    await page.getByLabel('Beneficiary', { exact: true }).selectOption(beneficiaryId);
    await page.getByLabel('Amount').fill('100.00');
    await page.getByLabel('Currency').selectOption('EUR');
    await page.getByLabel('Pay from').selectOption('USD');
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByRole('heading', { name: 'Check the quote' }).waitFor();
    const quote = await page.locator('dl.facts').innerText();
    expect(quote).toMatch(/Debited from your balance\s+[\d.]+\sUSD/);
    expect(quote).toMatch(/Rate\s+1 USD = [\d.]+ EUR/);
    expect(quote).toContain('Quote valid until');
    // The quote runs out before the person confirms: they are shown a new one, not paid at the old rate.
    await t.ctx.db.query("UPDATE fx_quotes SET expires_at = now() - interval '1 second' WHERE workspace_id = $1", [c.workspaceId]);
    await page.getByRole('button', { name: 'Confirm and send' }).click();
    await expect.poll(() => page.getByRole('status').first().innerText()).toContain('The quote expired');
    await page.getByRole('button', { name: 'Confirm and send' }).click();
    await page.waitForURL((u) => /^\/dashboard\/payouts\/[0-9a-f-]{36}$/.test(u.pathname));
    const facts = (await page.locator('dl.facts').innerText()).replace(/\u00a0/g, ' ');
    // What the page says is what the API says: the quote's debit, its rate both ways, the fees.
    const paid = (await c.request('GET', `/v1/payouts/${new URL(page.url()).pathname.split('/').pop()}`)).json<{ quoteId: string; fee: string; feeCurrency: string }>();
    const used = (await c.request('GET', `/v1/fx/quotes/${paid.quoteId}`)).json<{ fromAmount: string; rate: string; inverseRate: string; fee: string }>();
    const grouped = (amount: string) => Number(amount).toLocaleString('en-GB', { minimumFractionDigits: 2 });
    expect(facts).toContain(`Debited\n${grouped(used.fromAmount)} USD`);
    expect(facts).toContain(`Rate\n1 USD = ${rateFigure(used.rate)} EUR · 1 EUR = ${rateFigure(used.inverseRate)} USD`);
    expect(facts).toContain(`Conversion fee\n${grouped(used.fee)} USD`);
    expect(facts).toContain(`Fee\n${grouped(paid.fee)} ${paid.feeCurrency}`);
  });

  it('adds a beneficiary with the fields the corridor requires, and comes back to the payout form with it chosen', async () => {
    await page.goto(`${t.base}/dashboard/payouts/new`);
    await page.getByRole('link', { name: 'Add a new beneficiary' }).click();
    await page.getByLabel('Currency paid').selectOption('EUR');
    await page.getByLabel('Beneficiary country').fill('DE');
    await page.getByRole('button', { name: 'Show the fields' }).click();
    await page.getByLabel('Name').fill('Grace Hopper');
    await page.getByLabel('IBAN').fill(DE_IBAN);
    for (const required of await page.locator('form[action="/dashboard/beneficiaries/new"] input[required]').all()) {
      if ((await required.inputValue()) === '') await required.fill((await required.getAttribute('type')) === 'date' ? '1990-01-01' : 'Berlin 10115');
    }
    await page.getByRole('button', { name: 'Save the beneficiary' }).click();
    await page.waitForURL((u) => u.pathname === '/dashboard/payouts/new');
    const chosen = await page.getByLabel('Beneficiary', { exact: true }).evaluate((el) => (el as unknown as { selectedOptions: { text: string }[] }).selectedOptions[0]?.text);
    expect(chosen).toContain('Grace Hopper');
  });

  it('places an order from the form; the order page follows', async () => {
    await page.goto(`${t.base}/dashboard/orders`);
    await page.getByRole('link', { name: 'Place an order' }).click();
    await page.getByLabel('Sell', { exact: true }).selectOption('EUR');
    await page.getByLabel('Buy', { exact: true }).selectOption('USD');
    await page.getByLabel('Amount to sell').fill('100.00');
    await page.getByLabel('Funding').selectOption('balance');
    await page.getByRole('button', { name: 'Place the order' }).click();
    await page.waitForURL((u) => /^\/dashboard\/orders\/[0-9a-f-]{36}$/.test(u.pathname));
    expect(await page.locator('dl.facts').first().innerText()).toMatch(/Sell\s+100.00\sEUR/);
  });

  it('requests a virtual account from Receiving; the refusal of an unapproved workspace is shown as the API gives it', async () => {
    await page.goto(`${t.base}/dashboard/receiving`);
    await page.getByLabel('Virtual account currency').selectOption('EUR');
    await page.getByRole('button', { name: 'Request a virtual account' }).click();
    await expect.poll(() => page.getByRole('alert').first().innerText()).toMatch(/KYB|onboarding|application/i);
    const api = await c.request('POST', '/v1/virtual-accounts', { currency: 'EUR' });
    expect(api.statusCode).toBe(409);
  });

  it('onboards from the dashboard: starts a business application, adds a person and the documents, accepts the terms and submits', async () => {
    await page.goto(`${t.base}/dashboard/onboarding`);
    await page.getByLabel('Registered name').fill('Acme Trading Ltd');
    await page.getByLabel('Registration number').fill('12345678');
    await page.getByLabel('Country of registration').fill('gb');
    await page.getByLabel('Street').fill('1 High Street');
    await page.getByLabel('City').fill('London');
    await page.getByLabel('Postal code').fill('EC1A 1AA');
    await page.getByRole('button', { name: 'Start the application' }).click();
    await page.getByText('Complete this application').click();
    await page.getByLabel('First name').fill('Ada');
    await page.getByLabel('Last name').fill('Lovelace');
    await page.getByLabel('Date of birth').fill('1985-12-10');
    await page.getByLabel('Nationality').fill('GB');
    await page.getByLabel('Title').fill('Director');
    await page.getByLabel('Ownership %').fill('60');
    await page.getByRole('button', { name: 'Add the person' }).click();
    for (const [type, whose, file] of [['photo_id', 'Ada Lovelace', { name: 'id.png', mimeType: 'image/png', buffer: PNG }], ['certificate_of_incorporation', 'The company', { name: 'cert.pdf', mimeType: 'application/pdf', buffer: PDF }]] as const) {
      await page.getByText('Complete this application').click();
      await page.getByLabel('Document type').selectOption(type);
      await page.getByLabel('Whose document').selectOption({ label: whose });
      await page.getByLabel('Document file').setInputFiles(file);
      await page.getByRole('button', { name: 'Upload the document' }).click();
      await page.waitForLoadState('load');
      expect(await page.getByRole('alert').count(), type).toBe(0);
    }
    await page.getByText('Complete this application').click();
    await page.getByRole('button', { name: /^Accept the terms/ }).click();
    await page.getByText('Complete this application').click();
    page.once('dialog', (d) => void d.accept());
    await page.getByRole('button', { name: 'Submit the application' }).click();
    await expect.poll(async () => (await c.request('GET', '/v2/applications')).json<{ data: { status: string }[] }>().data[0]?.status).toBe('under_review');
  });

  it('checks a CSV of 200 payouts whole: 3 bad rows are listed and nothing is sent; fixed, it sends 200; sent again, still 200', async () => {
    const run = `bulk${Date.now().toString(36)}`;
    await page.goto(`${t.base}/dashboard/payouts/import`);
    const template = await page.request.get(`${t.base}/dashboard/payouts/import/template.csv`);
    expect((await template.text()).split('\n')[0]).toContain('clientRef,amount,currency');

    await upload('bad.csv', csv(200, beneficiaryId, run, [17, 88, 150]));
    const errors = await page.getByRole('table', { name: 'Rows that need fixing' }).locator('tbody tr').allInnerTexts();
    expect(errors).toHaveLength(3);
    expect(errors.map((e) => e.split('\t')[0])).toEqual(['18', '89', '151']);
    expect(await countWithRef(run)).toBe(0);

    const good = csv(200, beneficiaryId, run);
    await upload('good.csv', good);
    await page.getByRole('button', { name: 'Send 200 payouts' }).dblclick();
    await expect.poll(() => page.getByRole('status').first().innerText(), { timeout: 60_000 }).toContain('200 payouts sent');
    expect(await countWithRef(run)).toBe(200);
    // The results CSV, downloaded from its button: every row of the file with the payout it made.
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download the results (CSV)' }).click()]);
    expect(download.suggestedFilename()).toBe('payouts-results.csv');
    const lines = readFileSync(await download.path(), 'utf8').trim().split(/\r?\n/);
    expect(lines[0]).toBe('line,clientRef,payoutId,status,amount,currency,fee,feeCurrency,failureReason');
    expect(lines).toHaveLength(201);
    const made = lines.slice(1).map((l) => l.split(','));
    expect(made.filter((r) => /^[0-9a-f-]{36}$/.test(r[2] ?? '')).length).toBe(200);
    expect(new Set(made.map((r) => r[1])).size).toBe(200);
    // Pressed again, it downloads again: a download is not held to one submission per form, as a change is.
    const [again] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download the results (CSV)' }).click()]);
    expect(readFileSync(await again.path(), 'utf8').trim().split(/\r?\n/)).toEqual(lines);
    // The payouts export streams page after page (100 rows a page): the 200, each once, as the results name them.
    const exported = (await (await page.request.get(`${t.base}/dashboard/payouts/export.csv?q=${run}`)).text()).trim().split(/\r?\n/).slice(1).map((l) => l.split(','));
    expect(exported).toHaveLength(200);
    expect(new Set(exported.map((r) => r[0]))).toEqual(new Set(made.map((r) => r[2])));

    await upload('good-again.csv', good);
    await page.getByRole('button', { name: 'Send 200 payouts' }).click();
    await expect.poll(() => page.getByRole('status').first().innerText(), { timeout: 60_000 }).toContain('200 already sent before');
    expect(await countWithRef(run)).toBe(200);
    expect(problems).toEqual([]);
  }, 120_000);
});
