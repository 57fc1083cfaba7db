import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AppError, toAppError } from '../../src/platform/http/errors.js';
import { DomainError } from '../../src/platform/lib/errors.js';
import { AssertionError } from '../../src/platform/lib/assert.js';
import { CURRENCY_CODES } from '../../src/platform/lib/currencies.js';
import {
  AMOUNT_PATTERN,
  CONVERSION_ROUNDING,
  RATE_PATTERN,
  applySpreadBps,
  compare,
  convert,
  currencyScale,
  formatAmount,
  formatMoney,
  formatRate,
  invertRate,
  isZero,
  maxAmount,
  minAmount,
  parseAmount,
  parseRate,
  parseSignedAmount,
  sourceAmountFor,
  sum,
  toRate,
  toScale,
} from '../../src/platform/lib/money.js';

/** The 400 a call throws (a domain refusal, answered 400), checked to be a validation error naming `field`. */
function refusal(call: () => unknown, field: string): AppError {
  let thrown: unknown;
  try {
    call();
  } catch (err) {
    thrown = err;
  }
  expect(thrown).toBeInstanceOf(DomainError);
  const err = toAppError(thrown);
  expect(err.status).toBe(400);
  expect(err.details).toHaveLength(1);
  expect(err.details?.[0]?.field).toBe(field);
  expect(err.details?.[0]?.message.startsWith(`${field} `)).toBe(true);
  return err;
}

const pow10 = (n: number): bigint => 10n ** BigInt(n);
const digits = (minLength: number, maxLength: number): fc.Arbitrary<string> =>
  fc.string({ unit: fc.constantFrom(...'0123456789'.split('')), minLength, maxLength });
const currency = fc.constantFrom(...CURRENCY_CODES);
/** Digits before the point: "0" or no leading zero, up to 24 digits. */
const units = fc.bigInt({ min: 0n, max: pow10(24) - 1n }).map(String);
/** A valid wire amount for `code`: up to the currency's scale of decimals (trailing zeros included). */
const wireAmount = (code: string): fc.Arbitrary<string> =>
  fc
    .tuple(units, digits(0, currencyScale(code)))
    .map(([u, f]) => (f === '' ? u : `${u}.${f}`));

/** Decimal addition on digit strings, independent of the module under test. */
function addDecimalStrings(a: string, b: string): string {
  const [ai = '', af = ''] = a.split('.');
  const [bi = '', bf = ''] = b.split('.');
  const places = Math.max(af.length, bf.length);
  const x = ai + af.padEnd(places, '0');
  const y = bi + bf.padEnd(places, '0');
  const width = Math.max(x.length, y.length);
  const xs = x.padStart(width, '0');
  const ys = y.padStart(width, '0');
  let out = '';
  let carry = 0;
  for (let i = width - 1; i >= 0; i--) {
    const d = Number(xs[i]) + Number(ys[i]) + carry;
    out = String(d % 10) + out;
    carry = d >= 10 ? 1 : 0;
  }
  if (carry) out = '1' + out;
  const whole = out.slice(0, out.length - places).replace(/^0+(?=.)/, '') || '0';
  return places ? `${whole}.${out.slice(out.length - places)}` : whole;
}

/** A decimal string padded (never cut) to `scale` decimals. */
function padToScale(text: string, scale: number): string {
  const [i = '', f = ''] = text.split('.');
  return scale === 0 ? i : `${i}.${f.padEnd(scale, '0')}`;
}

