import type { FastifyInstance } from 'fastify';
import { copyable, facts, field, filterForm, link, pageNav, pagePosition, pageRequest, section, select, table, when } from '../web/components.js';
import { queryText } from '../web/forms.js';
import { html, type Html } from '../../platform/lib/html.js';
import { sendPage, type Web } from '../web/web.js';
import { IdParams } from '../../platform/lib/schemas.js';
import * as requestLogs from '../../controls/request-logs/request-logs.service.js';
import { dashboardUser, memberPage } from './caller.js';

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

/** A body as stored (already redacted), focusable so a keyboard can scroll it. */
function bodyBlock(label: string, body: unknown): Html {
  if (body === null || body === undefined) return html`<p class="muted">No body.</p>`;
  return html`<pre class="json" tabindex="0" role="region" aria-label="${label}">${JSON.stringify(body, null, 2)}</pre>`;
}

/** The workspace's recent API requests (as GET /v1/request-logs), each with its redacted bodies. */
export function requestLogPages(app: FastifyInstance, web: Web): void {
  const { ctx } = web;

  app.get('/dashboard/request-logs', memberPage, async (req, reply) => {
    const chosen = queryText(req, 'method');
    const method = METHODS.find((m) => m === chosen);
    const statusText = queryText(req, 'status');
    const statusCode = statusText && /^[1-5]\d\d$/.test(statusText) ? Number(statusText) : undefined;
    const failed = queryText(req, 'failed') === 'yes' ? true : undefined;
    const at = pagePosition((req.query ?? {}) as Record<string, unknown>);
    const page = await requestLogs.listRequestLogs(ctx.db, dashboardUser(req).workspaceId, { method, status: statusCode, failed, ...pageRequest(at) });
    const days = ctx.config.retention.requestLogsDays;
    const body = html`<p>The API requests made with this workspace's credentials in the last ${String(days)} day${days === 1 ? '' : 's'}, newest first, about a second behind. Secrets and personal data in the bodies are shown as [redacted]. <code>corridor logs tail</code> follows them in a terminal.</p>
${filterForm('/dashboard/request-logs', [
  select({ label: 'Method', name: 'method', options: [{ value: '', label: 'Any' }, ...METHODS], value: method ?? '' }),
  field({ label: 'Status', name: 'status', value: statusCode === undefined ? undefined : String(statusCode), help: 'For example 422' }),
  select({ label: 'Outcome', name: 'failed', options: [{ value: '', label: 'Any' }, { value: 'yes', label: 'Failed (400 and above)' }], value: failed ? 'yes' : '' }),
])}
${table(
  'API requests, newest first',
  [
    { label: 'When', cell: (r) => when(r.createdAt) },
    { label: 'Request', cell: (r) => link(`/dashboard/request-logs/${r.id}`, html`${r.method} <code>${r.path}</code>`) },
    { label: 'Status', cell: (r) => html`<span class="status family-${r.status >= 400 ? 'stopped' : 'done'}">${String(r.status)}</span>` },
    { label: 'Duration', cell: (r) => `${r.durationMs} ms` },
    { label: 'Caller', cell: (r) => html`<code>${r.caller}</code>` },
    { label: 'Idempotency-Key', cell: (r) => (r.idempotencyKey ? html`<code>${r.idempotencyKey}</code>` : '') },
  ],
  page.data,
  method || statusCode || failed ? 'No request matches.' : 'No API request yet.',
)}
${pageNav('/dashboard/request-logs', { method, status: statusText, failed: failed ? 'yes' : undefined }, at, page)}`;
    return sendPage(web, req, reply, { title: 'Request logs', body });
  });

  app.get<{ Params: { id: string } }>('/dashboard/request-logs/:id', { ...memberPage, schema: { hide: true, params: IdParams } }, async (req, reply) => {
    const r = await requestLogs.getRequestLog(ctx.db, dashboardUser(req).workspaceId, req.params.id);
    const body = html`${facts([
      ['Request', html`${r.method} <code>${r.path}</code>`],
      ['Status', String(r.status)],
      ['When', when(r.createdAt)],
      ['Duration', `${r.durationMs} ms`],
      ['Request id', copyable(r.requestId)],
      ['Idempotency-Key', r.idempotencyKey ? copyable(r.idempotencyKey) : 'none'],
      ['Caller', html`<code>${r.caller}</code>`],
      ['Account', html`<code>${r.accountId}</code>`],
    ])}
${section('Request body', bodyBlock('The request body as JSON, redacted', r.requestBody))}
${section('Response body', bodyBlock('The response body as JSON, redacted', r.responseBody))}
<p>${link('/dashboard/request-logs', 'All requests')}</p>`;
    return sendPage(web, req, reply, { title: `${r.method} ${r.path.split('?')[0]}`, body });
  });
}
