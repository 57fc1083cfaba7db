import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { rate } from '../web/codes.js';
import { formatAmount, parseAmount } from '../../platform/lib/money.js';
import { randomSecret } from '../../platform/lib/secrets.js';
import { facts, field, filterForm, link, notice, postForm, section, select, when } from '../web/components.js';
import { attempt, changeOnce, formOptional, formText, queryText, type Refusal } from '../web/forms.js';
import { html, type Html } from '../../platform/lib/html.js';
import { sendPage, seeOther, type Web } from '../web/web.js';
import type { Caller } from '../../domains/accounts/caller.js';
import { getBeneficiary, listBeneficiaries } from '../../domains/beneficiaries/beneficiaries.service.js';
import { availableRails, type Route } from '../../domains/corridors/index.js';
import * as fx from '../../domains/fx/fx.service.js';
import { isUuid } from '../../platform/lib/ids.js';
import { ROUTES } from '../../domains/payouts/payouts.schemas.js';
import { actingAccount, rightPage, dashboardCaller } from './caller.js';
import { PagePayouts } from './payout-writer.js';

/** The form's fields, as typed (a refusal shows them again). */
const FIELDS = ['beneficiaryId', 'amount', 'currency', 'route', 'fundFrom', 'clientRef', 'reference', 'purpose'] as const;
type Typed = Partial<Record<(typeof FIELDS)[number], string>>;

/** How many beneficiaries the picker lists at once; the search above it finds any other (by name or id). */
const BENEFICIARY_CHOICES_MAX = 100;

function typedOf(req: FastifyRequest): Typed {
  const typed: Typed = {};
  for (const name of FIELDS) typed[name] = formOptional(req, name, 200);
  return typed;
}

/** The payout body POST /v1/payouts would take for the form (the quote, when paying from another currency). */
function bodyOf(typed: Typed, quoteId?: string): Record<string, unknown> {
  return {
    clientRef: typed.clientRef,
    amount: typed.amount,
    currency: typed.currency,
    ...(typed.route ? { route: typed.route } : {}),
    beneficiary: { id: typed.beneficiaryId },
    ...(quoteId ? { quoteId } : {}),
    ...(typed.reference ? { reference: typed.reference } : {}),
    ...(typed.purpose ? { purpose: typed.purpose } : {}),
  };
}

/**
 * How the chosen beneficiary is paid in the chosen currency, as the corridor catalogue says
 * (GET /v1/payouts/available-rails): `auto` when the currency is routed automatically (EUR or GBP to
 * an IBAN), else the rails that can pay the account (the first of the beneficiary's accounts in the
 * currency that one pays) and its details suit; undefined when nothing is chosen yet or nothing pays it (the payout's own
 * checks then say why).
 */
async function railsOf(web: Web, caller: Caller, typed: Typed): Promise<'auto' | Route[] | undefined> {
  const { beneficiaryId, currency } = typed;
  if (!beneficiaryId || !currency || !isUuid(beneficiaryId)) return undefined;
  const found = await attempt(() => getBeneficiary(web.ctx.db, web.ctx.box, caller.workspaceId, beneficiaryId, { subAccountId: caller.subAccountId }));
  if ('refused' in found) return undefined;
  const beneficiary = found.done;
  for (const [index, account] of (beneficiary.accounts ?? []).entries()) {
    if (account.currency !== currency) continue;
    const rails = availableRails(beneficiary, index, caller.workspace);
    if (rails.autoRoute) return 'auto';
    // The rails the beneficiary's details already suit; all of them when none does (the checks then say what is missing).
    const ready = rails.data.filter((r) => r.recipientReady);
    if (rails.data.length > 0) return (ready.length > 0 ? ready : rails.data).map((r) => r.route);
  }
  return undefined;
}

/** The Route field: shown only where the person has a choice to make (several rails), or a route to correct. */
function routeField(typed: Typed, rails: 'auto' | Route[] | undefined, error: string | undefined): Html {
  const choices = Array.isArray(rails) && rails.length > 1 ? rails : undefined;
  if (!choices && !error) return html``;
  return select({
    label: 'Route',
    name: 'route',
    required: Boolean(choices),
    options: [{ value: '', label: choices ? 'Choose how it is paid' : 'Automatic' }, ...(choices ?? ROUTES)],
    value: typed.route ?? '',
    help: error ?? 'This beneficiary\'s account can be paid over several rails: choose one.',
  });
}

