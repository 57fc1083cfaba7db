import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type, type Static } from 'typebox';
import type { FieldError } from '../../platform/lib/errors.js';
import { IdParams } from '../../platform/lib/schemas.js';
import { checkBody } from '../web/body-check.js';
import { copyable, facts, field, fileField, link, notice, postForm, section, select, status, table, textarea, when, words, pageNav, pagePosition, pageRequest } from '../web/components.js';
import { attempt, changeOnce, formCountry, formOptional, formText, type Refusal } from '../web/forms.js';
import { html, type Html } from '../../platform/lib/html.js';
import { formFile } from '../web/multipart.js';
import { sendPage, seeOther, type Web } from '../web/web.js';
import { CreateApplicationBody, PersonBody } from '../../domains/applications/applications.schemas.js';
import { acceptTerms, applicationWithGaps, createApplication, listApplications, submitApplication, type ApplicationView } from '../../domains/applications/applications.service.js';
import { DOCUMENT_TYPES } from '../../domains/applications/applications.transitions.js';
import { deleteDocument, issueDocumentUpload, listDocuments, registerDocument } from '../../domains/applications/documents.service.js';
import { createPerson, deletePerson, listPersons } from '../../domains/applications/persons.service.js';
import type { Storage } from '../../platform/storage/storage.js';
import { UPLOAD_CONTENT_TYPES } from '../../platform/storage/uploads.service.js';
import { actingAccount, rightPage, canChange, dashboardUser, memberPage } from './caller.js';
import { storeSignedUpload } from './uploads.js';

type DocumentType = (typeof DOCUMENT_TYPES)[number];
const byId = { ...rightPage('workspace'), schema: { hide: true, params: IdParams } };
const ItemParams = Type.Object({ id: IdParams.properties.id, itemId: IdParams.properties.id });

/** Only these can still be completed and submitted, so only these have anything "missing". */
const OPEN_STATUSES: readonly string[] = ['draft', 'more_info_requested'];

/** The decisions of a sandbox review (POST /v1/sandbox/applications/:id/review, answered in sandbox.pages.ts). */
export const REVIEW_DECISIONS = [
  { value: 'approve', label: 'Approve' },
  { value: 'reject', label: 'Reject' },
  { value: 'request_info', label: 'Ask for more information' },
] as const;

function missingList(missing: readonly FieldError[]): Html {
  if (missing.length === 0) return notice('success', 'Nothing is missing: the application can be submitted.');
  return html`<p><strong>Missing before it can be submitted (${missing.length}):</strong></p>
<ul class="missing">${missing.map((m) => html`<li><code>${m.field}</code>: ${m.message}</li>`)}</ul>`;
}

function reviewerRequest(a: ApplicationView): Html {
  if (a.status !== 'more_info_requested') return html``;
  return notice(
    'info',
    html`<p><strong>The reviewer asked:</strong> ${a.moreInfoReason ?? ''}</p><p>Sections open for changes: ${a.editableSections.join(', ') || 'none'}</p>`,
  );
}

/** The sandbox's stand-in for the reviewer, on an application waiting for review. */
function sandboxReview(web: Web, req: FastifyRequest, a: ApplicationView): Html {
  if (!web.sandbox || a.status !== 'under_review' || dashboardUser(req).role !== 'admin') return html``;
  return postForm(
    { action: `/dashboard/sandbox/applications/${a.id}/review`, csrf: req.web.csrf, submit: 'Sandbox: record this review' },
    select({ label: 'Decision', name: 'decision', options: REVIEW_DECISIONS }),
    textarea({ label: 'Reason (required to ask for more information)', name: 'reason', rows: 2 }),
  );
}

/** A refusal of a change, and the application it was about (undefined: the start form's). */
type Refused = { id: string | undefined; refusal: Refusal };

async function applicationCard(web: Web, req: FastifyRequest, a: ApplicationView, refused: Refused | undefined): Promise<Html> {
  const missing = OPEN_STATUSES.includes(a.status)
    ? missingList((await applicationWithGaps(web.ctx, web.ctx.db, actingAccount(req), a.id)).missing)
    : html``;
  return html`<section aria-label="Application ${a.id}"><h2>${a.applicationType === 'business' ? 'Business' : 'Individual'} application ${status(a.status)}</h2>
${facts([
  ['Registered name', a.registeredName],
  ['Application', copyable(a.id)],
  ['Created', when(a.createdAt)],
  ['Submitted', when(a.submittedAt)],
  ['Decided', when(a.decidedAt)],
  ['Screening', a.screeningStatus],
  ['Risk level', a.riskLevel],
  ['Terms accepted', a.termsAcceptedVersion ? `version ${a.termsAcceptedVersion}` : null],
])}
${reviewerRequest(a)}
${await addedLists(web, req, a)}
${missing}
${OPEN_STATUSES.includes(a.status) && canChange(req, 'workspace') ? await fillForms(web, req, a, refused?.id === a.id ? refused.refusal : undefined) : ''}
${sandboxReview(web, req, a)}</section>`;
}

