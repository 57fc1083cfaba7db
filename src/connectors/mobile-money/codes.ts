import type { RailReason, ReasonActor } from '../connector.js';

/**
 * The GSMA Mobile Money API's harmonised error codes (v1.2.0, `errorObject.errorCode`) as data: each
 * with its words and who must act. `beneficiary`: the recipient's wallet cannot take the money (it
 * is unknown, at its limits); `workspace`: the request itself (its amount, its currency, its sender
 * data); `operator`: Corridor's account, credentials or the provider's own fault. Where a code could
 * be either party's, the words say what is known and the operator looks first.
 */
const r = (code: string, words: string, actor: ReasonActor): RailReason => ({ code, words, actor });

export const MOBILE_MONEY_REASONS: readonly RailReason[] = [
  r('genericError', 'the provider refused the transaction without a specific reason', 'operator'),
  r('dailyVolumeLimitExceeded', 'the recipient\'s wallet has reached its daily number of transactions', 'beneficiary'),
  r('dailyValueLimitExceeded', 'the recipient\'s wallet has reached its daily amount limit', 'beneficiary'),
  r('weeklyVolumeLimitExceeded', 'the recipient\'s wallet has reached its weekly number of transactions', 'beneficiary'),
  r('weeklyValueLimitExceeded', 'the recipient\'s wallet has reached its weekly amount limit', 'beneficiary'),
  r('monthlyVolumeLimitExceeded', 'the recipient\'s wallet has reached its monthly number of transactions', 'beneficiary'),
  r('monthlyValueLimitExceeded', 'the recipient\'s wallet has reached its monthly amount limit', 'beneficiary'),
  r('accountMaxTotalVolumeExceeded', 'the recipient\'s wallet has reached its total number of transactions', 'beneficiary'),
  r('accountMaxTotalValueExceeded', 'the recipient\'s wallet has reached its total amount limit', 'beneficiary'),
  r('lessThanTransactionMinValue', 'the amount is below the provider\'s minimum for one transaction', 'workspace'),
  r('greaterThanTransactionMaxValue', 'the amount is above the provider\'s maximum for one transaction', 'workspace'),
  r('maxBalanceExceeded', 'the recipient\'s wallet would exceed its maximum balance', 'beneficiary'),
  r('samePartiesError', 'the payer and the recipient are the same wallet', 'workspace'),
  r('duplicateRequest', 'the provider already has a request with this correlation id', 'operator'),
  r('insufficientFunds', 'the disbursement account at the provider has insufficient funds', 'operator'),
  r('incorrectState', 'the account or transaction is not in a state that allows this', 'operator'),
  r('underPaymentNotAllowed', 'the amount is less than the provider requires', 'workspace'),
  r('overPaymentNotAllowed', 'the amount is more than the provider allows', 'workspace'),
  r('rateLimitError', 'the provider limited the rate of requests', 'operator'),
  r('transactionTypeError', 'the provider does not allow this transaction type for this account', 'operator'),
  r('noMandateAuthority', 'no mandate allows this debit', 'workspace'),
  r('linkViolation', 'the account link does not allow this transaction', 'operator'),
  r('countryofOriginNotPermitted', 'the provider does not accept money from the sender\'s country', 'workspace'),
  r('nationalityNotPermitted', 'the provider does not accept the sender\'s or recipient\'s nationality', 'workspace'),
  r('idDocumentNotSupported', 'the provider does not accept the identity document given', 'workspace'),
  r('issuingCountryNotSupported', 'the provider does not accept identity documents of that country', 'workspace'),
  r('quoteHasExpired', 'the quote has expired', 'workspace'),
  r('identifierError', 'the recipient\'s wallet is unknown to the provider (no wallet registered on that number)', 'beneficiary'),
  r('lengthError', 'a field of the request has the wrong length', 'operator'),
  r('formatError', 'a field of the request has the wrong format', 'operator'),
  r('negativeValue', 'the amount is negative', 'operator'),
  r('currencyNotSupported', 'the provider does not pay in this currency', 'operator'),
  r('mandatoryValueNotSupplied', 'a field the provider requires is missing', 'operator'),
  r('invalidOffset', 'the request asked for a page that does not exist', 'operator'),
  r('clientAuthorisationError', 'the provider refused Corridor\'s credentials', 'operator'),
  r('requestDeclined', 'the recipient\'s provider declined the transaction', 'beneficiary'),
  r('servicingPartyAuthorisationError', 'the servicing party is not authorised for this transaction', 'operator'),
  r('requestingPartyAuthorisationError', 'the requesting party is not authorised for this transaction', 'operator'),
  r('reversed', 'the provider reversed the transaction after paying it; the money came back', 'operator'),
];

const BY_CODE = new Map(MOBILE_MONEY_REASONS.map((c) => [c.code, c]));

/** A GSMA error code as data; an unknown one is the operator's to look at, with the code in its words. */
export function mobileMoneyReason(code: string): RailReason {
  return BY_CODE.get(code) ?? { code, words: `error code ${code}, which the GSMA Mobile Money API does not define`, actor: 'operator' };
}

/**
 * Why a collection (a request to pay) failed, as its deposit's failureReason: the payer declined
 * (`requestDeclined`), the payer's authorisation failed, a wrong PIN (the GSMA definition has no code
 * of its own for it: operators answer `servicingPartyAuthorisationError`, the party servicing the
 * payer refusing the payer's authorisation), no answer in time (`serviceUnavailable`), the payer's
 * wallet short of funds or unknown; any other code as `mobile_money_<code>`.
 */
export function collectionFailureReason(error: { errorCategory: string; errorCode: string }): string {
  if (error.errorCode === 'requestDeclined') return 'payer_declined';
  if (error.errorCode === 'servicingPartyAuthorisationError') return 'wrong_pin';
  if (error.errorCategory === 'serviceUnavailable') return 'timeout';
  if (error.errorCode === 'insufficientFunds') return 'payer_insufficient_funds';
  if (error.errorCode === 'identifierError') return 'payer_unknown';
  return `mobile_money_${error.errorCode}`;
}