/** The form's values with the route they imply (the one rail that pays the account); undefined when there are several and none is chosen. */
async function withRoute(web: Web, caller: Caller, typed: Typed): Promise<Typed | undefined> {
  if (typed.route) return typed;
  const rails = await railsOf(web, caller, typed);
  if (!Array.isArray(rails) || rails.length === 0) return typed;
  return rails.length === 1 ? { ...typed, route: rails[0] } : undefined;
}

const CHOOSE_ROUTE = 'This beneficiary\'s account can be paid over several rails: choose the route, then continue.';

/**
 * The beneficiaries the form offers: those whose name (or id) contains what the person searched for,
 * or the newest when nothing is searched, and always the one already chosen, however old: any
 * saved beneficiary can be paid, found by the search above the form (issue 37).
 */
async function beneficiaryChoices(web: Web, req: FastifyRequest, caller: Caller, chosen: string | undefined, find: string | undefined) {
  const found = await listBeneficiaries(web.ctx.db, web.ctx.box, actingAccount(req), { status: 'active', limit: BENEFICIARY_CHOICES_MAX, nameContains: find });
  const choices = [...found.data];
  if (chosen && isUuid(chosen) && !choices.some((b) => b.id === chosen)) {
    const picked = await attempt(() => getBeneficiary(web.ctx.db, web.ctx.box, caller.workspaceId, chosen, { subAccountId: caller.subAccountId }));
    if ('done' in picked && picked.done.status === 'active') choices.unshift(picked.done);
  }
  return { choices, more: found.hasMore };
}

async function formBody(web: Web, req: FastifyRequest, caller: Caller, typed: Typed, refusal?: Refusal, ask?: string): Promise<Html> {
  const errors = refusal?.fields ?? {};
  const rails = await railsOf(web, caller, typed);
  const chosen = typed.beneficiaryId ?? queryText(req, 'beneficiaryId');
  const find = queryText(req, 'find');
  const { choices, more } = await beneficiaryChoices(web, req, caller, chosen, find);
  const currencies = caller.workspace.enabledCurrencies;
  const empty = find ? `No active beneficiary matches “${find}”` : choices.length ? 'Choose a saved beneficiary' : 'No beneficiary saved yet';
  const listed = more ? `The first ${BENEFICIARY_CHOICES_MAX} ${find ? 'matching' : 'newest'} are listed: search by name to find any other.` : undefined;
  return html`${refusal ? notice('error', refusal.message) : ''}${ask ? notice('info', ask) : ''}
${filterForm('/dashboard/payouts/new', [field({ label: 'Find a beneficiary', name: 'find', value: find, help: 'Part of the name, or the beneficiary id' })], 'Search')}
${postForm(
  { action: '/dashboard/payouts/new', csrf: req.web.csrf, submit: 'Continue' },
  select({
    label: 'Beneficiary',
    name: 'beneficiaryId',
    required: true,
    options: [{ value: '', label: choices.length ? 'Choose a saved beneficiary' : empty }, ...choices.map((b) => ({ value: b.id, label: `${b.name} (${b.country}, ${b.accounts.map((a) => a.currency).join('/')})` }))],
    value: chosen,
    help: errors['beneficiary.id'] ?? errors.beneficiary ?? listed,
  }),
  html`<p class="help">${link('/dashboard/beneficiaries/new?then=payout', 'Add a new beneficiary')} (you come back here with it chosen).</p>`,
  field({ label: 'Amount', name: 'amount', required: true, inputmode: 'decimal', value: typed.amount, help: 'What the beneficiary receives, such as 250.00', error: errors.amount }),
  select({ label: 'Currency', name: 'currency', options: currencies, value: typed.currency, help: errors.currency }),
  select({ label: 'Pay from', name: 'fundFrom', options: [{ value: '', label: 'The balance in the same currency' }, ...currencies.map((c) => ({ value: c, label: `The ${c} balance (converted at a quote)` }))], value: typed.fundFrom ?? '', help: errors.quoteId ?? 'Paying from another currency shows the quote (rate, what is debited, fee) before you confirm.' }),
  routeField(typed, rails, errors.route),
  field({ label: 'Client reference', name: 'clientRef', required: true, value: typed.clientRef ?? `dash-${randomSecret('', 9)}`, help: 'Your own unique reference for this payout', error: errors.clientRef }),
  field({ label: 'Message to the payee', name: 'reference', value: typed.reference, error: errors.reference }),
  field({ label: 'Purpose', name: 'purpose', value: typed.purpose, error: errors.purpose }),
)}`;
}

