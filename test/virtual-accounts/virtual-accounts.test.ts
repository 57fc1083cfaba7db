import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issuersFor } from '../../src/connectors/issuers.js';
import { createTestApp, newWorkspace, onPostgres, operator, type Caller, type TestApp } from '../helpers/app.js';
import { addDocument, completeBusiness } from '../applications/helpers.js';
import {
  approveOnboarding,
  asSub,
  createSubAccount,
  eventsOfType,
  expectCode,
  expectProblem,
  receivingWorkspace,
  requestAccount,
  type VirtualAccount,
} from './helpers.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t.close());

const BANK_FIELDS = ['iban', 'bic', 'accountNumber', 'bankName', 'bankCode', 'accountHolderName'];
const issuerCalls = () => issuersFor(t.config).calls();

async function list(c: Caller, query = ''): Promise<VirtualAccount[]> {
  const res = await c.request('GET', `/v1/virtual-accounts${query}`);
  expect(res.statusCode, res.body).toBe(200);
  expect(res.json()).toMatchObject({ object: 'virtual_account.list', hasMore: false, nextCursor: null });
  return res.json<{ data: VirtualAccount[] }>().data;
}

describe('POST /v1/virtual-accounts', () => {
  it.each(['XOF', 'XAF', 'GHS', 'USD'])('creates a %s account pending (201), then active by out-of-band approval with virtual_account.active', async (currency) => {
    const c = await receivingWorkspace(t.app);
    const created = await requestAccount(c, currency);
    expect(created).toMatchObject({ currency, status: 'pending', accountId: null, deactivated: false, failureReason: null });
    for (const field of BANK_FIELDS) expect(created).not.toHaveProperty(field);
    expect(await eventsOfType(c, 'virtual_account.')).toEqual([]);
    expect(await list(c)).toEqual([]); // pending accounts are absent

    // Idempotent per owner and currency: the pending account again, 200.
    expect((await requestAccount(c, currency, 200)).id).toBe(created.id);

    const approved = await c.request('POST', `/v1/sandbox/virtual-accounts/${created.id}/approve`);
    expect(approved.statusCode, approved.body).toBe(200);
    expect(approved.json()).toMatchObject({ id: created.id, status: 'active' });
    const events = await eventsOfType(c, 'virtual_account.');
    expect(events.map((e) => e.type)).toEqual(['virtual_account.active']);
    expect(events[0]!.data).toEqual({ id: created.id, accountId: null, currency, status: 'active' });
    expect(events[0]!.accountId).toBeNull();

    const [listed] = await list(c);
    expect(listed).toMatchObject({ id: created.id, status: 'active', currency, accountHolderName: 'Receiver Ltd' });
    expect(listed!.accountNumber).toMatch(/^\d+$/);
    expect(listed!.bankName).toEqual(expect.any(String));
    expect((await requestAccount(c, currency, 200)).status).toBe('active');
  });

  it.each(['XOF', 'USD'])('moves a pending %s account to failed by refusal after issuance, with virtual_account.failed', async (currency) => {
    const c = await receivingWorkspace(t.app);
    const created = await requestAccount(c, currency);
    const failed = await c.request('POST', `/v1/sandbox/virtual-accounts/${created.id}/fail`, { reason: 'issuer_declined' });
    expect(failed.statusCode, failed.body).toBe(200);
    expect(failed.json()).toMatchObject({ status: 'failed', failureReason: 'issuer_declined' });
    const events = await eventsOfType(c, 'virtual_account.');
    expect(events.map((e) => e.type)).toEqual(['virtual_account.failed']);
    expect(events[0]!.data).toEqual({ id: created.id, accountId: null, currency, status: 'failed' });
    expect(await list(c)).toEqual([]);
    // The standing answer: the failed account.
    expect(await requestAccount(c, currency, 200)).toMatchObject({ id: created.id, status: 'failed' });
    // A failed account cannot be approved any more.
    expectCode(await c.request('POST', `/v1/sandbox/virtual-accounts/${created.id}/approve`), 409, 'INVALID_VIRTUAL_ACCOUNT_STATE');
  });

  it.each(['EUR', 'GBP'])('creates a %s account active at once (approved before creation) with virtual_account.active', async (currency) => {
    const c = await receivingWorkspace(t.app);
    const created = await requestAccount(c, currency);
    expect(created).toMatchObject({ currency, status: 'active' });
    for (const field of BANK_FIELDS) expect(created).not.toHaveProperty(field);
    const events = await eventsOfType(c, 'virtual_account.');
    expect(events.map((e) => e.type)).toEqual(['virtual_account.active']);
    for (const field of BANK_FIELDS) expect(events[0]!.data).not.toHaveProperty(field);
    const [listed] = await list(c);
    expect(listed!.iban).toMatch(currency === 'EUR' ? /^DE\d{20}$/ : /^GB\d{2}CORR\d{14}$/);
    expect(listed!.bic).toMatch(/^CORR/);
    expect((await requestAccount(c, currency, 200)).id).toBe(created.id);
  });

  it.each(['EUR', 'GBP'])('answers a %s refusal as an error on the request, never virtual_account.failed', async (currency) => {
    const c = await receivingWorkspace(t.app, { name: 'Please Refuse Ltd' });
    expectProblem(await c.request('POST', '/v1/virtual-accounts', { currency }), 422, 'VIRTUAL_ACCOUNT_REFUSED');
    expectProblem(await c.request('POST', '/v1/virtual-accounts', { currency }), 422, 'VIRTUAL_ACCOUNT_REFUSED');
    expect(await eventsOfType(c, 'virtual_account.')).toEqual([]);
    expect(await list(c)).toEqual([]);
  });

  it('issues NGN in the sandbox without any event', async () => {
    const c = await receivingWorkspace(t.app);
    const created = await requestAccount(c, 'NGN');
    expect(created.status).toBe('active');
    expect(await eventsOfType(c, 'virtual_account.')).toEqual([]);
    const [listed] = await list(c);
    expect(listed).toMatchObject({ currency: 'NGN', bankCode: '058' });
    expect(listed!.accountNumber).toMatch(/^\d{10}$/);
    // Deactivating it emits nothing either.
    expect((await c.request('POST', `/v1/sandbox/virtual-accounts/${created.id}/deactivate`)).statusCode).toBe(200);
    expect(await eventsOfType(c, 'virtual_account.')).toEqual([]);
  });

  it('replays a keyed request with Idempotent-Replayed, and answers a repeat without the key from the account', async () => {
    const c = await receivingWorkspace(t.app);
    const headers = { 'idempotency-key': 'va-gbp-1' };
    const first = await c.request('POST', '/v1/virtual-accounts', { currency: 'GBP' }, headers);
    expect(first.statusCode, first.body).toBe(201);
    const replayed = await c.request('POST', '/v1/virtual-accounts', { currency: 'GBP' }, headers);
    expect(replayed.statusCode).toBe(201);
    expect(replayed.headers['idempotent-replayed']).toBe('true');
    expect(replayed.json()).toEqual(first.json());
    expectProblem(await c.request('POST', '/v1/virtual-accounts', { currency: 'EUR' }, headers), 422, 'IDEMPOTENCY_KEY_REUSED');
    expect((await requestAccount(c, 'GBP', 200)).id).toBe(first.json().id);
    expect((await eventsOfType(c, 'virtual_account.')).map((e) => e.type)).toEqual(['virtual_account.active']);
  });

  it('answers an NGN refusal on the request in the sandbox, with no event', async () => {
    const c = await receivingWorkspace(t.app, { name: 'Refuse Naira Ltd' });
    expectProblem(await c.request('POST', '/v1/virtual-accounts', { currency: 'NGN' }), 422, 'VIRTUAL_ACCOUNT_REFUSED');
    expect(await eventsOfType(c, 'virtual_account.')).toEqual([]);
  });

  it('refuses a currency without virtual accounts or not enabled for the workspace', async () => {
    const c = await receivingWorkspace(t.app);
    const usdc = await c.request('POST', '/v1/virtual-accounts', { currency: 'USDC' });
    expectProblem(usdc, 400, 'VALIDATION_ERROR');
    expect(usdc.json().errors[0]).toMatchObject({ field: 'currency', code: 'UNSUPPORTED_CURRENCY' });
    const plain = await newWorkspace(t.app);
    const xof = await plain.request('POST', '/v1/virtual-accounts', { currency: 'XOF' });
    expectProblem(xof, 400, 'VALIDATION_ERROR');
    expect(xof.json().errors[0]).toMatchObject({ field: 'currency', code: 'CURRENCY_NOT_ENABLED' });
  });
});

