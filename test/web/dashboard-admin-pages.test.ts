import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, newWorkspace, operator, type Caller, type TestApp } from '../helpers/app.js';
import { WebClient } from '../helpers/web-client.js';

const PASSWORD = 'a long enough passphrase';

let t: TestApp;
let ours: Caller;
let theirs: Caller;
let admin: WebClient;
let adminId: string;

/** A person invited through the operator API who has set a password: a signed-in client and their user id. */
async function member(workspaceId: string, email: string, role: 'admin' | 'viewer'): Promise<{ client: WebClient; userId: string }> {
  const res = await operator(t.app, 'POST', `/operator/v1/workspaces/${workspaceId}/users`, { email, role });
  const { invitationUrl, user } = res.json<{ invitationUrl: string; user: { id: string } }>();
  const client = new WebClient(t.app);
  await client.get(new URL(invitationUrl).pathname + new URL(invitationUrl).search);
  await client.get('/dashboard/invitation');
  expect((await client.post('/dashboard/invitation', { password: PASSWORD, confirmation: PASSWORD })).statusCode).toBe(303);
  return { client, userId: user.id };
}

const credentialsOf = async (c: Caller) => (await operator(t.app, 'GET', `/operator/v1/workspaces/${c.workspaceId}/credentials`)).json<{ data: { clientId: string; status: string; scopes: string[] }[] }>().data;
const userOf = async (c: Caller, id: string) =>
  (await operator(t.app, 'GET', `/operator/v1/workspaces/${c.workspaceId}/users?limit=100`)).json<{ data: { id: string; role: string; status: string }[] }>().data.find((u) => u.id === id);

beforeAll(async () => {
  t = await createTestApp();
  ours = await newWorkspace(t.app);
  theirs = await newWorkspace(t.app, { name: 'Other Ltd' });
  ({ client: admin, userId: adminId } = await member(ours.workspaceId, 'admin@ours.example', 'admin'));
});
afterAll(async () => t.close());

describe('dashboard credentials pages', () => {
  it('refuses an unknown scope in the form, with the error shown and nothing created', async () => {
    const before = await credentialsOf(ours);
    await admin.get('/dashboard/credentials');
    const res = await admin.post('/dashboard/credentials', { label: 'bad', scopes: ['read:accounts', 'launch:rockets'] });
    expect(res.statusCode).toBe(400);
    expect(res.body).toContain('is not a known scope');
    expect(res.headers['cache-control']).toBe('no-store');
    expect(await credentialsOf(ours)).toEqual(before);
  });

  it('edits scopes: an admin may grant any scope', async () => {
    await admin.get('/dashboard/credentials');
    const created = await admin.post('/dashboard/credentials', { label: 'narrow', scopes: 'read:accounts' });
    expect(created.statusCode).toBe(201);
    expect(created.headers['cache-control']).toBe('no-store');
    const clientId = /<code>([0-9a-f-]{36})<\/code>/.exec(created.body)![1]!;
    const res = await admin.post(`/dashboard/credentials/${clientId}/scopes`, { scopes: ['read:accounts', 'write:api_keys', 'write:payouts'] });
    expect(res.statusCode).toBe(303);
    expect((await credentialsOf(ours)).find((c) => c.clientId === clientId)?.scopes.sort()).toEqual(['read:accounts', 'write:api_keys', 'write:payouts']);
  });

  it("answers 404 for another workspace's credential, to read or to change, and leaves it alone", async () => {
    await admin.get('/dashboard/credentials');
    expect((await admin.get(`/dashboard/credentials/${theirs.clientId}`)).statusCode).toBe(404);
    expect((await admin.get('/dashboard/credentials/not-a-uuid')).statusCode).toBe(404);
    expect((await admin.post(`/dashboard/credentials/${theirs.clientId}/rotate`, { graceSeconds: '0' })).statusCode).toBe(404);
    expect((await admin.post(`/dashboard/credentials/${theirs.clientId}/revoke`, {})).statusCode).toBe(404);
    expect((await admin.post(`/dashboard/credentials/${theirs.clientId}/scopes`, { scopes: 'read:accounts' })).statusCode).toBe(404);
    expect((await credentialsOf(theirs))[0]).toMatchObject({ status: 'active' });
    expect((await t.app.inject({ method: 'GET', url: '/v1/account', headers: { authorization: `Bearer ${theirs.token}` } })).statusCode).toBe(200);
  });
});

