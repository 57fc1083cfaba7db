import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { totpCode, totpStep } from '../../src/platform/lib/totp.js';
import { createTestApp, newWorkspace, operator, type TestApp } from '../helpers/app.js';
import { WebClient } from '../helpers/web-client.js';

const PASSWORD = 'a long enough passphrase';

interface Invitation {
  user: { id: string; email: string; status: string };
  invitationUrl: string;
}

async function inviteOperator(t: TestApp, email: string): Promise<Invitation> {
  const res = await operator(t.app, 'POST', '/operator/v1/operators', { email });
  expect(res.statusCode, res.body).toBe(201);
  return res.json<Invitation>();
}

/** Opens an invitation link on the face it names and sets the password: the answer to the form (or the page that refused to open). */
async function accept(client: WebClient, link: string) {
  const { opened, form, done } = await client.acceptInvitation(link, PASSWORD);
  expect(opened.statusCode).toBe(303);
  return done ?? form;
}

async function signIn(client: WebClient, area: 'dashboard' | 'console', email: string, password = PASSWORD) {
  await client.get(`/${area}/sign-in`);
  return client.post(`/${area}/sign-in`, { email, password });
}

async function auditOf(t: TestApp, actor: string, path: string): Promise<{ actor: string | null; operatorKeyId: string | null; statusCode: number }[]> {
  const res = await operator(t.app, 'GET', `/operator/v1/audit-log?actor=${encodeURIComponent(actor)}&pathContains=${encodeURIComponent(path)}&limit=100`);
  expect(res.statusCode, res.body).toBe(200);
  return res.json<{ data: { actor: string | null; operatorKeyId: string | null; statusCode: number }[] }>().data;
}

