/**
 * Virtual account issuers (DESIGN §2 Providers): the bank or partner that opens an account in a
 * currency for an owner. Behind one interface like payout providers: a simulated issuer per currency
 * family in the sandbox, and `manual` in production, whose pending accounts the operator approves,
 * refuses or deactivates through the operator API.
 */

/** The bank details of an issued account: IBAN and BIC, or a local account number with its bank. */
export interface BankDetails {
  iban?: string;
  bic?: string;
  accountNumber?: string;
  bankName?: string;
  bankCode?: string;
  accountHolderName: string;
  /** A USDC or USDT account on chain: the owner's deposit address on each chain that takes the token. */
  addresses?: { chain: string; network: string; address: string }[];
}

/** How a currency's accounts are approved (spec §States and transitions / Virtual account). */
export type ApprovalMode =
  /** EUR, GBP: approved before creation, so active at once; refusals are errors on the request. */
  | 'before_creation'
  /** XOF, XAF, GHS, USD: pending, then active or failed out of band, each with its event. */
  | 'after_creation'
  /** NGN: no event at any move; not self-serve in production. */
  | 'silent';

export interface IssueRequest {
  /** The owner: the workspace's master account or a sub-account. */
  accountId: string;
  currency: string;
  /** The owner's name as on record: the account holder name. */
  holderName: string;
  country: string;
  /** The document types on record with the owner's approved application. */
  documents: readonly string[];
}

/** What an issuer answers to a request. */
export type IssueAnswer =
  | { kind: 'issued'; details: BankDetails }
  | { kind: 'pending' }
  | { kind: 'refused'; code: 'VIRTUAL_ACCOUNT_REFUSED' | 'VIRTUAL_ACCOUNT_VERIFICATION_REQUIRED'; detail: string };

export interface Issuer {
  readonly name: string;
  /** Asks the issuer for an account. */
  request(input: IssueRequest): Promise<IssueAnswer>;
  /** The details of a pending account approved out of band (the operator may give them). */
  detailsOnApproval(input: IssueRequest, given: BankDetails | undefined): BankDetails;
}