/** Who is paid and where, as the review names them: the beneficiary and the account in the payout's currency. */
async function payeeFacts(web: Web, caller: Caller, typed: Typed): Promise<[string, Html | string][]> {
  const b = await getBeneficiary(web.ctx.db, web.ctx.box, caller.workspaceId, typed.beneficiaryId ?? '', { subAccountId: caller.subAccountId });
  const account = b.accounts.find((a) => a.currency === typed.currency);
  const details = account ? Object.values(account.data).filter((v): v is string => typeof v === 'string').join(' · ') : '';
  return [
    ['Recipient', `${b.name} (${b.country})`],
    ['Account', account ? `${account.type.replace(/_/g, ' ')} ${account.currency}${details ? `: ${details}` : ''}` : 'none in this currency'],
    ...(typed.route ? ([['Route', typed.route]] as [string, string][]) : []),
    ['Client reference', typed.clientRef ?? ''],
    ['Message to the payee', typed.reference ?? ''],
    ...(typed.purpose ? ([['Purpose', typed.purpose]] as [string, string][]) : []),
  ];
}

const moneyOf = (amount: string, currency: string) => html`<span class="money">${amount}&nbsp;${currency}</span>`;

/** The hidden fields carrying the form's values to the confirmation. */
const carried = (typed: Typed) => FIELDS.map((name) => (typed[name] === undefined ? '' : html`<input type="hidden" name="${name}" value="${typed[name]}">`));

/**
 * The review of a payout paid from the balance in its own currency: who and where, the amount, the
 * fee, what is debited; nothing is sent until the person confirms (issue 37).
 */
function reviewBody(req: FastifyRequest, caller: Caller, typed: Typed, payee: [string, Html | string][]): Html {
  const currency = typed.currency ?? '';
  const feeMinor = caller.workspace.terms.payoutFeeMinor(currency);
  const amountMinor = parseAmount(typed.amount, currency, 'amount');
  return section(
    'Check the payout',
    facts([
      ...payee,
      ['The beneficiary receives', moneyOf(formatAmount(amountMinor, currency), currency)],
      ['Payout fee', moneyOf(formatAmount(feeMinor, currency), currency)],
      ['Debited from your balance', moneyOf(formatAmount(amountMinor + feeMinor, currency), currency)],
    ]),
    postForm({ action: '/dashboard/payouts/confirm', csrf: req.web.csrf, submit: 'Confirm and send' }, html`${carried(typed)}`),
    html`<p>${link('/dashboard/payouts/new', 'Start again')}</p>`,
  );
}

/** The quote a person confirms: what is debited, the rate both ways, the fee, until when. */
function quoteBody(req: FastifyRequest, caller: Caller, typed: Typed, quote: ReturnType<typeof fx.quoteView>, requoted: boolean, payee: [string, Html | string][]): Html {
  const fee = formatAmount(caller.workspace.terms.payoutFeeMinor(quote.fromCurrency), quote.fromCurrency);
  const hidden = carried(typed);
  return html`${requoted ? notice('info', 'The quote expired before you confirmed: here is a new one at today\'s rate.') : ''}
${section(
  'Check the quote',
  facts([
    ...payee,
    ['The beneficiary receives', html`<span class="money">${quote.toAmount}&nbsp;${quote.toCurrency}</span>`],
    ['Debited from your balance', html`<span class="money">${quote.fromAmount}&nbsp;${quote.fromCurrency}</span>`],
    ['Rate', rate({ from: quote.fromCurrency, to: quote.toCurrency, rate: quote.rate })],
    ['Payout fee', html`<span class="money">${fee}&nbsp;${quote.fromCurrency}</span>`],
    ['Quote valid until', when(quote.expiresAt)],
  ]),
  postForm({ action: '/dashboard/payouts/confirm', csrf: req.web.csrf, submit: 'Confirm and send' }, html`${hidden}<input type="hidden" name="quoteId" value="${quote.id}">`),
  html`<p>${link('/dashboard/payouts/new', 'Start again')}</p>`,
)}`;
}

