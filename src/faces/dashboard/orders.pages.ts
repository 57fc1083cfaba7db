import type { FastifyInstance, FastifyRequest } from 'fastify';
import { IdParams } from '../../platform/lib/schemas.js';
import { accountColumn, copyable, facts, field, fileField, readable, words, filterForm, link, money, notice, pageNav, pagePosition, pageRequest, PAGE_SIZES, postForm, section, select, status, table, when } from '../web/components.js';
import { failureReason, rate, statusWords } from '../web/codes.js';
import { Readable } from 'node:stream';
import { csvLine } from '../../platform/lib/csv.js';
import { queryChoice, queryText } from '../web/forms.js';
import { html, type Html } from '../../platform/lib/html.js';
import { sendPage, seeOther, type Web } from '../web/web.js';
import { cancelOwnOrder } from '../../domains/orders/orders.lifecycle.js';
import { getOrder, listOrders, orderData, type OrderView } from '../../domains/orders/orders.read.js';
import { MOVE_FROM, ORDER_STATUSES, type OrderMove } from '../../domains/orders/orders.transitions.js';
import { actingAccount, rightPage, canChange, dashboardCaller, dashboardUser, memberPage } from './caller.js';
import type { Static } from 'typebox';
import { checkBody } from '../web/body-check.js';
import { capabilityRefusal } from '../../domains/accounts/caller.js';
import { CreateOrderBody } from '../../domains/orders/orders.schemas.js';
import { createOrder } from '../../domains/orders/orders.service.js';
import { attempt, changeOnce, formOptional, formText, type Refusal } from '../web/forms.js';
import { formFile } from '../web/multipart.js';
import { issueProofUpload, submitProof } from '../../domains/orders/orders.service.js';
import type { Storage } from '../../platform/storage/storage.js';
import { UPLOAD_CONTENT_TYPES } from '../../platform/storage/uploads.service.js';
import { storeSignedUpload } from './uploads.js';

const byId = { schema: { hide: true, params: IdParams } };

/** The export's columns: the API's order fields, in this order. */
const ORDER_EXPORT_COLUMNS = ['id', 'createdAt', 'clientRef', 'status', 'fromAmount', 'fromCurrency', 'toAmount', 'toCurrency', 'rate', 'funding', 'beneficiaryId', 'accountId', 'failureReason', 'uetr', 'fundedAt', 'completedAt'] as const;

/** The list's filters from the address, as the list and its export take them: the status, and part of the client reference or the id. */
function orderFiltersOf(req: FastifyRequest): { status: string | undefined; search: string | undefined } {
  return { status: queryChoice(req, 'status', ORDER_STATUSES), search: queryText(req, 'q') };
}

/** The desk's moves the sandbox simulates, offered where the order can take them (sandbox.pages.ts answers them). */
export const SANDBOX_ORDER_MOVES: readonly { move: Exclude<OrderMove, 'cancel' | 'review-expire'>; label: string }[] = [
  { move: 'confirm-funds', label: 'Sandbox: settlement received' },
  { move: 'execute', label: 'Sandbox: start execution' },
  { move: 'complete', label: 'Sandbox: complete' },
  { move: 'fail', label: 'Sandbox: fail' },
  { move: 'expire', label: 'Sandbox: expire' },
];

