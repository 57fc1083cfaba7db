import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newWorkspace } from '../helpers/app.js';
import { acceptInvitation, haveChromium, invite, launchBrowser, PASSWORD, signIn, watchCsp, webTestApp, type WebTestApp } from '../helpers/browser.js';

/** A page on another site that posts a form to the dashboard as soon as it loads (a CSRF attempt). */
function attackerSite(target: string): Promise<Server> {
  const page = `<!doctype html><html><body>
<form id="f" method="post" action="${target}"><input type="hidden" name="_csrf" value="guessed"></form>
<script>document.getElementById('f').submit();</script></body></html>`;
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end(page);
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

describe.skipIf(!haveChromium)('dashboard sessions in Chromium', () => {
  let t: WebTestApp;
  let browser: Browser;
  let workspaceId: string;

  beforeAll(async () => {
    t = await webTestApp();
    browser = await launchBrowser();
    workspaceId = (await newWorkspace(t.app)).workspaceId;
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('accepts an invitation, signs out and in again, with no CSP violation', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    const problems = watchCsp(page);
    await acceptInvitation(page, await invite(t, workspaceId, 'grace@example.com', 'admin'));
    // The invitation token is not in the address bar or history once the page has opened.
    expect(page.url()).not.toContain('inv_');
    await expect(page.getByRole('heading', { name: 'Overview' })).toBeTruthy();
    expect(await page.locator('.who').innerText()).toContain('grace@example.com');
    const cookies = await context.cookies();
    expect(cookies.find((c) => c.name === 'corridor_dashboard')).toMatchObject({ httpOnly: true, sameSite: 'Strict' });
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL((u) => u.pathname === '/dashboard/sign-in');
    await signIn(page, t.base, 'grace@example.com', 'not the password');
    expect(await page.locator('[role=alert]').innerText()).toContain('Email or password is incorrect');
    await signIn(page, t.base, 'grace@example.com', PASSWORD);
    await page.waitForURL((u) => u.pathname === '/dashboard');
    expect(problems).toEqual([]);
    await context.close();
  }, 60_000);

  it('refuses a form posted from another site, and the session goes on', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await acceptInvitation(page, await invite(t, workspaceId, 'csrf-browser@example.com', 'admin'));
    const attacker = await attackerSite(`${t.base}/dashboard/sign-out`);
    try {
      // 127.0.0.1 and localhost are different sites: the Strict cookie is not sent, and the token is wrong anyway.
      const response = page.waitForResponse((r) => r.url() === `${t.base}/dashboard/sign-out`);
      await page.goto(`http://localhost:${(attacker.address() as AddressInfo).port}/`);
      expect((await response).status()).toBe(403);
    } finally {
      attacker.close();
    }
    await page.goto(`${t.base}/dashboard`);
    expect(new URL(page.url()).pathname).toBe('/dashboard');
    expect(await page.locator('.who').innerText()).toContain('csrf-browser@example.com');
    await context.close();
  }, 60_000);

  it('replaces a session cookie planted before sign-in', async () => {
    const attackerContext = await browser.newContext();
    const attackerPage = await attackerContext.newPage();
    await acceptInvitation(attackerPage, await invite(t, workspaceId, 'mallory@example.com', 'admin'));
    const planted = (await attackerContext.cookies()).find((c) => c.name === 'corridor_dashboard')?.value as string;

    const { origin } = new URL(t.base);
    const victim = await browser.newContext();
    const page = await victim.newPage();
    const invitation = await invite(t, workspaceId, 'alice@example.com', 'admin');
    await acceptInvitation(page, invitation);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.goto(`${t.base}/dashboard/sign-in`);
    await victim.addCookies([{ name: 'corridor_dashboard', value: planted, url: origin }]);
    await page.getByLabel('Email').fill('alice@example.com');
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL((u) => u.pathname === '/dashboard');
    expect(await page.locator('.who').innerText()).toContain('alice@example.com');
    const issued = (await victim.cookies()).find((c) => c.name === 'corridor_dashboard')?.value;
    expect(issued).not.toBe(planted);
    // The planted session was ended, so the attacker learns nothing from it either.
    await attackerPage.goto(`${t.base}/dashboard`);
    expect(new URL(attackerPage.url()).pathname).toBe('/dashboard/sign-in');
    await attackerContext.close();
    await victim.close();
  }, 60_000);
});
