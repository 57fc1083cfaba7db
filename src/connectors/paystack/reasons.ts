import type { RailReason, ReasonActor } from '../connector.js';

/**
 * Why Paystack refused or failed a transfer, or reversed it, as data: each of the provider's messages
 * (its published error catalogue, `errors/api-errors.json` of PaystackOSS/openapi, tags Transfer and
 * Transfer Recipient, and the words a transfer's `gateway_response` carries) with a code of ours, the
 * catalogue's meaning in words, and who must act. Paystack sends no codes, only these messages: a
 * message is matched without regard to case or a trailing full stop; one not in the table is shown
 * as the provider sent it, and the operator must act (ask Paystack).
 */
export interface PaystackReason extends RailReason {
  /** The provider's message as its catalogue writes it. */
  message: string;
}

const r = (code: string, message: string, words: string, actor: ReasonActor): PaystackReason => ({ code, message, words, actor });

export const PAYSTACK_REASONS: readonly PaystackReason[] = [
  r('system_malfunction', 'System Malfunction', "an unspecified error at the beneficiary's bank; the transfer may be sent again", 'operator'),
  r('bank_code_invalid', 'Bank code is invalid', 'the bank code does not exist or is invalid', 'beneficiary'),
  r('bank_code_required', 'bank_code is required', 'the request carried no bank code', 'beneficiary'),
  r('account_number_required', 'Account number is required', 'the request carried no account number', 'beneficiary'),
  r('account_number_invalid', 'Account number is invalid', 'the account number is invalid, or does not belong to the bank of the bank code', 'beneficiary'),
  r('account_closed', 'Account closed', "the beneficiary's account has been closed by the bank", 'beneficiary'),
  r('cannot_resolve_account', 'Cannot resolve account', "the bank code and the account number don't match", 'beneficiary'),
  r('could_not_resolve_account_name', 'Could not resolve account name. Check parameters or try again.', "the bank code and the account number don't match", 'beneficiary'),
  r('recipient_blocked', "Sorry, we can't make the transfer to this recipient at the moment", "the recipient's account number is on a fraud watchlist and transfers to it are disabled; the beneficiary must clear it with their bank", 'beneficiary'),
  r('recipient_invalid', 'Recipient specified is invalid', 'the transfer recipient is not valid at Paystack', 'operator'),
  r('balance_insufficient', 'Your balance is not enough to fulfill this request', "the operator's Paystack balance does not cover the transfer; top it up", 'operator'),
  r('balance_insufficient_paid_endpoint', 'Your balance is not enough to fulfil this request', "the operator's Paystack balance does not cover the request; top it up", 'operator'),
  r('reference_exists', 'Please provide a unique reference. Reference already exists on a transfer', 'this reference has already been used on a prior transfer', 'operator'),
  r('reference_illegal_characters', 'Your reference contains illegal special characters', 'the transfer reference holds characters other than lowercase letters, digits, - and _', 'operator'),
  r('invalid_entries', 'Invalid entries found', 'the reference holds unsupported characters', 'operator'),
  r('starter_business', 'You cannot initiate third party payouts as a starter business', "transfers are only available to registered Paystack businesses: the operator's integration must be upgraded", 'operator'),
  r('otp_required', 'You need to disable the OTP requirement to use this feature.', 'the integration requires an OTP for transfers: the operator must disable it in the Paystack dashboard', 'operator'),
  r('transfer_not_found', 'Transfer not found', 'no transfer of that id or code exists on this integration', 'operator'),
  r('authorization_account_not_found', 'Account details not found for this authorization', 'the account details of this authorization could not be found, so the recipient cannot be created', 'beneficiary'),
  r('account_or_authorization_missing', 'Either authorization_code or account_number must be passed.', 'the recipient was created with neither an account number nor an authorization code', 'operator'),
  r('transfer_reversed', 'Transfer reversed', "the beneficiary's bank sent the transfer back; the funds returned to the provider balance", 'beneficiary'),
];

const key = (message: string): string => message.trim().replace(/\.$/, '').toLowerCase();
const BY_MESSAGE = new Map(PAYSTACK_REASONS.map((reason) => [key(reason.message), reason]));

/** The reason a provider's message names, or one in its own words for the operator to look at. */
export function reasonOf(message: string | null | undefined): PaystackReason {
  const text = (message ?? '').trim() || 'no reason given';
  return BY_MESSAGE.get(key(text)) ?? { code: 'unlisted', message: text, words: `Paystack said: ${text}`, actor: 'operator' };
}

/** Whether a refusal says the provider balance does not cover the transfer (it waits in the queue, not failed). */
export function isBalanceShort(message: string): boolean {
  const code = reasonOf(message).code;
  return code === 'balance_insufficient' || code === 'balance_insufficient_paid_endpoint';
}