type Person = { id: string; firstName?: string; lastName?: string; title?: string; ownershipPercentage?: number };
const personName = (p: Person | undefined) => (p ? `${p.firstName ?? ''} ${p.lastName ?? ''}`.trim() : 'The company');

/**
 * What the application holds so far: its persons and its documents, each with Remove while the
 * application is open to changes (the service says which sections are; a locked one answers why).
 */
async function addedLists(web: Web, req: FastifyRequest, a: ApplicationView): Promise<Html> {
  const scope = actingAccount(req);
  const persons = (await listPersons(web.ctx, web.ctx.db, scope, a.id)).data as Person[];
  const documents = (await listDocuments(web.ctx.db, scope, a.id)).data;
  const removable = OPEN_STATUSES.includes(a.status) && canChange(req, 'workspace');
  const base = `/dashboard/onboarding/${a.id}`;
  const remove = (action: string, what: string) => postForm({ action, csrf: req.web.csrf, submit: 'Remove', inline: true, confirm: `Remove ${what} from the application?` });
  return html`${a.applicationType === 'business' ? html`<h3>Persons (${persons.length})</h3>${table('The persons of this application', [
    { label: 'Name', cell: (p: Person) => personName(p) },
    { label: 'Title', cell: (p) => p.title ?? '' },
    { label: 'Ownership', numeric: true, cell: (p) => (p.ownershipPercentage === undefined ? '' : `${p.ownershipPercentage} %`) },
    ...(removable ? [{ label: 'Remove', cell: (p: Person) => remove(`${base}/persons/${p.id}/remove`, `${personName(p)} and their documents`) }] : []),
  ], persons, 'No person added yet.')}` : ''}
<h3>Documents (${documents.length})</h3>${table('The documents of this application', [
    { label: 'Type', cell: (d: (typeof documents)[number]) => words(d.type) },
    { label: 'Whose', cell: (d) => personName(persons.find((p) => p.id === d.personId)) },
    { label: 'File', cell: (d) => `${d.contentType}, ${d.sizeBytes} bytes` },
    { label: 'Added', cell: (d) => when(d.createdAt) },
    ...(removable ? [{ label: 'Remove', cell: (d: (typeof documents)[number]) => remove(`${base}/documents/${d.id}/remove`, `this ${words(d.type).toLowerCase()}`) }] : []),
  ], documents, 'No document added yet.')}`;
}

/** The forms that complete an open application: a person, a document (uploaded through the same signed URL), the terms, submit. */
async function fillForms(web: Web, req: FastifyRequest, a: ApplicationView, refusal: Refusal | undefined): Promise<Html> {
  const persons = await listPersons(web.ctx, web.ctx.db, actingAccount(req), a.id);
  const errors = refusal?.fields ?? {};
  const base = `/dashboard/onboarding/${a.id}`;
  const personOptions = [{ value: '', label: 'The company' }, ...(persons.data as { id: string; firstName?: string; lastName?: string }[]).map((p) => ({ value: p.id, label: `${p.firstName ?? ''} ${p.lastName ?? ''}`.trim() }))];
  return html`${refusal ? notice('error', refusal.message) : ''}
<details${refusal ? html` open` : ''}><summary>Complete this application</summary>
<h3>Add a person</h3>
${postForm(
  { action: `${base}/persons`, csrf: req.web.csrf, submit: 'Add the person' },
  field({ label: 'First name', name: 'firstName', required: true, error: errors.firstName }),
  field({ label: 'Last name', name: 'lastName', required: true, error: errors.lastName }),
  field({ label: 'Date of birth', name: 'dateOfBirth', type: 'date', error: errors.dateOfBirth }),
  field({ label: 'Nationality', name: 'nationality', help: 'Two letters, such as GB', error: errors.nationality }),
  field({ label: 'Title', name: 'title', help: 'Such as Director', error: errors.title }),
  field({ label: 'Ownership %', name: 'ownershipPercentage', inputmode: 'decimal', error: errors.ownershipPercentage }),
)}
<h3>Upload a document</h3>
${postForm(
  { action: `${base}/documents`, csrf: req.web.csrf, submit: 'Upload the document', files: true },
  select({ label: 'Document type', name: 'type', options: DOCUMENT_TYPES.map((t) => ({ value: t, label: words(t) })), help: errors.type }),
  select({ label: 'Whose document', name: 'personId', options: personOptions, help: errors.personId }),
  fileField({ label: 'Document file', name: 'file', accept: UPLOAD_CONTENT_TYPES.join(','), required: true, help: 'A PDF, JPEG or PNG file', error: errors.file }),
)}
<h3>Terms and submission</h3>
<p>${link(`/terms/${encodeURIComponent(web.ctx.config.termsVersion)}`, `The terms of service, version ${web.ctx.config.termsVersion}`)}</p>
<div class="actions">${a.termsAcceptedVersion === web.ctx.config.termsVersion ? html`<span>Terms accepted.</span>` : postForm({ action: `${base}/terms`, csrf: req.web.csrf, submit: `Accept the terms (version ${web.ctx.config.termsVersion})`, inline: true })}
${postForm({ action: `${base}/submit`, csrf: req.web.csrf, submit: 'Submit the application', inline: true, confirm: 'Submit this application for review?' })}</div>
</details>`;
}