/** How to pay a settlement-funded order: amount, reference, the collection account (in words, each value to copy), the proof of payment. */
function settlementSection(req: FastifyRequest, order: OrderView, refusal: Refusal | undefined): Html {
  const s = order.settlement;
  if (!s) return html``;
  const proofNeeded = s.requirements.proofOfPayment;
  const canUpload = proofNeeded && order.status === 'awaiting_funds' && canChange(req, 'pay');
  return section(
    'Settlement instructions',
    facts([
      ['Send', money(s.requiredAmount, s.currency)],
      ['Reference (put it on the transfer)', copyable(s.reference)],
      ['Method', words(s.method)],
      ['Settlement status', status(s.status)],
      ['Pay before', when(s.expiresAt)],
      ...Object.entries(s.instructions).map(([k, v]) => [words(k), typeof v === 'string' ? copyable(v) : readable(v)] as const),
      ['Proof of payment', !proofNeeded ? 'not needed' : s.status === 'proof_submitted' ? 'received; the desk checks it' : 'required: upload it below once you have paid'],
    ]),
    canUpload
      ? postForm(
          { action: `/dashboard/orders/${order.id}/proof`, csrf: req.web.csrf, submit: 'Upload the proof of payment', files: true },
          fileField({ label: 'Proof of payment', name: 'proof', accept: UPLOAD_CONTENT_TYPES.join(','), required: true, help: 'The bank\'s confirmation of the transfer: a PDF, JPEG or PNG file.', error: refusal?.fields.proof ?? refusal?.fields.proofKey }),
        )
      : '',
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

async function detailBody(web: Web, req: FastifyRequest, id: string, refusal?: Refusal): Promise<{ title: string; body: Html }> {
  const order = orderData(await getOrder(web.ctx.db, dashboardUser(req).workspaceId, id));
  const body = html`${refusal ? notice('error', refusal.message) : ''}
${facts([
  ['Order id', copyable(order.id)],
  ['Status', status(order.status)],
  ['Sell', money(order.fromAmount, order.fromCurrency)],
  ['Buy', money(order.toAmount, order.toCurrency)],
  // The order's rate is fromCurrency per 1 toCurrency (all-in).
  ['Rate', rate({ from: order.toCurrency, to: order.fromCurrency, rate: order.rate })],
  ['Funding', order.funding],
  ['Delivered to', order.beneficiaryId ? link(`/dashboard/beneficiaries/${order.beneficiaryId}`, 'a beneficiary') : 'own balance'],
  ['Client reference', order.clientRef],
  ['Failure reason', failureReason(order.failureReason)],
  ['UETR', order.uetr],
  ['Created', when(order.createdAt)],
  ['Funding deadline', when(order.fundingDeadlineAt)],
  ['Funded', when(order.fundedAt)],
  ['Execution deadline', when(order.executionDeadlineAt)],
  ['Completed', when(order.completedAt)],
])}
${settlementSection(req, order, refusal)}
${actions(web, req, order)}`;
  return { title: `Order ${order.clientRef ?? order.id}`, body };
}

/** A new order's form: the same fields as POST /v1/orders. */
async function newOrderBody(web: Web, req: FastifyRequest, refusal?: Refusal): Promise<Html> {
  const caller = await dashboardCaller(web.ctx, req);
  const typed = (req.method === 'POST' ? req.body : {}) as Record<string, string | undefined>;
  const errors = refusal?.fields ?? {};
  const currencies = caller.workspace.enabledCurrencies;
  return html`${refusal ? notice('error', refusal.message) : ''}${postForm(
    { action: '/dashboard/orders/new', csrf: req.web.csrf, submit: 'Place the order' },
    select({ label: 'Sell', name: 'fromCurrency', options: currencies, value: typed.fromCurrency, help: errors.fromCurrency }),
    select({ label: 'Buy', name: 'toCurrency', options: currencies, value: typed.toCurrency ?? currencies[1], help: errors.toCurrency }),
    field({ label: 'Amount to sell', name: 'fromAmount', inputmode: 'decimal', value: typed.fromAmount, help: 'Or the amount to buy below, not both', error: errors.fromAmount }),
    field({ label: 'Amount to buy', name: 'toAmount', inputmode: 'decimal', value: typed.toAmount, error: errors.toAmount }),
    select({ label: 'Funding', name: 'funding', options: [{ value: '', label: 'From the balance when it covers the order, else by bank transfer' }, { value: 'balance', label: 'From the balance' }, { value: 'settlement', label: 'By bank transfer (settlement)' }], value: typed.funding ?? '', help: errors.funding }),
    field({ label: 'Deliver to beneficiary (id)', name: 'beneficiaryId', value: typed.beneficiaryId, help: 'Empty: the bought amount goes to your own balance', error: errors['beneficiary.id'] }),
    field({ label: 'Client reference', name: 'clientRef', value: typed.clientRef, error: errors.clientRef }),
  )}`;
}

/** Trade-desk orders (as GET /v1/orders): list, detail with settlement instructions, cancelling. */
export function orderPages(app: FastifyInstance, web: Web, storage: Storage): void {
  const { ctx } = web;

  app.get('/dashboard/orders', memberPage, async (req, reply) => {
    const at = pagePosition((req.query ?? {}) as Record<string, unknown>);
    const f = orderFiltersOf(req);
    const scope = actingAccount(req);
    const list = await listOrders(ctx.db, scope, { ...f, ...pageRequest(at) });
    const shown = { status: f.status, q: f.search };
    const exportQuery = new URLSearchParams(Object.entries(shown).filter((e): e is [string, string] => e[1] !== undefined)).toString();
    const body = html`<p class="actions">${canChange(req, 'pay') ? html`${link('/dashboard/orders/new', 'Place an order')} ` : ''}${link(`/dashboard/orders/export.csv${exportQuery ? `?${exportQuery}` : ''}`, 'Export these orders (CSV)')}</p>${filterForm('/dashboard/orders', [
      field({ label: 'Search', name: 'q', type: 'search', value: f.search, help: 'Part of the client reference, or the id' }),
      select({ label: 'Status', name: 'status', options: [{ value: '', label: 'Any' }, ...ORDER_STATUSES.map((s) => ({ value: s, label: statusWords(s) }))], value: f.status ?? '' }),
      select({ label: 'Rows per page', name: 'limit', options: PAGE_SIZES, value: String(at.limit) }),
    ])}
${table(
  'Orders, newest first',
  [
    { label: 'Created', cell: (o) => when(o.createdAt) },
    { label: 'Client reference', cell: (o) => link(`/dashboard/orders/${o.id}`, o.clientRef ?? o.id) },
    { label: 'Sell', numeric: true, cell: (o) => money(o.fromAmount, o.fromCurrency) },
    { label: 'Buy', numeric: true, cell: (o) => money(o.toAmount, o.toCurrency) },
    { label: 'Status', cell: (o) => status(o.status) },
    { label: 'Rate', cell: (o) => rate({ from: o.toCurrency, to: o.fromCurrency, rate: o.rate }) },
    { label: 'Funding', cell: (o) => o.funding },
    ...accountColumn(scope.subAccountId, (o: (typeof list.data)[number]) => ('accountId' in o ? o.accountId : undefined)),
  ],
  list.data,
  'No order matches.',
)}
${pageNav('/dashboard/orders', shown, at, list)}`;
    return sendPage(web, req, reply, { title: 'Orders', body });
  });

  // The list as CSV, with the same filters, every page streamed (a large export is never held whole).
  app.get('/dashboard/orders/export.csv', memberPage, async (req, reply) => {
    const f = orderFiltersOf(req);
    const scope = actingAccount(req);
    const pageSize = ctx.config.limits.pageLimitMax;
    async function* rows(): AsyncGenerator<string> {
      yield csvLine(ORDER_EXPORT_COLUMNS);
      let cursor: string | undefined;
      do {
        const page = await listOrders(ctx.db, scope, { ...f, cursor, limit: pageSize });
        yield page.data.map((o) => csvLine(ORDER_EXPORT_COLUMNS.map((c) => (o as Record<string, unknown>)[c] as string | null | undefined))).join('');
        cursor = page.nextCursor ?? undefined;
      } while (cursor);
    }
    return reply.type('text/csv; charset=utf-8').header('content-disposition', 'attachment; filename="orders.csv"').send(Readable.from(rows()));
  });

  app.get('/dashboard/orders/new', rightPage('pay'), async (req, reply) => sendPage(web, req, reply, { title: 'Place an order', body: await newOrderBody(web, req) }));

  app.post('/dashboard/orders/new', rightPage('pay'), async (req, reply) => {
    const caller = await dashboardCaller(ctx, req);
    const result = await attempt(() =>
      changeOnce(ctx, req, async (tx) => {
        const disabled = capabilityRefusal(caller.workspace, 'orders');
        if (disabled) throw disabled;
        const beneficiaryId = formOptional(req, 'beneficiaryId', 100);
        const body = checkBody<Static<typeof CreateOrderBody>>(CreateOrderBody, {
          fromCurrency: formText(req, 'fromCurrency', { maxLength: 10 }),
          toCurrency: formText(req, 'toCurrency', { maxLength: 10 }),
          ...Object.fromEntries((['fromAmount', 'toAmount', 'funding', 'clientRef'] as const).flatMap((k) => (formOptional(req, k, 100) ? [[k, formOptional(req, k, 100)]] : []))),
          ...(beneficiaryId ? { beneficiary: { id: beneficiaryId } } : {}),
        });
        return `/dashboard/orders/${(await createOrder(ctx, tx, caller, body)).id}`;
      }),
    );
    if ('refused' in result) return sendPage(web, req, reply, { title: 'Place an order', body: await newOrderBody(web, req, result.refused), status: result.refused.status });
    return seeOther(reply, result.done);
  });

  app.get<{ Params: { id: string } }>('/dashboard/orders/:id', { ...byId, config: memberPage.config }, async (req, reply) => sendPage(web, req, reply, await detailBody(web, req, req.params.id)));

  // The same service as POST /v1/orders/:id/cancel; a refusal (409) is shown on the order's page.
  app.post<{ Params: { id: string } }>('/dashboard/orders/:id/cancel', { ...byId, config: { web: { area: 'dashboard', right: 'pay' } } }, async (req, reply) => {
    const caller = await dashboardCaller(ctx, req);
    const result = await attempt(() => ctx.db.tx((tx) => cancelOwnOrder(ctx, tx, caller, req.params.id)));
    if ('refused' in result) return sendPage(web, req, reply, { ...(await detailBody(web, req, req.params.id, result.refused)), status: result.refused.status });
    return seeOther(reply, `/dashboard/orders/${req.params.id}`);
  });

  // The proof of payment, through the same signed upload URL and services as the API: the slot
  // (POST …/proof-upload-url), the bytes (PUT /v2/uploads/{key}: type sniffed, size checked), then the proof.
  app.post<{ Params: { id: string } }>('/dashboard/orders/:id/proof', { ...byId, config: { web: { area: 'dashboard', right: 'pay' } } }, async (req, reply) => {
    const { workspaceId } = dashboardUser(req);
    const result = await attempt(async () => {
      const file = formFile(req, 'proof', 'the proof of payment (PDF, JPEG or PNG)');
      const contentType = UPLOAD_CONTENT_TYPES.find((t) => t === file.contentType) ?? 'application/pdf';
      const issued = await ctx.db.tx((tx) => issueProofUpload(ctx, tx, storage, workspaceId, req.params.id, { contentType, contentLength: file.bytes.length }));
      await storeSignedUpload(ctx, storage, issued.uploadUrl, file.bytes);
      return changeOnce(ctx, req, async (tx) => (await submitProof(tx, workspaceId, req.params.id, issued.proofKey), `/dashboard/orders/${req.params.id}`));
    });
    if ('refused' in result) return sendPage(web, req, reply, { ...(await detailBody(web, req, req.params.id, result.refused)), status: result.refused.status });
    return seeOther(reply, result.done);
  });
}
