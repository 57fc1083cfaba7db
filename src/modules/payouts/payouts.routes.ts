import type { FastifyInstance } from 'fastify';
import { Type, type Static } from 'typebox';
import type { AppContext } from '../../context.js';
import { runIdempotent } from '../../http/idempotency.js';
import { IdParams } from '../../http/schemas.js';
import { requestMove } from './payouts.lifecycle.js';
import { getPayout, listPayouts, payoutData } from './payouts.read.js';
import { findPayout, findPayoutById } from './payouts.repository.js';
import { PayoutListQuery, PayoutPage, PayoutSchema } from './payouts.schemas.js';
import type { PayoutMove } from './payouts.transitions.js';

const tags = ['Payouts'];
const FailBody = Type.Object({ reason: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })) });
const SIMULATED_MOVES: PayoutMove[] = ['process', 'pay', 'fail', 'revert'];

export function payoutRoutes(app: FastifyInstance, ctx: AppContext): void {
  app.get<{ Querystring: Static<typeof PayoutListQuery> }>(
    '/v1/payouts',
    {
      config: { auth: 'workspace', scope: 'read:payouts' },
      schema: {
        tags,
        summary: 'Payouts newest first; filter by clientRef (to find a payout after an ambiguous failure), status and creation time',
        querystring: PayoutListQuery,
        response: { 200: PayoutPage },
      },
    },
    async (req) => listPayouts(ctx.db, { workspaceId: req.auth.workspaceId, subAccountId: req.auth.subAccountId }, req.query),
  );

  app.get<{ Params: Static<typeof IdParams> }>(
    '/v1/payouts/:id',
    {
      config: { auth: 'workspace', scope: 'read:payouts' },
      schema: { tags, summary: 'One payout, including failureReason', params: IdParams, response: { 200: PayoutSchema } },
    },
    async (req) => payoutData(await getPayout(ctx.db, req.auth.workspaceId, req.params.id)),
  );

  app.post<{ Params: Static<typeof IdParams> }>(
    '/v1/payouts/:id/cancel',
    {
      config: { auth: 'workspace', scope: 'write:payouts', capability: 'payouts' },
      schema: {
        tags,
        summary: 'Cancel a payout that is created, queued or processing (409 from paid, failed or cancelled); held funds return',
        params: IdParams,
        response: { 200: PayoutSchema },
      },
    },
    async (req, reply) =>
      runIdempotent(ctx, req, reply, async (tx) => {
        const row = await requestMove(ctx, tx, () => findPayout(tx, req.auth.workspaceId, req.params.id), 'cancel');
        return { status: 200, body: payoutData(row) };
      }),
  );

  for (const move of SIMULATED_MOVES) {
    if (ctx.config.env === 'sandbox') {
      app.post<{ Params: Static<typeof IdParams>; Body: Static<typeof FailBody> }>(
        `/v1/sandbox/payouts/:id/${move}`,
        {
          config: { auth: 'workspace', scope: 'write:payouts' },
          schema: {
            tags: ['Sandbox'],
            summary: `Simulate the provider: ${move} a payout (sandbox only)`,
            params: IdParams,
            body: Type.Optional(FailBody),
            response: { 200: PayoutSchema },
          },
        },
        async (req, reply) =>
          runIdempotent(ctx, req, reply, async (tx) => {
            const row = await requestMove(ctx, tx, () => findPayout(tx, req.auth.workspaceId, req.params.id), move, req.body?.reason);
            return { status: 200, body: payoutData(row) };
          }),
      );
    }
    app.post<{ Params: Static<typeof IdParams>; Body: Static<typeof FailBody> }>(
      `/operator/v1/payouts/:id/${move}`,
      {
        config: { auth: 'operator' },
        schema: {
          tags: ['Operator'],
          security: [{ operatorKey: [] }],
          summary: `Settle as the provider: ${move} any workspace's payout (audited)`,
          params: IdParams,
          body: Type.Optional(FailBody),
          response: { 200: PayoutSchema },
        },
      },
      async (req) => payoutData(await ctx.db.tx((tx) => requestMove(ctx, tx, () => findPayoutById(tx, req.params.id), move, req.body?.reason))),
    );
  }
}
