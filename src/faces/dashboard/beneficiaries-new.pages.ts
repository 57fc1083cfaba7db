import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Static } from 'typebox';
import { DomainError } from '../../platform/lib/errors.js';
import { field, filterForm, notice, postForm, section, select, words } from '../web/components.js';
import { checkBody } from '../web/body-check.js';
import { attempt, changeOnce, formOptional, queryText, type Refusal } from '../web/forms.js';
import { html, type Html } from '../../platform/lib/html.js';
import { sendPage, seeOther, type Web } from '../web/web.js';
import { CreateBeneficiaryBody } from '../../domains/beneficiaries/beneficiaries.schemas.js';
import { createOrReference } from '../../domains/beneficiaries/beneficiaries.service.js';
import { ACCOUNT_TYPES, RECIPIENT_FIELDS, RECIPIENT_TYPES, type Provider, type RecipientField, type RecipientType } from '../../domains/corridors/catalog.js';
import { payoutRequirements, type PayoutRequirements } from '../../domains/corridors/index.js';
import { providersFor } from '../../domains/corridors/requirements.js';
import { ROUTES } from '../../domains/payouts/payouts.schemas.js';
import { actingAccount, rightPage, dashboardCaller } from './caller.js';

type AccountType = (typeof ACCOUNT_TYPES)[number];

/** The corridor the form is for (from the first step's GET form). */
interface Corridor {
  currency: string;
  country: string;
  type: RecipientType;
  route: string | undefined;
  accountType: AccountType | undefined;
}

/** The data fields of an account type, and whether the corridor requires each (from the catalog the requirements come from). */
function dataFields(providers: readonly Provider[], accountType: AccountType): { key: string; required: boolean; help?: string }[] {
  switch (accountType) {
    case 'iban':
      return [
        { key: 'iban', required: true, help: 'Spaces allowed' },
        { key: 'bic', required: providers.filter((p) => p.accounts.iban).every((p) => p.accounts.iban?.bic === 'required'), help: 'The bank\'s BIC (8 or 11 characters); some routes need it' },
      ];
    case 'bank_account': {
      // Required where every provider of the corridor requires it (the route chosen narrows them).
      const banks = providers.filter((p) => p.accounts.bank_account);
      const byKey = new Map<string, { key: string; required: boolean; help?: string }>();
      for (const p of banks) {
        for (const f of p.accounts.bank_account?.fields ?? []) byKey.set(f.key, { key: f.key, required: false, help: f.description });
      }
      for (const f of byKey.values()) f.required = banks.every((p) => p.accounts.bank_account?.fields.some((g) => g.key === f.key && g.required));
      return [...byKey.values()];
    }
    case 'mobile_money':
      return [{ key: 'phoneNumber', required: true, help: 'In E.164 form, such as +2250701234567' }, { key: 'network', required: true }];
    case 'crypto':
      return [{ key: 'address', required: true, help: 'The wallet address' }, { key: 'network', required: true }];
  }
}

function corridorOf(req: FastifyRequest, source: 'query' | 'body'): Corridor {
  const read = (name: string) => (source === 'query' ? queryText(req, name) : formOptional(req, name, 40));
  const type = RECIPIENT_TYPES.find((t) => t === read('type')) ?? 'individual';
  const accountType = ACCOUNT_TYPES.find((t) => t === read('accountType'));
  return { currency: (read('currency') ?? '').toUpperCase(), country: (read('country') ?? '').toUpperCase(), type, route: ROUTES.find((r) => r === read('route')), accountType };
}

function corridorForm(c: Corridor, currencies: readonly string[], then: string | undefined): Html {
  return filterForm('/dashboard/beneficiaries/new', [
    select({ label: 'Currency paid', name: 'currency', options: currencies, value: c.currency }),
    field({ label: 'Beneficiary country', name: 'country', value: c.country, help: 'Two letters, such as DE' }),
    select({ label: 'Beneficiary type', name: 'type', options: RECIPIENT_TYPES, value: c.type }),
    select({ label: 'Route', name: 'route', options: [{ value: '', label: 'Any' }, ...ROUTES], value: c.route ?? '' }),
    select({ label: 'Account type', name: 'accountType', options: [{ value: '', label: 'The corridor\'s usual' }, ...ACCOUNT_TYPES], value: c.accountType ?? '' }),
    then ? html`<input type="hidden" name="then" value="${then}">` : html``,
  ], 'Show the fields');
}

