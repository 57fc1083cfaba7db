import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { AppContext } from '../../platform/context.js';
import { notFound } from '../../platform/lib/errors.js';
import { runIdempotent } from '../../platform/http/idempotency.js';
import { route, type App } from '../../platform/http/routes.js';
import type { Storage } from '../../platform/storage/storage.js';
import {
  ApplicationPage,
  ApplicationParams,
  ApplicationSchema,
  CreateApplicationBody,
  DocumentPage,
  DocumentParams,
  DocumentSchema,
  ListApplicationsQuery,
  OperatorListApplicationsQuery,
  PatchApplicationBody,
  PersonBody,
  PersonPage,
  PersonParams,
  PersonPatch,
  PersonSchema,
  RegisterDocumentBody,
  ReviewBody,
  ScreeningBody,
  TermsAcceptanceBody,
  TermsSchema,
  UploadUrlBody,
  UploadUrlSchema,
} from './applications.schemas.js';
import * as applications from './applications.service.js';
import * as documents from './documents.service.js';
import * as persons from './persons.service.js';
import { termsDocument } from './terms.js';
import type { AccountScope } from '../accounts/caller.js';
import { OPERATOR_KEY_ROLE } from '../users/rights.js';

const tags = ['Applications'];
const read = { auth: 'workspace' as const, scope: 'read:applications' as const, capability: 'applications' as const };
const write = { auth: 'workspace' as const, scope: 'write:applications' as const, capability: 'applications' as const };

const scopeOf = (req: FastifyRequest): AccountScope => ({ workspaceId: req.auth.workspaceId, subAccountId: req.auth.subAccountId });

type Fields = Record<string, unknown>;

const SUBMIT_DOC =
  'From draft or more_info_requested. An incomplete application answers 422 APPLICATION_INCOMPLETE with one `errors` entry per missing item and is left as it was. A business needs businessInfo.registeredName, .registrationNumber and .country; at least one person, each with firstName, lastName, dateOfBirth, nationality and a photo_id document; a company-level certificate_of_incorporation; hasIndirectControl answered (details when true); the current terms accepted. An individual needs the applicant first and last name, date of birth and nationality, a photo_id document, individualActivity.applicantSourceOfFunds and the current terms accepted. A complete application moves to under_review and emits application.under_review (again on each resubmission). In the sandbox screening runs at submit, deterministically on the registered company name (individual: the applicant\'s full name), case-insensitive: containing "flagged" → screeningStatus flagged, riskLevel high; "prohibited" → clear, prohibited; "high risk" → clear, high; "medium risk" → clear, medium; otherwise clear, low. In production screeningStatus stays pending and riskLevel null until the operator sets them.';

const REVIEW_DOC =
  'From under_review only (409 otherwise): approve → approved (application.approved), reject → rejected (application.rejected), request_info → more_info_requested (application.more_info_requested, with moreInfoReason = reason, required, and editableSections, default every section of the type). Approving a business application of the workspace itself puts that business on record as the originator of payouts sent without senderInfo, unless the operator set one.';

const operator = { tags: ['Operator'], security: [{ operatorKey: [] }] };

/** Onboarding: KYB (business) and KYC (individual) applications, their persons, documents, terms, submit and review. */
export function applicationRoutes(app: App, ctx: AppContext, storage: Storage): void {
  app.route(createApplication(ctx));
  app.route(listApplications(ctx));
  app.route(getApplication(ctx));
  app.route(patchApplication(ctx));
  app.route(createPerson(ctx));
  app.route(listPersons(ctx));
  app.route(getPerson(ctx));
  app.route(patchPerson(ctx));
  app.route(deletePerson(ctx));
  app.route(issueDocumentUpload(ctx, storage));
  app.route(registerDocument(ctx));
  app.route(listDocuments(ctx));
  app.route(getDocument(ctx));
  app.route(deleteDocument(ctx));
  app.route(currentTerms(ctx));
  app.route(termsPage(ctx));
  app.route(acceptTerms(ctx));
  app.route(submitApplication(ctx));
  if (ctx.config.env === 'sandbox') app.route(reviewOwnApplication(ctx));
  app.route(reviewAnyApplication(ctx));
  app.route(setScreening(ctx));
  app.route(listAnyApplications(ctx));
}

