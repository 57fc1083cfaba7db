import { validationError, type FieldError } from '../../lib/errors.js';
import { currencyInfo } from '../../lib/currencies.js';
import { parseAmount } from '../../lib/money.js';

/**
 * The payout part of a workspace's settings, as the operator writes them
 * (PUT /operator/v1/workspaces/{id}/settings): amounts are decimal strings of their currency.
 */
export interface PayoutSettings {
  payoutsPermitted?: boolean;
  travelRuleScreening?: boolean;
  /** A fixed fee per payout, by the currency the payout is funded from. */
  payoutFees?: Record<string, string>;
  /** Limits by payout currency. */
  payoutLimits?: Record<string, { perTransaction?: string; daily?: string }>;
}

/** The same settings parsed once into minor units, for the payout rules. */
export interface PayoutTerms {
  permitted: boolean;
  travelRuleScreening: boolean;
  /** The fee of a payout funded from this currency (0 when none is set). */
  feeMinor: (fundingCurrency: string) => bigint;
  perTransactionMinor: (currency: string) => bigint | undefined;
  dailyMinor: (currency: string) => bigint | undefined;
}

type Parsed = { fees: Map<string, bigint>; perTransaction: Map<string, bigint>; daily: Map<string, bigint> };

/** Every amount of the settings against its currency's scale; the failing fields, named as the operator wrote them. */
function parseAll(settings: PayoutSettings): { parsed: Parsed; errors: FieldError[] } {
  const parsed: Parsed = { fees: new Map(), perTransaction: new Map(), daily: new Map() };
  const errors: FieldError[] = [];
  const take = (field: string, value: unknown, currency: string, into: Map<string, bigint>, allowZero: boolean) => {
    if (!currencyInfo(currency)) {
      errors.push({ field, message: `${field} names ${currency}, which is not a supported currency` });
      return;
    }
    try {
      into.set(currency, parseAmount(value, currency, field, { allowZero }));
    } catch (err) {
      const details = (err as { details?: FieldError[] }).details;
      errors.push(...(details?.length ? details : [{ field, message: `${field} is not an amount of ${currency}` }]));
    }
  };
  for (const [currency, fee] of Object.entries(settings.payoutFees ?? {})) take(`payoutFees.${currency}`, fee, currency, parsed.fees, true);
  for (const [currency, limits] of Object.entries(settings.payoutLimits ?? {})) {
    if (limits?.perTransaction !== undefined) take(`payoutLimits.${currency}.perTransaction`, limits.perTransaction, currency, parsed.perTransaction, false);
    if (limits?.daily !== undefined) take(`payoutLimits.${currency}.daily`, limits.daily, currency, parsed.daily, false);
  }
  return { parsed, errors };
}

/** Refuses settings whose amounts do not fit their currency (400 naming each field), when the operator writes them. */
export function assertValidPayoutSettings(settings: PayoutSettings): void {
  const { errors } = parseAll(settings);
  if (errors.length) throw validationError(errors);
}

/**
 * The payout terms of a workspace's stored settings. Settings are validated when written; settings
 * stored before that rule that do not parse throw here, for that workspace's requests only.
 */
export function payoutTerms(settings: Record<string, unknown>): PayoutTerms {
  const s = settings as PayoutSettings;
  const { parsed, errors } = parseAll(s);
  if (errors.length) throw new Error(`stored payout settings do not parse: ${errors.map((e) => e.field).join(', ')}`);
  return {
    permitted: s.payoutsPermitted !== false,
    travelRuleScreening: s.travelRuleScreening !== false,
    feeMinor: (currency) => parsed.fees.get(currency) ?? 0n,
    perTransactionMinor: (currency) => parsed.perTransaction.get(currency),
    dailyMinor: (currency) => parsed.daily.get(currency),
  };
}
