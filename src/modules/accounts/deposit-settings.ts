import { validationError, type FieldError } from '../../lib/errors.js';
import { currencyInfo } from '../../lib/currencies.js';
import { parseAmount } from '../../lib/money.js';

/**
 * The deposit part of a workspace's settings, as the operator writes them
 * (PUT /operator/v1/workspaces/{id}/settings): a fixed service fee per deposit, by currency
 * (default 0). The deposit's creditedAmount is its amount less this fee (never below 0).
 */
export interface DepositSettings {
  depositFees?: Record<string, string>;
}

function parseFees(settings: DepositSettings): { fees: Map<string, bigint>; errors: FieldError[] } {
  const fees = new Map<string, bigint>();
  const errors: FieldError[] = [];
  for (const [currency, fee] of Object.entries(settings.depositFees ?? {})) {
    const field = `depositFees.${currency}`;
    if (!currencyInfo(currency)) {
      errors.push({ field, message: `${field} names ${currency}, which is not a supported currency` });
      continue;
    }
    try {
      fees.set(currency, parseAmount(fee, currency, field, { allowZero: true }));
    } catch (err) {
      const details = (err as { details?: FieldError[] }).details;
      errors.push(...(details?.length ? details : [{ field, message: `${field} is not an amount of ${currency}` }]));
    }
  }
  return { fees, errors };
}

/** Refuses deposit fees that do not fit their currency (400 naming each field), when the operator writes them. */
export function assertValidDepositSettings(settings: DepositSettings): void {
  const { errors } = parseFees(settings);
  if (errors.length) throw validationError(errors);
}

/** The service fee of a deposit in this currency, in minor units (0 when none is set). */
export function depositFeeMinor(settings: Record<string, unknown>, currency: string): bigint {
  const { fees, errors } = parseFees(settings as DepositSettings);
  if (errors.length) throw new Error(`stored deposit settings do not parse: ${errors.map((e) => e.field).join(', ')}`);
  return fees.get(currency) ?? 0n;
}
