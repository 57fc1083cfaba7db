import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { facts, money, notice, postForm, select, status, table, when, pageNav, pagePosition, pageRequest } from '../web/components.js';
import { changeOnce, formText, queryText } from '../web/forms.js';
import { html, type Html } from '../../platform/lib/html.js';
import { sendPage, seeOther, type Web } from '../web/web.js';
import { listHolds, readSettings, rejectHold, releaseHold, updateSettings, type HoldView } from '../../controls/screening/screening.holds.js';
import { listBeneficiaryHits, listVersions } from '../../controls/screening/screening.service.js';
import { attempt, operatorActor, consoleChange, consolePage, consoleRoute, IdPath, refusalNotice, type Refusal } from './console.kit.js';

type Params = { Params: { id: string } };

/** Who acts in the console: the signed-in operator user, or the operator key the console was opened with. */


const DONE: Record<string, string> = {
  released: 'Released: the payout goes on to its provider.',
  approved: 'Release recorded. Dual control is on: a second, different operator must release it too.',
  rejected: 'Rejected: the payout failed with compliance_rejected and its funds were released.',
  settings: 'Screening settings saved.',
};

function evidence(h: HoldView): Html {
  return html`<ul class="evidence">${h.hits.map(
    (hit) => html`<li><strong>${hit.list}</strong> entry <code>${hit.entryId}</code> ${hit.entryName}: “${hit.subjectName}” matched “${hit.matchedName}”, score ${hit.score.toFixed(3)}</li>`,
  )}</ul>`;
}

function decision(req: FastifyRequest, h: HoldView, dualControl: boolean): Html {
  const releaseLabel = dualControl && !h.releaseApprovedBy ? 'Release (first of two)' : 'Release';
  const approved = h.releaseApprovedBy ? html`<p>First release by <code>${h.releaseApprovedBy}</code>; a second, different operator releases.</p>` : '';
  return html`${approved}<div class="actions">${postForm(
    { action: `/console/screening/${h.payoutId}/release`, csrf: req.web.csrf, submit: releaseLabel, inline: true, confirm: `Release payout ${h.clientRef} (${h.amount} ${h.currency}) to its provider despite the match?` },
  )}${postForm(
    { action: `/console/screening/${h.payoutId}/reject`, csrf: req.web.csrf, submit: 'Reject', danger: true, inline: true, confirm: `Reject payout ${h.clientRef}? It fails with compliance_rejected and its funds go back to the customer.` },
  )}</div>`;
}