// Applications -------------------------------------------------------------------------------

function createApplication(ctx: AppContext) {
  return route.post(
    '/v2/applications',
    {
      config: write,
      schema: {
        tags,
        summary: 'Create an application (201, draft)',
        description:
          'Owned by the Service-Account-Id sub-account when the header is sent, else by the workspace (`accountId`). `persons` become one person each under /persons; `documents` are accepted and ignored (upload through /documents). hasIndirectControl / indirectControlDetails: details required when true, cleared when false, null clears them under any answer.',
        body: CreateApplicationBody,
        response: { 201: ApplicationSchema },
      },
    },
    async (req, reply) =>
      runIdempotent(ctx, req, reply, async (tx) => ({ status: 201, body: await applications.createApplication(ctx, tx, scopeOf(req), req.body as Fields & { applicationType: 'business' | 'individual' }) })),
  );
}

function listApplications(ctx: AppContext) {
  return route.get(
    '/v2/applications',
    {
      config: read,
      schema: {
        tags,
        summary: 'List applications, newest first',
        description: "Without Service-Account-Id: the workspace's and its sub-accounts' (`accountId` tells them apart). With it: that sub-account's only.",
        querystring: ListApplicationsQuery,
        response: { 200: ApplicationPage },
      },
    },
    async (req) => applications.listApplications(ctx, ctx.db, scopeOf(req), req.query),
  );
}

function getApplication(ctx: AppContext) {
  return route.get(
    '/v2/applications/:id',
    { config: read, schema: { tags, summary: 'One application', params: ApplicationParams, response: { 200: ApplicationSchema } } },
    async (req) => applications.getApplication(ctx, ctx.db, scopeOf(req), req.params.id),
  );
}

function patchApplication(ctx: AppContext) {
  return route.patch(
    '/v2/applications/:id',
    {
      config: write,
      schema: { tags, summary: 'Edit sections of an application', params: ApplicationParams, body: PatchApplicationBody, response: { 200: ApplicationSchema } },
    },
    async (req) => ctx.db.tx((tx) => applications.patchApplication(ctx, tx, scopeOf(req), req.params.id, req.body as Fields)),
  );
}

// Persons ----------------------------------------------------------------------------------

function createPerson(ctx: AppContext) {
  return route.post(
    '/v2/applications/:id/persons',
    {
      config: write,
      schema: {
        tags,
        summary: 'Add a person (director, owner) to a business application',
        description: 'Writable in draft, or in more_info_requested when `persons` is reopened. bvn, nationalId and taxId are stored encrypted and shown back only as *Provided flags. The sum of ownershipPercentage over the persons is at most 100.',
        params: ApplicationParams,
        body: PersonBody,
        response: { 201: PersonSchema },
      },
    },
    async (req, reply) => runIdempotent(ctx, req, reply, async (tx) => ({ status: 201, body: await persons.createPerson(ctx, tx, scopeOf(req), req.params.id, req.body as Fields) })),
  );
}

function listPersons(ctx: AppContext) {
  return route.get(
    '/v2/applications/:id/persons',
    { config: read, schema: { tags, summary: 'The persons of an application (all of them, at most 25)', params: ApplicationParams, response: { 200: PersonPage } } },
    async (req) => persons.listPersons(ctx, ctx.db, scopeOf(req), req.params.id),
  );
}

function getPerson(ctx: AppContext) {
  return route.get(
    '/v2/applications/:id/persons/:personId',
    { config: read, schema: { tags, summary: 'One person', params: PersonParams, response: { 200: PersonSchema } } },
    async (req) => persons.getPerson(ctx, ctx.db, scopeOf(req), req.params.id, req.params.personId),
  );
}

function patchPerson(ctx: AppContext) {
  return route.patch(
    '/v2/applications/:id/persons/:personId',
    { config: write, schema: { tags, summary: 'Edit a person (absent keeps, null clears)', params: PersonParams, body: PersonPatch, response: { 200: PersonSchema } } },
    async (req) => ctx.db.tx((tx) => persons.patchPerson(ctx, tx, scopeOf(req), req.params.id, req.params.personId, req.body as Fields)),
  );
}

