import type { Browser, Dialog, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Caller } from '../helpers/app.js';
import { acceptInvitation, haveChromium, invite, launchBrowser, signedInAdmin, watchCsp, webTestApp, type WebTestApp } from '../helpers/browser.js';
import { balance, fund, payingWorkspace, ref, saveBeneficiary, type PayoutView } from '../payouts/helpers.js';

/** The dashboard's Approvals page (issue 23, point 2): rules set by an admin, payouts approved or rejected by someone other than their creator. */

type Held = PayoutView & { approval?: { status: string; decidedBy: string | null } };

let t: WebTestApp;
let browser: Browser;
let c: Caller;
let beneficiaryId: string;
let admin: Page;
let csp: string[];

beforeAll(async () => {
  t = await webTestApp({ SANDBOX_STEP_MS: '600000' });
  c = await payingWorkspace(t);
  await fund(c, 'EUR', '1000');
  beneficiaryId = await saveBeneficiary(c);
  if (!haveChromium) return;
  browser = await launchBrowser();
  admin = await (await browser.newContext()).newPage();
  csp = watchCsp(admin);
  await signedInAdmin(t, admin, c.workspaceId);
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await t?.close();
});

async function pay(amount: string): Promise<Held> {
  const res = await c.request('POST', '/v1/payouts', { clientRef: ref('appr'), amount, currency: 'EUR', beneficiary: { id: beneficiaryId } });
  expect(res.statusCode, res.body).toBe(201);
  return res.json<Held>();
}

interface Entry {
  actor: string | null;
  status_code: number;
  body: { change?: string; payoutId?: string } | null;
}

/** The audit entries of the workspace's chain written for calls to `path`, oldest first. */
const entriesAt = (path: string) =>
  t.ctx.db.query<Entry>('SELECT actor, status_code, body FROM operator_audit_log WHERE workspace_id = $1 AND path = $2 ORDER BY seq', [c.workspaceId, path]);

const read = async (id: string) => (await c.request('GET', `/v1/payouts/${id}`)).json<Held>();

/** Clicks a button whose form asks first, answering the question; returns it. */
async function clickAnswering(page: Page, name: string, accept: boolean): Promise<string> {
  const asked = new Promise<string>((resolve) => {
    page.once('dialog', (dialog: Dialog) => {
      resolve(dialog.message());
      void (accept ? dialog.accept() : dialog.dismiss());
    });
  });
  await page.getByRole('button', { name }).first().click();
  return asked;
}

