import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, newWorkspace, operator, OPERATOR_KEY, type TestApp } from '../helpers/app.js';
import { WebClient } from '../helpers/web-client.js';
import { totpCode, totpStep } from '../../src/platform/lib/totp.js';
import { checkNewPassword } from '../../src/domains/users/users.service.js';

const PASSWORD = 'a long enough passphrase';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function invite(t: TestApp, workspaceId: string, email: string, role: 'admin' | 'viewer' = 'admin'): Promise<{ url: string; userId: string }> {
  const res = await operator(t.app, 'POST', `/operator/v1/workspaces/${workspaceId}/users`, { email, role });
  expect(res.statusCode).toBe(201);
  const body = res.json<{ invitationUrl: string; user: { id: string } }>();
  return { url: body.invitationUrl, userId: body.user.id };
}

/** Opens the link, sets the password: a signed-in client. */
async function accepted(t: TestApp, link: string): Promise<WebClient> {
  const client = new WebClient(t.app);
  const { opened, done } = await client.acceptInvitation(link, PASSWORD);
  expect(opened.statusCode).toBe(303);
  expect(opened.headers.location).toBe('/dashboard/invitation');
  expect(done?.statusCode, done?.body).toBe(303);
  return client;
}

async function signIn(t: TestApp, email: string, password: string, remoteAddress = '127.0.0.1'): Promise<{ client: WebClient; status: number; location: string | undefined; body: string; retryAfter: string | undefined }> {
  const client = new WebClient(t.app);
  await client.get('/dashboard/sign-in');
  const body = new URLSearchParams({ _csrf: client.csrf, email, password });
  const res = await t.app.inject({
    method: 'POST',
    url: '/dashboard/sign-in',
    remoteAddress,
    headers: { cookie: [...client.cookies].map(([k, v]) => `${k}=${v}`).join('; '), 'content-type': 'application/x-www-form-urlencoded', origin: client.origin },
    payload: body.toString(),
  });
  for (const c of res.cookies as { name: string; value: string }[]) if (c.value) client.cookies.set(c.name, c.value);
  return { client, status: res.statusCode, location: res.headers.location as string | undefined, body: res.body, retryAfter: res.headers['retry-after'] as string | undefined };
}

