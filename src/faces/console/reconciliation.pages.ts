import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { field, filterForm, link, money, postForm, section, select, status, table, when, pageNav, pagePosition, pageRequest } from '../web/components.js';
import { attempt, changeOnce, formText, queryChoice, queryText } from '../web/forms.js';
import { userEmails } from '../../domains/users/users.service.js';
import { html } from '../../platform/lib/html.js';
import { sendPage, seeOther, type Web } from '../web/web.js';
import { listInboundFiles } from '../../connectors/bank/inbound/inbound.service.js';
import { getStatement, ignoreLine, listExceptions, listStatements, matchChoices, matchLine, resolveException, statementCsv, statementLinesPage, type Decider } from '../../controls/reconciliation/reconciliation.service.js';
import { consolePage, consoleRoute, IdPath, operatorActor, QUEUE_PAGE_ROWS, refusalNotice, type Refusal } from './console.kit.js';

type Params = { Params: { id: string } };

/** Who decided, on the line or exception (the POST itself is in the audit log). */
const decider = (req: FastifyRequest): Decider => ({ name: req.web.session?.user ? `user:${req.web.session.user.id}` : 'console', role: operatorActor(req).role });

/** Who decided, named: a console user by their email, the operator key as "console (operator key)". */
async function deciders(web: Web, actors: readonly (string | null)[]): Promise<(actor: string | null) => string> {
  const idOf = (actor: string | null) => (actor?.startsWith('user:') ? actor.slice('user:'.length) : undefined);
  const emails = await userEmails(web.ctx.db, web.ctx.box, actors.map(idOf).filter((id): id is string => id !== undefined));
  return (actor) => emails.get(idOf(actor) ?? '') ?? (actor === 'console' ? 'console (operator key)' : (actor ?? 'Corridor (automatic)'));
}

const dayOf = (req: FastifyRequest) => {
  const day = queryText(req, 'date');
  return day && /^\d{4}-\d{2}-\d{2}$/.test(day) ? day : undefined;
};

/** Statements per bank account and day, each with its difference; below, the exceptions queue. */
async function reconciliationPage(web: Web, req: FastifyRequest, reply: FastifyReply, refusal?: Refusal): Promise<FastifyReply> {
  const query = { bankAccount: queryText(req, 'bankAccount')?.slice(0, 100), date: dayOf(req), cursor: queryText(req, 'cursor') };
  const at = pagePosition((req.query ?? {}) as Record<string, unknown>);
  const statements = await listStatements(web.ctx.db, { ...query, ...pageRequest(at) });
  const exceptions = await listExceptions(web.ctx.db, { status: 'open', bankAccount: query.bankAccount, limit: QUEUE_PAGE_ROWS });
  const quarantined = await listInboundFiles(web.ctx.db, { status: 'quarantined', limit: QUEUE_PAGE_ROWS });
  type Q = (typeof quarantined.data)[number];
  type S = (typeof statements.data)[number];
  type E = (typeof exceptions.data)[number];
  const body = html`${refusalNotice(refusal)}${filterForm('/console/reconciliation', [
    field({ label: 'Bank account', name: 'bankAccount', value: query.bankAccount }),
    field({ label: 'Day', name: 'date', type: 'date', value: query.date }),
  ])}
${table('Bank statements (camt.053), newest first', [
  { label: 'Account', cell: (s: S) => s.bankAccount },
  { label: 'Day', cell: (s) => s.date },
  { label: 'Statement', cell: (s) => link(`/console/reconciliation/statements/${s.id}`, s.statementId) },
  { label: 'Closing (bank)', cell: (s) => money(s.closingBalance, s.currency), numeric: true },
  { label: 'Closing (Corridor)', cell: (s) => money(s.corridorClosingBalance, s.currency), numeric: true },
  { label: 'Difference', cell: (s) => html`<strong>${money(s.difference, s.currency)}</strong>`, numeric: true },
  { label: 'Lines', cell: (s) => `${s.lines.matched} matched · ${s.lines.unmatched} unmatched · ${s.lines.ignored} ignored` },
], statements.data, 'No statement in this view.')}
${pageNav('/console/reconciliation', query, at, statements)}
${section('Exceptions: entries that matched nothing (nothing posted)', table('Open exceptions, newest first', [
  { label: 'Received', cell: (e: E) => when(e.createdAt) },
  { label: 'Message', cell: (e) => e.messageType },
  { label: 'Reason', cell: (e) => html`<code>${e.code}</code> ${e.reason}` },
  { label: 'Amount', cell: (e) => money(e.amount, e.currency), numeric: true },
  { label: 'EndToEndId', cell: (e) => e.endToEndId ?? '' },
  { label: 'Resolve', cell: (e) => postForm({ action: `/console/reconciliation/exceptions/${e.id}/resolve`, csrf: req.web.csrf, submit: 'Resolve', inline: true }, field({ label: 'What was done', name: 'resolution', required: true })) },
], exceptions.data, 'No open exception.'), html`<p>${link('/console/reconciliation/exceptions', 'Every exception, open and resolved, with who resolved it and when')}</p>`)}
${section('Bank files not taken in (quarantined: nothing of them applied)', table('Quarantined files, newest first', [
  { label: 'Received', cell: (f: Q) => when(f.receivedAt) },
  { label: 'File', cell: (f) => f.name },
  { label: 'Bytes', cell: (f) => (f.bytes === null ? '' : String(f.bytes)), numeric: true },
  { label: 'Reason', cell: (f) => f.reason ?? '' },
], quarantined.data, 'No quarantined file.'))}`;
  return sendPage(web, req, reply, { title: 'Reconciliation', body, status: refusal?.status });
}

