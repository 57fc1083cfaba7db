import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newWorkspace, onPostgres, operator, productionTestApp, type Caller, type TestApp } from '../helpers/app.js';
import { completeBusiness } from './helpers.js';

/** Production: no simulated screening and no sandbox review; the operator screens and decides. Production needs PostgreSQL. */
describe.skipIf(!onPostgres)('applications in production (PostgreSQL)', () => {
  let t: TestApp;
  let c: Caller;

  beforeAll(async () => {
    t = await productionTestApp();
    c = await newWorkspace(t.app);
  });
  afterAll(async () => {
    await t?.close();
  });

  it('keeps screening pending until the operator sets it, has no sandbox review, and is approved by the operator', async () => {
    const { application } = await completeBusiness(t.app, c, {
      applicationType: 'business',
      businessInfo: { registeredName: 'Flagged Imports Ltd', registrationNumber: '1', country: 'GB' },
      hasIndirectControl: false,
    });
    const submitted = await c.request('POST', `/v2/applications/${application.id}/submit`);
    expect(submitted.json()).toMatchObject({ status: 'under_review', screeningStatus: 'pending', riskLevel: null });
    expect((await c.request('POST', `/v1/sandbox/applications/${application.id}/review`, { decision: 'approve' })).statusCode).toBe(404);
    const screened = await operator(t.app, 'PUT', `/operator/v1/applications/${application.id}/screening`, { screeningStatus: 'clear', riskLevel: 'medium' });
    expect(screened.json()).toMatchObject({ screeningStatus: 'clear', riskLevel: 'medium' });
    const queue = await operator(t.app, 'GET', '/operator/v1/applications?status=under_review');
    expect(queue.json().data.map((a: { id: string }) => a.id)).toContain(application.id);
    const approved = await operator(t.app, 'POST', `/operator/v1/applications/${application.id}/review`, { decision: 'approve' });
    expect(approved.json()).toMatchObject({ status: 'approved', screeningStatus: 'clear', riskLevel: 'medium' });
  });
});
