import { Type } from 'typebox';
import type { AppContext } from '../../platform/context.js';
import { runIdempotent } from '../../platform/http/idempotency.js';
import type { FastifyRequest } from 'fastify';
import { route, type App } from '../../platform/http/routes.js';
import { IdParams } from '../../platform/lib/schemas.js';
import { cancelConflict, resignConflict, resumeChain } from './chain.payouts.js';
import { ChainDepositListQuery, ChainDepositPage, ChainDepositParams, ChainDepositSchema, ChainFundingBody, ChainFundingSchema, ChainList, ChainNameParams, ChainPayoutList, ChainPayoutSchema, ChainResumed, ChainSweepList, ChainTreasuryList } from './chain.schemas.js';
import { chainPayoutView, currentBreakerView, configuredChains, decideChainDeposit, listChainDeposits, openChainPayouts } from './chain.service.js';
import { chainSweeps, chainTreasury, conflictAction, recordFunding, resumeAction } from './chain.treasury.js';
import type { OperatorActor } from '../../domains/users/rights.js';

const operator = { tags: ['Operator'], security: [{ operatorKey: [] }] };

/** Who decides: the operator key (the console signs in with one). */
/** The operator key acts: every right (rights.ts). */
const actor = (req: FastifyRequest): OperatorActor => ({ name: `key:${req.operator?.keyId ?? 'unknown'}`, role: undefined });

/** The operator's read-only view of the chain connector: its chains and hot wallets, and the transfers its watcher took. */
export function chainRoutes(app: App, ctx: AppContext): void {
  app.route(listDeposits(ctx));
  app.route(listChains(ctx));
  app.route(decideDeposit(ctx, 'release'));
  app.route(decideDeposit(ctx, 'reject'));
  app.route(treasury(ctx));
  app.route(listSweeps(ctx));
  app.route(listOpenPayouts(ctx));
  app.route(resume(ctx));
  app.route(funding(ctx));
  for (const action of ['resign', 'cancel'] as const) app.route(conflictRoute(ctx, action));
}

function decideDeposit(ctx: AppContext, decision: 'release' | 'reject') {
  return route.post(
    `/operator/v1/chain/deposits/:id/${decision}`,
    {
      config: { auth: 'operator' },
      schema: {
        ...operator,
        summary:
          decision === 'release'
            ? 'Release a held chain deposit: it is credited to its owner now (409 CHAIN_DEPOSIT_NOT_CREDITABLE when it still cannot be)'
            : 'Reject a held chain deposit: it is never credited; the tokens stay on the deposit address for the operator to deal with',
        description: 'Only a held transfer is decided (409 CHAIN_DEPOSIT_DECIDED otherwise); the decision and its operator are kept on it.',
        params: ChainDepositParams,
        response: { 200: ChainDepositSchema },
      },
    },
    async (req, reply) => runIdempotent(ctx, req, reply, async (tx) => ({ status: 200, body: await decideChainDeposit(ctx, tx, req.params.id, decision, actor(req)) })),
  );
}

function treasury(ctx: AppContext) {
  return route.get(
    '/operator/v1/chain/treasury',
    {
      config: { auth: 'operator' },
      schema: {
        ...operator,
        summary:
          "Per chain: the hot wallet's gas coin and token balances, its next nonce against the chain's count, the payouts processing (the oldest's age, those in conflict, those held), the last block seen, the circuit breaker, and the conditions that need the operator",
        response: { 200: ChainTreasuryList },
      },
    },
    async () => ({ data: await chainTreasury(ctx) }),
  );
}

function listSweeps(ctx: AppContext) {
  return route.get(
    '/operator/v1/chain/sweeps',
    {
      config: { auth: 'operator' },
      schema: {
        ...operator,
        summary:
          'The sweeps of deposit addresses into the hot wallet, newest first (at most 100): USDC by EIP-3009 authorisation relayed by the gas wallet, USDT by a gas top-up then a transfer; each recorded with its signed bytes before it was sent',
        querystring: Type.Object({ chain: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })) }),
        response: { 200: ChainSweepList },
      },
    },
    async (req) => ({ data: await chainSweeps(ctx, req.query.chain ?? null) }),
  );
}