describe('KYB_INCOMPLETE', () => {
  it('refuses an owner without an application, or with one not approved, and nothing reaches the issuer', async () => {
    const c = await receivingWorkspace(t.app, { approved: false });
    const before = issuerCalls();
    expectProblem(await c.request('POST', '/v1/virtual-accounts', { currency: 'EUR' }), 409, 'KYB_INCOMPLETE');
    const { application } = await completeBusiness(t.app, c);
    await c.request('POST', `/v2/applications/${application.id}/submit`);
    expectProblem(await c.request('POST', '/v1/virtual-accounts', { currency: 'EUR' }), 409, 'KYB_INCOMPLETE');
    expect(issuerCalls()).toBe(before);
    expect((await c.request('POST', `/v1/sandbox/applications/${application.id}/review`, { decision: 'approve' })).statusCode).toBe(200);
    expect((await requestAccount(c, 'EUR')).status).toBe('active');
    expect(issuerCalls()).toBe(before + 1);
  });

  it('refuses when the approved application lacks a document, and GET requirements lists it', async () => {
    const c = await receivingWorkspace(t.app);
    const apps = (await c.request('GET', '/v2/applications')).json<{ data: { id: string }[] }>().data;
    const docs = (await c.request('GET', `/v2/applications/${apps[0]!.id}/documents`)).json<{ data: { id: string; type: string }[] }>().data;
    const certificate = docs.find((d) => d.type === 'certificate_of_incorporation')!;
    // The approved application no longer carries its certificate (deleted on record after approval).
    await t.ctx.db.query('UPDATE application_documents SET deleted_at = now() WHERE id = $1', [certificate.id]);
    const before = issuerCalls();
    expectProblem(await c.request('POST', '/v1/virtual-accounts', { currency: 'GBP' }), 409, 'KYB_INCOMPLETE');
    expect(issuerCalls()).toBe(before);
    const req = await c.request('GET', '/v1/virtual-accounts/requirements?currency=GBP');
    expect(req.statusCode, req.body).toBe(200);
    expect(req.json()).toEqual({ currency: 'GBP', termsVersion: '1', applicationApproved: true, outstanding: [{ type: 'document', name: 'certificate_of_incorporation' }] });
  });

  it('refuses when the terms acceptance is not at the current version', async () => {
    const c = await receivingWorkspace(t.app);
    // The terms moved on since this application was approved (accepted at a version no longer current).
    await t.ctx.db.query("UPDATE applications SET terms_version = '0' WHERE workspace_id = $1", [c.workspaceId]);
    const before = issuerCalls();
    expectProblem(await c.request('POST', '/v1/virtual-accounts', { currency: 'EUR' }), 409, 'KYB_INCOMPLETE');
    expect(issuerCalls()).toBe(before);
    expect((await c.request('GET', '/v1/virtual-accounts/requirements?currency=EUR')).json()).toMatchObject({
      applicationApproved: true,
      outstanding: [{ type: 'terms', name: 'terms_of_service' }],
    });
  });
});

