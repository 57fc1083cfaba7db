import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { failureReason, rate } from '../web/codes.js';
import { facts, field, filterForm, link, money, postForm, section, select, status, table, when, pageNav, pagePosition, pageRequest, type PagePosition } from '../web/components.js';
import { changeOnce, formOptional, queryText } from '../web/forms.js';
import { html, type Html } from '../../platform/lib/html.js';
import { sendPage, seeOther, type Web } from '../web/web.js';
import { moveAnyOrder } from '../../domains/orders/orders.lifecycle.js';
import { getAnyOrder, listOrders, orderData, type OrderView } from '../../domains/orders/orders.read.js';
import { readProof } from '../../domains/orders/orders.service.js';
import { MOVE_FROM, ORDER_STATUSES, type OrderMove } from '../../domains/orders/orders.transitions.js';
import type { Storage } from '../../platform/storage/storage.js';
import { attempt, consolePage, consoleRoute, doneNotice, IdPath, operatorActor, queryChoice, queryId, refusalNotice, withDone, type Refusal } from './console.kit.js';
import { getBeneficiary } from '../../domains/beneficiaries/beneficiaries.service.js';
import { rejectOrderHold, releaseOrderHold } from '../../controls/screening/screening.holds.js';
import { orderHold, type OrderHoldView } from '../../controls/screening/screening.service.js';
import { sendStoredFile } from '../../platform/http/stored-file.js';

type Params = { Params: { id: string } };
const DESK_MOVES = ['confirm-funds', 'execute', 'complete', 'fail'] as const;
type DeskMove = (typeof DESK_MOVES)[number];
const MOVE_LABEL: Record<DeskMove, string> = { 'confirm-funds': 'Confirm funds received', execute: 'Start execution', complete: 'Complete', fail: 'Fail' };

function listPage(web: Web, req: FastifyRequest, reply: FastifyReply, page: Awaited<ReturnType<typeof listOrders>>, query: Record<string, string | undefined>, at: PagePosition): FastifyReply {
  const body = html`${filterForm('/console/orders', [
    select({ label: 'Status', name: 'status', options: ['all', ...ORDER_STATUSES], value: query.status ?? 'all' }),
    field({ label: 'Workspace id', name: 'workspaceId', value: query.workspaceId }),
  ])}
${table('Orders, newest first', [
  { label: 'Order', cell: (o: OrderView) => link(`/console/orders/${o.id}`, o.id) },
  { label: 'Status', cell: (o) => status(o.status) },
  { label: 'Funding', cell: (o) => o.funding },
  { label: 'Settlement', cell: (o) => (o.settlement ? status(o.settlement.status) : '') },
  { label: 'From', cell: (o) => money(o.fromAmount, o.fromCurrency), numeric: true },
  { label: 'To', cell: (o) => money(o.toAmount, o.toCurrency), numeric: true },
  { label: 'Created', cell: (o) => when(o.createdAt) },
], page.data, 'No order in this view.')}
${pageNav('/console/orders', query, at, page)}`;
  return sendPage(web, req, reply, { title: 'Orders', body });
}

/** The question each desk move asks first (complete asks with the final amount typed, against the quoted one). */
function moveQuestion(order: OrderView, move: DeskMove): string | undefined {
  const s = order.settlement;
  switch (move) {
    case 'confirm-funds':
      return `Confirm that ${s ? `${s.requiredAmount} ${s.currency}` : 'the funds'} arrived for this order? They are then held for its execution.`;
    case 'fail':
      return 'Fail this order? Held funds return to the balance.';
    case 'complete':
      return `Complete this order? Final amount {toAmount} ${order.toCurrency} against the quoted ${order.toAmount} ${order.toCurrency}.`;
    case 'execute':
      return undefined;
  }
}