describe('parseAmount refusals', () => {
  const cases: [string, unknown, string, RegExp][] = [
    ['a JSON number', 10.5, 'EUR', /not a JSON number/],
    ['an integer JSON number', 10, 'XOF', /not a JSON number/],
    ['a bigint', 10n, 'XOF', /not a JSON number/],
    ['null', null, 'EUR', /decimal string/],
    ['undefined', undefined, 'EUR', /decimal string/],
    ['an object', { amount: '1' }, 'EUR', /decimal string/],
    ['an empty string', '', 'EUR', /must not be empty/],
    ['a negative', '-1.00', 'EUR', /must not be negative/],
    ['negative zero', '-0', 'EUR', /must not be negative/],
    ['a leading +', '+1.00', 'EUR', /leading "\+"/],
    ['an exponent', '1e3', 'EUR', /exponent/],
    ['an upper-case exponent', '1.5E2', 'EUR', /exponent/],
    ['a negative exponent', '1e-2', 'EUR', /exponent/],
    ['leading zeros', '01', 'EUR', /leading zeros/],
    ['leading zeros with decimals', '00.50', 'EUR', /leading zeros/],
    ['more than 8 decimals', '0.000000001', 'USDC', /at most 8 decimal places/],
    ['more decimals than EUR allows', '1.001', 'EUR', /at most 2 decimal places for EUR/],
    ['more decimals than USDC allows', '1.0000001', 'USDC', /at most 6 decimal places for USDC/],
    ['trailing zero decimals past EUR scale', '1.000', 'EUR', /at most 2 decimal places for EUR/],
    ['any decimals for XOF', '1.0', 'XOF', /whole number for XOF/],
    ['any decimals for XAF', '500.5', 'XAF', /whole number for XAF/],
    ['zero', '0', 'EUR', /greater than 0/],
    ['zero with decimals', '0.00', 'EUR', /greater than 0/],
    ['a bare point', '1.', 'EUR', /decimal string/],
    ['no whole part', '.5', 'EUR', /decimal string/],
    ['whitespace', ' 1.00', 'EUR', /decimal string/],
    ['a trailing newline', '1.00\n', 'EUR', /decimal string/],
    ['a comma', '1,00', 'EUR', /decimal string/],
    ['hex', '0x10', 'EUR', /decimal string/],
    ['Infinity', 'Infinity', 'EUR', /decimal string/],
    ['NaN', 'NaN', 'EUR', /decimal string/],
    ['non-ASCII digits', '١٢', 'EUR', /decimal string/],
    ['more than 24 whole digits', '1' + '0'.repeat(24), 'EUR', /at most 24 digits/],
  ];
  for (const [what, value, code, message] of cases) {
    it(`refuses ${what} with a 400 naming the field`, () => {
      const err = refusal(() => parseAmount(value, code, 'amount'), 'amount');
      expect(err.details?.[0]?.message).toMatch(message);
      expect(err.message).toBe(err.details?.[0]?.message);
    });
  }

  it('names the field it was given (dotted paths included)', () => {
    refusal(() => parseAmount('1.001', 'EUR', 'settlement.requiredAmount'), 'settlement.requiredAmount');
  });

  it('throws an assertion, not a 400, for an unknown currency', () => {
    expect(() => parseAmount('1', 'XYZ', 'amount')).toThrow(AssertionError);
    expect(() => formatAmount(1n, 'eur')).toThrow(AssertionError);
  });
});

describe('parseAmount accepts', () => {
  it('amounts up to the currency scale', () => {
    expect(parseAmount('10.50', 'EUR', 'amount')).toBe(1050n);
    expect(parseAmount('10.5', 'EUR', 'amount')).toBe(1050n);
    expect(parseAmount('10', 'EUR', 'amount')).toBe(1000n);
    expect(parseAmount('0.01', 'USD', 'amount')).toBe(1n);
    expect(parseAmount('200', 'XOF', 'amount')).toBe(200n);
    expect(parseAmount('1.5', 'USDC', 'amount')).toBe(1_500_000n);
    expect(parseAmount('0.000001', 'USDT', 'amount')).toBe(1n);
    expect(parseAmount('9'.repeat(24), 'XAF', 'amount')).toBe(pow10(24) - 1n);
  });

  it('zero only when allowed', () => {
    expect(parseAmount('0', 'EUR', 'amount', { allowZero: true })).toBe(0n);
    expect(parseAmount('0.00', 'EUR', 'amount', { allowZero: true })).toBe(0n);
  });

  it('exactly the strings of AMOUNT_PATTERN (for a scale-8 reading)', () => {
    const pattern = new RegExp(AMOUNT_PATTERN);
    for (const s of ['0', '1', '10.5', '0.00000001', '123.12345678']) expect(pattern.test(s)).toBe(true);
    for (const s of ['01', '-1', '+1', '1e2', '1.', '.1', '1.123456789', '']) expect(pattern.test(s)).toBe(false);
  });
});

