import type { Sql, Tx } from '../../platform/db/db.js';
import { conflict, DomainError, fieldError, notFound, refusal, validationError } from '../../platform/lib/errors.js';
import { assert } from '../../platform/lib/assert.js';
import { CURRENCY_CODES, currencyInfo } from '../../platform/lib/currencies.js';
import { isUuid, newId } from '../../platform/lib/ids.js';
import {
  AMOUNT_UNITS_DIGITS_MAX,
  applySpreadBps,
  convert,
  currencyScale,
  formatAmount,
  formatRate,
  invertRate,
  parseAmount,
  sourceAmountFor,
  toRate,
  type Rate,
} from '../../platform/lib/money.js';
import { ledger, type LedgerParty } from '../ledger/ledger.service.js';
import * as repo from './fx.repository.js';
import type { ConversionRow, QuoteIntent, QuoteRow } from './fx.repository.js';
import type { RateSource } from './rates.js';

export type { QuoteIntent, QuoteRow } from './fx.repository.js';

/** Retention: deletes at most `limit` spent or expired quotes older than `before`; answers how many. */
export const deleteSpentQuotesBefore = repo.deleteSpentQuotesBefore;

/** Where prices come from: mid rates (EUR per unit) and the spread taken against the customer. */
export interface FxPricing {
  rates: RateSource;
  spreadBps: number;
}

/** One currency pair: `rate` and `midRate` are `to` units per 1 `from` unit; `rate` is all-in. */
export interface PairRate {
  from: string;
  to: string;
  mid: Rate;
  midRate: string;
  rate: string;
  spreadBps: number;
}

// ---------------------------------------------------------------------------------------------
// Rates

/** The pair's mid rate from the source's EUR prices, and the customer's all-in rate; none without a price. */
export function pairRate(pricing: FxPricing, from: string, to: string): PairRate | undefined {
  const eurPerFrom = pricing.rates.eurPer(from);
  const eurPerTo = pricing.rates.eurPer(to);
  if (eurPerFrom === undefined || eurPerTo === undefined) return undefined;
  const a = toRate(eurPerFrom);
  const b = toRate(eurPerTo);
  // (EUR per from) / (EUR per to) = to per from, exactly.
  const mid: Rate = { numerator: a.numerator * b.denominator, denominator: a.denominator * b.numerator };
  return { from, to, mid, midRate: formatRate(mid), rate: applySpreadBps(mid, pricing.spreadBps), spreadBps: pricing.spreadBps };
}

function knownCurrency(code: string | undefined, field: string): void {
  if (code !== undefined && !currencyInfo(code)) throw fieldError(field, `${field} ${code} is not a supported currency`, 'UNSUPPORTED_CURRENCY');
}

/** Every priced pair of supported currencies, optionally only those selling `from` and/or buying `to`. */
export function listRates(pricing: FxPricing, filter: { from?: string | undefined; to?: string | undefined }) {
  knownCurrency(filter.from, 'from');
  knownCurrency(filter.to, 'to');
  if (filter.from !== undefined && filter.from === filter.to) throw fieldError('to', 'to must differ from from', 'SAME_CURRENCY');
  const asOf = new Date().toISOString();
  const data = [];
  for (const from of filter.from ? [filter.from] : CURRENCY_CODES) {
    for (const to of filter.to ? [filter.to] : CURRENCY_CODES) {
      if (from === to) continue;
      const pair = pairRate(pricing, from, to);
      if (pair) data.push({ ...rateView(pair), asOf });
    }
  }
  return { object: 'fx_rate.list' as const, data };
}

function rateView(pair: PairRate) {
  return {
    from: pair.from,
    to: pair.to,
    rate: pair.rate,
    inverseRate: formatRate(invertRate(pair.rate)),
    midRate: pair.midRate,
    spreadBps: pair.spreadBps,
  };
}

// ---------------------------------------------------------------------------------------------
// Quotes

export interface QuoteRequest {
  workspaceId: string;
  accountId: string;
  enabledCurrencies: readonly string[];
  fromCurrency: string;
  toCurrency: string;
  fromAmount?: string | undefined;
  toAmount?: string | undefined;
  intent: QuoteIntent;
}

