import type { FastifyInstance } from 'fastify';
import { Type, type Static } from 'typebox';
import type { AppContext } from '../../platform/context.js';
import { runIdempotent } from '../../platform/http/idempotency.js';
import { AMOUNT_PATTERN } from '../../platform/lib/money.js';
import { getWorkspace } from '../accounts/accounts.service.js';
import { BalanceEntry } from '../ledger/ledger.schemas.js';
import { fundBalance, fundingAmount } from './sandbox.service.js';

const tags = ['Sandbox'];

const FundBody = Type.Object(
  {
    currency: Type.String({ pattern: '^[A-Z]{3,10}$' }),
    amount: Type.String({ pattern: AMOUNT_PATTERN, description: 'Decimal string in major units', 'x-message': 'must be a positive decimal string such as "100.00"' }),
  },
  { examples: [{ currency: 'EUR', amount: '1000.00' }] },
);

/** Simulation endpoints: registered only in the sandbox, so they answer 404 in production. */
export function sandboxRoutes(app: FastifyInstance, ctx: AppContext): void {
  if (ctx.config.env !== 'sandbox') return;

  app.post<{ Body: Static<typeof FundBody> }>(
    '/v1/sandbox/balances/fund',
    {
      config: { auth: 'workspace', scope: 'write:balances' },
      schema: {
        tags,
        summary: 'Add test money to the balance of the account acted on (sandbox only)',
        body: FundBody,
        response: { 201: BalanceEntry },
      },
    },
    async (req, reply) => {
      const { currency } = req.body;
      const enabled = (await getWorkspace(ctx.db, req.auth.workspaceId)).enabled_currencies;
      const amountMinor = fundingAmount(currency, req.body.amount, enabled);
      return runIdempotent(ctx, req, reply, async (tx) => ({
        status: 201,
        body: await fundBalance(tx, { workspaceId: req.auth.workspaceId, accountId: req.auth.accountId, currency, amountMinor }, enabled),
      }));
    },
  );
}
