import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { field, filterForm, money, postForm, select, status, table, when, pageNav, pagePosition, pageRequest } from '../../faces/web/components.js';
import type { Tx } from '../../platform/db/db.js';
import { changeOnce, formOptional, formText, queryText } from '../../faces/web/forms.js';
import { html, type Html } from '../../platform/lib/html.js';
import { sendPage, seeOther, type Web } from '../../faces/web/web.js';
import type { DepositRail } from '../../domains/deposits/deposits.transitions.js';
import { creditDeposit, listAnyDeposits, moveAnyDeposit } from '../../domains/deposits/deposits.service.js';
import { DEPOSIT_RAILS, DEPOSIT_STATUSES, MOVE_FROM as DEPOSIT_MOVE_FROM } from '../../domains/deposits/deposits.transitions.js';
import { moveAnyPayout } from '../../domains/payouts/payouts.lifecycle.js';
import { listPayouts } from '../../domains/payouts/payouts.read.js';
import { MOVE_FROM as PAYOUT_MOVE_FROM, PAYOUT_STATUSES } from '../../domains/payouts/payouts.transitions.js';
import { listAnyVirtualAccounts, moveAnyVirtualAccount } from '../../domains/virtual-accounts/virtual-accounts.service.js';
import { VIRTUAL_ACCOUNT_STATUSES } from '../../domains/virtual-accounts/virtual-accounts.transitions.js';
import { attempt, consoleChange, consolePage, consoleRoute, doneNotice, IdPath, queryChoice, queryId, refusalNotice, withDone, type Refusal } from '../../faces/console/console.kit.js';

type Params = { Params: { id: string } };

/** A move from a queue, once per rendered form (changeOnce): back to the queue (keeping its filters) when done; the queue with the refusal when not. */
async function queueMove(web: Web, req: FastifyRequest, reply: FastifyReply, back: string, move: (tx: Tx) => Promise<unknown>, show: (refusal: Refusal) => Promise<FastifyReply>): Promise<FastifyReply> {
  const result = await attempt(() => changeOnce(web.ctx, req, async (tx) => (await move(tx), back)));
  if ('refused' in result) return show(result.refused);
  return seeOther(reply, result.done);
}

const backTo = (req: FastifyRequest, queue: string) => {
  const back = formText(req, 'back', { maxLength: 500 });
  return back.startsWith(`${queue}?`) || back === queue ? back : queue;
};

/** A move from a queue's row: every one asks first (`confirm`, the question naming what it does). */
const moveButton = (req: FastifyRequest, action: string, submit: string, confirm: string, danger = false): Html =>
  postForm({ action, csrf: req.web.csrf, submit, danger, inline: true, confirm }, html`<input type="hidden" name="back" value="${req.url}">`);

// ---------------------------------------------------------------------------------------------
// Payouts of the manual connector, moved by hand (the word "settlement" is kept for orders: how an order is funded)

const PAYOUT_MOVES = ['pay', 'fail', 'revert'] as const;
const PAYOUT_LABEL: Record<(typeof PAYOUT_MOVES)[number], string> = { pay: 'Mark paid', fail: 'Mark failed', revert: 'Revert (returned)' };
const PAYOUT_QUESTION: Record<(typeof PAYOUT_MOVES)[number], (what: string) => string> = {
  pay: (what) => `Mark ${what} paid? Its held funds are posted to the rail.`,
  fail: (what) => `Mark ${what} failed? Its held funds return to the balance.`,
  revert: (what) => `Revert ${what}? Its amount and fee are credited back to the balance.`,
};

/** Why the queue is empty: in the sandbox, the simulated provider settles payouts itself, so none waits for a person. */
function emptySettleQueue(web: Web, provider: string): string {
  if (provider !== 'manual') return 'No payout in this view.';
  const why = 'Only payouts routed to the manual provider wait here for a person to mark them paid or failed.';
  return web.sandbox
    ? `No payout waits to be settled. ${why} In the sandbox, payouts go to the simulated provider, which settles them by itself: choose Provider "all" to see them.`
    : `No payout waits to be settled. ${why}`;
}

