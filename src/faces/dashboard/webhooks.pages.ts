import type { FastifyInstance, FastifyRequest } from 'fastify';
import { copyable, checkboxes, facts, live, field, link, notice, postForm, secretOnce, section, status, table, when, pageNav, pagePosition, pageRequest, type PagePosition } from '../web/components.js';
import { formList, formOptional, formText, queryText } from '../web/forms.js';
import { html, type Html } from '../../platform/lib/html.js';
import { sendPage, seeOther, type Web } from '../web/web.js';
import { SUBSCRIBABLE_EVENT_TYPES } from '../../domains/webhooks/event-types.js';
import type { AttemptRecord } from '../../domains/webhooks/webhooks.service.js';
import * as webhooks from '../../domains/webhooks/webhooks.service.js';
import { actingAccount, canChange, rightPage, dashboardUser, memberPage, refusalOf, type Refusal } from './caller.js';

type Endpoint = ReturnType<typeof webhooks.endpointView>;
type Delivery = ReturnType<typeof webhooks.deliveryView>;
type EndpointRequest = FastifyRequest<{ Params: { id: string } }>;

const DESCRIPTION_LENGTH_MAX = 500;
const URL_FIELD_LENGTH_MAX = 2048;

const noRefusal: Refusal = { status: 200, message: '', fields: {} };
const endpointPath = (id: string): string => `/dashboard/webhooks/${encodeURIComponent(id)}`;
const subscribed = (e: Endpoint): string => (e.events ? e.events.join(', ') : 'every type');

function createForm(req: FastifyRequest, refusal: Refusal): Html {
  const posted = req.method === 'POST';
  return section(
    'New endpoint',
    refusal.message ? notice('error', refusal.message) : '',
    postForm(
      { action: '/dashboard/webhooks', csrf: req.web.csrf, submit: 'Add endpoint' },
      field({ label: 'URL', name: 'url', type: 'url', required: true, value: posted ? formText(req, 'url', { maxLength: URL_FIELD_LENGTH_MAX }) : undefined, help: 'HTTPS, reachable from Corridor', error: refusal.fields.url }),
      field({ label: 'Description', name: 'description', value: posted ? formText(req, 'description', { maxLength: DESCRIPTION_LENGTH_MAX }) : undefined, error: refusal.fields.description }),
      checkboxes({ legend: 'Event types (none ticked: every type, new ones included)', name: 'events', options: SUBSCRIBABLE_EVENT_TYPES, checked: posted ? formList(req, 'events') : [] }),
      refusal.fields.events ? html`<p class="error">${refusal.fields.events}</p>` : html``,
    ),
  );
}

function listBody(req: FastifyRequest, page: { data: Endpoint[]; nextCursor: string | null; total?: number; at: PagePosition }, refusal = noRefusal): Html {
  return html`${section(
    'Webhook endpoints',
    html`<p class="help">Corridor POSTs each event, signed with the endpoint's secret, to every enabled endpoint subscribed to its type.</p>`,
    table(
      'The workspace webhook endpoints, newest first',
      [
        { label: 'URL', cell: (e) => link(endpointPath(e.id), e.url) },
        { label: 'Status', cell: (e) => status(e.status) },
        { label: 'Events', cell: subscribed },
        { label: 'Description', cell: (e) => e.description ?? '' },
        { label: 'Created', cell: (e) => when(e.createdAt) },
      ],
      page.data,
      'No endpoints yet.',
    ),
    pageNav('/dashboard/webhooks', {}, page.at, page),
  )}${canChange(req, 'webhooks') ? createForm(req, refusal) : ''}`;
}

function attemptsList(attempts: readonly AttemptRecord[]): Html {
  if (attempts.length === 0) return html`<span class="muted">none yet</span>`;
  return html`<ol class="attempts">${attempts.map(
    (a) => html`<li>#${a.number} ${when(a.at)}: ${a.responseStatus === null ? 'no answer' : html`HTTP <strong>${a.responseStatus}</strong>`} in ${a.durationMs} ms${a.error ? html` · ${a.error}` : ''}</li>`,
  )}</ol>`;
}

/** A finished delivery (succeeded or failed) can be sent again, once the receiver is fixed. */
function resendForm(req: FastifyRequest, endpointId: string, d: Delivery): Html {
  if (d.status === 'pending') return html`<span class="muted">retrying</span>`;
  return postForm({ action: `${endpointPath(endpointId)}/deliveries/${encodeURIComponent(d.id)}/resend`, csrf: req.web.csrf, submit: 'Resend', inline: true });
}

function deliveriesTable(req: FastifyRequest, endpointId: string, deliveries: readonly Delivery[]): Html {
  return table(
    'Deliveries to this endpoint, newest first',
    [
      { label: 'Created', cell: (d) => when(d.createdAt) },
      { label: 'Event', cell: (d) => html`${d.eventType}<br><code>${d.eventId}</code>` },
      { label: 'Status', cell: (d) => status(d.status) },
      { label: 'Attempts (status, time)', cell: (d) => attemptsList(d.attempts) },
      { label: 'Next retry', cell: (d) => when(d.nextAttemptAt) },
      ...(canChange(req, 'webhooks') ? [{ label: 'Send again', cell: (d: Delivery) => resendForm(req, endpointId, d) }] : []),
    ],
    deliveries,
    'No deliveries yet.',
  );
}

function actions(req: FastifyRequest, endpoint: Endpoint): Html {
  const path = endpointPath(endpoint.id);
  const enabled = endpoint.status === 'enabled';
  return section(
    'Actions',
    html`<div class="actions">
