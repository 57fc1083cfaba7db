import type { FastifyInstance } from 'fastify';
import { Type, type Static } from 'typebox';
import type { AppContext } from '../../context.js';
import { fieldError, notFound } from '../../http/errors.js';
import { Uuid } from '../../http/schemas.js';
import { currencyInfo } from '../../lib/currencies.js';
import { parseSignedAmount } from '../../lib/money.js';
import { getWorkspace } from '../accounts/accounts.service.js';
import { findAccount } from '../accounts/accounts.repository.js';
import { balanceEntry } from '../ledger/balances.service.js';
import { moveFromSystem } from '../ledger/funding.service.js';
import { balancesOf } from '../ledger/ledger.service.js';
import { BalanceEntry } from '../ledger/ledger.schemas.js';

const AdjustBody = Type.Object({
  currency: Type.String({ pattern: '^[A-Z]{3,10}$' }),
  amount: Type.String({ pattern: '^-?(0|[1-9][0-9]*)(\\.[0-9]{1,8})?$', description: 'Signed decimal: positive credits the balance, negative debits it' }),
  reason: Type.String({ minLength: 3, maxLength: 500 }),
  accountId: Type.Optional(Uuid),
});

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
    async (req, reply) => {
      const { currency, reason } = req.body;
      if (!currencyInfo(currency)) throw fieldError('currency', `currency ${currency} is not supported`, 'UNSUPPORTED_CURRENCY');
      const amountMinor = parseSignedAmount(req.body.amount, currency, 'amount');
      const workspace = await getWorkspace(ctx.db, req.params.id);
      const accountId = req.body.accountId ?? workspace.id;
      const entry = await ctx.db.tx(async (tx) => {
        if (!(await findAccount(tx, workspace.id, accountId))) throw notFound('Account');
        await moveFromSystem(tx, {
          workspaceId: workspace.id,
          accountId,
          currency,
          amountMinor,
          system: 'operator_adjustments',
          reference: { type: 'adjustment', id: String(req.id) },
          description: reason,
        });
        return (await balancesOf(tx, accountId)).find((b) => b.currency === currency);
      });
      return reply.code(201).send(entry && balanceEntry(entry, workspace.enabled_currencies));
    },
  );
}
