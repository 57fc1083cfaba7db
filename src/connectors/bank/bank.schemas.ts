import { Type } from 'typebox';
import { literals, Nullable, Page, PageQuery, Timestamp, Uuid } from '../../platform/lib/schemas.js';

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

/** The files taken in from the bank (the inbound side), as the operator lists them. */
export const INBOUND_FILE_STATUSES = ['received', 'applying', 'processed', 'quarantined'] as const;

export const InboundFileSchema = Type.Object(
  {
    id: Uuid,
    name: Type.String(),
    sha256: Nullable(Type.String({ description: 'SHA-256 of the bytes, hex; null for a file quarantined from its size, never downloaded' })),
    bytes: Nullable(Type.Integer({ description: 'The size the bank\'s listing gave' })),
    messageType: Nullable(Type.String()),
    messageVersion: Nullable(Type.String()),
    messageId: Nullable(Type.String()),
    status: literals(INBOUND_FILE_STATUSES, 'received: recorded, being read; applying: read, its chunks being applied; processed; quarantined: not taken in, see reason'),
    reason: Nullable(Type.String({ description: 'Why a quarantined file could not be taken in' })),
    entries: Type.Integer(),
    exceptions: Type.Integer(),
    lastError: Nullable(Type.String({ description: 'Why the last attempt at a file still received or applying failed (retried at the next look)' })),
    receivedAt: Timestamp,
  },
  { title: 'Inbound bank file' },
);
export const InboundFilePage = Page('bank_inbound_file.list', InboundFileSchema);
export const InboundFileListQuery = Type.Object({ ...PageQuery.properties, status: Type.Optional(literals(INBOUND_FILE_STATUSES)) });