describe('dashboard users and sessions', () => {
  let t: TestApp;
  let workspaceId: string;

  beforeAll(async () => {
    t = await createTestApp({ env: { SIGN_IN_FAILURES_PER_15_MIN: '3', DASHBOARD_SESSION_IDLE_MS: '60000', DASHBOARD_SESSION_ABSOLUTE_MS: '60000' } });
    workspaceId = (await newWorkspace(t.app)).workspaceId;
  });
  afterAll(async () => t?.close());

  it('an invitation link sets a password once and signs the person in with a strict, HttpOnly session cookie', async () => {
    const { url } = await invite(t, workspaceId, 'Ada@Example.com');
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:8080\/dashboard\/invitation\?token=inv_/);
    const client = new WebClient(t.app);
    const opened = await client.get(new URL(url).pathname + new URL(url).search);
    // The token leaves the address bar at once: it moves to a cookie of the invitation page only.
    expect(opened.statusCode).toBe(303);
    expect(opened.headers.location).toBe('/dashboard/invitation');
    const cookie = (opened.cookies as { name: string; httpOnly?: boolean; path?: string }[]).find((c) => c.name === 'corridor_invitation');
    expect(cookie).toMatchObject({ httpOnly: true, path: '/dashboard/invitation' });
    const form = await client.get('/dashboard/invitation');
    expect(form.body).toContain('ada@example.com');

    const mismatch = await client.post('/dashboard/invitation', { password: PASSWORD, confirmation: `${PASSWORD}!` });
    expect(mismatch.statusCode).toBe(400);
    expect(mismatch.body).toContain('The two passwords differ');
    const short = await client.post('/dashboard/invitation', { password: 'short', confirmation: 'short' });
    expect(short.statusCode).toBe(400);
    const users = await operator(t.app, 'GET', `/operator/v1/workspaces/${workspaceId}/users`);
    expect(users.json<{ data: { email: string; status: string }[] }>().data.find((u) => u.email === 'ada@example.com')?.status).toBe('invited');

    const done = await t.app.inject({
      method: 'POST',
      url: '/dashboard/invitation',
      headers: { cookie: [...client.cookies].map(([k, v]) => `${k}=${v}`).join('; '), 'content-type': 'application/x-www-form-urlencoded', origin: client.origin },
      payload: new URLSearchParams({ _csrf: client.csrf, password: PASSWORD, confirmation: PASSWORD }).toString(),
    });
    expect(done.statusCode).toBe(303);
    expect(done.headers.location).toBe('/dashboard');
    const session = (done.cookies as { name: string; httpOnly?: boolean; sameSite?: string; secure?: boolean }[]).find((c) => c.name === 'corridor_dashboard');
    expect(session).toMatchObject({ httpOnly: true, sameSite: 'Strict' });
    expect(session?.secure).toBeFalsy(); // plain-HTTP sandbox

    // The link works once.
    const again = new WebClient(t.app);
    await again.get(new URL(url).pathname + new URL(url).search);
    expect((await again.get('/dashboard/invitation')).statusCode).toBe(404);
    expect((await signIn(t, 'ada@example.com', PASSWORD)).location).toBe('/dashboard');
  });

  it('refuses a trivial password when accepting an invitation, naming the field, with a clear message and code', async () => {
    const { url } = await invite(t, workspaceId, 'weak@example.com');
    const client = new WebClient(t.app);
    await client.get(new URL(url).pathname + new URL(url).search);
    await client.get('/dashboard/invitation');
    for (const password of ['aaaaaaaaaaaa', 'password1234', ' '.repeat(12), 'qwertyuiop12']) {
      const res = await client.post('/dashboard/invitation', { password, confirmation: password });
      expect(res.statusCode, password).toBe(400);
      expect(res.body, password).toMatch(/too easy to guess/);
    }
    // The service's refusal: field, message and code (as the form shows it under the field).
    expect(() => checkNewPassword('password1234', 'password1234', 'weak@example.com')).toThrow(
      expect.objectContaining({ category: 'invalid_request', details: [expect.objectContaining({ field: 'password', code: 'PASSWORD_TOO_WEAK', message: expect.stringMatching(/^The password is too easy to guess/) })] }),
    );
    const users = await operator(t.app, 'GET', `/operator/v1/workspaces/${workspaceId}/users`);
    expect(users.json<{ data: { email: string; status: string }[] }>().data.find((u) => u.email === 'weak@example.com')?.status).toBe('invited');
    expect((await client.post('/dashboard/invitation', { password: PASSWORD, confirmation: PASSWORD })).statusCode).toBe(303);
  });

  it('answers one generic refusal for an unknown email and a wrong password, and limits attempts per account and per address', async () => {
    const { url } = await invite(t, workspaceId, 'limits@example.com');
    await accepted(t, url);
    const unknown = await signIn(t, 'nobody@example.com', PASSWORD, '10.0.0.1');
    const wrong = await signIn(t, 'limits@example.com', 'wrong password here', '10.0.0.2');
    expect(unknown.status).toBe(401);
    expect(wrong.status).toBe(401);
    const message = (body: string) => /<div class="notice notice-error" role="alert">([^<]+)<\/div>/.exec(body)?.[1];
    expect(message(unknown.body)).toBe(message(wrong.body));

    // Per account: three failures from three addresses, then even the right password from a fourth is refused.
    await signIn(t, 'limits@example.com', 'wrong password here', '10.0.0.3');
    await signIn(t, 'limits@example.com', 'wrong password here', '10.0.0.4');
    const locked = await signIn(t, 'limits@example.com', PASSWORD, '10.0.0.5');
    expect(locked.status).toBe(429);
    expect(Number(locked.retryAfter)).toBeGreaterThan(0);
    expect(locked.client.cookies.has('corridor_dashboard')).toBe(false);

    // Per address: three failures on three accounts from one address lock that address only.
    const { url: other } = await invite(t, workspaceId, 'address@example.com');
    await accepted(t, other);
    for (const email of ['x1@example.com', 'x2@example.com', 'x3@example.com']) await signIn(t, email, 'wrong password here', '10.0.1.1');
    expect((await signIn(t, 'address@example.com', PASSWORD, '10.0.1.1')).status).toBe(429);
    expect((await signIn(t, 'address@example.com', PASSWORD, '10.0.1.2')).location).toBe('/dashboard');
  });

  it('refuses a state-changing request without the page token, from another origin, or with another session token', async () => {
    const { url } = await invite(t, workspaceId, 'csrf@example.com');
    const client = await accepted(t, url);
    expect((await client.get('/dashboard')).statusCode).toBe(200);
    const token = client.csrf;

    const missing = await client.post('/dashboard/sign-out', {}, { csrf: null });
    expect(missing.statusCode).toBe(403);
    const foreign = await client.post('/dashboard/sign-out', {}, { origin: 'https://evil.example' });
    expect(foreign.statusCode).toBe(403);
    const other = await signIn(t, 'ada@example.com', PASSWORD, '10.0.2.1');
    await other.client.get('/dashboard');
    const swapped = await client.post('/dashboard/sign-out', {}, { csrf: other.client.csrf });
    expect(swapped.statusCode).toBe(403);
    // Still signed in after all three.
    expect((await client.get('/dashboard')).statusCode).toBe(200);
    const out = await client.post('/dashboard/sign-out', {}, { csrf: token });
    expect(out.statusCode).toBe(303);
    expect((await client.get('/dashboard')).headers.location).toMatch(/^\/dashboard\/sign-in/);
  });

  it('never keeps a session token planted before sign-in (session fixation)', async () => {
    // The attacker's own valid session, planted in the victim's browser.
    const attacker = await signIn(t, 'ada@example.com', PASSWORD, '10.0.3.1');
    const planted = attacker.client.cookies.get('corridor_dashboard') as string;
    const { url } = await invite(t, workspaceId, 'victim@example.com');
    await accepted(t, url);
    const victim = new WebClient(t.app);
    await victim.get('/dashboard/sign-in');
    // Planted while the sign-in form is open (a cookie set from a sibling subdomain, say).
    victim.cookies.set('corridor_dashboard', planted);
    const res = await t.app.inject({
      method: 'POST',
      url: '/dashboard/sign-in',
      remoteAddress: '10.0.3.2',
      headers: { cookie: [...victim.cookies].map(([k, v]) => `${k}=${v}`).join('; '), 'content-type': 'application/x-www-form-urlencoded', origin: victim.origin },
      payload: new URLSearchParams({ _csrf: victim.csrf, email: 'victim@example.com', password: PASSWORD }).toString(),
    });
    expect(res.statusCode).toBe(303);
    const issued = (res.cookies as { name: string; value: string }[]).find((c) => c.name === 'corridor_dashboard')?.value;
    expect(issued).toBeDefined();
    expect(issued).not.toBe(planted);
    // The planted token no longer opens anything, and a made-up one never did.
    expect((await attacker.client.get('/dashboard')).statusCode).toBe(303);
    const madeUp = new WebClient(t.app);
    madeUp.cookies.set('corridor_dashboard', 'A'.repeat(43));
    expect((await madeUp.get('/dashboard')).statusCode).toBe(303);
  });

  it('asks for a TOTP code after the password once the second factor is on; a code is good once', async () => {
    const { url } = await invite(t, workspaceId, 'totp@example.com');
    const client = await accepted(t, url);
    await client.get('/dashboard/account');
    const begun = await client.post('/dashboard/account/second-factor/begin', {});
    expect(begun.statusCode).toBe(200);
    const secret = /id="totp-secret">([A-Z2-7]+)</.exec(begun.body)?.[1] as string;
    const sealed = /name="sealed" value="([^"]+)"/.exec(begun.body)?.[1] as string;
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    expect((await client.post('/dashboard/account/second-factor/enable', { sealed, code: '000000' })).statusCode).toBe(400);
    const step = totpStep(Date.now());
    const on = await client.post('/dashboard/account/second-factor/enable', { sealed, code: totpCode(secret, step) });
    expect(on.statusCode).toBe(303);

    const first = await signIn(t, 'totp@example.com', PASSWORD, '10.0.5.1');
    expect(first.location).toMatch(/^\/dashboard\/second-factor/);
    // Mid-sign-in, nothing else opens.
    expect((await first.client.get('/dashboard')).headers.location).toBe('/dashboard/second-factor');
    await first.client.get('/dashboard/second-factor');
    expect((await first.client.post('/dashboard/second-factor', { code: '123456' })).statusCode).toBe(401);
    // The code used to turn the factor on is spent; the next step's code works once.
    expect((await first.client.post('/dashboard/second-factor', { code: totpCode(secret, step) })).statusCode).toBe(401);
    const pending = first.client.cookies.get('corridor_dashboard');
    const ok = await first.client.post('/dashboard/second-factor', { code: totpCode(secret, step + 1) });
    expect(ok.statusCode).toBe(303);
    expect(first.client.cookies.get('corridor_dashboard')).not.toBe(pending); // a new session after the second factor
    expect((await first.client.get('/dashboard')).statusCode).toBe(200);

    const second = await signIn(t, 'totp@example.com', PASSWORD, '10.0.5.2');
    await second.client.get('/dashboard/second-factor');
    expect((await second.client.post('/dashboard/second-factor', { code: totpCode(secret, step + 1) })).statusCode).toBe(401);
  });

  it('writes what a dashboard user changed to the audit log, without passwords, codes or tokens', async () => {
    const res = await operator(t.app, 'GET', `/operator/v1/audit-log?workspaceId=${workspaceId}&limit=100`);
    const entries = res.json<{ data: { actor: string | null; path: string; body: Record<string, unknown> | null }[] }>().data;
    const enable = entries.find((e) => e.path === '/dashboard/account/second-factor/enable' && e.actor?.startsWith('user:'));
    expect(enable).toBeDefined();
    expect(enable?.body).toMatchObject({ _csrf: '[redacted]', sealed: '[redacted]', code: '[redacted]' });
    expect(JSON.stringify(entries)).not.toContain(PASSWORD);
  });
});

