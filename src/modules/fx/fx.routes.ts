import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Static } from 'typebox';
import type { AppContext } from '../../context.js';
import { runIdempotent } from '../../http/idempotency.js';
import { routeWithLegacyAlias } from '../../http/legacy.js';
import { IdParams } from '../../lib/schemas.js';
import { getWorkspace } from '../accounts/accounts.service.js';
import { ConversionSchema, CreateConversionBody, CreateQuoteBody, QuoteSchema, RatesQuery, RatesResponse } from './fx.schemas.js';
import * as fx from './fx.service.js';

const tags = ['FX'];

/** FX: rates, single-use quotes locked to an intent, and conversions between balances. Each also at its /fx alias. */
export function fxRoutes(app: FastifyInstance, ctx: AppContext): void {
  const pricing = (): fx.FxPricing => ({ rates: ctx.rates, spreadBps: ctx.config.fxSpreadBps });
  const scopeOf = (req: FastifyRequest) => ({ workspaceId: req.auth.workspaceId, accountId: req.auth.accountId });

  routeWithLegacyAlias(app, {
    method: 'GET',
    url: '/v1/fx/rates',
    config: { auth: 'workspace', scope: 'read:fx', capability: 'fx' },
    schema: {
      tags,
      summary: 'Current rates of every currency pair, or of the pairs selling `from` and/or buying `to`',
      description:
        '`rate` is the all-in customer rate in `to` units per 1 `from` unit: the mid rate less the spread (`spreadBps`). Quotes are priced at it.',
      querystring: RatesQuery,
      response: { 200: RatesResponse },
    },
    handler: async (req: FastifyRequest) => fx.listRates(pricing(), req.query as Static<typeof RatesQuery>),
  });

  routeWithLegacyAlias(app, {
    method: 'POST',
    url: '/v1/fx/quotes',
    config: { auth: 'workspace', scope: 'write:fx', capability: 'fx' },
    schema: {
      tags,
      summary: 'Quote a conversion or a payout in another currency: single use, locked to its intent and amounts, valid until expiresAt',
      description:
        'Give exactly one of fromAmount and toAmount. `rate` is toCurrency per 1 fromCurrency, all-in. A fromAmount quote delivers fromAmount × rate rounded toward zero; a toAmount quote delivers exactly toAmount for the least fromAmount that covers it. The quote is consumed once by the executor of its intent (POST /v1/fx/conversions for "conversion", POST /v1/payouts with quoteId for "payout") before expiresAt; afterwards request a new quote.',
      body: CreateQuoteBody,
      response: { 201: QuoteSchema },
    },
    handler: async (req: FastifyRequest, reply: FastifyReply) => {
      const body = req.body as Static<typeof CreateQuoteBody>;
      const workspace = await getWorkspace(ctx.db, req.auth.workspaceId);
      return runIdempotent(ctx, req, reply, async (tx) => {
        const row = await fx.createQuote(
          tx,
          { ...pricing(), quoteLifetimeMs: ctx.config.fxQuoteLifetimeMs },
          { ...scopeOf(req), enabledCurrencies: workspace.enabled_currencies, ...body },
        );
        return { status: 201, body: fx.quoteView(row) };
      });
    },
  });

  routeWithLegacyAlias(app, {
    method: 'GET',
    url: '/v1/fx/quotes/:id',
    config: { auth: 'workspace', scope: 'read:fx', capability: 'fx' },
    schema: { tags, summary: 'One quote of the account acted on, with its status (open, used or expired)', params: IdParams, response: { 200: QuoteSchema } },
    handler: async (req: FastifyRequest) => fx.quoteView(await fx.getQuote(ctx.db, scopeOf(req), (req.params as Static<typeof IdParams>).id)),
  });

  routeWithLegacyAlias(app, {
    method: 'POST',
    url: '/v1/fx/conversions',
    config: { auth: 'workspace', scope: 'write:fx', capability: 'fx' },
    schema: {
      tags,
      summary: 'Convert between two balances of the account acted on at a "conversion" quote',
      description:
        'Consumes the quote and, in one transaction, debits fromAmount (the rate is all-in) from the fromCurrency balance and credits toAmount to the toCurrency balance. Refusals (400): QUOTE_EXPIRED, QUOTE_ALREADY_USED, QUOTE_INTENT_MISMATCH, INSUFFICIENT_BALANCE (the quote stays usable until it expires). An unknown quote, or one of another account, is 404.',
      body: CreateConversionBody,
      response: { 201: ConversionSchema },
    },
    handler: async (req: FastifyRequest, reply: FastifyReply) => {
      const body = req.body as Static<typeof CreateConversionBody>;
      return runIdempotent(ctx, req, reply, async (tx) => {
        const row = await fx.createConversion(tx, { ...scopeOf(req), quoteId: body.quoteId, clientRef: body.clientRef });
        return { status: 201, body: fx.conversionView(row) };
      });
    },
  });

  routeWithLegacyAlias(app, {
    method: 'GET',
    url: '/v1/fx/conversions/:id',
    config: { auth: 'workspace', scope: 'read:fx', capability: 'fx' },
    schema: { tags, summary: 'One conversion of the account acted on', params: IdParams, response: { 200: ConversionSchema } },
    handler: async (req: FastifyRequest) =>
      fx.conversionView(await fx.getConversion(ctx.db, scopeOf(req), (req.params as Static<typeof IdParams>).id)),
  });
}