function listOpenPayouts(ctx: AppContext) {
  return route.get(
    '/operator/v1/chain/payouts',
    {
      config: { auth: 'operator' },
      schema: {
        ...operator,
        summary: 'The chain payouts not ended yet, oldest first, each with its age: accepted (held while the breaker is open), signed, sent, and in nonce conflict',
        querystring: Type.Object({ chain: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })) }),
        response: { 200: ChainPayoutList },
      },
    },
    async (req) => ({ data: await openChainPayouts(ctx.db, req.query.chain) }),
  );
}

function resume(ctx: AppContext) {
  return route.post(
    '/operator/v1/chain/chains/:name/resume',
    {
      config: { auth: 'operator' },
      schema: {
        ...operator,
        summary:
          "Resumes the chain's payouts after its circuit breaker opened (fix the cause first): held payouts are signed on the next look; after a nonce drift the next nonce moves up to the chain's count. Takes an Idempotency-Key.",
        params: ChainNameParams,
        response: { 200: ChainResumed },
      },
    },
    async (req, reply) => {
      const { rail, node } = await resumeAction(ctx, req.params.name);
      return runIdempotent(ctx, req, reply, async (tx) => {
        const was = await resumeChain(ctx, tx, rail, node);
        const breaker = await currentBreakerView(tx, rail.settings.name, rail.settings.treasury.breakerThreshold);
        return { status: 200, body: { chain: rail.settings.name, resumed: was !== undefined, breaker } };
      });
    },
  );
}

function funding(ctx: AppContext) {
  return route.post(
    '/operator/v1/chain/chains/:name/fundings',
    {
      config: { auth: 'operator' },
      schema: {
        ...operator,
        summary:
          "Records tokens the operator moved into the chain's hot wallet (direction in: a funding) or out of it (out): the ledger's float of the chain, which the treasury reconciles the hot wallet's on-chain balance against, moves by the amount (against operator_adjustments). Gas coin is not recorded. Takes an Idempotency-Key.",
        params: ChainNameParams,
        body: ChainFundingBody,
        response: { 201: ChainFundingSchema },
      },
    },
    async (req, reply) => runIdempotent(ctx, req, reply, async (tx) => ({ status: 201, body: await recordFunding(ctx, tx, req.params.name, req.body) })),
  );
}

const CONFLICT_SUMMARY = {
  resign: "Re-signs a chain payout in nonce conflict (its nonce was used by a transaction not Corridor's) at a fresh nonce; the worker broadcasts it on its next look. One found mined after all goes back to being followed. Takes an Idempotency-Key.",
  cancel: 'Cancels a chain payout in nonce conflict: it fails (chain_nonce_conflict_cancelled) and its funds are released once. One found mined after all goes back to being followed. Takes an Idempotency-Key.',
};

function conflictRoute(ctx: AppContext, action: 'resign' | 'cancel') {
  return route.post(
    `/operator/v1/chain/payouts/:id/${action}`,
    {
      config: { auth: 'operator' },
      schema: { ...operator, summary: CONFLICT_SUMMARY[action], params: IdParams, response: { 200: ChainPayoutSchema } },
    },
    async (req, reply) => {
      const { rail, node } = await conflictAction(ctx, req.params.id);
      return runIdempotent(ctx, req, reply, async (tx) => {
        const row = action === 'resign' ? await resignConflict(ctx, tx, rail, req.params.id, node) : await cancelConflict(ctx, tx, req.params.id, node);
        return { status: 200, body: chainPayoutView(row) };
      });
    },
  );
}

function listDeposits(ctx: AppContext) {
  return route.get(
    '/operator/v1/chain/deposits',
    {
      config: { auth: 'operator' },
      schema: {
        ...operator,
        summary:
          'The Transfer logs the deposit watcher took, newest first: credited (with their deposit), or held for the operator (a token Corridor does not take, or a currency the owner has no virtual account in), never credited',
        querystring: ChainDepositListQuery,
        response: { 200: ChainDepositPage },
      },
    },
    async (req) => listChainDeposits(ctx.db, req.query),
  );
}

function listChains(ctx: AppContext) {
  return route.get(
    '/operator/v1/chain/chains',
    {
      config: { auth: 'operator' },
      schema: {
        ...operator,
        summary: "The chains the connectors file configures, each with its hot wallet's address (to fund) and whether it receives deposits",
        response: { 200: ChainList },
      },
    },
    async () => ({ data: await configuredChains(ctx.db, ctx.connectors) }),
  );
}