describe('parseSignedAmount', () => {
  it('accepts a leading "-" and positives', () => {
    expect(parseSignedAmount('-12.34', 'EUR', 'amount')).toBe(-1234n);
    expect(parseSignedAmount('12.34', 'EUR', 'amount')).toBe(1234n);
    expect(parseSignedAmount('-5', 'XOF', 'amount')).toBe(-5n);
  });

  it('refuses zero, "+", exponents, JSON numbers and excess decimals', () => {
    expect(refusal(() => parseSignedAmount('0', 'EUR', 'amount'), 'amount').message).toMatch(/must not be 0/);
    expect(refusal(() => parseSignedAmount('-0.00', 'EUR', 'amount'), 'amount').message).toMatch(/must not be 0/);
    refusal(() => parseSignedAmount('+1', 'EUR', 'amount'), 'amount');
    refusal(() => parseSignedAmount('-+1', 'EUR', 'amount'), 'amount');
    refusal(() => parseSignedAmount('--1', 'EUR', 'amount'), 'amount');
    refusal(() => parseSignedAmount('-', 'EUR', 'amount'), 'amount');
    refusal(() => parseSignedAmount('-1e2', 'EUR', 'amount'), 'amount');
    refusal(() => parseSignedAmount(-1, 'EUR', 'amount'), 'amount');
    refusal(() => parseSignedAmount('-1.001', 'EUR', 'amount'), 'amount');
    refusal(() => parseSignedAmount('-01', 'EUR', 'amount'), 'amount');
  });
});

describe('formatAmount', () => {
  it('writes exactly the currency scale', () => {
    expect(formatAmount(1000n, 'EUR')).toBe('10.00');
    expect(formatAmount(1050n, 'GBP')).toBe('10.50');
    expect(formatAmount(1n, 'USD')).toBe('0.01');
    expect(formatAmount(0n, 'NGN')).toBe('0.00');
    expect(formatAmount(5n, 'XOF')).toBe('5');
    expect(formatAmount(0n, 'XAF')).toBe('0');
    expect(formatAmount(1_500_000n, 'USDC')).toBe('1.500000');
    expect(formatAmount(1n, 'USDT')).toBe('0.000001');
    expect(formatMoney({ amount: 123456n, currency: 'GHS' })).toBe('1234.56');
  });

  it('writes negatives with a "-"', () => {
    expect(formatAmount(-1234n, 'EUR')).toBe('-12.34');
    expect(formatAmount(-5n, 'EUR')).toBe('-0.05');
    expect(formatAmount(-7n, 'XOF')).toBe('-7');
    expect(formatAmount(-1n, 'USDC')).toBe('-0.000001');
  });

  it('round-trips parse(format(x)) for every non-negative amount of every currency', () => {
    fc.assert(
      fc.property(currency, fc.bigInt({ min: 0n, max: pow10(30) - 1n }), (code, x) => {
        const amount = x / pow10(6 - currencyScale(code)); // keep within 24 whole digits
        expect(parseAmount(formatAmount(amount, code), code, 'amount', { allowZero: true })).toBe(amount);
      }),
    );
  });

  it('round-trips signed amounts through parseSignedAmount', () => {
    fc.assert(
      fc.property(currency, fc.bigInt({ min: -(pow10(24) - 1n), max: pow10(24) - 1n }), (code, x) => {
        fc.pre(x !== 0n);
        expect(parseSignedAmount(formatAmount(x, code), code, 'amount')).toBe(x);
      }),
    );
  });

  it('normalizes any valid wire amount to the currency scale', () => {
    fc.assert(
      fc.property(
        currency.chain((code) => fc.tuple(fc.constant(code), wireAmount(code))),
        ([code, text]) => {
          const formatted = formatAmount(parseAmount(text, code, 'amount', { allowZero: true }), code);
          expect(formatted).toBe(padToScale(text, currencyScale(code)));
          expect(new RegExp(AMOUNT_PATTERN).test(formatted)).toBe(true);
        },
      ),
    );
  });
});

describe('sums and helpers', () => {
  it('sums parsed amounts as decimal addition on the strings does', () => {
    fc.assert(
      fc.property(
        currency.chain((code) => fc.tuple(fc.constant(code), fc.array(wireAmount(code), { maxLength: 20 }))),
        ([code, texts]) => {
          const total = sum(texts.map((t) => parseAmount(t, code, 'amount', { allowZero: true })));
          const expected = texts.reduce(addDecimalStrings, '0');
          expect(formatAmount(total, code)).toBe(padToScale(expected, currencyScale(code)));
        },
      ),
    );
  });

  it('sums, compares and picks', () => {
    expect(sum([])).toBe(0n);
    expect(sum(new Set([1n, 2n, -3n]))).toBe(0n);
    expect(compare(1n, 2n)).toBe(-1);
    expect(compare(2n, 2n)).toBe(0);
    expect(compare(3n, 2n)).toBe(1);
    expect(isZero(0n)).toBe(true);
    expect(isZero(-1n)).toBe(false);
    expect(minAmount(3n, -4n)).toBe(-4n);
    expect(maxAmount(3n, -4n)).toBe(3n);
  });
});

