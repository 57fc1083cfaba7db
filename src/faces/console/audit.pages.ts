import type { FastifyInstance, FastifyRequest } from 'fastify';
import { field, filterForm, link, select, table, when, pageNav, pagePosition, pageRequest } from '../web/components.js';
import { queryText } from '../web/forms.js';
import { html } from '../../platform/lib/html.js';
import { sendPage, type Web } from '../web/web.js';
import * as operator from '../../controls/operator/operator.service.js';
import { userEmails } from '../../domains/users/users.service.js';
import { attempt, consolePage, refusalNotice } from './console.kit.js';

const METHODS = ['POST', 'PUT', 'PATCH', 'DELETE', 'GET'] as const;

/** The filters as typed: passed to the same filter implementation the API's audit-log query uses (it refuses what does not parse). */
function filtersOf(req: FastifyRequest): Record<string, string | undefined> {
  return {
    workspaceId: queryText(req, 'workspaceId'),
    method: queryText(req, 'method'),
    pathContains: queryText(req, 'pathContains'),
    statusCode: queryText(req, 'statusCode'),
    actor: queryText(req, 'actor'),
    from: queryText(req, 'from'),
    to: queryText(req, 'to'),
  };
}

type Entry = Awaited<ReturnType<typeof operator.listAudit>>['data'][number];

/** The audit log: every operator call and console change, newest first, with filters. */
export function auditPages(app: FastifyInstance, web: Web): void {
  app.get('/console/audit', consolePage, async (req, reply) => {
    const f = filtersOf(req);
    const statusCode = f.statusCode === undefined ? undefined : Number(f.statusCode);
    const at = pagePosition((req.query ?? {}) as Record<string, unknown>);
    const result = await attempt(() => operator.listAudit(web.ctx.db, { ...f, statusCode, ...pageRequest(at) }));
    const page = 'done' in result ? result.done : { data: [] as Entry[], nextCursor: null };
    const refusal = 'refused' in result ? result.refused : undefined;
    // A person is kept as `user:<id>`; the page names them by their email.
    const userIdOf = (actor: string | null) => (actor?.startsWith('user:') ? actor.slice('user:'.length) : undefined);
    const emails = await userEmails(web.ctx.db, web.ctx.box, page.data.map((e) => userIdOf(e.actor)).filter((id): id is string => id !== undefined));
    const actorCell = (actor: string | null) => {
      const email = emails.get(userIdOf(actor) ?? '');
      return email ? html`${email} <span class="muted">${actor}</span>` : (actor ?? 'api');
    };
    const body = html`${filterForm('/console/audit', [
      field({ label: 'Workspace id', name: 'workspaceId', value: f.workspaceId, error: refusal?.fields.workspaceId }),
      select({ label: 'Method', name: 'method', options: [{ value: '', label: 'any' }, ...METHODS], value: f.method ?? '' }),
      field({ label: 'Path contains', name: 'pathContains', value: f.pathContains }),
      field({ label: 'Status', name: 'statusCode', type: 'number', value: f.statusCode, error: refusal?.fields.statusCode }),
      field({ label: 'Actor', name: 'actor', value: f.actor, help: 'console, user:<id>, or api' }),
      field({ label: 'From', name: 'from', value: f.from, help: 'Date-time, such as 2025-01-31T00:00:00Z', error: refusal?.fields.from }),
      field({ label: 'To', name: 'to', value: f.to, error: refusal?.fields.to }),
    ])}${refusalNotice(refusal)}
${table('Audit log, newest first', [
  { label: 'At', cell: (e: Entry) => when(e.at) },
  { label: 'Actor', cell: (e) => actorCell(e.actor) },
  { label: 'Call', cell: (e) => html`<code>${e.method} ${e.path}</code>` },
  { label: 'Status', cell: (e) => String(e.statusCode), numeric: true },
  { label: 'Workspace', cell: (e) => (e.workspaceId ? link(`/console/workspaces/${e.workspaceId}`, e.workspaceId) : '') },
  { label: 'Body', cell: (e) => (e.body === null || e.body === undefined ? '' : html`<code>${JSON.stringify(e.body)}</code>`) },
], page.data, 'No entry matches.')}
${pageNav('/console/audit', f, at, page)}`;
    return sendPage(web, req, reply, { title: 'Audit log', body, status: refusal?.status });
  });
}
