import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, listeningTestApp, newWorkspace, operator, type Caller, type TestApp } from '../helpers/app.js';
import { ADA, fund, ref } from '../payouts/helpers.js';
import { addDocument, addPerson, BUSINESS, completeBusiness, createApplication, DIRECTOR, eventsOf, PNG, type ApplicationView } from './helpers.js';

let t: TestApp;
let acme: Caller;
let globex: Caller;

beforeAll(async () => {
  t = await createTestApp({ env: { SANDBOX_STEP_MS: '600000' } });
  acme = await newWorkspace(t.app, { name: 'Acme Ltd' });
  globex = await newWorkspace(t.app, { name: 'Globex Inc', country: 'US' });
});
afterAll(async () => t.close());

const SPEC_FIELDS = ['id', 'accountId', 'applicationType', 'createdAt', 'status', 'editableSections', 'moreInfoReason', 'registeredName', 'riskLevel', 'screeningStatus'];

async function subAccount(c: Caller): Promise<string> {
  const res = await c.request('POST', '/v1/accounts', { name: 'Sub One', country: 'GB' });
  expect(res.statusCode, res.body).toBe(201);
  return res.json<{ id: string }>().id;
}

describe('POST /v2/applications', () => {
  it('creates a business draft (201) with every response field of the spec', async () => {
    const a = await createApplication(acme);
    for (const field of SPEC_FIELDS) expect(a, field).toHaveProperty(field);
    expect(a).toMatchObject({
      accountId: acme.workspaceId,
      applicationType: 'business',
      status: 'draft',
      editableSections: [],
      moreInfoReason: null,
      registeredName: 'Acme Trading Ltd',
      riskLevel: null,
      screeningStatus: 'pending',
      hasIndirectControl: false,
      indirectControlDetails: null,
    });
    expect(Date.parse(a.createdAt)).not.toBeNaN();
  });

  it('accepts and ignores documents, and makes each create-time person a person under /persons', async () => {
    const a = await createApplication(acme, {
      ...BUSINESS,
      documents: [{ documentKey: 'anything', label: 'passport' }],
      persons: [DIRECTOR, { firstName: 'Charles', lastName: 'Babbage', ownershipPercentage: 40 }],
    });
    const persons = await acme.request('GET', `/v2/applications/${a.id}/persons`);
    expect(persons.json().data.map((p: { firstName: string }) => p.firstName)).toEqual(['Ada', 'Charles']);
    expect((await acme.request('GET', `/v2/applications/${a.id}/documents`)).json().data).toEqual([]);
  });

  it('refuses create-time persons whose ownership sums over 100, creating nothing', async () => {
    const before = (await acme.request('GET', '/v2/applications?limit=100')).json().data.length;
    const res = await acme.request('POST', '/v2/applications', { ...BUSINESS, persons: [DIRECTOR, { ...DIRECTOR, firstName: 'Bob', ownershipPercentage: 50 }] });
    expect(res.statusCode).toBe(400);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.json().errors[0].field).toBe('persons');
    expect((await acme.request('GET', '/v2/applications?limit=100')).json().data.length).toBe(before);
  });

  it('replays the first answer for a repeated Idempotency-Key, creating one application', async () => {
    const key = `kyb-${Date.now()}`;
    const first = await acme.request('POST', '/v2/applications', BUSINESS, { 'idempotency-key': key });
    const again = await acme.request('POST', '/v2/applications', BUSINESS, { 'idempotency-key': key });
    expect(first.statusCode).toBe(201);
    expect(again.statusCode).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.json().id).toBe(first.json().id);
    const reused = await acme.request('POST', '/v2/applications', { ...BUSINESS, companySize: 'large_corp' }, { 'idempotency-key': key });
    expect(reused.json().code).toBe('IDEMPOTENCY_KEY_REUSED');
  });

  it('makes the application the sub-account’s with Service-Account-Id, and hides it from other accounts', async () => {
    const sub = await subAccount(acme);
    const a = await createApplication(acme, BUSINESS, { 'service-account-id': sub });
    expect(a.accountId).toBe(sub);
    expect((await acme.request('GET', `/v2/applications/${a.id}`, undefined, { 'service-account-id': sub })).statusCode).toBe(200);
    expect((await acme.request('GET', `/v2/applications/${a.id}`)).statusCode).toBe(200); // roll-up
    const other = await subAccount(acme);
    expect((await acme.request('GET', `/v2/applications/${a.id}`, undefined, { 'service-account-id': other })).statusCode).toBe(404);
    const list = await acme.request('GET', '/v2/applications', undefined, { 'service-account-id': sub });
    expect(list.json().data.map((x: ApplicationView) => x.id)).toEqual([a.id]);
  });

  it('refuses business sections on an individual application, and a future date of birth', async () => {
    const res = await acme.request('POST', '/v2/applications', { applicationType: 'individual', businessInfo: { registeredName: 'X' } });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors.map((e: { field: string }) => e.field)).toEqual(['businessInfo']);
    const future = await acme.request('POST', '/v2/applications', { applicationType: 'individual', applicant: { applicantDateOfBirth: '2999-01-01' } });
    expect(future.statusCode).toBe(400);
    expect(future.json().errors[0].field).toBe('applicant.applicantDateOfBirth');
  });
});

