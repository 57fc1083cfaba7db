import type { Tx } from '../../platform/db/db.js';
import { fieldError } from '../../platform/lib/errors.js';
import { currencyInfo } from '../../platform/lib/currencies.js';
import { parseAmount } from '../../platform/lib/money.js';
import { balanceEntry } from '../ledger/balances.service.js';
import { moveFromSystem } from '../ledger/funding.service.js';
import { balancesOf } from '../ledger/ledger.service.js';

/** Test money for an account: where it lands, in which currency, how much. */
export interface Funding {
  workspaceId: string;
  accountId: string;
  currency: string;
  amountMinor: bigint;
}

/**
 * The amount of a sandbox funding, checked before anything is written: a supported currency the
 * workspace has enabled, and an amount at that currency's scale.
 */
export function fundingAmount(currency: string, amount: string, enabledCurrencies: readonly string[]): bigint {
  if (!currencyInfo(currency)) throw fieldError('currency', `currency ${currency} is not supported`, 'UNSUPPORTED_CURRENCY');
  if (!enabledCurrencies.includes(currency)) {
    throw fieldError('currency', `currency ${currency} is not enabled for this workspace`, 'CURRENCY_NOT_ENABLED');
  }
  return parseAmount(amount, currency, 'amount');
}

/** Adds test money from the sandbox funding account (sandbox only); returns the balance it lands on. */
export async function fundBalance(tx: Tx, funding: Funding, enabledCurrencies: readonly string[]) {
  await moveFromSystem(tx, {
    workspaceId: funding.workspaceId,
    accountId: funding.accountId,
    currency: funding.currency,
    amountMinor: funding.amountMinor,
    system: 'sandbox_funding',
    reference: { type: 'funding' },
    description: 'Sandbox funding',
  });
  const entry = (await balancesOf(tx, funding.accountId)).find((b) => b.currency === funding.currency);
  return entry && balanceEntry(entry, enabledCurrencies);
}
