import type { components } from './generated/openapi.js';

/**
 * The API's objects by name, as the OpenAPI document's components.schemas declares them (generated
 * by `npm run sdk:types`): `import type { Beneficiary, Payout } from '@corridor/sdk'`.
 */
export type Schemas = components['schemas'];

export type Account = Schemas['Account'];
export type ApiKey = Schemas['ApiKey'];
export type Application = Schemas['Application'];
export type ApplicationDocument = Schemas['ApplicationDocument'];
export type ApplicationPerson = Schemas['ApplicationPerson'];
export type AvailableRails = Schemas['AvailableRails'];
export type BalanceEntry = Schemas['BalanceEntry'];
export type Beneficiary = Schemas['Beneficiary'];
export type BeneficiaryAccount = Schemas['BeneficiaryAccount'];
export type Capabilities = Schemas['Capabilities'];
export type Deposit = Schemas['Deposit'];
export type DocumentUploadUrl = Schemas['DocumentUploadUrl'];
export type ErrorCode = Schemas['ErrorCode'];
export type FieldError = Schemas['FieldError'];
export type FxConversion = Schemas['FxConversion'];
export type FxQuote = Schemas['FxQuote'];
export type FxRate = Schemas['FxRate'];
export type LedgerBalances = Schemas['LedgerBalances'];
export type LedgerTransaction = Schemas['LedgerTransaction'];
export type LegacyError = Schemas['LegacyError'];
export type Order = Schemas['Order'];
export type PayoutRequirements = Schemas['PayoutRequirements'];
export type Problem = Schemas['Problem'];
export type ProofUpload = Schemas['ProofUpload'];
export type SenderInfo = Schemas['SenderInfo'];
export type Settlement = Schemas['Settlement'];
export type Terms = Schemas['Terms'];
export type Upload = Schemas['Upload'];
export type ValidationError = Schemas['ValidationError'];
export type VirtualAccount = Schemas['VirtualAccount'];
export type VirtualAccountWithDetails = Schemas['VirtualAccountWithDetails'];
export type WebhookAttempt = Schemas['WebhookAttempt'];
export type WebhookDelivery = Schemas['WebhookDelivery'];
export type WebhookEndpoint = Schemas['WebhookEndpoint'];
export type WebhookEndpointWithSecret = Schemas['WebhookEndpointWithSecret'];

/** The `data` of each family of events, as deliveries carry it (`EventOf<'payout.paid'>['data']` is the same, by type). */
export type AccountEventData = Schemas['AccountEventData'];
export type ApplicationEventData = Schemas['ApplicationEventData'];
export type DepositEventData = Schemas['DepositEventData'];
export type OrderEventData = Schemas['OrderEventData'];
export type PayoutEventData = Schemas['PayoutEventData'];
export type VirtualAccountEventData = Schemas['VirtualAccountEventData'];
export type WebhookTestEventData = Schemas['WebhookTestEventData'];