describe('hasIndirectControl and indirectControlDetails', () => {
  it('requires details when true, on create', async () => {
    const res = await acme.request('POST', '/v2/applications', { ...BUSINESS, hasIndirectControl: true });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors).toEqual([expect.objectContaining({ field: 'indirectControlDetails' })]);
  });

  it('clears details when false, even when sent with them', async () => {
    const a = await createApplication(acme, { ...BUSINESS, hasIndirectControl: false, indirectControlDetails: 'A trust' });
    expect(a.indirectControlDetails).toBeNull();
  });

  it('judges the requirement on the application as it stands after the write', async () => {
    const a = await createApplication(acme, { ...BUSINESS, hasIndirectControl: true, indirectControlDetails: 'Held through Foo Trust' });
    expect(a.indirectControlDetails).toBe('Held through Foo Trust');
    // null clears under any answer: with true still standing, the result lacks the details.
    const cleared = await acme.request('PATCH', `/v2/applications/${a.id}`, { indirectControlDetails: null });
    expect(cleared.statusCode).toBe(400);
    expect(cleared.json().errors[0].field).toBe('indirectControlDetails');
    // Answering false clears the details.
    const no = await acme.request('PATCH', `/v2/applications/${a.id}`, { hasIndirectControl: false });
    expect(no.json()).toMatchObject({ hasIndirectControl: false, indirectControlDetails: null });
    // true again needs details, given in the same write.
    expect((await acme.request('PATCH', `/v2/applications/${a.id}`, { hasIndirectControl: true })).statusCode).toBe(400);
    const yes = await acme.request('PATCH', `/v2/applications/${a.id}`, { hasIndirectControl: true, indirectControlDetails: 'Bar Holdings' });
    expect(yes.json()).toMatchObject({ hasIndirectControl: true, indirectControlDetails: 'Bar Holdings' });
    // Unanswered: details may stand, and null clears them.
    const unanswered = await acme.request('PATCH', `/v2/applications/${a.id}`, { hasIndirectControl: null });
    expect(unanswered.json()).toMatchObject({ hasIndirectControl: null, indirectControlDetails: 'Bar Holdings' });
    const gone = await acme.request('PATCH', `/v2/applications/${a.id}`, { indirectControlDetails: null });
    expect(gone.json()).toMatchObject({ hasIndirectControl: null, indirectControlDetails: null });
  });
});

describe('PATCH /v2/applications/{id}', () => {
  it('edits by section: absent keeps, null clears a field, a null section is cleared', async () => {
    const a = await createApplication(acme, { ...BUSINESS, businessActivity: { industry: 'Retail', description: 'Shops' } });
    const res = await acme.request('PATCH', `/v2/applications/${a.id}`, { businessInfo: { tradingName: 'Acme', registrationNumber: null }, businessActivity: null });
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    expect(body.businessInfo).toMatchObject({ registeredName: 'Acme Trading Ltd', tradingName: 'Acme' });
    expect(body.businessInfo).not.toHaveProperty('registrationNumber');
    expect(body.businessActivity).toBeNull();
  });

  it('answers 404 for another workspace’s application', async () => {
    const a = await createApplication(acme);
    expect((await globex.request('GET', `/v2/applications/${a.id}`)).statusCode).toBe(404);
    expect((await globex.request('PATCH', `/v2/applications/${a.id}`, { companySize: 'sme' })).statusCode).toBe(404);
    expect((await globex.request('GET', `/v2/applications/${a.id}/persons`)).statusCode).toBe(404);
    expect((await globex.request('POST', `/v2/applications/${a.id}/submit`)).statusCode).toBe(404);
  });
});