function deletePerson(ctx: AppContext) {
  return route.delete(
    '/v2/applications/:id/persons/:personId',
    { config: write, schema: { tags, summary: 'Remove a person and the documents registered for them (204)', params: PersonParams, response: { 204: { type: 'null', description: 'Removed' } } } },
    async (req, reply) => {
      await ctx.db.tx((tx) => persons.deletePerson(ctx, tx, scopeOf(req), req.params.id, req.params.personId));
      return reply.code(204).send();
    },
  );
}

// Documents --------------------------------------------------------------------------------

function issueDocumentUpload(ctx: AppContext, storage: Storage) {
  return route.post(
    '/v2/applications/:id/documents/upload-url',
    {
      config: write,
      schema: {
        tags,
        summary: 'Get a signed URL to upload one document file to (201)',
        description: `PUT the raw bytes to \`uploadUrl\` (no Authorization header) before \`expiresAt\` (UPLOAD_URL_TTL_MS, default 15 minutes): PDF, JPEG or PNG as declared in contentType, recognised from the bytes, exactly contentLength bytes, at most ${ctx.config.limits.uploadBytesMax} bytes. The URL takes one file. Then register it with POST /v2/applications/{id}/documents {documentKey, type, personId?}.`,
        params: ApplicationParams,
        body: UploadUrlBody,
        response: { 201: UploadUrlSchema },
      },
    },
    async (req, reply) =>
      runIdempotent(ctx, req, reply, async (tx) => ({ status: 201, body: await documents.issueDocumentUpload(ctx, tx, storage, scopeOf(req), req.params.id, req.body) })),
  );
}

function registerDocument(ctx: AppContext) {
  return route.post(
    '/v2/applications/:id/documents',
    {
      config: write,
      schema: {
        tags,
        summary: 'Register an uploaded file as a document (201)',
        description:
          'With personId the document is that person\'s (photo_id, proof_of_address or other; section `persons`), else the company\'s or, on an individual application, the applicant\'s (section `documents`). 409 DOCUMENT_NOT_UPLOADED before the PUT; 409 DOCUMENT_KEY_USED for a key registered already.',
        params: ApplicationParams,
        body: RegisterDocumentBody,
        response: { 201: DocumentSchema },
      },
    },
    async (req, reply) => runIdempotent(ctx, req, reply, async (tx) => ({ status: 201, body: await documents.registerDocument(tx, scopeOf(req), req.params.id, req.body) })),
  );
}

function listDocuments(ctx: AppContext) {
  return route.get(
    '/v2/applications/:id/documents',
    { config: read, schema: { tags, summary: 'The documents of an application (all of them, at most 50)', params: ApplicationParams, response: { 200: DocumentPage } } },
    async (req) => documents.listDocuments(ctx.db, scopeOf(req), req.params.id),
  );
}

function getDocument(ctx: AppContext) {
  return route.get(
    '/v2/applications/:id/documents/:documentId',
    { config: read, schema: { tags, summary: 'One document', params: DocumentParams, response: { 200: DocumentSchema } } },
    async (req) => documents.getDocument(ctx.db, scopeOf(req), req.params.id, req.params.documentId),
  );
}

function deleteDocument(ctx: AppContext) {
  return route.delete(
    '/v2/applications/:id/documents/:documentId',
    { config: write, schema: { tags, summary: 'Remove a document from the application (204)', params: DocumentParams, response: { 204: { type: 'null', description: 'Removed' } } } },
    async (req, reply) => {
      await ctx.db.tx((tx) => documents.deleteDocument(tx, scopeOf(req), req.params.id, req.params.documentId));
      return reply.code(204).send();
    },
  );
}

// Terms, submit, review --------------------------------------------------------------------

function currentTerms(ctx: AppContext) {
  return route.get(
    '/v2/terms',
    {
      config: read,
      schema: { tags, summary: 'The current terms', description: 'Accept them on an application with POST /v2/applications/{id}/terms-acceptance; only the current version counts at submit. `url` is CORRIDOR_TERMS_URL when set, else /terms/{version} on this server, which serves the operator\'s CORRIDOR_TERMS_FILE or the default terms shipped with Corridor (an HTML page).', response: { 200: TermsSchema } },
    },
    async () => ({ version: ctx.config.termsVersion, url: ctx.config.termsUrl }),
  );
}

