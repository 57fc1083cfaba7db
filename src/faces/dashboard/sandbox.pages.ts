import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type, type Static } from 'typebox';
import type { Caller } from '../../domains/accounts/caller.js';
import { fieldError } from '../../platform/lib/errors.js';
import { Uuid } from '../../platform/lib/schemas.js';
import { isUuid } from '../../platform/lib/ids.js';
import { field, link, notice, postForm, section, select } from '../web/components.js';
import { formOptional, formText } from '../web/forms.js';
import { html, type Html } from '../../platform/lib/html.js';
import { sendPage, seeOther, type Web } from '../web/web.js';
import { reviewOwnApplication } from '../../domains/applications/applications.service.js';
import { simulateDeposit } from '../../domains/deposits/deposits.service.js';
import { DEPOSIT_RAILS } from '../../domains/deposits/deposits.transitions.js';
import { moveOwnOrder } from '../../domains/orders/orders.lifecycle.js';
import { moveOwnPayout } from '../../domains/payouts/payouts.lifecycle.js';
import type { PayoutMove } from '../../domains/payouts/payouts.transitions.js';
import { fundBalance, fundingAmount } from '../../domains/sandbox/sandbox.service.js';
import { canChange, dashboardCaller, dashboardUser, memberPage } from './caller.js';
import { REVIEW_DECISIONS } from './onboarding.pages.js';
import { SANDBOX_ORDER_MOVES } from './orders.pages.js';
import { attempt, type Refusal } from '../web/forms.js';

const PAYOUT_MOVES = ['process', 'pay', 'fail', 'revert'] as const satisfies readonly PayoutMove[];
const ORDER_MOVES = SANDBOX_ORDER_MOVES.map((m) => m.move);
const DEPOSIT_OUTCOMES = ['completed', 'failed', 'in_review', 'pending', 'processing'] as const;
const REASON_LENGTH_MAX = 200;

const PayoutMoveParams = Type.Object({ id: Uuid, move: Type.Union(PAYOUT_MOVES.map((m) => Type.Literal(m))) });
const OrderMoveParams = Type.Object({ id: Uuid, move: Type.Union(ORDER_MOVES.map((m) => Type.Literal(m))) });
const ReviewParams = Type.Object({ id: Uuid });

const admin = { config: { web: { area: 'dashboard' as const, right: 'sandbox' as const } } };

/** A form's value that must be one of `allowed`; anything else is a field error. */
function formChoice<T extends string>(req: FastifyRequest, name: string, allowed: readonly T[]): T {
  const value = formText(req, name, { maxLength: 100 });
  const choice = allowed.find((a) => a === value);
  if (!choice) throw fieldError(name, `${name} must be one of ${allowed.join(', ')}`);
  return choice;
}

function formId(req: FastifyRequest, name: string): string {
  const id = formText(req, name, { maxLength: 100 });
  if (!isUuid(id)) throw fieldError(name, `${name} must be an id such as 3f0c…, as shown on its page`);
  return id;
}

