import currencyCodes from 'currency-codes';
/** The currencies of the spec: their scale and how a workspace gets them. */
export type CurrencyAvailability = 'default' | 'on_request' | 'sandbox_only';

export interface CurrencyInfo {
  code: string;
  scale: number;
  availability: CurrencyAvailability;
  crypto: boolean;
}

const table: CurrencyInfo[] = [
  { code: 'EUR', scale: 2, availability: 'default', crypto: false },
  { code: 'USD', scale: 2, availability: 'default', crypto: false },
  { code: 'GBP', scale: 2, availability: 'default', crypto: false },
  { code: 'USDC', scale: 6, availability: 'default', crypto: true },
  { code: 'NGN', scale: 2, availability: 'default', crypto: false },
  { code: 'USDT', scale: 6, availability: 'on_request', crypto: true },
  { code: 'XOF', scale: 0, availability: 'on_request', crypto: false },
  { code: 'XAF', scale: 0, availability: 'on_request', crypto: false },
  { code: 'GHS', scale: 2, availability: 'on_request', crypto: false },
  { code: 'ZMW', scale: 2, availability: 'sandbox_only', crypto: false },
  { code: 'MZN', scale: 2, availability: 'sandbox_only', crypto: false },
  { code: 'MWK', scale: 2, availability: 'sandbox_only', crypto: false },
  { code: 'EGP', scale: 2, availability: 'sandbox_only', crypto: false },
];

export const CURRENCIES: ReadonlyMap<string, CurrencyInfo> = new Map(table.map((c) => [c.code, c]));
export const CURRENCY_CODES: readonly string[] = table.map((c) => c.code);
export const DEFAULT_CURRENCIES: readonly string[] = table.filter((c) => c.availability === 'default').map((c) => c.code);

export function currencyInfo(code: string): CurrencyInfo | undefined {
  return CURRENCIES.get(code);
}

/**
 * The decimal places of any ISO 4217 currency, as banks' files carry them (CHF, SEK, JPY…, not only
 * Corridor's own): Corridor's scale for its currencies, else ISO 4217's minor unit (the
 * `currency-codes` data); undefined for a code ISO 4217 does not list or gives no minor unit.
 */
export function iso4217Scale(code: string): number | undefined {
  const own = CURRENCIES.get(code);
  if (own) return own.scale;
  const digits = /^[A-Z]{3}$/.test(code) ? currencyCodes.code(code)?.digits : undefined;
  return typeof digits === 'number' && Number.isInteger(digits) ? digits : undefined;
}
