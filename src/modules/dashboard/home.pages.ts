import type { FastifyInstance } from 'fastify';
import { barChart, copyable, money, table, when, status, section, pager } from '../../web/components.js';
import { payoutDays } from '../payouts/payouts.read.js';

const CHART_DAYS = 14;
import { queryText } from '../../web/forms.js';
import { html } from '../../web/html.js';
import { sendPage, type Web } from '../../web/web.js';
import { getWorkspace, workspacePrimaryCurrency } from '../accounts/accounts.service.js';
import { balancesView, listTransactions } from '../ledger/balances.service.js';
import { actingAccount, dashboardUser, memberPage } from './caller.js';


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
    const cursor = queryText(req, 'cursor');
    const moves = await listTransactions(ctx.db, accountId, { cursor, limit: 20 });
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
${section('Payouts per day (last 14 days, UTC)', charts.length ? html`<div class="grid charts">${charts}</div>` : html`<p class="empty">No payout in the last 14 days.</p>`)}
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
  pager('/dashboard', {}, moves.nextCursor),
)}`;
    return sendPage(web, req, reply, { title: 'Overview', body });
  });
}
