import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issuersFor } from '../../src/connectors/issuers.js';
import { newWorkspace, onPostgres, operator, productionTestApp, type Caller, type TestApp } from '../helpers/app.js';
import { completeBusiness } from '../applications/helpers.js';
import { eventsOfType, expectProblem } from './helpers.js';

/** Production: the manual issuer, whose pending accounts the operator approves, refuses or deactivates; NGN is not self-serve. Needs PostgreSQL. */
describe.skipIf(!onPostgres)('receiving money in production (PostgreSQL)', () => {
  let t: TestApp;
  let c: Caller;

  beforeAll(async () => {
    t = await productionTestApp();
    c = await newWorkspace(t.app);
    const { application } = await completeBusiness(t.app, c);
    expect((await c.request('POST', `/v2/applications/${application.id}/submit`)).statusCode).toBe(200);
    await operator(t.app, 'PUT', `/operator/v1/applications/${application.id}/screening`, { screeningStatus: 'clear', riskLevel: 'low' });
    expect((await operator(t.app, 'POST', `/operator/v1/applications/${application.id}/review`, { decision: 'approve' })).statusCode).toBe(200);
    await operator(t.app, 'PUT', `/operator/v1/workspaces/${c.workspaceId}/currencies/GHS`, { enabled: true });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('answers NGN 422 VIRTUAL_ACCOUNT_SELF_SERVE_UNSUPPORTED without asking the issuer, and emits nothing', async () => {
    const before = issuersFor(t.config).calls();
    expectProblem(await c.request('POST', '/v1/virtual-accounts', { currency: 'NGN' }), 422, 'VIRTUAL_ACCOUNT_SELF_SERVE_UNSUPPORTED');
    expect(issuersFor(t.config).calls()).toBe(before);
    expect(await eventsOfType(c, 'virtual_account.')).toEqual([]);
  });

  it('keeps requests pending at the manual issuer until the operator approves (with the issued details) or refuses', async () => {
    const ghs = await c.request('POST', '/v1/virtual-accounts', { currency: 'GHS' });
    expect(ghs.statusCode, ghs.body).toBe(201);
    expect(ghs.json().status).toBe('pending');
    expect((await c.request('POST', `/v1/sandbox/virtual-accounts/${ghs.json().id}/approve`)).statusCode).toBe(404);
    const details = { accountNumber: '1234567890123', bankName: 'Partner Bank Ghana', bankCode: 'GH123', accountHolderName: 'Acme Ltd' };
    const approved = await operator(t.app, 'POST', `/operator/v1/virtual-accounts/${ghs.json().id}/approve`, { details });
    expect(approved.statusCode, approved.body).toBe(200);
    const list = await c.request('GET', '/v1/virtual-accounts');
    expect(list.json().data).toEqual([expect.objectContaining({ id: ghs.json().id, status: 'active', ...details })]);

    // EUR is pending at the manual issuer too; the operator's refusal emits no virtual_account.failed for EUR.
    const eur = await c.request('POST', '/v1/virtual-accounts', { currency: 'EUR' });
    expect(eur.json().status).toBe('pending');
    expect((await operator(t.app, 'POST', `/operator/v1/virtual-accounts/${eur.json().id}/fail`, { reason: 'bank_declined' })).json().status).toBe('failed');
    expect((await eventsOfType(c, 'virtual_account.')).map((e) => e.type)).toEqual(['virtual_account.active']);
    expect((await c.request('POST', '/v1/sandbox/deposits', { currency: 'GHS', amount: '1.00' })).statusCode).toBe(404);

    // The operator credits an inbound payment to the active account.
    const credited = await operator(t.app, 'POST', '/operator/v1/deposits', { virtualAccountId: ghs.json().id, amount: '250.00', rail: 'mobile_money' });
    expect(credited.statusCode, credited.body).toBe(201);
    expect(credited.json()).toMatchObject({ status: 'completed', creditedAmount: '250.00' });
    expect((await c.request('GET', '/v1/deposits')).json().data.map((d: { id: string }) => d.id)).toEqual([credited.json().id]);
  });
});