describe('dashboard webhooks pages', () => {
  it('refuses an http:// URL in the form, with the error beside the field and nothing created', async () => {
    await admin.get('/dashboard/webhooks');
    const res = await admin.post('/dashboard/webhooks', { url: 'http://example.com/hook', events: 'payout.paid' });
    expect(res.statusCode).toBe(400);
    expect(res.body).toContain('url must use https');
    expect(res.body).toContain('value="http://example.com/hook"');
    expect((await ours.request('GET', '/v1/webhooks')).json<{ data: unknown[] }>().data).toEqual([]);
  });

  it('subscribes to the chosen types, disables and enables, and answers 404 for another workspace', async () => {
    await admin.get('/dashboard/webhooks');
    const created = await admin.post('/dashboard/webhooks', { url: 'https://example.com/hook', events: ['payout.paid', 'payout.failed'] });
    expect(created.statusCode).toBe(201);
    const [endpoint] = (await ours.request('GET', '/v1/webhooks')).json<{ data: { id: string; events: string[] }[] }>().data;
    expect(endpoint!.events).toEqual(['payout.failed', 'payout.paid']);
    expect((await admin.post(`/dashboard/webhooks/${endpoint!.id}/disable`, {})).statusCode).toBe(303);
    expect((await ours.request('GET', `/v1/webhooks/${endpoint!.id}`)).json()).toMatchObject({ status: 'disabled' });
    expect((await admin.post(`/dashboard/webhooks/${endpoint!.id}/test`, {})).statusCode).toBe(409);
    expect((await admin.post(`/dashboard/webhooks/${endpoint!.id}/enable`, {})).statusCode).toBe(303);

    const other = await theirs.request('POST', '/v1/webhooks', { url: 'https://example.org/hook' });
    const otherId = other.json<{ id: string }>().id;
    expect((await admin.get(`/dashboard/webhooks/${otherId}`)).statusCode).toBe(404);
    expect((await admin.post(`/dashboard/webhooks/${otherId}/delete`, {})).statusCode).toBe(404);
    expect((await admin.post(`/dashboard/webhooks/${otherId}/rotate-secret`, {})).statusCode).toBe(404);
    expect((await theirs.request('GET', `/v1/webhooks/${otherId}`)).statusCode).toBe(200);

    expect((await admin.post(`/dashboard/webhooks/${endpoint!.id}/delete`, {})).statusCode).toBe(303);
    expect((await ours.request('GET', `/v1/webhooks/${endpoint!.id}`)).statusCode).toBe(404);
  });
});

describe('dashboard users pages', () => {
  it('changes another user’s role, disables and enables them, but never the admin themselves', async () => {
    const { userId } = await member(ours.workspaceId, 'colleague@ours.example', 'viewer');
    await admin.get('/dashboard/users');
    expect((await admin.post(`/dashboard/users/${userId}/role`, { role: 'admin' })).statusCode).toBe(303);
    expect(await userOf(ours, userId)).toMatchObject({ role: 'admin' });
    expect((await admin.post(`/dashboard/users/${userId}/disable`, {})).statusCode).toBe(303);
    expect(await userOf(ours, userId)).toMatchObject({ status: 'disabled' });
    expect((await admin.post(`/dashboard/users/${userId}/enable`, {})).statusCode).toBe(303);
    expect(await userOf(ours, userId)).toMatchObject({ status: 'active' });

    const self = await admin.post(`/dashboard/users/${adminId}/disable`, {});
    expect(self.statusCode).toBe(409);
    expect(self.body).toContain('You cannot change your own role or disable yourself');
    expect(await userOf(ours, adminId)).toMatchObject({ status: 'active', role: 'admin' });
  });

  it('invites with the link in the page only, renews it, and refuses an email already in use', async () => {
    await admin.get('/dashboard/users');
    const invited = await admin.post('/dashboard/users', { email: 'new@ours.example', role: 'viewer' });
    expect(invited.statusCode).toBe(201);
    const first = /(http:\/\/[^<"]+\/dashboard\/invitation\?token=inv_[A-Za-z0-9_-]{43})/.exec(invited.body)![1]!;
    const userId = (await operator(t.app, 'GET', `/operator/v1/workspaces/${ours.workspaceId}/users?limit=100`))
      .json<{ data: { id: string; email: string }[] }>()
      .data.find((u) => u.email === 'new@ours.example')!.id;

    const renewed = await admin.post(`/dashboard/users/${userId}/invitation`, {});
    expect(renewed.statusCode).toBe(200);
    const second = /(http:\/\/[^<"]+\/dashboard\/invitation\?token=inv_[A-Za-z0-9_-]{43})/.exec(renewed.body)![1]!;
    expect(second).not.toBe(first);
    const stale = new WebClient(t.app);
    await stale.get(new URL(first).pathname + new URL(first).search);
    expect((await stale.get('/dashboard/invitation')).statusCode).toBe(404);

    const again = await admin.post('/dashboard/users', { email: 'NEW@ours.example', role: 'admin' });
    expect(again.statusCode).toBe(409);
    expect(again.body).toContain('already exists');
    expect((await admin.post(`/dashboard/users/${theirs.workspaceId}/role`, { role: 'admin' })).statusCode).toBe(404);
  });
});
