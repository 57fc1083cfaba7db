/**
 * Money: wire decimal strings in, scaled `bigint` inside, wire strings out (DESIGN §4 Money).
 *
 * - An amount is held as a `bigint` of minor units at its currency's scale (EUR 2: "10.50" is 1050n;
 *   XOF 0; USDC 6). No JS number ever holds an amount: there is no Number(), parseFloat or Math here.
 * - Parsing is strict and happens once at the edge; a refusal is a 400 naming the field (http/errors).
 * - Formatting writes exactly the currency's scale ("10.00", "5", "1.500000").
 * - Currencies are given by code. An unknown code is a bug in the caller (the currency field is
 *   validated before its amount, with its own field error), so it fails an assertion (a 500).
 * - Conversions have one rounding rule, CONVERSION_ROUNDING: toward zero at the target currency's
 *   scale, so a conversion never delivers more than the rate allows.
 */
import { fieldError } from './errors.js';
import { AssertionError, assert } from './assert.js';
import { currencyInfo, iso4217Scale } from './currencies.js';

/** The wire shape of an amount, for a JSON Schema `pattern`. */
export const AMOUNT_PATTERN = '^(0|[1-9][0-9]*)(\\.[0-9]{1,8})?$';
/** Decimal places a wire amount may carry at most, whatever its currency. */
export const AMOUNT_DECIMALS_MAX = 8;
/**
 * Digits before the decimal point at most. Not a business cap (the spec has none): with scales up to 6
 * an amount stays below 10^30 minor units, leaving 8 digits of headroom in the ledger's numeric(38, 0).
 */
export const AMOUNT_UNITS_DIGITS_MAX = 24;
/** The wire shape of an exchange rate, for a JSON Schema `pattern`. */
export const RATE_PATTERN = '^(0|[1-9][0-9]*)(\\.[0-9]{1,12})?$';
/** Decimal places a rate carries at most, on the wire and from formatRate. */
export const RATE_DECIMALS_MAX = 12;
/** The one rounding rule of conversions: truncate toward zero at the target currency's scale. */
export const CONVERSION_ROUNDING = 'toward_zero';

/** An amount in minor units at its currency's scale. */
export type Money = { amount: bigint; currency: string };

/** How toScale treats digits it must drop: truncate them, or assert there are none. */
export type Rounding = typeof CONVERSION_ROUNDING | 'exact';

/** `to` units per 1 `from` unit, as an exact positive fraction. */
export interface Rate {
  readonly numerator: bigint;
  readonly denominator: bigint;
}

const pow10 = (exponent: number): bigint => 10n ** BigInt(exponent);

/** The scale (decimal places) of a known currency; an unknown code is a bug in the caller. */
export function currencyScale(currency: string): number {
  const info = currencyInfo(currency);
  if (!info) throw new AssertionError(`unknown currency ${JSON.stringify(currency)}`);
  return info.scale;
}

// ---------------------------------------------------------------------------------------------
// Parsing

interface Decimal {
  negative: boolean;
  /** Digits before the point, no leading zeros ("0" for zero). */
  units: string;
  /** Digits after the point, as written (trailing zeros count). */
  fraction: string;
}

const DECIMAL = /^([0-9]+)(?:\.([0-9]+))?$/;

/** A wire decimal, or why it is not one (the end of a sentence that starts with the field's name). */
function readDecimal(value: unknown, decimalsMax: number, signed: boolean): Decimal | string {
  if (typeof value === 'number' || typeof value === 'bigint') return 'must be a decimal string such as "10.50", not a JSON number';
  if (typeof value !== 'string') return 'must be a decimal string such as "10.50"';
  if (value === '') return 'must not be empty';
  let text = value;
  const negative = text.startsWith('-');
  if (negative) {
    if (!signed) return 'must not be negative';
    text = text.slice(1);
  }
  if (text.startsWith('+')) return 'must not have a leading "+"';
  if (/[eE]/.test(text)) return 'must not use exponent notation';
  const match = DECIMAL.exec(text);
  if (!match) return 'must be a decimal string such as "10.50"';
  const units = match[1] ?? '';
  const fraction = match[2] ?? '';
  if (units.length > 1 && units.startsWith('0')) return 'must not have leading zeros';
  if (fraction.length > decimalsMax) return `must have at most ${decimalsMax} decimal places`;
  if (units.length > AMOUNT_UNITS_DIGITS_MAX) return `must have at most ${AMOUNT_UNITS_DIGITS_MAX} digits before the decimal point`;
  return { negative, units, fraction };
}

