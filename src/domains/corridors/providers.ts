/**
 * Questions asked of the catalog: which providers serve a currency (over a route, into a country),
 * which one pays a given account, and within which amount bounds. Pure functions over catalog data.
 */
import { assert } from '../../platform/lib/assert.js';
import { currencyInfo } from '../../platform/lib/currencies.js';
import { parseAmount } from '../../platform/lib/money.js';
import { AUTO_ROUTE_NAME, CATALOG, type AccountType, type AmountBounds, type Provider, type Route } from './catalog.js';
import { checkIban } from '../../platform/lib/bank-account.js';

export interface ProviderQuery {
  currency: string;
  route?: Route | undefined;
  /** Destination country; providers that pay into it ('any' pays everywhere). */
  country?: string | undefined;
}

/** The part of a beneficiary account selection looks at. */
export interface AccountLike {
  type: string;
  currency: string;
  country?: string | null | undefined;
  data?: Record<string, unknown> | undefined;
}

export function servesCurrency(provider: Provider, currency: string): boolean {
  return Object.hasOwn(provider.amounts, currency);
}

export function servesCountry(provider: Provider, country: string): boolean {
  return provider.countries === 'any' || provider.countries.includes(country);
}

export function acceptsAccountType(provider: Provider, type: string): type is AccountType {
  return Object.hasOwn(provider.accounts, type);
}

/** Providers serving the currency, optionally over one route and into one country, in catalog (priority) order. */
export function findProviders(query: ProviderQuery, catalog: readonly Provider[] = CATALOG): Provider[] {
  return catalog.filter(
    (p) =>
      servesCurrency(p, query.currency) &&
      (query.route === undefined || p.route === query.route) &&
      (query.country === undefined || servesCountry(p, query.country)),
  );
}

/** Every currency some provider pays, and every route some provider serves. */
export function catalogCurrencies(catalog: readonly Provider[] = CATALOG): string[] {
  return [...new Set(catalog.flatMap((p) => Object.keys(p.amounts)))];
}

/** Currencies whose payouts need no route: they go to iban accounts over an auto-routed provider (EUR, GBP). */
export function isAutoRouted(currency: string, catalog: readonly Provider[] = CATALOG): boolean {
  return catalog.some((p) => p.autoRoute && servesCurrency(p, currency));
}

/**
 * The destination country of an account: an IBAN's own country code when the IBAN is valid, else the
 * account's `country`, else the beneficiary's.
 */
export function accountCountry(account: AccountLike, beneficiaryCountry: string | null | undefined): string | undefined {
  if (account.type === 'iban' && typeof account.data?.iban === 'string') {
    const { country } = checkIban(account.data.iban);
    if (country) return country;
  }
  return account.country ?? beneficiaryCountry ?? undefined;
}

/** Whether a provider can pay this kind of account in this currency into this country (values are checked by the validators). */
export function providerAccepts(provider: Provider, account: AccountLike, country: string | undefined): boolean {
  if (!servesCurrency(provider, account.currency) || !acceptsAccountType(provider, account.type)) return false;
  if (provider.countries === 'any') return true;
  return country !== undefined && provider.countries.includes(country);
}

/** Whether the provider pays a crypto account's network in its currency (any other account: true). */
export function networkServed(provider: Provider, account: AccountLike): boolean {
  const network = account.data?.network;
  if (account.type !== 'crypto' || typeof network !== 'string') return true;
  return (provider.accounts.crypto?.networks[account.currency] ?? []).some((n) => n === network);
}

export interface SelectionQuery {
  currency: string;
  /** The rail asked for; absent: auto-routing for EUR/GBP (iban accounts only), else the account's first corridor. */
  route?: Route | undefined;
  /** The account to pay (its type, country and, for crypto, network). */
  account: AccountLike;
  /** The beneficiary's country, used when the account carries none. */
  beneficiaryCountry?: string | null | undefined;
  /** Minor units; when given, a provider whose bounds hold it is preferred. */
  amountMinor?: bigint | undefined;
  /**
   * 'payout' (default): without a route, an auto-routed currency (EUR, GBP) goes to iban accounts over
   * auto-routed providers only. 'beneficiary': without a route, any provider that can pay the account
   * (its primary corridor, validated when a beneficiary is saved).
   */
  purpose?: 'payout' | 'beneficiary' | undefined;
}

/** Every provider that could pay the account, best first: default-routed before others, then catalog order. */
export function candidateProviders(query: SelectionQuery, catalog: readonly Provider[] = CATALOG): Provider[] {
  const { account } = query;
  if (account.currency !== query.currency) return [];
  const country = accountCountry(account, query.beneficiaryCountry);
  const autoOnly = query.route === undefined && (query.purpose ?? 'payout') === 'payout' && isAutoRouted(query.currency, catalog);
  const eligible = catalog.filter(
    (p) =>
      (query.route === undefined || p.route === query.route) &&
      (!autoOnly || (p.autoRoute && account.type === 'iban')) &&
      providerAccepts(p, account, country),
  );
  const rank = (p: Provider): number =>
    (p.defaultRouting ? 0 : 4) + (networkServed(p, account) ? 0 : 2) + (query.amountMinor === undefined || withinBounds(p, query.currency, query.amountMinor) ? 0 : 1);
  return eligible.map((p, i) => ({ p, i, r: rank(p) })).sort((a, b) => a.r - b.r || a.i - b.i).map((x) => x.p);
}

/**
 * The provider that pays this account: default-routed providers first, then those outside default
 * routing (which pay only where no default one does); among equals the catalog order. With an amount,
 * one whose bounds hold it is preferred (so a EUR payout above the SEPA Instant cap goes to SEPA
 * Credit); the caller still checks the bounds of the provider returned (AMOUNT_OUT_OF_BOUNDS).
 */
export function selectProvider(query: SelectionQuery, catalog: readonly Provider[] = CATALOG): Provider | undefined {
  return candidateProviders(query, catalog)[0];
}

/** The route a payout reports: `international` when auto-routed (sent without route), else the provider's rail. */
/** Every rail a payout can report (and so every provider clearing account the ledger needs): the catalog's routes and the auto-route name. */
export function payoutRails(catalog: readonly Provider[] = CATALOG): string[] {
  return [...new Set([...catalog.map((p) => p.route), AUTO_ROUTE_NAME])];
}

export function reportedRoute(provider: Provider, requestedRoute: Route | undefined): string {
  return requestedRoute === undefined && provider.autoRoute ? AUTO_ROUTE_NAME : provider.route;
}

// ---------------------------------------------------------------------------------------------
// Amount bounds

export function amountBounds(provider: Provider, currency: string): AmountBounds {
  const bounds = provider.amounts[currency];
  assert(bounds !== undefined, `${provider.id} does not pay ${currency}`);
  return bounds;
}

/** The bounds in minor units of the currency; `max` undefined means no corridor cap. */
export function amountBoundsMinor(provider: Provider, currency: string): { min: bigint; max: bigint | undefined } {
  const bounds = amountBounds(provider, currency);
  assert(currencyInfo(currency) !== undefined, `unknown currency ${currency}`);
  return {
    min: parseAmount(bounds.min, currency, 'min'),
    max: bounds.max === undefined ? undefined : parseAmount(bounds.max, currency, 'max'),
  };
}

export function withinBounds(provider: Provider, currency: string, amountMinor: bigint): boolean {
  const { min, max } = amountBoundsMinor(provider, currency);
  return amountMinor >= min && (max === undefined || amountMinor <= max);
}