async function payoutsPage(web: Web, req: FastifyRequest, reply: FastifyReply, refusal?: Refusal): Promise<FastifyReply> {
  const query = { status: queryChoice(req, 'status', PAYOUT_STATUSES, 'processing'), provider: queryText(req, 'provider') ?? 'manual', workspaceId: queryId(req, 'workspaceId'), cursor: queryText(req, 'cursor') };
  const at = pagePosition((req.query ?? {}) as Record<string, unknown>);
  const page = await listPayouts(web.ctx.db, { workspaceId: query.workspaceId }, { ...query, provider: query.provider === 'all' ? undefined : query.provider, ...pageRequest(at) });
  type Row = (typeof page.data)[number];
  const body = html`${doneNotice(req)}${refusalNotice(refusal)}${filterForm('/console/payouts', [
    select({ label: 'Status', name: 'status', options: ['all', ...PAYOUT_STATUSES], value: query.status ?? 'all' }),
    select({ label: 'Provider', name: 'provider', options: ['manual', 'all'], value: query.provider }),
    field({ label: 'Workspace id', name: 'workspaceId', value: query.workspaceId }),
  ])}
${table('Payouts, newest first', [
  { label: 'Payout', cell: (p: Row) => html`<code>${p.id}</code>` },
  { label: 'Status', cell: (p) => status(p.status) },
  { label: 'Amount', cell: (p) => money(p.amount, p.currency), numeric: true },
  { label: 'Route', cell: (p) => p.route },
  { label: 'Created', cell: (p) => when(p.createdAt) },
  { label: 'Settle', cell: (p) => html`<div class="actions">${PAYOUT_MOVES.filter((m) => PAYOUT_MOVE_FROM[m].includes(p.status)).map((m) => moveButton(req, `/console/payouts/${p.id}/${m}`, PAYOUT_LABEL[m], PAYOUT_QUESTION[m](`payout ${p.clientRef} of ${p.amount} ${p.currency}`), m !== 'pay'))}</div>` },
], page.data, emptySettleQueue(web, query.provider))}
${pageNav('/console/payouts', { ...query, status: query.status ?? 'all' }, at, page)}`;
  return sendPage(web, req, reply, { title: 'Payouts to settle', body, status: refusal?.status });
}

// ---------------------------------------------------------------------------------------------
// Virtual accounts awaiting the issuer

async function virtualAccountsPage(web: Web, req: FastifyRequest, reply: FastifyReply, refusal?: Refusal): Promise<FastifyReply> {
  const query = { status: queryChoice(req, 'status', VIRTUAL_ACCOUNT_STATUSES, 'pending'), workspaceId: queryId(req, 'workspaceId'), cursor: queryText(req, 'cursor') };
  const at = pagePosition((req.query ?? {}) as Record<string, unknown>);
  const page = await listAnyVirtualAccounts(web.ctx.db, { ...query, ...pageRequest(at) });
  type Row = (typeof page.data)[number];
  const body = html`${doneNotice(req)}${refusalNotice(refusal)}${filterForm('/console/virtual-accounts', [
    select({ label: 'Status', name: 'status', options: ['all', ...VIRTUAL_ACCOUNT_STATUSES], value: query.status ?? 'all' }),
    field({ label: 'Workspace id', name: 'workspaceId', value: query.workspaceId }),
  ])}
${table('Virtual accounts, newest first', [
  { label: 'Account', cell: (v: Row) => html`<code>${v.id}</code>` },
  { label: 'Workspace', cell: (v) => html`<a href="/console/workspaces/${v.workspaceId}">${v.workspaceId}</a>` },
  { label: 'Currency', cell: (v) => v.currency },
  { label: 'Status', cell: (v) => status(v.status) },
  { label: 'Requested', cell: (v) => when(v.createdAt) },
  {
    label: 'Decision',
    cell: (v) => (v.status === 'pending' ? html`<div class="actions">${moveButton(req, `/console/virtual-accounts/${v.id}/approve`, 'Approve', `Approve the ${v.currency} virtual account ${v.id}? It becomes active.`)}${moveButton(req, `/console/virtual-accounts/${v.id}/fail`, 'Refuse', `Refuse the ${v.currency} virtual account ${v.id}?`, true)}</div>` : ''),
  },
], page.data, 'No virtual account in this view.')}
${pageNav('/console/virtual-accounts', { ...query, status: query.status ?? 'all' }, at, page)}`;
  return sendPage(web, req, reply, { title: 'Virtual accounts', body, status: refusal?.status });
}

// ---------------------------------------------------------------------------------------------
// Deposits: credit an inbound payment, settle the ones waiting

const DEPOSIT_MOVES = ['complete', 'fail'] as const;

