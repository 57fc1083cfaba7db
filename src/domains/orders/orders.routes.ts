import type { FastifyRequest } from 'fastify';
import { Type, type Static } from 'typebox';
import type { AppContext } from '../../platform/context.js';
import { route, type App } from '../../platform/http/routes.js';
import { runIdempotent } from '../../platform/http/idempotency.js';
import { IdParams } from '../../platform/lib/schemas.js';
import { sendStoredFile } from '../../platform/http/stored-file.js';
import type { Storage } from '../../platform/storage/storage.js';
import { cancelOwnOrder, moveAnyOrder, moveOwnOrder } from './orders.lifecycle.js';
import { getOrder, listOrders, orderData } from './orders.read.js';
import { CompleteBody, CreateOrderBody, OperatorOrderListQuery, OrderListQuery, OrderPage, OrderSchema, ProofBody, ProofUploadBody, ProofUploadSchema } from './orders.schemas.js';
import { createOrder, issueProofUpload, readProof, submitProof } from './orders.service.js';
import type { OrderMove } from './orders.transitions.js';

const tags = ['Orders'];
const write = { auth: 'workspace' as const, scope: 'write:orders' as const, capability: 'orders' as const };
const read = { auth: 'workspace' as const, scope: 'read:orders' as const };

/** A move's body is optional: a POST without one is validated as an empty object. */
const emptyBodyIsObject = async (req: FastifyRequest) => {
  req.body ??= {};
};

const MOVE_DOC: Record<Exclude<OrderMove, 'cancel' | 'review-expire'>, string> = {
  'confirm-funds':
    'The settlement arrived: awaiting_funds → funds_received, `fundedAt` and `executionDeadlineAt` set, the amount credited to the balance and held for the desk, order.funds_received. On an order that expired or was cancelled unfunded, the funds are credited to the balance instead (the order keeps its status, no event). 409 from other states and on balance-funded orders.',
  execute: 'The desk starts execution: funds_received → executing (no event).',
  complete:
    'funds_received or executing → completed with the final `toAmount` and `rate` (both, or neither for the amounts priced at creation) and, on a wire delivery to a beneficiary, `uetr` (generated when absent). The held fromAmount is posted to the desk, which credits toAmount to the own balance or pays it out to the beneficiary; order.completed.',
  fail: 'funds_received or executing → failed with failureReason execution_failed; held funds return to the balance; order.failed.',
  expire: 'Ends the funding window now: awaiting_funds → expired, order.expired (sandbox only; in production the deadline job does this at fundingDeadlineAt).',
};

const SANDBOX_MOVES = ['confirm-funds', 'execute', 'complete', 'fail', 'expire'] as const;
const OPERATOR_MOVES = ['confirm-funds', 'execute', 'complete', 'fail'] as const;

const operator = { tags: ['Operator'], security: [{ operatorKey: [] }] };

export function orderRoutes(app: App, ctx: AppContext, storage: Storage): void {
  app.route(createOrderRoute(ctx));
  app.route(listOrdersRoute(ctx));
  app.route(getOrderRoute(ctx));
  app.route(cancelOrder(ctx));
  app.route(proofUploadUrl(ctx, storage));
  app.route(submitProofRoute(ctx));
  if (ctx.config.env === 'sandbox') {
    for (const move of SANDBOX_MOVES) app.route(sandboxMoveOrder(ctx, move));
  }
  for (const move of OPERATOR_MOVES) app.route(operatorMoveOrder(ctx, move));
  app.route(listAnyOrders(ctx));
  app.route(readProofRoute(ctx, storage));
}

