import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { checkboxes, facts, field, readable, words, filterForm, link, postForm, section, select, status, table, textarea, when, pageNav, pagePosition, pageRequest } from '../web/components.js';
import { changeOnce, formList, formOptional, formText, queryText } from '../web/forms.js';
import { html, type Html } from '../../platform/lib/html.js';
import { sendPage, seeOther, type Web } from '../web/web.js';
import * as applications from '../../domains/applications/applications.service.js';
import type { ApplicationView } from '../../domains/applications/applications.service.js';
import { listDocuments, readDocumentFile } from '../../domains/applications/documents.service.js';
import { listPersons } from '../../domains/applications/persons.service.js';
import { APPLICATION_STATUSES, RISK_LEVELS, SCREENING_STATUSES, SECTIONS_OF, type ReviewDecision, type RiskLevel, type ScreeningStatus, type Section } from '../../domains/applications/applications.transitions.js';
import type { Storage } from '../../platform/storage/storage.js';
import { attempt, consolePage, consoleRoute, doneNotice, IdPath, idsPath, operatorActor, queryChoice, queryId, refusalNotice, withDone, type Refusal } from './console.kit.js';
import { sendStoredFile } from '../../platform/http/stored-file.js';

type Params = { Params: { id: string } };

/** A section of the application (business info, activity...) as labelled values in words: an address on its lines, not JSON. */
function sectionFacts(title: string, value: Record<string, unknown> | null): Html {
  if (!value) return html``;
  return section(title, facts(Object.entries(value).map(([k, v]) => [words(k), readable(v)] as const)));
}

/** A person by name (a document names its person by id). */
function personName(p: Record<string, unknown>): string {
  return `${String(p.firstName ?? '')} ${String(p.lastName ?? '')}`.trim() || String(p.id ?? '');
}

function reviewForms(req: FastifyRequest, a: ApplicationView, refusal: Refusal | undefined): Html {
  const action = `/console/applications/${a.id}/review`;
  const name = a.registeredName ?? 'this applicant';
  const decide = (decision: ReviewDecision, submit: string, confirm: string, danger = false) =>
    postForm({ action, csrf: req.web.csrf, submit, danger, inline: true, confirm }, html`<input type="hidden" name="decision" value="${decision}">`);
  return section(
    'Review',
    refusalNotice(refusal),
    a.status === 'under_review'
      ? html`<div class="actions">${decide('approve', 'Approve application', `Approve the application of ${name}? The account may then use what it applied for.`)}${decide('reject', 'Reject application', `Reject the application of ${name}?`, true)}</div>
<h3>Request information</h3>
${postForm(
  { action, csrf: req.web.csrf, submit: 'Request information' },
  html`<input type="hidden" name="decision" value="request_info">`,
  textarea({ label: 'What is needed', name: 'reason', required: true, help: 'The applicant sees this as moreInfoReason.' }),
  checkboxes({ legend: 'Sections to reopen (none: every section)', name: 'editableSections', options: SECTIONS_OF[a.applicationType], checked: [] }),
)}`
      : html`<p class="muted">Only an application under review can be decided; this one is ${a.status.replace(/_/g, ' ')}.</p>`,
    html`<h3>Screening</h3>`,
    postForm(
      { action: `/console/applications/${a.id}/screening`, csrf: req.web.csrf, submit: 'Save screening' },
      select({ label: 'Screening status', name: 'screeningStatus', options: SCREENING_STATUSES, value: a.screeningStatus }),
      select({ label: 'Risk level', name: 'riskLevel', options: ['', ...RISK_LEVELS], value: a.riskLevel ?? '' }),
    ),
  );
}

async function applicationPage(web: Web, req: FastifyRequest<Params>, reply: FastifyReply, refusal?: Refusal): Promise<FastifyReply> {
  const { ctx } = web;
  const { application: a, scope } = await applications.getAnyApplication(ctx, ctx.db, req.params.id);
  const persons = await listPersons(ctx, ctx.db, scope, a.id);
  const documents = await listDocuments(ctx.db, scope, a.id);
  type Doc = (typeof documents.data)[number];
  type Person = Record<string, unknown>;
  const body = html`${doneNotice(req)}${facts([
    ['Status', status(a.status)],
    ['Type', words(a.applicationType)],
    ['Workspace', link(`/console/workspaces/${scope.workspaceId}`, scope.workspaceId)],
    ['Registered name', a.registeredName],
    ['Screening', words(a.screeningStatus)],
    ['Risk level', a.riskLevel],
    ['Submitted', when(a.submittedAt)],
    ['Terms accepted', a.termsAcceptedVersion],
  ])}
${sectionFacts('Business information', a.businessInfo)}
${sectionFacts('Business activity', a.businessActivity)}
${sectionFacts('Applicant', a.applicant)}
${section('Persons', table('Persons of the application', [
  { label: 'Name', cell: (p: Person) => personName(p) },
  { label: 'Title', cell: (p) => String(p.title ?? '') },
  { label: 'Ownership %', cell: (p) => String(p.ownershipPercentage ?? ''), numeric: true },
  { label: 'Nationality', cell: (p) => String(p.nationality ?? '') },
  { label: 'Date of birth', cell: (p) => String(p.dateOfBirth ?? '') },
  { label: 'Address', cell: (p) => readable(p.address) },
], persons.data as Person[], 'No person.'))}
${section('Documents', table('Documents of the application', [
  { label: 'Type', cell: (d: Doc) => d.type },
  { label: 'Person', cell: (d) => (d.personId ? personName((persons.data as Person[]).find((p) => p.id === d.personId) ?? { id: d.personId }) : 'the company') },
  { label: 'File', cell: (d) => link(`/console/applications/${a.id}/documents/${d.id}`, `Open ${d.type} (${d.contentType}, ${d.sizeBytes} bytes)`) },
  { label: 'Added', cell: (d) => when(d.createdAt) },
], documents.data, 'No document.'))}
${reviewForms(req, a, refusal)}`;
  return sendPage(web, req, reply, { title: a.registeredName ?? `Application ${a.id}`, body, status: refusal?.status });
}

