import type { FastifyInstance, FastifyRequest } from 'fastify';
import { sendPdfDocument } from '../../platform/http/stored-file.js';
import { Readable } from 'node:stream';
import { barChart, copyable, field, money, select, table, when, status, section, pageNav, pagePosition, pageRequest } from '../web/components.js';
import { fieldError } from '../../platform/lib/errors.js';
import { payoutDays } from '../../domains/payouts/payouts.read.js';

const CHART_DAYS = 14;
/** The balance chart's period: the end of each of the last 30 days. */
const BALANCE_DAYS = 30;
import { queryText } from '../web/forms.js';
import { html } from '../../platform/lib/html.js';
import { sendPage, type Web } from '../web/web.js';
import { getWorkspace, workspacePrimaryCurrency } from '../../domains/accounts/accounts.service.js';
import { balanceDays, balancesView, listTransactions } from '../../domains/ledger/balances.service.js';
import { statementCsv, statementFileName, statementParties, statementPdf, statementPeriod } from '../../domains/ledger/statements.service.js';
import { actingAccount, dashboardCaller, dashboardUser, memberPage } from './caller.js';


/** Overview: the balances (as GET /v1/ledger/balances) and the movements behind them. */
export function homePages(app: FastifyInstance, web: Web): void {
  const { ctx } = web;
  app.get('/dashboard', memberPage, async (req, reply) => {
    const user = dashboardUser(req);
    const workspace = await getWorkspace(ctx.db, user.workspaceId);
    const { accountId } = actingAccount(req);
    const view = await balancesView(ctx.db, {
      accountId,
      clientId: `dashboard:${user.id}`,
      enabledCurrencies: workspace.enabled_currencies,
      primaryCurrency: workspacePrimaryCurrency(workspace),
      rates: ctx.rates,
    });
    const at = pagePosition((req.query ?? {}) as Record<string, unknown>);
    const moves = await listTransactions(ctx.db, accountId, pageRequest(at));
    const balanceCharts = (await balanceDays(ctx.db, accountId, BALANCE_DAYS)).map((c) =>
      barChart({ title: `${c.currency} balance at the end of each day`, unit: `Balance (${c.currency})`, points: c.days.map((d) => ({ label: d.day, value: Number(d.balance), shown: `${d.balance} ${c.currency}` })) }),
    );
    const acting = actingAccount(req);
    const perDay = await payoutDays(ctx.db, { workspaceId: acting.workspaceId, subAccountId: acting.subAccountId }, CHART_DAYS);
    const charts = perDay.flatMap((c) => [
      barChart({ title: `Payouts in ${c.currency} per day`, unit: 'Payouts', points: c.days.map((d) => ({ label: d.day, value: d.count, shown: String(d.count) })) }),
      barChart({ title: `${c.currency} paid out per day`, unit: c.currency, points: c.days.map((d) => ({ label: d.day, value: Number(d.amount), shown: `${d.amount} ${c.currency}` })) }),
    ]);
    const body = html`<p class="muted">${workspace.name} · ${acting.subAccountId ? html`sub-account <code>${acting.subAccountId}</code> in view` : html`the master account in view (its sub-accounts included in lists)`} · workspace ${copyable(workspace.id)}</p>
<section><h2>Balances</h2>
${
  view.balances.length === 0
    ? html`<p class="empty">No balance yet.</p>`
    : html`<div class="grid">${view.balances.map(
        (b) => html`<div class="balance"><div class="ccy">${b.currency}</div><div class="big">${money(b.balance, b.currency)}</div>
<div class="muted">available · total ${b.totalBalance} · pending in ${b.pendingIn} · pending out ${b.pendingOut}</div></div>`,
      )}</div>`
}
<p class="help">Total value ${money(view.totalValueEur, 'EUR')} at current mid rates.</p></section>
${section(`Balance over time (last ${BALANCE_DAYS} days, UTC)`, balanceCharts.length ? html`<div class="grid charts" id="balance-charts">${balanceCharts}</div>` : html`<p class="empty">No balance yet.</p>`, html`<p class="help">The posted balance when each day ended, as the statement of that day closes.</p>`)}
${section('Payouts per day (last 14 days, UTC)', charts.length ? html`<div class="grid charts">${charts}</div>` : html`<p class="empty">No payout in the last 14 days.</p>`)}
${section(
  'Statement',
  html`<form method="get" action="/dashboard/statement.csv" class="filters">${select({ label: 'Statement currency', name: 'currency', options: workspace.enabled_currencies })}
${field({ label: 'From (UTC)', name: 'from', type: 'date', required: true })}
${field({ label: 'To (UTC, including that day)', name: 'to', type: 'date', required: true })}<button type="submit">Download the statement (CSV)</button> <button type="submit" formaction="/dashboard/statement.pdf">Download the statement (PDF)</button></form>
<p class="help">Opening balance, each posted movement with the running balance, closing balance. The PDF holds the same lines, with the account holder and the issuer named: a document to file or send.</p>`,
)}
${section(
  'Recent movements',
  table(
    'Ledger movements, newest first',
    [
      { label: 'When', cell: (m) => when(m.createdAt) },
      { label: 'Direction', cell: (m) => (m.direction === 'credit' ? 'in' : 'out') },
      { label: 'Amount', numeric: true, cell: (m) => money(m.amount, m.currency) },
      { label: 'Status', cell: (m) => status(m.status) },
      { label: 'For', cell: (m) => (m.objectType === 'payout' && m.objectId ? html`<a href="/dashboard/payouts/${m.objectId}">payout</a>` : m.objectType) },
      { label: 'Description', cell: (m) => m.description ?? '' },
    ],
    moves.data,
    'No movements yet.',
  ),
  pageNav('/dashboard', {}, at, moves),
)}`;
    return sendPage(web, req, reply, { title: 'Overview', body });
  });

  // A statement of the account in view for a period, as CSV or PDF (the same lines, statements.service.ts), streamed.
  app.get('/dashboard/statement.csv', memberPage, async (req, reply) => {
    const { accountId, period } = await statementAsked(req);
    return reply.type('text/csv; charset=utf-8').header('content-disposition', `attachment; filename="${statementFileName(period, 'csv')}"`).send(Readable.from(statementCsv(ctx.db, accountId, period)));
  });

  app.get('/dashboard/statement.pdf', memberPage, async (req, reply) => {
    const { accountId, period, caller } = await statementAsked(req);
    const parties = await statementParties(ctx, { workspaceId: caller.workspaceId, accountId });
    return sendPdfDocument(reply, statementFileName(period, 'pdf'), statementPdf(ctx.db, accountId, period, parties));
  });

  /** The statement the form asks for: the account in view, the period and currency checked against the workspace's. */
  async function statementAsked(req: FastifyRequest) {
    const from = queryText(req, 'from');
    const to = queryText(req, 'to');
    if (!from || !to) throw fieldError(!from ? 'from' : 'to', 'Choose the first and the last day of the statement');
    const caller = await dashboardCaller(ctx, req);
    const period = statementPeriod({ currency: queryText(req, 'currency') ?? '', from, to }, caller.workspace.enabledCurrencies);
    return { accountId: actingAccount(req).accountId, period, caller };
  }
}
