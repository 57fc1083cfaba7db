import type { WorkspaceRole } from '../../src/domains/users/rights.js';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { chromium, type Browser, type Page } from 'playwright-core';
import { listeningTestApp, operator, OPERATOR_KEY, type TestApp } from './app.js';

/** Debian's Chromium (.ci/run installs it when missing); without it the browser tests are skipped, not failed. */
export const CHROMIUM = '/usr/bin/chromium';
export const haveChromium = existsSync(CHROMIUM);
export const PASSWORD = 'correct horse battery staple';

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'],
  });
}

export interface WebTestApp extends TestApp {
  base: string;
}

/** A test app listening on its PUBLIC_BASE_URL, for a real browser. */
export async function webTestApp(env: Record<string, string> = {}): Promise<WebTestApp> {
  const t = await listeningTestApp(env);
  return Object.assign(t, { base: t.config.publicBaseUrl });
}

/** An invitation made through the operator API; returns its link. */
export async function invite(t: TestApp, workspaceId: string, email: string, role: WorkspaceRole): Promise<string> {
  const res = await operator(t.app, 'POST', `/operator/v1/workspaces/${workspaceId}/users`, { email, role });
  if (res.statusCode !== 201) throw new Error(`invitation failed: ${res.statusCode} ${res.body}`);
  return res.json<{ invitationUrl: string }>().invitationUrl;
}

/** Opens an invitation link, sets the password, and lands signed in on the link's face (the dashboard, or the console for an operator user). */
export async function acceptInvitation(page: Page, invitationUrl: string, password = PASSWORD): Promise<void> {
  await page.goto(invitationUrl);
  await page.getByLabel('Password', { exact: true }).fill(password);
  await page.getByLabel('Password again').fill(password);
  await page.getByRole('button', { name: 'Set password and sign in' }).click();
  const area = new URL(invitationUrl).pathname.split('/')[1];
  await page.waitForURL((u) => u.pathname === `/${area}`);
}

export async function signIn(page: Page, base: string, email: string, password = PASSWORD): Promise<void> {
  await page.goto(`${base}/dashboard/sign-in`);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

/** A new workspace's admin, signed in: invited through the operator API, password set in the page. */
export async function signedInAdmin(t: WebTestApp, page: Page, workspaceId: string, email = `admin-${Date.now()}-${Math.random().toString(36).slice(2, 8)}@example.com`): Promise<string> {
  await acceptInvitation(page, await invite(t, workspaceId, email, 'admin'));
  return email;
}

export async function consoleSignIn(page: Page, base: string, key = OPERATOR_KEY): Promise<void> {
  await page.goto(`${base}/console/sign-in`);
  await page.getByLabel('Operator key').fill(key);
  await page.getByRole('button', { name: 'Sign in with the key' }).click();
  await page.waitForURL((u) => u.pathname === '/console');
}

/** Collects what the page's console says about refused scripts or styles (a CSP violation is a bug). */
export function watchCsp(page: Page): string[] {
  const problems: string[] = [];
  page.on('console', (msg) => {
    if (msg.type() === 'error' && /Content Security Policy|Refused to/i.test(msg.text())) problems.push(msg.text());
  });
  page.on('pageerror', (err) => problems.push(err.message));
  return problems;
}

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** The serious and critical axe-core violations of the page (axe injected by the test, as the CSP allows no other script). */
export async function axeViolations(p: Page): Promise<string[]> {
  await p.evaluate(AXE_SOURCE);
  const result = (await p.evaluate('axe.run(document, { resultTypes: ["violations"] })')) as { violations: { id: string; impact: string; nodes: { target: string[] }[] }[] };
  return result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).slice(0, 3).join(', ')}`);
}

/** What is wrong with the page at this width: wider than the screen (at a phone's width), and its serious axe violations. */
export async function pageProblems(p: Page, label: string): Promise<string[]> {
  const found: string[] = [];
  const [scrollWidth, innerWidth] = (await p.evaluate('[document.documentElement.scrollWidth, window.innerWidth]')) as [number, number];
  if (scrollWidth > innerWidth) found.push(`${label}: ${scrollWidth} px wide in ${innerWidth}`);
  for (const v of await axeViolations(p)) found.push(`${label}: ${v}`);
  return found;
}
