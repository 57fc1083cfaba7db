import { PayoutScreeningSchema } from '../../controls/screening/screening.schemas.js';
import { Type } from 'typebox';
import { Nullable, Page, Timestamp, Uuid } from '../../platform/lib/schemas.js';
import { AMOUNT_PATTERN } from '../../platform/lib/money.js';
import { PAYOUT_STATUSES } from './payouts.transitions.js';
import { ApprovalSchema } from '../../controls/approvals/approvals.schemas.js';
import { RecipientCheckSchema } from '../../controls/recipient-checks/recipient-checks.schemas.js';

export const ROUTES = ['sepa_inst', 'sepa_credit', 'bank_transfer', 'ach', 'fedwire', 'swift', 'crypto', 'mobile_money'] as const;

const Amount = Type.String({
  pattern: AMOUNT_PATTERN,
  description: 'Positive decimal string in major units, at most 8 decimals (and no more than the currency has)',
  'x-message': 'must be a positive decimal string such as "100.00"',
  examples: ['125.50'],
});

export const SenderInfoSchema = Type.Object(
  {
    type: Type.Union([Type.Literal('individual'), Type.Literal('business')]),
    firstName: Type.Optional(Type.String({ maxLength: 100 })),
    lastName: Type.Optional(Type.String({ maxLength: 100 })),
    dateOfBirth: Type.Optional(Type.String({ format: 'date' })),
    companyName: Type.Optional(Type.String({ maxLength: 200 })),
    registrationNumber: Type.Optional(Type.String({ maxLength: 100 })),
    address: Type.Optional(Type.String({ maxLength: 200 })),
    postalCode: Type.Optional(Type.String({ maxLength: 20 })),
    city: Type.Optional(Type.String({ maxLength: 100 })),
    country: Type.Optional(Type.String({ pattern: '^[A-Z]{2}$' })),
    phoneNumber: Type.Optional(Type.String({ maxLength: 20 })),
    fundOrigin: Type.Optional(Type.String({ maxLength: 50 })),
    gender: Type.Optional(Type.String({ maxLength: 10 })),
  },
  { title: 'SenderInfo', description: 'The originator. Keys outside the corridor lists are dropped from the stored identity, which is stored encrypted.' },
);

/** A bank's reject or return reason, as the rail sent it: an ISO 20022 code and its meaning. */
export const ReturnReasonSchema = Type.Object(
  {
    code: Type.String({ description: 'The ISO 20022 status reason (pain.002) or return reason (pacs.004, camt.054) code, e.g. `AC01`', examples: ['AC01'] }),
    description: Type.String({ description: 'What the code means, in words', examples: ['Incorrect account number'] }),
  },
  { title: 'ReturnReason', description: 'Why the bank rejected or returned the payout (bank connectors only); also in the payout\'s events' },
);

export const PayoutSchema = Type.Object(
  {
    id: Uuid,
    clientRef: Type.String(),
    amount: Type.String(),
    currency: Type.String(),
    status: Type.Union(PAYOUT_STATUSES.map((s) => Type.Literal(s))),
    route: Type.String({ description: 'The rail; `international` for EUR/GBP auto-routed payouts' }),
    fee: Type.String({ description: 'The fee held with the payout and returned with it on failure, cancellation or revert, in `feeCurrency`' }),
    feeCurrency: Type.String({ description: 'The currency the payout is funded from: its own currency, or the quote\'s fromCurrency for a quote-funded payout. The fee is the workspace\'s fee for that currency.' }),
    beneficiaryId: Nullable(Uuid),
    accountId: Type.Optional(Uuid),
    quoteId: Type.Optional(Uuid),
    purpose: Type.Optional(Type.String()),
    reference: Type.Optional(Type.String()),
    metadata: Type.Optional(Type.Record(Type.String(), Type.String())),
    failureReason: Nullable(Type.String({ description: 'The decline reason; readable only here, never in events' })),
    returnReason: Type.Optional(ReturnReasonSchema),
    uetr: Type.Optional(Type.String({ format: 'uuid', description: 'SWIFT payouts over a bank connector: the Unique End-to-end Transaction Reference the payment carries through every bank' })),
    txHash: Type.Optional(Type.String({ pattern: '^0x[0-9a-f]{64}$', description: 'On-chain payouts: the hash of the transaction that paid it' })),
    chain: Type.Optional(Type.String({ description: 'On-chain payouts: the chain it was paid on, as the operator names it' })),
    deliveredAmount: Type.Optional(Type.String({ description: "On-chain payouts: what the recipient's Transfer log says arrived, present only when it is less than `amount` (the token took a fee on transfer)" })),
    createdAt: Timestamp,
    updatedAt: Timestamp,
    completedAt: Nullable(Timestamp),
    approval: Type.Optional({ ...ApprovalSchema, description: 'Present when an approval rule of the workspace held the payout at creation (see POST /v1/approval-rules)' }),
    screening: Type.Optional(PayoutScreeningSchema),
    recipientCheck: Type.Optional(RecipientCheckSchema),
  },
  { title: 'Payout' },
);

