/*
 * The ISO 20022 external code sets a bank's answers carry, as data: ExternalStatusReason1Code (why a
 * pain.002 rejects) and ExternalReturnReason1Code (why a pacs.004 or a camt.054 return sent the money
 * back). Source: ISO 20022 External Code Sets (ExternalCodeSets, www.iso20022.org/catalogue-messages/
 * additional-content-messages/external-code-sets), the codes the EPC SEPA rulebooks (SCT, SCT Inst)
 * and SWIFT CBPR+ use; the descriptions are the code set's definitions, shortened. A code not in the
 * table is kept as the bank sent it, described with the bank's own text or as "not in Corridor's table".
 */

export interface ReasonCode {
  name: string;
  description: string;
}

const shared: Record<string, ReasonCode> = {
  AC01: { name: 'IncorrectAccountNumber', description: 'Format of the account number specified is not correct' },
  AC03: { name: 'InvalidCreditorAccountNumber', description: 'Wrong IBAN in the credit transfer' },
  AC04: { name: 'ClosedAccountNumber', description: 'Account number specified has been closed on the receiving bank\'s books' },
  AC06: { name: 'BlockedAccount', description: 'Account specified is blocked, prohibiting posting of transactions against it' },
  AC13: { name: 'InvalidDebtorAccountType', description: 'Debtor account type is missing or invalid' },
  AG01: { name: 'TransactionForbidden', description: 'Transaction forbidden on this type of account' },
  AG02: { name: 'InvalidBankOperationCode', description: 'Bank operation code specified in the message is not valid for the receiver' },
  AM02: { name: 'NotAllowedAmount', description: 'Specific transaction or message amount is greater than allowed maximum' },
  AM04: { name: 'InsufficientFunds', description: 'Amount of funds available to cover specified message amount is insufficient' },
  AM05: { name: 'Duplication', description: 'Duplication' },
  AM09: { name: 'WrongAmount', description: 'Amount received is not the amount agreed or expected' },
  BE04: { name: 'MissingCreditorAddress', description: 'Specification of creditor\'s address, which is required for payment, is missing or not correct' },
  BE05: { name: 'UnrecognisedInitiatingParty', description: 'Party who initiated the message is not recognised by the end customer' },
  CNOR: { name: 'CreditorBankIsNotRegistered', description: 'Creditor bank is not registered under this BIC in the clearing system' },
  DNOR: { name: 'DebtorBankIsNotRegistered', description: 'Debtor bank is not registered under this BIC in the clearing system' },
  DT01: { name: 'InvalidDate', description: 'Invalid date (e.g. wrong or missing settlement date)' },
  DUPL: { name: 'DuplicatePayment', description: 'Payment is a duplicate of another payment' },
  ED05: { name: 'SettlementFailed', description: 'Settlement of the transaction has failed' },
  FF01: { name: 'InvalidFileFormat', description: 'File format incomplete or invalid' },
  FRAD: { name: 'FraudulentOrigin', description: 'Returned as a result of fraud' },
  MD07: { name: 'EndCustomerDeceased', description: 'End customer is deceased' },
  MS02: { name: 'NotSpecifiedReasonCustomerGenerated', description: 'Reason has not been specified by end customer' },
  MS03: { name: 'NotSpecifiedReasonAgentGenerated', description: 'Reason has not been specified by agent' },
  NARR: { name: 'Narrative', description: 'Reason is provided as narrative information in the additional reason information' },
  RC01: { name: 'BankIdentifierIncorrect', description: 'Bank identifier code specified in the message has an incorrect format' },
  RR01: { name: 'MissingDebtorAccountOrIdentification', description: 'Specification of the debtor\'s account or unique identification needed for regulatory requirements is insufficient or missing' },
  RR02: { name: 'MissingDebtorNameOrAddress', description: 'Specification of the debtor\'s name and/or address needed for regulatory requirements is insufficient or missing' },
  RR03: { name: 'MissingCreditorNameOrAddress', description: 'Specification of the creditor\'s name and/or address needed for regulatory requirements is insufficient or missing' },
  RR04: { name: 'RegulatoryReason', description: 'Regulatory reason' },
  TECH: { name: 'TechnicalProblem', description: 'Technical problems resulting in erroneous transactions' },
};