/** Applications to review: any workspace's, with their persons and documents; approve, reject, ask for more; screening. */
export function applicationPages(app: FastifyInstance, web: Web, storage: Storage): void {
  const { ctx } = web;
  app.get('/console/applications', consolePage, async (req, reply) => {
    const query = { status: queryChoice(req, 'status', APPLICATION_STATUSES, 'under_review'), workspaceId: queryId(req, 'workspaceId'), cursor: queryText(req, 'cursor') };
    const at = pagePosition((req.query ?? {}) as Record<string, unknown>);
    const page = await applications.listApplications(ctx, ctx.db, undefined, { ...query, ...pageRequest(at) });
    const body = html`${filterForm('/console/applications', [
      select({ label: 'Status', name: 'status', options: ['all', ...APPLICATION_STATUSES], value: query.status ?? 'all' }),
      field({ label: 'Workspace id', name: 'workspaceId', value: query.workspaceId }),
    ])}
${table('Applications, newest first', [
  { label: 'Application', cell: (a: ApplicationView) => link(`/console/applications/${a.id}`, a.registeredName ?? a.id) },
  { label: 'Type', cell: (a) => a.applicationType },
  { label: 'Status', cell: (a) => status(a.status) },
  { label: 'Screening', cell: (a) => a.screeningStatus },
  { label: 'Submitted', cell: (a) => when(a.submittedAt) },
], page.data, 'No application in this view.')}
${pageNav('/console/applications', { ...query, status: query.status ?? 'all' }, at, page)}`;
    return sendPage(web, req, reply, { title: 'Applications', body });
  });

  app.get<Params>('/console/applications/:id', consoleRoute(IdPath), async (req, reply) => applicationPage(web, req, reply));

  app.get<{ Params: { id: string; documentId: string } }>('/console/applications/:id/documents/:documentId', consoleRoute(idsPath('documentId')), async (req, reply) => {
    const { scope } = await applications.getAnyApplication(ctx, ctx.db, req.params.id);
    const file = await readDocumentFile(ctx.db, storage, scope, req.params.id, req.params.documentId);
    return sendStoredFile(reply, { contentType: file.document.contentType, bytes: file.bytes, name: `${file.document.type}-${file.document.id}` });
  });

  app.post<Params>('/console/applications/:id/review', consoleRoute(IdPath, 'applications'), async (req, reply) => {
    const sections = formList(req, 'editableSections', 10) as Section[];
    const review = { decision: formText(req, 'decision') as ReviewDecision, reason: formOptional(req, 'reason'), ...(sections.length ? { editableSections: sections } : {}) };
    const result = await attempt(() => changeOnce(ctx, req, async (tx) => (await applications.reviewAnyApplication(ctx, tx, req.params.id, review, operatorActor(req)), withDone(`/console/applications/${req.params.id}`, `application-${review.decision}`, req.params.id))));
    if ('refused' in result) return applicationPage(web, req, reply, result.refused);
    return seeOther(reply, result.done);
  });

  app.post<Params>('/console/applications/:id/screening', consoleRoute(IdPath, 'screening'), async (req, reply) => {
    const screening = { screeningStatus: formText(req, 'screeningStatus') as ScreeningStatus, riskLevel: formOptional(req, 'riskLevel') as RiskLevel | undefined };
    const result = await attempt(() => changeOnce(ctx, req, async (tx) => (await applications.setScreening(ctx, tx, req.params.id, screening, operatorActor(req)), withDone(`/console/applications/${req.params.id}`, 'application-screening', req.params.id))));
    if ('refused' in result) return applicationPage(web, req, reply, result.refused);
    return seeOther(reply, result.done);
  });
}