function detailsForm(req: FastifyRequest, c: Corridor, requirements: PayoutRequirements, providers: readonly Provider[], refusal: Refusal | undefined, then: string | undefined): Html {
  const errors = refusal?.fields ?? {};
  const typed = (req.method === 'POST' ? req.body : {}) as Record<string, string | undefined>;
  const spec = requirements.beneficiary[c.type];
  const offered = ACCOUNT_TYPES.filter((t) => providers.some((p) => p.accounts[t] !== undefined));
  const accountType = c.accountType && offered.includes(c.accountType) ? c.accountType : (offered[0] ?? 'iban');
  const recipientField = (name: RecipientField, required: boolean) =>
    field({ label: words(name), name, required, type: name === 'dateOfBirth' ? 'date' : name === 'email' ? 'email' : 'text', value: typed[name], error: errors[name] });
  const hidden = (['currency', 'country', 'type', 'route'] as const).map((k) => (c[k] ? html`<input type="hidden" name="${k}" value="${c[k]}">` : ''));
  return postForm(
    { action: '/dashboard/beneficiaries/new', csrf: req.web.csrf, submit: 'Save the beneficiary' },
    html`${hidden}<input type="hidden" name="accountType" value="${accountType}">${then ? html`<input type="hidden" name="then" value="${then}">` : ''}`,
    field({ label: 'Name', name: 'name', required: true, value: typed.name, help: spec.rules.map((r) => r.description).join('. ') || 'The legal name', error: errors.name }),
    html`${spec.required.map((f) => recipientField(f, true))}`,
    html`<details${spec.optional.some((f) => errors[f]) ? html` open` : ''}><summary>Optional details</summary>${spec.optional.map((f) => recipientField(f, false))}${c.type === 'business' ? field({ label: 'Registration number', name: 'registrationNumber', value: typed.registrationNumber, error: errors.registrationNumber }) : ''}</details>`,
    html`<fieldset><legend>${words(accountType)} account in ${c.currency}</legend>${dataFields(providers, accountType).map((f) =>
      field({ label: words(f.key), name: `data.${f.key}`, required: f.required, value: typed[`data.${f.key}`], help: f.help, error: errors[`accounts.0.data.${f.key}`] ?? errors['accounts.0.data'] }),
    )}</fieldset>`,
  );
}

/** The body POST /v1/beneficiaries takes, from the form. */
function bodyOf(req: FastifyRequest, c: Corridor): Record<string, unknown> {
  const form = (req.body ?? {}) as Record<string, unknown>;
  const data: Record<string, string> = {};
  for (const [k, v] of Object.entries(form)) if (k.startsWith('data.') && typeof v === 'string' && v.trim() !== '') data[k.slice(5)] = v.trim();
  const person: Record<string, string> = {};
  for (const name of [...RECIPIENT_FIELDS, 'registrationNumber']) {
    const v = formOptional(req, name, 300);
    if (v !== undefined) person[name] = v;
  }
  return { type: c.type, name: formOptional(req, 'name', 300), country: c.country, ...person, accounts: [{ type: c.accountType ?? 'iban', currency: c.currency, data }] };
}

/** A beneficiary from the dashboard: choose the corridor, then the fields its requirements (GET /v2/payouts/requirements) ask for. */
export function beneficiaryFormPages(app: FastifyInstance, web: Web): void {
  const { ctx } = web;

  const show = async (req: FastifyRequest, reply: FastifyReply, c: Corridor, refusal?: Refusal) => {
    const caller = await dashboardCaller(ctx, req);
    const then = (req.method === 'POST' ? formOptional(req, 'then', 20) : queryText(req, 'then')) === 'payout' ? 'payout' : undefined;
    let details: Html | '' = '';
    if (c.currency && c.country) {
      try {
        const query = { currency: c.currency, country: c.country, route: c.route as never, travelRuleScreening: caller.workspace.terms.travelRuleScreening };
        details = section('Details', detailsForm(req, c, payoutRequirements(query), providersFor(query), refusal, then));
      } catch (err) {
        if (!(err instanceof DomainError)) throw err;
        details = notice('error', `${err.message}: choose another currency, country or route.`);
      }
    }
    const body = html`${refusal ? notice('error', refusal.message) : ''}${section('Corridor', corridorForm(c, caller.workspace.enabledCurrencies, then))}${details}`;
    return sendPage(web, req, reply, { title: 'Add a beneficiary', body, status: refusal?.status });
  };

  app.get('/dashboard/beneficiaries/new', rightPage('beneficiaries'), async (req, reply) => show(req, reply, corridorOf(req, 'query')));

  app.post('/dashboard/beneficiaries/new', rightPage('beneficiaries'), async (req, reply) => {
    const c = corridorOf(req, 'body');
    const then = formOptional(req, 'then', 20);
    const result = await attempt(() =>
      changeOnce(ctx, req, async (tx) => {
        const body = checkBody<Static<typeof CreateBeneficiaryBody>>(CreateBeneficiaryBody, bodyOf(req, c));
        const { beneficiary } = await createOrReference(tx, ctx.box, actingAccount(req), body);
        return then === 'payout' ? `/dashboard/payouts/new?beneficiaryId=${beneficiary.id}` : `/dashboard/beneficiaries/${beneficiary.id}`;
      }),
    );
    if ('refused' in result) return show(req, reply, c, result.refused);
    return seeOther(reply, result.done);
  });
}
