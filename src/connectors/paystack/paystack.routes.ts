import { createHash } from 'node:crypto';
import { Type } from 'typebox';
import type { AppContext } from '../../platform/context.js';
import { route, type App } from '../../platform/http/routes.js';
import { DomainError, notFound } from '../../platform/lib/errors.js';
import { runIdempotent } from '../../platform/http/idempotency.js';
import { Nullable, Timestamp, Uuid } from '../../platform/lib/schemas.js';
import { virtualAccountWithDetails } from '../../domains/virtual-accounts/virtual-accounts.port.js';
import { dedicatedAccountIssuance } from './dedicated-accounts.js';
import { balancesOf, exceptionsOf, takeWebhook } from './service.js';
import { paystackConnectorOf } from './connector.js';

const operator = { tags: ['Operator'], security: [{ operatorKey: [] }] };

/** Paystack's webhooks can be large only for bulk events; the transfer events are a few kilobytes. */
const WEBHOOK_BYTES_MAX = 256 * 1024;

/**
 * The Paystack connector's HTTP side: the webhook URL the operator gives Paystack
 * (`POST /connectors/paystack/webhook`, no credential: the `x-paystack-signature` HMAC is the proof,
 * checked over the raw bytes), and the operator's view of the provider balance and of what the
 * connector could not apply.
 */
export function paystackRoutes(app: App, ctx: AppContext): void {
  void app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: WEBHOOK_BYTES_MAX }, (req, body, done) => {
      req.rawBody = `sha256:${createHash('sha256').update(body as Buffer).digest('hex')}`;
      done(null, body);
    });
    scope.post('/connectors/paystack/webhook', { config: { auth: 'none' }, bodyLimit: WEBHOOK_BYTES_MAX, schema: { hide: true } }, async (req, reply) => {
      const paystack = paystackConnectorOf(ctx);
      if (!paystack) throw notFound('A Paystack connector in this process');
      const body = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
      const signature = req.headers['x-paystack-signature'];
      const answer = await takeWebhook(ctx, paystack.runtime, body, typeof signature === 'string' ? signature : undefined);
      if (answer.status === 401) {
        req.log.warn('paystack: webhook refused, its x-paystack-signature is not the HMAC-SHA512 of its body with the secret key');
        throw new DomainError({ category: 'authentication', code: 'UNAUTHORIZED', message: 'x-paystack-signature does not sign this body' });
      }
      if (answer.status === 400) throw new DomainError({ category: 'invalid_request', code: 'BAD_REQUEST', message: 'the webhook body is not JSON' });
      return reply.code(200).send({ status: true, outcome: answer.outcome });
    });
  });
  app.route(balance(ctx));
  app.route(issueDedicatedAccountRoute(ctx));
}

const PaystackBalance = Type.Object(
  {
    object: Type.Literal('paystack_balance'),
    data: Type.Array(Type.Object({ currency: Type.String(), balance: Type.String({ description: 'Decimal string at the currency scale' }), readAt: Type.String({ format: 'date-time' }) })),
    lowBalance: Type.String({ description: 'The NGN balance under which the operator is alerted (paystack.lowBalance)' }),
    exceptions: Type.Array(
      Type.Object({ id: Type.String(), source: Type.String(), reference: Type.Union([Type.String(), Type.Null()]), payoutId: Type.Union([Type.String(), Type.Null()]), reason: Type.String(), createdAt: Type.String({ format: 'date-time' }) }),
    ),
  },
  { $id: 'PaystackBalance' },
);

function balance(ctx: AppContext) {
  return route.get(
    '/operator/v1/paystack/balance',
    {
      config: { auth: 'operator' },
      schema: {
        ...operator,
        summary: 'The Paystack connector: the provider balance as last read, its low-balance threshold, and the latest webhooks or answers it could not apply',
        response: { 200: PaystackBalance },
      },
    },
    async () => {
      const paystack = paystackConnectorOf(ctx);
      if (!paystack) throw notFound('A Paystack connector in this process');
      const low = paystack.runtime.config.lowBalanceMinor;
      return {
        object: 'paystack_balance' as const,
        data: (await balancesOf(ctx.db)).map((b) => ({ ...b, readAt: b.readAt.toISOString() })),
        lowBalance: `${low / 100n}.${(low % 100n).toString().padStart(2, '0')}`,
        exceptions: (await exceptionsOf(ctx.db)).map((e) => ({ id: e.id, source: e.source, reference: e.reference, payoutId: e.payout_id, reason: e.reason, createdAt: e.created_at.toISOString() })),
      };
    },
  );
}

const DedicatedAccountRequest = Type.Object(
  {
    workspaceId: Uuid,
    accountId: Type.Optional(Uuid),
    email: Type.String({ format: 'email', maxLength: 254, description: "The customer's email at Paystack (Paystack requires one; a known email answers the same customer)" }),
    phone: Type.Optional(Type.String({ pattern: '^\\+?[0-9]{7,15}$', description: 'The customer\'s phone, which some banks require' })),
    preferredBank: Type.Optional(Type.String({ pattern: '^[a-z0-9-]{2,50}$', description: 'The bank slug of the account (Paystack\'s available providers), `wema-bank` when absent' })),
  },
  { title: 'PaystackDedicatedAccountRequest', additionalProperties: false },
);

const DedicatedAccount = Type.Object(
  {
    object: Type.Literal('paystack_dedicated_account'),
    virtualAccountId: Uuid,
    workspaceId: Uuid,
    accountId: Nullable(Uuid),
    currency: Type.Literal('NGN'),
    status: Type.String(),
    accountNumber: Type.String({ description: 'The NUBAN payers send to' }),
    bankName: Type.String(),
    accountHolderName: Type.String(),
    createdAt: Timestamp,
  },
  { $id: 'PaystackDedicatedAccount' },
);

function issueDedicatedAccountRoute(ctx: AppContext) {
  return route.post(
    '/operator/v1/paystack/dedicated-accounts',
    {
      config: { auth: 'operator' },
      schema: {
        ...operator,
        summary: "Issues a workspace's NGN virtual account through Paystack's dedicated virtual accounts (NGN is not self-serve in production): 201 with the account, 200 with the one issued before; its credits (charge.success) become deposits",
        body: DedicatedAccountRequest,
        response: { 200: DedicatedAccount, 201: DedicatedAccount },
      },
    },
    async (req, reply) => {
      const paystack = paystackConnectorOf(ctx);
      if (!paystack) throw notFound('A Paystack connector in this process');
      const record = await dedicatedAccountIssuance(ctx, paystack.runtime.client, req.body);
      return runIdempotent(ctx, req, reply, async (tx) => {
        const { row, created } = await record(tx);
        // As recorded (a repeat answers the account issued first, whatever Paystack answered now).
        const data = virtualAccountWithDetails(ctx, row);
        return {
          status: created ? 201 : 200,
          body: { object: 'paystack_dedicated_account' as const, virtualAccountId: data.id, workspaceId: row.workspace_id, accountId: data.accountId, currency: 'NGN' as const, status: data.status, accountNumber: data.accountNumber ?? '', bankName: data.bankName ?? '', accountHolderName: data.accountHolderName, createdAt: data.createdAt },
        };
      });
    },
  );
}
