import type { AddressInfo } from 'node:net';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { haveChromium, launchBrowser } from '../helpers/browser.js';

describe.skipIf(!haveChromium)('/docs in Chromium', () => {
  let t: TestApp;
  let browser: Browser;
  let base: string;

  beforeAll(async () => {
    t = await createTestApp();
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    browser = await launchBrowser();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('renders the getting-started section, Corridor branding and the samples, with no script refused by the CSP', async () => {
    const page = await browser.newPage();
    const problems: string[] = [];
    page.on('console', (msg) => {
      if (msg.type() === 'error') problems.push(msg.text());
    });
    page.on('pageerror', (err) => problems.push(err.message));
    await page.goto(`${base}/docs`);
    expect(await page.title()).toBe('Corridor API reference');
    const heading = page.locator('.info .description h2', { hasText: 'Getting started' });
    await heading.waitFor({ timeout: 30_000 });
    const description = await page.locator('.info .description').innerText();
    expect(description).toContain('POST /oauth/token');
    expect(description).toContain('Authorize');
    expect(description).toMatch(/\.13.*fails at the provider/);
    expect(await page.locator('.info .description a[href="/docs/corridors"]').count()).toBe(1);
    // Corridor's logo in the top bar, not the framework's.
    const logo = await page.locator('.topbar img').first().getAttribute('src');
    expect(logo).toMatch(/^data:image\/svg\+xml;base64,/);
    // Tags start collapsed; every one is listed. An operation opened shows its curl and SDK samples.
    expect(await page.locator('.opblock-tag').count()).toBeGreaterThan(15);
    await page.locator('.opblock-tag[data-tag="Payouts"]').click();
    const opened = page.locator('.opblock-post', { has: page.locator('.opblock-summary-path[data-path="/v1/payouts"]') }).first();
    await opened.locator('.opblock-summary').first().click();
    await opened.locator('text=corridor.payouts.create(').first().waitFor({ timeout: 15_000 });
    expect(await opened.innerText()).toContain('curl -X POST');
    // No script is refused by the CSP (Swagger UI's bundle also sets one inline style, which the CSP blocks harmlessly).
    expect(problems.filter((p) => /script-src|Refused to load|Refused to execute/i.test(p))).toEqual([]);
    await page.close();
  }, 90_000);
});