describe.skipIf(!haveChromium)('the Approvals page', () => {
  it('an admin adds a rule from the page; a payout it matches waits there', async () => {
    await admin.goto(`${t.base}/dashboard/approvals`);
    expect(await admin.locator('main').textContent()).toContain('No rule: payouts proceed without an approval.');
    await admin.getByLabel('Rule', { exact: true }).selectOption('amount_over');
    await admin.getByLabel('Currency').fill('EUR');
    await admin.getByLabel('Amount').fill('100');
    await admin.getByRole('button', { name: 'Add rule' }).click();
    await expect.poll(() => admin.locator('.notice-success').textContent()).toContain('Approval rule added');
    expect(await admin.locator('main').textContent()).toContain('Over 100.00 EUR');
    // One change, one audit entry: the service's, naming the user (the page adds none of its own).
    const ruleEntries = await entriesAt('/dashboard/approval-rules');
    expect(ruleEntries).toHaveLength(1);
    expect(ruleEntries[0]).toMatchObject({ actor: expect.stringMatching(/^user:/), body: { change: 'approval_rule.created' } });

    const small = await pay('50.00');
    expect(small.approval).toBeUndefined();
    const held = await pay('150.00');
    expect(held.approval?.status).toBe('pending');
    await admin.goto(`${t.base}/dashboard/approvals`);
    expect(await admin.locator('table').first().textContent()).toContain(held.clientRef);
  });

  it('a viewer sees what waits but has no buttons, and a decision POST with a valid CSRF token is 403', async () => {
    const context = await browser.newContext();
    const viewer = await context.newPage();
    const problems = watchCsp(viewer);
    await acceptInvitation(viewer, await invite(t, c.workspaceId, `viewer-${Date.now()}@example.com`, 'viewer'));
    const held = await pay('160.00');
    await viewer.goto(`${t.base}/dashboard/approvals`);
    expect(await viewer.locator('main').textContent()).toContain(held.clientRef);
    expect(await viewer.locator('main form[method="post"]').count()).toBe(0);
    const csrf = await viewer.locator('input[name="_csrf"]').first().inputValue();
    const res = await viewer.request.post(`${t.base}/dashboard/approvals/${held.id}/approve`, { form: { _csrf: csrf } });
    expect(res.status()).toBe(403);
    expect((await read(held.id)).approval?.status).toBe('pending');
    expect(problems).toEqual([]);
    await context.close();
  });

  it('approve asks first: dismissed, nothing changes; accepted, the payout proceeds, decided by this user, and the page says so', async () => {
    const held = await pay('170.00');
    await admin.goto(`${t.base}/dashboard/approvals`);
    const question = await clickAnswering(admin, `Approve payout ${held.clientRef} of 170.00 EUR`, false);
    expect(question).toBe(`Approve payout ${held.clientRef} of 170.00 EUR? It is sent to the beneficiary.`);
    expect((await read(held.id)).approval?.status).toBe('pending');
    await clickAnswering(admin, `Approve payout ${held.clientRef} of 170.00 EUR`, true);
    await expect.poll(() => admin.locator('.notice-success').textContent()).toContain('Payout approved');
    const approved = await read(held.id);
    expect(approved.approval).toMatchObject({ status: 'approved', decidedBy: expect.stringMatching(/^dashboard:/) });
    const [job] = await t.ctx.db.query<{ n: number }>("SELECT count(*)::int AS n FROM jobs WHERE kind = 'payout.step' AND payload->'payoutIds' ? $1", [held.id]);
    expect(job?.n).toBe(1);

    // One decision, one audit entry: the decision's, with this user as its actor.
    const path = `/dashboard/approvals/${held.id}/approve`;
    const user = `user:${(approved.approval?.decidedBy ?? '').slice('dashboard:'.length)}`;
    const entries = await entriesAt(path);
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ actor: user, body: { change: 'payout.approval.approved', payoutId: held.id } });
    // A refused decision (already approved) changes nothing, and its call is still in the log, once.
    const csrf = await admin.locator('input[name="_csrf"]').first().inputValue();
    const again = await admin.request.post(`${t.base}${path}`, { form: { _csrf: csrf } });
    expect(again.status()).toBe(409);
    const after = await entriesAt(path);
    expect(after).toHaveLength(2);
    expect(after[1]).toMatchObject({ actor: user, status_code: 409 });
  });

  it('reject cancels the payout and returns its funds; the page says so; the payout page shows the decision', async () => {
    const before = await balance(c, 'EUR');
    const held = await pay('180.00');
    await admin.goto(`${t.base}/dashboard/approvals`);
    const question = await clickAnswering(admin, `Reject payout ${held.clientRef} of 180.00 EUR`, true);
    expect(question).toContain('It is cancelled and its held funds return to the balance.');
    await expect.poll(() => admin.locator('.notice-success').textContent()).toContain('Payout rejected');
    expect(await read(held.id)).toMatchObject({ status: 'cancelled', approval: { status: 'rejected' } });
    const entries = await entriesAt(`/dashboard/approvals/${held.id}/reject`);
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ actor: expect.stringMatching(/^user:/), body: { change: 'payout.approval.rejected' } });
    expect(await balance(c, 'EUR')).toMatchObject({ balance: before?.balance, totalBalance: before?.totalBalance });
    await admin.goto(`${t.base}/dashboard/payouts/${held.id}`);
    expect(await admin.locator('dl.facts').textContent()).toContain('rejected');
  });

  it('met no Content-Security-Policy violation', () => {
    expect(csp).toEqual([]);
  });
});
