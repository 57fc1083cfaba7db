import { Type } from 'typebox';
import { literals, Nullable, Page, PageQuery, Timestamp, Uuid } from '../../platform/lib/schemas.js';

const Day = Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$', description: 'A day, YYYY-MM-DD' });
const Money = (description: string) => Type.String({ description });

const Movement = Type.Object(
  {
    id: Uuid,
    kind: literals(['payout', 'deposit', 'return'] as const),
    direction: literals(['debit', 'credit'] as const),
    amount: Type.String(),
    currency: Type.String(),
    bookingDate: Nullable(Type.String()),
    entryRef: Nullable(Type.String()),
    endToEndId: Nullable(Type.String()),
    object: Type.Object({ type: literals(['payout', 'deposit', 'ach_file'] as const), id: Uuid }, { description: 'The payout or deposit the movement posted, or the NACHA file whose batches the ODFI settles (an ACH file\'s settlement debit)' }),
    charges: Nullable(Type.String({ description: "The charges the banks took from a return (the operator's bank fee, posted to the ledger's bank_fees account); the amount is what the bank booked, net of them" })),
  },
  { title: 'Bank movement', description: "A money movement on a bank account in Corridor's book, posted from a bank message with its ledger postings" },
);

export const StatementSchema = Type.Object(
  {
    id: Uuid,
    bankAccount: Type.String({ description: 'The bank account of the connection ("bank".accounts[].id)' }),
    statementId: Type.String({ description: "The bank's statement id" }),
    iban: Nullable(Type.String()),
    currency: Type.String(),
    date: Type.String(),
    openingBalance: Money('Opening booked balance (OPBD), as the bank states it; negative when overdrawn'),
    closingBalance: Money('Closing booked balance (CLBD), as the bank states it'),
    corridorClosingBalance: Money("Corridor's view: the opening balance plus the movements Corridor booked on the account that day"),
    difference: Money('closingBalance - corridorClosingBalance: 0 when the day reconciles'),
    lines: Type.Object({ total: Type.Integer(), matched: Type.Integer(), unmatched: Type.Integer(), ignored: Type.Integer() }),
    movementsNotOnStatement: Type.Array(Movement, { description: 'Movements Corridor booked that day which no line of the statement matched' }),
    createdAt: Timestamp,
  },
  { title: 'Bank statement (camt.053)' },
);

export const StatementPage = Page('bank_statement.list', StatementSchema);

export const StatementListQuery = Type.Object({ ...PageQuery.properties, bankAccount: Type.Optional(Type.String({ maxLength: 100 })), date: Type.Optional(Day) });

export const LineSchema = Type.Object(
  {
    id: Uuid,
    statementId: Uuid,
    seq: Type.Integer(),
    status: literals(['matched', 'unmatched', 'ignored'] as const),
    direction: literals(['debit', 'credit'] as const),
    amount: Type.String(),
    currency: Type.String(),
    bookingDate: Nullable(Type.String()),
    entryRef: Nullable(Type.String({ description: "The bank's reference of the entry (AcctSvcrRef)" })),
    endToEndId: Nullable(Type.String()),
    bankTransactionCode: Nullable(Type.String()),
    description: Nullable(Type.String()),
    matched: Nullable(Movement),
    reason: Nullable(Type.String({ description: 'Why an operator ignored the line' })),
    decidedBy: Nullable(Type.String()),
    decidedAt: Nullable(Timestamp),
  },
  { title: 'Bank statement line' },
);

export const LineList = Type.Object({ object: Type.Literal('bank_statement_line.list'), data: Type.Array(LineSchema) });

export const MatchBody = Type.Object({ movementId: Uuid });
export const IgnoreBody = Type.Object({ reason: Type.String({ minLength: 3, maxLength: 500 }) }, { examples: [{ reason: 'Account fee, booked to bank charges' }] });
export const ResolveBody = Type.Object({ resolution: Type.String({ minLength: 3, maxLength: 500, description: 'What was done about it' }) }, { examples: [{ resolution: 'Asked the bank to recall the payment' }] });

export const ExceptionSchema = Type.Object(
  {
    id: Uuid,
    status: literals(['open', 'resolved'] as const),
    code: Type.String({ description: 'unknown_end_to_end_id, amount_mismatch, currency_mismatch, unknown_virtual_account, unknown_bank_account, payout_state, duplicate_entry, block_rejected, ...' }),
    reason: Type.String(),
    messageType: Type.String(),
    fileId: Uuid,
    bankAccount: Nullable(Type.String()),
    entryRef: Nullable(Type.String()),
    endToEndId: Nullable(Type.String()),
    direction: Nullable(literals(['debit', 'credit'] as const)),
    amount: Nullable(Type.String()),
    currency: Nullable(Type.String()),
    bookingDate: Nullable(Type.String()),
    resolution: Nullable(Type.String()),
    resolvedBy: Nullable(Type.String()),
    resolvedAt: Nullable(Timestamp),
    createdAt: Timestamp,
  },
  { title: 'Bank exception', description: 'An inbound entry that matched nothing: nothing was posted for it' },
);

export const ExceptionPage = Page('bank_exception.list', ExceptionSchema);
export const ExceptionListQuery = Type.Object({ ...PageQuery.properties, status: Type.Optional(literals(['open', 'resolved'] as const)), bankAccount: Type.Optional(Type.String({ maxLength: 100 })) });
