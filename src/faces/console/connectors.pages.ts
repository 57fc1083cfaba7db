import type { FastifyInstance } from 'fastify';
import { link, table, when } from '../web/components.js';
import { html } from '../../platform/lib/html.js';
import { sendPage, type Web } from '../web/web.js';
import type { ConnectorHealth, RouteConnector } from '../../connectors/connector.js';
import { consolePage } from './console.kit.js';

/** A route's currencies served by a connector of their own: `NGN by paystack, GBP by clearbank`. */
const servedBy = (currencies: RouteConnector['currencies']) => html`${currencies.map((c, i) => html`${i > 0 ? ', ' : ''}<code>${c.currency}</code> by ${c.connector}`)}`;

/** Which connector serves each route, as CORRIDOR_CONNECTORS_FILE set it at start (read only: the file is the configuration). */
export function connectorPages(app: FastifyInstance, web: Web): void {
  app.get('/console/connectors', consolePage, async (req, reply) => {
    const routes = web.ctx.connectors.routes();
    const health = await web.ctx.connectors.health(web.ctx.db);
    const body = html`<p>Which connector pays each route. Set in <code>CORRIDOR_CONNECTORS_FILE</code> and checked at start; a change applies to payouts created after the next start (docs/guides/connectors.md).</p>
${table<RouteConnector>(
  'Routes and their connectors',
  [
    { label: 'Route', cell: (r) => html`<code>${r.route}</code>` },
    { label: 'Connector', cell: (r) => html`${r.connector}${r.currencies.length ? html` <span class="muted">(other currencies)</span>` : ''}` },
    { label: 'Currencies served otherwise', cell: (r) => (r.currencies.length === 0 ? html`<span class="muted">none</span>` : servedBy(r.currencies)) },
    {
      label: 'Workspaces served otherwise',
      cell: (r) =>
        r.overrides.length === 0
          ? html`<span class="muted">none</span>`
          : html`${r.overrides.map((o, i) => html`${i > 0 ? '; ' : ''}${link(`/console/workspaces/${o.workspaceId}`, o.workspaceId)} (${o.connector ?? ''}${o.connector && o.currencies.length ? ', ' : ''}${servedBy(o.currencies)})`)}`,
    },
  ],
  routes,
)}
${table<ConnectorHealth>(
  'Health of each connector',
  [
    { label: 'Connector', cell: (h) => h.connector },
    { label: 'Can', cell: (h) => html`${h.capabilities.map((c, i) => html`${i > 0 ? ', ' : ''}<code>${c}</code>`)}` },
    { label: 'Last success', cell: (h) => when(h.lastSuccessAt?.toISOString()) },
    { label: 'Last file', cell: (h) => when(h.lastFileAt?.toISOString()) },
    { label: 'Last error', cell: (h) => (h.lastError ? html`${when(h.lastError.at.toISOString())} ${h.lastError.message}` : html`<span class="muted">none</span>`) },
    { label: 'Backlog', cell: (h) => html`${h.backlog.count}${h.backlog.oldestSince ? html`, the oldest waiting since ${when(h.backlog.oldestSince.toISOString())}` : ''}` },
  ],
  health,
)}`;
    return sendPage(web, req, reply, { title: 'Connectors', body });
  });
}
