import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, newWorkspace, type Caller, type TestApp } from '../helpers/app.js';
import { dashboardUser, type WebClient } from '../helpers/web-client.js';
import { addDocument, addPerson, createApplication, PNG } from '../applications/helpers.js';

/** Onboarding in the dashboard (issue 37, point 1), on both databases: the persons and documents added are listed, and can be removed while the application is open. */

let t: TestApp;
let c: Caller;
let admin: WebClient;

beforeAll(async () => {
  t = await createTestApp();
  c = await newWorkspace(t.app);
  admin = await dashboardUser(t.app, c.workspaceId, 'onboarding-lists@example.com');
});
afterAll(async () => t?.close());

describe('the onboarding page', () => {
  it('lists the persons and documents added, and removes one of each', async () => {
    const application = await createApplication(c);
    const personId = await addPerson(c, application.id, { firstName: 'Grace', lastName: 'Hopper', title: 'Director', ownershipPercentage: 40, dateOfBirth: '1986-12-09', nationality: 'US' });
    const passport = await addDocument(t.app, c, application.id, 'photo_id', personId, { bytes: PNG, contentType: 'image/png' });
    await addDocument(t.app, c, application.id, 'certificate_of_incorporation');

    const page = await admin.get('/dashboard/onboarding');
    expect(page.statusCode).toBe(200);
    const text = page.body.replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ');
    expect(text).toContain('Persons (1)');
    expect(text).toMatch(/Grace Hopper Director 40 %/);
    expect(text).toContain('Documents (2)');
    expect(text).toMatch(/Photo ID Grace Hopper image\/png/);
    expect(text).toMatch(/Certificate of incorporation The company application\/pdf/);

    const removed = await admin.post(`/dashboard/onboarding/${application.id}/documents/${passport}/remove`, {});
    expect(removed.statusCode, removed.body).toBe(303);
    expect((await c.request('GET', `/v2/applications/${application.id}/documents`)).json<{ data: unknown[] }>().data).toHaveLength(1);

    await admin.get('/dashboard/onboarding');
    const gone = await admin.post(`/dashboard/onboarding/${application.id}/persons/${personId}/remove`, {});
    expect(gone.statusCode, gone.body).toBe(303);
    expect((await c.request('GET', `/v2/applications/${application.id}/persons`)).json<{ data: unknown[] }>().data).toHaveLength(0);
    const after = (await admin.get('/dashboard/onboarding')).body.replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ');
    expect(after).toContain('Persons (0)');
    expect(after).toContain('Documents (1)');
  });
});
