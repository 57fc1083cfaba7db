import type { FastifyInstance } from 'fastify';
import { Type, type Static } from 'typebox';
import type { AppContext } from '../../platform/context.js';
import { runIdempotent } from '../../platform/http/idempotency.js';
import { Uuid } from '../../platform/lib/schemas.js';
import { BalanceEntry } from '../../domains/ledger/ledger.schemas.js';
import { adjustBalance } from './operator.service.js';
import { OPERATOR_KEY_ROLE } from '../../domains/users/rights.js';

const AdjustBody = Type.Object({
  currency: Type.String({ pattern: '^[A-Z]{3,10}$' }),
  amount: Type.String({ pattern: '^-?(0|[1-9][0-9]*)(\\.[0-9]{1,8})?$', description: 'Signed decimal: positive credits the balance, negative debits it' }),
  reason: Type.String({ minLength: 3, maxLength: 500 }),
  accountId: Type.Optional(Uuid),
}, { examples: [{ currency: 'EUR', amount: '250.00', reason: 'Goodwill credit for support case 4711' }] });

export function operatorLedgerRoutes(app: FastifyInstance, ctx: AppContext): void {
  app.post<{ Params: { id: string }; Body: Static<typeof AdjustBody> }>(
    '/operator/v1/workspaces/:id/balances/adjust',
    {
      config: { auth: 'operator' },
      schema: {
        tags: ['Operator'],
        security: [{ operatorKey: [] }],
        summary: "Adjust a workspace's (or sub-account's) balance: a balanced transfer with the operator adjustments account; audited",
        params: Type.Object({ id: Uuid }),
        body: AdjustBody,
        response: { 201: BalanceEntry },
      },
    },
    async (req, reply) => runIdempotent(ctx, req, reply, async (tx) => ({ status: 201, body: await adjustBalance(tx, req.params.id, req.body, String(req.id), OPERATOR_KEY_ROLE) })),
  );
}
