/**
 * Corridors: the catalog of simulated providers per rail, payout requirements, recipient and sender
 * validation. The public API of this module (payouts and beneficiaries call only this):
 *
 * Catalog (data; catalog.ts)
 *   CATALOG: readonly Provider[]                       every provider, in priority order
 *   Provider, Route, AccountType, RecipientType, RecipientField, SenderInfoKey, SenderType, NameRule, AmountBounds
 *   ROUTES, ACCOUNT_TYPES, RECIPIENT_FIELDS, SENDER_INFO_KEYS, SENDER_TYPES, SENDER_GENDERS, FUND_ORIGINS,
 *   MOBILE_MONEY_NETWORKS, CRYPTO_NETWORKS, AUTO_ROUTE_NAME ('international')
 *
 * Providers (providers.ts)
 *   findProviders({ currency, route?, country? }): Provider[]
 *   selectProvider({ currency, route?, account, beneficiaryCountry?, amountMinor?, purpose? }): Provider | undefined
 *       The provider that pays `account` (a beneficiary `accounts[]` item). Without `route`, EUR and GBP
 *       go to iban accounts over the auto-routed providers (report the route with reportedRoute():
 *       'international'); other currencies then take the account's first corridor. Default-routed
 *       providers win over the others; with `amountMinor`, one whose bounds hold it is preferred.
 *   reportedRoute(provider, requestedRoute?): string   'international' when auto-routed
 *   isAutoRouted(currency): boolean                    EUR, GBP
 *   amountBounds(provider, currency): { min, max? }    major-unit decimal strings
 *   amountBoundsMinor(provider, currency): { min: bigint, max: bigint | undefined }
 *   withinBounds(provider, currency, amountMinor): boolean   (false → AMOUNT_OUT_OF_BOUNDS)
 *
 * Recipient validation (recipient-validation.ts), shared by beneficiaries and payouts
 *   validateRecipient(recipient, { currency, route?, accountIndex?, provider?, fieldPrefix? = 'beneficiary.',
 *                                  amountMinor?, travelRule? }): FieldError[]
 *       The spec's order, first failing stage only: corridor-required recipient fields
 *       (MISSING_BENEFICIARY_NAME, BENEFICIARY_INCOMPLETE, RECIPIENT_DETAILS_INVALID for a name rule, and,
 *       with travelRule true, the uncoded `beneficiary.dateOfBirth` entry of the Travel Rule), then the
 *       account structure (MISSING_BANK_ACCOUNT_DETAILS, INVALID_IBAN, INVALID_ACCOUNT_NUMBER,
 *       INVALID_ROUTING_NUMBER, UNSUPPORTED_CORRIDOR, and the uncoded Nigerian entry on
 *       `beneficiary.accounts.N.data` naming each failing field of bankCode/crAccount).
 *   checkRecipient(recipient, context): { provider, accountIndex, required, structure, errors }
 *       The same, with the provider that pays and both stages.
 *   recipientErrorKind(error): 'field_format' | 'recipient'; isFieldFormatError(error): boolean
 *       A batch payout rejects the whole array on a field-format entry and reports the others per row.
 *   requiredRecipientFields(provider, type, travelRuleScreening): RecipientField[]
 *
 * Sender validation (sender-validation.ts), the third stage of a payout
 *   senderRequirements(provider, senderType): { required, optional }
 *   validateSender(senderInfo, provider, workspaceHasBusinessIdentity, { fieldPrefix? = 'senderInfo' }):
 *       { errors: FieldError[], senderInfo: SenderInfo | undefined, originator: 'sender_info' | 'workspace' }
 *       SENDER_INFO_INCOMPLETE (senderInfo missing where senderInfoRequired, or a required key missing),
 *       SENDER_INFO_INVALID (bad type, dateOfBirth on a business, malformed value: gender, fundOrigin,
 *       country, E.164 phoneNumber, dateOfBirth), ORIGINATOR_NOT_ON_RECORD (no senderInfo and no business
 *       identity). `senderInfo` keeps only `type` and the provider's allowed keys (the rest is dropped).
 *
 * Requirements (requirements.ts)
 *   payoutRequirements({ currency, route?, country?, travelRuleScreening }): PayoutRequirements (throws 404)
 *
 * Beneficiaries (re-exported from ../beneficiaries/beneficiaries.service.ts)
 *   createBeneficiary(tx, box, { workspaceId, subAccountId? }, input: BeneficiaryInput, { fieldPrefix? = '' }): BeneficiaryView
 *       Validates (400 naming `${fieldPrefix}…` fields) and saves a beneficiary; for a payout carrying a
 *       full beneficiary pass fieldPrefix 'beneficiary.'.
 *   getBeneficiary(sql, box, workspaceId, id, { subAccountId? }): BeneficiaryView   (404 when not visible)
 *   getBeneficiaryAccount(sql, box, scope, accountId): { beneficiary, account, accountIndex }
 *   assertValidBeneficiary(input, { fieldPrefix? }): void   the create-time checks without saving
 *   A BeneficiaryView is a Recipient: pass it to validateRecipient as is.
 */
export * from './catalog.js';
export {
  acceptsAccountType,
  accountCountry,
  amountBounds,
  amountBoundsMinor,
  candidateProviders,
  catalogCurrencies,
  findProviders,
  isAutoRouted,
  providerAccepts,
  payoutRails,
  reportedRoute,
  selectProvider,
  servesCountry,
  servesCurrency,
  withinBounds,
  type AccountLike,
  type ProviderQuery,
  type SelectionQuery,
} from './providers.js';
export {
  RECIPIENT_CODES,
  checkRecipient,
  isFieldFormatError,
  recipientErrorKind,
  requiredRecipientFields,
  validateRecipient,
  type CorridorContext,
  type Recipient,
  type RecipientAccount,
  type RecipientCheck,
} from './recipient-validation.js';
export { senderRequirements, validateSender, type SenderCheck, type SenderInfo } from './sender-validation.js';
export { payoutRequirements, type PayoutRequirements, type RequirementsQuery } from './requirements.js';
export { availableRails, type AvailableRail } from './available-rails.js';
export { corridorRows, corridorTableHtml, corridorTableMarkdown } from './corridor-table.js';
export {
  assertValidBeneficiary,
  createBeneficiary,
  findBeneficiaries,
  getBeneficiary,
  getBeneficiaryAccount,
  type BeneficiaryAccountView,
  type BeneficiaryInput,
  type BeneficiaryView,
} from '../beneficiaries/beneficiaries.service.js';