/** Minor units of a decimal at `scale`, or why it does not fit the currency. */
function toMinor(decimal: Decimal, currency: string, scale: number): bigint | string {
  if (decimal.fraction.length > scale) {
    return scale === 0 ? `must be a whole number for ${currency}` : `must have at most ${scale} decimal places for ${currency}`;
  }
  const magnitude = BigInt(decimal.units + decimal.fraction.padEnd(scale, '0'));
  return decimal.negative ? -magnitude : magnitude;
}

function parseWith(value: unknown, currency: string, field: string, signed: boolean, allowZero: boolean): bigint {
  const scale = currencyScale(currency);
  const decimal = readDecimal(value, AMOUNT_DECIMALS_MAX, signed);
  if (typeof decimal === 'string') throw fieldError(field, `${field} ${decimal}`);
  const amount = toMinor(decimal, currency, scale);
  if (typeof amount === 'string') throw fieldError(field, `${field} ${amount}`);
  if (amount === 0n && !allowZero) throw fieldError(field, signed ? `${field} must not be 0` : `${field} must be greater than 0`);
  return amount;
}

/**
 * A wire amount as minor units of `currency`. Refused with a 400 naming `field`: anything but a
 * string (a JSON number included), "", a negative, a leading "+", an exponent, leading zeros, more
 * than 8 decimals, more decimals than the currency's scale ("1.0" for XOF), and 0 unless allowZero.
 */
export function parseAmount(value: unknown, currency: string, field: string, options: { allowZero?: boolean } = {}): bigint {
  return parseWith(value, currency, field, false, options.allowZero ?? false);
}

/** As parseAmount, for operator adjustments: a leading "-" is allowed and 0 is refused. */
export function parseSignedAmount(value: unknown, currency: string, field: string): bigint {
  return parseWith(value, currency, field, true, false);
}

// ---------------------------------------------------------------------------------------------
// Formatting and scales

function formatScaled(amount: bigint, scale: number): string {
  const sign = amount < 0n ? '-' : '';
  const digits = (amount < 0n ? -amount : amount).toString();
  if (scale === 0) return sign + digits;
  const padded = digits.padStart(scale + 1, '0');
  return `${sign}${padded.slice(0, -scale)}.${padded.slice(-scale)}`;
}

/** Minor units as a wire string with exactly the currency's scale: "10.00", "5", "-1.500000". */
export function formatAmount(amount: bigint, currency: string): string {
  return formatScaled(amount, currencyScale(currency));
}

/** An amount in any ISO 4217 currency (a bank's statement in CHF or JPY), at ISO's minor unit when Corridor does not list the currency. */
export function formatIsoAmount(amount: bigint, currency: string): string {
  return formatScaled(amount, iso4217Scale(currency) ?? currencyScale(currency));
}

export function formatMoney(money: Money): string {
  return formatAmount(money.amount, money.currency);
}

/** Re-expresses minor units at another scale. Going down drops digits toward zero, or asserts none are lost. */
export function toScale(amount: bigint, fromScale: number, toScaleDigits: number, rounding: Rounding): bigint {
  assert(Number.isSafeInteger(fromScale) && fromScale >= 0, `bad scale ${fromScale}`);
  assert(Number.isSafeInteger(toScaleDigits) && toScaleDigits >= 0, `bad scale ${toScaleDigits}`);
  if (toScaleDigits >= fromScale) return amount * pow10(toScaleDigits - fromScale);
  const divisor = pow10(fromScale - toScaleDigits);
  if (rounding === 'exact') assert(amount % divisor === 0n, `${amount} at scale ${fromScale} is not exact at scale ${toScaleDigits}`);
  return amount / divisor; // bigint division truncates toward zero
}

// ---------------------------------------------------------------------------------------------
// Arithmetic

export function sum(amounts: Iterable<bigint>): bigint {
  let total = 0n;
  for (const amount of amounts) total += amount;
  return total;
}

export function compare(a: bigint, b: bigint): -1 | 0 | 1 {
  return a < b ? -1 : a > b ? 1 : 0;
}