export const PayoutRowError = Type.Object({ error: Type.String(), clientRef: Type.String() }, { title: 'PayoutRowError' });

export const PayoutPage = Page('payout.list', PayoutSchema);

export const PayoutListQuery = Type.Object({
  cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 512 })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })),
  clientRef: Type.Optional(Type.String({ maxLength: 100 })),
  status: Type.Optional(Type.Union(PAYOUT_STATUSES.map((s) => Type.Literal(s)))),
  createdFrom: Type.Optional(Type.String({ format: 'date-time' })),
  createdTo: Type.Optional(Type.String({ format: 'date-time' })),
});

export const PayoutBodySchema = (beneficiary: ReturnType<typeof Type.Object> | ReturnType<typeof Type.Union>) =>
  Type.Object(
    {
      clientRef: Type.String({ minLength: 1, maxLength: 100, description: 'Unique per payout in the workspace' }),
      amount: Amount,
      currency: Type.String({ pattern: '^[A-Z]{3,10}$' }),
      route: Type.Optional(Type.Union(ROUTES.map((r) => Type.Literal(r)), { description: 'Not needed for EUR and GBP (IBAN, routed automatically)' })),
      beneficiary,
      senderInfo: Type.Optional(SenderInfoSchema),
      quoteId: Type.Optional(Uuid),
      purpose: Type.Optional(Type.String({ maxLength: 100 })),
      reference: Type.Optional(Type.String({ maxLength: 140, description: 'Text to the recipient' })),
      metadata: Type.Optional(Type.Record(Type.String({ maxLength: 40 }), Type.String({ maxLength: 500 }), { maxProperties: 20 })),
    },
    {
      title: 'PayoutRequest',
      examples: [
        {
          clientRef: 'invoice-1042',
          amount: '25.00',
          currency: 'EUR',
          beneficiary: { id: '3f2b8c1e-7a4d-4e5f-9b6a-1c2d3e4f5a6b' },
          senderInfo: { type: 'individual', firstName: 'Grace', lastName: 'Hopper', country: 'DE' },
          reference: 'Invoice 1042',
        },
      ],
    },
  );

import { CreateBeneficiaryBody } from '../beneficiaries/beneficiaries.schemas.js';

/** One payout: `beneficiary` is `{id}` of a saved beneficiary, or a full beneficiary (saved as one). */
export const PayoutBody = PayoutBodySchema(CreateBeneficiaryBody);
export const PayoutRequest = Type.Union([PayoutBody, Type.Array(PayoutBody, { minItems: 1, maxItems: 100 })]);

/** The operator's view across workspaces: the payout and its workspace. */
export const OperatorPayoutPage = Page('payout.list', Type.Object({ ...PayoutSchema.properties, workspaceId: Type.Optional(Uuid) }, { title: 'OperatorPayout' }));

export const OperatorPayoutListQuery = Type.Object({
  ...PayoutListQuery.properties,
  provider: Type.Optional(Type.String({ minLength: 1, maxLength: 50, description: 'The connector processing it (docs/guides/connectors.md): `manual` is the queue of payouts the operator settles by hand' })),
  workspaceId: Type.Optional(Uuid),
});