async function depositsPage(web: Web, req: FastifyRequest, reply: FastifyReply, refusal?: Refusal): Promise<FastifyReply> {
  const query = { status: queryChoice(req, 'status', DEPOSIT_STATUSES), workspaceId: queryId(req, 'workspaceId'), cursor: queryText(req, 'cursor') };
  const at = pagePosition((req.query ?? {}) as Record<string, unknown>);
  const page = await listAnyDeposits(web.ctx.db, { ...query, ...pageRequest(at) });
  type Row = (typeof page.data)[number];
  const body = html`${doneNotice(req)}${refusalNotice(refusal)}
<section id="credit"><h2>Credit an inbound payment</h2>
${postForm(
  { action: '/console/deposits', csrf: req.web.csrf, submit: 'Credit deposit', confirm: 'Credit {amount} {currency} to the account? The deposit is posted to its balance.' },
  field({ label: 'Virtual account id', name: 'virtualAccountId', help: 'Or leave empty and name the workspace and currency.', error: refusal?.fields.virtualAccountId }),
  field({ label: 'Workspace id', name: 'workspaceId', error: refusal?.fields.workspaceId }),
  field({ label: 'Currency', name: 'currency', error: refusal?.fields.currency }),
  field({ label: 'Amount', name: 'amount', required: true, inputmode: 'decimal', error: refusal?.fields.amount }),
  select({ label: 'Rail', name: 'rail', options: [{ value: '', label: 'default for the currency' }, ...DEPOSIT_RAILS] }),
  field({ label: 'Client reference', name: 'clientRef' }),
)}</section>
<section id="deposits"><h2>Deposits</h2>
${filterForm('/console/deposits', [
  select({ label: 'Status', name: 'status', options: ['all', ...DEPOSIT_STATUSES], value: query.status ?? 'all' }),
  field({ label: 'Workspace id', name: 'workspaceId', value: query.workspaceId }),
])}
${table('Deposits, newest first', [
  { label: 'Deposit', cell: (d: Row) => html`<code>${d.id}</code>` },
  { label: 'Workspace', cell: (d) => html`<a href="/console/workspaces/${d.workspaceId}">${d.workspaceId}</a>` },
  { label: 'Status', cell: (d) => status(d.status) },
  { label: 'Amount', cell: (d) => money(d.amount, d.currency), numeric: true },
  { label: 'Rail', cell: (d) => d.rail },
  { label: 'Received', cell: (d) => when(d.createdAt) },
  { label: 'Settle', cell: (d) => html`<div class="actions">${DEPOSIT_MOVES.filter((m) => DEPOSIT_MOVE_FROM[m].includes(d.status)).map((m) =>
    m === 'complete'
      ? moveButton(req, `/console/deposits/${d.id}/${m}`, 'Credit (complete)', `Credit the deposit of ${d.amount} ${d.currency} to workspace ${d.workspaceId}?`)
      : moveButton(req, `/console/deposits/${d.id}/${m}`, 'Fail', `Fail the deposit of ${d.amount} ${d.currency}? Nothing is credited.`, true),
  )}</div>` },
], page.data, 'No deposit in this view.')}
${pageNav('/console/deposits', { ...query, status: query.status ?? 'all' }, at, page)}</section>`;
  return sendPage(web, req, reply, { title: 'Deposits', body, status: refusal?.status });
}

/** The queues settled by a person: manual payouts, virtual accounts to approve or refuse, deposits to credit. */
export function manualQueuePages(app: FastifyInstance, web: Web): void {
  const { ctx } = web;
  app.get('/console/payouts', consolePage, async (req, reply) => payoutsPage(web, req, reply));
  for (const move of PAYOUT_MOVES) {
    app.post<Params>(`/console/payouts/:id/${move}`, consoleRoute(IdPath, 'rails'), async (req, reply) =>
      queueMove(web, req, reply, withDone(backTo(req, '/console/payouts'), `payout-${move}`, req.params.id), (tx) => moveAnyPayout(ctx, tx, req.params.id, move), (r) => payoutsPage(web, req, reply, r)),
    );
  }

  app.get('/console/virtual-accounts', consolePage, async (req, reply) => virtualAccountsPage(web, req, reply));
  for (const move of ['approve', 'fail'] as const) {
    app.post<Params>(`/console/virtual-accounts/:id/${move}`, consoleRoute(IdPath, 'rails'), async (req, reply) =>
      queueMove(web, req, reply, withDone(backTo(req, '/console/virtual-accounts'), `virtual-account-${move}`, req.params.id), (tx) => moveAnyVirtualAccount(ctx, tx, req.params.id, move), (r) => virtualAccountsPage(web, req, reply, r)),
    );
  }

  app.get('/console/deposits', consolePage, async (req, reply) => depositsPage(web, req, reply));
  app.post('/console/deposits', consoleChange('credits'), async (req, reply) => {
    const input = {
      virtualAccountId: formOptional(req, 'virtualAccountId', 36),
      workspaceId: formOptional(req, 'workspaceId', 36),
      currency: formOptional(req, 'currency', 10)?.toUpperCase(),
      amount: formText(req, 'amount', { maxLength: 40 }),
      rail: formOptional(req, 'rail', 40) as DepositRail | undefined,
      clientRef: formOptional(req, 'clientRef', 100),
    };
    return queueMove(web, req, reply, withDone('/console/deposits', 'deposit-credited'), (tx) => creditDeposit(tx, input), (r) => depositsPage(web, req, reply, r));
  });
  for (const move of DEPOSIT_MOVES) {
    app.post<Params>(`/console/deposits/:id/${move}`, consoleRoute(IdPath, 'credits'), async (req, reply) =>
      queueMove(web, req, reply, withDone(backTo(req, '/console/deposits'), `deposit-${move}`, req.params.id), (tx) => moveAnyDeposit(tx, req.params.id, move), (r) => depositsPage(web, req, reply, r)),
    );
  }
}