/** A business application's first form: the same body as POST /v2/applications. */
function startForm(req: FastifyRequest, refusal: Refusal | undefined): Html {
  const errors = refusal?.fields ?? {};
  const typed = (req.method === 'POST' && req.url === '/dashboard/onboarding/applications' ? req.body : {}) as Record<string, string | undefined>;
  const err = (name: string) => errors[`businessInfo.${name}`] ?? errors[name];
  return section(
    'Start a business application',
    refusal ? notice('error', refusal.message) : '',
    postForm(
      { action: '/dashboard/onboarding/applications', csrf: req.web.csrf, submit: 'Start the application' },
      field({ label: 'Registered name', name: 'registeredName', required: true, value: typed.registeredName, error: err('registeredName') }),
      field({ label: 'Registration number', name: 'registrationNumber', value: typed.registrationNumber, error: err('registrationNumber') }),
      field({ label: 'Country of registration', name: 'country', required: true, value: typed.country, help: 'Two letters, such as GB', error: err('country') }),
      field({ label: 'Street', name: 'street', value: typed.street, error: err('address.street') }),
      field({ label: 'City', name: 'city', value: typed.city, error: err('address.city') }),
      field({ label: 'Postal code', name: 'postalCode', value: typed.postalCode, error: err('address.postalCode') }),
      select({ label: 'Company size', name: 'companySize', options: [{ value: 'sme', label: 'Small or medium' }, { value: 'large_corp', label: 'Large company' }, { value: 'licensed_fi', label: 'Licensed financial institution' }], value: typed.companySize }),
    ),
  );
}

