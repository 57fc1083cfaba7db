import type { FastifyInstance, FastifyRequest } from 'fastify';
import { sendPdfDocument } from '../../platform/http/stored-file.js';
import { Readable } from 'node:stream';
import { csvLine } from '../../platform/lib/csv.js';
import { DomainError } from '../../platform/lib/errors.js';
import { IdParams } from '../../platform/lib/schemas.js';
import { accountColumn, copyable, facts, field, filterForm, link, money, notice, pageNav, pagePosition, PAGE_SIZES, postForm, section, select, status, table, when } from '../web/components.js';
import { queryChoice, queryDay, queryText } from '../web/forms.js';
import { bankReason, failureReason, rate, statusWords } from '../web/codes.js';
import { html, type Html } from '../../platform/lib/html.js';
import { sendPage, seeOther, type Web } from '../web/web.js';
import { getBeneficiary } from '../../domains/beneficiaries/beneficiaries.service.js';
import { withApprovals, type ApprovalView } from '../../controls/approvals/approvals.service.js';
import { confirmRecipient, type RecipientCheckView } from '../../controls/recipient-checks/recipient-checks.service.js';
import { auditedByChange } from '../../controls/audit/audit.service.js';
import { eventsAbout } from '../../domains/events/events.service.js';
import { cancelOwnPayout } from '../../domains/payouts/payouts.lifecycle.js';
import { confirmationFileName, confirmationPdf, payoutConfirmation } from '../../domains/payouts/payouts.confirmation.js';
import { countPayouts, getPayout, listPayouts, payoutData, type PayoutFilters, type PayoutSearch } from '../../domains/payouts/payouts.read.js';
import { listBeneficiaries } from '../../domains/beneficiaries/beneficiaries.service.js';
import { parseAmount } from '../../platform/lib/money.js';
import { MOVE_FROM, PAYOUT_STATUSES, type PayoutMove } from '../../domains/payouts/payouts.transitions.js';
import { deliveriesOfEvents } from '../../domains/webhooks/webhooks.service.js';
import { actingAccount, canChange, dashboardCaller, dashboardUser, memberPage } from './caller.js';
import * as fx from '../../domains/fx/fx.service.js';
import { deliveriesTable } from './events.pages.js';
import { attempt, changeOnce } from '../web/forms.js';

const page = { schema: { hide: true, params: IdParams } };
type PayoutView = ReturnType<typeof payoutData>;

/** The sandbox's provider moves, offered on a payout's page where the payout can take them (sandbox.pages.ts answers them). */
const SANDBOX_MOVES: readonly { move: PayoutMove; label: string }[] = [
  { move: 'process', label: 'Sandbox: mark processing' },
  { move: 'pay', label: 'Sandbox: mark paid' },
  { move: 'fail', label: 'Sandbox: fail' },
  { move: 'revert', label: 'Sandbox: revert (paid, then returned)' },
];

/** The export's columns: the API's payout fields, in this order. */
const PAYOUT_EXPORT_COLUMNS = ['id', 'createdAt', 'clientRef', 'amount', 'currency', 'status', 'fee', 'feeCurrency', 'route', 'beneficiaryId', 'accountId', 'quoteId', 'reference', 'purpose', 'failureReason', 'completedAt'] as const;

type ListFilters = { q?: string | undefined; status?: string | undefined; createdFrom?: string | undefined; createdTo?: string | undefined; limit?: string | undefined };

function listFiltersForm(f: ListFilters, errors: Record<string, string> = {}): Html {
  return filterForm('/dashboard/payouts', [
    field({ label: 'Search', name: 'q', type: 'search', value: f.q, help: 'Part of the client reference, the id, the amount or the beneficiary\'s name' }),
    select({ label: 'Status', name: 'status', options: [{ value: '', label: 'Any' }, ...PAYOUT_STATUSES.map((s) => ({ value: s, label: statusWords(s) }))], value: f.status ?? '' }),
    field({ label: 'Created from (UTC)', name: 'createdFrom', type: 'date', value: f.createdFrom, error: errors.createdFrom }),
    field({ label: 'Created to (UTC, including that day)', name: 'createdTo', type: 'date', value: f.createdTo, error: errors.createdTo }),
    select({ label: 'Rows per page', name: 'limit', options: PAGE_SIZES, value: f.limit ?? PAGE_SIZES[0] }),
  ]);
}

