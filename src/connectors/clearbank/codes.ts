import type { RailReason, ReasonActor } from '../connector.js';

/**
 * ClearBank's reasons as data, each with its words and who must act (src/connectors/connector.ts):
 *
 * - the per-payment answers of `POST /v3/payments/fps` (`PaymentInstructionResponse.response`, FPS
 *   Initiation API 3.0: a batch is accepted in part, each payment with its own answer);
 * - the `CancellationCode` of a `TransactionRejected` webhook (ISO 20022 codes and ClearBank's own
 *   `CB_` codes), which also names why the payee's bank returned a payment;
 * - Pay.UK's Confirmation of Payee reason codes in `VerificationReport.ReasonCode`.
 */

const r = (code: string, words: string, actor: ReasonActor): RailReason => ({ code, words, actor });

/** The answers a batch gives per payment (anything but `Accepted` refuses that payment only). */
export const BATCH_ANSWERS: readonly RailReason[] = [
  r('InsufficientFunds', "the operator's ClearBank account does not hold enough to pay it", 'operator'),
  r('InvalidAccount', 'the payee\'s sort code and account number are not a reachable account', 'beneficiary'),
  r('InvalidCurrency', 'Faster Payments carry GBP only', 'operator'),
  r('Rejected', 'ClearBank rejected the payment (its checks of the instruction or of the payee)', 'operator'),
  r('DebitPaymentDisabled', "payments out of the operator's ClearBank account are disabled", 'operator'),
  r('InvalidInstructionIdentification', 'the instruction identification was refused (already used, or malformed)', 'operator'),
];

/** A rejection's or a return's cancellation code. */
export const CANCELLATION_CODES: readonly RailReason[] = [
  r('AC01', 'the account number is incorrect', 'beneficiary'),
  r('AC03', 'the creditor account number is invalid', 'beneficiary'),
  r('AC04', "the payee's account is closed", 'beneficiary'),
  r('AC05', "the operator's account is closed", 'operator'),
  r('AC06', "the payee's account is blocked", 'beneficiary'),
  r('AC07', "the payee's account is closed", 'beneficiary'),
  r('AC09', 'the account currency is not GBP', 'beneficiary'),
  r('AC12', 'the account type does not take this payment', 'beneficiary'),
  r('AG01', 'the account does not allow this transaction', 'beneficiary'),
  r('AG02', 'the payment type is not valid for the payee\'s bank', 'operator'),
  r('AG03', 'the payee\'s account does not take this kind of payment', 'beneficiary'),
  r('AM09', 'the amount is not the one agreed', 'workspace'),
  r('BE08', 'the payee\'s name or details are missing', 'workspace'),
  r('BE09', 'the payee\'s country is not valid', 'workspace'),
  r('MD07', 'the account holder has died', 'beneficiary'),
  r('MS02', 'the payee refused it (reason not given)', 'beneficiary'),
  r('MS03', "the payee's bank refused it (reason not given)", 'beneficiary'),
  r('RR04', 'regulatory reason', 'operator'),
  r('FOCR', 'returned after a cancellation request', 'workspace'),
  r('CUST', 'returned at the payer\'s request', 'workspace'),
  r('DUPL', 'a duplicate payment', 'operator'),
  r('CB_AccountNameInvalid', "the payee's name does not match the account number", 'beneficiary'),
  r('CB_AccountNameAndNumberMismatch', "the payee's name and account number do not match", 'beneficiary'),
  r('CB_AccountSwitched', 'the account has moved to another bank (Current Account Switch)', 'beneficiary'),
  r('CB_FailedModulusCheck', 'the sort code and account number fail the modulus check', 'beneficiary'),
  r('CB_CancelledCreditAccountDisabled', "the payee's account is disabled", 'beneficiary'),
  r('CB_CancelledDebitAccountDisabled', "the operator's ClearBank account is disabled", 'operator'),
  r('CB_InstructionHasExpired', 'the instruction expired before it could be made', 'operator'),
  r('CB_PaymentBeneficiaryNameMissing', "the payee's name is missing", 'workspace'),
  r('CB_PaymentReferenceMissing', 'the payment reference the payee\'s bank requires is missing', 'workspace'),
  r('CB_PaymentReferenceIncorrect', 'the payment reference is not the one the payee\'s bank requires', 'workspace'),
  r('CB_AccountHoldersBankrupt', 'the account holder is bankrupt', 'beneficiary'),
  r('CB_InstructionCancelled', 'ClearBank cancelled the instruction', 'operator'),
  r('CUTO', "the payee's bank is past its cut-off", 'operator'),
  r('OTHR', 'another reason, not given by the bank', 'operator'),
];

/** Pay.UK's Confirmation of Payee reason codes. */
export const COP_REASONS: readonly RailReason[] = [
  r('ANNM', 'the name does not match the account holder', 'workspace'),
  r('MBAM', 'the name is close to the account holder\'s', 'workspace'),
  r('BANM', 'the name matches, but the account is a business account', 'workspace'),
  r('PANM', 'the name matches, but the account is a personal account', 'workspace'),
  r('BAMM', 'the name is close, and the account is a business account', 'workspace'),
  r('PAMM', 'the name is close, and the account is a personal account', 'workspace'),
  r('AC01', 'no account with this sort code and account number', 'beneficiary'),
  r('IVCR', 'the secondary reference (roll number) is wrong or missing', 'beneficiary'),
  r('ACNS', 'the account does not take Confirmation of Payee checks', 'beneficiary'),
  r('OPTO', 'the account holder opted out of Confirmation of Payee', 'beneficiary'),
  r('CASS', 'the account has moved to another bank (Current Account Switch)', 'beneficiary'),
  r('SCNS', 'the sort code is not served by Confirmation of Payee', 'beneficiary'),
];

export const CLEARBANK_REASONS: readonly RailReason[] = [...BATCH_ANSWERS, ...CANCELLATION_CODES, ...COP_REASONS];

/** A code's words and actor; an unknown code keeps its text and goes to the operator. */
export function reasonOf(code: string, list: readonly RailReason[] = CLEARBANK_REASONS, text?: string): RailReason {
  return list.find((c) => c.code === code) ?? { code, words: text && text.trim() !== '' ? text : `ClearBank gave code ${code}`, actor: 'operator' };
}

const ACTOR_WORDS: Record<ReasonActor, string> = {
  beneficiary: "the workspace corrects the beneficiary's details",
  workspace: 'the workspace',
  operator: 'the operator',
};

/** The payout's failure reason in words: what happened, the code and its words, and who must act. */
export function failureWords(what: string, reason: RailReason): string {
  return `${what}: ${reason.code} ${reason.words}. Who must act: ${ACTOR_WORDS[reason.actor]}`;
}
