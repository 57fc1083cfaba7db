import { Type } from 'typebox';
import { Nullable, Timestamp, Uuid } from '../../platform/lib/schemas.js';
import { AMOUNT_PATTERN, RATE_PATTERN } from '../../platform/lib/money.js';

const CurrencyCode = (description: string) =>
  Type.String({ pattern: '^[A-Z]{3,10}$', description, 'x-message': 'must be a currency code such as "EUR"' });

const Amount = (description: string) =>
  Type.String({
    pattern: AMOUNT_PATTERN,
    description: `${description}; decimal string in major units`,
    examples: ['100.00'],
    'x-message': 'must be a positive decimal string such as "100.00"',
  });

const RateString = (description: string) => Type.String({ pattern: RATE_PATTERN, description, examples: ['0.9154'] });

export const QuoteIntent = Type.Union([Type.Literal('payout'), Type.Literal('conversion')], {
  description: 'The executor that may consume the quote: a payout (POST /v1/payouts with quoteId) or a conversion (POST /v1/fx/conversions)',
});

export const RatesQuery = Type.Object({
  from: Type.Optional(CurrencyCode('Only pairs selling this currency')),
  to: Type.Optional(CurrencyCode('Only pairs buying this currency')),
});

export const FxRate = Type.Object(
  {
    from: Type.String(),
    to: Type.String(),
    rate: RateString('All-in customer rate: `to` units per 1 `from` unit, the mid rate less the spread (truncated at 12 decimals)'),
    inverseRate: RateString('`from` units per 1 `to` unit at the all-in rate (1 / rate, truncated at 12 decimals); informational'),
    midRate: RateString('Mid-market rate: `to` units per 1 `from` unit'),
    spreadBps: Type.Integer({ minimum: 0, maximum: 9999, description: 'Spread against the customer, in basis points of the mid rate' }),
    asOf: Timestamp,
  },
  { title: 'FxRate' },
);

export const RatesResponse = Type.Object(
  { object: Type.Literal('fx_rate.list'), data: Type.Array(FxRate) },
  { title: 'FxRateList' },
);

export const CreateQuoteBody = Type.Object({
  fromCurrency: CurrencyCode('Currency sold (debited from the balance)'),
  toCurrency: CurrencyCode('Currency bought (delivered)'),
  fromAmount: Type.Optional(Amount('Amount sold; give exactly one of fromAmount and toAmount')),
  toAmount: Type.Optional(Amount('Amount delivered; give exactly one of fromAmount and toAmount')),
  intent: QuoteIntent,
});

export const QuoteSchema = Type.Object(
  {
    id: Uuid,
    fromCurrency: Type.String(),
    toCurrency: Type.String(),
    fromAmount: Type.String({ description: 'Total debited from the fromCurrency balance (the rate is all-in); decimal string in major units' }),
    toAmount: Type.String({ description: 'Delivered in toCurrency; decimal string in major units' }),
    rate: RateString(
      'All-in rate, toCurrency per 1 fromCurrency (the direction of GET /v1/fx/rates). For a fromAmount quote toAmount = fromAmount × rate rounded toward zero at the toCurrency scale; for a toAmount quote fromAmount is the least amount whose conversion at rate covers toAmount.',
    ),
    inverseRate: RateString('fromCurrency per 1 toCurrency at the all-in rate (the direction orders use); informational, truncated at 12 decimals'),
    midRate: RateString('Mid-market rate, toCurrency per 1 fromCurrency'),
    spreadBps: Type.Integer({ description: 'Spread in basis points included in rate' }),
    fee: Type.String({ description: 'Fee in fromCurrency, already included in fromAmount (0: the rate is all-in)' }),
    intent: QuoteIntent,
    status: Type.Union([Type.Literal('open'), Type.Literal('used'), Type.Literal('expired')], {
      description: 'open until consumed once by the executor of its intent; expired once expiresAt has passed unused',
    }),
    expiresAt: Type.String({ format: 'date-time', description: 'After this instant the quote is refused with QUOTE_EXPIRED: request a new quote' }),
    createdAt: Timestamp,
  },
  { title: 'FxQuote' },
);

export const CreateConversionBody = Type.Object({
  quoteId: Type.String({ format: 'uuid', description: 'An open quote with intent "conversion"', 'x-message': 'must be a quote id (UUID)' }),
  clientRef: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'Your reference; unique per workspace' })),
});

export const ConversionSchema = Type.Object(
  {
    id: Uuid,
    quoteId: Uuid,
    clientRef: Nullable(Type.String()),
    fromCurrency: Type.String(),
    toCurrency: Type.String(),
    fromAmount: Type.String({ description: 'Debited from the fromCurrency balance; decimal string in major units' }),
    toAmount: Type.String({ description: 'Credited to the toCurrency balance; decimal string in major units' }),
    rate: RateString('All-in rate of the quote, toCurrency per 1 fromCurrency'),
    status: Type.Literal('completed'),
    createdAt: Timestamp,
  },
  { title: 'FxConversion' },
);
