import { Type } from 'typebox';
import type { AppContext } from '../../platform/context.js';
import { runIdempotent } from '../../platform/http/idempotency.js';
import { route, type App } from '../../platform/http/routes.js';
import { conflict } from '../../platform/lib/errors.js';
import { AMOUNT_PATTERN } from '../../platform/lib/money.js';
import { Nullable, Timestamp, Uuid } from '../../platform/lib/schemas.js';
import { depositData } from '../../domains/deposits/deposits.service.js';
import { DepositSchema } from '../../domains/deposits/deposits.schemas.js';
import { requestCollection } from './collections.js';
import { creditExceptionsOf, CREDITS_PATH, takeCredit } from './credits.js';
import { mobileMoneyConnectorOf } from './index.js';
import { CALLBACK_PATH, takeCallback } from './service.js';

/**
 * The operator's callbacks (GSMA Mobile Money API v1.2: `PUT {X-Callback-URL}` with the transaction,
 * or an error object): a public endpoint, outside Corridor's API and its document, authenticated by
 * the callback itself (service.ts `refusal`). The body is read as text: its SHA-256 is checked
 * against X-Content-Hash before it is parsed. Answers 204, or 400/401/404 as the definition lists.
 * Payments pushed to Corridor's merchant or paybill number come in the same way at
 * `/callbacks/mobile-money/credits/<transaction reference>`. Then the workspace's collections and
 * the operator's list of pushed credits that landed nowhere.
 */
export function mobileMoneyRoutes(app: App, ctx: AppContext): void {
  void app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'string', bodyLimit: 64 * 1024 }, (_req, body, done) => done(null, body));
    const take = (path: string, taker: typeof takeCallback, unknown: string) =>
      scope.put<{ Params: { id: string } }>(`${path}/:id`, { config: { auth: 'none' }, schema: { hide: true } }, async (req, reply) => {
        const mm = mobileMoneyConnectorOf(ctx);
        // Answered as the GSMA definition's errorObject, as text: the API's problem schema is not the operator's contract.
        const gsmaError = (status: number, body: Record<string, string>) => reply.code(status).type('application/json').send(JSON.stringify(body));
        if (!mm) return gsmaError(404, { errorCategory: 'identification', errorCode: 'genericError', errordescription: 'no mobile-money connector is configured' });
        const answer = await taker(ctx, mm.runtime, { correlationId: req.params.id, headers: req.headers, rawBody: typeof req.body === 'string' ? req.body : '' });
        if (answer.status === 204) return reply.code(204).send();
        const errorCode = answer.status === 401 ? 'clientAuthorisationError' : answer.status === 404 ? 'identifierError' : 'formatError';
        const errorCategory = answer.status === 401 ? 'authorisation' : answer.status === 404 ? 'identification' : 'validation';
        return gsmaError(answer.status, { errorCategory, errorCode, errordescription: answer.reason ?? (answer.status === 404 ? unknown : '') });
      });
    take(CALLBACK_PATH, takeCallback, 'no payout or collection has this correlation id');
    // Payments to Corridor's merchant or paybill number, pushed by the operator (credits.ts).
    take(CREDITS_PATH, takeCredit, '');
  });
  app.route(collectRoute(ctx));
  app.route(creditExceptionsRoute(ctx));
}

const CollectionBody = Type.Object(
  {
    clientRef: Type.String({ minLength: 1, maxLength: 100, description: 'Your reference of the collection, once per workspace; the deposit\'s clientRef' }),
    amount: Type.String({ pattern: AMOUNT_PATTERN, description: 'What the payer is asked for, a decimal string in major units', 'x-message': 'must be a positive decimal string such as "100.00"' }),
    currency: Type.String({ pattern: '^[A-Z]{3}$', description: 'A currency the workspace has enabled (XOF, XAF, GHS…)' }),
    phoneNumber: Type.String({ minLength: 8, maxLength: 16, description: 'The payer\'s mobile-money wallet, E.164 (+233241230000)' }),
    description: Type.Optional(Type.String({ minLength: 1, maxLength: 160, description: 'Shown to the payer with the request where the operator shows one' })),
  },
  {
    title: 'CollectionRequest',
    additionalProperties: false,
    examples: [{ clientRef: 'order-5531', amount: '25.00', currency: 'GHS', phoneNumber: '+233241231000', description: 'Order 5531' }],
  },
);

const COLLECT_DESCRIPTION = [
  'Sends a request to pay (a GSMA merchant payment initiated by the payee, the STK push of M-Pesa) to the payer\'s phone through the mobile-money connector; the payer approves or declines it there.',
  'Answers 201 with the deposit, `pending`, rail `mobile_money_collection`; it is in GET /v1/deposits at once. When the payer approves, it becomes `completed` (the balance credited by creditedAmount, amount less the serviceFee) with `deposit.completed`, once; when the payer declines, enters a wrong PIN or does not answer in time, `failed` with `deposit.failed` and failureReason `payer_declined`, `wrong_pin` or `timeout`.',
  'Sandbox: the simulator\'s payer numbers end in 0003 (declines), 0004 (no answer: timeout), 0005 (wrong PIN); any other approves.',
  '409 COLLECTIONS_NOT_OFFERED when no mobile-money connector runs in this deployment; 409 DUPLICATE_CLIENT_REF for a clientRef the workspace already used.',
].join(' ');

function collectRoute(ctx: AppContext) {
  return route.post(
    '/v1/collections',
    {
      config: { auth: 'workspace', scope: 'write:deposits', capability: 'deposits' },
      schema: { tags: ['Deposits'], summary: "Ask a payer's phone for money (mobile-money request to pay); the result is a deposit", description: COLLECT_DESCRIPTION, body: CollectionBody, response: { 201: DepositSchema } },
    },
    async (req, reply) =>
      runIdempotent(ctx, req, reply, async (tx) => {
        const mm = mobileMoneyConnectorOf(ctx);
        if (!mm) throw conflict('COLLECTIONS_NOT_OFFERED', 'No mobile-money connector runs in this deployment: collections are not offered');
        return { status: 201, body: depositData(await requestCollection(mm.runtime, tx, req.auth, req.body)) };
      }),
  );
}

const CreditExceptions = Type.Object(
  {
    data: Type.Array(
      Type.Object({
        transactionReference: Type.String({ description: "The operator's transaction reference: the credit's identity, taken in once" }),
        amount: Nullable(Type.String()),
        currency: Nullable(Type.String()),
        payerReference: Nullable(Type.String({ description: 'The reference the payer gave (creditParty consumerno), which should be a virtual account id' })),
        reason: Type.String({ description: 'Why nothing was credited, and so who must act' }),
        workspaceId: Nullable(Uuid),
        receivedAt: Timestamp,
      }),
    ),
  },
  { title: 'MobileMoneyCreditExceptions' },
);

function creditExceptionsRoute(ctx: AppContext) {
  return route.get(
    '/operator/v1/mobile-money/exceptions',
    {
      config: { auth: 'operator' },
      schema: {
        tags: ['Operator'],
        security: [{ operatorKey: [] }],
        summary: 'Payments pushed to the merchant or paybill number that landed nowhere, newest first, each with its reason (nothing was credited)',
        response: { 200: CreditExceptions },
      },
    },
    async () => ({
      data: (await creditExceptionsOf(ctx)).map((e) => ({
        transactionReference: e.transaction_reference,
        amount: e.amount,
        currency: e.currency,
        payerReference: e.payer_reference,
        reason: e.reason ?? '',
        workspaceId: e.workspace_id,
        receivedAt: e.received_at.toISOString(),
      })),
    }),
  );
}
