import type { ConditionSource } from '../../controls/alerts/alerts.port.js';
import { formatAmount } from '../../platform/lib/money.js';
import { paystackConnectorOf } from './connector.js';
import { awaitingBalanceTotal } from './paystack.repository.js';
import { ngnBalance } from './service.js';

/**
 * The Paystack balance low: the NGN balance transfers are paid from is under the connectors file's
 * `paystack.lowBalance` (its threshold lives there, beside the rest of the provider's settings; `0`,
 * the default, alerts nothing). Read from Paystack at each evaluation (GET /balance), or as last read
 * when Paystack does not answer. Payouts it cannot cover wait (`awaiting_balance`), never fail: the
 * operator tops the balance up. The alert closes at the first evaluation that reads it back at or
 * above the threshold.
 */
export const balanceLow: ConditionSource = {
  name: 'paystack.balance_low',
  unit: 'none',
  defaultThreshold: 0,
  filterKeys: [],
  description: "The Paystack NGN balance below the connectors file's paystack.lowBalance (payouts it cannot cover wait for it)",
  async check(ctx) {
    const paystack = paystackConnectorOf(ctx);
    if (!paystack) return [];
    const lowMinor = paystack.runtime.config.lowBalanceMinor;
    if (lowMinor === 0n) return [];
    const balance = await ngnBalance(ctx, paystack.runtime);
    if (!balance || balance.balanceMinor >= lowMinor) return [];
    const waiting = await awaitingBalanceTotal(ctx.db);
    const ngn = (minor: bigint) => `NGN ${formatAmount(minor, 'NGN')}`;
    const read = balance.stale ? `as last read at ${balance.readAt.toISOString()} (Paystack did not answer now)` : `read at ${balance.readAt.toISOString()}`;
    return [
      {
        subject: 'NGN',
        summary: `The Paystack balance is ${ngn(balance.balanceMinor)} (${read}), under the low-balance threshold of ${ngn(lowMinor)}${waiting.count > 0 ? `; ${waiting.count} payout(s) for ${ngn(waiting.amountMinor)} wait for it` : ''}`,
        details: {
          currency: 'NGN',
          balance: formatAmount(balance.balanceMinor, 'NGN'),
          lowBalance: formatAmount(lowMinor, 'NGN'),
          readAt: balance.readAt.toISOString(),
          stale: balance.stale,
          awaitingBalance: { count: waiting.count, amount: formatAmount(waiting.amountMinor, 'NGN') },
        },
      },
    ];
  },
};