const LINE_VIEWS = ['unmatched', 'all'] as const;

/**
 * One statement: its balances and difference, its lines a page at a time (unmatched only, or all),
 * each matched to what or ignored why, by whom and when; an unmatched line is matched by hand to a
 * movement of the day that agrees with it, or ignored with a reason. Below, the movements the bank did not show.
 */
async function statementPage(web: Web, req: FastifyRequest<Params>, reply: FastifyReply, refusal?: Refusal): Promise<FastifyReply> {
  const s = await getStatement(web.ctx.db, req.params.id);
  const view = queryChoice(req, 'lines', LINE_VIEWS, s.lines.unmatched > 0 ? 'unmatched' : undefined) ?? 'all';
  const at = pagePosition((req.query ?? {}) as Record<string, unknown>);
  const lines = await statementLinesPage(web.ctx.db, s.id, { status: view === 'unmatched' ? 'unmatched' : undefined, cursor: at.cursor, limit: at.limit });
  const named = await deciders(web, lines.data.map((l) => l.decidedBy));
  const path = `/console/reconciliation/statements/${s.id}`;
  type L = (typeof lines.data)[number];
  const decided = (l: L) => (l.decidedAt ? html`<br><span class="muted">by ${named(l.decidedBy)}, ${when(l.decidedAt)}</span>` : l.status === 'matched' ? html`<br><span class="muted">automatically, on receipt</span>` : '');
  const matchForm = (l: L) => {
    const choices = matchChoices(s, l);
    if (!choices.length) return html`<p class="muted">No movement of the day agrees with this line.</p>`;
    return postForm(
      { action: `/console/reconciliation/lines/${l.id}/match`, csrf: req.web.csrf, submit: 'Match', inline: true, label: `Match line ${l.seq + 1}` },
      select({ label: 'Movement', name: 'movementId', required: true, options: choices.map((m) => ({ value: m.id, label: `${m.kind} ${m.object.id} · ${m.amount} ${m.currency}${m.endToEndId ? ` · ${m.endToEndId}` : ''}` })) }),
    );
  };
  const body = html`${refusalNotice(refusal)}
<p>${s.bankAccount} · ${s.date} · opening ${money(s.openingBalance, s.currency)} · closing ${money(s.closingBalance, s.currency)} · Corridor ${money(s.corridorClosingBalance, s.currency)} · difference <strong>${money(s.difference, s.currency)}</strong> · ${link(`${path}/lines.csv`, 'CSV')}</p>
<p>${s.lines.matched} matched · ${s.lines.unmatched} unmatched · ${s.lines.ignored} ignored</p>
${filterForm(path, [select({ label: 'Lines', name: 'lines', value: view, options: [{ value: 'unmatched', label: 'Unmatched only' }, { value: 'all', label: 'All lines' }] })], 'Show')}
${table(view === 'unmatched' ? 'Unmatched lines' : 'Lines', [
  { label: '#', cell: (l: L) => String(l.seq + 1) },
  { label: 'Status', cell: (l) => status(l.status) },
  { label: 'Amount', cell: (l) => money(`${l.direction === 'debit' ? '-' : ''}${l.amount}`, l.currency), numeric: true },
  { label: 'Bank reference', cell: (l) => html`${l.entryRef ?? ''}${l.endToEndId ? html`<br><span class="muted">${l.endToEndId}</span>` : ''}` },
  { label: 'Decision', cell: (l) => (l.matched ? html`${l.matched.object.type} <code>${l.matched.object.id}</code>${decided(l)}` : l.reason ? html`ignored: ${l.reason}${decided(l)}` : '') },
  { label: 'Match', cell: (l) => (l.status === 'unmatched' ? matchForm(l) : '') },
  { label: 'Ignore', cell: (l) => (l.status === 'unmatched' ? postForm({ action: `/console/reconciliation/lines/${l.id}/ignore`, csrf: req.web.csrf, submit: 'Ignore', inline: true, label: `Ignore line ${l.seq + 1}` }, field({ label: 'Reason', name: 'reason', required: true })) : '') },
], lines.data, view === 'unmatched' ? 'No unmatched line: every line is matched or ignored.' : 'The statement has no line.')}
${pageNav(path, { lines: view }, at, lines)}
${table('Movements Corridor booked that day which no line matched', [
  { label: 'Kind', cell: (m: (typeof s.movementsNotOnStatement)[number]) => m.kind },
  { label: 'Amount', cell: (m) => money(`${m.direction === 'debit' ? '-' : ''}${m.amount}`, m.currency), numeric: true },
  { label: 'Object', cell: (m) => html`${m.object.type} <code>${m.object.id}</code>` },
], s.movementsNotOnStatement, 'None: the bank shows every movement Corridor booked.')}`;
  return sendPage(web, req, reply, { title: `Statement ${s.statementId}`, body, status: refusal?.status });
}

