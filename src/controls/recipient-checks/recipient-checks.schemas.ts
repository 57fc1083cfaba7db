import { Type } from 'typebox';
import { literals, Nullable, Timestamp, Uuid } from '../../platform/lib/schemas.js';
import { RECIPIENT_CHECK_RESULTS, RECIPIENT_CHECK_STATUSES } from './recipient-checks.view.js';

const RESULT_TEXT = [
  "The rail's answer, or Corridor's comparison of the name the rail holds with the beneficiary's (tolerant of word order, case, accents and punctuation). Null while pending.",
  "`match`: the names agree; the payout proceeds. NIP name enquiry (Paystack, NGN): the holder's name NIBSS returns for the NUBAN and bank code compares as the beneficiary's. Confirmation of Payee (ClearBank, GBP): the payee's bank answered a full match.",
  "`close_match`: a small difference; `railName` is the rail's name, for the workspace to confirm or to correct the beneficiary. NIP: Corridor found the names close (a missing middle name, an initial, a typo). CoP: `MBAM` (the name is close; the bank returns the holder's name), `BANM`/`PANM` (the name matches but the account is a business/personal account, not the kind asked), `BAMM`/`PAMM` (both).",
  '`no_match`: the names differ; `railName` shows the holder\'s name where the rail gives it. NIP: the NIBSS name is another person\'s or business\'s. CoP: `ANNM` (the payee\'s bank gives no name back).',
  "`account_not_found`: the rail knows no such account; the payout cannot be confirmed, only cancelled. NIP: Paystack could not resolve the account number at the bank code (`reason` in Paystack's words). CoP: `AC01`, or the sort code and account number fail the UK modulus check before the bank is asked.",
  "`unavailable`: the check could not be made; the workspace decides whether to confirm. NIP: Paystack did not answer after every attempt (RECIPIENT_CHECK_ATTEMPTS_MAX). CoP: the payee's bank is not in Confirmation of Payee (422) or failed to answer (424), ClearBank did not answer, or the account cannot be checked (`OPTO` opted out, `ACNS` not a CoP account, `CASS` switched to another bank, `SCNS` sort code not served, `IVCR` roll number wrong or missing).",
].join(' ');

const REASON_TEXT =
  "The rail's code and words, or why the check could not be made. CoP (ClearBank): the code and its meaning (`MBAM: the name is close to the account holder's`). NIP name enquiry (Paystack): Paystack's message in words when the account was not resolved; null when it answered a name.";

export const RecipientCheckSchema = Type.Object(
  {
    status: literals(
      RECIPIENT_CHECK_STATUSES,
      '`pending`: the rail has not answered yet; `passed`: a match, the payout proceeded; `held`: anything but a match, the workspace confirms (POST /v1/payouts/{id}/recipient-check/confirm) or cancels the payout; `confirmed`: the workspace confirmed it (`decidedBy`, `decidedAt`); `withdrawn`: the payout was cancelled or failed before it proceeded.',
    ),
    result: Nullable(literals(RECIPIENT_CHECK_RESULTS, RESULT_TEXT)),
    name: Type.String({ description: "The name checked: the beneficiary's name as the workspace gave it" }),
    railName: Nullable(Type.String({ description: 'The name the rail holds for the account (or suggests, on a close match), when it gave one: the NUBAN\'s holder from NIP, the name the payee\'s bank returns in CoP' })),
    reason: Nullable(Type.String({ description: REASON_TEXT })),
    connector: Type.String({ description: 'The connector asked: `paystack` (NIP name enquiry), `clearbank` (Confirmation of Payee), `mobile-money` (account-name lookup)' }),
    checkedAt: Nullable(Type.String({ format: 'date-time', description: 'When the rail answered (or was given up on); null while pending' })),
    decidedBy: Nullable(Type.String({ description: 'Who decided a held check: `user:<id>` (dashboard), `client:<client id>` (API), or `system` (withdrawn)' })),
    decidedAt: Nullable(Type.String({ format: 'date-time', description: 'When the workspace confirmed the check, or the system withdrew it; null until decided' })),
  },
  {
    title: 'RecipientCheck',
    description: "The beneficiary's account and name checked with the rail before paying, present where the connector serving the payout's route offers it (Confirmation of Payee for GBP Faster Payments through ClearBank, NIBSS's NIP name enquiry for NGN transfers through Paystack, a mobile-money account-name lookup). A payout is not sent while its check is `pending` or `held`: a held payout waits, its funds held, until the workspace confirms it (POST /v1/payouts/{id}/recipient-check/confirm) or cancels it.",
    examples: [
      { status: 'held', result: 'close_match', name: 'Alan Turing', railName: 'Alan M Turing', reason: "MBAM: the name is close to the account holder's", connector: 'clearbank', checkedAt: '2026-03-03T09:15:02.000Z', decidedBy: null, decidedAt: null },
      { status: 'confirmed', result: 'no_match', name: 'Adaeze Okafor', railName: 'CHUKWUEMEKA OBI', reason: null, connector: 'paystack', checkedAt: '2026-03-03T09:15:02.000Z', decidedBy: 'client:4b0c2f1e', decidedAt: '2026-03-03T09:20:41.000Z' },
    ],
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
