import type { Sql } from '../../db/db.js';
import type { PageRequest } from '../../db/pagination.js';
import { convert, formatAmount } from '../../lib/money.js';
import type { RateSource } from '../fx/rates.js';
import { balancesOf, type Balance } from './ledger.service.js';
import * as repo from './ledger.repository.js';

export function balanceEntry(b: Balance, enabledCurrencies: readonly string[]) {
  return {
    currency: b.currency,
    balance: formatAmount(b.availableMinor, b.currency),
    pendingIn: formatAmount(b.pendingInMinor, b.currency),
    pendingOut: formatAmount(b.pendingOutMinor, b.currency),
    totalBalance: formatAmount(b.totalMinor, b.currency),
    isActive: enabledCurrencies.includes(b.currency),
    lastTransactionAt: (b.lastTransactionAt ?? new Date(0)).toISOString(),
  };
}

/** The balances of one account as the spec's table, with totalValueEur at the current mid rates. */
export async function balancesView(
  sql: Sql,
  input: { accountId: string; clientId: string; enabledCurrencies: readonly string[]; primaryCurrency: string; rates: RateSource },
) {
  const balances = await balancesOf(sql, input.accountId);
  let totalEurMinor = 0n;
  for (const b of balances) {
    const rate = input.rates.eurPer(b.currency);
    if (rate && b.totalMinor > 0n) totalEurMinor += convert(b.totalMinor, b.currency, 'EUR', rate);
  }
  return {
    userId: input.accountId,
    clientId: input.clientId,
    balances: balances.map((b) => balanceEntry(b, input.enabledCurrencies)),
    totalValueEur: formatAmount(totalEurMinor, 'EUR'),
    primaryCurrency: input.primaryCurrency,
    calculatedAt: new Date().toISOString(),
  };
}

/** The movement feed behind the balances: every transfer touching the account, newest first. */
export function listTransactions(sql: Sql, accountId: string, page: PageRequest & { currency?: string | undefined }) {
  return repo.listTransfersOf(sql, accountId, page, (r) => ({
    id: r.id,
    currency: r.currency,
    amount: formatAmount(BigInt(r.amount_minor), r.currency),
    direction: r.direction,
    status: r.status,
    objectType: r.reference_type,
    objectId: r.reference_id,
    description: r.description,
    createdAt: r.created_at.toISOString(),
  }));
}
