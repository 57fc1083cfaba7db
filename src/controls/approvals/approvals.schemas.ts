import { Type } from 'typebox';
import { AMOUNT_PATTERN } from '../../platform/lib/money.js';
import { literals, Nullable, Page, PageQuery, Timestamp, Uuid } from '../../platform/lib/schemas.js';
import { APPROVAL_STATUSES, RULE_TYPES } from './approvals.repository.js';

const RULE_TYPE_TEXT =
  '`amount_over`: payouts in `currency` over `amount`; `new_beneficiary`: payouts to a beneficiary created less than `days` days ago (a beneficiary sent in full with the payout is new); `batch_over`: every payout of a batch request (an array) of more than `rows` rows; `every_payout`: every payout.';

export const ApprovalRuleSchema = Type.Object(
  {
    id: Uuid,
    type: literals(RULE_TYPES, RULE_TYPE_TEXT),
    currency: Type.Optional(Type.String({ description: '`amount_over`: the payout currency the threshold is in' })),
    amount: Type.Optional(Type.String({ description: '`amount_over`: payouts over this amount (not equal to it) need an approval' })),
    days: Type.Optional(Type.Integer({ description: '`new_beneficiary`: a beneficiary younger than this many days' })),
    rows: Type.Optional(Type.Integer({ description: '`batch_over`: a batch of more than this many rows' })),
    description: Nullable(Type.String()),
    createdBy: Type.String({ description: 'Who set the rule: a credential\'s client id, or `dashboard:<user id>`' }),
    createdAt: Timestamp,
  },
  { title: 'ApprovalRule' },
);

export const CreateApprovalRuleBody = Type.Object(
  {
    type: literals(RULE_TYPES, RULE_TYPE_TEXT),
    currency: Type.Optional(Type.String({ pattern: '^[A-Z]{3,10}$', description: 'Required with `amount_over`' })),
    amount: Type.Optional(Type.String({ pattern: AMOUNT_PATTERN, description: 'Required with `amount_over`: a decimal string in major units ("0" holds every payout in the currency)' })),
    days: Type.Optional(Type.Integer({ minimum: 1, maximum: 3650, description: 'Required with `new_beneficiary`' })),
    rows: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, description: 'Required with `batch_over`' })),
    description: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  },
  {
    title: 'ApprovalRuleRequest',
    additionalProperties: false,
    examples: [{ type: 'amount_over', currency: 'EUR', amount: '10000.00', description: 'Payouts over 10,000 EUR need a second person' }],
  },
);

export const ApprovalRulePage = Page('approval_rule.list', ApprovalRuleSchema);

/** The approval a payout waits for (or waited for): on the payout as `approval`, absent when no rule held it. */
export const ApprovalSchema = Type.Object(
  {
    status: literals(
      APPROVAL_STATUSES,
      '`pending` (the payout waits, `queued`, its funds held), `approved` (it proceeds), `rejected` (cancelled, funds returned), `expired` (not decided within the approval window: cancelled, funds returned), `withdrawn` (cancelled or moved otherwise while it waited)',
    ),
    rule: ApprovalRuleSchema,
    requestedBy: Type.String({ description: 'The payout\'s creator: a credential\'s client id, or `dashboard:<user id>`. Never its approver.' }),
    expiresAt: Timestamp,
    decidedBy: Nullable(Type.String({ description: 'Who decided: a credential\'s client id, `dashboard:<user id>`, or `system` (the approval window ended)' })),
    decidedAt: Nullable(Timestamp),
    reason: Nullable(Type.String()),
  },
  { title: 'PayoutApproval' },
);

const PayoutSummary = Type.Object(
  {
    id: Uuid,
    clientRef: Type.String(),
    amount: Type.String(),
    currency: Type.String(),
    status: Type.String(),
    beneficiaryId: Nullable(Uuid),
    accountId: Type.Optional(Uuid),
    createdAt: Timestamp,
  },
  { title: 'ApprovalPayout' },
);

export const ApprovalListItem = Type.Object({ ...ApprovalSchema.properties, payoutId: Uuid, createdAt: Timestamp, payout: PayoutSummary }, { title: 'Approval' });
export const ApprovalPage = Page('approval.list', ApprovalListItem);

export const ApprovalListQuery = Type.Object({
  ...PageQuery.properties,
  status: Type.Optional(literals(APPROVAL_STATUSES, 'Default `pending`: the payouts waiting for a decision')),
});

export const DecisionBody = Type.Object({ reason: Type.Optional(Type.String({ minLength: 1, maxLength: 500 })) }, { title: 'ApprovalDecision', additionalProperties: false });
