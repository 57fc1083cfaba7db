import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, newWorkspace, operator, type TestApp } from '../helpers/app.js';
import { startOidcProvider, type TestProvider } from '../helpers/oidc-provider.js';
import { WebClient } from '../helpers/web-client.js';
import { setWorkspaceProvider } from '../../src/domains/users/company-sign-in.service.js';

const BASE = 'http://127.0.0.1:8080';
const PASSWORD = 'a long enough passphrase';
const CALLBACKS = [`${BASE}/dashboard/sign-in/company/callback`, `${BASE}/console/sign-in/company/callback`];

/** Follows the dashboard's way to the provider: email, the link on, the start (302 to the provider). */
async function startDashboard(client: WebClient, email: string): Promise<string> {
  await client.get('/dashboard/sign-in/company');
  const found = await client.post('/dashboard/sign-in/company', { email, next: '/dashboard' });
  expect(found.statusCode, found.body).toBe(200);
  const href = /<a class="button" href="([^"]+)"/.exec(found.body)?.[1]?.replace(/&amp;/g, '&');
  expect(href).toMatch(/^\/dashboard\/sign-in\/company\/start\?domain=/);
  const start = await client.get(href as string);
  expect(start.statusCode, start.body).toBe(302);
  return start.headers.location as string;
}

/** The provider's answer brought back to Corridor (a top-level GET from the provider's site). */
async function back(client: WebClient, callbackUrl: string) {
  const url = new URL(callbackUrl);
  expect(`${url.origin}${url.pathname}`).toMatch(/\/(dashboard|console)\/sign-in\/company\/callback$/);
  return client.get(url.pathname + url.search);
}

