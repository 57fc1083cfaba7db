import { Type } from 'typebox';
import type { AppContext } from '../../platform/context.js';
import { runIdempotent } from '../../platform/http/idempotency.js';
import { route, type App } from '../../platform/http/routes.js';
import { conflict } from '../../platform/lib/errors.js';
import { AMOUNT_PATTERN } from '../../platform/lib/money.js';
import { depositData } from '../../domains/deposits/deposits.service.js';
import { DepositSchema } from '../../domains/deposits/deposits.schemas.js';
import { requestCollection } from './collections.js';
import { mobileMoneyConnectorOf } from './index.js';
import { CALLBACK_PATH, takeCallback } from './service.js';

/**
 * The operator's callbacks (GSMA Mobile Money API v1.2: `PUT {X-Callback-URL}` with the transaction,
 * or an error object): a public endpoint, outside Corridor's API and its document, authenticated by
 * the callback itself (service.ts `refusal`). The body is read as text: its SHA-256 is checked
 * against X-Content-Hash before it is parsed. Answers 204, or 400/401/404 as the definition lists.
 */
export function mobileMoneyRoutes(app: App, ctx: AppContext): void {
  void app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'string', bodyLimit: 64 * 1024 }, (_req, body, done) => done(null, body));
    scope.put<{ Params: { correlationId: string } }>(`${CALLBACK_PATH}/:correlationId`, { config: { auth: 'none' }, schema: { hide: true } }, async (req, reply) => {
      const mm = mobileMoneyConnectorOf(ctx);
      // Answered as the GSMA definition's errorObject, as text: the API's problem schema is not the operator's contract.
      const gsmaError = (status: number, body: Record<string, string>) => reply.code(status).type('application/json').send(JSON.stringify(body));
      if (!mm) return gsmaError(404, { errorCategory: 'identification', errorCode: 'genericError', errordescription: 'no mobile-money connector is configured' });
      const answer = await takeCallback(ctx, mm.runtime, { correlationId: req.params.correlationId, headers: req.headers, rawBody: typeof req.body === 'string' ? req.body : '' });
      if (answer.status === 204) return reply.code(204).send();
      const errorCode = answer.status === 401 ? 'clientAuthorisationError' : answer.status === 404 ? 'identifierError' : 'formatError';
      const errorCategory = answer.status === 401 ? 'authorisation' : answer.status === 404 ? 'identification' : 'validation';
      return gsmaError(answer.status, { errorCategory, errorCode, errordescription: answer.reason ?? (answer.status === 404 ? 'no payout or collection has this correlation id' : '') });
    });
  });
  app.route(collectRoute(ctx));
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