/** Both currencies supported, enabled for the workspace, different, and priced. */
export function checkPair(pricing: FxPricing, input: Pick<QuoteRequest, 'enabledCurrencies' | 'fromCurrency' | 'toCurrency'>): PairRate {
  for (const field of ['fromCurrency', 'toCurrency'] as const) {
    const code = input[field];
    knownCurrency(code, field);
    if (!input.enabledCurrencies.includes(code)) {
      throw fieldError(field, `${field} ${code} is not enabled for this workspace`, 'CURRENCY_NOT_ENABLED');
    }
  }
  if (input.fromCurrency === input.toCurrency) throw fieldError('toCurrency', 'toCurrency must differ from fromCurrency', 'SAME_CURRENCY');
  const pair = pairRate(pricing, input.fromCurrency, input.toCurrency);
  if (!pair) throw fieldError('toCurrency', `no rate is available for ${input.fromCurrency} to ${input.toCurrency}`, 'RATE_UNAVAILABLE');
  return pair;
}

/** Amounts stay within what the wire carries (AMOUNT_UNITS_DIGITS_MAX digits before the point). */
function checkWithinRange(amountMinor: bigint, currency: string, field: string): void {
  if (amountMinor >= 10n ** BigInt(AMOUNT_UNITS_DIGITS_MAX + currencyScale(currency))) {
    throw fieldError(field, `${field} is too large: the ${currency} side would exceed ${AMOUNT_UNITS_DIGITS_MAX} digits`);
  }
}

/**
 * The amounts of a quote at the all-in rate. A fromAmount quote delivers fromAmount × rate rounded
 * toward zero (CONVERSION_ROUNDING); a toAmount quote delivers exactly toAmount and debits the least
 * fromAmount whose conversion covers it.
 */
export function priceQuote(pair: PairRate, input: Pick<QuoteRequest, 'fromCurrency' | 'toCurrency' | 'fromAmount' | 'toAmount'>) {
  const { fromCurrency: from, toCurrency: to } = input;
  if (input.fromAmount === undefined && input.toAmount === undefined) {
    throw validationError([
      { field: 'fromAmount', message: 'fromAmount or toAmount is required' },
      { field: 'toAmount', message: 'fromAmount or toAmount is required' },
    ]);
  }
  if (input.fromAmount !== undefined && input.toAmount !== undefined) {
    throw fieldError('toAmount', 'give exactly one of fromAmount and toAmount, not both');
  }
  if (input.fromAmount !== undefined) {
    const fromAmountMinor = parseAmount(input.fromAmount, from, 'fromAmount');
    const toAmountMinor = convert(fromAmountMinor, from, to, pair.rate);
    if (toAmountMinor === 0n) throw fieldError('fromAmount', `fromAmount is too small: it converts to 0 ${to}`);
    checkWithinRange(toAmountMinor, to, 'fromAmount');
    return { fixedSide: 'from' as const, fromAmountMinor, toAmountMinor };
  }
  const toAmountMinor = parseAmount(input.toAmount, to, 'toAmount');
  const fromAmountMinor = sourceAmountFor(toAmountMinor, from, to, pair.rate);
  assert(convert(fromAmountMinor, from, to, pair.rate) >= toAmountMinor, 'a toAmount quote covers its toAmount');
  checkWithinRange(fromAmountMinor, from, 'toAmount');
  return { fixedSide: 'to' as const, fromAmountMinor, toAmountMinor };
}

export async function createQuote(tx: Tx, deps: FxPricing & { quoteLifetimeMs: number }, input: QuoteRequest): Promise<QuoteRow> {
  const pair = checkPair(deps, input);
  const amounts = priceQuote(pair, input);
  return repo.insertQuote(tx, {
    id: newId(),
    workspaceId: input.workspaceId,
    accountId: input.accountId,
    intent: input.intent,
    fromCurrency: input.fromCurrency,
    toCurrency: input.toCurrency,
    fromAmountMinor: amounts.fromAmountMinor.toString(),
    toAmountMinor: amounts.toAmountMinor.toString(),
    feeMinor: '0',
    fixedSide: amounts.fixedSide,
    rate: pair.rate,
    midRate: pair.midRate,
    spreadBps: pair.spreadBps,
    lifetimeMs: deps.quoteLifetimeMs,
  });
}

const quoteNotFound = (): DomainError => notFound('Quote');

export async function getQuote(sql: Sql, scope: { workspaceId: string; accountId: string }, id: string): Promise<QuoteRow> {
  const row = await repo.findQuote(sql, scope.workspaceId, scope.accountId, id);
  if (!row) throw quoteNotFound();
  return row;
}