describe('the console sign-in', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => t?.close());

  it('opens with the operator key, and its session does not open the dashboard', async () => {
    const client = new WebClient(t.app);
    expect((await client.get('/console')).headers.location).toBe('/console/sign-in?next=%2Fconsole');
    await client.get('/console/sign-in');
    const wrong = await client.post('/console/sign-in/key', { operatorKey: 'op_wrong' });
    expect(wrong.statusCode).toBe(401);
    expect(wrong.body).toContain('That operator key is not valid.');
    const ok = await client.post('/console/sign-in/key', { operatorKey: OPERATOR_KEY });
    expect(ok.statusCode).toBe(303);
    expect((await client.get('/console')).statusCode).toBe(200);
    expect((await client.get('/dashboard')).statusCode).toBe(303);
  });
});

describe('cookies under HTTPS', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ env: { PUBLIC_BASE_URL: 'https://corridor.example' } });
  });
  afterAll(async () => t?.close());

  it('are Secure with the __Host- prefix', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/dashboard/sign-in' });
    const pre = (res.cookies as { name: string; secure?: boolean; path?: string }[]).find((c) => c.name === '__Host-corridor_pre');
    expect(pre).toMatchObject({ secure: true, path: '/' });
  });
});

describe('the absolute session lifetime', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ env: { DASHBOARD_SESSION_IDLE_MS: '60000', DASHBOARD_SESSION_ABSOLUTE_MS: '2000' } });
  });
  afterAll(async () => t?.close());

  it('ends a session however active it is', async () => {
    const { workspaceId } = await newWorkspace(t.app);
    const { url } = await invite(t, workspaceId, 'absolute@example.com');
    const client = await accepted(t, url);
    const started = Date.now();
    while (Date.now() - started < 1500) {
      expect((await client.get('/dashboard')).statusCode).toBe(200);
      await sleep(300);
    }
    await sleep(800);
    expect((await client.get('/dashboard')).headers.location).toMatch(/^\/dashboard\/sign-in/);
  });
});

