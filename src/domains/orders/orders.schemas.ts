import { Type } from 'typebox';
import { literals, Nullable, Page, Timestamp, Uuid } from '../../platform/lib/schemas.js';
import { AMOUNT_PATTERN, RATE_PATTERN } from '../../platform/lib/money.js';
import { UPLOAD_CONTENT_TYPES } from '../../platform/storage/uploads.service.js';
import { ORDER_STATUSES, SETTLEMENT_STATUSES } from './orders.transitions.js';

const CurrencyCode = (description: string) =>
  Type.String({ pattern: '^[A-Z]{3,10}$', description, 'x-message': 'must be a currency code such as "EUR"' });

const Amount = (description: string) =>
  Type.String({
    pattern: AMOUNT_PATTERN,
    description: `${description}; decimal string in major units, at most the currency's decimals (a JSON number is refused)`,
    examples: ['250000.00'],
    'x-message': 'must be a positive decimal string such as "100.00"',
  });


export const CreateOrderBody = Type.Object(
  {
    clientRef: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'Your reference; unique per order in the workspace' })),
    fromCurrency: CurrencyCode('Currency sold (the source debited)'),
    toCurrency: CurrencyCode('Currency bought (delivered)'),
    fromAmount: Type.Optional(Amount('Amount sold; give exactly one of fromAmount and toAmount')),
    toAmount: Type.Optional(Amount('Amount delivered; give exactly one of fromAmount and toAmount')),
    beneficiary: Type.Optional(Type.Object({ id: Uuid }, { description: 'A saved beneficiary with an account in toCurrency; absent: delivered to your own balance' })),
    funding: Type.Optional(
      literals(['balance', 'settlement'] as const, 'balance: held from the available balance now (422 INSUFFICIENT_BALANCE when it cannot cover fromAmount); settlement: paid in by transfer. Absent: balance when it covers, else settlement'),
    ),
  },
  { title: 'OrderRequest', examples: [{ clientRef: 'order-2001', fromCurrency: 'USD', toCurrency: 'EUR', fromAmount: '100.00', funding: 'balance' }] },
);

export const SettlementSchema = Type.Object(
  {
    settlementId: Uuid,
    method: literals(['bank_transfer', 'crypto'] as const),
    requiredAmount: Type.String({ description: 'To pay in, in `currency` (the order\'s fromAmount)' }),
    currency: Type.String(),
    reference: Type.String({ description: 'Quote it with the transfer' }),
    status: literals(SETTLEMENT_STATUSES, 'pending, proof_submitted, received (also when funds arrive after the order expired or was cancelled: credited to the balance), expired, cancelled'),
    instructions: Type.Record(Type.String(), Type.String(), { description: 'Bank details (accountHolderName, bankName, iban/bic or accountNumber and routing details) or a deposit address (network, address)' }),
    expiresAt: Timestamp,
    requirements: Type.Object({ proofOfPayment: Type.Boolean({ description: 'true for a bank-transfer settlement: upload a proof (…/settlement/proof-upload-url, PUT, …/settlement/proof); false for crypto' }) }),
  },
  { title: 'Settlement' },
);

export const OrderSchema = Type.Object(
  {
    id: Uuid,
    clientRef: Nullable(Type.String()),
    status: literals(ORDER_STATUSES),
    fromCurrency: Type.String(),
    toCurrency: Type.String(),
    fromAmount: Type.String({ description: 'Total source debit' }),
    toAmount: Type.String({ description: 'Delivered; priced at creation, final at completion (the desk may deliver a different amount)' }),
    rate: Type.String({ pattern: RATE_PATTERN, description: 'fromCurrency per 1 toCurrency, all-in; priced from the FX rate source at creation, the desk\'s final rate at completion' }),
    failureReason: Nullable(literals(['execution_failed', 'review_expired'] as const)),
    uetr: Nullable(Type.String({ description: 'Outbound wire reference (SWIFT UETR) of a wire delivery to a beneficiary' })),
    settlement: Nullable(SettlementSchema),
    fundingDeadlineAt: Timestamp,
    executionDeadlineAt: Nullable(Timestamp),
    fundedAt: Nullable(Timestamp),
    completedAt: Nullable(Timestamp),
    createdAt: Timestamp,
    funding: literals(['balance', 'settlement'] as const),
    beneficiaryId: Nullable(Uuid),
    accountId: Type.Optional(Uuid),
    updatedAt: Timestamp,
  },
  { title: 'Order' },
);

export const OrderPage = Page('order.list', OrderSchema);

export const OrderListQuery = Type.Object({
  cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 512 })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })),
  status: Type.Optional(literals(ORDER_STATUSES)),
  clientRef: Type.Optional(Type.String({ maxLength: 100 })),
});

export const OperatorOrderListQuery = Type.Object({
  cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 512 })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })),
  status: Type.Optional(literals(ORDER_STATUSES)),
  workspaceId: Type.Optional(Uuid),
});

export const ProofUploadBody = Type.Object({
  contentLength: Type.Integer({ minimum: 1, description: 'Size of the file in bytes (at most UPLOAD_BYTES_MAX, default 10 MiB); the upload must be exactly this size' }),
  contentType: literals(UPLOAD_CONTENT_TYPES, 'The type of the file (PDF, JPEG or PNG); the bytes must be of this type'),
});

export const ProofUploadSchema = Type.Object(
  { proofKey: Type.String(), uploadUrl: Type.String({ format: 'uri' }), expiresAt: Timestamp },
  { title: 'ProofUpload' },
);

export const ProofBody = Type.Object({ proofKey: Type.String({ 'x-sample-variable': 'PROOF_KEY', minLength: 1, maxLength: 100 }) });

export const CompleteBody = Type.Object(
  {
    toAmount: Type.Optional(Amount('Delivered amount in toCurrency; with rate, or neither (the amounts priced at creation)')),
    rate: Type.Optional(Type.String({ pattern: RATE_PATTERN, description: 'Final rate, fromCurrency per 1 toCurrency, all-in', 'x-message': 'must be a positive decimal string such as "0.92"' })),
    uetr: Type.Optional(Type.String({ format: 'uuid', description: 'UETR of the outbound wire; generated when absent on a wire delivery to a beneficiary; refused on other deliveries' })),
  },
  { examples: [{}] },
);
