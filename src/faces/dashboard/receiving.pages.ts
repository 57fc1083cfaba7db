import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { failureReason, statusWords } from '../web/codes.js';
import { Readable } from 'node:stream';
import { csvLine } from '../../platform/lib/csv.js';
import { accountColumn, copyable, filterForm, link, money, notice, postForm, section, select, status, table, when, pageNav, pagePosition, pageRequest } from '../web/components.js';
import { attempt, formText, queryChoice, queryText, type Refusal } from '../web/forms.js';
import { html, type Html } from '../../platform/lib/html.js';
import { sendPage, seeOther, type Web } from '../web/web.js';
import { capabilityRefusal } from '../../domains/accounts/caller.js';
import { listDeposits } from '../../domains/deposits/deposits.service.js';
import { DEPOSIT_STATUSES } from '../../domains/deposits/deposits.transitions.js';
import { assertVirtualAccountCurrency, listVirtualAccounts, requestVirtualAccount } from '../../domains/virtual-accounts/virtual-accounts.service.js';
import { VIRTUAL_ACCOUNT_CURRENCIES } from '../../connectors/issuers.js';
import { actingAccount, rightPage, canChange, dashboardCaller, dashboardUser, memberPage } from './caller.js';

/** Asking for a virtual account: the same rules as POST /v1/virtual-accounts (idempotent per account and currency). */
function requestForm(req: FastifyRequest, currencies: readonly string[], refusal: Refusal | undefined): Html {
  const offered = VIRTUAL_ACCOUNT_CURRENCIES.filter((c) => currencies.includes(c));
  return html`${refusal ? notice('error', refusal.message) : ''}${postForm(
    { action: '/dashboard/receiving/virtual-accounts', csrf: req.web.csrf, submit: 'Request a virtual account' },
    select({ label: 'Virtual account currency', name: 'currency', options: offered, help: refusal?.fields.currency ?? 'EUR and GBP accounts open at once; others after the issuer approves them. Onboarding must be approved first.' }),
  )}`;
}


