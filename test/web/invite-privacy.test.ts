import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, newWorkspace, operator, type Caller, type TestApp } from '../helpers/app.js';
import { WebClient } from '../helpers/web-client.js';

const PASSWORD = 'a long enough passphrase';
const LINK = /(http:\/\/[^<"]+\/dashboard\/invitation\?token=inv_[A-Za-z0-9_-]{43})/;

let t: TestApp;
let ours: Caller;
let theirs: Caller;
let admin: WebClient;

/** Invited through the operator API (a workspace's user, or an operator user with no workspace) and signed up: the signed-in client. */
async function person(email: string, workspaceId?: string): Promise<WebClient> {
  const res = workspaceId
    ? await operator(t.app, 'POST', `/operator/v1/workspaces/${workspaceId}/users`, { email, role: 'admin' })
    : await operator(t.app, 'POST', '/operator/v1/operators', { email });
  expect(res.statusCode, res.body).toBe(201);
  const client = new WebClient(t.app);
  const { done } = await client.acceptInvitation(res.json<{ invitationUrl: string }>().invitationUrl, PASSWORD);
  expect(done?.statusCode).toBe(303);
  return client;
}

/** What the invite form answers for an email, with the email, the link and the form token taken out. */
async function inviteAnswer(email: string): Promise<{ status: number; link: string | undefined; shape: string }> {
  await admin.get('/dashboard/users');
  const res = await admin.post('/dashboard/users', { email, role: 'viewer' });
  const link = LINK.exec(res.body)?.[1];
  const shape = res.body
    .replaceAll(email, 'EMAIL')
    .replace(LINK, 'LINK')
    .replace(/name="_csrf" value="[^"]+"/g, '')
    .replace(/name="_idempotency" value="[^"]+"/g, '') // a fresh key per rendered form
    .replace(/f-[a-z]+-\d+/g, 'ID') // element ids count the rows above them
    .replace(/<span class="range" role="status">[^<]*<\/span>/, 'RANGE') // "1–3 of 3": the list grows by the person invited, whoever they are
    .replace(/<main[\s\S]*<\/main>/, (main) => main.replace(/<table[\s\S]*<\/table>/, 'TABLE'));
  return { status: res.statusCode, link, shape };
}

beforeAll(async () => {
  t = await createTestApp();
  ours = await newWorkspace(t.app);
  theirs = await newWorkspace(t.app, { name: 'Other Ltd' });
  admin = await person('admin@ours.example', ours.workspaceId);
  await person('taken@theirs.example', theirs.workspaceId);
  await person('staff@operator.example');
});
afterAll(async () => t.close());

describe("the dashboard's invite form does not tell whether an email is used elsewhere", () => {
  it('answers an email of another workspace and of an operator exactly as a fresh one: 201 with a link, listed as invited', async () => {
    const fresh = await inviteAnswer('fresh@anywhere.example');
    const otherWorkspace = await inviteAnswer('taken@theirs.example');
    const ofOperator = await inviteAnswer('staff@operator.example');
    for (const answer of [fresh, otherWorkspace, ofOperator]) {
      expect(answer.status).toBe(201);
      expect(answer.link).toBeDefined();
      expect(answer.shape).toBe(fresh.shape);
    }
    const listed = (await operator(t.app, 'GET', `/operator/v1/workspaces/${ours.workspaceId}/users?limit=100`)).json<{ data: { email: string; status: string }[] }>().data;
    for (const email of ['fresh@anywhere.example', 'taken@theirs.example', 'staff@operator.example']) {
      expect(listed.find((u) => u.email === email)?.status).toBe('invited');
    }
  });

  it('an invitation to an email used elsewhere cannot be accepted, and the person it belongs to keeps signing in as before', async () => {
    // The same email twice in one workspace is refused, as before (the workspace's own list shows it).
    await admin.get('/dashboard/users');
    const again = await admin.post('/dashboard/users', { email: 'taken@theirs.example', role: 'viewer' });
    expect(again.statusCode).toBe(409);

    const listed = (await operator(t.app, 'GET', `/operator/v1/workspaces/${ours.workspaceId}/users?limit=100`)).json<{ data: { id: string; email: string }[] }>().data;
    const invitedId = listed.find((u) => u.email === 'taken@theirs.example')!.id;
    await admin.get('/dashboard/users');
    const renewed = await admin.post(`/dashboard/users/${invitedId}/invitation`, {});
    const url = new URL(LINK.exec(renewed.body)![1]!);
    const stranger = new WebClient(t.app);
    await stranger.get(url.pathname + url.search);
    expect((await stranger.get('/dashboard/invitation')).statusCode).toBe(404);

    const owner = new WebClient(t.app);
    await owner.get('/dashboard/sign-in');
    expect((await owner.post('/dashboard/sign-in', { email: 'taken@theirs.example', password: PASSWORD })).headers.location).toBe('/dashboard');
    const staff = new WebClient(t.app);
    await staff.get('/console/sign-in');
    expect((await staff.post('/console/sign-in', { email: 'staff@operator.example', password: PASSWORD })).headers.location).toBe('/console');
  });

  it('the operator, who sees every workspace, is still told the email is taken', async () => {
    const res = await operator(t.app, 'POST', `/operator/v1/workspaces/${ours.workspaceId}/users`, { email: 'staff@operator.example', role: 'viewer' });
    expect(res.statusCode).toBe(409);
    expect(res.json<{ code: string }>().code).toBe('USER_EXISTS');
  });
});
