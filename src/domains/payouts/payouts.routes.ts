import type { FastifyInstance, FastifyRequest } from 'fastify';
import { sendPdfDocument } from '../../platform/http/stored-file.js';
import { Type, type Static } from 'typebox';
import type { AppContext } from '../../platform/context.js';
import { AppError, renderError } from '../../platform/http/errors.js';
import { idempotencyOf, runIdempotent, sendAnswer, type StoredAnswer } from '../../platform/http/idempotency.js';
import { IdempotentBatcher } from '../../platform/http/idempotent-batcher.js';
import { IdParams } from '../../platform/lib/schemas.js';
import { withApprovals } from '../../controls/approvals/approvals.service.js';
import { cancelOwnPayout, moveAnyPayout, moveOwnPayout } from './payouts.lifecycle.js';
import { getPayout, listPayouts, payoutData } from './payouts.read.js';
import { confirmationFileName, confirmationPdf, payoutConfirmation } from './payouts.confirmation.js';
import { OperatorPayoutListQuery, OperatorPayoutPage, PayoutListQuery, PayoutPage, PayoutRequest, PayoutRowError, PayoutSchema } from './payouts.schemas.js';
import { PayoutService, type CheckedRequest, type SubmissionResult } from './payouts.service.js';
import type { PayoutMove } from './payouts.transitions.js';

const tags = ['Payouts'];
const FailBody = Type.Object({ reason: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })) });
const SIMULATED_MOVES: PayoutMove[] = ['process', 'pay', 'fail', 'revert'];

/** A move's body is optional: a POST without one is validated as an empty object. */
const emptyBodyIsObject = async (req: FastifyRequest) => {
  req.body ??= {};
};

const JSON_TYPE = 'application/json; charset=utf-8';

/**
 * A creation's answer as sent (and stored under its Idempotency-Key). Payouts are exactly the
 * documented Payout (the route's 201 schema is a union, which its serializer would resolve by
 * validating each answer), so they are written as they are.
 */
function renderSubmission(req: FastifyRequest, result: SubmissionResult): StoredAnswer {
  switch (result.kind) {
    case 'created':
      return { status: 201, contentType: JSON_TYPE, text: JSON.stringify(result.payout) };
    case 'batch':
      return { status: 201, contentType: JSON_TYPE, text: JSON.stringify(result.rows) };
    case 'refused': {
      const rendered = renderError(result.error, req);
      return { status: rendered.status, contentType: rendered.contentType, text: JSON.stringify(rendered.body) };
    }
  }
}

const payoutsBusy = (): AppError =>
  new AppError({
    status: 503,
    code: 'SERVICE_BUSY',
    message: 'Too many payouts are waiting to be written; retry shortly with the same Idempotency-Key',
    retryable: true,
    problem: true,
    headers: { 'retry-after': '1' },
  });

/**
 * Payout creations, grouped: requests of one workspace share a lane; a group takes at most
 * `payoutCommitRowsMax` rows and is one transaction with its Idempotency-Keys; past `payoutQueueMax`
 * waiting requests, a request is refused with 503 and Retry-After.
 */
function payoutCreations(ctx: AppContext, payouts: PayoutService): IdempotentBatcher<CheckedRequest, SubmissionResult> {
  const limits = ctx.config.limits;
  return new IdempotentBatcher<CheckedRequest, SubmissionResult>(ctx, (tx, requests) => payouts.createMany(tx, requests), {
    lanes: limits.payoutLanes,
    batchWeightMax: limits.payoutCommitRowsMax,
    queueMax: limits.payoutQueueMax,
    laneOf: (request) => request.caller.workspaceId,
    weightOf: (request) => request.weight,
    onFull: payoutsBusy,
  });
}

export function payoutRoutes(app: FastifyInstance, ctx: AppContext): void {
  createRoute(app, ctx);
  readRoutes(app, ctx);
  cancelRoute(app, ctx);
  operatorListRoute(app, ctx);
  connectorMoveRoutes(app, ctx);
}

/** POST /v1/payouts: checked by the service, written in a group with its Idempotency-Key, answered as rendered here. */
function createRoute(app: FastifyInstance, ctx: AppContext): void {
  const payouts = new PayoutService(ctx);
  const creations = payoutCreations(ctx, payouts);
  app.post(
    '/v1/payouts',
    {
      config: { auth: 'workspace', scope: 'write:payouts', capability: 'payouts' },
      schema: {
        tags,
        summary: 'Create a payout, or a batch of payouts (an array, at most 100)',
        description: [
          'Validation runs before anything is queued, in order: corridor-required recipient fields, recipient structure, sender (codes in `details[].code`).',
          'Refusals with a code in `message`: CORRIDOR_NOT_ENABLED, AMOUNT_OUT_OF_BOUNDS, LIMIT_EXCEEDED, PAYOUT_NOT_PERMITTED, INSUFFICIENT_BALANCE (a fiat payout without a quote is then recorded as `failed` under its clientRef and emits `payout.failed`).',
          'A duplicate clientRef answers 400 `Payout with this client reference already exists`; find the original with GET /v1/payouts?clientRef=, or resend with the same Idempotency-Key.',
          'Batch: 201 with an array in request order, each item the payout or `{error, clientRef}`; a field-format refusal on any row (for example `0.beneficiary.accounts.0.data`) refuses the whole array and creates nothing.',
          'Sandbox outcomes by amount: decimals .13 fail at the provider, .14 stay processing, .15 are paid then reverted (last two integer digits for zero-decimal currencies).',
        ].join(' '),
        body: PayoutRequest,
        response: { 201: Type.Union([PayoutSchema, Type.Array(Type.Union([PayoutSchema, PayoutRowError]))]) },
      },
    },
    async (req, reply) => {
      const keyed = idempotencyOf(req);
      const request = await payouts.check(req.auth, req.body as Static<typeof PayoutRequest>);
      const { answer, replayed } = await creations.submit({
        keyed,
        item: request,
        render: (result) => renderSubmission(req, result instanceof AppError ? { kind: 'refused', error: result } : result),
      });
      return sendAnswer(reply, answer, replayed);
    },
  );
}