describe('operator users of the console', () => {
  let t: TestApp;
  beforeAll(async () => {
    // Refusals here are the point of some tests; the limiter (tested in sessions.test.ts) is not.
    t = await createTestApp({ env: { SIGN_IN_FAILURES_PER_15_MIN: '100' } });
  });
  afterAll(async () => t?.close());

  it('are invited through the operator API, accept on /console, and their changes are audited as themselves', async () => {
    const { user, invitationUrl } = await inviteOperator(t, 'Grace@Operator.example');
    expect(user).toMatchObject({ email: 'grace@operator.example', status: 'invited' });
    expect(user).not.toHaveProperty('workspaceId');
    expect(invitationUrl).toMatch(/\/console\/invitation\?token=inv_/);
    const listed = await operator(t.app, 'GET', '/operator/v1/operators');
    expect(listed.json<{ data: { id: string }[] }>().data.map((u) => u.id)).toContain(user.id);

    // The link opens on the console only, not on the dashboard.
    const wrongFace = await accept(new WebClient(t.app), invitationUrl.replace('/console/', '/dashboard/'));
    expect(wrongFace.statusCode).toBe(404);

    const client = new WebClient(t.app);
    const done = await accept(client, invitationUrl);
    expect(done.statusCode, done.body).toBe(303);
    expect(done.headers.location).toBe('/console');
    const home = await client.get('/console');
    expect(home.statusCode).toBe(200);
    expect(home.body).toContain('grace@operator.example');

    const created = await client.post('/console/workspaces', { name: 'Made By Grace', country: 'DE' });
    expect(created.statusCode, created.body).toBe(303);
    const [entry] = await auditOf(t, `user:${user.id}`, '/console/workspaces');
    expect(entry).toMatchObject({ actor: `user:${user.id}`, operatorKeyId: null, statusCode: 303 });
    // The console's audit page names the person by their email beside the kept id.
    const audit = await client.get(`/console/audit?actor=${encodeURIComponent(`user:${user.id}`)}`);
    expect(audit.statusCode).toBe(200);
    expect(audit.body).toContain(`grace@operator.example <span class="muted">user:${user.id}</span>`);
    const again = await operator(t.app, 'GET', '/operator/v1/operators');
    expect(again.json<{ data: { id: string; status: string }[] }>().data.find((u) => u.id === user.id)?.status).toBe('active');
  });

  it('sign in to the console only, and a workspace user signs in to the dashboard only, with the one generic refusal', async () => {
    const { invitationUrl } = await inviteOperator(t, 'hopper@operator.example');
    await accept(new WebClient(t.app), invitationUrl);
    const workspace = await newWorkspace(t.app);
    const dashboardInvite = await operator(t.app, 'POST', `/operator/v1/workspaces/${workspace.workspaceId}/users`, { email: 'lin@workspace.example', role: 'admin' });
    await accept(new WebClient(t.app), dashboardInvite.json<Invitation>().invitationUrl);

    const operatorOnDashboard = await signIn(new WebClient(t.app), 'dashboard', 'hopper@operator.example');
    const userOnConsole = await signIn(new WebClient(t.app), 'console', 'lin@workspace.example');
    const wrongPassword = await signIn(new WebClient(t.app), 'console', 'hopper@operator.example', 'not the password at all');
    for (const refused of [operatorOnDashboard, userOnConsole, wrongPassword]) {
      expect(refused.statusCode).toBe(401);
      expect(refused.body).toContain('Email or password is incorrect, or the account cannot sign in.');
    }

    const ok = new WebClient(t.app);
    expect((await signIn(ok, 'console', 'hopper@operator.example')).headers.location).toBe('/console');
    expect((await ok.get('/console')).statusCode).toBe(200);
    expect((await ok.get('/dashboard')).statusCode).toBe(303); // the console's session opens no dashboard

    // The same email cannot be both.
    const taken = await operator(t.app, 'POST', '/operator/v1/operators', { email: 'lin@workspace.example' });
    expect(taken.statusCode).toBe(409);
    expect(taken.json<{ code: string }>().code).toBe('USER_EXISTS');
  });

  it('are invited from the console too, and disabling one ends their sessions at once; nobody disables themselves', async () => {
    const first = await inviteOperator(t, 'first@operator.example');
    const me = new WebClient(t.app);
    await accept(me, first.invitationUrl);

    const page = await me.get('/console/operators');
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('first@operator.example');
    expect(page.body).toContain('name="role"'); // operators have roles (rights.ts): invited as one, changed on this page
    const invited = await me.post('/console/operators', { email: 'second@operator.example' });
    expect(invited.statusCode, invited.body).toBe(201);
    const link = /(http:\/\/[^"<\s]+\/console\/invitation\?token=inv_[A-Za-z0-9_-]{43})/.exec(invited.body)?.[1] as string;
    expect(link).toBeDefined();
    const other = new WebClient(t.app);
    expect((await accept(other, link)).statusCode).toBe(303);
    expect((await other.get('/console')).statusCode).toBe(200);

    const list = (await operator(t.app, 'GET', '/operator/v1/operators')).json<{ data: { id: string; email: string }[] }>().data;
    const second = list.find((u) => u.email === 'second@operator.example')!;
    await me.get('/console/operators');
    expect((await me.post(`/console/operators/${first.user.id}/disable`, {})).statusCode).toBe(409);
    expect((await me.post(`/console/operators/${second.id}/disable`, {})).statusCode).toBe(303);
    expect((await other.get('/console')).headers.location).toBe('/console/sign-in?next=%2Fconsole');
    expect((await signIn(new WebClient(t.app), 'console', 'second@operator.example')).statusCode).toBe(401);

    // The operator API enables them again; a role change is refused for an operator user.
    const role = await operator(t.app, 'PATCH', `/operator/v1/operators/${second.id}`, { status: 'active', role: 'admin' });
    expect(role.statusCode).toBe(400);
    const enabled = await operator(t.app, 'PATCH', `/operator/v1/operators/${second.id}`, { status: 'active' });
    expect(enabled.statusCode, enabled.body).toBe(200);
    expect(enabled.json()).toMatchObject({ id: second.id, status: 'active' });
    expect((await signIn(new WebClient(t.app), 'console', 'second@operator.example')).statusCode).toBe(303);
    // Operator users are the operator's: a workspace's users API does not reach them.
    const workspace = await newWorkspace(t.app);
    expect((await operator(t.app, 'PATCH', `/operator/v1/workspaces/${workspace.workspaceId}/users/${second.id}`, { status: 'disabled' })).statusCode).toBe(404);
  });

  it('take a second factor on the console the same way as dashboard users', async () => {
    const { invitationUrl } = await inviteOperator(t, 'totp@operator.example');
    const client = new WebClient(t.app);
    await accept(client, invitationUrl);
    await client.get('/console/account');
    const begun = await client.post('/console/account/second-factor/begin', {});
    const secret = /id="totp-secret">([A-Z2-7]+)</.exec(begun.body)?.[1] as string;
    const sealed = /name="sealed" value="([^"]+)"/.exec(begun.body)?.[1] as string;
    const step = totpStep(Date.now());
    expect((await client.post('/console/account/second-factor/enable', { sealed, code: totpCode(secret, step) })).statusCode).toBe(303);

    const next = new WebClient(t.app);
    const signedIn = await signIn(next, 'console', 'totp@operator.example');
    expect(signedIn.headers.location).toMatch(/^\/console\/second-factor/);
    expect((await next.get('/console')).headers.location).toBe('/console/second-factor');
    await next.get('/console/second-factor');
    expect((await next.post('/console/second-factor', { code: totpCode(secret, step + 1) })).statusCode).toBe(303);
    expect((await next.get('/console')).statusCode).toBe(200);
  });

  it('are managed with the operator key only: a workspace token is refused', async () => {
    const workspace = await newWorkspace(t.app);
    const res = await t.app.inject({ method: 'GET', url: '/operator/v1/operators', headers: { authorization: `Bearer ${workspace.token}` } });
    expect(res.statusCode).toBe(401);
  });
});
