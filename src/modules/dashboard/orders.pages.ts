import type { FastifyInstance, FastifyRequest } from 'fastify';
import { IdParams } from '../../lib/schemas.js';
import { facts, field, filterForm, link, money, notice, pager, postForm, section, select, status, table, when } from '../../web/components.js';
import { queryChoice, queryText } from '../../web/forms.js';
import { html, type Html } from '../../web/html.js';
import { sendPage, seeOther, type Web } from '../../web/web.js';
import { cancelOwnOrder } from '../orders/orders.lifecycle.js';
import { getOrder, listOrders, orderData, type OrderView } from '../orders/orders.read.js';
import { MOVE_FROM, ORDER_STATUSES, type OrderMove } from '../orders/orders.transitions.js';
import { actingAccount, dashboardCaller, dashboardUser, memberPage } from './caller.js';
import { attempt } from '../../web/forms.js';

const byId = { schema: { hide: true, params: IdParams } };

/** The desk's moves the sandbox simulates, offered where the order can take them (sandbox.pages.ts answers them). */
export const SANDBOX_ORDER_MOVES: readonly { move: Exclude<OrderMove, 'cancel' | 'review-expire'>; label: string }[] = [
  { move: 'confirm-funds', label: 'Sandbox: settlement received' },
  { move: 'execute', label: 'Sandbox: start execution' },
  { move: 'complete', label: 'Sandbox: complete' },
  { move: 'fail', label: 'Sandbox: fail' },
  { move: 'expire', label: 'Sandbox: expire' },
];

/** How to pay a settlement-funded order: amount, reference, the collection account, whether a proof is needed. */
function settlementSection(order: OrderView): Html {
  const s = order.settlement;
  if (!s) return html``;
  return section(
    'Settlement instructions',
    facts([
      ['Send', money(s.requiredAmount, s.currency)],
      ['Reference (put it on the transfer)', html`<code>${s.reference}</code>`],
      ['Method', s.method],
      ['Settlement status', status(s.status)],
      ['Pay before', when(s.expiresAt)],
      ['Proof of payment', s.requirements.proofOfPayment ? 'required (upload it through the API)' : 'not needed'],
      ...Object.entries(s.instructions).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)] as const),
    ]),
  );
}

function actions(web: Web, req: FastifyRequest, order: OrderView): Html {
  if (dashboardUser(req).role !== 'admin') return html``;
  const forms: Html[] = [];
  if (MOVE_FROM.cancel.includes(order.status)) {
    forms.push(postForm({ action: `/dashboard/orders/${order.id}/cancel`, csrf: req.web.csrf, submit: 'Cancel this order', danger: true, confirm: 'Cancel this order? Held funds return to the balance.', inline: true }));
  }
  if (web.sandbox) {
    for (const s of SANDBOX_ORDER_MOVES.filter((m) => MOVE_FROM[m.move].includes(order.status))) {
      forms.push(postForm({ action: `/dashboard/sandbox/orders/${order.id}/${s.move}`, csrf: req.web.csrf, submit: s.label, inline: true }));
    }
  }
  return forms.length ? section('Actions', html`<div class="actions">${forms}</div>`) : html``;
}

async function detailBody(web: Web, req: FastifyRequest, id: string, refusal?: string): Promise<{ title: string; body: Html }> {
  const order = orderData(await getOrder(web.ctx.db, dashboardUser(req).workspaceId, id));
  const body = html`${refusal ? notice('error', refusal) : ''}
${facts([
  ['Status', status(order.status)],
  ['Sell', money(order.fromAmount, order.fromCurrency)],
  ['Buy', money(order.toAmount, order.toCurrency)],
  ['Rate', `${order.rate} ${order.fromCurrency} per ${order.toCurrency}`],
  ['Funding', order.funding],
  ['Delivered to', order.beneficiaryId ? link(`/dashboard/beneficiaries/${order.beneficiaryId}`, 'a beneficiary') : 'own balance'],
  ['Client reference', order.clientRef],
  ['Failure reason', order.failureReason],
  ['UETR', order.uetr],
  ['Created', when(order.createdAt)],
  ['Funding deadline', when(order.fundingDeadlineAt)],
  ['Funded', when(order.fundedAt)],
  ['Execution deadline', when(order.executionDeadlineAt)],
  ['Completed', when(order.completedAt)],
])}
${settlementSection(order)}
${actions(web, req, order)}`;
  return { title: `Order ${order.clientRef ?? order.id}`, body };
}

/** Trade-desk orders (as GET /v1/orders): list, detail with settlement instructions, cancelling. */
export function orderPages(app: FastifyInstance, web: Web): void {
  const { ctx } = web;

  app.get('/dashboard/orders', memberPage, async (req, reply) => {
    const f = { status: queryChoice(req, 'status', ORDER_STATUSES), clientRef: queryText(req, 'clientRef') };
    const list = await listOrders(ctx.db, actingAccount(req), { ...f, cursor: queryText(req, 'cursor') });
    const body = html`${filterForm('/dashboard/orders', [
      select({ label: 'Status', name: 'status', options: [{ value: '', label: 'Any' }, ...ORDER_STATUSES], value: f.status ?? '' }),
      field({ label: 'Client reference', name: 'clientRef', value: f.clientRef }),
    ])}
${table(
  'Orders, newest first',
  [
    { label: 'Created', cell: (o) => when(o.createdAt) },
    { label: 'Client reference', cell: (o) => link(`/dashboard/orders/${o.id}`, o.clientRef ?? o.id) },
    { label: 'Sell', numeric: true, cell: (o) => money(o.fromAmount, o.fromCurrency) },
    { label: 'Buy', numeric: true, cell: (o) => money(o.toAmount, o.toCurrency) },
    { label: 'Funding', cell: (o) => o.funding },
    { label: 'Status', cell: (o) => status(o.status) },
  ],
  list.data,
  'No order matches.',
)}
${pager('/dashboard/orders', f, list.nextCursor)}`;
    return sendPage(web, req, reply, { title: 'Orders', body });
  });

  app.get<{ Params: { id: string } }>('/dashboard/orders/:id', { ...byId, config: memberPage.config }, async (req, reply) => sendPage(web, req, reply, await detailBody(web, req, req.params.id)));

  // The same service as POST /v1/orders/:id/cancel; a refusal (409) is shown on the order's page.
  app.post<{ Params: { id: string } }>('/dashboard/orders/:id/cancel', { ...byId, config: { web: { area: 'dashboard', role: 'admin' } } }, async (req, reply) => {
    const caller = await dashboardCaller(ctx, req);
    const result = await attempt(() => ctx.db.tx((tx) => cancelOwnOrder(ctx, tx, caller, req.params.id)));
    if ('refused' in result) return sendPage(web, req, reply, { ...(await detailBody(web, req, req.params.id, result.refused.message)), status: result.refused.status });
    return seeOther(reply, `/dashboard/orders/${req.params.id}`);
  });
}
