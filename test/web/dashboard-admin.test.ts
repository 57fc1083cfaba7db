import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRunner } from '../../src/jobs.js';
import type { JobRunner } from '../../src/platform/jobs/runner.js';
import { newWorkspace, operator, type Caller } from '../helpers/app.js';
import { acceptInvitation, haveChromium, invite, launchBrowser, watchCsp, webTestApp, type WebTestApp } from '../helpers/browser.js';
import { HttpsReceiver } from '../helpers/https-receiver.js';

/** A credential as the operator API lists it. */
interface Listed {
  clientId: string;
  label: string | null;
  scopes: string[];
  status: string;
}

const GRACE_SECONDS = 3;

let t: WebTestApp;
let runner: JobRunner;
let receiver: HttpsReceiver;
let browser: Browser;
let workspace: Caller;

async function tokenStatus(clientId: string, clientSecret: string): Promise<number> {
  const res = await t.app.inject({
    method: 'POST',
    url: '/oauth/token',
    payload: { client_id: clientId, client_secret: clientSecret, audience: 'corridor-api', grant_type: 'client_credentials' },
  });
  return res.statusCode;
}

async function token(clientId: string, clientSecret: string): Promise<string> {
  const res = await t.app.inject({ method: 'POST', url: '/oauth/token', payload: { client_id: clientId, client_secret: clientSecret, audience: 'corridor-api', grant_type: 'client_credentials' } });
  expect(res.statusCode).toBe(200);
  return res.json<{ access_token: string }>().access_token;
}

async function listedCredentials(): Promise<Listed[]> {
  const res = await operator(t.app, 'GET', `/operator/v1/workspaces/${workspace.workspaceId}/credentials?limit=100`);
  expect(res.statusCode).toBe(200);
  return res.json<{ data: Listed[] }>().data;
}

/** The secret a page shows once (secretOnce). */
async function shownSecret(page: Page): Promise<string> {
  const text = (await page.locator('code.secret').textContent()) ?? '';
  expect(text.length).toBeGreaterThan(20);
  return text;
}

async function newPage(): Promise<Page> {
  const page = await (await browser.newContext()).newPage();
  page.on('dialog', (dialog) => void dialog.accept()); // the data-confirm questions
  return page;
}

beforeAll(async () => {
  t = await webTestApp({ JOB_POLL_MS: '20', WEBHOOK_TIMEOUT_MS: '2000' });
  receiver = await HttpsReceiver.start();
  runner = createRunner(t.ctx);
  runner.start();
  workspace = await newWorkspace(t.app);
  if (haveChromium) browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await runner.stop();
  await receiver.close();
  await t.close();
});