function readRoutes(app: FastifyInstance, ctx: AppContext): void {
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
    async (req) => {
      const page = await listPayouts(ctx.db, { workspaceId: req.auth.workspaceId, subAccountId: req.auth.subAccountId }, req.query);
      return { ...page, data: await withApprovals(ctx.db, req.auth.workspaceId, page.data) };
    },
  );

  app.get<{ Params: Static<typeof IdParams> }>(
    '/v1/payouts/:id',
    {
      config: { auth: 'workspace', scope: 'read:payouts' },
      schema: { tags, summary: 'One payout, including failureReason', params: IdParams, response: { 200: PayoutSchema } },
    },
    async (req) => (await withApprovals(ctx.db, req.auth.workspaceId, [payoutData(await getPayout(ctx.db, req.auth.workspaceId, req.params.id))]))[0],
  );

  app.get<{ Params: Static<typeof IdParams> }>(
    '/v1/payouts/:id/confirmation.pdf',
    {
      config: { auth: 'workspace', scope: 'read:payouts' },
      schema: {
        tags,
        operationId: 'getPayoutConfirmation',
        summary: 'A payment confirmation of one payout, as a PDF the payer can send the payee',
        description:
          'Names the payer (the workspace, and the originator when senderInfo was given), the payee and the account paid (its last four characters), the amount and currency, the date, the reference and the payer\'s clientRef, the status (and the payment date once paid, the UETR or chain transaction when the rail gave one) and the operator that issued it. ' +
          'Any status can be printed: a payout not yet paid says so. 404 for another workspace\'s payout.',
        params: IdParams,
        produces: ['application/pdf'],
        response: { 200: { description: 'The confirmation, as an attachment named payment-confirmation-{clientRef}.pdf', content: { 'application/pdf': { schema: Type.String({ format: 'binary' }) } } } },
      },
    },
    async (req, reply) => {
      const confirmation = await payoutConfirmation(ctx, req.auth.workspaceId, req.params.id);
      return sendPdfDocument(reply, confirmationFileName(confirmation), confirmationPdf(confirmation));
    },
  );
}

function cancelRoute(app: FastifyInstance, ctx: AppContext): void {
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
        const row = await cancelOwnPayout(ctx, tx, req.auth, req.params.id);
        return { status: 200, body: payoutData(row) };
      }),
  );
}

function operatorListRoute(app: FastifyInstance, ctx: AppContext): void {
  app.get<{ Querystring: Static<typeof OperatorPayoutListQuery> }>(
    '/operator/v1/payouts',
    {
      config: { auth: 'operator' },
      schema: {
        tags: ['Operator'],
        security: [{ operatorKey: [] }],
        summary: "Payouts of every workspace, newest first: `provider=manual&status=processing` is the queue the operator settles (the console's Payouts page)",
        querystring: OperatorPayoutListQuery,
        response: { 200: OperatorPayoutPage },
      },
    },
    async (req) => listPayouts(ctx.db, { workspaceId: req.query.workspaceId }, req.query),
  );
}

/** The connector's moves of a payout: simulated by the workspace (sandbox only), made by the operator for the manual connector (audited). */
function connectorMoveRoutes(app: FastifyInstance, ctx: AppContext): void {
  for (const move of SIMULATED_MOVES) {
    if (ctx.config.env === 'sandbox') {
      app.post<{ Params: Static<typeof IdParams>; Body: Static<typeof FailBody> }>(
        `/v1/sandbox/payouts/:id/${move}`,
        {
          config: { auth: 'workspace', scope: 'write:payouts' },
          preValidation: emptyBodyIsObject,
          schema: {
            tags: ['Sandbox'],
            summary: `Simulate the connector: ${move} a payout (sandbox only)`,
            params: IdParams,
            ...(move === 'fail' ? { body: FailBody } : {}),
            response: { 200: PayoutSchema },
          },
        },
        async (req, reply) =>
          runIdempotent(ctx, req, reply, async (tx) => {
            const row = await moveOwnPayout(ctx, tx, req.auth.workspaceId, req.params.id, move, req.body?.reason);
            return { status: 200, body: payoutData(row) };
          }),
      );
    }
    app.post<{ Params: Static<typeof IdParams>; Body: Static<typeof FailBody> }>(
      `/operator/v1/payouts/:id/${move}`,
      {
        config: { auth: 'operator' },
        preValidation: emptyBodyIsObject,
        schema: {
          tags: ['Operator'],
          security: [{ operatorKey: [] }],
          summary: `Move as the connector: ${move} any workspace's payout (audited)`,
          params: IdParams,
          ...(move === 'fail' ? { body: FailBody } : {}),
          response: { 200: PayoutSchema },
        },
      },
      async (req, reply) => runIdempotent(ctx, req, reply, async (tx) => ({ status: 200, body: payoutData(await moveAnyPayout(ctx, tx, req.params.id, move, req.body?.reason)) })),
    );
  }
}