/** ExternalStatusReason1Code: why a pain.002 rejected a file, a payment information block or a transaction. */
export const STATUS_REASONS: Readonly<Record<string, ReasonCode>> = {
  ...shared,
  AB05: { name: 'TimeoutCreditorAgent', description: 'Transaction stopped due to timeout at the creditor agent' },
  AB06: { name: 'TimeoutInstructedAgent', description: 'Transaction stopped due to timeout at the instructed agent' },
  AB08: { name: 'OfflineCreditorAgent', description: 'Creditor agent is not online' },
  AM10: { name: 'InvalidControlSum', description: 'Sum of instructed amounts does not equal the control sum' },
  CH03: { name: 'RequestedExecutionDateOrRequestedCollectionDateTooFarInFuture', description: 'Value in requested execution date is too far in the future' },
  CH16: { name: 'ElementContentFormallyIncorrect', description: 'Content is formally incorrect' },
  CUST: { name: 'RequestedByCustomer', description: 'Cancellation requested by the debtor' },
  DS04: { name: 'OrderRejected', description: 'The order was rejected by the bank side (for reasons concerning content)' },
  FOCR: { name: 'FollowingCancellationRequest', description: 'Return following a cancellation request' },
  NOAS: { name: 'NoAnswerFromCustomer', description: 'No response from beneficiary' },
  TM01: { name: 'InvalidCutOffTime', description: 'Associated message was received after agreed processing cut-off time' },
};

/** ExternalReturnReason1Code: why money sent out came back (pacs.004, or a camt.054 entry with RtrInf). */
export const RETURN_REASONS: Readonly<Record<string, ReasonCode>> = {
  ...shared,
  CUST: { name: 'RequestedByCustomer', description: 'Return requested by the customer' },
  FOCR: { name: 'FollowingCancellationRequest', description: 'Return following a cancellation request' },
  MD06: { name: 'RefundRequestByEndCustomer', description: 'Return of funds requested by end customer' },
  NOAS: { name: 'NoAnswerFromCustomer', description: 'No response from beneficiary' },
  NOOR: { name: 'NoOriginalTransactionReceived', description: 'Original transaction (subject to cancellation) never received' },
  RUTA: { name: 'ReturnUponUnableToApply', description: 'Return following investigation request and no remediation possible' },
  UPAY: { name: 'UnduePayment', description: 'Payment is not justified' },
};

/** The reason as a payout carries it: the code and its description in words (the bank's text when the code is not in the table). */
export function describeReason(table: Readonly<Record<string, ReasonCode>>, code: string, bankText?: string): { code: string; description: string } {
  const known = table[code];
  if (known) return { code, description: bankText && code === 'NARR' ? bankText : known.description };
  return { code, description: bankText ?? `Reason code ${code} (not in Corridor's table; ask the bank)` };
}

/**
 * Who must act on a rejected payment, by its reason code: the workspace when the beneficiary's
 * details are wrong or the beneficiary refused (it corrects them and pays again); the operator when
 * the cause is Corridor's own account, file or agreement with the bank (it puts it right with the bank).
 */
const BENEFICIARY_CODES = new Set(['AC01', 'AC03', 'AC04', 'AC06', 'AG01', 'BE04', 'CNOR', 'MD07', 'RC01', 'RR03', 'MS02', 'CUST', 'NOAS', 'AB05', 'AB08']);
const OPERATOR_CODES = new Set(['AC13', 'AG02', 'AM02', 'AM04', 'AM05', 'AM09', 'AM10', 'BE05', 'CH03', 'CH16', 'DNOR', 'DS04', 'DT01', 'DUPL', 'ED05', 'FF01', 'RR01', 'RR02', 'RR04', 'TECH', 'TM01', 'AB06']);

export function whoActs(code: string): string {
  if (BENEFICIARY_CODES.has(code)) return "Who acts: the workspace, which corrects the beneficiary's details (or asks the beneficiary) and sends a new payout";
  if (OPERATOR_CODES.has(code)) return "Who acts: Corridor's operator, with the bank (the debtor account, the file or the bank's agreement); the workspace may send the payout again once it is put right";
  return "Who acts: Corridor's operator, who asks the bank what the code means before the workspace pays again";
}