export function quoteView(row: QuoteRow) {
  return {
    id: row.id,
    fromCurrency: row.from_currency,
    toCurrency: row.to_currency,
    fromAmount: formatAmount(BigInt(row.from_amount_minor), row.from_currency),
    toAmount: formatAmount(BigInt(row.to_amount_minor), row.to_currency),
    rate: row.rate,
    inverseRate: formatRate(invertRate(row.rate)),
    midRate: row.mid_rate,
    spreadBps: row.spread_bps,
    fee: formatAmount(BigInt(row.fee_minor), row.from_currency),
    intent: row.intent,
    status: row.status === 'open' && row.expired ? ('expired' as const) : row.status,
    expiresAt: row.expires_at.toISOString(),
    createdAt: row.created_at.toISOString(),
  };
}

// ---------------------------------------------------------------------------------------------
// Consuming a quote

/** A quote's refusals: 400 with a stable code (in `message` too, the spec's convention for money movement). */
const quoteRefusal = (code: 'QUOTE_EXPIRED' | 'QUOTE_ALREADY_USED' | 'QUOTE_INTENT_MISMATCH'): DomainError => refusal(code);

/** What the executor of a quote's intent moves: amounts in minor units. */
export interface ConsumedQuote {
  id: string;
  intent: QuoteIntent;
  fromCurrency: string;
  toCurrency: string;
  /** Total debited in fromCurrency (fee included). */
  fromAmountMinor: bigint;
  /** Delivered in toCurrency. */
  toAmountMinor: bigint;
  feeMinor: bigint;
  /** All-in, toCurrency per 1 fromCurrency. */
  rate: string;
}

/**
 * Consumes a quote once, inside the executor's transaction: a compare-and-set open → used, so two
 * executors racing for one quote cannot both have it, and a rollback of the executor's work leaves the
 * quote open. Refused: unknown, another workspace's or another account's quote → 404; a quote made for
 * another intent → QUOTE_INTENT_MISMATCH; consumed before → QUOTE_ALREADY_USED; past expiresAt → QUOTE_EXPIRED.
 */
export async function consumeQuote(
  tx: Tx,
  input: { workspaceId: string; accountId: string; quoteId: string; intent: QuoteIntent; usedBy?: { type: string; id?: string } },
): Promise<ConsumedQuote> {
  if (!isUuid(input.quoteId)) throw quoteNotFound();
  const used = await repo.markQuoteUsed(tx, {
    workspaceId: input.workspaceId,
    accountId: input.accountId,
    id: input.quoteId,
    intent: input.intent,
    usedByType: input.usedBy?.type ?? input.intent,
    usedById: input.usedBy?.id ?? null,
  });
  if (used) return consumedQuote(used);
  const quote = await repo.findQuote(tx, input.workspaceId, input.accountId, input.quoteId);
  const refusal = quoteRefusalFor(quote, input.intent);
  assert(refusal !== undefined, `quote ${input.quoteId} refused while open, of its intent and unexpired`);
  throw refusal;
}

/** A quote's amounts in minor units, as its executor moves them. */
export function consumedQuote(row: QuoteRow): ConsumedQuote {
  return {
    id: row.id,
    intent: row.intent,
    fromCurrency: row.from_currency,
    toCurrency: row.to_currency,
    fromAmountMinor: BigInt(row.from_amount_minor),
    toAmountMinor: BigInt(row.to_amount_minor),
    feeMinor: BigInt(row.fee_minor),
    rate: row.rate,
  };
}

/**
 * Whether a quote as read (undefined: none the caller's account can see) can be consumed for this
 * intent, in the order the refusals are checked: the refusal, or undefined when it can. The one
 * statement of a quote's rules: consumeQuote explains its refusals with it, and a payout plan decides with it.
 */
export function quoteRefusalFor(quote: QuoteRow | undefined, intent: QuoteIntent): DomainError | undefined {
  if (!quote) return quoteNotFound();
  if (quote.intent !== intent) return quoteRefusal('QUOTE_INTENT_MISMATCH');
  if (quote.status === 'used') return quoteRefusal('QUOTE_ALREADY_USED');
  if (quote.expired) return quoteRefusal('QUOTE_EXPIRED');
  return undefined;
}