function termsPage(ctx: AppContext) {
  const terms = termsDocument(ctx.config);
  return route.get(
    '/terms/:version',
    {
      config: { auth: 'none' },
      schema: {
        tags,
        operationId: 'getTermsDocument',
        summary: 'The terms document (HTML)',
        description: "The URL GET /v2/terms answers by default. The operator's CORRIDOR_TERMS_FILE, else the default terms shipped with Corridor; no credential. 404 for a version other than the current one.",
        params: Type.Object({ version: Type.String({ description: 'The current terms version (GET /v2/terms)' }) }),
        produces: ['text/html'],
        response: { 200: Type.String({ description: 'The terms, an HTML document' }) },
      },
    },
    async (req, reply) => {
      if (req.params.version !== ctx.config.termsVersion) throw notFound('Terms version');
      return reply.type('text/html; charset=utf-8').header('x-content-type-options', 'nosniff').send(terms);
    },
  );
}

function acceptTerms(ctx: AppContext) {
  return route.post(
    '/v2/applications/:id/terms-acceptance',
    {
      config: write,
      schema: {
        tags,
        summary: 'Accept the current terms for an application',
        description: 'A version other than the current one is 400 TERMS_VERSION_NOT_CURRENT. In draft or more_info_requested.',
        params: ApplicationParams,
        body: TermsAcceptanceBody,
        response: { 200: ApplicationSchema },
      },
    },
    async (req, reply) => runIdempotent(ctx, req, reply, async (tx) => ({ status: 200, body: await applications.acceptTerms(ctx, tx, scopeOf(req), req.params.id, req.body.version) })),
  );
}

function submitApplication(ctx: AppContext) {
  return route.post(
    '/v2/applications/:id/submit',
    { config: write, schema: { tags, summary: 'Submit an application for review', description: SUBMIT_DOC, params: ApplicationParams, response: { 200: ApplicationSchema } } },
    async (req, reply) => runIdempotent(ctx, req, reply, async (tx) => ({ status: 200, body: await applications.submitApplication(ctx, tx, scopeOf(req), req.params.id) })),
  );
}

function reviewOwnApplication(ctx: AppContext) {
  return route.post(
    '/v1/sandbox/applications/:id/review',
    {
      config: write,
      schema: { tags: ['Sandbox'], summary: 'Simulate the review of an application (sandbox only)', description: REVIEW_DOC, params: ApplicationParams, body: ReviewBody, response: { 200: ApplicationSchema } },
    },
    async (req, reply) =>
      runIdempotent(ctx, req, reply, async (tx) => ({ status: 200, body: await applications.reviewOwnApplication(ctx, tx, req.auth, req.params.id, req.body) })),
  );
}

// Operator ---------------------------------------------------------------------------------

function reviewAnyApplication(ctx: AppContext) {
  return route.post(
    '/operator/v1/applications/:id/review',
    {
      config: { auth: 'operator' },
      schema: { ...operator, summary: "Review any workspace's application (audited)", description: REVIEW_DOC, params: ApplicationParams, body: ReviewBody, response: { 200: ApplicationSchema } },
    },
    async (req, reply) => runIdempotent(ctx, req, reply, async (tx) => ({ status: 200, body: await applications.reviewAnyApplication(ctx, tx, req.params.id, req.body, OPERATOR_KEY_ROLE) })),
  );
}

function setScreening(ctx: AppContext) {
  return route.put(
    '/operator/v1/applications/:id/screening',
    {
      config: { auth: 'operator' },
      schema: { ...operator, summary: 'Set the screening outcome and risk level of an application (audited)', params: ApplicationParams, body: ScreeningBody, response: { 200: ApplicationSchema } },
    },
    async (req) => ctx.db.tx((tx) => applications.setScreening(ctx, tx, req.params.id, req.body, OPERATOR_KEY_ROLE)),
  );
}

function listAnyApplications(ctx: AppContext) {
  return route.get(
    '/operator/v1/applications',
    {
      config: { auth: 'operator' },
      schema: { ...operator, summary: 'Applications of every workspace, newest first (filter by status, workspaceId)', querystring: OperatorListApplicationsQuery, response: { 200: ApplicationPage } },
    },
    async (req) => applications.listApplications(ctx, ctx.db, undefined, req.query),
  );
}
