import { Type } from 'typebox';
import { Nullable, Page, PageQuery, Timestamp, Uuid } from '../../platform/lib/schemas.js';
import { VIRTUAL_ACCOUNT_CURRENCIES } from '../../connectors/issuers.js';
import { VIRTUAL_ACCOUNT_STATUSES } from './virtual-accounts.transitions.js';

const Currency = Type.String({ pattern: '^[A-Z]{3,10}$', description: `One of ${VIRTUAL_ACCOUNT_CURRENCIES.join(', ')}, enabled for the workspace` });

export const VirtualAccountRequest = Type.Object({ currency: Currency }, { title: 'VirtualAccountRequest', additionalProperties: false });

const accountFields = {
  id: Uuid,
  accountId: Nullable(Uuid),
  currency: Type.String(),
  status: Type.Union(VIRTUAL_ACCOUNT_STATUSES.map((s) => Type.Literal(s))),
  deactivated: Type.Boolean({ description: 'Deactivated accounts take no deposits and leave the list; only support can issue the currency again' }),
  failureReason: Nullable(Type.String({ description: 'Why the issuer refused a pending account (status failed)' })),
  createdAt: Timestamp,
  updatedAt: Timestamp,
};

export const VirtualAccountSchema = Type.Object(
  accountFields,
  {
    title: 'VirtualAccount',
    description: '`accountId` is the sub-account that owns it (null: the master account). Bank details are never here: read them from GET /v1/virtual-accounts.',
  },
);

export const BankDetailsFields = {
  iban: Type.Optional(Type.String({ maxLength: 34 })),
  bic: Type.Optional(Type.String({ maxLength: 11 })),
  accountNumber: Type.Optional(Type.String({ maxLength: 34 })),
  bankName: Type.Optional(Type.String({ maxLength: 140 })),
  bankCode: Type.Optional(Type.String({ maxLength: 20 })),
  accountHolderName: Type.String({ minLength: 1, maxLength: 140 }),
};

/** A deposit address of a USDC or USDT account on chain. */
const DepositAddress = Type.Object(
  {
    chain: Type.String({ description: 'The configured chain, e.g. `ethereum`, `polygon`' }),
    network: Type.String({ description: 'The network, as beneficiaries name it (`ethereum`, `polygon`…)' }),
    address: Type.String({ pattern: '^0x[0-9a-fA-F]{40}$', description: 'The address to send the token to (checksummed); only that token is credited' }),
  },
  { title: 'DepositAddress' },
);

export const VirtualAccountWithDetails = Type.Object(
  {
    ...accountFields,
    ...BankDetailsFields,
    addresses: Type.Optional(Type.Array(DepositAddress, { description: 'USDC and USDT accounts on chain (when the operator connected a chain): the deposit address on each chain that takes the token; a transfer is credited after the chain\'s confirmations' })),
  },
  {
    title: 'VirtualAccountWithDetails',
    description: 'An active account with its bank details: IBAN and BIC (EUR, GBP), or account number, bank name and bank code, and the holder name; for USDC and USDT on chain, the deposit addresses.',
  },
);

export const VirtualAccountPage = Page('virtual_account.list', VirtualAccountWithDetails);

export const VirtualAccountListQuery = Type.Object({ ...PageQuery.properties, currency: Type.Optional(Currency) });

export const RequirementsQuery = Type.Object({ currency: Currency });

export const RequirementsSchema = Type.Object(
  {
    currency: Type.String(),
    termsVersion: Type.String({ description: 'The current terms version (GET /v2/terms)' }),
    applicationApproved: Type.Boolean({ description: 'Whether the account acted on has an approved application' }),
    outstanding: Type.Array(
      Type.Object({ type: Type.Union([Type.Literal('document'), Type.Literal('terms')]), name: Type.String({ description: 'A document type, or `terms_of_service`' }) }),
      { description: 'Empty when a request can reach the issuer' },
    ),
  },
  { title: 'VirtualAccountRequirements' },
);

export const MoveBody = Type.Object(
  {
    reason: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'fail: the refusal reason (failureReason)' })),
    details: Type.Optional(Type.Object(BankDetailsFields, { additionalProperties: false, description: 'approve: the details the bank issued (generated when absent)' })),
  },
  { additionalProperties: false },
);

/** The operator's view across workspaces: the account (no bank details) and its workspace. */
export const OperatorVirtualAccountPage = Page('virtual_account.list', Type.Object({ ...accountFields, workspaceId: Uuid }, { title: 'OperatorVirtualAccount' }));

export const OperatorVirtualAccountListQuery = Type.Object({
  ...PageQuery.properties,
  status: Type.Optional(Type.Union(VIRTUAL_ACCOUNT_STATUSES.map((s) => Type.Literal(s)), { description: '`pending`: the accounts waiting for the operator to approve or refuse' })),
  workspaceId: Type.Optional(Uuid),
});