const EXCEPTION_VIEWS = ['open', 'resolved'] as const;

/** Every exception a page at a time, open or resolved: the history says what was done, by whom and when. */
async function exceptionsPage(web: Web, req: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
  const view = queryChoice(req, 'status', EXCEPTION_VIEWS);
  const bankAccount = queryText(req, 'bankAccount')?.slice(0, 100);
  const at = pagePosition((req.query ?? {}) as Record<string, unknown>);
  const page = await listExceptions(web.ctx.db, { status: view, bankAccount, ...pageRequest(at) });
  const named = await deciders(web, page.data.map((e) => e.resolvedBy));
  type E = (typeof page.data)[number];
  const body = html`${filterForm('/console/reconciliation/exceptions', [
    select({ label: 'Status', name: 'status', value: view ?? 'all', options: [{ value: 'all', label: 'Open and resolved' }, { value: 'open', label: 'Open' }, { value: 'resolved', label: 'Resolved' }] }),
    field({ label: 'Bank account', name: 'bankAccount', value: bankAccount }),
  ])}
${table('Exceptions, newest first', [
  { label: 'Received', cell: (e: E) => when(e.createdAt) },
  { label: 'Status', cell: (e) => status(e.status) },
  { label: 'Reason', cell: (e) => html`<code>${e.code}</code> ${e.reason}` },
  { label: 'Amount', cell: (e) => money(e.amount, e.currency), numeric: true },
  { label: 'EndToEndId', cell: (e) => e.endToEndId ?? '' },
  { label: 'What was done', cell: (e) => (e.status === 'resolved' ? html`${e.resolution ?? ''}<br><span class="muted">by ${named(e.resolvedBy)}, ${e.resolvedAt ? when(e.resolvedAt) : ''}</span>` : postForm({ action: `/console/reconciliation/exceptions/${e.id}/resolve`, csrf: req.web.csrf, submit: 'Resolve', inline: true }, field({ label: 'What was done', name: 'resolution', required: true }))) },
], page.data, 'No exception in this view.')}
${pageNav('/console/reconciliation/exceptions', { status: view ?? 'all', bankAccount }, at, page)}`;
  return sendPage(web, req, reply, { title: 'Reconciliation exceptions', body });
}