${postForm({ action: `${path}/test`, csrf: req.web.csrf, submit: 'Send a test event', inline: true })}
${postForm({ action: `${path}/${enabled ? 'disable' : 'enable'}`, csrf: req.web.csrf, submit: enabled ? 'Disable' : 'Enable', inline: true })}
${postForm({ action: `${path}/rotate-secret`, csrf: req.web.csrf, submit: 'Rotate signing secret', inline: true, confirm: 'Make a new signing secret? The current one stops signing at once.' })}
${postForm({ action: `${path}/delete`, csrf: req.web.csrf, submit: 'Delete endpoint', inline: true, danger: true, confirm: 'Delete this endpoint and its delivery history?' })}
</div>`,
  );
}

function detailBody(req: FastifyRequest, endpoint: Endpoint, deliveries: { data: Delivery[]; nextCursor: string | null; total?: number; at: PagePosition }, top: Html | '' = ''): Html {
  // Just after "Send a test event" the page follows the delivery until it is settled, with no reload.
  const justTested = queryText(req, 'done') === 'test' && deliveries.data.length === 0;
  return html`${top}${section(
    'Endpoint',
    facts([
      ['URL', copyable(endpoint.url)],
      ['Status', status(endpoint.status)],
      ['Events', subscribed(endpoint)],
      ['Description', endpoint.description],
      ['Created', when(endpoint.createdAt)],
      ['Id', copyable(endpoint.id)],
    ]),
  )}${canChange(req, 'webhooks') ? actions(req, endpoint) : ''}
${section('Delivery history', live('deliveries', deliveries.data.some((d) => d.status === 'pending') || justTested, deliveriesTable(req, endpoint.id, deliveries.data)), pageNav(endpointPath(endpoint.id), {}, deliveries.at, deliveries))}
<p>${link('/dashboard/webhooks', '← All endpoints')}</p>`;
}

const DONE_NOTICES: Record<string, string> = {
  test: 'A test event is on its way; its delivery is listed below and updates by itself.',
  resent: 'The delivery is being sent again, signed anew; its new attempt is listed below and updates by itself.',
  enabled: 'The endpoint is enabled.',
  disabled: 'The endpoint is disabled: it gets no new deliveries until enabled again.',
};

/** Webhook endpoints: list, create (secret shown once), detail with deliveries, test, enable or disable, rotate (shown once), delete. */
export function webhookPages(app: FastifyInstance, web: Web): void {
  const { ctx } = web;
  const rules = (): webhooks.EndpointRules => webhooks.endpointRules(ctx.config);
  const workspaceOf = (req: FastifyRequest) => dashboardUser(req).workspaceId;
  const listPage = async (req: FastifyRequest) => {
    const at = pagePosition((req.query ?? {}) as Record<string, unknown>);
    return { ...(await webhooks.listEndpoints(ctx.db, workspaceOf(req), pageRequest(at))), at };
  };
  const detailPage = async (req: EndpointRequest, top: Html | '' = '') => {
    const endpoint = webhooks.endpointView(await webhooks.getEndpoint(ctx.db, workspaceOf(req), req.params.id));
    const at = pagePosition((req.query ?? {}) as Record<string, unknown>);
    const deliveries = await webhooks.listDeliveries(ctx.db, workspaceOf(req), endpoint.id, pageRequest(at));
    return detailBody(req, endpoint, { ...deliveries, at }, top);
  };

  app.get('/dashboard/webhooks', memberPage, async (req, reply) => sendPage(web, req, reply, { title: 'Webhooks', body: listBody(req, await listPage(req)) }));

  app.post('/dashboard/webhooks', rightPage('webhooks'), async (req, reply) => {
    try {
      const events = formList(req, 'events', SUBSCRIBABLE_EVENT_TYPES.length);
      const input = { url: formText(req, 'url', { maxLength: URL_FIELD_LENGTH_MAX }), description: formOptional(req, 'description', DESCRIPTION_LENGTH_MAX) ?? null, events: events.length ? events : null };
      reply.code(201); // the answer when it commits (its audit entry records it)
      const { row, secret } = await ctx.db.tx((tx) => webhooks.createEndpoint(tx, ctx.box, rules(), actingAccount(req), input));
      const body = html`${secretOnce('The signing secret.', secret)}