/** The quotes these accounts name (ids that are not UUIDs name none), locked until the transaction ends. */
export async function lockQuotes(tx: Tx, refs: readonly { workspaceId: string; accountId: string; quoteId: string }[]): Promise<QuoteRow[]> {
  const named = refs.filter((r) => isUuid(r.quoteId)).map((r) => ({ workspaceId: r.workspaceId, accountId: r.accountId, id: r.quoteId }));
  return repo.lockQuotes(tx, named);
}

/** Consumes quotes read with lockQuotes and decided consumable (quoteRefusalFor): every one is marked used, or this throws. */
export async function useQuotes(
  tx: Tx,
  uses: readonly { workspaceId: string; accountId: string; quoteId: string; intent: QuoteIntent; usedBy: { type: string; id: string } }[],
): Promise<void> {
  const marked = await repo.markQuotesUsed(
    tx,
    uses.map((u) => ({ workspaceId: u.workspaceId, accountId: u.accountId, id: u.quoteId, intent: u.intent, usedByType: u.usedBy.type, usedById: u.usedBy.id })),
  );
  assert(marked.length === uses.length, `every quote decided consumable is consumed (${marked.length} of ${uses.length})`);
}

// ---------------------------------------------------------------------------------------------
// Conversions

const UNIQUE_VIOLATION = '23505';

/**
 * Converts between two balances of the account acted on at a conversion quote, in the caller's
 * transaction: the quote is consumed, fromAmount moves from the customer to the FX desk in
 * fromCurrency and toAmount from the FX desk to the customer in toCurrency, and the conversion is
 * recorded; all or nothing (a balance that cannot cover fromAmount refuses with INSUFFICIENT_BALANCE
 * and leaves the quote open).
 */
export async function createConversion(
  tx: Tx,
  input: { workspaceId: string; accountId: string; quoteId: string; clientRef?: string | undefined },
): Promise<ConversionRow> {
  const clientRef = input.clientRef ?? null;
  const duplicate = () => conflict('DUPLICATE_CLIENT_REF', 'A conversion with this clientRef already exists');
  if (clientRef !== null && (await repo.findConversionByClientRef(tx, input.workspaceId, clientRef))) throw duplicate();

  const id = newId();
  const quote = await consumeQuote(tx, {
    workspaceId: input.workspaceId,
    accountId: input.accountId,
    quoteId: input.quoteId,
    intent: 'conversion',
    usedBy: { type: 'conversion', id },
  });
  const customer: LedgerParty = { customer: input.accountId, workspaceId: input.workspaceId };
  const desk: LedgerParty = { system: 'fx_desk' };
  const reference = { type: 'conversion', id };
  const description = `Conversion ${quote.fromCurrency} to ${quote.toCurrency}`;
  await ledger.transfer(tx, { debit: customer, credit: desk, currency: quote.fromCurrency, amountMinor: quote.fromAmountMinor, reference, description });
  await ledger.transfer(tx, { debit: desk, credit: customer, currency: quote.toCurrency, amountMinor: quote.toAmountMinor, reference, description });
  try {
    return await repo.insertConversion(tx, {
      id,
      workspaceId: input.workspaceId,
      accountId: input.accountId,
      quoteId: quote.id,
      clientRef,
      fromCurrency: quote.fromCurrency,
      toCurrency: quote.toCurrency,
      fromAmountMinor: quote.fromAmountMinor.toString(),
      toAmountMinor: quote.toAmountMinor.toString(),
      rate: quote.rate,
    });
  } catch (err) {
    // A concurrent conversion took the clientRef between the check and the insert.
    if ((err as { code?: string }).code === UNIQUE_VIOLATION) throw duplicate();
    throw err;
  }
}

export async function getConversion(sql: Sql, scope: { workspaceId: string; accountId: string }, id: string): Promise<ConversionRow> {
  const row = await repo.findConversion(sql, scope.workspaceId, scope.accountId, id);
  if (!row) throw notFound('Conversion');
  return row;
}

export function conversionView(row: ConversionRow) {
  return {
    id: row.id,
    quoteId: row.quote_id,
    clientRef: row.client_ref,
    fromCurrency: row.from_currency,
    toCurrency: row.to_currency,
    fromAmount: formatAmount(BigInt(row.from_amount_minor), row.from_currency),
    toAmount: formatAmount(BigInt(row.to_amount_minor), row.to_currency),
    rate: row.rate,
    status: row.status,
    createdAt: row.created_at.toISOString(),
  };
}