describe('persons', () => {
  it('creates, reads, edits and deletes a person; government ids are never shown back', async () => {
    const a = await createApplication(acme);
    const id = await addPerson(acme, a.id, { ...DIRECTOR, bvn: '12345678901' });
    const got = await acme.request('GET', `/v2/applications/${a.id}/persons/${id}`);
    expect(got.json()).toMatchObject({ id, applicationId: a.id, firstName: 'Ada', dateOfBirth: '1985-12-10', nationalIdProvided: true, bvnProvided: true, taxIdProvided: false });
    expect(got.json()).not.toHaveProperty('nationalId');
    expect(got.json()).not.toHaveProperty('bvn');
    const patched = await acme.request('PATCH', `/v2/applications/${a.id}/persons/${id}`, { title: null, middleName: 'King' });
    expect(patched.json()).toMatchObject({ middleName: 'King' });
    expect(patched.json()).not.toHaveProperty('title');
    expect((await acme.request('DELETE', `/v2/applications/${a.id}/persons/${id}`)).statusCode).toBe(204);
    expect((await acme.request('GET', `/v2/applications/${a.id}/persons/${id}`)).statusCode).toBe(404);
  });

  it('bounds the fields: names, past dates YYYY-MM-DD, ISO countries, ownership 0–100 and its sum', async () => {
    const a = await createApplication(acme);
    const cases: [Record<string, unknown>, string][] = [
      [{ ...DIRECTOR, firstName: '' }, 'firstName'],
      [{ ...DIRECTOR, lastName: 'x'.repeat(101) }, 'lastName'],
      [{ ...DIRECTOR, dateOfBirth: '10/12/1985' }, 'dateOfBirth'],
      [{ ...DIRECTOR, dateOfBirth: '2999-01-01' }, 'dateOfBirth'],
      [{ ...DIRECTOR, dateOfBirth: '1985-02-30' }, 'dateOfBirth'],
      [{ ...DIRECTOR, nationality: 'gbr' }, 'nationality'],
      [{ ...DIRECTOR, ownershipPercentage: 101 }, 'ownershipPercentage'],
      [{ ...DIRECTOR, ownershipPercentage: -1 }, 'ownershipPercentage'],
      [{ ...DIRECTOR, residentialAddress: { street: '1 Road', city: 'Lagos', country: 'Nigeria' } }, 'residentialAddress.country'],
      [{ ...DIRECTOR, bvn: '123' }, 'bvn'],
    ];
    for (const [body, field] of cases) {
      const res = await acme.request('POST', `/v2/applications/${a.id}/persons`, body);
      expect(res.statusCode, `${field}: ${res.body}`).toBe(400);
      expect(res.json().errors.map((e: { field: string }) => e.field)).toContain(field);
    }
    await addPerson(acme, a.id, { ...DIRECTOR, ownershipPercentage: 70 });
    const over = await acme.request('POST', `/v2/applications/${a.id}/persons`, { ...DIRECTOR, ownershipPercentage: 31 });
    expect(over.statusCode).toBe(400);
    expect(over.json().errors[0].field).toBe('ownershipPercentage');
    expect((await acme.request('POST', `/v2/applications/${a.id}/persons`, { ...DIRECTOR, ownershipPercentage: 30 })).statusCode).toBe(201);
  });

  it('refuses persons on an individual application (409)', async () => {
    const a = await createApplication(acme, { applicationType: 'individual' });
    expect((await acme.request('POST', `/v2/applications/${a.id}/persons`, DIRECTOR)).statusCode).toBe(409);
  });
});

