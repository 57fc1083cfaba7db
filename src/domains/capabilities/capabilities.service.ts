import { CURRENCIES } from '../../platform/lib/currencies.js';
import { VIRTUAL_ACCOUNT_CURRENCIES } from '../../connectors/issuers.js';
import { CATALOG, type Provider } from '../corridors/index.js';

/** What a workspace has switched on, as read with the credential on this request (an operator change shows at once). */
export interface CapabilityFacts {
  env: 'sandbox' | 'production';
  enabledCurrencies: readonly string[];
  disabledCapabilities: readonly string[];
}

/**
 * GET /v1/capabilities: per currency of the spec, whether it is enabled for the workspace and what it
 * can do there (payouts over some provider of the corridor catalog, deposits, virtual accounts); and
 * the payment methods (payout routes of the catalog) with the enabled currencies and the countries
 * they serve. Sub-accounts share their workspace's currencies and capabilities.
 */
export function capabilitiesOf(facts: CapabilityFacts, catalog: readonly Provider[] = CATALOG) {
  const on = (capability: string) => !facts.disabledCapabilities.includes(capability);
  const paid = new Set(catalog.flatMap((p) => Object.keys(p.amounts)));
  const currencies = [...CURRENCIES.values()].map((c) => {
    const sandboxOnly = c.availability === 'sandbox_only';
    const enabled = facts.enabledCurrencies.includes(c.code) && !(sandboxOnly && facts.env === 'production');
    const virtualAccounts = enabled && on('virtual_accounts') && VIRTUAL_ACCOUNT_CURRENCIES.includes(c.code) && !(c.code === 'NGN' && facts.env === 'production');
    return {
      code: c.code,
      enabled,
      payouts: enabled && on(c.crypto ? 'crypto_payouts' : 'payouts') && on('payouts') && paid.has(c.code),
      // Deposits land in a virtual account, or on chain for crypto.
      deposits: enabled && on('deposits') && (c.crypto || VIRTUAL_ACCOUNT_CURRENCIES.includes(c.code)),
      virtualAccounts,
      sandboxOnly,
    };
  });
  const enabled = new Set(currencies.filter((c) => c.payouts).map((c) => c.code));
  const routes = new Map<string, { currencies: Set<string>; countries: Set<string> | 'any' }>();
  for (const p of catalog) {
    const served = Object.keys(p.amounts).filter((code) => enabled.has(code));
    if (served.length === 0) continue;
    const entry = routes.get(p.route) ?? { currencies: new Set<string>(), countries: new Set<string>() };
    for (const code of served) entry.currencies.add(code);
    if (p.countries === 'any' || entry.countries === 'any') entry.countries = 'any';
    else for (const country of p.countries) entry.countries.add(country);
    routes.set(p.route, entry);
  }
  // `countries` is always a list (DESIGN); a route that pays to any country (crypto) says so with `anyCountry` and an empty list.
  const paymentMethods = [...routes].map(([route, e]) => ({
    route,
    currencies: [...e.currencies].sort(),
    countries: e.countries === 'any' ? [] : [...e.countries].sort(),
    anyCountry: e.countries === 'any',
  }));
  return { currencies, paymentMethods };
}
