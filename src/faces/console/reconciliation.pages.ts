import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { field, filterForm, link, money, postForm, section, status, table, when, pageNav, pagePosition, pageRequest } from '../web/components.js';
import { attempt, changeOnce, formText, queryText } from '../web/forms.js';
import { html } from '../../platform/lib/html.js';
import { sendPage, seeOther, type Web } from '../web/web.js';
import { listInboundFiles } from '../../connectors/bank/inbound/inbound.service.js';
import { getStatement, ignoreLine, listExceptions, listStatements, resolveException, statementCsv, statementLines } from '../../controls/reconciliation/reconciliation.service.js';
import { consolePage, consoleRoute, IdPath, QUEUE_PAGE_ROWS, refusalNotice, type Refusal } from './console.kit.js';

type Params = { Params: { id: string } };

/** Who decided, on the line or exception (the POST itself is in the audit log). */
const decider = (req: FastifyRequest) => (req.web.session?.user ? `user:${req.web.session.user.id}` : 'console');

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
], exceptions.data, 'No open exception.'))}
${section('Bank files not taken in (quarantined: nothing of them applied)', table('Quarantined files, newest first', [
  { label: 'Received', cell: (f: Q) => when(f.receivedAt) },
  { label: 'File', cell: (f) => f.name },
  { label: 'Bytes', cell: (f) => (f.bytes === null ? '' : String(f.bytes)), numeric: true },
  { label: 'Reason', cell: (f) => f.reason ?? '' },
], quarantined.data, 'No quarantined file.'))}`;
  return sendPage(web, req, reply, { title: 'Reconciliation', body, status: refusal?.status });
}

/** One statement: its balances and difference, its lines (matched to what, or ignored why), and the movements the bank did not show. */
async function statementPage(web: Web, req: FastifyRequest<Params>, reply: FastifyReply, refusal?: Refusal): Promise<FastifyReply> {
  const s = await getStatement(web.ctx.db, req.params.id);
  const lines = await statementLines(web.ctx.db, s.id);
  type L = (typeof lines)[number];
  const body = html`${refusalNotice(refusal)}
<p>${s.bankAccount} · ${s.date} · opening ${money(s.openingBalance, s.currency)} · closing ${money(s.closingBalance, s.currency)} · Corridor ${money(s.corridorClosingBalance, s.currency)} · difference <strong>${money(s.difference, s.currency)}</strong> · ${link(`/console/reconciliation/statements/${s.id}/lines.csv`, 'CSV')}</p>
${table('Lines', [
  { label: '#', cell: (l: L) => String(l.seq + 1) },
  { label: 'Status', cell: (l) => status(l.status) },
  { label: 'Amount', cell: (l) => money(`${l.direction === 'debit' ? '-' : ''}${l.amount}`, l.currency), numeric: true },
  { label: 'Bank reference', cell: (l) => l.entryRef ?? '' },
  { label: 'Matched', cell: (l) => (l.matched ? html`${l.matched.object.type} <code>${l.matched.object.id}</code>` : l.reason ? `ignored: ${l.reason}` : '') },
  { label: 'Decide', cell: (l) => (l.status === 'unmatched' ? postForm({ action: `/console/reconciliation/lines/${l.id}/ignore`, csrf: req.web.csrf, submit: 'Ignore', inline: true }, field({ label: 'Reason', name: 'reason', required: true })) : '') },
], lines, 'The statement has no line.')}
${table('Movements Corridor booked that day which no line matched', [
  { label: 'Kind', cell: (m: (typeof s.movementsNotOnStatement)[number]) => m.kind },
  { label: 'Amount', cell: (m) => money(`${m.direction === 'debit' ? '-' : ''}${m.amount}`, m.currency), numeric: true },
  { label: 'Object', cell: (m) => html`${m.object.type} <code>${m.object.id}</code>` },
], s.movementsNotOnStatement, 'None: the bank shows every movement Corridor booked.')}`;
  return sendPage(web, req, reply, { title: `Statement ${s.statementId}`, body, status: refusal?.status });
}

/** The Reconciliation page per bank account and day, a statement's lines, and the decisions (ignore a line, resolve an exception), each audited. */
export function reconciliationPages(app: FastifyInstance, web: Web): void {
  app.get('/console/reconciliation', consolePage, async (req, reply) => reconciliationPage(web, req, reply));
  app.get<Params>('/console/reconciliation/statements/:id', consoleRoute(IdPath), async (req, reply) => statementPage(web, req, reply));
  // The statement's lines as CSV for the signed-in console (the operator API's lines.csv wants the key as a bearer).
  app.get<Params>('/console/reconciliation/statements/:id/lines.csv', consoleRoute(IdPath), async (req, reply) => {
    const csv = await statementCsv(web.ctx.db, req.params.id);
    return reply.type('text/csv; charset=utf-8').header('content-disposition', `attachment; filename="statement-${req.params.id}.csv"`).send(csv);
  });
  app.post<Params>('/console/reconciliation/lines/:id/ignore', consoleRoute(IdPath), async (req, reply) => {
    const result = await attempt(() => changeOnce(web.ctx, req, async (tx) => `/console/reconciliation/statements/${(await ignoreLineAndStatement(tx, req))}`));
    if ('refused' in result) return reconciliationPage(web, req, reply, result.refused);
    return seeOther(reply, result.done);
  });
  app.post<Params>('/console/reconciliation/exceptions/:id/resolve', consoleRoute(IdPath), async (req, reply) => {
    const result = await attempt(() => changeOnce(web.ctx, req, async (tx) => (await resolveException(tx, req.params.id, formText(req, 'resolution', { maxLength: 500 }), decider(req)), '/console/reconciliation')));
    if ('refused' in result) return reconciliationPage(web, req, reply, result.refused);
    return seeOther(reply, result.done);
  });
}

async function ignoreLineAndStatement(tx: Parameters<typeof ignoreLine>[0], req: FastifyRequest<Params>): Promise<string> {
  const line = await ignoreLine(tx, req.params.id, formText(req, 'reason', { maxLength: 500 }), decider(req));
  return line.statementId;
}