/** What a search box's text can mean for payouts: part of a client reference, an id, an amount in a currency, a beneficiary's name. */
export async function payoutSearchOf(web: Web, req: FastifyRequest, text: string | undefined, currencies: readonly string[]): Promise<PayoutSearch | undefined> {
  if (!text) return undefined;
  const named = await listBeneficiaries(web.ctx.db, web.ctx.box, actingAccount(req), { nameContains: text, limit: web.ctx.config.limits.pageLimitMax });
  const amounts = currencies.flatMap((currency) => {
    try {
      return [{ currency, amountMinor: parseAmount(text.replace(/,/g, ''), currency, 'q').toString() }];
    } catch {
      return [];
    }
  });
  return { text, beneficiaryIds: named.data.map((b) => b.id), amounts };
}

/** The list's filters from the address, as listPayouts and the export take them; a day the filter cannot take is refused naming its field. */
export async function payoutFiltersOf(web: Web, req: FastifyRequest): Promise<{ shown: ListFilters; filters: PayoutFilters }> {
  const shown: ListFilters = { q: queryText(req, 'q'), status: queryChoice(req, 'status', PAYOUT_STATUSES), createdFrom: queryText(req, 'createdFrom'), createdTo: queryText(req, 'createdTo'), limit: queryText(req, 'limit') };
  const caller = await dashboardCaller(web.ctx, req);
  const filters: PayoutFilters = {
    status: shown.status,
    search: await payoutSearchOf(web, req, shown.q, caller.workspace.enabledCurrencies),
    createdFrom: queryDay(req, 'createdFrom')?.instant,
    // The end day is included: before the start of the next day.
    createdTo: queryDay(req, 'createdTo')?.nextInstant,
  };
  return { shown, filters };
}

/** Where the payout went: the saved beneficiary's name and country, when it was paid to one. */
async function beneficiaryFact(web: Web, workspaceId: string, payout: PayoutView): Promise<Html | string | null> {
  if (!payout.beneficiaryId) return null;
  // A beneficiary removed since (retention) leaves its id on the payout.
  const beneficiary = await getBeneficiary(web.ctx.db, web.ctx.box, workspaceId, payout.beneficiaryId).catch((err: unknown) => {
    if (err instanceof DomainError && err.category === 'not_found') return undefined;
    throw err;
  });
  const label = beneficiary ? `${beneficiary.name} (${beneficiary.country})` : payout.beneficiaryId;
  return link(`/dashboard/beneficiaries/${payout.beneficiaryId}`, label);
}

/** The bank's reject or return reason an event carries, in words with its code: " · closed account number AC04". */
function eventReason(reason: unknown): Html | string {
  if (typeof reason !== 'object' || reason === null) return '';
  const { code, description } = reason as { code?: unknown; description?: unknown };
  return typeof code === 'string' && typeof description === 'string' ? html` · ${bankReason({ code, description })}` : '';
}

/** State moves (the payout's events, oldest first), then the webhook deliveries of those events. */
async function timeline(web: Web, workspaceId: string, payout: PayoutView): Promise<Html> {
  const { limits } = web.ctx.config;
  const moves = await eventsAbout(web.ctx.db, workspaceId, { id: payout.id, createdAt: new Date(payout.createdAt) }, limits.timelineEventsMax);
  const deliveries = await deliveriesOfEvents(web.ctx.db, workspaceId, moves.map((e) => e.id), limits.eventDeliveriesMax);
  return html`<ol class="timeline" aria-label="State moves">
<li>${when(payout.createdAt)} · created</li>
${moves.map((e) => html`<li>${when(e.createdAt)} · ${status(String(e.data.status ?? ''))}${eventReason(e.data.returnReason)}${typeof e.data.txHash === 'string' ? html` · transaction <code>${e.data.txHash}</code> on ${String(e.data.chain ?? '')}` : ''} · event ${e.type} ${e.deliverable ? link(`/dashboard/events/${e.id}`, html`<code>${e.id}</code>`) : html`<code>${e.id}</code> <span class="muted">(recorded, not sent to webhooks)</span>`}</li>`)}
</ol>
${deliveriesTable('Webhook deliveries of these events and their attempts', deliveries)}`;
}