describe('sign-in for companies (OpenID Connect against a real provider)', () => {
  let t: TestApp;
  let acme: TestProvider;
  let globex: TestProvider;
  let operatorIdp: TestProvider;
  let acmeId: string;
  let globexId: string;

  beforeAll(async () => {
    acme = await startOidcProvider({
      clientId: 'corridor-acme',
      clientSecret: 'acme-client-secret',
      redirectUris: CALLBACKS,
      people: {
        ada: { email: 'ada@acme.example', groups: ['staff', 'corridor-viewers', 'corridor-admins'] },
        vic: { email: 'Vic@acme.example', groups: ['corridor-viewers'] },
        nobody: { email: 'nobody@acme.example', groups: ['staff'] },
        unverified: { email: 'unverified@acme.example', emailVerified: false, groups: ['corridor-admins'] },
      },
    });
    globex = await startOidcProvider({
      clientId: 'corridor-globex',
      clientSecret: 'globex-client-secret',
      redirectUris: CALLBACKS,
      people: {
        // Globex's provider vouching for someone of Acme's domain, and for a Globex email that is Acme's user.
        intruder: { email: 'ada@acme.example', groups: ['corridor-admins'] },
        moonlighter: { email: 'moon@globex.example', groups: ['corridor-admins'] },
        gina: { email: 'gina@globex.example', groups: ['corridor-admins'] },
      },
    });
    operatorIdp = await startOidcProvider({
      clientId: 'corridor-console',
      clientSecret: 'console-client-secret',
      redirectUris: CALLBACKS,
      people: { olga: { email: 'olga@operator.example', groups: ['ops', 'payments-operators'] }, sam: { email: 'sam@operator.example', groups: ['ops'] } },
    });
    t = await createTestApp({
      env: {
        CONSOLE_OIDC_ISSUER: operatorIdp.issuer,
        CONSOLE_OIDC_CLIENT_ID: 'corridor-console',
        CONSOLE_OIDC_CLIENT_SECRET: 'console-client-secret',
        CONSOLE_OIDC_ROLE_MAP: 'payments-operators=administrator',
      },
    });
    acmeId = (await newWorkspace(t.app, { name: 'Acme' })).workspaceId;
    globexId = (await newWorkspace(t.app, { name: 'Globex' })).workspaceId;

    // Acme's admin sets the provider up on the dashboard; Globex's is set through the service.
    const invited = await operator(t.app, 'POST', `/operator/v1/workspaces/${acmeId}/users`, { email: 'owner@acme.example', role: 'admin' });
    const admin = new WebClient(t.app);
    await admin.acceptInvitation(invited.json<{ invitationUrl: string }>().invitationUrl, PASSWORD);
    await admin.get('/dashboard/users/company-sign-in');
    const saved = await admin.post('/dashboard/users/company-sign-in', {
      issuer: acme.issuer,
      clientId: 'corridor-acme',
      clientSecret: 'acme-client-secret',
      emailDomain: 'acme.example',
      roleClaim: 'groups',
      roleMap: 'corridor-admins=admin\ncorridor-viewers=viewer',
    });
    expect(saved.statusCode, saved.body).toBe(303);
    await setWorkspaceProvider(t.ctx.db, t.ctx.box, globexId, { issuer: globex.issuer, clientId: 'corridor-globex', clientSecret: 'globex-client-secret', emailDomain: 'globex.example', roleClaim: 'groups', roleMap: 'corridor-admins=admin' }, true);
    // moon@globex.example is a user of Acme (invited there with a password).
    const moon = await operator(t.app, 'POST', `/operator/v1/workspaces/${acmeId}/users`, { email: 'moon@globex.example', role: 'viewer' });
    await new WebClient(t.app).acceptInvitation(moon.json<{ invitationUrl: string }>().invitationUrl, PASSWORD);
  }, 240_000);

  afterAll(async () => {
    await t?.close();
    await Promise.all([acme?.close(), globex?.close(), operatorIdp?.close()]);
  });

  it('keeps the client secret encrypted at rest and never shows it on the settings page', async () => {
    const rows = await t.ctx.db.query<{ client_secret_encrypted: string }>('SELECT client_secret_encrypted FROM workspace_identity_providers WHERE workspace_id = $1', [acmeId]);
    expect(rows[0]?.client_secret_encrypted).toMatch(/^v1\./);
    expect(rows[0]?.client_secret_encrypted).not.toContain('acme-client-secret');
    expect(t.ctx.box.decrypt(rows[0]!.client_secret_encrypted)).toBe('acme-client-secret');
  });

  it("the settings page refuses another workspace's email domain and a role that is not one, and keeps the secret when left empty", async () => {
    const invited = await operator(t.app, 'POST', `/operator/v1/workspaces/${globexId}/users`, { email: 'owner@globex.example', role: 'admin' });
    const admin = new WebClient(t.app);
    await admin.acceptInvitation(invited.json<{ invitationUrl: string }>().invitationUrl, PASSWORD);
    await admin.get('/dashboard/users/company-sign-in');
    const form = { issuer: globex.issuer, clientId: 'corridor-globex', clientSecret: '', emailDomain: 'acme.example', roleClaim: 'groups', roleMap: 'corridor-admins=admin' };
    const taken = await admin.post('/dashboard/users/company-sign-in', form);
    expect(taken.statusCode).toBe(400);
    expect(taken.body).toContain('another workspace signs in with this email domain');
    const badRole = await admin.post('/dashboard/users/company-sign-in', { ...form, emailDomain: 'globex.example', roleMap: 'corridor-admins=superuser' });
    expect(badRole.statusCode).toBe(400);
    expect(badRole.body).toContain('is not a role');
    expect((await admin.post('/dashboard/users/company-sign-in', { ...form, emailDomain: 'globex.example' })).statusCode).toBe(303);
    const rows = await t.ctx.db.query<{ client_secret_encrypted: string }>('SELECT client_secret_encrypted FROM workspace_identity_providers WHERE workspace_id = $1', [globexId]);
    expect(t.ctx.box.decrypt(rows[0]!.client_secret_encrypted)).toBe('globex-client-secret');
  });

  it('signs a new person in through the company provider (PKCE, state, nonce) and lands in the dashboard with the role the claim maps to', async () => {
    const client = new WebClient(t.app);
    const authorization = new URL(await startDashboard(client, 'vic@acme.example'));
    expect(authorization.origin).toBe(acme.issuer);
    expect(authorization.searchParams.get('code_challenge_method')).toBe('S256');
    expect(authorization.searchParams.get('state')).toBeTruthy();
    expect(authorization.searchParams.get('nonce')).toBeTruthy();
    const landed = await back(client, await acme.signIn(authorization.href, 'vic'));
    expect(landed.statusCode, landed.body).toBe(200);
    expect(landed.body).toContain('<meta http-equiv="refresh" content="0;url=/dashboard">');
    const home = await client.get('/dashboard');
    expect(home.statusCode).toBe(200);
    expect(home.body).toContain('vic@acme.example <span class="role">viewer</span>');
    const users = await operator(t.app, 'GET', `/operator/v1/workspaces/${acmeId}/users`);
    expect(users.json<{ data: { email: string; role: string; status: string }[] }>().data).toContainEqual(expect.objectContaining({ email: 'vic@acme.example', role: 'viewer', status: 'active' }));
  });

  it('the first value of the map the person has wins, and an existing user gets the role their claim maps to', async () => {
    const client = new WebClient(t.app);
    const landed = await back(client, await acme.signIn(await startDashboard(client, 'ada@acme.example'), 'ada'));
    expect(landed.statusCode, landed.body).toBe(200);
    expect((await client.get('/dashboard')).body).toContain('ada@acme.example <span class="role">admin</span>');
  });

  it('refuses an answer whose state is not the one this browser sent (no session)', async () => {
    const client = new WebClient(t.app);
    const authorization = new URL(await startDashboard(client, 'ada@acme.example'));
    authorization.searchParams.set('state', 'forged-state-value-of-another-request');
    const refused = await back(client, await acme.signIn(authorization.href, 'ada'));
    expect(refused.statusCode).toBe(401);
    expect(refused.body).toContain('did not complete');
    expect((await client.get('/dashboard')).headers.location).toMatch(/^\/dashboard\/sign-in/);
  });

  it('refuses an ID token whose nonce is not the one this browser sent', async () => {
    const client = new WebClient(t.app);
    const authorization = new URL(await startDashboard(client, 'ada@acme.example'));
    authorization.searchParams.set('nonce', 'nonce-of-another-request');
    const refused = await back(client, await acme.signIn(authorization.href, 'ada'));
    expect(refused.statusCode).toBe(401);
    expect((await client.get('/dashboard')).headers.location).toMatch(/^\/dashboard\/sign-in/);
  });

  it('refuses an answer brought to another browser (no flow cookie) and a code whose PKCE challenge is not ours', async () => {
    const client = new WebClient(t.app);
    const answer = await acme.signIn(await startDashboard(client, 'ada@acme.example'), 'ada');
    const other = new WebClient(t.app);
    expect((await back(other, answer)).statusCode).toBe(401);

    const authorization = new URL(await startDashboard(client, 'ada@acme.example'));
    authorization.searchParams.set('code_challenge', 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM');
    expect((await back(client, await acme.signIn(authorization.href, 'ada'))).statusCode).toBe(401);
  });

  it('refuses a person without a mapped role, and one whose email the provider did not verify', async () => {
    for (const login of ['nobody', 'unverified']) {
      const client = new WebClient(t.app);
      const refused = await back(client, await acme.signIn(await startDashboard(client, `${login}@acme.example`), login));
      expect(refused.statusCode).toBe(401);
      expect((await client.get('/dashboard')).headers.location).toMatch(/^\/dashboard\/sign-in/);
    }
  });

  it("a user of another workspace's provider cannot enter this workspace", async () => {
    // Globex's provider vouches for an Acme email: refused (not Globex's domain), and Acme's user stays Acme's.
    const client = new WebClient(t.app);
    const foreign = await back(client, await globex.signIn(await startDashboard(client, 'someone@globex.example'), 'intruder'));
    expect(foreign.statusCode).toBe(401);
    // A Globex email that is a user of Acme: Globex's provider does not open Acme, nor move the user to Globex.
    const moon = new WebClient(t.app);
    const refused = await back(moon, await globex.signIn(await startDashboard(moon, 'moon@globex.example'), 'moonlighter'));
    expect(refused.statusCode).toBe(401);
    expect(refused.body).toContain('cannot sign in here');
    const acmeUsers = (await operator(t.app, 'GET', `/operator/v1/workspaces/${acmeId}/users`)).json<{ data: { email: string; role: string }[] }>().data;
    expect(acmeUsers).toContainEqual(expect.objectContaining({ email: 'moon@globex.example', role: 'viewer' }));
    // Globex's own person enters Globex only.
    const gina = new WebClient(t.app);
    expect((await back(gina, await globex.signIn(await startDashboard(gina, 'gina@globex.example'), 'gina'))).statusCode).toBe(200);
    const globexUsers = (await operator(t.app, 'GET', `/operator/v1/workspaces/${globexId}/users`)).json<{ data: { email: string }[] }>().data;
    const globexEmails = globexUsers.map((u) => u.email);
    expect(globexEmails).toContain('gina@globex.example');
    expect(globexEmails).not.toContain('moon@globex.example');
    expect(globexEmails).not.toContain('ada@acme.example');
  });

  it('an email of a domain no workspace signs in with is told so', async () => {
    const client = new WebClient(t.app);
    await client.get('/dashboard/sign-in/company');
    const res = await client.post('/dashboard/sign-in/company', { email: 'x@unknown.example' });
    expect(res.statusCode).toBe(404);
    expect(res.body).toContain('No company signs in');
  });

  it('the console signs an operator in through the operator provider, and refuses one without the mapped value', async () => {
    const page = await new WebClient(t.app).get('/console/sign-in');
    expect(page.body).toContain('href="/console/sign-in/company/start"');
    const client = new WebClient(t.app);
    const start = await client.get('/console/sign-in/company/start');
    expect(start.statusCode).toBe(302);
    const landed = await back(client, await operatorIdp.signIn(start.headers.location as string, 'olga'));
    expect(landed.statusCode, landed.body).toBe(200);
    const console = await client.get('/console');
    expect(console.statusCode).toBe(200);
    expect(console.body).toContain('olga@operator.example <span class="role">administrator</span>');

    const sam = new WebClient(t.app);
    const samStart = await sam.get('/console/sign-in/company/start');
    expect((await back(sam, await operatorIdp.signIn(samStart.headers.location as string, 'sam'))).statusCode).toBe(401);
    expect((await sam.get('/console')).headers.location).toMatch(/^\/console\/sign-in/);
  });

  it('a console session signed in through the operator provider does not open the dashboard', async () => {
    const client = new WebClient(t.app);
    const start = await client.get('/console/sign-in/company/start');
    const answer = await operatorIdp.signIn(start.headers.location as string, 'olga');
    expect((await back(client, answer)).statusCode).toBe(200);
    expect((await client.get('/dashboard')).headers.location).toMatch(/^\/dashboard\/sign-in/);
  });
});
