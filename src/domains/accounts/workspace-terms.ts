import { Type, type Static } from 'typebox';
import { validationError, type FieldError } from '../../platform/lib/errors.js';
import { currencyInfo } from '../../platform/lib/currencies.js';
import { parseAmount } from '../../platform/lib/money.js';

/**
 * A workspace's settings, as the operator writes them (PUT /operator/v1/workspaces/{id}/settings,
 * and the console's settings form) and as they are stored and shown: amounts are decimal strings of
 * their currency. The one place their rules are written; `parseWorkspaceTerms` turns them into the
 * typed terms the services read.
 */
const CurrencyCode = Type.String({ pattern: '^[A-Z]{3,10}$' });
const Amount = Type.String({ pattern: '^(0|[1-9][0-9]*)(\\.[0-9]{1,8})?$' });

export const BusinessIdentitySchema = Type.Object(
  {
    companyName: Type.String({ minLength: 1, maxLength: 200 }),
    registrationNumber: Type.Optional(Type.String({ maxLength: 100 })),
    country: Type.Optional(Type.String({ pattern: '^[A-Z]{2}$' })),
    address: Type.Optional(Type.String({ maxLength: 200 })),
    city: Type.Optional(Type.String({ maxLength: 100 })),
    postalCode: Type.Optional(Type.String({ maxLength: 20 })),
  },
  { description: 'The business identity that originates payouts sent without senderInfo' },
);

const PayoutLimitsSchema = Type.Object({ perTransaction: Type.Optional(Amount), daily: Type.Optional(Amount) });

export const WorkspaceSettingsSchema = Type.Object(
  {
    travelRuleScreening: Type.Optional(Type.Boolean()),
    primaryCurrency: Type.Optional(CurrencyCode),
    businessIdentity: Type.Optional(BusinessIdentitySchema),
    payoutsPermitted: Type.Optional(Type.Boolean({ description: 'false refuses payouts with PAYOUT_NOT_PERMITTED' })),
    achPrenotes: Type.Optional(
      Type.Boolean({
        description:
          'true: the first ACH payout to a bank account the workspace has not used sends a zero-dollar prenote in the next file, and payouts to that account wait until three banking days after its settlement pass without a return (default false)',
      }),
    ),
    payoutFees: Type.Optional(
      Type.Record(CurrencyCode, Amount, {
        description:
          'Fixed fee per payout by the currency the payout is funded from (its own currency, or the quote\'s fromCurrency), held with the amount and returned with it. Each amount must fit its currency\'s scale (400 naming `payoutFees.<CODE>` otherwise).',
      }),
    ),
    payoutLimits: Type.Optional(
      Type.Record(CurrencyCode, PayoutLimitsSchema, {
        description: 'Per-transaction and daily (UTC) payout limits by payout currency; beyond them LIMIT_EXCEEDED. Each amount must fit its currency\'s scale and be above 0 (400 naming the field otherwise).',
      }),
    ),
    depositFees: Type.Optional(
      Type.Record(CurrencyCode, Amount, {
        description: 'Fixed service fee per deposit by currency (default 0): a deposit credits `amount - serviceFee`. Each amount must fit its currency\'s scale (400 naming `depositFees.<CODE>` otherwise).',
      }),
    ),
  },
  { additionalProperties: false },
);

export type WorkspaceSettings = Static<typeof WorkspaceSettingsSchema>;
export type BusinessIdentity = Static<typeof BusinessIdentitySchema>;
export type PayoutLimits = Static<typeof PayoutLimitsSchema>;

/** A workspace's settings parsed once: amounts in minor units of their currency, defaults applied. */
export interface WorkspaceTerms {
  /** The primary currency the operator set (undefined: derived from the workspace's country). */
  primaryCurrency: string | undefined;
  /** The business identity on record (with a companyName), the originator of payouts sent without senderInfo. */
  businessIdentity: BusinessIdentity | undefined;
  travelRuleScreening: boolean;
  payoutsPermitted: boolean;
  /** ACH payouts to an account not yet prenoted wait for a prenote (default false). */
  achPrenotes: boolean;
  /** The fee of a payout funded from this currency (0 when none is set). */
  payoutFeeMinor: (fundingCurrency: string) => bigint;
  perTransactionMinor: (currency: string) => bigint | undefined;
  dailyMinor: (currency: string) => bigint | undefined;
  /** The service fee of a deposit in this currency (0 when none is set). */
  depositFeeMinor: (currency: string) => bigint;
}

type Amounts = { payoutFees: Map<string, bigint>; perTransaction: Map<string, bigint>; daily: Map<string, bigint>; depositFees: Map<string, bigint> };

/** Every amount of the settings against its currency's scale; the failing fields, named as the operator wrote them. */
function parseAmounts(settings: WorkspaceSettings): { amounts: Amounts; errors: FieldError[] } {
  const amounts: Amounts = { payoutFees: new Map(), perTransaction: new Map(), daily: new Map(), depositFees: new Map() };
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
  for (const [currency, fee] of Object.entries(settings.payoutFees ?? {})) take(`payoutFees.${currency}`, fee, currency, amounts.payoutFees, true);
  for (const [currency, limits] of Object.entries(settings.payoutLimits ?? {})) {
    if (limits?.perTransaction !== undefined) take(`payoutLimits.${currency}.perTransaction`, limits.perTransaction, currency, amounts.perTransaction, false);
    if (limits?.daily !== undefined) take(`payoutLimits.${currency}.daily`, limits.daily, currency, amounts.daily, false);
  }
  for (const [currency, fee] of Object.entries(settings.depositFees ?? {})) take(`depositFees.${currency}`, fee, currency, amounts.depositFees, true);
  return { amounts, errors };
}

function businessIdentityOf(value: unknown): BusinessIdentity | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  return typeof (value as Record<string, unknown>).companyName === 'string' ? (value as BusinessIdentity) : undefined;
}

function termsOf(s: WorkspaceSettings, amounts: Amounts): WorkspaceTerms {
  return {
    primaryCurrency: typeof s.primaryCurrency === 'string' ? s.primaryCurrency : undefined,
    businessIdentity: businessIdentityOf(s.businessIdentity),
    travelRuleScreening: s.travelRuleScreening !== false,
    payoutsPermitted: s.payoutsPermitted !== false,
    achPrenotes: s.achPrenotes === true,
    payoutFeeMinor: (currency) => amounts.payoutFees.get(currency) ?? 0n,
    perTransactionMinor: (currency) => amounts.perTransaction.get(currency),
    dailyMinor: (currency) => amounts.daily.get(currency),
    depositFeeMinor: (currency) => amounts.depositFees.get(currency) ?? 0n,
  };
}

/** Refuses settings whose amounts do not fit their currency (400 naming each field), when the operator writes them. */
export function assertValidSettings(settings: WorkspaceSettings): void {
  const { errors } = parseAmounts(settings);
  if (errors.length) throw validationError(errors);
}

/**
 * The terms of a workspace's stored settings, parsed when the workspace is read (the credential
 * cache, the dashboard). Settings are validated when written; stored settings that do not parse
 * (written before that rule) throw here, failing that workspace's requests only.
 */
export function parseWorkspaceTerms(stored: Record<string, unknown>): WorkspaceTerms {
  const settings = stored as WorkspaceSettings;
  const { amounts, errors } = parseAmounts(settings);
  if (errors.length) throw new Error(`stored workspace settings do not parse: ${errors.map((e) => e.field).join(', ')}`);
  return termsOf(settings, amounts);
}