describe('GET /v1/virtual-accounts/requirements', () => {
  it('lists the documents and terms an owner without an approved application must provide, and nothing once approved', async () => {
    const c = await receivingWorkspace(t.app, { approved: false });
    const before = await c.request('GET', '/v1/virtual-accounts/requirements?currency=EUR');
    expect(before.statusCode, before.body).toBe(200);
    expect(before.json()).toEqual({
      currency: 'EUR',
      termsVersion: '1',
      applicationApproved: false,
      outstanding: [
        { type: 'document', name: 'certificate_of_incorporation' },
        { type: 'document', name: 'photo_id' },
        { type: 'terms', name: 'terms_of_service' },
      ],
    });
    await approveOnboarding(t.app, c);
    expect((await c.request('GET', '/v1/virtual-accounts/requirements?currency=EUR')).json()).toMatchObject({ applicationApproved: true, outstanding: [] });
    expectProblem(await c.request('GET', '/v1/virtual-accounts/requirements'), 400, 'VALIDATION_ERROR');
    expectProblem(await c.request('GET', '/v1/virtual-accounts/requirements?currency=USDC'), 400, 'VALIDATION_ERROR');
  });
});

describe('VIRTUAL_ACCOUNT_VERIFICATION_REQUIRED', () => {
  it('repeats the refusal, answering within ten minutes from the last one without asking the issuer', async () => {
    const c = await receivingWorkspace(t.app, { name: 'Please Verify GmbH' });
    const before = issuerCalls();
    const first = await c.request('POST', '/v1/virtual-accounts', { currency: 'USD' });
    expectProblem(first, 409, 'VIRTUAL_ACCOUNT_VERIFICATION_REQUIRED');
    expect(first.json().retryable).toBe(false);
    expect(issuerCalls()).toBe(before + 1);
    for (let i = 0; i < 3; i++) expectProblem(await c.request('POST', '/v1/virtual-accounts', { currency: 'USD' }), 409, 'VIRTUAL_ACCOUNT_VERIFICATION_REQUIRED');
    expect(issuerCalls()).toBe(before + 1);
    // Another currency is another request to the issuer.
    expectProblem(await c.request('POST', '/v1/virtual-accounts', { currency: 'EUR' }), 409, 'VIRTUAL_ACCOUNT_VERIFICATION_REQUIRED');
    expect(issuerCalls()).toBe(before + 2);

    // Ten minutes later the issuer is asked again (and still needs verification).
    await t.ctx.db.query("UPDATE virtual_account_refusals SET refused_at = refused_at - interval '10 minutes 1 second' WHERE workspace_id = $1 AND currency = 'USD'", [c.workspaceId]);
    expectProblem(await c.request('POST', '/v1/virtual-accounts', { currency: 'USD' }), 409, 'VIRTUAL_ACCOUNT_VERIFICATION_REQUIRED');
    expect(issuerCalls()).toBe(before + 3);
    expectProblem(await c.request('POST', '/v1/virtual-accounts', { currency: 'USD' }), 409, 'VIRTUAL_ACCOUNT_VERIFICATION_REQUIRED');
    expect(issuerCalls()).toBe(before + 3);
    expect(await list(c)).toEqual([]);
    expect(await eventsOfType(c, 'virtual_account.')).toEqual([]);
  });

  it('issues once verification passes (sandbox: a proof of address on record), asking the issuer only after the memo', async () => {
    const c = await receivingWorkspace(t.app, { name: 'Verify Later SARL' });
    expectProblem(await c.request('POST', '/v1/virtual-accounts', { currency: 'XOF' }), 409, 'VIRTUAL_ACCOUNT_VERIFICATION_REQUIRED');
    // A new application, approved with a proof of address.
    const { application, personId } = await completeBusiness(t.app, c);
    await addDocument(t.app, c, application.id, 'proof_of_address', personId);
    await c.request('POST', `/v2/applications/${application.id}/submit`);
    expect((await c.request('POST', `/v1/sandbox/applications/${application.id}/review`, { decision: 'approve' })).statusCode).toBe(200);
    const before = issuerCalls();
    // Within ten minutes of the refusal, the answer is still the refusal, without asking.
    expectProblem(await c.request('POST', '/v1/virtual-accounts', { currency: 'XOF' }), 409, 'VIRTUAL_ACCOUNT_VERIFICATION_REQUIRED');
    expect(issuerCalls()).toBe(before);
    await t.ctx.db.query("UPDATE virtual_account_refusals SET refused_at = refused_at - interval '10 minutes 1 second' WHERE workspace_id = $1", [c.workspaceId]);
    expect((await requestAccount(c, 'XOF')).status).toBe('pending');
    expect(issuerCalls()).toBe(before + 1);
    expect((await requestAccount(c, 'XOF', 200)).status).toBe('pending');
    expect(issuerCalls()).toBe(before + 1);
  });

  it('replays a keyed refusal and stores it as problem details', async () => {
    const c = await receivingWorkspace(t.app, { name: 'Verify Keyed Ltd' });
    const headers = { 'idempotency-key': 'va-verify-1' };
    const first = await c.request('POST', '/v1/virtual-accounts', { currency: 'GBP' }, headers);
    expectProblem(first, 409, 'VIRTUAL_ACCOUNT_VERIFICATION_REQUIRED');
    expect(first.json().retryable).toBe(false);
    const again = await c.request('POST', '/v1/virtual-accounts', { currency: 'GBP' }, headers);
    expectProblem(again, 409, 'VIRTUAL_ACCOUNT_VERIFICATION_REQUIRED');
    expect(again.headers['idempotent-replayed']).toBe('true');
  });
});

