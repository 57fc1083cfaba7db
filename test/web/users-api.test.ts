import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, newWorkspace, operator, type TestApp } from '../helpers/app.js';
import { WebClient } from '../helpers/web-client.js';

interface Invitation {
  user: { id: string; email: string; role: string; status: string; invitationExpiresAt: string | null };
  invitationUrl: string;
}

const pathOf = (url: string) => new URL(url).pathname + new URL(url).search;

describe('dashboard users through the operator API', () => {
  let t: TestApp;
  let workspaceId: string;

  beforeAll(async () => {
    t = await createTestApp();
    workspaceId = (await newWorkspace(t.app)).workspaceId;
  });
  afterAll(async () => t?.close());

  it('invites with a role, returns the link once, and refuses an email already in use', async () => {
    const res = await operator(t.app, 'POST', `/operator/v1/workspaces/${workspaceId}/users`, { email: ' Lin@Example.com ', role: 'viewer' });
    expect(res.statusCode).toBe(201);
    const body = res.json<Invitation>();
    expect(body.user).toMatchObject({ email: 'lin@example.com', role: 'viewer', status: 'invited' });
    expect(Date.parse(body.user.invitationExpiresAt!) - Date.now()).toBeGreaterThan(6 * 86_400_000);
    const list = await operator(t.app, 'GET', `/operator/v1/workspaces/${workspaceId}/users`);
    expect(JSON.stringify(list.json())).not.toContain('inv_'); // the link is never shown again

    const again = await operator(t.app, 'POST', `/operator/v1/workspaces/${workspaceId}/users`, { email: 'LIN@example.com', role: 'admin' });
    expect(again.statusCode).toBe(409);
    expect(again.body).toContain('USER_EXISTS');
    const bad = await operator(t.app, 'POST', `/operator/v1/workspaces/${workspaceId}/users`, { email: 'not-an-email', role: 'admin' });
    expect(bad.statusCode).toBe(400);
    const role = await operator(t.app, 'POST', `/operator/v1/workspaces/${workspaceId}/users`, { email: 'x@example.com', role: 'owner' });
    expect(role.statusCode).toBe(400);
    const missing = await operator(t.app, 'POST', `/operator/v1/workspaces/00000000-0000-4000-8000-000000000000/users`, { email: 'y@example.com', role: 'admin' });
    expect(missing.statusCode).toBe(404);
  });

  it('a new link replaces the old one; an accepted invitation gets no new link', async () => {
    const first = (await operator(t.app, 'POST', `/operator/v1/workspaces/${workspaceId}/users`, { email: 'relink@example.com', role: 'admin' })).json<Invitation>();
    const renewed = await operator(t.app, 'POST', `/operator/v1/workspaces/${workspaceId}/users/${first.user.id}/invitation`);
    expect(renewed.statusCode).toBe(201);
    const second = renewed.json<Invitation>();
    expect(second.invitationUrl).not.toBe(first.invitationUrl);

    const old = new WebClient(t.app);
    await old.get(pathOf(first.invitationUrl));
    expect((await old.get('/dashboard/invitation')).statusCode).toBe(404);

    const client = new WebClient(t.app);
    await client.get(pathOf(second.invitationUrl));
    await client.get('/dashboard/invitation');
    const password = 'another long passphrase';
    expect((await client.post('/dashboard/invitation', { password, confirmation: password })).statusCode).toBe(303);
    const late = await operator(t.app, 'POST', `/operator/v1/workspaces/${workspaceId}/users/${first.user.id}/invitation`);
    expect(late.statusCode).toBe(409);
    expect(late.body).toContain('USER_NOT_INVITED');

    // Another workspace's user is not found through this workspace.
    const other = (await newWorkspace(t.app)).workspaceId;
    expect((await operator(t.app, 'PATCH', `/operator/v1/workspaces/${other}/users/${first.user.id}`, { role: 'viewer' })).statusCode).toBe(404);
    const changed = await operator(t.app, 'PATCH', `/operator/v1/workspaces/${workspaceId}/users/${first.user.id}`, { role: 'viewer' });
    expect(changed.json()).toMatchObject({ role: 'viewer', status: 'active' });
    expect((await operator(t.app, 'PATCH', `/operator/v1/workspaces/${workspaceId}/users/${first.user.id}`, {})).statusCode).toBe(400);
  });

  it('every call is in the audit log, with no invitation link in it', async () => {
    const audit = await operator(t.app, 'GET', `/operator/v1/audit-log?workspaceId=${workspaceId}&limit=100`);
    const entries = audit.json<{ data: { path: string; method: string }[] }>().data;
    expect(entries.some((e) => e.method === 'POST' && e.path.endsWith('/users'))).toBe(true);
    expect(JSON.stringify(entries)).not.toContain('inv_');
  });
});