describe('terms', () => {
  it('answers the current terms and counts only the current version', async () => {
    const terms = await acme.request('GET', '/v2/terms');
    expect(terms.json()).toEqual({ version: '1', url: expect.stringMatching(/^https?:\/\//) });
    const a = await createApplication(acme);
    const old = await acme.request('POST', `/v2/applications/${a.id}/terms-acceptance`, { version: '0' });
    expect(old.statusCode).toBe(400);
    expect(old.json().code).toBe('VALIDATION_ERROR');
    expect(old.json().errors[0]).toMatchObject({ field: 'version', code: 'TERMS_VERSION_NOT_CURRENT' });
    const ok = await acme.request('POST', `/v2/applications/${a.id}/terms-acceptance`, { version: '1' });
    expect(ok.json()).toMatchObject({ termsAcceptedVersion: '1' });
  });

  it('serves the terms at the URL it answers: the shipped default, or the operator\'s CORRIDOR_TERMS_FILE', async () => {
    const listening = await listeningTestApp();
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'corridor-terms-'));
    const file = path.join(dir, 'terms.html');
    fs.writeFileSync(file, '<!doctype html><title>Acme Payments terms</title><p>Our own terms, clause 1.</p>');
    const own = await createTestApp({ env: { CORRIDOR_TERMS_FILE: file, CORRIDOR_TERMS_VERSION: '2024-06' } });
    try {
      const c = await newWorkspace(listening.app);
      const { url } = (await c.request('GET', '/v2/terms')).json<{ url: string }>();
      const res = await fetch(url);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^text\/html/);
      const text = await res.text();
      expect(text).toMatch(/Terms/);
      expect(text).toContain('version 1');
      expect((await fetch(url.replace(/\/1$/, '/0'))).status).toBe(404);

      const o = await newWorkspace(own.app);
      const ownTerms = (await o.request('GET', '/v2/terms')).json<{ version: string; url: string }>();
      expect(ownTerms.version).toBe('2024-06');
      const served = await own.app.inject({ method: 'GET', url: new URL(ownTerms.url).pathname });
      expect(served.statusCode).toBe(200);
      expect(served.body).toBe(fs.readFileSync(file, 'utf8'));
    } finally {
      await listening.close();
      await own.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 180_000); // two applications of its own start in it: slow on a loaded machine
});

describe('POST /v2/applications/{id}/submit', () => {
  it('answers 422 listing every missing item of a business application, and leaves it a draft', async () => {
    const a = await createApplication(acme, { applicationType: 'business', businessInfo: { registeredName: 'Half Done Ltd' } });
    const res = await acme.request('POST', `/v2/applications/${a.id}/submit`);
    expect(res.statusCode).toBe(422);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.json()).toMatchObject({ code: 'APPLICATION_INCOMPLETE', status: 422 });
    expect(res.json().errors.map((e: { field: string }) => e.field)).toEqual([
      'businessInfo.registrationNumber',
      'businessInfo.country',
      'persons',
      'documents.certificate_of_incorporation',
      'hasIndirectControl',
      'termsAcceptance',
    ]);
    const withPerson = await addPerson(acme, a.id, { firstName: 'No', lastName: 'Papers' });
    const again = await acme.request('POST', `/v2/applications/${a.id}/submit`);
    expect(again.json().errors.map((e: { field: string }) => e.field)).toEqual(
      expect.arrayContaining([`persons.${withPerson}.dateOfBirth`, `persons.${withPerson}.nationality`, `persons.${withPerson}.documents.photo_id`]),
    );
    expect((await acme.request('GET', `/v2/applications/${a.id}`)).json().status).toBe('draft');
    expect(await eventsOf(acme, a.id)).toEqual([]);
  });

  it('answers 422 listing what an individual application lacks', async () => {
    const a = await createApplication(acme, { applicationType: 'individual', applicant: { applicantFirstName: 'Grace' } });
    const res = await acme.request('POST', `/v2/applications/${a.id}/submit`);
    expect(res.json().errors.map((e: { field: string }) => e.field)).toEqual([
      'applicant.applicantLastName',
      'applicant.applicantDateOfBirth',
      'applicant.applicantNationality',
      'documents.photo_id',
      'individualActivity.applicantSourceOfFunds',
      'termsAcceptance',
    ]);
  });

  it('submits a complete individual application', async () => {
    const a = await createApplication(acme, {
      applicationType: 'individual',
      applicant: { applicantFirstName: 'Grace', applicantLastName: 'Hopper', applicantDateOfBirth: '1980-01-02', applicantNationality: 'US', applicantNationalId: '123-45-6789' },
      individualActivity: { applicantSourceOfFunds: ['salary'] },
    });
    await addDocument(t.app, acme, a.id, 'photo_id', undefined, { bytes: PNG, contentType: 'image/png' });
    await acme.request('POST', `/v2/applications/${a.id}/terms-acceptance`, { version: '1' });
    const res = await acme.request('POST', `/v2/applications/${a.id}/submit`);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ status: 'under_review', registeredName: null, screeningStatus: 'clear', riskLevel: 'low' });
    expect(res.json().applicant).toMatchObject({ applicantNationalIdProvided: true });
    expect(res.json().applicant).not.toHaveProperty('applicantNationalId');
  });
});