describe.skipIf(!haveChromium)('a workspace admin in the dashboard', () => {
  let admin: Page;
  let csp: string[];
  let clientId: string;
  let createdSecret: string;
  let endpointId: string;

  it('accepts an invitation, creates a credential whose secret is shown once and gets a token with it', async () => {
    admin = await newPage();
    csp = watchCsp(admin);
    const email = `admin-${Date.now()}@example.com`;
    await acceptInvitation(admin, await invite(t, workspace.workspaceId, email, 'admin'));

    await admin.goto(`${t.base}/dashboard/credentials`);
    await admin.getByLabel('Label').fill('billing server');
    await admin.getByLabel('write:payouts').uncheck();
    await admin.getByRole('button', { name: 'Create credential' }).click();
    const secret = await shownSecret(admin);
    createdSecret = secret;

    const created = (await listedCredentials()).find((c) => c.label === 'billing server');
    expect(created?.scopes).toContain('read:payouts');
    expect(created?.scopes).not.toContain('write:payouts');
    clientId = created!.clientId;
    expect(await tokenStatus(clientId, secret)).toBe(200);

    // Never again: not in the list, not on its page.
    await admin.goto(`${t.base}/dashboard/credentials`);
    await expect.poll(() => admin.getByRole('link', { name: 'billing server' }).count()).toBe(1);
    expect(await admin.content()).not.toContain(secret);
    await admin.getByRole('link', { name: 'billing server' }).click();
    expect(await admin.content()).not.toContain(secret);
    expect(await admin.locator('main').textContent()).toContain(clientId);

    // The change is in the operator audit log, by this user, without the secret.
    const users = await operator(t.app, 'GET', `/operator/v1/workspaces/${workspace.workspaceId}/users`);
    const adminId = users.json<{ data: { id: string; email: string }[] }>().data.find((u) => u.email === email)!.id;
    const audit = await operator(t.app, 'GET', `/operator/v1/audit-log?workspaceId=${workspace.workspaceId}&limit=100`);
    const entry = audit.json<{ data: { method: string; path: string; actor: string; statusCode: number; body: unknown }[] }>().data.find((e) => e.path === '/dashboard/credentials');
    expect(entry).toMatchObject({ method: 'POST', actor: `user:${adminId}`, statusCode: 201 });
    expect(JSON.stringify(entry)).not.toContain(secret);
    expect(JSON.stringify(entry)).toContain('billing server');
  });

  it('rotates the secret: with no grace the old one stops at once; with a grace the old one works until it ends', async () => {
    await admin.goto(`${t.base}/dashboard/credentials/${clientId}`);
    await admin.getByLabel('The old secret keeps working for').selectOption('0');
    await admin.getByRole('button', { name: 'Rotate secret' }).click();
    await expect.poll(() => admin.locator('main').textContent()).toContain('has stopped working');
    const oldSecret = await shownSecret(admin);
    expect(await tokenStatus(clientId, createdSecret)).toBe(401);
    expect(await tokenStatus(clientId, oldSecret)).toBe(200);

    await admin.goto(`${t.base}/dashboard/credentials/${clientId}`);
    await admin.getByLabel('Or a grace period in seconds').fill(String(GRACE_SECONDS));
    await admin.getByRole('button', { name: 'Rotate secret' }).click();
    await expect.poll(() => admin.locator('main').textContent()).toContain('keeps working until');
    const rotatedAt = Date.now();
    const newSecret = await shownSecret(admin);
    expect(newSecret).not.toBe(oldSecret);

    expect(await tokenStatus(clientId, newSecret)).toBe(200);
    expect(await tokenStatus(clientId, oldSecret)).toBe(200);
    await expect.poll(() => tokenStatus(clientId, oldSecret), { timeout: 10_000, interval: 250 }).toBe(401);
    expect(Date.now() - rotatedAt).toBeGreaterThanOrEqual(GRACE_SECONDS * 1000 - 1000);
    expect(await tokenStatus(clientId, newSecret)).toBe(200);

    // A grace period beyond 7 days is refused in the form, and nothing changes.
    await admin.goto(`${t.base}/dashboard/credentials/${clientId}`);
    await admin.getByLabel('Or a grace period in seconds').fill('604801');
    const [refused] = await Promise.all([admin.waitForResponse((r) => r.url().endsWith('/rotate')), admin.getByRole('button', { name: 'Rotate secret' }).click()]);
    expect(refused.status()).toBe(400);
    await expect.poll(() => admin.locator('main').textContent()).toContain('from 0 to 604800');
    expect(await tokenStatus(clientId, newSecret)).toBe(200);

    // Revoked: its token is refused on the next call.
    const live = await token(clientId, newSecret);
    const account = () => t.app.inject({ method: 'GET', url: '/v1/account', headers: { authorization: `Bearer ${live}` } });
    expect((await account()).statusCode).toBe(200);
    await admin.getByRole('button', { name: 'Revoke credential' }).click();
    await expect.poll(() => admin.locator('main').textContent()).toContain('revoked');
    expect((await account()).statusCode).toBe(401);
    expect((await listedCredentials()).find((c) => c.clientId === clientId)?.status).toBe('revoked');
  });

  it('registers a webhook endpoint, sends a test event and sees the delivery succeed in the history', async () => {
    receiver.on('/dashboard-hook', () => ({ status: 202, body: 'accepted' }));
    await admin.goto(`${t.base}/dashboard/webhooks`);
    await admin.getByLabel('URL').fill(receiver.url('/dashboard-hook'));
    await admin.getByLabel('Description').fill('ledger sync');
    await admin.getByRole('button', { name: 'Add endpoint' }).click();
    const signingSecret = await shownSecret(admin);
    expect(signingSecret).toMatch(/^whsec_/);

    const endpoints = await workspace.request('GET', '/v1/webhooks');
    endpointId = endpoints.json<{ data: { id: string; description: string }[] }>().data.find((e) => e.description === 'ledger sync')!.id;
    await admin.getByRole('link', { name: 'This endpoint' }).click();
    expect(await admin.content()).not.toContain(signingSecret);
    await admin.getByRole('button', { name: 'Send a test event' }).click();

    const [received] = await receiver.waitFor('/dashboard-hook', 1);
    expect(JSON.parse(received!.body)).toMatchObject({ type: 'webhook.test', test: true });
    await expect
      .poll(
        async () => {
          await admin.reload();
          return admin.locator('main table').textContent();
        },
        { timeout: 10_000, interval: 300 },
      )
      .toMatch(/succeeded[\s\S]*HTTP 202/);
    const deliveries = await workspace.request('GET', `/v1/webhooks/${endpointId}/deliveries`);
    expect(deliveries.json<{ data: { status: string; attempts: { responseStatus: number }[] }[] }>().data[0]).toMatchObject({ status: 'succeeded', attempts: [{ responseStatus: 202 }] });
    // The delivery history pages as every list does: "1–1 of 1", Previous, Next, the page size.
    const listed = deliveries.json<{ data: unknown[] }>().data.length;
    expect(await admin.locator('.pager .range').innerText()).toBe(`1–${listed} of ${listed}`);
    expect(await admin.locator('.pager').innerText()).toMatch(/← Previous[\s\S]*Next →[\s\S]*Rows per page: 20 · 50 · 100/);
  });

  it('invites a viewer, who reads credentials, webhooks and users with no form, and whose POST is refused', async () => {
    const viewerEmail = `viewer-${Date.now()}@example.com`;
    await admin.goto(`${t.base}/dashboard/users`);
    await admin.getByLabel('Email').fill(viewerEmail);
    await admin.getByLabel('Role').selectOption('viewer');
    await admin.getByRole('button', { name: 'Invite' }).click();
    const link = await shownSecret(admin);
    expect(link).toContain('/dashboard/invitation?token=inv_');
    expect(new URL(admin.url()).search).toBe('');
    expect(await admin.getByLabel('Email').inputValue()).toBe('');

    const viewer = await newPage();
    const viewerCsp = watchCsp(viewer);
    await acceptInvitation(viewer, link);
    for (const path of ['/dashboard/credentials', `/dashboard/credentials/${clientId}`, '/dashboard/webhooks', `/dashboard/webhooks/${endpointId}`, '/dashboard/users']) {
      const res = await viewer.goto(`${t.base}${path}`);
      expect(res?.status(), path).toBe(200);
      expect(await viewer.locator('main form').count(), path).toBe(0);
    }
    expect(await viewer.locator('main').textContent()).toContain(viewerEmail);

    const before = await listedCredentials();
    const csrf = await viewer.locator('input[name="_csrf"]').first().inputValue();
    const status = await viewer.evaluate(async (token) => {
      const res = await fetch('/dashboard/credentials', {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ _csrf: token, label: 'from a viewer', scopes: 'read:accounts' }).toString(),
      });
      return res.status;
    }, csrf);
    expect(status).toBe(403);
    expect(await listedCredentials()).toEqual(before);
    expect(viewerCsp).toEqual([]);
    expect(csp).toEqual([]);
  });
});
