import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type Caller, type TestApp } from '../helpers/app.js';
import { dashboardUser, type WebClient } from '../helpers/web-client.js';
import { ADA, fund, payingWorkspace, payoutCount, saveBeneficiary } from '../payouts/helpers.js';

/**
 * The dashboard's payout form (issue 37, point 1), on both databases: any saved beneficiary can be
 * chosen, however many newer ones there are, and found by name; a payout paid from the balance in
 * its own currency is shown for review (who, which account, amount, fee, debit, reference) and sent
 * only when confirmed.
 */

let t: TestApp;
let c: Caller;
let admin: WebClient;
let oldest: string;

const option = (page: string, id: string) => new RegExp(`<option value="${id}"[^>]*>`).exec(page)?.[0];

beforeAll(async () => {
  t = await createTestApp({ env: { SANDBOX_STEP_MS: '600000' } });
  c = await payingWorkspace(t);
  await fund(c, 'EUR', '1000');
  oldest = await saveBeneficiary(c, { ...ADA, name: 'Zelda Oldfield' });
  for (let i = 0; i < 101; i++) await saveBeneficiary(c, { ...ADA, name: `Newer Person ${i}` });
  admin = await dashboardUser(t.app, c.workspaceId, 'payout-form-admin@example.com');
}, 180_000);
afterAll(async () => t?.close());

const payouts = () => payoutCount(t, c.workspaceId);

describe('choosing the beneficiary of a payout', () => {
  it('finds a beneficiary older than the hundred newest by name, and offers only the matches', async () => {
    const plain = await admin.get('/dashboard/payouts/new');
    expect(plain.statusCode).toBe(200);
    expect(option(plain.body, oldest)).toBeUndefined();
    expect(plain.body).toContain('search by name to find any other');

    const found = await admin.get('/dashboard/payouts/new?find=oldf');
    expect(found.statusCode).toBe(200);
    expect(option(found.body, oldest)).toBeDefined();
    expect(found.body).not.toContain('Newer Person');
  });

  it('opens the form with the beneficiary chosen from its own page ("Send a payout")', async () => {
    const page = await admin.get(`/dashboard/beneficiaries/${oldest}`);
    expect(page.body).toContain(`href="/dashboard/payouts/new?beneficiaryId=${oldest}"`);
    const form = await admin.get(`/dashboard/payouts/new?beneficiaryId=${oldest}`);
    expect(option(form.body, oldest)).toContain('selected');
  });
});

describe('sending a payout in the balance currency', () => {
  it('shows the review (recipient, account, amount, fee, debit, reference) and sends nothing until confirmed, then sends it once', async () => {
    await admin.get(`/dashboard/payouts/new?beneficiaryId=${oldest}`);
    const before = await payouts();
    const form = { beneficiaryId: oldest, amount: '25.00', currency: 'EUR', fundFrom: '', clientRef: 'review-1', reference: 'Invoice 77', purpose: '' };
    const review = await admin.post('/dashboard/payouts/new', form);
    expect(review.statusCode, review.body).toBe(200);
    expect(review.body).toContain('Check the payout');
    const text = review.body.replace(/<[^>]+>/g, ' ').replace(/&nbsp;/g, ' ').replace(/\s+/g, ' ');
    expect(text).toContain('Recipient Zelda Oldfield (DE)');
    expect(text).toContain(ADA.accounts[0]!.data.iban as string);
    expect(text).toContain('The beneficiary receives 25.00 EUR');
    expect(text).toMatch(/Payout fee [\d.,]+ EUR/);
    expect(text).toMatch(/Debited from your balance [\d.,]+ EUR/);
    expect(text).toContain('Message to the payee Invoice 77');
    expect(await payouts()).toBe(before);

    const sent = await admin.post('/dashboard/payouts/confirm', form);
    expect(sent.statusCode, sent.body).toBe(303);
    expect(sent.headers.location).toMatch(/^\/dashboard\/payouts\/[0-9a-f-]{36}$/);
    expect(await payouts()).toBe(before + 1);
    const made = (await c.request('GET', `/v1/payouts/${String(sent.headers.location).split('/').pop()}`)).json<{ amount: string; beneficiary: { id: string }; reference: string }>();
    expect(made).toMatchObject({ amount: '25.00', reference: 'Invoice 77' });
  });
});