describe('review', () => {
  it("takes a person's document when the reviewer reopened the documents (a director's passport asked for), and still refuses the company's details", async () => {
    const { application: a, personId } = await completeBusiness(t.app, acme);
    expect((await acme.request('POST', `/v2/applications/${a.id}/submit`)).statusCode).toBe(200);
    const info = await acme.request('POST', `/v1/sandbox/applications/${a.id}/review`, { decision: 'request_info', reason: "The director's passport is expired", editableSections: ['documents'] });
    expect(info.statusCode, info.body).toBe(200);
    await addDocument(t.app, acme, a.id, 'photo_id', personId, { bytes: PNG, contentType: 'image/png' });
    await addDocument(t.app, acme, a.id, 'bank_statement');
    expect((await acme.request('PATCH', `/v2/applications/${a.id}/persons/${personId}`, { middleName: 'Byron' })).json().code).toBe('APPLICATION_SECTION_LOCKED');
    expect((await acme.request('POST', `/v2/applications/${a.id}/submit`)).json()).toMatchObject({ status: 'under_review' });
  });

  it('runs draft → under_review → more_info_requested → under_review → approved with an event at each move', async () => {
    const { application: a, personId } = await completeBusiness(t.app, acme);
    const submitted = await acme.request('POST', `/v2/applications/${a.id}/submit`);
    expect(submitted.json()).toMatchObject({ status: 'under_review', editableSections: [], moreInfoReason: null });
    // Nothing is editable under review.
    expect((await acme.request('PATCH', `/v2/applications/${a.id}`, { companySize: 'large_corp' })).json().code).toBe('APPLICATION_NOT_EDITABLE');
    expect((await acme.request('POST', `/v2/applications/${a.id}/persons`, DIRECTOR)).statusCode).toBe(409);
    expect((await acme.request('POST', `/v2/applications/${a.id}/submit`)).statusCode).toBe(409);

    const info = await acme.request('POST', `/v1/sandbox/applications/${a.id}/review`, { decision: 'request_info', reason: 'Proof of address needed', editableSections: ['businessActivity', 'persons'] });
    expect(info.statusCode, info.body).toBe(200);
    expect(info.json()).toMatchObject({ status: 'more_info_requested', moreInfoReason: 'Proof of address needed', editableSections: ['businessActivity', 'persons'] });
    // Only the reopened sections may change.
    const locked = await acme.request('PATCH', `/v2/applications/${a.id}`, { businessInfo: { tradingName: 'X' } });
    expect(locked.statusCode).toBe(409);
    expect(locked.json().code).toBe('APPLICATION_SECTION_LOCKED');
    expect((await acme.request('PATCH', `/v2/applications/${a.id}`, { hasIndirectControl: true, indirectControlDetails: 'x' })).statusCode).toBe(409);
    expect((await acme.request('PATCH', `/v2/applications/${a.id}`, { businessActivity: { industry: 'Retail' } })).statusCode).toBe(200);
    expect((await acme.request('PATCH', `/v2/applications/${a.id}/persons/${personId}`, { middleName: 'Byron' })).statusCode).toBe(200);
    // A company-level document is the `documents` section, not reopened; a person's is.
    await addDocument(t.app, acme, a.id, 'proof_of_address', personId);
    const issued = await acme.request('POST', `/v2/applications/${a.id}/documents/upload-url`, { contentType: 'application/pdf', contentLength: 10 });
    expect(issued.statusCode).toBe(201);

    const resubmitted = await acme.request('POST', `/v2/applications/${a.id}/submit`);
    expect(resubmitted.json()).toMatchObject({ status: 'under_review', editableSections: [], moreInfoReason: null });
    const approved = await operator(t.app, 'POST', `/operator/v1/applications/${a.id}/review`, { decision: 'approve' });
    expect(approved.statusCode, approved.body).toBe(200);
    expect(approved.json().status).toBe('approved');
    expect((await acme.request('PATCH', `/v2/applications/${a.id}`, { businessActivity: { industry: 'Food' } })).statusCode).toBe(409);
    expect((await operator(t.app, 'POST', `/operator/v1/applications/${a.id}/review`, { decision: 'reject' })).statusCode).toBe(409);

    const events = await eventsOf(acme, a.id);
    expect(events.map((e) => e.type)).toEqual(['application.under_review', 'application.more_info_requested', 'application.under_review', 'application.approved']);
    expect(events[1]?.data).toMatchObject({ status: 'more_info_requested', moreInfoReason: 'Proof of address needed', editableSections: ['businessActivity', 'persons'] });
    for (const e of events) expect(Object.keys(e.data).sort()).toEqual([...SPEC_FIELDS].sort());
    // The operator's call is in the audit log.
    const audit = await operator(t.app, 'GET', '/operator/v1/audit-log?limit=100');
    expect(audit.json().data.some((x: { path: string }) => x.path === `/operator/v1/applications/${a.id}/review`)).toBe(true);
  });

  it('rejects with application.rejected, and needs a reason to request info', async () => {
    const { application: a } = await completeBusiness(t.app, acme);
    await acme.request('POST', `/v2/applications/${a.id}/submit`);
    const noReason = await acme.request('POST', `/v1/sandbox/applications/${a.id}/review`, { decision: 'request_info' });
    expect(noReason.statusCode).toBe(400);
    const foreign = await acme.request('POST', `/v1/sandbox/applications/${a.id}/review`, { decision: 'request_info', reason: 'x', editableSections: ['individualActivity'] });
    expect(foreign.statusCode).toBe(400);
    const rejected = await acme.request('POST', `/v1/sandbox/applications/${a.id}/review`, { decision: 'reject', reason: 'Out of appetite' });
    expect(rejected.json()).toMatchObject({ status: 'rejected', moreInfoReason: null });
    expect((await eventsOf(acme, a.id)).map((e) => e.type)).toEqual(['application.under_review', 'application.rejected']);
    expect((await globex.request('POST', `/v1/sandbox/applications/${a.id}/review`, { decision: 'approve' })).statusCode).toBe(404);
  });

  it('simulates screening deterministically in the sandbox, and lets the operator set it', async () => {
    for (const [name, screeningStatus, riskLevel] of [
      ['Flagged Imports Ltd', 'flagged', 'high'],
      ['High Risk Ventures', 'clear', 'high'],
      ['Medium Risk Co', 'clear', 'medium'],
      ['Plain Co', 'clear', 'low'],
    ]) {
      const { application: a } = await completeBusiness(t.app, acme, { ...BUSINESS, businessInfo: { ...BUSINESS.businessInfo, registeredName: name } });
      const res = await acme.request('POST', `/v2/applications/${a.id}/submit`);
      expect(res.json(), name).toMatchObject({ screeningStatus, riskLevel });
      expect((await eventsOf(acme, a.id))[0]?.data, name).toMatchObject({ status: 'under_review', screeningStatus, riskLevel });
    }
    const a = await createApplication(acme);
    const set = await operator(t.app, 'PUT', `/operator/v1/applications/${a.id}/screening`, { screeningStatus: 'in_progress', riskLevel: 'medium' });
    expect(set.json()).toMatchObject({ screeningStatus: 'in_progress', riskLevel: 'medium' });
    const listed = await operator(t.app, 'GET', `/operator/v1/applications?workspaceId=${acme.workspaceId}&status=draft`);
    expect(listed.json().data.some((x: ApplicationView) => x.id === a.id)).toBe(true);
  });
});