/** Onboarding: the workspace's applications (v2), what each still lacks, what the reviewer asked for, and the forms to complete and submit one. */
export function onboardingPages(app: FastifyInstance, web: Web, storage: Storage): void {
  const { ctx } = web;
  const page = async (req: FastifyRequest, reply: FastifyReply, refused?: Refused) => {
    const at = pagePosition((req.query ?? {}) as Record<string, unknown>);
    const list = await listApplications(ctx, ctx.db, actingAccount(req), pageRequest(at));
    const cards: Html[] = [];
    for (const a of list.data) cards.push(await applicationCard(web, req, a, refused));
    const open = list.data.some((a) => OPEN_STATUSES.includes(a.status) || a.status === 'under_review' || a.status === 'approved');
    const body = html`<p class="help">The same application as the API's (/v2/applications): fill it in here or there, and see where it stands.</p>
${cards.length ? cards : html`<p class="empty">No application yet.</p>`}
${canChange(req, 'workspace') && !open ? startForm(req, refused && refused.id === undefined ? refused.refusal : undefined) : ''}
${pageNav('/dashboard/onboarding', {}, at, list)}`;
    return sendPage(web, req, reply, { title: 'Onboarding', body, status: refused?.refusal.status });
  };

  /** A change to an application, once per rendered form; then the page, or the page with the refusal beside that application. */
  const change = async (req: FastifyRequest, reply: FastifyReply, id: string | undefined, work: (tx: Parameters<Parameters<typeof changeOnce>[2]>[0]) => Promise<unknown>) => {
    const result = await attempt(() => changeOnce(ctx, req, async (tx) => (await work(tx), '/dashboard/onboarding')));
    if ('refused' in result) return page(req, reply, { id, refusal: result.refused });
    return seeOther(reply, result.done);
  };

  app.get('/dashboard/onboarding', memberPage, async (req, reply) => page(req, reply));

  app.post('/dashboard/onboarding/applications', rightPage('workspace'), async (req, reply) =>
    change(req, reply, undefined, async (tx) => {
      const address = Object.fromEntries((['street', 'city', 'postalCode'] as const).flatMap((k) => (formOptional(req, k, 300) ? [[k, formOptional(req, k, 300)]] : [])));
      const country = formCountry(req, 'country');
      const body = checkBody<Static<typeof CreateApplicationBody>>(CreateApplicationBody, {
        applicationType: 'business',
        companySize: formOptional(req, 'companySize', 20),
        businessInfo: { registeredName: formOptional(req, 'registeredName', 300), ...(formOptional(req, 'registrationNumber', 200) ? { registrationNumber: formOptional(req, 'registrationNumber', 200) } : {}), ...(country ? { country } : {}), ...(Object.keys(address).length ? { address: { ...address, ...(country ? { country } : {}) } } : {}) },
        hasIndirectControl: false,
      });
      await createApplication(ctx, tx, actingAccount(req), body as never);
    }),
  );

  app.post<{ Params: { id: string } }>('/dashboard/onboarding/:id/persons', byId, async (req, reply) =>
    change(req, reply, req.params.id, async (tx) => {
      const fields: Record<string, unknown> = {};
      for (const k of ['firstName', 'lastName', 'dateOfBirth', 'title'] as const) if (formOptional(req, k, 300)) fields[k] = formOptional(req, k, 300);
      const nationality = formCountry(req, 'nationality');
      if (nationality) fields.nationality = nationality;
      const share = formOptional(req, 'ownershipPercentage', 20);
      if (share !== undefined) fields.ownershipPercentage = /^\d+(\.\d+)?$/.test(share) ? Number(share) : share;
      await createPerson(ctx, tx, actingAccount(req), req.params.id, checkBody<Static<typeof PersonBody>>(PersonBody, fields) as never);
    }),
  );

  // The file through the same signed upload URL and checks as POST …/documents/upload-url and the PUT, then registered.
  app.post<{ Params: { id: string } }>('/dashboard/onboarding/:id/documents', byId, async (req, reply) => {
    const scope = actingAccount(req);
    const stored = await attempt(async () => {
      const file = formFile(req, 'file', 'the document (PDF, JPEG or PNG)');
      const contentType = UPLOAD_CONTENT_TYPES.find((t) => t === file.contentType) ?? 'application/pdf';
      const issued = await ctx.db.tx((tx) => issueDocumentUpload(ctx, tx, storage, scope, req.params.id, { contentType, contentLength: file.bytes.length }));
      await storeSignedUpload(ctx, storage, issued.uploadUrl, file.bytes);
      return issued.documentKey;
    });
    if ('refused' in stored) return page(req, reply, { id: req.params.id, refusal: stored.refused });
    const type = DOCUMENT_TYPES.find((t) => t === formText(req, 'type', { maxLength: 60 })) ?? (formText(req, 'type', { maxLength: 60 }) as DocumentType);
    return change(req, reply, req.params.id, (tx) => registerDocument(tx, scope, req.params.id, { documentKey: stored.done, type, personId: formOptional(req, 'personId', 100) }));
  });

  const byItem = { ...rightPage('workspace'), schema: { hide: true, params: ItemParams } };
  app.post<{ Params: { id: string; itemId: string } }>('/dashboard/onboarding/:id/persons/:itemId/remove', byItem, async (req, reply) =>
    change(req, reply, req.params.id, (tx) => deletePerson(ctx, tx, actingAccount(req), req.params.id, req.params.itemId)),
  );
  app.post<{ Params: { id: string; itemId: string } }>('/dashboard/onboarding/:id/documents/:itemId/remove', byItem, async (req, reply) =>
    change(req, reply, req.params.id, (tx) => deleteDocument(tx, actingAccount(req), req.params.id, req.params.itemId)),
  );

  app.post<{ Params: { id: string } }>('/dashboard/onboarding/:id/terms', byId, async (req, reply) =>
    change(req, reply, req.params.id, (tx) => acceptTerms(ctx, tx, actingAccount(req), req.params.id, ctx.config.termsVersion)),
  );

  app.post<{ Params: { id: string } }>('/dashboard/onboarding/:id/submit', byId, async (req, reply) =>
    change(req, reply, req.params.id, (tx) => submitApplication(ctx, tx, actingAccount(req), req.params.id)),
  );
}