export const isZero = (amount: bigint): boolean => amount === 0n;
export const minAmount = (a: bigint, b: bigint): bigint => (a < b ? a : b);
export const maxAmount = (a: bigint, b: bigint): bigint => (a > b ? a : b);

// ---------------------------------------------------------------------------------------------
// Rates and conversion

function rateFromDecimal(decimal: Decimal): Rate | string {
  const numerator = BigInt(decimal.units + decimal.fraction);
  if (numerator === 0n) return 'must be greater than 0';
  return { numerator, denominator: pow10(decimal.fraction.length) };
}

/** A wire rate (`RATE_PATTERN`, > 0); refused with a 400 naming `field`. */
export function parseRate(value: unknown, field = 'rate'): Rate {
  const decimal = readDecimal(value, RATE_DECIMALS_MAX, false);
  const rate = typeof decimal === 'string' ? decimal : rateFromDecimal(decimal);
  if (typeof rate === 'string') throw fieldError(field, `${field} ${rate}`);
  return rate;
}

/** A rate from our own data (a string of `RATE_PATTERN` or a Rate); a malformed one is a bug. */
export function toRate(rate: string | Rate): Rate {
  if (typeof rate !== 'string') {
    assert(rate.numerator > 0n && rate.denominator > 0n, `rate must be positive: ${rate.numerator}/${rate.denominator}`);
    return rate;
  }
  const decimal = readDecimal(rate, RATE_DECIMALS_MAX, false);
  const parsed = typeof decimal === 'string' ? decimal : rateFromDecimal(decimal);
  if (typeof parsed === 'string') throw new AssertionError(`rate ${JSON.stringify(rate)} ${parsed}`);
  return parsed;
}

/** A rate as a decimal string, truncated toward zero at `decimalsMax` places, trailing zeros dropped. */
export function formatRate(rate: string | Rate, decimalsMax: number = RATE_DECIMALS_MAX): string {
  const { numerator, denominator } = toRate(rate);
  const scaled = (numerator * pow10(decimalsMax)) / denominator;
  assert(scaled > 0n, `rate ${numerator}/${denominator} is below 10^-${decimalsMax}`);
  const text = formatScaled(scaled, decimalsMax);
  return text.includes('.') ? text.replace(/\.?0+$/, '') : text;
}

/** The rate of the opposite direction (`from` units per 1 `to`), exact. */
export function invertRate(rate: string | Rate): Rate {
  const { numerator, denominator } = toRate(rate);
  return { numerator: denominator, denominator: numerator };
}

/**
 * The customer's rate: `rate` less a spread of `bps` basis points (0 to 9999), so the customer
 * receives fewer `to` units per `from` unit. Truncated toward zero at RATE_DECIMALS_MAX places.
 */
export function applySpreadBps(rate: string | Rate, bps: number): string {
  assert(Number.isSafeInteger(bps) && bps >= 0 && bps < 10_000, `spread must be 0..9999 bps, got ${bps}`);
  const { numerator, denominator } = toRate(rate);
  return formatRate({ numerator: numerator * BigInt(10_000 - bps), denominator: denominator * 10_000n });
}

/** amount (minor units of `from`) × rate = exact target minor units as the fraction top / bottom. */
function conversionFraction(from: string, to: string, rate: string | Rate): { top: bigint; bottom: bigint } {
  const { numerator, denominator } = toRate(rate);
  return { top: numerator * pow10(currencyScale(to)), bottom: denominator * pow10(currencyScale(from)) };
}

/**
 * `amount` (minor units of `from`) in minor units of `to` at `rate` (`to` per 1 `from`), rounded by
 * CONVERSION_ROUNDING: toward zero, so |result| never exceeds the exact value and misses it by < 1 minor unit.
 */
export function convert(amount: bigint, from: string, to: string, rate: string | Rate): bigint {
  const { top, bottom } = conversionFraction(from, to, rate);
  return (amount * top) / bottom; // bigint division truncates toward zero
}

/**
 * The least `from` amount whose convert() delivers at least `toAmount` (>= 0): the inverse of the one
 * rounding rule, for quotes that fix the amount delivered.
 */
export function sourceAmountFor(toAmount: bigint, from: string, to: string, rate: string | Rate): bigint {
  assert(toAmount >= 0n, `toAmount must not be negative: ${toAmount}`);
  const { top, bottom } = conversionFraction(from, to, rate);
  return (toAmount * bottom + top - 1n) / top; // ceiling for non-negatives
}