describe('what approval changes', () => {
  it('makes the approved business the originator on record: payouts without senderInfo are accepted', async () => {
    const w = await newWorkspace(t.app, { name: 'Fresh Ltd' });
    await fund(w, 'EUR', '100');
    const before = await w.request('POST', '/v1/payouts', { clientRef: ref(), amount: '1.00', currency: 'EUR', beneficiary: ADA });
    expect(before.json().details[0].code).toBe('ORIGINATOR_NOT_ON_RECORD');
    const { application: a } = await completeBusiness(t.app, w);
    await w.request('POST', `/v2/applications/${a.id}/submit`);
    await w.request('POST', `/v1/sandbox/applications/${a.id}/review`, { decision: 'approve' });
    const after = await w.request('POST', '/v1/payouts', { clientRef: ref(), amount: '1.00', currency: 'EUR', beneficiary: ADA });
    expect(after.statusCode, after.body).toBe(201);
    const ws = await operator(t.app, 'GET', `/operator/v1/workspaces/${w.workspaceId}`);
    expect(ws.json().settings.businessIdentity).toMatchObject({ companyName: 'Acme Trading Ltd', registrationNumber: '12345678', country: 'GB', city: 'London' });
  });

  it("makes a sub-account's approved business its own originator on record, not its siblings'", async () => {
    const w = await newWorkspace(t.app, { name: 'Parent Ltd' });
    const sub = await subAccount(w);
    const sibling = await subAccount(w);
    const as = (id: string): Caller => ({ ...w, request: (method, url, body, headers = {}) => w.request(method, url, body, { ...headers, 'service-account-id': id }) });
    const [asSub, asSibling] = [as(sub), as(sibling)];
    const payout = (c: Caller) => c.request('POST', '/v1/payouts', { clientRef: ref(), amount: '1.00', currency: 'EUR', beneficiary: ADA });
    expect((await payout(asSub)).json().details[0].code).toBe('ORIGINATOR_NOT_ON_RECORD');
    const { application: a } = await completeBusiness(t.app, asSub);
    expect((await asSub.request('POST', `/v2/applications/${a.id}/submit`)).statusCode).toBe(200);
    expect((await asSub.request('POST', `/v1/sandbox/applications/${a.id}/review`, { decision: 'approve' })).statusCode).toBe(200);
    // Past the originator check: the sub-account's balance is what refuses it now.
    const after = await payout(asSub);
    expect(after.json().details?.[0]?.code).not.toBe('ORIGINATOR_NOT_ON_RECORD');
    expect(after.json().message).toBe('INSUFFICIENT_BALANCE');
    expect((await payout(asSibling)).json().details[0].code).toBe('ORIGINATOR_NOT_ON_RECORD');
    expect((await payout(w)).json().details[0].code).toBe('ORIGINATOR_NOT_ON_RECORD');
  });
});