/** The Reconciliation page per bank account and day, a statement's lines, and the decisions (ignore a line, resolve an exception), each audited. */
export function reconciliationPages(app: FastifyInstance, web: Web): void {
  app.get('/console/reconciliation', consolePage, async (req, reply) => reconciliationPage(web, req, reply));
  app.get<Params>('/console/reconciliation/statements/:id', consoleRoute(IdPath, 'reconciliation'), async (req, reply) => statementPage(web, req, reply));
  // The statement's lines as CSV for the signed-in console (the operator API's lines.csv wants the key as a bearer).
  app.get<Params>('/console/reconciliation/statements/:id/lines.csv', consoleRoute(IdPath, 'reconciliation'), async (req, reply) => {
    const csv = await statementCsv(web.ctx.db, req.params.id);
    return reply.type('text/csv; charset=utf-8').header('content-disposition', `attachment; filename="statement-${req.params.id}.csv"`).send(csv);
  });
  app.get('/console/reconciliation/exceptions', consolePage, async (req, reply) => exceptionsPage(web, req, reply));
  app.post<Params>('/console/reconciliation/lines/:id/match', consoleRoute(IdPath, 'reconciliation'), async (req, reply) => {
    const result = await attempt(() =>
      changeOnce(web.ctx, req, async (tx) => `/console/reconciliation/statements/${(await matchLine(tx, req.params.id, formText(req, 'movementId', { maxLength: 36 }), decider(req))).statementId}`),
    );
    if ('refused' in result) return reconciliationPage(web, req, reply, result.refused);
    return seeOther(reply, result.done);
  });
  app.post<Params>('/console/reconciliation/lines/:id/ignore', consoleRoute(IdPath, 'reconciliation'), async (req, reply) => {
    const result = await attempt(() => changeOnce(web.ctx, req, async (tx) => `/console/reconciliation/statements/${(await ignoreLineAndStatement(tx, req))}`));
    if ('refused' in result) return reconciliationPage(web, req, reply, result.refused);
    return seeOther(reply, result.done);
  });
  app.post<Params>('/console/reconciliation/exceptions/:id/resolve', consoleRoute(IdPath, 'reconciliation'), async (req, reply) => {
    const result = await attempt(() => changeOnce(web.ctx, req, async (tx) => (await resolveException(tx, req.params.id, formText(req, 'resolution', { maxLength: 500 }), decider(req)), '/console/reconciliation')));
    if ('refused' in result) return reconciliationPage(web, req, reply, result.refused);
    return seeOther(reply, result.done);
  });
}

async function ignoreLineAndStatement(tx: Parameters<typeof ignoreLine>[0], req: FastifyRequest<Params>): Promise<string> {
  const line = await ignoreLine(tx, req.params.id, formText(req, 'reason', { maxLength: 500 }), decider(req));
  return line.statementId;
}
