import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { FieldError } from '../../lib/errors.js';
import { facts, notice, pager, postForm, select, status, textarea, when } from '../../web/components.js';
import { queryText } from '../../web/forms.js';
import { html, type Html } from '../../web/html.js';
import { sendPage, type Web } from '../../web/web.js';
import { applicationWithGaps, listApplications, type ApplicationView } from '../applications/applications.service.js';
import { actingAccount, dashboardUser, memberPage } from './caller.js';

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

async function applicationCard(web: Web, req: FastifyRequest, a: ApplicationView): Promise<Html> {
  const missing = OPEN_STATUSES.includes(a.status)
    ? missingList((await applicationWithGaps(web.ctx, web.ctx.db, actingAccount(req), a.id)).missing)
    : html``;
  return html`<section aria-label="Application ${a.id}"><h2>${a.applicationType === 'business' ? 'Business' : 'Individual'} application ${status(a.status)}</h2>
${facts([
  ['Registered name', a.registeredName],
  ['Application', html`<code>${a.id}</code>`],
  ['Created', when(a.createdAt)],
  ['Submitted', when(a.submittedAt)],
  ['Decided', when(a.decidedAt)],
  ['Screening', a.screeningStatus],
  ['Risk level', a.riskLevel],
  ['Terms accepted', a.termsAcceptedVersion ? `version ${a.termsAcceptedVersion}` : null],
])}
${reviewerRequest(a)}
${missing}
${sandboxReview(web, req, a)}</section>`;
}

/** Onboarding: the workspace's applications (v2), what each still lacks, and what the reviewer asked for. */
export function onboardingPages(app: FastifyInstance, web: Web): void {
  const { ctx } = web;
  app.get('/dashboard/onboarding', memberPage, async (req, reply) => {
    const list = await listApplications(ctx, ctx.db, actingAccount(req), { cursor: queryText(req, 'cursor') });
    const cards: Html[] = [];
    for (const a of list.data) cards.push(await applicationCard(web, req, a));
    const body = html`<p class="help">Applications are filled in and submitted through the API (/v2/applications); this page shows where each stands.</p>
${cards.length ? cards : html`<p class="empty">No application yet.</p>`}
${pager('/dashboard/onboarding', {}, list.nextCursor)}`;
    return sendPage(web, req, reply, { title: 'Onboarding', body });
  });
}