describe('access and privacy', () => {
  it('needs read:applications / write:applications and the applications capability', async () => {
    const reader = await newWorkspace(t.app, { scopes: ['read:applications'] });
    expect((await reader.request('GET', '/v2/applications')).statusCode).toBe(200);
    const refused = await reader.request('POST', '/v2/applications', BUSINESS);
    expect(refused.statusCode).toBe(403);
    expect(refused.json().code).toBe('METHOD_NOT_ENTITLED');
    const none = await newWorkspace(t.app, { scopes: ['read:payouts'] });
    expect((await none.request('GET', '/v2/applications')).json().code).toBe('METHOD_NOT_ENTITLED');
    const off = await newWorkspace(t.app);
    await operator(t.app, 'PUT', `/operator/v1/workspaces/${off.workspaceId}/capabilities/applications`, { enabled: false });
    const disabled = await off.request('POST', '/v2/applications', BUSINESS);
    expect(disabled.statusCode).toBe(403);
    expect(disabled.json().code).toBe('CAPABILITY_DISABLED');
    expect((await off.request('GET', '/v2/applications')).json().code).toBe('CAPABILITY_DISABLED');
  });

  it('keeps personal data encrypted at rest', async () => {
    const a = await createApplication(acme, {
      applicationType: 'individual',
      applicant: { applicantFirstName: 'Secret', applicantLastName: 'Person', applicantDateOfBirth: '1971-03-04', applicantNationalId: 'NID-998877' },
    });
    const b = await createApplication(acme, { ...BUSINESS, businessInfo: { ...BUSINESS.businessInfo, taxId: 'TAX-5544' }, persons: [{ ...DIRECTOR, bvn: '22233344455', taxId: 'PTX-1' }] });
    const rows = await t.ctx.db.query<{ data: string }>(
      `SELECT data FROM applications WHERE id = ANY($1::uuid[]) UNION ALL SELECT data FROM application_persons WHERE application_id = $2`,
      [[a.id, b.id], b.id],
    );
    expect(rows.length).toBe(3);
    for (const { data } of rows) {
      for (const secret of ['NID-998877', '1971-03-04', 'TAX-5544', '22233344455', 'PTX-1', 'AB123456C', '1985-12-10', 'Secret']) expect(data).not.toContain(secret);
    }
  });
});
