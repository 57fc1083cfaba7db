import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../platform/context.js';
import { mobileMoneyConnectorOf } from './index.js';
import { CALLBACK_PATH, takeCallback } from './service.js';

/**
 * The operator's callbacks (GSMA Mobile Money API v1.2: `PUT {X-Callback-URL}` with the transaction,
 * or an error object): a public endpoint, outside Corridor's API and its document, authenticated by
 * the callback itself (service.ts `refusal`). The body is read as text: its SHA-256 is checked
 * against X-Content-Hash before it is parsed. Answers 204, or 400/401/404 as the definition lists.
 */
export function mobileMoneyRoutes(app: FastifyInstance, ctx: AppContext): void {
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
      return gsmaError(answer.status, { errorCategory, errorCode, errordescription: answer.reason ?? (answer.status === 404 ? 'no payout has this correlation id' : '') });
    });
  });
}