/** Sending a payout from the dashboard: the form, the quote to confirm when paying from another currency, then the payout's page. */
export function payoutFormPages(app: FastifyInstance, web: Web): void {
  const { ctx } = web;
  const payouts = new PagePayouts(ctx);
  const quoting = { ...{ rates: ctx.rates, spreadBps: ctx.config.fxSpreadBps }, quoteLifetimeMs: ctx.config.fxQuoteLifetimeMs };

  const showForm = async (req: FastifyRequest, reply: FastifyReply, typed: Typed, refusal?: Refusal, ask?: string) =>
    sendPage(web, req, reply, { title: 'Send a payout', body: await formBody(web, req, await dashboardCaller(ctx, req), typed, refusal, ask), status: refusal?.status });

  const newQuote = async (caller: Caller, typed: Typed) =>
    fx.quoteView(
      await ctx.db.tx((tx) =>
        fx.createQuote(tx, quoting, { workspaceId: caller.workspaceId, accountId: caller.accountId, enabledCurrencies: caller.workspace.enabledCurrencies, fromCurrency: typed.fundFrom ?? '', toCurrency: typed.currency ?? '', toAmount: typed.amount, intent: 'payout' }),
      ),
    );

  /** Makes the payout (once per rendered form) and goes to its page. */
  const send = async (req: FastifyRequest, reply: FastifyReply, caller: Caller, typed: Typed, quoteId?: string) => {
    const result = await attempt(() => changeOnce(ctx, req, async (tx) => `/dashboard/payouts/${(await payouts.create(tx, caller, bodyOf(typed, quoteId))).id}`));
    if ('refused' in result) return showForm(req, reply, typed, result.refused);
    return seeOther(reply, result.done);
  };

  app.get('/dashboard/payouts/new', rightPage('pay'), async (req, reply) => showForm(req, reply, {}));

  app.post('/dashboard/payouts/new', rightPage('pay'), async (req, reply) => {
    const caller = await dashboardCaller(ctx, req);
    // The route is asked for only where the account can be paid over several rails; one rail is implied.
    const typed = await withRoute(web, caller, typedOf(req));
    if (!typed) return showForm(req, reply, typedOf(req), undefined, CHOOSE_ROUTE);
    // Everything is checked first, so the review (or the quote) is shown only for a payout that can be sent.
    if (!typed.fundFrom || typed.fundFrom === typed.currency) {
      const same = { ...typed, fundFrom: undefined };
      const checked = await attempt(async () => {
        await payouts.check(caller, bodyOf(same));
        return payeeFacts(web, caller, same);
      });
      if ('refused' in checked) return showForm(req, reply, same, checked.refused);
      return sendPage(web, req, reply, { title: 'Send a payout', body: reviewBody(req, caller, same, checked.done) });
    }
    const checked = await attempt(async () => {
      await payouts.check(caller, bodyOf(typed));
      return { quote: await newQuote(caller, typed), payee: await payeeFacts(web, caller, typed) };
    });
    if ('refused' in checked) return showForm(req, reply, typed, checked.refused);
    return sendPage(web, req, reply, { title: 'Send a payout', body: quoteBody(req, caller, typed, checked.done.quote, false, checked.done.payee) });
  });

  app.post('/dashboard/payouts/confirm', rightPage('pay'), async (req, reply) => {
    const caller = await dashboardCaller(ctx, req);
    const typed = await withRoute(web, caller, typedOf(req));
    if (!typed) return showForm(req, reply, typedOf(req), undefined, CHOOSE_ROUTE);
    // Paid from the balance in its own currency: confirmed on its review, sent as reviewed.
    if (!typed.fundFrom || typed.fundFrom === typed.currency) return send(req, reply, caller, { ...typed, fundFrom: undefined });
    const quoteId = formText(req, 'quoteId', { maxLength: 100 });
    const quote = await attempt(() => fx.getQuote(ctx.db, { workspaceId: caller.workspaceId, accountId: caller.accountId }, quoteId));
    if ('refused' in quote) return showForm(req, reply, typed, quote.refused);
    // An expired quote is quoted again and shown to confirm: nobody pays at a rate they did not see.
    if (fx.quoteView(quote.done).status === 'expired') {
      const fresh = await attempt(() => newQuote(caller, typed));
      if ('refused' in fresh) return showForm(req, reply, typed, fresh.refused);
      return sendPage(web, req, reply, { title: 'Send a payout', body: quoteBody(req, caller, typed, fresh.done, true, await payeeFacts(web, caller, typed)) });
    }
    return send(req, reply, caller, typed, quoteId);
  });
}
