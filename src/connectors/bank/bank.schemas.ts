import { Type } from 'typebox';
import { literals, Nullable, Page, Uuid } from '../../platform/lib/schemas.js';

export const BANK_FILE_STATUSES = ['recorded', 'delivered', 'invalid'] as const;

export const BankFileSchema = Type.Object(
  {
    id: Uuid,
    msgId: Type.String({ description: 'GrpHdr/MsgId: unique, never reused' }),
    fileName: Type.String({ description: 'The name it has (or will have) in the bank inbox' }),
    debtorAccount: Type.String({ description: 'The configured bank account debited (`bank.accounts[].id`)' }),
    scheme: literals(['sepa', 'swift'] as const),
    message: Type.String({ description: 'The ISO 20022 message and version, e.g. pain.001.001.09' }),
    status: literals(BANK_FILE_STATUSES, 'recorded: written and recorded, waiting for upload; delivered: in the bank inbox under its name; invalid: failed its XSD and never left'),
    payouts: Type.Integer({ description: 'NbOfTxs' }),
    controlSum: Type.String({ description: 'CtrlSum, the amounts added' }),
    sha256: Type.String({ description: 'SHA-256 of the file bytes, hex' }),
    bytes: Type.Integer(),
    validationError: Nullable(Type.String({ description: "The validator's message of an invalid file" })),
    lastError: Nullable(Type.String({ description: 'The last failed delivery attempt (host key mismatch, connection refused…); retried with backoff' })),
    lastErrorAt: Nullable(Type.String({ format: 'date-time' })),
    createdAt: Type.String({ format: 'date-time' }),
    deliveredAt: Nullable(Type.String({ format: 'date-time' })),
  },
  { title: 'Bank file (pain.001)' },
);

export const BankFilePage = Page('bank_file.list', BankFileSchema);

export const BankFileListQuery = Type.Object({
  cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 512 })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })),
  status: Type.Optional(literals(BANK_FILE_STATUSES)),
});

export const HeldPayoutSchema = Type.Object(
  {
    payoutId: Uuid,
    workspaceId: Uuid,
    route: Type.String({ description: 'The rail (sepa_credit, sepa_inst, swift)' }),
    debtorAccount: Nullable(Type.String()),
    amount: Type.String(),
    currency: Type.String(),
    fileId: Nullable(Uuid),
    reason: Type.String({ description: "Why it is held: the validator's message of its file, or what no file could carry" }),
    heldAt: Type.String({ format: 'date-time' }),
  },
  { title: 'Payout held by the bank connector' },
);

export const HeldPayoutPage = Page('bank_held_payout.list', HeldPayoutSchema);

export const HeldPayoutListQuery = Type.Object({
  cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 512 })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })),
});
