import { Type } from 'typebox';
import { Page, Timestamp, Uuid } from '../../platform/lib/schemas.js';

const Decimal = (description: string) => Type.String({ description: `${description}; decimal string in major units`, examples: ['1250.00'] });

export const BalanceEntry = Type.Object(
  {
    currency: Type.String(),
    balance: Decimal('Available: totalBalance minus pendingOut'),
    pendingIn: Decimal('Pending credits'),
    pendingOut: Decimal('Pending debits (holds)'),
    totalBalance: Decimal('Posted credits minus posted debits'),
    isActive: Type.Boolean({ description: 'The currency is enabled for the workspace' }),
    lastTransactionAt: Timestamp,
  },
  { title: 'BalanceEntry' },
);

export const BalancesResponse = Type.Object(
  {
    userId: Uuid,
    clientId: Uuid,
    balances: Type.Array(BalanceEntry),
    totalValueEur: Decimal('Sum of totalBalance at current mid rates, in EUR'),
    primaryCurrency: Type.String(),
    calculatedAt: Timestamp,
  },
  { title: 'LedgerBalances' },
);

export const LedgerTransaction = Type.Object(
  {
    id: Uuid,
    currency: Type.String(),
    amount: Decimal('Amount moved'),
    direction: Type.Union([Type.Literal('debit'), Type.Literal('credit')]),
    status: Type.Union([Type.Literal('posted'), Type.Literal('pending'), Type.Literal('voided')]),
    objectType: Type.String({ description: 'What caused it: payout, order, deposit, conversion, funding, adjustment' }),
    objectId: Type.Union([Type.String(), Type.Null()]),
    description: Type.Union([Type.String(), Type.Null()]),
    createdAt: Timestamp,
  },
  { title: 'LedgerTransaction' },
);

export const TransactionsQuery = Type.Object({
  cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 512 })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })),
  currency: Type.Optional(Type.String({ pattern: '^[A-Z]{3,10}$' })),
});

export const StatementQuery = Type.Object({
  currency: Type.String({ pattern: '^[A-Z]{3,10}$', description: 'The currency of the statement: one the workspace holds', examples: ['EUR'] }),
  from: Type.String({ format: 'date', description: 'The first day of the period (UTC)', examples: ['2026-01-01'] }),
  to: Type.String({ format: 'date', description: 'The last day of the period (UTC, included)', examples: ['2026-01-31'] }),
  format: Type.Optional(
    Type.Union([Type.Literal('csv'), Type.Literal('pdf')], {
      description: 'csv or pdf; without it, the Accept header chooses (application/pdf or text/csv, whichever it names first), and CSV when it names neither',
    }),
  ),
});

export const TransactionsPage = Page('ledger_transaction.list', LedgerTransaction);
