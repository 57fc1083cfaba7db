import type { Tx } from '../../platform/db/db.js';
import { fieldError } from '../../platform/lib/errors.js';
import { currencyInfo } from '../../platform/lib/currencies.js';
import { parseAmount } from '../../platform/lib/money.js';
import { ledger, type SystemKind } from './ledger.service.js';

/** Parses `CORRIDOR_SANDBOX_FUNDING` (`EUR:100000,USD:100000`) into minor-unit amounts. */
export function parseFundingSpec(spec: string): { currency: string; amountMinor: bigint }[] {
  return spec
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .map((pair) => {
      const [currency = '', amount = ''] = pair.split(':').map((s) => s.trim());
      if (!currencyInfo(currency)) throw new Error(`CORRIDOR_SANDBOX_FUNDING: unknown currency ${currency}`);
      return { currency, amountMinor: parseAmount(amount, currency, 'CORRIDOR_SANDBOX_FUNDING') };
    });
}

/**
 * Moves money between a customer's balance and a system account as one posted transfer: a
 * positive amount credits the customer, a negative one debits it (never below zero).
 */
export async function moveFromSystem(
  tx: Tx,
  input: {
    workspaceId: string;
    accountId: string;
    currency: string;
    amountMinor: bigint;
    system: SystemKind;
    reference: { type: string; id?: string };
    description?: string;
  },
): Promise<string> {
  if (input.amountMinor === 0n) throw fieldError('amount', 'amount must not be zero');
  const customer = { customer: input.accountId, workspaceId: input.workspaceId };
  const system = { system: input.system };
  const positive = input.amountMinor > 0n;
  return ledger.transfer(tx, {
    debit: positive ? system : customer,
    credit: positive ? customer : system,
    currency: input.currency,
    amountMinor: positive ? input.amountMinor : -input.amountMinor,
    reference: input.reference,
    description: input.description,
  });
}
