/**
 * GET /v2/payouts/requirements as a pure function of the catalog (spec §Payout requirements, rules 1–3):
 *
 * - Without `route`, the answer is combined across every rail serving the currency: the union of
 *   required fields, the union of optional fields less the required, the union of rules; so satisfying
 *   it satisfies the most demanding rail.
 * - With `route=swift`, `country` (the beneficiary's) selects the paying providers; without it the
 *   answer is combined across the SWIFT providers. With `route=mobile_money`, `country` is the
 *   destination. Elsewhere `country` is ignored.
 * - Per rail, `required`/`optional` (and the sender lists) come from the providers in default routing;
 *   on a rail served only outside default routing, from the providers that serve it. `rules` come from
 *   the providers whose name checks run at submit, in default routing or not.
 * - `name`, `country` and `accounts` are never listed; a business is never asked for `dateOfBirth`;
 *   an individual on a crypto rail must give it while Travel Rule screening is on.
 */
import { DomainError } from '../../platform/lib/errors.js';
import {
  CATALOG,
  RECIPIENT_FIELDS,
  RECIPIENT_TYPES,
  SENDER_INFO_KEYS,
  SENDER_TYPES,
  type NameRule,
  type Provider,
  type RecipientField,
  type RecipientType,
  type Route,
  type SenderInfoKey,
  type SenderType,
} from './catalog.js';
import { findProviders } from './providers.js';
import { requiredRecipientFields } from './recipient-validation.js';

export interface RequirementsQuery {
  currency: string;
  route?: Route | undefined;
  country?: string | undefined;
  /** The workspace setting; default true. */
  travelRuleScreening: boolean;
}

export interface BeneficiaryFields {
  required: RecipientField[];
  optional: RecipientField[];
  rules: { field: 'name'; pattern: string; description: string }[];
}

export interface SenderFields {
  required: SenderInfoKey[];
  optional: SenderInfoKey[];
}

export interface PayoutRequirements {
  beneficiary: Record<RecipientType, BeneficiaryFields>;
  sender: Record<SenderType, SenderFields> & { senderInfoRequired: boolean };
}

const noProvider = (detail: string): DomainError => new DomainError({ category: 'not_found', code: 'CORRIDOR_NOT_FOUND', message: detail });

/** The providers the answer is drawn from, or the 404 of the spec's four "no provider" cases. */
export function providersFor(query: RequirementsQuery, catalog: readonly Provider[] = CATALOG): Provider[] {
  const { currency, route, country } = query;
  const serving = findProviders({ currency }, catalog);
  if (serving.length === 0) throw noProvider(`No provider serves ${currency}`);
  if (route === undefined) return serving;
  const onRoute = serving.filter((p) => p.route === route);
  if (onRoute.length === 0) throw noProvider(`No provider serves ${currency} over ${route}`);
  if (country === undefined || (route !== 'mobile_money' && route !== 'swift')) return onRoute;
  const inCountry = findProviders({ currency, route, country }, catalog);
  if (inCountry.length > 0) return inCountry;
  throw noProvider(
    route === 'mobile_money' ? `No provider pays ${currency} by mobile money into ${country}` : `No provider makes international transfers of ${currency} to ${country}`,
  );
}

const inOrder = <T extends string>(order: readonly T[], items: Iterable<T>): T[] => {
  const set = new Set(items);
  return order.filter((x) => set.has(x));
};

interface RailSources {
  /** Required/optional/sender come from these (default-routed, else every provider of the rail). */
  fields: Provider[];
  /** Rules come from these (name checks run at submit). */
  rules: Provider[];
}

function railSources(providers: readonly Provider[]): RailSources[] {
  const routes = [...new Set(providers.map((p) => p.route))];
  return routes.map((route) => {
    const onRail = providers.filter((p) => p.route === route);
    const routed = onRail.filter((p) => p.defaultRouting);
    return { fields: routed.length ? routed : onRail, rules: onRail.filter((p) => p.submitValidators.includes('name_rules')) };
  });
}

function beneficiaryFields(rails: readonly RailSources[], type: RecipientType, travelRuleScreening: boolean): BeneficiaryFields {
  const required = new Set<RecipientField>();
  const optional = new Set<RecipientField>();
  const rules = new Map<string, NameRule>();
  for (const rail of rails) {
    for (const p of rail.fields) {
      for (const f of requiredRecipientFields(p, type, travelRuleScreening)) required.add(f);
      for (const f of p.recipient[type].optional) optional.add(f);
    }
    for (const p of rail.rules) for (const r of p.recipient[type].rules) if (!rules.has(r.pattern)) rules.set(r.pattern, r);
  }
  const allowed = RECIPIENT_FIELDS.filter((f) => type === 'individual' || f !== 'dateOfBirth');
  return {
    required: inOrder(allowed, required),
    optional: inOrder(allowed, [...optional].filter((f) => !required.has(f))),
    rules: [...rules.values()].map((r) => ({ field: r.field, pattern: r.pattern, description: r.description })),
  };
}

function senderFields(rails: readonly RailSources[], type: SenderType): SenderFields {
  const required = new Set<SenderInfoKey>();
  const optional = new Set<SenderInfoKey>();
  for (const rail of rails) {
    for (const p of rail.fields) {
      for (const k of p.sender[type].required) required.add(k);
      for (const k of p.sender[type].optional) optional.add(k);
    }
  }
  const allowed = SENDER_INFO_KEYS.filter((k) => type === 'individual' || k !== 'dateOfBirth');
  return { required: inOrder(allowed, required), optional: inOrder(allowed, [...optional].filter((k) => !required.has(k))) };
}

/** The payout requirements answer (see the module comment); throws the 404 when no provider serves the query. */
export function payoutRequirements(query: RequirementsQuery, catalog: readonly Provider[] = CATALOG): PayoutRequirements {
  const rails = railSources(providersFor(query, catalog));
  const beneficiary = Object.fromEntries(RECIPIENT_TYPES.map((t) => [t, beneficiaryFields(rails, t, query.travelRuleScreening)])) as Record<
    RecipientType,
    BeneficiaryFields
  >;
  const senders = Object.fromEntries(SENDER_TYPES.map((t) => [t, senderFields(rails, t)])) as Record<SenderType, SenderFields>;
  return {
    beneficiary,
    sender: { ...senders, senderInfoRequired: rails.some((r) => r.fields.some((p) => p.sender.senderInfoRequired)) },
  };
}