function createOrderRoute(ctx: AppContext) {
  return route.post(
    '/v1/orders',
    {
      config: write,
      schema: {
        tags,
        summary: 'Place a trade-desk order (201), funded from the balance or by a settlement',
        description: [
          'Give exactly one of fromAmount and toAmount, as decimal strings at the currency\'s scale (a JSON number is a 400). Priced from the FX rate source: `rate` is fromCurrency per 1 toCurrency, all-in; the desk\'s final rate and toAmount may differ at completion.',
          'No corridor maximum applies (orders serve amounts above corridor caps); a per-transaction limit the operator set for fromCurrency does (400 LIMIT_EXCEEDED).',
          'Funding: from the balance when `funding` is "balance", or by default when the available balance covers fromAmount: held now, status funds_received, events order.created and order.funds_received, `settlement` null. Otherwise by settlement: status awaiting_funds with `settlement` (instructions, reference, requiredAmount, requirements.proofOfPayment), events order.created and order.awaiting_funds; unfunded at fundingDeadlineAt (ORDER_FUNDING_WINDOW_MS, default 24 h) it expires (order.expired).',
          '`funding: "balance"` the balance cannot cover is 422 INSUFFICIENT_BALANCE and creates nothing; so is any uncovered order when settlement funding is unavailable for fromCurrency (no collection details configured, ORDER_SETTLEMENT_INSTRUCTIONS), where `funding: "settlement"` is 422 SETTLEMENT_UNAVAILABLE. A duplicate clientRef is 400 DUPLICATE_CLIENT_REF; find the original with GET /v1/orders?clientRef= or resend with the same Idempotency-Key.',
          'A funded order the desk has not completed by executionDeadlineAt (ORDER_EXECUTION_WINDOW_MS after funding, default 72 h) fails with failureReason review_expired.',
        ].join(' '),
        body: CreateOrderBody,
        response: { 201: OrderSchema },
      },
    },
    async (req, reply) => runIdempotent(ctx, req, reply, async (tx) => ({ status: 201, body: orderData(await createOrder(ctx, tx, req.auth, req.body)) })),
  );
}

function listOrdersRoute(ctx: AppContext) {
  return route.get(
    '/v1/orders',
    { config: read, schema: { tags, summary: 'Orders newest first; filter by status and clientRef (with Service-Account-Id: that sub-account\'s only)', querystring: OrderListQuery, response: { 200: OrderPage } } },
    async (req) => listOrders(ctx.db, { workspaceId: req.auth.workspaceId, subAccountId: req.auth.subAccountId }, req.query),
  );
}

function getOrderRoute(ctx: AppContext) {
  return route.get(
    '/v1/orders/:id',
    { config: read, schema: { tags, summary: 'One order', params: IdParams, response: { 200: OrderSchema } } },
    async (req) => orderData(await getOrder(ctx.db, req.auth.workspaceId, req.params.id)),
  );
}

function cancelOrder(ctx: AppContext) {
  return route.post(
    '/v1/orders/:id/cancel',
    {
      config: write,
      schema: {
        tags,
        summary: 'Cancel an order awaiting funds or funded and not yet executing; answered synchronously',
        description: 'awaiting_funds or funds_received → cancelled; held funds return to the balance. No event is emitted (the spec has no order.cancelled). 409 once executing or in a final status.',
        params: IdParams,
        response: { 200: OrderSchema },
      },
    },
    async (req, reply) =>
      runIdempotent(ctx, req, reply, async (tx) => ({ status: 200, body: orderData(await cancelOwnOrder(ctx, tx, req.auth, req.params.id)) })),
  );
}

function proofUploadUrl(ctx: AppContext, storage: Storage) {
  return route.post(
    '/v1/orders/:id/settlement/proof-upload-url',
    {
      config: write,
      schema: {
        tags,
        summary: 'Get a signed URL to upload the proof of payment of a bank-transfer settlement (201)',
        description: `For an order awaiting funds whose settlement has requirements.proofOfPayment true (else 409 PROOF_NOT_REQUIRED or ORDER_NOT_AWAITING_FUNDS). PUT the raw bytes to \`uploadUrl\` (no Authorization header) before \`expiresAt\` (UPLOAD_URL_TTL_MS, default 15 minutes): PDF, JPEG or PNG as declared, recognised from the bytes, exactly contentLength bytes, at most ${ctx.config.limits.uploadBytesMax} bytes (400 UPLOAD_TOO_LARGE). The URL takes one file. Then POST /v1/orders/{id}/settlement/proof {proofKey}.`,
        params: IdParams,
        body: ProofUploadBody,
        response: { 201: ProofUploadSchema },
      },
    },
    async (req, reply) => runIdempotent(ctx, req, reply, async (tx) => ({ status: 201, body: await issueProofUpload(ctx, tx, storage, req.auth.workspaceId, req.params.id, req.body) })),
  );
}