function actions(web: Web, req: FastifyRequest, payout: PayoutView): Html {
  if (!canChange(req, 'pay')) return html``;
  const cancel = MOVE_FROM.cancel.includes(payout.status)
    ? postForm({ action: `/dashboard/payouts/${payout.id}/cancel`, csrf: req.web.csrf, submit: 'Cancel this payout', danger: true, confirm: 'Cancel this payout? Its held funds return to the balance.', inline: true })
    : '';
  const simulated = web.sandbox
    ? SANDBOX_MOVES.filter((s) => MOVE_FROM[s.move].includes(payout.status)).map((s) =>
        postForm({ action: `/dashboard/sandbox/payouts/${payout.id}/${s.move}`, csrf: req.web.csrf, submit: s.label, inline: true }),
      )
    : [];
  if (!cancel && simulated.length === 0) return html``;
  return section('Actions', html`<div class="actions">${cancel}${simulated}</div>`);
}

const CHECK_RESULT_WORDS: Record<string, string> = {
  match: 'the name matches the account',
  close_match: 'a close match: the account holder\'s name differs a little',
  no_match: 'no match: the account holder\'s name is different',
  account_not_found: 'the rail knows no such account',
  unavailable: 'the rail could not answer',
};

/** What each connector's recipient check is called on its rail, for the payout page (another connector: its name). */
const CHECK_NAMES: Record<string, string> = {
  paystack: 'NIP name enquiry (Paystack)',
  clearbank: 'Confirmation of Payee (ClearBank)',
  'mobile-money': 'account-name lookup (mobile money)',
};

/**
 * The recipient check in one line, whatever its status: where it is, which check answered, what the
 * rail answered, the name the rail holds and its reason, and who confirmed it.
 */
function recipientCheckFact(check: RecipientCheckView): Html {
  const result = check.result ? CHECK_RESULT_WORDS[check.result] ?? check.result : 'waiting for the rail';
  const by = CHECK_NAMES[check.connector] ?? check.connector;
  const railName = check.railName ? html` · the rail holds the name ${check.railName}` : '';
  const reason = check.reason ? html` · the rail's reason: ${check.reason}` : '';
  const decided = check.status === 'confirmed' && check.decidedBy ? html` · confirmed by ${check.decidedBy} ${when(check.decidedAt)}` : '';
  return html`${status(check.status)} ${result} (${by})${railName}${reason}${decided}`;
}

/**
 * A payout its recipient check holds: both names side by side, and the workspace's decision (an
 * admin's): confirm (never for an account the rail does not know) or cancel.
 */
function recipientCheckSection(req: FastifyRequest, payout: PayoutView): Html {
  const check = payout.recipientCheck;
  if (!check || check.status !== 'held' || payout.status !== 'queued') return html``;
  const names = facts([
    ['Name you gave', check.name],
    ["Name the rail holds", check.railName ?? '(the rail gave none)'],
    ['Answer', CHECK_RESULT_WORDS[check.result ?? ''] ?? check.result],
    ['Rail\'s reason', check.reason],
  ]);
  if (!canChange(req, 'pay')) return section('Recipient check: waiting for your decision', names);
  const confirm =
    check.result === 'account_not_found'
      ? html`<p class="help">The rail knows no such account: this payout cannot be sent. Cancel it and correct the beneficiary.</p>`
      : postForm({ action: `/dashboard/payouts/${payout.id}/recipient-check/confirm`, csrf: req.web.csrf, submit: 'Confirm and pay', confirm: 'Pay this beneficiary although the names differ?', inline: true });
  const cancel = postForm({ action: `/dashboard/payouts/${payout.id}/cancel`, csrf: req.web.csrf, submit: 'Cancel this payout', danger: true, confirm: 'Cancel this payout? Its held funds return to the balance.', inline: true });
  return section('Recipient check: waiting for your decision', html`${names}<div class="actions">${confirm}${cancel}</div>`);
}

/** A quote-funded payout: what was debited and at what rate (the quote it used). */
async function quoteFacts(web: Web, workspaceId: string, payout: PayoutView): Promise<(readonly [string, Html | string | null])[]> {
  if (!payout.quoteId) return [];
  const quote = fx.quoteView(await fx.getQuote(web.ctx.db, { workspaceId, accountId: payout.accountId ?? workspaceId }, payout.quoteId));
  return [
    ['Debited', money(quote.fromAmount, quote.fromCurrency)],
    ['Rate', rate({ from: quote.fromCurrency, to: quote.toCurrency, rate: quote.rate })],
    ['Conversion fee', money(quote.fee, quote.fromCurrency)],
    ['Quote', copyable(quote.id)],
  ];
}

/**
 * Where a queued payout stands at its connector when the status alone would not say (held by the bank
 * connector before any file, or waiting for the next file): why, and what happens next.
 */