async function screeningPage(web: Web, req: FastifyRequest, reply: FastifyReply, refusal?: Refusal): Promise<FastifyReply> {
  const db = web.ctx.db;
  const at = pagePosition((req.query ?? {}) as Record<string, unknown>);
  const [held, settings, versions, beneficiaries] = await Promise.all([
    listHolds(db, { status: 'held', ...pageRequest(at) }),
    readSettings(db),
    listVersions(db, { limit: 20 }),
    listBeneficiaryHits(db, { limit: 20 }),
  ]);
  const done = DONE[queryText(req, 'done') ?? ''];
  const body = html`${refusalNotice(refusal)}${done ? notice('success', done) : ''}
<section id="held"><h2>Payouts held by a sanctions match</h2>
<p>Each stays queued, before any money leaves, until it is released or rejected.</p>
${table('Held payouts, newest first', [
  { label: 'Payout', cell: (h: HoldView) => html`<code>${h.payoutId}</code><br>${h.clientRef}` },
  { label: 'Workspace', cell: (h) => html`<a href="/console/workspaces/${h.workspaceId}">${h.workspaceId}</a>` },
  { label: 'Amount', cell: (h) => money(h.amount, h.currency), numeric: true },
  { label: 'Held', cell: (h) => when(h.createdAt) },
  { label: 'Evidence', cell: (h) => evidence(h) },
  { label: 'Decision', cell: (h) => decision(req, h, settings.dualControl) },
], held.data, 'No payout is held.')}
${pageNav('/console/screening', {}, at, held)}</section>
<section id="dual-control"><h2>Dual control</h2>
${facts([['Dual control', settings.dualControl ? 'on: a release takes two different operators' : 'off: one operator releases'], ['Changed by', settings.updatedBy ?? '—']])}
${postForm(
  { action: '/console/screening/settings', csrf: req.web.csrf, submit: 'Save', confirm: 'Change who may release a held payout?' },
  select({ label: 'Release of a held payout', name: 'dualControl', options: [{ value: 'off', label: 'one operator' }, { value: 'on', label: 'two different operators (dual control)' }], value: settings.dualControl ? 'on' : 'off' }),
)}</section>
<section id="lists"><h2>Loaded lists</h2>
<p>Load a list with <code>corridor screening load --list ofac-sdn|un|eu|uk-ofsi --file PATH</code> or <code>POST /operator/v1/screening/lists/{list}/versions</code>. The newest version of each list is the one screened against.</p>
${table('List versions, newest first', [
  { label: 'List', cell: (v: (typeof versions.data)[number]) => v.list },
  { label: 'Format', cell: (v) => v.format },
  { label: 'Entries', cell: (v) => String(v.entries), numeric: true },
  { label: 'Names', cell: (v) => String(v.names), numeric: true },
  { label: 'Loaded', cell: (v) => when(v.loadedAt) },
  { label: 'By', cell: (v) => v.loadedBy },
  { label: 'SHA-256', cell: (v) => html`<code>${v.sha256.slice(0, 16)}…</code>` },
], versions.data, 'No list is loaded: nothing is screened.')}</section>
<section id="beneficiaries"><h2>Beneficiaries matching a list</h2>
${table('Beneficiaries whose last screening matched', [
  { label: 'Beneficiary', cell: (b: (typeof beneficiaries.data)[number]) => html`<code>${b.beneficiaryId}</code>` },
  { label: 'Workspace', cell: (b) => html`<a href="/console/workspaces/${b.workspaceId}">${b.workspaceId}</a>` },
  { label: 'Status', cell: (b) => status(b.status) },
  { label: 'Matches', cell: (b) => html`${b.hits.map((hit) => html`${hit.list} <code>${hit.entryId}</code> ${hit.matchedName} (${hit.score.toFixed(3)}) `)}` },
  { label: 'Screened', cell: (b) => when(b.screenedAt) },
], beneficiaries.data, 'No beneficiary matches a list.')}</section>`;
  return sendPage(web, req, reply, { title: 'Sanctions screening', body, status: refusal?.status });
}

async function decide(web: Web, req: FastifyRequest, reply: FastifyReply, change: Parameters<typeof changeOnce>[2]): Promise<FastifyReply> {
  const result = await attempt(() => changeOnce(web.ctx, req, change));
  if ('refused' in result) return screeningPage(web, req, reply, result.refused);
  return seeOther(reply, result.done);
}

/** The screening queue: payouts held by a sanctions match with their evidence, release or reject, dual control, the loaded lists. */
export function screeningPages(app: FastifyInstance, web: Web): void {
  const { ctx } = web;
  app.get('/console/screening', consolePage, async (req, reply) => screeningPage(web, req, reply));
  app.post<Params>('/console/screening/:id/release', consoleRoute(IdPath, 'screening'), async (req, reply) =>
    decide(web, req, reply, async (tx) => ((await releaseHold(ctx, tx, req.params.id, operatorActor(req))).status === 'released' ? '/console/screening?done=released' : '/console/screening?done=approved')),
  );
  app.post<Params>('/console/screening/:id/reject', consoleRoute(IdPath, 'screening'), async (req, reply) =>
    decide(web, req, reply, async (tx) => (await rejectHold(ctx, tx, req.params.id, operatorActor(req)), '/console/screening?done=rejected')),
  );
  app.post('/console/screening/settings', consoleChange('screening'), async (req, reply) =>
    decide(web, req, reply, async (tx) => (await updateSettings(tx, { dualControl: formText(req, 'dualControl', { maxLength: 3 }) === 'on' }, operatorActor(req)), '/console/screening?done=settings')),
  );
}