<p>Verify each delivery's <code>X-Service-Signature</code>: hex HMAC-SHA256, keyed with this whole secret, of <code>&lt;X-Service-Timestamp&gt;.&lt;raw body&gt;</code>.</p>
<p>${link(endpointPath(row.id), 'This endpoint')} · ${link('/dashboard/webhooks', 'All endpoints')}</p>`;
      return sendPage(web, req, reply, { title: 'Endpoint added', status: 201, body });
    } catch (err) {
      const refusal = refusalOf(err);
      return sendPage(web, req, reply, { title: 'Webhooks', status: refusal.status, body: listBody(req, await listPage(req), refusal) });
    }
  });

  app.get<{ Params: { id: string } }>('/dashboard/webhooks/:id', memberPage, async (req, reply) => {
    const done = DONE_NOTICES[queryText(req, 'done') ?? ''];
    return sendPage(web, req, reply, { title: 'Webhook endpoint', body: await detailPage(req, done ? notice('success', done) : '') });
  });

  app.post<{ Params: { id: string } }>('/dashboard/webhooks/:id/test', rightPage('webhooks'), async (req, reply) => {
    try {
      await ctx.db.tx((tx) => webhooks.sendTestEvent(tx, workspaceOf(req), req.params.id));
    } catch (err) {
      const refusal = refusalOf(err);
      return sendPage(web, req, reply, { title: 'Webhook endpoint', status: refusal.status, body: await detailPage(req, notice('error', refusal.message)) });
    }
    return seeOther(reply, `${endpointPath(req.params.id)}?done=test`);
  });

  app.post<{ Params: { id: string; deliveryId: string } }>('/dashboard/webhooks/:id/deliveries/:deliveryId/resend', rightPage('webhooks'), async (req, reply) => {
    try {
      await ctx.db.tx((tx) => webhooks.resendDelivery(tx, workspaceOf(req), req.params.id, req.params.deliveryId));
    } catch (err) {
      const refusal = refusalOf(err);
      return sendPage(web, req, reply, { title: 'Webhook endpoint', status: refusal.status, body: await detailPage(req, notice('error', refusal.message)) });
    }
    return seeOther(reply, `${endpointPath(req.params.id)}?done=resent`);
  });

  for (const [action, change] of [['enable', 'enabled'], ['disable', 'disabled']] as const) {
    app.post<{ Params: { id: string } }>(`/dashboard/webhooks/:id/${action}`, rightPage('webhooks'), async (req, reply) => {
      await webhooks.updateEndpoint(ctx.db, ctx.box, rules(), workspaceOf(req), req.params.id, { status: change });
      return seeOther(reply, `${endpointPath(req.params.id)}?done=${change}`);
    });
  }

  app.post<{ Params: { id: string } }>('/dashboard/webhooks/:id/rotate-secret', rightPage('webhooks'), async (req, reply) => {
    reply.code(200); // the answer when it commits (its audit entry records it)
    const { secret } = await ctx.db.tx((tx) => webhooks.rotateSecret(tx, ctx.box, workspaceOf(req), req.params.id));
    const body = html`${secretOnce('The new signing secret.', secret)}
<p>It signs every later attempt, retries included; the previous secret no longer does.</p>
<p>${link(endpointPath(req.params.id), 'Back to the endpoint')}</p>`;
    return sendPage(web, req, reply, { title: 'Signing secret rotated', body });
  });

  app.post<{ Params: { id: string } }>('/dashboard/webhooks/:id/delete', rightPage('webhooks'), async (req, reply) => {
    await webhooks.deleteEndpoint(ctx.db, workspaceOf(req), req.params.id);
    return seeOther(reply, '/dashboard/webhooks');
  });
}