async function railProgress(web: Web, payout: PayoutView, provider: string): Promise<Html | string> {
  if (payout.status !== 'queued') return '';
  const connector = web.ctx.connectors.all().find((c) => c.name === provider);
  const progress = connector?.progress ? await connector.progress(web.ctx.db, payout.id) : undefined;
  if (!progress) return '';
  return notice('info', html`<p><strong>${progress.stage === 'held' ? 'Held at the bank connection' : 'Waiting for the bank file'}</strong></p><p>${progress.why}</p><p><strong>What happens next:</strong> ${progress.next}</p>`);
}

async function detailBody(web: Web, req: FastifyRequest, id: string, refusal?: string): Promise<{ title: string; body: Html }> {
  const workspaceId = dashboardUser(req).workspaceId;
  const row = await getPayout(web.ctx.db, workspaceId, id);
  const [payout] = (await withApprovals(web.ctx.db, workspaceId, [payoutData(row)])) as [PayoutView & { approval?: ApprovalView }];
  const approval = payout.approval;
  const body = html`${refusal ? notice('error', refusal) : ''}${await railProgress(web, payout, row.provider)}
${facts([
  ['Payout id', copyable(payout.id)],
  ['Status', status(payout.status)],
  ['Amount', money(payout.amount, payout.currency)],
  ...(await quoteFacts(web, workspaceId, payout)),
  ['Fee', money(payout.fee, payout.feeCurrency)],
  ['Funded from', `the ${payout.feeCurrency} balance`],
  ['Beneficiary', await beneficiaryFact(web, workspaceId, payout)],
  ['Rail', payout.route],
  ['Chain', payout.chain ?? null],
  ['Transaction', payout.txHash ? copyable(payout.txHash) : null],
  ['Client reference', copyable(payout.clientRef)],
  ['Reference', payout.reference],
  ['Purpose', payout.purpose],
  ['Failure reason', failureReason(payout.failureReason)],
  ['Bank reason', bankReason(payout.returnReason)],
  ['Approval', approval ? html`${status(approval.status)} ${link('/dashboard/approvals', approval.status === 'pending' ? 'waiting: decide on the Approvals page' : 'Approvals')}` : null],
  ['Recipient check', payout.recipientCheck ? recipientCheckFact(payout.recipientCheck) : null],
  ['Sanctions screening', payout.screening.status === 'held' ? 'held for review by compliance: a name matched a sanctions list' : payout.screening.status],
  ['Created', when(payout.createdAt)],
  ['Completed', when(payout.completedAt)],
])}
${recipientCheckSection(req, payout)}
${actions(web, req, payout)}
${section('Documents', html`<p class="actions">${link(`/dashboard/payouts/${payout.id}/confirmation.pdf`, 'Download the payment confirmation (PDF)')}</p><p class="help">Payer, payee, amount, date, reference and status, issued by the operator: a document to send the payee.${payout.status === 'paid' ? '' : ' Until the payout is paid, it says the payment is not yet made.'}</p>`)}
${section('Timeline', await timeline(web, workspaceId, payout))}`;
  return { title: `Payout ${payout.clientRef}`, body };
}