describe('deactivation', () => {
  it('takes the account out of the list and answers a new request 409 VIRTUAL_ACCOUNT_DEACTIVATED (sandbox and operator)', async () => {
    const c = await receivingWorkspace(t.app);
    const eur = await requestAccount(c, 'EUR');
    const gbp = await requestAccount(c, 'GBP');
    expect((await list(c)).map((a) => a.id).sort()).toEqual([eur.id, gbp.id].sort());
    const sandbox = await c.request('POST', `/v1/sandbox/virtual-accounts/${eur.id}/deactivate`);
    expect(sandbox.statusCode, sandbox.body).toBe(200);
    expect(sandbox.json()).toMatchObject({ status: 'active', deactivated: true });
    const op = await operator(t.app, 'POST', `/operator/v1/virtual-accounts/${gbp.id}/deactivate`);
    expect(op.statusCode, op.body).toBe(200);
    expect(await list(c)).toEqual([]);
    expectProblem(await c.request('POST', '/v1/virtual-accounts', { currency: 'EUR' }), 409, 'VIRTUAL_ACCOUNT_DEACTIVATED');
    expectProblem(await c.request('POST', '/v1/virtual-accounts', { currency: 'GBP' }), 409, 'VIRTUAL_ACCOUNT_DEACTIVATED');
    expectProblem(await operator(t.app, 'POST', `/operator/v1/virtual-accounts/${gbp.id}/deactivate`), 409, 'INVALID_VIRTUAL_ACCOUNT_STATE');
    const audit = await operator(t.app, 'GET', '/operator/v1/audit-log?limit=100');
    expect(audit.json<{ data: { path: string }[] }>().data.some((e) => e.path === `/operator/v1/virtual-accounts/${gbp.id}/deactivate`)).toBe(true);
  });
});

