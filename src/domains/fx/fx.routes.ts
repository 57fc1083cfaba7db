import type { FastifyRequest } from 'fastify';
import type { AppContext } from '../../platform/context.js';
import { runIdempotent } from '../../platform/http/idempotency.js';
import { routeWithLegacyAlias } from '../../platform/http/legacy.js';
import { route, type App } from '../../platform/http/routes.js';
import { IdParams } from '../../platform/lib/schemas.js';
import { getWorkspace } from '../accounts/accounts.service.js';
import { ConversionSchema, CreateConversionBody, CreateQuoteBody, QuoteSchema, RatesQuery, RatesResponse } from './fx.schemas.js';
import * as fx from './fx.service.js';

const tags = ['FX'];

const pricing = (ctx: AppContext): fx.FxPricing => ({ rates: ctx.rates, spreadBps: ctx.config.fxSpreadBps });
const scopeOf = (req: FastifyRequest) => ({ workspaceId: req.auth.workspaceId, accountId: req.auth.accountId });
const config = (scope: 'read:fx' | 'write:fx') => ({ auth: 'workspace' as const, scope, capability: 'fx' as const });

/** FX: rates, single-use quotes locked to an intent, and conversions between balances. Each also at its /fx alias. */
export function fxRoutes(app: App, ctx: AppContext): void {
  routeWithLegacyAlias(app, listRates(ctx));
  routeWithLegacyAlias(app, createQuote(ctx));
  routeWithLegacyAlias(app, getQuote(ctx));
  routeWithLegacyAlias(app, createConversion(ctx));
  routeWithLegacyAlias(app, getConversion(ctx));
}

function listRates(ctx: AppContext) {
  return route.get(
    '/v1/fx/rates',
    {
      config: config('read:fx'),
      schema: {
        tags,
        summary: 'Current rates of every currency pair, or of the pairs selling `from` and/or buying `to`',
        description:
          '`rate` is the all-in customer rate in `to` units per 1 `from` unit: the mid rate less the spread (`spreadBps`). Quotes are priced at it.',
        querystring: RatesQuery,
        response: { 200: RatesResponse },
      },
    },
    async (req) => fx.listRates(pricing(ctx), req.query),
  );
}

function createQuote(ctx: AppContext) {
  return route.post(
    '/v1/fx/quotes',
    {
      config: config('write:fx'),
      schema: {
        tags,
        summary: 'Quote a conversion or a payout in another currency: single use, locked to its intent and amounts, valid until expiresAt',
        description:
          'Give exactly one of fromAmount and toAmount. `rate` is toCurrency per 1 fromCurrency, all-in. A fromAmount quote delivers fromAmount × rate rounded toward zero; a toAmount quote delivers exactly toAmount for the least fromAmount that covers it. The quote is consumed once by the executor of its intent (POST /v1/fx/conversions for "conversion", POST /v1/payouts with quoteId for "payout") before expiresAt; afterwards request a new quote.',
        body: CreateQuoteBody,
        response: { 201: QuoteSchema },
      },
    },
    async (req, reply) => {
      const workspace = await getWorkspace(ctx.db, req.auth.workspaceId);
      return runIdempotent(ctx, req, reply, async (tx) => {
        const row = await fx.createQuote(
          tx,
          { ...pricing(ctx), quoteLifetimeMs: ctx.config.fxQuoteLifetimeMs },
          { ...scopeOf(req), enabledCurrencies: workspace.enabled_currencies, ...req.body },
        );
        return { status: 201, body: fx.quoteView(row) };
      });
    },
  );
}

function getQuote(ctx: AppContext) {
  return route.get(
    '/v1/fx/quotes/:id',
    { config: config('read:fx'), schema: { tags, summary: 'One quote of the account acted on, with its status (open, used or expired)', params: IdParams, response: { 200: QuoteSchema } } },
    async (req) => fx.quoteView(await fx.getQuote(ctx.db, scopeOf(req), req.params.id)),
  );
}

function createConversion(ctx: AppContext) {
  return route.post(
    '/v1/fx/conversions',
    {
      config: config('write:fx'),
      schema: {
        tags,
        summary: 'Convert between two balances of the account acted on at a "conversion" quote',
        description:
          'Consumes the quote and, in one transaction, debits fromAmount (the rate is all-in) from the fromCurrency balance and credits toAmount to the toCurrency balance. Refusals (400): QUOTE_EXPIRED, QUOTE_ALREADY_USED, QUOTE_INTENT_MISMATCH, INSUFFICIENT_BALANCE (the quote stays usable until it expires). An unknown quote, or one of another account, is 404.',
        body: CreateConversionBody,
        response: { 201: ConversionSchema },
      },
    },
    async (req, reply) =>
      runIdempotent(ctx, req, reply, async (tx) => {
        const row = await fx.createConversion(tx, { ...scopeOf(req), quoteId: req.body.quoteId, clientRef: req.body.clientRef });
        return { status: 201, body: fx.conversionView(row) };
      }),
  );
}

function getConversion(ctx: AppContext) {
  return route.get(
    '/v1/fx/conversions/:id',
    { config: config('read:fx'), schema: { tags, summary: 'One conversion of the account acted on', params: IdParams, response: { 200: ConversionSchema } } },
    async (req) => fx.conversionView(await fx.getConversion(ctx.db, scopeOf(req), req.params.id)),
  );
}
