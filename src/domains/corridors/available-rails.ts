/**
 * GET /v1/payouts/available-rails: the rails that can pay one beneficiary account now. A rail is
 * listed when a provider on it pays the account's currency, type and country (and network); it says
 * whether the beneficiary passes that rail's recipient checks as it stands. Nothing is listed when the
 * beneficiary is not active, the currency is not enabled for the workspace, or payouts (crypto payouts
 * for a crypto account) are switched off.
 */
import type { FieldError } from '../../platform/lib/errors.js';
import { CATALOG, ROUTES, type Provider, type Route } from './catalog.js';
import { amountBounds, isAutoRouted, networkServed, selectProvider } from './providers.js';
import { checkRecipient, type Recipient, type RecipientAccount } from './recipient-validation.js';

export interface AvailableRail {
  route: Route;
  provider: string;
  defaultRouting: boolean;
  minAmount: string;
  maxAmount: string | null;
  senderInfoRequired: boolean;
  recipientReady: boolean;
  recipientIssues: FieldError[];
}

export interface RailsContext {
  enabledCurrencies: readonly string[];
  disabledCapabilities: readonly string[];
  catalog?: readonly Provider[];
}

/** Whether payouts to this account may happen at all now (status, currency enabled, capability on). */
export function payable(status: string, account: RecipientAccount, context: RailsContext): boolean {
  const capability = account.type === 'crypto' ? 'crypto_payouts' : 'payouts';
  return (
    status === 'active' &&
    context.enabledCurrencies.includes(account.currency) &&
    !context.disabledCapabilities.includes('payouts') &&
    !context.disabledCapabilities.includes(capability)
  );
}

export function availableRails(
  beneficiary: Recipient & { status: string },
  accountIndex: number,
  context: RailsContext,
): { autoRoute: Route | null; data: AvailableRail[] } {
  const catalog = context.catalog ?? CATALOG;
  const account = beneficiary.accounts?.[accountIndex];
  if (!account || !payable(beneficiary.status, account, context)) return { autoRoute: null, data: [] };
  const currency = account.currency;
  const data: AvailableRail[] = [];
  for (const route of ROUTES) {
    const provider = selectProvider({ currency, route, account, beneficiaryCountry: beneficiary.country }, catalog);
    // A crypto network the rail does not pay (not in the catalog as this process serves it) is not offered.
    if (!provider || !networkServed(provider, account)) continue;
    const check = checkRecipient(beneficiary, { currency, route, accountIndex, provider, fieldPrefix: '', catalog });
    const bounds = amountBounds(provider, currency);
    data.push({
      route,
      provider: provider.id,
      defaultRouting: provider.defaultRouting,
      minAmount: bounds.min,
      maxAmount: bounds.max ?? null,
      senderInfoRequired: provider.sender.senderInfoRequired,
      recipientReady: check.errors.length === 0,
      recipientIssues: check.errors,
    });
  }
  const auto = isAutoRouted(currency, catalog) ? selectProvider({ currency, account, beneficiaryCountry: beneficiary.country }, catalog) : undefined;
  return { autoRoute: auto?.route ?? null, data };
}