describe('sub-accounts', () => {
  it('issues a sub-account its own account: the event carries its accountId and the follow-up GET with that Service-Account-Id finds it', async () => {
    const c = await receivingWorkspace(t.app);
    const subId = await createSubAccount(c, 'Shop Paris');
    const sub = asSub(c, subId);
    // The master's approval does not cover the sub-account.
    expectProblem(await sub.request('POST', '/v1/virtual-accounts', { currency: 'EUR' }), 409, 'KYB_INCOMPLETE');
    await approveOnboarding(t.app, sub);
    const created = await requestAccount(sub, 'EUR');
    expect(created.accountId).toBe(subId);
    const [event] = await eventsOfType(c, 'virtual_account.');
    expect(event).toMatchObject({ type: 'virtual_account.active', accountId: subId, data: { id: created.id, accountId: subId } });
    // Without the header, the master's own accounts: not the sub-account's.
    expect(await list(c)).toEqual([]);
    const listed = await list(asSub(c, event!.data.accountId as string));
    expect(listed.map((a) => a.id)).toEqual([created.id]);
    expect(listed[0]!.accountHolderName).toBe('Shop Paris');
    // The master asks for its own EUR account separately.
    expect((await requestAccount(c, 'EUR')).id).not.toBe(created.id);
  });

  it('answers 403 not_account_owner for a sub-account of another workspace', async () => {
    const c = await receivingWorkspace(t.app);
    const other = await newWorkspace(t.app);
    const foreign = await createSubAccount(other, 'Elsewhere');
    expect((await asSub(c, foreign).request('GET', '/v1/virtual-accounts')).statusCode).toBe(403);
  });
});

