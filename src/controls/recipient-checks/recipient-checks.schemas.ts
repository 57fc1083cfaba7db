import { Type } from 'typebox';
import { literals, Nullable, Timestamp, Uuid } from '../../platform/lib/schemas.js';
import { RECIPIENT_CHECK_RESULTS, RECIPIENT_CHECK_STATUSES } from './recipient-checks.view.js';

const RESULT_TEXT =
  "The rail's answer, or Corridor's comparison of the name the rail holds with the beneficiary's (tolerant of word order, case, accents and punctuation): `match`; `close_match` (a small difference: a missing middle name, an initial, a typo; `railName` is the rail's name); `no_match`; `account_not_found` (the rail knows no such account: the payout can only be cancelled); `unavailable` (the rail could not answer after every attempt). Null while pending.";

export const RecipientCheckSchema = Type.Object(
  {
    status: literals(
      RECIPIENT_CHECK_STATUSES,
      '`pending`: the rail has not answered yet; `passed`: a match, the payout proceeded; `held`: anything but a match, the workspace confirms (POST /v1/payouts/{id}/recipient-check/confirm) or cancels the payout; `confirmed`: the workspace confirmed it (`decidedBy`, `decidedAt`); `withdrawn`: the payout was cancelled or failed before it proceeded.',
    ),
    result: Nullable(literals(RECIPIENT_CHECK_RESULTS, RESULT_TEXT)),
    name: Type.String({ description: "The name checked: the beneficiary's name as the workspace gave it" }),
    railName: Nullable(Type.String({ description: 'The name the rail holds for the account (or suggests, on a close match), when it gave one' })),
    reason: Nullable(Type.String({ description: "The rail's code or words, or why the check could not be made" })),
    connector: Type.String({ description: 'The connector asked' }),
    checkedAt: Nullable(Timestamp),
    decidedBy: Nullable(Type.String({ description: 'Who decided a held check: `user:<id>` (dashboard), `client:<client id>` (API), or `system` (withdrawn)' })),
    decidedAt: Nullable(Timestamp),
  },
  {
    title: 'RecipientCheck',
    description: "The beneficiary's account and name checked with the rail before paying, present where the connector serving the payout's route offers it (Confirmation of Payee, a NIP name enquiry, a mobile-money account-name lookup). A payout is not sent while its check is `pending` or `held`.",
  },
);

export const BeneficiaryCheckBody = Type.Object(
  {
    currency: Type.String({ pattern: '^[A-Z]{3,10}$', description: 'The payout currency: the account paid in it is checked' }),
    route: Type.Optional(Type.String({ description: 'The rail asked for; absent: as a payout would route it' })),
  },
  { title: 'BeneficiaryRecipientCheckRequest', additionalProperties: false, examples: [{ currency: 'NGN' }] },
);

export const BeneficiaryCheckSchema = Type.Object(
  {
    beneficiaryId: Uuid,
    currency: Type.String(),
    route: Type.String({ description: 'The catalog rail the check went by' }),
    connector: Type.String({ description: 'The connector asked' }),
    result: literals(RECIPIENT_CHECK_RESULTS, RESULT_TEXT),
    name: Type.String({ description: "The beneficiary's name, as checked" }),
    railName: Nullable(Type.String({ description: 'The name the rail holds for the account (or suggests), when it gave one' })),
    reason: Nullable(Type.String()),
    checkedAt: Timestamp,
  },
  { title: 'BeneficiaryRecipientCheck' },
);
