import { Readable } from 'node:stream';
import { csvLine } from '../../platform/lib/csv.js';
import type { FastifyInstance } from 'fastify';
import { accountColumn, copyable, facts, field, filterForm, link, pageNav, pagePosition, pageRequest, section, status, table, when } from '../web/components.js';
import { queryText } from '../web/forms.js';
import { html, type Html } from '../../platform/lib/html.js';
import { sendPage, type Web } from '../web/web.js';
import { EventParams } from '../../domains/events/events.schemas.js';
import * as events from '../../domains/events/events.service.js';
import { deliveriesOfEvents } from '../../domains/webhooks/webhooks.service.js';
import { dashboardUser, memberPage } from './caller.js';

const EVENT_TYPE = /^[a-z_]+\.[a-z_]+$/;

type Delivery = Awaited<ReturnType<typeof deliveriesOfEvents>>[number];

/** Each attempt of a delivery: when, what came back, how long it took. */
function attemptsList(delivery: Delivery): Html {
  if (delivery.attempts.length === 0) return html`<span class="muted">no attempt yet</span>`;
  return html`<ol class="attempts">${delivery.attempts.map(
    (a) => html`<li>attempt ${a.number} at ${when(a.at)}: ${a.responseStatus === null ? 'no response' : `HTTP ${a.responseStatus}`}${a.error ? ` (${a.error})` : ''}, ${a.durationMs} ms</li>`,
  )}</ol>`;
}

/** The webhook deliveries of some events, each with its attempts (an event's page, a payout's timeline). */
export function deliveriesTable(caption: string, deliveries: readonly Delivery[]): Html {
  return table(
    caption,
    [
      { label: 'Event', cell: (d) => html`${d.eventType} ${link(`/dashboard/events/${d.eventId}`, html`<code>${d.eventId}</code>`)}` },
      { label: 'Endpoint', cell: (d) => html`<code>${d.endpointId}</code>` },
      { label: 'Status', cell: (d) => status(d.status) },
      { label: 'Attempts', cell: (d) => attemptsList(d) },
      { label: 'Next attempt', cell: (d) => when(d.nextAttemptAt) },
    ],
    deliveries,
    'No webhook delivery: no endpoint was subscribed to these events when they happened.',
  );
}

/** The events behind the webhooks (as GET /v1/events), each with its payload and deliveries. */
export function eventPages(app: FastifyInstance, web: Web): void {
  const { ctx } = web;

  app.get('/dashboard/events', memberPage, async (req, reply) => {
    const typed = queryText(req, 'type');
    const type = typed && EVENT_TYPE.test(typed) ? typed : undefined;
    const at = pagePosition((req.query ?? {}) as Record<string, unknown>);
    const page = await events.listEvents(ctx.db, dashboardUser(req).workspaceId, { type, ...pageRequest(at) });
    const body = html`${filterForm('/dashboard/events', [field({ label: 'Event type', name: 'type', value: type, help: 'For example payout.paid' })])}
${table(
  'Events, newest first',
  [
    { label: 'When', cell: (e) => when(e.createdAt) },
    { label: 'Type', cell: (e) => e.type },
    { label: 'Event', cell: (e) => link(`/dashboard/events/${e.id}`, html`<code>${e.id}</code>`) },
    { label: 'About', cell: (e) => (typeof e.data.id === 'string' ? html`<code>${e.data.id}</code>` : '') },
    // The workspace's events, its sub-accounts' included.
    ...accountColumn(undefined, (e: (typeof page.data)[number]) => e.accountId),
  ],
  page.data,
  type ? `No ${type} event.` : 'No event yet.',
)}
${pageNav('/dashboard/events', { type }, at, page)}
<p>${link(`/dashboard/events/export.csv${type ? `?type=${encodeURIComponent(type)}` : ''}`, 'Export these events (CSV)')}</p>`;
    return sendPage(web, req, reply, { title: 'Events', body });
  });

  // Events as CSV (the payload as JSON in its own column), with the list's type filter, streamed page by page.
  app.get('/dashboard/events/export.csv', memberPage, async (req, reply) => {
    const typed = queryText(req, 'type');
    const type = typed && EVENT_TYPE.test(typed) ? typed : undefined;
    const workspaceId = dashboardUser(req).workspaceId;
    async function* csv(): AsyncGenerator<string> {
      yield csvLine(['id', 'createdAt', 'type', 'objectId', 'data']);
      let cursor: string | undefined;
      do {
        const page = await events.listEvents(ctx.db, workspaceId, { type, cursor, limit: ctx.config.limits.pageLimitMax });
        yield page.data.map((e) => csvLine([e.id, e.createdAt, e.type, typeof e.data.id === 'string' ? e.data.id : '', JSON.stringify(e.data)])).join('');
        cursor = page.nextCursor ?? undefined;
      } while (cursor);
    }
    return reply.type('text/csv; charset=utf-8').header('content-disposition', 'attachment; filename="events.csv"').send(Readable.from(csv()));
  });

  app.get<{ Params: { id: string } }>(
    '/dashboard/events/:id',
    { ...memberPage, schema: { hide: true, params: EventParams } },
    async (req, reply) => {
      const workspaceId = dashboardUser(req).workspaceId;
      const event = events.eventView(await events.getEvent(ctx.db, workspaceId, req.params.id));
      const deliveries = await deliveriesOfEvents(ctx.db, workspaceId, [event.id], ctx.config.limits.eventDeliveriesMax);
      // The payload is focusable: on a phone it scrolls sideways, and a keyboard must be able to scroll it.
      const body = html`${facts([
        ['Event id', copyable(event.id)],
        ['Type', event.type],
        ['Created', when(event.createdAt)],
        ['Test event', event.test ? 'yes' : 'no'],
        ['Sub-account', event.accountId],
      ])}
${section('Payload', html`<pre class="json" tabindex="0" role="region" aria-label="The event as JSON">${JSON.stringify(event, null, 2)}</pre>`)}
${section('Webhook deliveries', deliveriesTable('Deliveries of this event and their attempts', deliveries))}`;
      return sendPage(web, req, reply, { title: `Event ${event.type}`, body });
    },
  );
}