describe('isolation, scopes and capabilities', () => {
  it('answers another workspace\'s virtual account 404', async () => {
    const a = await receivingWorkspace(t.app);
    const b = await receivingWorkspace(t.app);
    const account = await requestAccount(a, 'XOF');
    expectCode(await b.request('POST', `/v1/sandbox/virtual-accounts/${account.id}/approve`), 404, 'NOT_FOUND');
    expect(await list(b)).toEqual([]);
  });

  it('needs read|write:virtual_accounts and the virtual_accounts capability', async () => {
    const c = await newWorkspace(t.app, { scopes: ['read:virtual_accounts'] });
    expectProblem(await c.request('POST', '/v1/virtual-accounts', { currency: 'EUR' }), 403, 'METHOD_NOT_ENTITLED');
    expect((await c.request('GET', '/v1/virtual-accounts')).statusCode).toBe(200);
    const none = await newWorkspace(t.app, { scopes: ['read:payouts'] });
    expectProblem(await none.request('GET', '/v1/virtual-accounts'), 403, 'METHOD_NOT_ENTITLED');
    expectProblem(await none.request('GET', '/v1/virtual-accounts/requirements?currency=EUR'), 403, 'METHOD_NOT_ENTITLED');
    const off = await receivingWorkspace(t.app);
    expect((await operator(t.app, 'PUT', `/operator/v1/workspaces/${off.workspaceId}/capabilities/virtual_accounts`, { enabled: false })).statusCode).toBe(200);
    expectProblem(await off.request('POST', '/v1/virtual-accounts', { currency: 'EUR' }), 403, 'CAPABILITY_DISABLED');
  });
});

describe.runIf(onPostgres)('concurrency on PostgreSQL', () => {
  it('gives one account to 20 parallel identical requests', async () => {
    const c = await receivingWorkspace(t.app);
    const answers = await Promise.all(Array.from({ length: 20 }, () => c.request('POST', '/v1/virtual-accounts', { currency: 'GHS' })));
    const statuses = answers.map((r) => r.statusCode).sort();
    expect(statuses.filter((s) => s === 201)).toHaveLength(1);
    expect(statuses.filter((s) => s === 200)).toHaveLength(19);
    expect(new Set(answers.map((r) => r.json<{ id: string }>().id)).size).toBe(1);
    const [row] = await t.ctx.db.query<{ n: number }>("SELECT count(*)::int AS n FROM virtual_accounts WHERE workspace_id = $1 AND currency = 'GHS'", [c.workspaceId]);
    expect(row!.n).toBe(1);
  });
});