// A short idle window of its own: on a loaded machine, the other tests' pauses between requests (a
// password hash, a strength check) could outlast it and end their sessions.
describe('the idle session window', () => {
  let t: TestApp;
  let workspaceId: string;
  beforeAll(async () => {
    t = await createTestApp({ env: { DASHBOARD_SESSION_IDLE_MS: '1500', DASHBOARD_SESSION_ABSOLUTE_MS: '60000' } });
    workspaceId = (await newWorkspace(t.app)).workspaceId;
  });
  afterAll(async () => t?.close());

  it('ends a session after the idle window, and a disabled user’s sessions at once', async () => {
    const { url, userId } = await invite(t, workspaceId, 'idle@example.com');
    const client = await accepted(t, url);
    for (let i = 0; i < 3; i++) {
      await sleep(600);
      expect((await client.get('/dashboard')).statusCode).toBe(200); // activity keeps it alive past 1.5 s
    }
    await sleep(1800);
    expect((await client.get('/dashboard')).headers.location).toMatch(/^\/dashboard\/sign-in/);

    const again = await signIn(t, 'idle@example.com', PASSWORD, '10.0.4.1');
    expect((await again.client.get('/dashboard')).statusCode).toBe(200);
    const disabled = await operator(t.app, 'PATCH', `/operator/v1/workspaces/${workspaceId}/users/${userId}`, { status: 'disabled' });
    expect(disabled.statusCode).toBe(200);
    expect((await again.client.get('/dashboard')).statusCode).toBe(303);
    expect((await signIn(t, 'idle@example.com', PASSWORD, '10.0.4.2')).status).toBe(401);
  });
});