describe('toScale', () => {
  it('scales up exactly and down toward zero', () => {
    expect(toScale(1050n, 2, 6, 'toward_zero')).toBe(10_500_000n);
    expect(toScale(1_234_567n, 6, 2, 'toward_zero')).toBe(123n);
    expect(toScale(-1_234_567n, 6, 2, 'toward_zero')).toBe(-123n);
    expect(toScale(199n, 2, 0, 'toward_zero')).toBe(1n);
    expect(toScale(1_230_000n, 6, 2, 'exact')).toBe(123n);
  });

  it('asserts when an exact rescale would lose digits', () => {
    expect(() => toScale(1_234_567n, 6, 2, 'exact')).toThrow(AssertionError);
    expect(() => toScale(1n, -1, 2, 'exact')).toThrow(AssertionError);
  });

  it('undoes scaling up', () => {
    fc.assert(
      fc.property(fc.bigInt(), fc.nat(12), fc.nat(12), (x, a, b) => {
        const [low, high] = a <= b ? [a, b] : [b, a];
        expect(toScale(toScale(x, low, high, 'exact'), high, low, 'exact')).toBe(x);
      }),
    );
  });
});

describe('rates', () => {
  it('parses wire rates strictly', () => {
    expect(parseRate('1.085')).toEqual({ numerator: 1085n, denominator: 1000n });
    expect(parseRate('1600')).toEqual({ numerator: 1600n, denominator: 1n });
    expect(refusal(() => parseRate('0'), 'rate').message).toMatch(/greater than 0/);
    expect(refusal(() => parseRate('0.0000000000001', 'fxRate'), 'fxRate').message).toMatch(/at most 12 decimal places/);
    refusal(() => parseRate(1.085), 'rate');
    refusal(() => parseRate('-1.1'), 'rate');
    refusal(() => parseRate('1e2'), 'rate');
    expect(new RegExp(RATE_PATTERN).test('0.000000000001')).toBe(true);
  });

  it('asserts on a malformed internal rate', () => {
    expect(() => toRate('abc')).toThrow(AssertionError);
    expect(() => toRate('0')).toThrow(AssertionError);
    expect(() => toRate({ numerator: 0n, denominator: 1n })).toThrow(AssertionError);
    expect(() => toRate({ numerator: 1n, denominator: -1n })).toThrow(AssertionError);
    expect(() => convert(100n, 'EUR', 'USD', '1,08')).toThrow(AssertionError);
  });

  it('formats rates toward zero with at most 12 decimals', () => {
    expect(formatRate('1.500')).toBe('1.5');
    expect(formatRate('1600')).toBe('1600');
    expect(formatRate({ numerator: 1n, denominator: 3n })).toBe('0.333333333333');
    expect(formatRate({ numerator: 2n, denominator: 3n })).toBe('0.666666666666');
    expect(formatRate(invertRate('1600'))).toBe('0.000625');
    expect(() => formatRate({ numerator: 1n, denominator: pow10(13) })).toThrow(AssertionError);
  });

  it('applies a spread in basis points, against the customer', () => {
    expect(applySpreadBps('1.1', 0)).toBe('1.1');
    expect(applySpreadBps('1.1', 100)).toBe('1.089');
    expect(applySpreadBps('1600', 50)).toBe('1592');
    expect(applySpreadBps({ numerator: 1n, denominator: 3n }, 1)).toBe('0.3333');
    expect(() => applySpreadBps('1.1', -1)).toThrow(AssertionError);
    expect(() => applySpreadBps('1.1', 10_000)).toThrow(AssertionError);
    expect(() => applySpreadBps('1.1', 1.5)).toThrow(AssertionError);
  });
});

/** A wire rate: up to 6 whole digits and up to 12 decimals, > 0. */
const wireRate = fc
  .tuple(fc.bigInt({ min: 0n, max: 999_999n }), digits(0, 12))
  .map(([u, f]) => (f === '' ? String(u) : `${u}.${f}`))
  .filter((s) => /[1-9]/.test(s));
const pair = fc.tuple(currency, currency);
const minor = fc.bigInt({ min: 0n, max: pow10(20) });