function toolsBody(req: FastifyRequest, caller: Caller, refusal?: Refusal): Html {
  // Only the form that was sent is filled again and flagged; the others start empty.
  const sent = (action: string) => (req.method === 'POST' && req.url === action ? ((req.body ?? {}) as Record<string, string | undefined>) : {});
  const flagged = (action: string) => (req.method === 'POST' && req.url === action ? (refusal?.fields ?? {}) : {});
  const fund = { values: sent('/dashboard/sandbox/fund'), errors: flagged('/dashboard/sandbox/fund') };
  const deposit = { values: sent('/dashboard/sandbox/deposits'), errors: flagged('/dashboard/sandbox/deposits') };
  const payout = { values: sent('/dashboard/sandbox/payouts'), errors: flagged('/dashboard/sandbox/payouts') };
  const order = { values: sent('/dashboard/sandbox/orders'), errors: flagged('/dashboard/sandbox/orders') };
  const currencies = caller.workspace.enabledCurrencies;
  if (!canChange(req, 'sandbox')) {
    return notice('info', `The sandbox tools change the workspace: your role (${dashboardUser(req).role}) can read it but not change it.`);
  }
  const csrf = req.web.csrf;
  return html`${refusal ? notice('error', refusal.message) : ''}
${section(
  'Fund a balance',
  postForm(
    { action: '/dashboard/sandbox/fund', csrf, submit: 'Add test money' },
    select({ label: 'Currency', name: 'currency', options: currencies, value: fund.values.currency }),
    field({ label: 'Amount', name: 'amount', required: true, inputmode: 'decimal', value: fund.values.amount, help: 'A decimal string such as 1000.00', error: fund.errors.amount ?? fund.errors.currency }),
  ),
)}
${section(
  'Simulate a deposit',
  postForm(
    { action: '/dashboard/sandbox/deposits', csrf, submit: 'Simulate the deposit' },
    select({ label: 'Deposit currency', name: 'currency', options: currencies, value: deposit.values.currency }),
    field({ label: 'Deposit amount', name: 'amount', required: true, inputmode: 'decimal', value: deposit.values.amount, error: deposit.errors.amount ?? deposit.errors.currency }),
    select({ label: 'Rail', name: 'rail', options: [{ value: '', label: 'Default for the currency' }, ...DEPOSIT_RAILS], value: deposit.values.rail, help: deposit.errors.rail }),
    select({ label: 'Outcome', name: 'outcome', options: DEPOSIT_OUTCOMES, value: deposit.values.outcome }),
  ),
)}
${section(
  'Move a payout',
  html`<p class="help">As the provider would. The same moves are offered on each payout's page.</p>`,
  postForm(
    { action: '/dashboard/sandbox/payouts', csrf, submit: 'Move the payout' },
    field({ label: 'Payout id', name: 'payoutId', required: true, value: payout.values.payoutId, error: payout.errors.payoutId }),
    select({ label: 'Move', name: 'move', options: PAYOUT_MOVES, value: payout.values.move }),
    field({ label: 'Failure reason (fail, revert)', name: 'reason', value: payout.values.reason }),
  ),
)}
${section(
  'Move an order',
  html`<p class="help">As the trade desk would; completing uses the amounts priced at creation.</p>`,
  postForm(
    { action: '/dashboard/sandbox/orders', csrf, submit: 'Move the order' },
    field({ label: 'Order id', name: 'orderId', required: true, value: order.values.orderId, error: order.errors.orderId }),
    select({ label: 'Order move', name: 'move', options: ORDER_MOVES, value: order.values.move }),
  ),
)}
${section('Review an application', html`<p>Applications waiting for review can be approved, rejected or sent back on the ${link('/dashboard/onboarding', 'Onboarding')} page.</p>`)}`;
}

/** The sandbox tools (only in the sandbox): each calls the same service as its /v1/sandbox route. */
export function sandboxPages(app: FastifyInstance, web: Web): void {
  if (!web.sandbox) return;
  const { ctx } = web;

  const tools = async (req: FastifyRequest, reply: FastifyReply, refusal?: Refusal) =>
    sendPage(web, req, reply, { title: 'Sandbox tools', body: toolsBody(req, await dashboardCaller(ctx, req), refusal), status: refusal?.status });

  /** Runs a tool; after it, the page that shows the result, or the tools again with the refusal. */
  const run = async (req: FastifyRequest, reply: FastifyReply, change: (caller: Caller) => Promise<unknown>, done: string) => {
    const caller = await dashboardCaller(ctx, req);
    const result = await attempt(() => change(caller));
    return 'refused' in result ? tools(req, reply, result.refused) : seeOther(reply, done);
  };

  const movePayout = (caller: Caller, id: string, move: PayoutMove, reason: string | undefined) =>
    ctx.db.tx((tx) => moveOwnPayout(ctx, tx, caller.workspaceId, id, move, reason));
  const moveOrder = (caller: Caller, id: string, move: (typeof ORDER_MOVES)[number]) => ctx.db.tx((tx) => moveOwnOrder(ctx, tx, caller.workspaceId, id, move));

  app.get('/dashboard/sandbox', memberPage, async (req, reply) => tools(req, reply));

  app.post('/dashboard/sandbox/fund', { schema: { hide: true }, ...admin }, async (req, reply) =>
    run(req, reply, async (caller) => {
      const currency = formText(req, 'currency', { maxLength: 10 });
      const amountMinor = fundingAmount(currency, formText(req, 'amount', { maxLength: 40 }), caller.workspace.enabledCurrencies);
      await ctx.db.tx((tx) => fundBalance(tx, { workspaceId: caller.workspaceId, accountId: caller.accountId, currency, amountMinor }, caller.workspace.enabledCurrencies));
    }, '/dashboard'),
  );

  app.post('/dashboard/sandbox/deposits', { schema: { hide: true }, ...admin }, async (req, reply) =>
    run(req, reply, async (caller) => {
      const rail = formOptional(req, 'rail', 40) === undefined ? undefined : formChoice(req, 'rail', DEPOSIT_RAILS);
      const input = { currency: formText(req, 'currency', { maxLength: 10 }), amount: formText(req, 'amount', { maxLength: 40 }), rail, outcome: formChoice(req, 'outcome', DEPOSIT_OUTCOMES) };
      await ctx.db.tx((tx) => simulateDeposit(tx, caller, input));
    }, '/dashboard/receiving'),
  );

  app.post('/dashboard/sandbox/payouts', { schema: { hide: true }, ...admin }, async (req, reply) => {
    const id = formText(req, 'payoutId', { maxLength: 100 });
    return run(req, reply, (caller) => movePayout(caller, formId(req, 'payoutId'), formChoice(req, 'move', PAYOUT_MOVES), formOptional(req, 'reason', REASON_LENGTH_MAX)), `/dashboard/payouts/${encodeURIComponent(id)}`);
  });

  app.post<{ Params: Static<typeof PayoutMoveParams> }>('/dashboard/sandbox/payouts/:id/:move', { schema: { hide: true, params: PayoutMoveParams }, ...admin }, async (req, reply) =>
    run(req, reply, (caller) => movePayout(caller, req.params.id, req.params.move, formOptional(req, 'reason', REASON_LENGTH_MAX)), `/dashboard/payouts/${req.params.id}`),
  );

  app.post('/dashboard/sandbox/orders', { schema: { hide: true }, ...admin }, async (req, reply) => {
    const id = formText(req, 'orderId', { maxLength: 100 });
    return run(req, reply, (caller) => moveOrder(caller, formId(req, 'orderId'), formChoice(req, 'move', ORDER_MOVES)), `/dashboard/orders/${encodeURIComponent(id)}`);
  });

  app.post<{ Params: Static<typeof OrderMoveParams> }>('/dashboard/sandbox/orders/:id/:move', { schema: { hide: true, params: OrderMoveParams }, ...admin }, async (req, reply) =>
    run(req, reply, (caller) => moveOrder(caller, req.params.id, req.params.move), `/dashboard/orders/${req.params.id}`),
  );

  app.post<{ Params: Static<typeof ReviewParams> }>('/dashboard/sandbox/applications/:id/review', { schema: { hide: true, params: ReviewParams }, ...admin }, async (req, reply) =>
    run(req, reply, async (caller) => {
      const decision = formChoice(req, 'decision', REVIEW_DECISIONS.map((d) => d.value));
      const review = { decision, reason: formOptional(req, 'reason', 2000) };
      await ctx.db.tx((tx) => reviewOwnApplication(ctx, tx, caller, req.params.id, review));
    }, '/dashboard/onboarding'),
  );
}
