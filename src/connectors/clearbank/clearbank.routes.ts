import { Type } from 'typebox';
import type { AppContext } from '../../platform/context.js';
import { route, type App } from '../../platform/http/routes.js';
import { DomainError, notFound } from '../../platform/lib/errors.js';
import { clearBankConnectorOf } from './index.js';
import { signBody, verifyBody } from './signature.js';
import { takeInWebhook, type Webhook } from './webhooks.js';

export const WEBHOOK_PATH = '/connectors/clearbank/webhooks';

/** ClearBank's webhooks: verified by ClearBank's signature, taken in once, answered with the Nonce signed by the operator's key. */
export function clearBankRoutes(app: App, ctx: AppContext): void {
  app.route(
    route.post(
      WEBHOOK_PATH,
      {
        config: { auth: 'none' },
        schema: {
          // Called by the bank, not by API clients: kept out of the API document, as every provider's callback.
          hide: true,
          tags: ['Connectors'],
          summary: "ClearBank's webhooks (Faster Payments settled, rejected, returned; statements ready)",
          description:
            'Called by ClearBank, not by API clients. The body must carry ClearBank\'s RSA signature of its exact bytes in `DigitalSignature` (verified with the public key of the connectors file\'s `clearbank.bankPublicKeyFile`); a body without a valid signature is refused with 401 and changes nothing. Each webhook is taken in once by its type and TransactionId; a repeat is answered as the first. The answer echoes the Nonce, signed with the operator\'s key, as ClearBank requires. 404 when no ClearBank connector is configured; 503 when the outcome cannot be applied yet (ClearBank delivers it again).',
          body: Type.Object({ Type: Type.String(), Nonce: Type.Integer() }, { additionalProperties: true }),
          response: { 200: Type.Object({ Nonce: Type.Integer() }) },
        },
      },
      async (req, reply) => {
        const cb = clearBankConnectorOf(ctx);
        if (!cb) throw notFound('ClearBank connector');
        const raw = req.rawBody ?? '';
        const signature = req.headers.digitalsignature;
        if (!verifyBody(cb.runtime.config.bankPublicKey, raw, typeof signature === 'string' ? signature : undefined)) {
          req.log.warn('clearbank: a webhook without a valid signature was refused');
          throw new DomainError({ category: 'authentication', code: 'UNAUTHORIZED', message: "the DigitalSignature header is not ClearBank's signature of this body" });
        }
        const hook = req.body as Webhook;
        const result = await takeInWebhook(ctx, raw, hook, cb.runtime.config.statements.bankAccount);
        if (result.outcome === 'not_yet') throw new DomainError({ category: 'unavailable', code: 'SERVICE_UNAVAILABLE', message: result.reason, retryAfterSec: 5 });
        if (result.outcome === 'exception') req.log.warn({ reason: result.reason }, 'clearbank: a webhook kept as an exception');
        const answer = JSON.stringify({ Nonce: hook.Nonce });
        return reply.code(200).header('content-type', 'application/json').header('digitalsignature', signBody(cb.runtime.config.privateKey, answer)).send(answer);
      },
    ),
  );
}