function submitProofRoute(ctx: AppContext) {
  return route.post(
    '/v1/orders/:id/settlement/proof',
    {
      config: write,
      schema: {
        tags,
        summary: 'Submit the uploaded proof of payment of the settlement',
        description: 'The settlement moves to proof_submitted (a later proof replaces it while the order awaits funds). 400 for a proofKey not issued for this order; 409 PROOF_NOT_UPLOADED before the PUT; 409 ORDER_NOT_AWAITING_FUNDS or PROOF_NOT_REQUIRED as for the upload URL.',
        params: IdParams,
        body: ProofBody,
        response: { 200: OrderSchema },
      },
    },
    async (req, reply) => runIdempotent(ctx, req, reply, async (tx) => ({ status: 200, body: orderData(await submitProof(tx, req.auth.workspaceId, req.params.id, req.body.proofKey)) })),
  );
}

function sandboxMoveOrder(ctx: AppContext, move: (typeof SANDBOX_MOVES)[number]) {
  return route.post(
    `/v1/sandbox/orders/:id/${move}`,
    {
      config: { auth: 'workspace', scope: 'write:orders' },
      preValidation: emptyBodyIsObject,
      schema: {
        tags: ['Sandbox'],
        summary: `Simulate the desk: ${move} an order of your own (sandbox only)`,
        description: MOVE_DOC[move],
        params: IdParams,
        ...(move === 'complete' ? { body: CompleteBody } : {}),
        response: { 200: OrderSchema },
      },
    },
    async (req, reply) =>
      runIdempotent(ctx, req, reply, async (tx) => ({
        status: 200,
        body: orderData(await moveOwnOrder(ctx, tx, req.auth.workspaceId, req.params.id, move, move === 'complete' ? (req.body as Static<typeof CompleteBody>) : {})),
      })),
  );
}

function operatorMoveOrder(ctx: AppContext, move: (typeof OPERATOR_MOVES)[number]) {
  return route.post(
    `/operator/v1/orders/:id/${move}`,
    {
      config: { auth: 'operator' },
      preValidation: emptyBodyIsObject,
      schema: {
        ...operator,
        summary: `Desk move: ${move} any workspace's order (audited)`,
        description: MOVE_DOC[move],
        params: IdParams,
        ...(move === 'complete' ? { body: CompleteBody } : {}),
        response: { 200: OrderSchema },
      },
    },
    async (req, reply) => runIdempotent(ctx, req, reply, async (tx) => ({ status: 200, body: orderData(await moveAnyOrder(ctx, tx, req.params.id, move, move === 'complete' ? (req.body as Static<typeof CompleteBody>) : {})) })),
  );
}

function listAnyOrders(ctx: AppContext) {
  return route.get(
    '/operator/v1/orders',
    { config: { auth: 'operator' }, schema: { ...operator, summary: 'Orders of every workspace, newest first (filter by status, workspaceId): the desk\'s queue', querystring: OperatorOrderListQuery, response: { 200: OrderPage } } },
    async (req) => listOrders(ctx.db, { workspaceId: req.query.workspaceId }, req.query),
  );
}

function readProofRoute(ctx: AppContext, storage: Storage) {
  return route.get(
    '/operator/v1/orders/:id/settlement/proof',
    {
      config: { auth: 'operator' },
      schema: {
        ...operator,
        summary: 'Read the proof of payment submitted for an order (audited)',
        description: 'The file as uploaded, with its Content-Type (application/pdf, image/jpeg or image/png), X-Content-Type-Options nosniff, Cache-Control no-store and a Content-Disposition naming it proof-of-payment-{id} (images inline, PDFs as attachment), as the console sends it. 404 when no proof was submitted.',
        params: IdParams,
        response: { 200: Type.String({ description: 'The file', contentEncoding: 'binary' }) },
      },
    },
    async (req, reply) => {
      const proof = await readProof(ctx.db, storage, req.params.id);
      return sendStoredFile(reply, { ...proof, name: `proof-of-payment-${req.params.id}` });
    },
  );
}
