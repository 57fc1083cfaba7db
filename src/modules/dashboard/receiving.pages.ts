import type { FastifyInstance } from 'fastify';
import { filterForm, link, money, pager, section, select, status, table, when } from '../../web/components.js';
import { queryChoice, queryText } from '../../web/forms.js';
import { html } from '../../web/html.js';
import { sendPage, type Web } from '../../web/web.js';
import { listDeposits } from '../deposits/deposits.service.js';
import { DEPOSIT_STATUSES } from '../deposits/deposits.transitions.js';
import { listVirtualAccounts } from '../virtual-accounts/virtual-accounts.service.js';
import { actingAccount, dashboardUser, memberPage } from './caller.js';


/** Receiving money: the active virtual accounts with their bank details (as GET /v1/virtual-accounts), and deposits (as GET /v1/deposits). */
export function receivingPages(app: FastifyInstance, web: Web): void {
  const { ctx } = web;

  app.get('/dashboard/receiving', memberPage, async (req, reply) => {
    const owner = actingAccount(req);
    // At most one account per currency: one page of the largest size holds them all.
    const accounts = await listVirtualAccounts(ctx, ctx.db, owner, { limit: ctx.config.limits.pageLimitMax });
    const depositStatus = queryChoice(req, 'status', DEPOSIT_STATUSES);
    const deposits = await listDeposits(ctx.db, owner, { status: depositStatus, cursor: queryText(req, 'cursor') });
    const body = html`${section(
      'Virtual accounts',
      html`<p class="help">Active accounts only; pending and refused ones are not listed (as in the API). Give these details to whoever pays you.</p>`,
      table(
        'Virtual accounts and their bank details',
        [
          { label: 'Currency', cell: (a) => a.currency },
          { label: 'Account holder', cell: (a) => a.accountHolderName },
          { label: 'IBAN or account number', cell: (a) => html`<code>${a.iban ?? a.accountNumber ?? ''}</code>` },
          { label: 'BIC or bank code', cell: (a) => html`<code>${a.bic ?? a.bankCode ?? ''}</code>` },
          { label: 'Bank', cell: (a) => a.bankName ?? '' },
          { label: 'Status', cell: (a) => status(a.status) },
          { label: 'Since', cell: (a) => when(a.createdAt) },
        ],
        accounts.data,
        'No active virtual account. Request one through the API (POST /v1/virtual-accounts) once onboarding is approved.',
      ),
    )}
${section(
  'Deposits',
  filterForm('/dashboard/receiving', [select({ label: 'Deposit status', name: 'status', options: [{ value: '', label: 'Any' }, ...DEPOSIT_STATUSES], value: depositStatus ?? '' })]),
  table(
    'Deposits, newest first',
    [
      { label: 'Received', cell: (d) => when(d.createdAt) },
      { label: 'Amount', numeric: true, cell: (d) => money(d.amount, d.currency) },
      { label: 'Fee', numeric: true, cell: (d) => money(d.serviceFee, d.currency) },
      { label: 'Credited', numeric: true, cell: (d) => money(d.creditedAmount, d.currency) },
      { label: 'Rail', cell: (d) => d.rail },
      { label: 'Client reference', cell: (d) => d.clientRef ?? '' },
      { label: 'Status', cell: (d) => html`${status(d.status)}${d.failureReason ? html` <span class="muted">${d.failureReason}</span>` : ''}` },
      { label: 'Virtual account', cell: (d) => (d.virtualAccountId ? html`<code>${d.virtualAccountId}</code>` : '') },
    ],
    deposits.data,
    'No deposit yet.',
  ),
  pager('/dashboard/receiving', { status: depositStatus }, deposits.nextCursor),
)}
${web.sandbox && dashboardUser(req).role === 'admin' ? html`<p>${link('/dashboard/sandbox', 'Simulate a deposit in the sandbox tools')}</p>` : ''}`;
    return sendPage(web, req, reply, { title: 'Receiving', body });
  });
}
