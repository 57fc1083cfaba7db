import type { FastifyInstance } from 'fastify';
import { Type, type Static } from 'typebox';
import type { AppContext } from '../../context.js';
import { fieldError } from '../../http/errors.js';
import { runIdempotent } from '../../http/idempotency.js';
import { currencyInfo } from '../../lib/currencies.js';
import { AMOUNT_PATTERN, parseAmount } from '../../lib/money.js';
import { getWorkspace } from '../accounts/accounts.service.js';
import { balanceEntry } from '../ledger/balances.service.js';
import { moveFromSystem } from '../ledger/funding.service.js';
import { balancesOf } from '../ledger/ledger.service.js';
import { BalanceEntry } from '../ledger/ledger.schemas.js';

const tags = ['Sandbox'];

const FundBody = Type.Object({
  currency: Type.String({ pattern: '^[A-Z]{3,10}$' }),
  amount: Type.String({ pattern: AMOUNT_PATTERN, description: 'Decimal string in major units', 'x-message': 'must be a positive decimal string such as "100.00"' }),
});

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
      if (!currencyInfo(currency)) throw fieldError('currency', `currency ${currency} is not supported`, 'UNSUPPORTED_CURRENCY');
      const workspace = await getWorkspace(ctx.db, req.auth.workspaceId);
      if (!workspace.enabled_currencies.includes(currency)) {
        throw fieldError('currency', `currency ${currency} is not enabled for this workspace`, 'CURRENCY_NOT_ENABLED');
      }
      const amountMinor = parseAmount(req.body.amount, currency, 'amount');
      return runIdempotent(ctx, req, reply, async (tx) => {
        await moveFromSystem(tx, {
          workspaceId: req.auth.workspaceId,
          accountId: req.auth.accountId,
          currency,
          amountMinor,
          system: 'sandbox_funding',
          reference: { type: 'funding' },
          description: 'Sandbox funding',
        });
        const entry = (await balancesOf(tx, req.auth.accountId)).find((b) => b.currency === currency);
        return { status: 201, body: entry && balanceEntry(entry, workspace.enabled_currencies) };
      });
    },
  );
}