function moveForm(req: FastifyRequest, order: OrderView, move: DeskMove, refusal: Refusal | undefined): Html {
  const action = `/console/orders/${order.id}/${move}`;
  const confirm = moveQuestion(order, move);
  if (move !== 'complete') return postForm({ action, csrf: req.web.csrf, submit: MOVE_LABEL[move], danger: move === 'fail', inline: true, ...(confirm ? { confirm } : {}) });
  // A refused completion keeps what was typed, with each field's error beside it.
  const sent = req.method === 'POST' && req.url === action ? ((req.body ?? {}) as Record<string, string | undefined>) : {};
  const errors = req.method === 'POST' && req.url === action ? (refusal?.fields ?? {}) : {};
  return postForm(
    // An empty final amount completes at the amount priced at creation: the question says so.
    { action, csrf: req.web.csrf, submit: 'Complete order', ...(confirm ? { confirm, confirmDefaults: { toAmount: order.toAmount } } : {}) },
    field({ label: 'Final amount delivered', name: 'toAmount', inputmode: 'decimal', value: sent.toAmount, error: errors.toAmount, help: `In ${order.toCurrency}; with the rate, or neither for the amounts priced at creation (${order.toAmount}).` }),
    field({ label: 'Final rate', name: 'rate', inputmode: 'decimal', value: sent.rate, error: errors.rate, help: `${order.fromCurrency} per 1 ${order.toCurrency}, such as 1.0850` }),
    field({ label: 'UETR', name: 'uetr', value: sent.uetr, error: errors.uetr, help: 'Of the outbound wire; generated when empty on a wire delivery.' }),
  );
}

/** Whom the order delivers to, as the desk must see it: the beneficiary's name, kind and country. */
async function beneficiarySection(web: Web, row: Awaited<ReturnType<typeof getAnyOrder>>): Promise<Html> {
  if (!row.beneficiary_id) return section('Delivered to', html`<p>The workspace's own balance.</p>`);
  const b = await getBeneficiary(web.ctx.db, web.ctx.box, row.workspace_id, row.beneficiary_id, { subAccountId: row.account_id === row.workspace_id ? undefined : row.account_id });
  return section(
    'Delivered to',
    facts([
      ['Beneficiary', b.middleName ? `${b.name} (${b.middleName})` : b.name],
      ['Id', html`<code>${b.id}</code>`],
      ['Type', b.type],
      ['Country', b.country],
      ['Rail', row.delivery_rail],
    ]),
  );
}

/** The order's sanctions screening: clear, or its hold with the evidence, and release or reject while held. */
function screeningSection(req: FastifyRequest, orderId: string, hold: OrderHoldView | undefined, screened: boolean): Html {
  if (!screened) return html``;
  if (!hold) return section('Screening', html`<p>Clear: the beneficiary matched no list when the order was placed.</p>`);
  const decisions =
    hold.status === 'held'
      ? html`<p>The desk cannot execute or complete this order until it is released.</p><div class="actions">${postForm({ action: `/console/orders/${orderId}/screening/release`, csrf: req.web.csrf, submit: 'Release', inline: true, confirm: 'Release this order to the desk despite the match?' })}${postForm({ action: `/console/orders/${orderId}/screening/reject`, csrf: req.web.csrf, submit: 'Reject', danger: true, inline: true, confirm: 'Reject this order? It is cancelled or failed and its held funds go back to the customer.' })}</div>`
      : html`<p>Decided by <code>${hold.decidedBy ?? ''}</code> ${when(hold.decidedAt)}.</p>`;
  return section(
    'Screening',
    html`${facts([['Status', status(hold.status)]])}
${table('Matches', [
  { label: 'List', cell: (h: OrderHoldView['hits'][number]) => h.list },
  { label: 'Entry', cell: (h) => html`<code>${h.entryId}</code> ${h.entryName}` },
  { label: 'Name screened', cell: (h) => h.subjectName },
  { label: 'Matched name', cell: (h) => h.matchedName },
  { label: 'Score', cell: (h) => h.score.toFixed(3), numeric: true },
], hold.hits, 'No match.')}
${decisions}`,
  );
}