/** Receiving money: the active virtual accounts with their bank details (as GET /v1/virtual-accounts), and deposits (as GET /v1/deposits). */
export function receivingPages(app: FastifyInstance, web: Web): void {
  const { ctx } = web;

  const receivingPage = async (req: FastifyRequest, reply: FastifyReply, refusal?: Refusal) => {
    const owner = actingAccount(req);
    const caller = await dashboardCaller(ctx, req);
    const done = queryText(req, 'requested');
    // At most one account per currency: one page of the largest size holds them all.
    const accounts = await listVirtualAccounts(ctx, ctx.db, owner, { limit: ctx.config.limits.pageLimitMax });
    const depositStatus = queryChoice(req, 'status', DEPOSIT_STATUSES);
    const at = pagePosition((req.query ?? {}) as Record<string, unknown>);
    const deposits = await listDeposits(ctx.db, owner, { status: depositStatus, ...pageRequest(at) });
    const body = html`${section(
      'Virtual accounts',
      html`<p class="help">Active accounts only; pending and refused ones are not listed (as in the API). Give these details to whoever pays you.</p>`,
      table(
        'Virtual accounts and their bank details',
        [
          { label: 'Currency', cell: (a) => a.currency },
          { label: 'Account holder', cell: (a) => a.accountHolderName },
          { label: 'IBAN or account number', cell: (a) => copyable(a.iban ?? a.accountNumber) },
          { label: 'BIC or bank code', cell: (a) => copyable(a.bic ?? a.bankCode) },
          { label: 'Bank', cell: (a) => a.bankName ?? '' },
          { label: 'Status', cell: (a) => status(a.status) },
          { label: 'Since', cell: (a) => when(a.createdAt) },
        ],
        accounts.data,
        'No active virtual account yet.',
      ),
      done ? notice('success', `Your ${done} virtual account was requested: it is listed here once active.`) : '',
      canChange(req, 'receive') ? requestForm(req, caller.workspace.enabledCurrencies, refusal) : '',
    )}
${section(
  'Deposits',
  filterForm('/dashboard/receiving', [select({ label: 'Deposit status', name: 'status', options: [{ value: '', label: 'Any' }, ...DEPOSIT_STATUSES.map((s) => ({ value: s, label: statusWords(s) }))], value: depositStatus ?? '' })]),
  table(
    'Deposits, newest first',
    [
      { label: 'Received', cell: (d) => when(d.createdAt) },
      { label: 'Amount', numeric: true, cell: (d) => money(d.amount, d.currency) },
      { label: 'Fee', numeric: true, cell: (d) => money(d.serviceFee, d.currency) },
      { label: 'Credited', numeric: true, cell: (d) => money(d.creditedAmount, d.currency) },
      { label: 'Rail', cell: (d) => d.rail },
      { label: 'Client reference', cell: (d) => d.clientRef ?? '' },
      { label: 'Status', cell: (d) => html`${status(d.status)}${d.failureReason ? html` ${failureReason(d.failureReason)}` : ''}` },
      { label: 'Virtual account', cell: (d) => (d.virtualAccountId ? html`<code>${d.virtualAccountId}</code>` : '') },
      ...accountColumn(owner.subAccountId, (d: (typeof deposits.data)[number]) => d.accountId),
    ],
    deposits.data,
    'No deposit yet.',
  ),
  pageNav('/dashboard/receiving', { status: depositStatus }, at, deposits),
  html`<p>${link(`/dashboard/receiving/deposits.csv${depositStatus ? `?status=${depositStatus}` : ''}`, 'Export these deposits (CSV)')}</p>`,
)}
${web.sandbox && dashboardUser(req).role === 'admin' ? html`<p>${link('/dashboard/sandbox', 'Simulate a deposit in the sandbox tools')}</p>` : ''}`;
    return sendPage(web, req, reply, { title: 'Receiving', body, status: refusal?.status });
  };

  app.get('/dashboard/receiving', memberPage, async (req, reply) => receivingPage(req, reply));

  // Deposits as CSV, with the list's status filter, streamed page by page.
  app.get('/dashboard/receiving/deposits.csv', memberPage, async (req, reply) => {
    const owner = actingAccount(req);
    const status = queryChoice(req, 'status', DEPOSIT_STATUSES);
    const columns = ['id', 'createdAt', 'status', 'amount', 'serviceFee', 'creditedAmount', 'currency', 'rail', 'clientRef', 'virtualAccountId', 'failureReason'] as const;
    async function* csv(): AsyncGenerator<string> {
      yield csvLine(columns);
      let cursor: string | undefined;
      do {
        const page = await listDeposits(ctx.db, owner, { status, cursor, limit: ctx.config.limits.pageLimitMax });
        yield page.data.map((d) => csvLine(columns.map((c) => (d as Record<string, unknown>)[c] as string | null | undefined))).join('');
        cursor = page.nextCursor ?? undefined;
      } while (cursor);
    }
    return reply.type('text/csv; charset=utf-8').header('content-disposition', 'attachment; filename="deposits.csv"').send(Readable.from(csv()));
  });

  app.post('/dashboard/receiving/virtual-accounts', rightPage('receive'), async (req, reply) => {
    const caller = await dashboardCaller(ctx, req);
    const currency = formText(req, 'currency', { maxLength: 10 }).toUpperCase();
    const result = await attempt(async () => {
      const disabled = capabilityRefusal(caller.workspace, 'virtual_accounts');
      if (disabled) throw disabled;
      assertVirtualAccountCurrency(ctx.config, currency, caller.workspace.enabledCurrencies);
      // The issuer's refusal is remembered with the request (it commits), then shown.
      const requested = await ctx.db.tx((tx) => requestVirtualAccount(ctx, tx, actingAccount(req), currency));
      if (requested.kind === 'refused') throw requested.error;
    });
    if ('refused' in result) return receivingPage(req, reply, result.refused);
    return seeOther(reply, `/dashboard/receiving?requested=${encodeURIComponent(currency)}`);
  });
}