/** Payouts (as GET /v1/payouts): the list with its filters, each payout's page with its timeline, and cancelling. */
export function payoutPages(app: FastifyInstance, web: Web): void {
  const { ctx } = web;

  app.get('/dashboard/payouts', memberPage, async (req, reply) => {
    const at = pagePosition((req.query ?? {}) as Record<string, unknown>);
    const scope = actingAccount(req);
    const result = await attempt(async () => {
      const { filters } = await payoutFiltersOf(web, req);
      const list = await listPayouts(ctx.db, scope, { ...filters, cursor: at.cursor, limit: at.limit });
      return { list, total: await countPayouts(ctx.db, scope, filters) };
    });
    const shown: ListFilters = { q: queryText(req, 'q'), status: queryText(req, 'status'), createdFrom: queryText(req, 'createdFrom'), createdTo: queryText(req, 'createdTo'), limit: queryText(req, 'limit') };
    const { list, total } = 'done' in result ? result.done : { list: { data: [], nextCursor: null }, total: 0 };
    const refusal = 'refused' in result ? result.refused : undefined;
    const exportQuery = new URLSearchParams(Object.entries(shown).filter((e): e is [string, string] => e[1] !== undefined && e[0] !== 'limit')).toString();
    const create = canChange(req, 'pay') ? html`${link('/dashboard/payouts/new', 'Send a payout')} ${link('/dashboard/payouts/import', 'Send payouts from a file (CSV)')} ` : '';
    const body = html`<p class="actions">${create}${link(`/dashboard/payouts/export.csv${exportQuery ? `?${exportQuery}` : ''}`, 'Export these payouts (CSV)')}</p>${listFiltersForm(shown, refusal?.fields)}${refusal ? notice('error', refusal.message) : ''}
${table(
  'Payouts, newest first',
  [
    { label: 'Created', cell: (p) => when(p.createdAt) },
    { label: 'Client reference', cell: (p) => link(`/dashboard/payouts/${p.id}`, p.clientRef) },
    { label: 'Amount', numeric: true, cell: (p) => money(p.amount, p.currency) },
    { label: 'Status', cell: (p) => status(p.status) },
    { label: 'Fee', numeric: true, cell: (p) => money(p.fee, p.feeCurrency) },
    { label: 'Rail', cell: (p) => p.route },
    ...accountColumn(scope.subAccountId, (p: (typeof list.data)[number]) => p.accountId),
  ],
  list.data,
  'No payout matches.',
)}
${pageNav('/dashboard/payouts', shown, at, { ...list, total })}`;
    return sendPage(web, req, reply, { title: 'Payouts', body, status: refusal?.status });
  });

  // The list as CSV, with the same filters, every page streamed (a large export is never held whole).
  app.get('/dashboard/payouts/export.csv', memberPage, async (req, reply) => {
    const { filters } = await payoutFiltersOf(web, req);
    const scope = actingAccount(req);
    const pageSize = ctx.config.limits.pageLimitMax;
    async function* rows(): AsyncGenerator<string> {
      yield csvLine(PAYOUT_EXPORT_COLUMNS);
      let cursor: string | undefined;
      do {
        const page = await listPayouts(ctx.db, scope, { ...filters, cursor, limit: pageSize });
        yield page.data.map((p) => csvLine(PAYOUT_EXPORT_COLUMNS.map((c) => (p as Record<string, unknown>)[c] as string | undefined))).join('');
        cursor = page.nextCursor ?? undefined;
      } while (cursor);
    }
    return reply.type('text/csv; charset=utf-8').header('content-disposition', 'attachment; filename="payouts.csv"').send(Readable.from(rows()));
  });

  app.get<{ Params: { id: string } }>('/dashboard/payouts/:id', { ...page, config: memberPage.config }, async (req, reply) =>
    sendPage(web, req, reply, await detailBody(web, req, req.params.id)),
  );

  // The payment confirmation: the same document as GET /v1/payouts/:id/confirmation.pdf.
  app.get<{ Params: { id: string } }>('/dashboard/payouts/:id/confirmation.pdf', { ...page, config: memberPage.config }, async (req, reply) => {
    const confirmation = await payoutConfirmation(ctx, dashboardUser(req).workspaceId, req.params.id);
    return sendPdfDocument(reply, confirmationFileName(confirmation), confirmationPdf(confirmation));
  });

  // Confirming a payout its recipient check holds: the same service as POST /v1/payouts/:id/recipient-check/confirm, which audits it.
  app.post<{ Params: { id: string } }>('/dashboard/payouts/:id/recipient-check/confirm', { ...page, config: { web: { area: 'dashboard', right: 'pay' } } }, async (req, reply) => {
    const caller = await dashboardCaller(ctx, req);
    const where = { requestId: String(req.id), path: req.url };
    const result = await attempt(() =>
      changeOnce(ctx, req, async (tx) => {
        await confirmRecipient(ctx, tx, caller, req.params.id, where);
        auditedByChange();
        return `/dashboard/payouts/${req.params.id}`;
      }),
    );
    if ('refused' in result) return sendPage(web, req, reply, { ...(await detailBody(web, req, req.params.id, result.refused.message)), status: result.refused.status });
    return seeOther(reply, result.done);
  });

  // Cancelling: the same service as POST /v1/payouts/:id/cancel; a refusal (409) is shown on the payout's page.
  app.post<{ Params: { id: string } }>('/dashboard/payouts/:id/cancel', { ...page, config: { web: { area: 'dashboard', right: 'pay' } } }, async (req, reply) => {
    const caller = await dashboardCaller(ctx, req);
    const result = await attempt(() => ctx.db.tx((tx) => cancelOwnPayout(ctx, tx, caller, req.params.id)));
    if ('refused' in result) return sendPage(web, req, reply, { ...(await detailBody(web, req, req.params.id, result.refused.message)), status: result.refused.status });
    return seeOther(reply, `/dashboard/payouts/${req.params.id}`);
  });
}
