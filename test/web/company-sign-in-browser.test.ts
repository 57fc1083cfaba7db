import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newWorkspace } from '../helpers/app.js';
import { haveChromium, launchBrowser, pageProblems, watchCsp, webTestApp, type WebTestApp } from '../helpers/browser.js';
import { startOidcProvider, type TestProvider } from '../helpers/oidc-provider.js';
import { setWorkspaceProvider } from '../../src/domains/users/company-sign-in.service.js';

describe.skipIf(!haveChromium)('"Sign in with your company" in Chromium', () => {
  let t: WebTestApp;
  let idp: TestProvider;
  let browser: Browser;

  beforeAll(async () => {
    t = await webTestApp();
    idp = await startOidcProvider({
      clientId: 'corridor-initech',
      clientSecret: 'initech-client-secret',
      redirectUris: [`${t.base}/dashboard/sign-in/company/callback`],
      people: { phone: { email: 'phone@initech.example', groups: ['corridor-admins'] }, desk: { email: 'desk@initech.example', groups: ['corridor-viewers'] } },
    });
    const { workspaceId } = await newWorkspace(t.app, { name: 'Initech' });
    await setWorkspaceProvider(t.ctx.db, t.ctx.box, workspaceId, { issuer: idp.issuer, clientId: 'corridor-initech', clientSecret: 'initech-client-secret', emailDomain: 'initech.example', roleClaim: 'groups', roleMap: 'corridor-admins=admin\ncorridor-viewers=viewer' }, true);
    browser = await launchBrowser();
  }, 240_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await idp?.close();
  });

  for (const [width, login, role] of [[390, 'phone', 'admin'], [1440, 'desk', 'viewer']] as const) {
    it(`at ${width} px: from the sign-in page through the provider to the dashboard with the mapped role (${role}), no CSP violation`, async () => {
      const context = await browser.newContext({ viewport: { width, height: 900 } });
      const page = await context.newPage();
      const csp = watchCsp(page);
      await page.goto(`${t.base}/dashboard/sign-in`);
      const problems = await pageProblems(page, 'sign-in');
      await page.getByRole('link', { name: 'Sign in with your company' }).click();
      await page.getByLabel('Work email').fill(`${login}@initech.example`);
      await page.getByRole('button', { name: 'Continue' }).click();
      problems.push(...(await pageProblems(page, 'continue')));
      await page.getByRole('link', { name: "Continue to your company's sign-in" }).click();
      // The provider's own pages (oidc-provider's development login and consent).
      await page.waitForURL((u) => u.origin === idp.issuer);
      const cspAtCorridor = [...csp];
      await page.locator('input[name=login]').fill(login);
      await page.locator('input[name=password]').fill('any');
      await page.locator('button[type=submit]').click();
      await page.locator('button[type=submit]').click();
      // Back at Corridor: the callback's page moves on to the dashboard, where the strict session cookie is sent.
      await page.waitForURL((u) => u.origin === t.base && u.pathname === '/dashboard');
      expect(await page.locator('.who').innerText()).toContain(`${login}@initech.example`);
      expect(await page.locator('.who .role').innerText()).toBe(role);
      problems.push(...(await pageProblems(page, 'dashboard')));
      expect(problems).toEqual([]);
      expect(cspAtCorridor).toEqual([]);
      expect(csp.filter((m) => !cspAtCorridor.includes(m))).toEqual([]);
      await context.close();
    }, 120_000);
  }
});