describe('convert', () => {
  it(`rounds ${CONVERSION_ROUNDING} at the target scale`, () => {
    expect(convert(10_000n, 'EUR', 'USD', '1.0855')).toBe(10_855n); // 100.00 EUR -> 108.55 USD
    expect(convert(999n, 'EUR', 'USD', '1.0855')).toBe(1084n); // 10.844... -> 10.84
    expect(convert(100n, 'USD', 'NGN', '1600.129')).toBe(160_012n); // 1.00 USD -> 1600.12 NGN
    expect(convert(1n, 'EUR', 'XOF', '655.957')).toBe(6n); // 0.01 EUR -> 6.55 XOF -> 6
    expect(convert(100n, 'EUR', 'XOF', '655.957')).toBe(655n);
    expect(convert(1000n, 'XOF', 'EUR', invertRate('655.957'))).toBe(152n); // 1000 XOF -> 1.524... EUR
    expect(convert(1_000_000n, 'USDC', 'USD', '0.9999')).toBe(99n);
    expect(convert(-999n, 'EUR', 'USD', '1.0855')).toBe(-1084n); // toward zero for negatives too
  });

  it('never exceeds the exact value and misses it by less than one minor unit', () => {
    fc.assert(
      fc.property(pair, minor, wireRate, ([from, to], a, rateText) => {
        const result = convert(a, from, to, rateText);
        const [u = '', f = ''] = rateText.split('.');
        const num = BigInt(u + f) * pow10(currencyScale(to));
        const den = pow10(f.length) * pow10(currencyScale(from));
        expect(result * den <= a * num).toBe(true);
        expect((result + 1n) * den > a * num).toBe(true);
      }),
    );
  });

  it('is monotonic in the amount', () => {
    fc.assert(
      fc.property(pair, minor, minor, wireRate, ([from, to], a, b, rate) => {
        const [low, high] = a <= b ? [a, b] : [b, a];
        expect(convert(low, from, to, rate) <= convert(high, from, to, rate)).toBe(true);
      }),
    );
  });

  it('converts 0 to 0', () => {
    fc.assert(
      fc.property(pair, wireRate, ([from, to], rate) => {
        expect(convert(0n, from, to, rate)).toBe(0n);
      }),
    );
  });

  it('agrees whether the rate is a string or a parsed Rate', () => {
    fc.assert(
      fc.property(pair, minor, wireRate, ([from, to], a, rate) => {
        expect(convert(a, from, to, parseRate(rate))).toBe(convert(a, from, to, rate));
      }),
    );
  });

  it('never gains value on a round trip through the inverted rate', () => {
    fc.assert(
      fc.property(pair, minor, wireRate, ([from, to], a, rate) => {
        const there = convert(a, from, to, rate);
        expect(convert(there, to, from, invertRate(rate)) <= a).toBe(true);
      }),
    );
  });

  it('never gives the customer more after a spread', () => {
    fc.assert(
      fc.property(pair, minor, wireRate, fc.integer({ min: 0, max: 9_999 }), ([from, to], a, rate, bps) => {
        const parsed = toRate(rate);
        fc.pre(parsed.numerator * BigInt(10_000 - bps) * pow10(12) >= parsed.denominator * 10_000n);
        expect(convert(a, from, to, applySpreadBps(rate, bps)) <= convert(a, from, to, rate)).toBe(true);
      }),
    );
  });
});

describe('sourceAmountFor', () => {
  it('finds the least source amount that delivers the target', () => {
    expect(sourceAmountFor(10_855n, 'EUR', 'USD', '1.0855')).toBe(10_000n);
    expect(sourceAmountFor(10_000n, 'EUR', 'USD', '1.0855')).toBe(9213n); // 92.13 EUR -> 100.00 USD
    expect(sourceAmountFor(0n, 'EUR', 'USD', '1.0855')).toBe(0n);
    expect(() => sourceAmountFor(-1n, 'EUR', 'USD', '1.0855')).toThrow(AssertionError);
  });

  it('is the least amount whose conversion reaches the target', () => {
    fc.assert(
      fc.property(pair, minor, wireRate, ([from, to], target, rate) => {
        const source = sourceAmountFor(target, from, to, rate);
        expect(convert(source, from, to, rate) >= target).toBe(true);
        if (source > 0n) expect(convert(source - 1n, from, to, rate) < target).toBe(true);
      }),
    );
  });
});