async function orderPage(web: Web, req: FastifyRequest<Params>, reply: FastifyReply, refusal?: Refusal): Promise<FastifyReply> {
  const row = await getAnyOrder(web.ctx.db, req.params.id);
  const order = orderData(row);
  const hold = await orderHold(web.ctx.db, row.id);
  const s = order.settlement;
  const moves = DESK_MOVES.filter((m) => MOVE_FROM[m as OrderMove].includes(row.status) && (m !== 'confirm-funds' || row.funding === 'settlement'));
  const body = html`${doneNotice(req)}${refusalNotice(refusal)}
${facts([
  ['Status', status(order.status)],
  ['Workspace', link(`/console/workspaces/${row.workspace_id}`, row.workspace_id)],
  ['From', money(order.fromAmount, order.fromCurrency)],
  ['To', money(order.toAmount, order.toCurrency)],
  // The order's rate is fromCurrency per 1 toCurrency (all-in).
  ['Rate', rate({ from: order.toCurrency, to: order.fromCurrency, rate: order.rate })],
  ['Funding', order.funding],
  ['Funding deadline', when(order.fundingDeadlineAt)],
  ['Funded', when(order.fundedAt)],
  ['Completed', when(order.completedAt)],
  ['Failure reason', failureReason(order.failureReason)],
  ['UETR', order.uetr],
])}
${s ? section('Settlement', facts([
  ['Status', status(s.status)],
  ['Method', s.method],
  ['Required amount', money(s.requiredAmount, s.currency)],
  ['Reference', s.reference],
  ['Proof of payment', row.proof_upload_key ? link(`/console/orders/${order.id}/proof`, 'View the proof of payment') : 'Not submitted'],
])) : ''}
${await beneficiarySection(web, row)}
${screeningSection(req, order.id, hold, row.beneficiary_id !== null)}
${section('Desk moves', moves.length ? html`<div class="actions">${moves.map((m) => moveForm(req, order, m, refusal))}</div>` : html`<p class="muted">No move from ${order.status}.</p>`)}`;
  return sendPage(web, req, reply, { title: `Order ${order.id}`, body, status: refusal?.status });
}

/** The desk's queue: orders of every workspace, each with its settlement proof and the moves it can take. */
export function orderPages(app: FastifyInstance, web: Web, storage: Storage): void {
  const { ctx } = web;
  app.get('/console/orders', consolePage, async (req, reply) => {
    const query = { status: queryChoice(req, 'status', ORDER_STATUSES), workspaceId: queryId(req, 'workspaceId'), cursor: queryText(req, 'cursor') };
    const at = pagePosition((req.query ?? {}) as Record<string, unknown>);
    const page = await listOrders(ctx.db, { workspaceId: query.workspaceId }, { ...query, ...pageRequest(at) });
    return listPage(web, req, reply, page, query, at);
  });

  app.get<Params>('/console/orders/:id', consoleRoute(IdPath), async (req, reply) => orderPage(web, req, reply));

  app.get<Params>('/console/orders/:id/proof', consoleRoute(IdPath), async (req, reply) => {
    const proof = await readProof(ctx.db, storage, req.params.id);
    return sendStoredFile(reply, { ...proof, name: `proof-of-payment-${req.params.id}` });
  });

  for (const decision of ['release', 'reject'] as const) {
    app.post<Params>(`/console/orders/:id/screening/${decision}`, consoleRoute(IdPath, 'screening'), async (req, reply) => {
      const result = await attempt(() =>
        changeOnce(ctx, req, async (tx) => {
          if (decision === 'release') await releaseOrderHold(tx, req.params.id, operatorActor(req));
          else await rejectOrderHold(ctx, tx, req.params.id, operatorActor(req));
          return withDone(`/console/orders/${req.params.id}`, `order-screening-${decision}`, req.params.id);
        }),
      );
      if ('refused' in result) return orderPage(web, req, reply, result.refused);
      return seeOther(reply, result.done);
    });
  }

  for (const move of DESK_MOVES) {
    app.post<Params>(`/console/orders/:id/${move}`, consoleRoute(IdPath, 'rails'), async (req, reply) => {
      const input = move === 'complete' ? { toAmount: formOptional(req, 'toAmount', 40), rate: formOptional(req, 'rate', 40), uetr: formOptional(req, 'uetr', 36) } : {};
      const result = await attempt(() => changeOnce(ctx, req, async (tx) => (await moveAnyOrder(ctx, tx, req.params.id, move, input), withDone(`/console/orders/${req.params.id}`, `order-${move}`, req.params.id))));
      if ('refused' in result) return orderPage(web, req, reply, result.refused);
      return seeOther(reply, result.done);
    });
  }
}
