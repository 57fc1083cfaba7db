import { Type } from 'typebox';
import { literals, Nullable, Page, PageQuery, Timestamp, Uuid } from '../../platform/lib/schemas.js';
import { AMOUNT_PATTERN } from '../../platform/lib/money.js';
import { DEPOSIT_RAILS, DEPOSIT_STATUSES } from './deposits.transitions.js';


export const DepositSchema = Type.Object(
  {
    id: Uuid,
    clientRef: Type.String({ description: 'The payment\'s reference' }),
    amount: Type.String({ description: 'What the payer sent' }),
    serviceFee: Nullable(Type.String({ description: 'The operator-configured fee for the currency; null on a deposit that failed without a credit' })),
    creditedAmount: Nullable(Type.String({ description: 'amount - serviceFee: what the balance moves by; null on a deposit that failed without a credit' })),
    currency: Type.String(),
    status: literals(DEPOSIT_STATUSES),
    rail: literals(DEPOSIT_RAILS),
    virtualAccountId: Nullable(Uuid),
    accountId: Nullable(Uuid),
    failureReason: Nullable(Type.String()),
    createdAt: Timestamp,
    updatedAt: Timestamp,
    completedAt: Nullable(Timestamp),
    chain: Nullable(Type.String({ description: 'On a crypto deposit received on chain: the chain (the name the operator configured, e.g. `ethereum`); null otherwise' })),
    txHash: Nullable(Type.String({ description: 'On a crypto deposit received on chain: the transaction that paid it' })),
    fromAddress: Nullable(Type.String({ description: 'On a crypto deposit received on chain: the address that sent the tokens' })),
    blockNumber: Nullable(Type.String({ description: 'On a crypto deposit received on chain: the decimal number of the block it was credited from' })),
  },
  { title: 'Deposit', description: '`accountId` is the sub-account credited (null: the master account).' },
);

export const DepositPage = Page('deposit.list', DepositSchema);

export const DepositListQuery = Type.Object({
  ...PageQuery.properties,
  status: Type.Optional(literals(DEPOSIT_STATUSES)),
  virtualAccountId: Type.Optional(Uuid),
});

const depositFields = {
  virtualAccountId: Type.Optional(Uuid),
  currency: Type.Optional(Type.String({ pattern: '^[A-Z]{3,10}$', description: 'Without virtualAccountId: the owner\'s active account in this currency, or a rail without one (crypto, mpesa_stk_push)' })),
  amount: Type.String({ pattern: AMOUNT_PATTERN, description: 'Decimal string in major units', 'x-message': 'must be a positive decimal string such as "100.00"' }),
  rail: Type.Optional(literals(DEPOSIT_RAILS)),
  clientRef: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
  outcome: Type.Optional(literals(['completed', 'failed', 'in_review', 'pending', 'processing'] as const)),
};

export const SandboxDepositBody = Type.Object(depositFields, {
  title: 'SandboxDepositRequest',
  additionalProperties: false,
  examples: [{ currency: 'USDC', amount: '250.00', clientRef: 'deposit-1001' }],
});

export const OperatorDepositBody = Type.Object(
  {
    ...depositFields,
    workspaceId: Type.Optional(Uuid),
    accountId: Type.Optional(Uuid),
  },
  {
    title: 'OperatorDepositRequest',
    additionalProperties: false,
    description: 'virtualAccountId, or workspaceId (and accountId for a sub-account) with currency',
    examples: [{ workspaceId: '3f2b8c1e-7a4d-4e5f-9b6a-1c2d3e4f5a6b', currency: 'USDC', amount: '250.00', rail: 'crypto', clientRef: 'deposit-1002' }],
  },
);

export const DepositMoveBody = Type.Object({ reason: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })) }, { additionalProperties: false });

/** The operator's view across workspaces: the deposit and its workspace. */
export const OperatorDepositPage = Page('deposit.list', Type.Object({ ...DepositSchema.properties, workspaceId: Uuid }, { title: 'OperatorDeposit' }));

export const OperatorDepositListQuery = Type.Object({
  ...PageQuery.properties,
  status: Type.Optional(literals(DEPOSIT_STATUSES)),
  workspaceId: Type.Optional(Uuid),
});
