"""Generated from Corridor's own /openapi.json (components.schemas): do not edit.

Regenerate with `npm run sdk:python-models` (packages/sdk-python/scripts/generate-models.ts).
Each object schema is a TypedDict (the JSON object as the API sends it, a plain dict at run time).
"""

from typing import Any, Dict, List, Literal, Optional, TypedDict, Union

__all__ = [
    "Account",
    "AccountCreatedEvent",
    "AccountEventData",
    "AccountList",
    "ApiKey",
    "ApiKeyList",
    "Application",
    "ApplicationApprovedEvent",
    "ApplicationDocument",
    "ApplicationDocumentList",
    "ApplicationEventData",
    "ApplicationList",
    "ApplicationMoreInfoRequestedEvent",
    "ApplicationPerson",
    "ApplicationPersonList",
    "ApplicationRejectedEvent",
    "ApplicationUnderReviewEvent",
    "Approval",
    "ApprovalDecision",
    "ApprovalList",
    "ApprovalPayout",
    "ApprovalRule",
    "ApprovalRuleDeleted",
    "ApprovalRuleList",
    "ApprovalRuleRequest",
    "AuthorizationServerMetadata",
    "AvailableRail",
    "AvailableRails",
    "BalanceEntry",
    "Beneficiary",
    "BeneficiaryAccount",
    "BeneficiaryCorrection",
    "BeneficiaryEventData",
    "BeneficiaryFields",
    "BeneficiaryList",
    "BeneficiaryRecipientCheck",
    "BeneficiaryRecipientCheckRequest",
    "BeneficiaryUpdatedEvent",
    "Capabilities",
    "CollectionRequest",
    "CreateAccountRequest",
    "CreateApplicationDocumentRequest",
    "CreateApplicationDocumentUploadUrlRequest",
    "CreateApplicationRequest",
    "CreateApplicationTermsAcceptanceRequest",
    "CreateBeneficiaryRequest",
    "CreateFxConversionRequest",
    "CreateFxQuoteRequest",
    "CreateOauthTokenRequest",
    "CreateOauthTokenResponse",
    "CreateOrderSettlementProofRequest",
    "CreateOrderSettlementProofUploadUrlRequest",
    "CreatePayoutRequest",
    "CreatePayoutResponse",
    "CreateWebhookRequest",
    "Deposit",
    "DepositAddress",
    "DepositCompletedEvent",
    "DepositEventData",
    "DepositFailedEvent",
    "DepositList",
    "DocumentUploadUrl",
    "ErrorCode",
    "Event",
    "EventList",
    "FieldError",
    "FxConversion",
    "FxQuote",
    "FxRate",
    "FxRateList",
    "GetHealthzResponse",
    "GetReadyzResponse",
    "JWKS",
    "LedgerBalances",
    "LedgerTransaction",
    "LedgerTransactionList",
    "LegacyCreateFxConversionRequest",
    "LegacyCreateFxQuoteRequest",
    "LegacyError",
    "Order",
    "OrderAwaitingFundsEvent",
    "OrderCompletedEvent",
    "OrderCreatedEvent",
    "OrderEventData",
    "OrderExpiredEvent",
    "OrderFailedEvent",
    "OrderFundsReceivedEvent",
    "OrderList",
    "OrderRequest",
    "Payout",
    "PayoutApproval",
    "PayoutApprovalRequiredEvent",
    "PayoutCancelledEvent",
    "PayoutEventData",
    "PayoutFailedEvent",
    "PayoutList",
    "PayoutPaidEvent",
    "PayoutProcessingEvent",
    "PayoutRecipientCheckRequiredEvent",
    "PayoutRequest",
    "PayoutRequirements",
    "PayoutRevertedEvent",
    "PayoutRowError",
    "PayoutScreening",
    "PersonInput",
    "Problem",
    "ProofUpload",
    "RecipientCheck",
    "RequestLog",
    "RequestLogList",
    "RequirementRule",
    "ReturnReason",
    "RotateWebhookSecretRequest",
    "SandboxApproveVirtualAccountRequest",
    "SandboxCompleteDepositRequest",
    "SandboxCompleteOrderRequest",
    "SandboxDeactivateVirtualAccountRequest",
    "SandboxDepositRequest",
    "SandboxFailDepositRequest",
    "SandboxFailPayoutRequest",
    "SandboxFailVirtualAccountRequest",
    "SandboxFundBalanceRequest",
    "SandboxReviewApplicationRequest",
    "ScreeningHit",
    "SenderFields",
    "SenderInfo",
    "SetApiKeyScopesRequest",
    "SetApiKeyScopesResponse",
    "Settlement",
    "Terms",
    "Unauthorized",
    "UpdateApplicationPersonRequest",
    "UpdateApplicationRequest",
    "UpdateBeneficiaryRequest",
    "UpdateWebhookRequest",
    "Upload",
    "ValidationError",
    "VirtualAccount",
    "VirtualAccountActiveEvent",
    "VirtualAccountEventData",
    "VirtualAccountFailedEvent",
    "VirtualAccountRequest",
    "VirtualAccountRequirements",
    "VirtualAccountWithDetails",
    "VirtualAccountWithDetailsList",
    "WebhookAttempt",
    "WebhookDelivery",
    "WebhookDeliveryList",
    "WebhookEndpoint",
    "WebhookEndpointDeleted",
    "WebhookEndpointList",
    "WebhookEndpointWithSecret",
    "WebhookSecret",
    "WebhookTestEvent",
    "WebhookTestEventData",
]


_AccountRequired = TypedDict("_AccountRequired", {
    "accountType": Literal["master", "sub"],
    "country": str,
    "createdAt": str,
    "id": str,
    "name": str,
    "status": Literal["pending", "active", "suspended", "closed"],
})

_AccountOptional = TypedDict("_AccountOptional", {
    "clientRef": str,
    "parentAccountId": str,
    "primaryCurrency": str,
}, total=False)

class Account(_AccountRequired, _AccountOptional):
    """Account"""


_AccountCreatedEventRequired = TypedDict("_AccountCreatedEventRequired", {
    "createdAt": str,
    "data": 'AccountEventData',
    "id": str,
    "test": bool,
    "type": Literal["account.created"],
})

_AccountCreatedEventOptional = TypedDict("_AccountCreatedEventOptional", {
    "accountId": Optional[str],
}, total=False)

class AccountCreatedEvent(_AccountCreatedEventRequired, _AccountCreatedEventOptional):
    """AccountCreatedEvent"""


_AccountEventDataRequired = TypedDict("_AccountEventDataRequired", {
    "accountType": Literal["master", "sub"],
    "country": str,
    "createdAt": str,
    "id": str,
    "status": Literal["pending", "active", "suspended", "closed"],
})

_AccountEventDataOptional = TypedDict("_AccountEventDataOptional", {
    "parentAccountId": str,
}, total=False)

class AccountEventData(_AccountEventDataRequired, _AccountEventDataOptional):
    """The new sub-account"""


_AccountListRequired = TypedDict("_AccountListRequired", {
    "data": List['Account'],
    "hasMore": bool,
    "nextCursor": Optional[str],
    "object": Literal["account.list"],
})

class AccountList(_AccountListRequired):
    """AccountList"""


_ApiKeyRequired = TypedDict("_ApiKeyRequired", {
    "clientId": str,
    "createdAt": str,
    "label": Optional[str],
    "lastUsedAt": Optional[str],
    "scopes": List[str],
    "status": Literal["active", "revoked"],
})

class ApiKey(_ApiKeyRequired):
    """ApiKey"""


_ApiKeyListRequired = TypedDict("_ApiKeyListRequired", {
    "data": List['ApiKey'],
    "hasMore": bool,
    "nextCursor": Optional[str],
    "object": Literal["api_key.list"],
})

class ApiKeyList(_ApiKeyListRequired):
    """ApiKeyList"""


_ApplicationRequired = TypedDict("_ApplicationRequired", {
    "accountId": str,
    "applicant": Optional[Dict[str, Any]],
    "applicationType": Literal["business", "individual"],
    "businessActivity": Optional[Dict[str, Any]],
    "businessInfo": Optional[Dict[str, Any]],
    "companySize": Optional[Literal["sme", "large_corp", "licensed_fi"]],
    "createdAt": str,
    "decidedAt": Optional[str],
    "editableSections": List[Literal["applicant", "businessInfo", "businessActivity", "individualActivity", "persons", "documents"]],
    "hasIndirectControl": Optional[bool],
    "id": str,
    "indirectControlDetails": Optional[str],
    "individualActivity": Optional[Dict[str, Any]],
    "moreInfoReason": Optional[str],
    "registeredName": Optional[str],
    "riskLevel": Optional[Literal["low", "medium", "high", "prohibited"]],
    "screeningStatus": Literal["pending", "in_progress", "clear", "flagged", "failed", "timed_out"],
    "status": Literal["draft", "under_review", "approved", "more_info_requested", "rejected"],
    "submittedAt": Optional[str],
    "termsAcceptedAt": Optional[str],
    "termsAcceptedVersion": Optional[str],
    "updatedAt": str,
})

class Application(_ApplicationRequired):
    """Application"""


_ApplicationApprovedEventRequired = TypedDict("_ApplicationApprovedEventRequired", {
    "createdAt": str,
    "data": 'ApplicationEventData',
    "id": str,
    "test": bool,
    "type": Literal["application.approved"],
})

_ApplicationApprovedEventOptional = TypedDict("_ApplicationApprovedEventOptional", {
    "accountId": Optional[str],
}, total=False)

class ApplicationApprovedEvent(_ApplicationApprovedEventRequired, _ApplicationApprovedEventOptional):
    """ApplicationApprovedEvent"""


_ApplicationDocumentRequired = TypedDict("_ApplicationDocumentRequired", {
    "applicationId": str,
    "contentType": str,
    "createdAt": str,
    "documentKey": str,
    "id": str,
    "personId": Optional[str],
    "sizeBytes": int,
    "type": Literal["photo_id", "proof_of_address", "certificate_of_incorporation", "articles_of_association", "shareholder_register", "bank_statement", "other"],
})

class ApplicationDocument(_ApplicationDocumentRequired):
    """ApplicationDocument"""


_ApplicationDocumentListRequired = TypedDict("_ApplicationDocumentListRequired", {
    "data": List['ApplicationDocument'],
    "hasMore": bool,
    "nextCursor": Optional[str],
    "object": Literal["application_document.list"],
})

class ApplicationDocumentList(_ApplicationDocumentListRequired):
    """ApplicationDocumentList"""


_ApplicationEventDataRequired = TypedDict("_ApplicationEventDataRequired", {
    "accountId": str,
    "applicationType": Literal["business", "individual"],
    "createdAt": str,
    "editableSections": List[Literal["applicant", "businessInfo", "businessActivity", "individualActivity", "persons", "documents"]],
    "id": str,
    "moreInfoReason": Optional[str],
    "registeredName": Optional[str],
    "riskLevel": Optional[Literal["low", "medium", "high", "prohibited"]],
    "screeningStatus": Literal["pending", "in_progress", "clear", "flagged", "failed", "timed_out"],
    "status": Literal["draft", "under_review", "approved", "more_info_requested", "rejected"],
})

class ApplicationEventData(_ApplicationEventDataRequired):
    """The application (without its sections), as application.* events carry it"""


_ApplicationListRequired = TypedDict("_ApplicationListRequired", {
    "data": List['Application'],
    "hasMore": bool,
    "nextCursor": Optional[str],
    "object": Literal["application.list"],
})

class ApplicationList(_ApplicationListRequired):
    """ApplicationList"""


_ApplicationMoreInfoRequestedEventRequired = TypedDict("_ApplicationMoreInfoRequestedEventRequired", {
    "createdAt": str,
    "data": 'ApplicationEventData',
    "id": str,
    "test": bool,
    "type": Literal["application.more_info_requested"],
})

_ApplicationMoreInfoRequestedEventOptional = TypedDict("_ApplicationMoreInfoRequestedEventOptional", {
    "accountId": Optional[str],
}, total=False)

class ApplicationMoreInfoRequestedEvent(_ApplicationMoreInfoRequestedEventRequired, _ApplicationMoreInfoRequestedEventOptional):
    """ApplicationMoreInfoRequestedEvent"""


_ApplicationPersonRequired = TypedDict("_ApplicationPersonRequired", {
    "applicationId": str,
    "bvnProvided": bool,
    "createdAt": str,
    "firstName": str,
    "id": str,
    "lastName": str,
    "nationalIdProvided": bool,
    "taxIdProvided": bool,
    "updatedAt": str,
})

_ApplicationPersonOptional = TypedDict("_ApplicationPersonOptional", {
    "dateOfBirth": str,
    "emailAddress": str,
    "middleName": str,
    "nationality": str,
    "occupationCode": str,
    "ownershipPercentage": float,
    "phoneNumber": str,
    "residentialAddress": Dict[str, Any],
    "title": str,
}, total=False)

class ApplicationPerson(_ApplicationPersonRequired, _ApplicationPersonOptional):
    """ApplicationPerson"""


_ApplicationPersonListRequired = TypedDict("_ApplicationPersonListRequired", {
    "data": List['ApplicationPerson'],
    "hasMore": bool,
    "nextCursor": Optional[str],
    "object": Literal["application_person.list"],
})

class ApplicationPersonList(_ApplicationPersonListRequired):
    """ApplicationPersonList"""


_ApplicationRejectedEventRequired = TypedDict("_ApplicationRejectedEventRequired", {
    "createdAt": str,
    "data": 'ApplicationEventData',
    "id": str,
    "test": bool,
    "type": Literal["application.rejected"],
})

_ApplicationRejectedEventOptional = TypedDict("_ApplicationRejectedEventOptional", {
    "accountId": Optional[str],
}, total=False)

class ApplicationRejectedEvent(_ApplicationRejectedEventRequired, _ApplicationRejectedEventOptional):
    """ApplicationRejectedEvent"""


_ApplicationUnderReviewEventRequired = TypedDict("_ApplicationUnderReviewEventRequired", {
    "createdAt": str,
    "data": 'ApplicationEventData',
    "id": str,
    "test": bool,
    "type": Literal["application.under_review"],
})

_ApplicationUnderReviewEventOptional = TypedDict("_ApplicationUnderReviewEventOptional", {
    "accountId": Optional[str],
}, total=False)

class ApplicationUnderReviewEvent(_ApplicationUnderReviewEventRequired, _ApplicationUnderReviewEventOptional):
    """ApplicationUnderReviewEvent"""


_ApprovalRequired = TypedDict("_ApprovalRequired", {
    "createdAt": str,
    "decidedAt": Optional[str],
    "decidedBy": Optional[str],
    "expiresAt": str,
    "payout": 'ApprovalPayout',
    "payoutId": str,
    "reason": Optional[str],
    "requestedBy": str,
    "rule": 'ApprovalRule',
    "status": Literal["pending", "approved", "rejected", "expired", "withdrawn"],
})

class Approval(_ApprovalRequired):
    """Approval"""


_ApprovalDecisionOptional = TypedDict("_ApprovalDecisionOptional", {
    "reason": str,
}, total=False)

class ApprovalDecision(_ApprovalDecisionOptional):
    """ApprovalDecision"""


_ApprovalListRequired = TypedDict("_ApprovalListRequired", {
    "data": List['Approval'],
    "hasMore": bool,
    "nextCursor": Optional[str],
    "object": Literal["approval.list"],
})

class ApprovalList(_ApprovalListRequired):
    """ApprovalList"""


_ApprovalPayoutRequired = TypedDict("_ApprovalPayoutRequired", {
    "amount": str,
    "beneficiaryId": Optional[str],
    "clientRef": str,
    "createdAt": str,
    "currency": str,
    "id": str,
    "status": str,
})

_ApprovalPayoutOptional = TypedDict("_ApprovalPayoutOptional", {
    "accountId": str,
}, total=False)

class ApprovalPayout(_ApprovalPayoutRequired, _ApprovalPayoutOptional):
    """ApprovalPayout"""


_ApprovalRuleRequired = TypedDict("_ApprovalRuleRequired", {
    "createdAt": str,
    "createdBy": str,
    "description": Optional[str],
    "id": str,
    "type": Literal["amount_over", "new_beneficiary", "batch_over", "every_payout"],
})

_ApprovalRuleOptional = TypedDict("_ApprovalRuleOptional", {
    "amount": str,
    "currency": str,
    "days": int,
    "rows": int,
}, total=False)

class ApprovalRule(_ApprovalRuleRequired, _ApprovalRuleOptional):
    """ApprovalRule"""


_ApprovalRuleDeletedRequired = TypedDict("_ApprovalRuleDeletedRequired", {
    "deleted": Literal[True],
    "id": str,
})

class ApprovalRuleDeleted(_ApprovalRuleDeletedRequired):
    """ApprovalRuleDeleted"""


_ApprovalRuleListRequired = TypedDict("_ApprovalRuleListRequired", {
    "data": List['ApprovalRule'],
    "hasMore": bool,
    "nextCursor": Optional[str],
    "object": Literal["approval_rule.list"],
})

class ApprovalRuleList(_ApprovalRuleListRequired):
    """ApprovalRuleList"""


_ApprovalRuleRequestRequired = TypedDict("_ApprovalRuleRequestRequired", {
    "type": Literal["amount_over", "new_beneficiary", "batch_over", "every_payout"],
})

_ApprovalRuleRequestOptional = TypedDict("_ApprovalRuleRequestOptional", {
    "amount": str,
    "currency": str,
    "days": int,
    "description": str,
    "rows": int,
}, total=False)

class ApprovalRuleRequest(_ApprovalRuleRequestRequired, _ApprovalRuleRequestOptional):
    """ApprovalRuleRequest"""


_AuthorizationServerMetadataRequired = TypedDict("_AuthorizationServerMetadataRequired", {
    "grant_types_supported": List[str],
    "issuer": str,
    "jwks_uri": str,
    "response_types_supported": List[str],
    "scopes_supported": List[str],
    "token_endpoint": str,
    "token_endpoint_auth_methods_supported": List[str],
    "token_endpoint_auth_signing_alg_values_supported": List[str],
})

class AuthorizationServerMetadata(_AuthorizationServerMetadataRequired):
    """AuthorizationServerMetadata"""


_AvailableRailRequired = TypedDict("_AvailableRailRequired", {
    "defaultRouting": bool,
    "maxAmount": Optional[str],
    "minAmount": str,
    "provider": str,
    "recipientIssues": List[Dict[str, Any]],
    "recipientReady": bool,
    "route": Literal["sepa_inst", "sepa_credit", "bank_transfer", "ach", "fedwire", "swift", "crypto", "mobile_money"],
    "senderInfoRequired": bool,
})

class AvailableRail(_AvailableRailRequired):
    """AvailableRail"""


_AvailableRailsRequired = TypedDict("_AvailableRailsRequired", {
    "accountId": str,
    "autoRoute": Optional[Literal["sepa_inst", "sepa_credit", "bank_transfer", "ach", "fedwire", "swift", "crypto", "mobile_money"]],
    "beneficiaryId": str,
    "currency": str,
    "data": List['AvailableRail'],
    "object": Literal["rail.list"],
})

class AvailableRails(_AvailableRailsRequired):
    """AvailableRails"""


_BalanceEntryRequired = TypedDict("_BalanceEntryRequired", {
    "balance": str,
    "currency": str,
    "isActive": bool,
    "lastTransactionAt": str,
    "pendingIn": str,
    "pendingOut": str,
    "totalBalance": str,
})

class BalanceEntry(_BalanceEntryRequired):
    """BalanceEntry"""


_BeneficiaryRequired = TypedDict("_BeneficiaryRequired", {
    "accounts": List['BeneficiaryAccount'],
    "country": str,
    "createdAt": str,
    "id": str,
    "name": str,
    "status": Literal["active", "inactive", "suspended"],
    "type": Literal["individual", "business"],
    "updatedAt": str,
})

_BeneficiaryOptional = TypedDict("_BeneficiaryOptional", {
    "accountId": str,
    "address": str,
    "addressLine2": str,
    "city": str,
    "countrySubdivision": str,
    "dateOfBirth": str,
    "email": str,
    "middleName": str,
    "notes": str,
    "postcode": str,
    "registrationNumber": str,
}, total=False)

class Beneficiary(_BeneficiaryRequired, _BeneficiaryOptional):
    """Beneficiary"""


_BeneficiaryAccountRequired = TypedDict("_BeneficiaryAccountRequired", {
    "currency": str,
    "data": Dict[str, Any],
    "id": str,
    "type": Literal["iban", "bank_account", "mobile_money", "crypto"],
})

_BeneficiaryAccountOptional = TypedDict("_BeneficiaryAccountOptional", {
    "country": str,
}, total=False)

class BeneficiaryAccount(_BeneficiaryAccountRequired, _BeneficiaryAccountOptional):
    """BeneficiaryAccount"""


_BeneficiaryCorrectionRequired = TypedDict("_BeneficiaryCorrectionRequired", {
    "beneficiaryAccountId": str,
    "code": str,
    "description": str,
    "fields": List[str],
    "payoutId": str,
})

class BeneficiaryCorrection(_BeneficiaryCorrectionRequired):
    """The rail's correction of one of the beneficiary's accounts, named but never its values"""


_BeneficiaryEventDataRequired = TypedDict("_BeneficiaryEventDataRequired", {
    "correction": 'BeneficiaryCorrection',
    "id": str,
    "status": Literal["active", "inactive", "suspended"],
})

_BeneficiaryEventDataOptional = TypedDict("_BeneficiaryEventDataOptional", {
    "accountId": str,
}, total=False)

class BeneficiaryEventData(_BeneficiaryEventDataRequired, _BeneficiaryEventDataOptional):
    """The beneficiary, as beneficiary.updated carries it: which of its accounts a rail corrected (an ACH notification of change), never the bank details themselves"""


_BeneficiaryFieldsRequired = TypedDict("_BeneficiaryFieldsRequired", {
    "optional": List[Literal["email", "address", "addressLine2", "city", "postcode", "countrySubdivision", "dateOfBirth"]],
    "required": List[Literal["email", "address", "addressLine2", "city", "postcode", "countrySubdivision", "dateOfBirth"]],
    "rules": List['RequirementRule'],
})

class BeneficiaryFields(_BeneficiaryFieldsRequired):
    """BeneficiaryFields"""


_BeneficiaryListRequired = TypedDict("_BeneficiaryListRequired", {
    "data": List['Beneficiary'],
    "hasMore": bool,
    "nextCursor": Optional[str],
    "object": Literal["beneficiary.list"],
})

class BeneficiaryList(_BeneficiaryListRequired):
    """BeneficiaryList"""


_BeneficiaryRecipientCheckRequired = TypedDict("_BeneficiaryRecipientCheckRequired", {
    "beneficiaryId": str,
    "checkedAt": str,
    "connector": str,
    "currency": str,
    "name": str,
    "railName": Optional[str],
    "reason": Optional[str],
    "result": Literal["match", "close_match", "no_match", "account_not_found", "unavailable"],
    "route": str,
})

class BeneficiaryRecipientCheck(_BeneficiaryRecipientCheckRequired):
    """BeneficiaryRecipientCheck"""


_BeneficiaryRecipientCheckRequestRequired = TypedDict("_BeneficiaryRecipientCheckRequestRequired", {
    "currency": str,
})

_BeneficiaryRecipientCheckRequestOptional = TypedDict("_BeneficiaryRecipientCheckRequestOptional", {
    "route": str,
}, total=False)

class BeneficiaryRecipientCheckRequest(_BeneficiaryRecipientCheckRequestRequired, _BeneficiaryRecipientCheckRequestOptional):
    """BeneficiaryRecipientCheckRequest"""


_BeneficiaryUpdatedEventRequired = TypedDict("_BeneficiaryUpdatedEventRequired", {
    "createdAt": str,
    "data": 'BeneficiaryEventData',
    "id": str,
    "test": bool,
    "type": Literal["beneficiary.updated"],
})

_BeneficiaryUpdatedEventOptional = TypedDict("_BeneficiaryUpdatedEventOptional", {
    "accountId": Optional[str],
}, total=False)

class BeneficiaryUpdatedEvent(_BeneficiaryUpdatedEventRequired, _BeneficiaryUpdatedEventOptional):
    """BeneficiaryUpdatedEvent"""


_CapabilitiesRequired = TypedDict("_CapabilitiesRequired", {
    "currencies": List[Dict[str, Any]],
    "paymentMethods": List[Dict[str, Any]],
})

class Capabilities(_CapabilitiesRequired):
    """Capabilities"""


_CollectionRequestRequired = TypedDict("_CollectionRequestRequired", {
    "amount": str,
    "clientRef": str,
    "currency": str,
    "phoneNumber": str,
})

_CollectionRequestOptional = TypedDict("_CollectionRequestOptional", {
    "description": str,
}, total=False)

class CollectionRequest(_CollectionRequestRequired, _CollectionRequestOptional):
    """CollectionRequest"""


_CreateAccountRequestRequired = TypedDict("_CreateAccountRequestRequired", {
    "country": str,
    "name": str,
})

_CreateAccountRequestOptional = TypedDict("_CreateAccountRequestOptional", {
    "clientRef": str,
}, total=False)

class CreateAccountRequest(_CreateAccountRequestRequired, _CreateAccountRequestOptional):
    """CreateAccountRequest"""


_CreateApplicationDocumentRequestRequired = TypedDict("_CreateApplicationDocumentRequestRequired", {
    "documentKey": str,
    "type": Literal["photo_id", "proof_of_address", "certificate_of_incorporation", "articles_of_association", "shareholder_register", "bank_statement", "other"],
})

_CreateApplicationDocumentRequestOptional = TypedDict("_CreateApplicationDocumentRequestOptional", {
    "personId": str,
}, total=False)

class CreateApplicationDocumentRequest(_CreateApplicationDocumentRequestRequired, _CreateApplicationDocumentRequestOptional):
    """CreateApplicationDocumentRequest"""


_CreateApplicationDocumentUploadUrlRequestRequired = TypedDict("_CreateApplicationDocumentUploadUrlRequestRequired", {
    "contentLength": int,
    "contentType": Literal["application/pdf", "image/jpeg", "image/png"],
})

class CreateApplicationDocumentUploadUrlRequest(_CreateApplicationDocumentUploadUrlRequestRequired):
    """CreateApplicationDocumentUploadUrlRequest"""


_CreateApplicationRequestRequired = TypedDict("_CreateApplicationRequestRequired", {
    "applicationType": Literal["business", "individual"],
})

_CreateApplicationRequestOptional = TypedDict("_CreateApplicationRequestOptional", {
    "applicant": Dict[str, Any],
    "businessActivity": Dict[str, Any],
    "businessInfo": Dict[str, Any],
    "companySize": Literal["sme", "large_corp", "licensed_fi"],
    "documents": List[Dict[str, Any]],
    "hasIndirectControl": bool,
    "indirectControlDetails": Optional[str],
    "individualActivity": Dict[str, Any],
    "persons": List['PersonInput'],
}, total=False)

class CreateApplicationRequest(_CreateApplicationRequestRequired, _CreateApplicationRequestOptional):
    """A business application (KYB) uses `companySize`, `businessInfo`, `businessActivity`, `persons` and the indirect-control answer; an individual one (KYC) uses `applicant` and `individualActivity`. A business may also name its applicant (`applicant`)."""


_CreateApplicationTermsAcceptanceRequestRequired = TypedDict("_CreateApplicationTermsAcceptanceRequestRequired", {
    "version": str,
})

class CreateApplicationTermsAcceptanceRequest(_CreateApplicationTermsAcceptanceRequestRequired):
    """CreateApplicationTermsAcceptanceRequest"""


_CreateBeneficiaryRequestOptional = TypedDict("_CreateBeneficiaryRequestOptional", {
    "accounts": List[Dict[str, Any]],
    "address": str,
    "addressLine2": str,
    "city": str,
    "country": str,
    "countrySubdivision": str,
    "dateOfBirth": str,
    "email": str,
    "id": str,
    "middleName": str,
    "name": str,
    "notes": str,
    "postcode": str,
    "registrationNumber": str,
    "type": Literal["individual", "business"],
}, total=False)

class CreateBeneficiaryRequest(_CreateBeneficiaryRequestOptional):
    """`accounts`, `country` and `name` are required unless `id` references an existing beneficiary"""


_CreateFxConversionRequestRequired = TypedDict("_CreateFxConversionRequestRequired", {
    "quoteId": str,
})

_CreateFxConversionRequestOptional = TypedDict("_CreateFxConversionRequestOptional", {
    "clientRef": str,
}, total=False)

class CreateFxConversionRequest(_CreateFxConversionRequestRequired, _CreateFxConversionRequestOptional):
    """CreateFxConversionRequest"""


_CreateFxQuoteRequestRequired = TypedDict("_CreateFxQuoteRequestRequired", {
    "fromCurrency": str,
    "intent": Literal["payout", "conversion"],
    "toCurrency": str,
})

_CreateFxQuoteRequestOptional = TypedDict("_CreateFxQuoteRequestOptional", {
    "fromAmount": str,
    "toAmount": str,
}, total=False)

class CreateFxQuoteRequest(_CreateFxQuoteRequestRequired, _CreateFxQuoteRequestOptional):
    """CreateFxQuoteRequest"""


_CreateOauthTokenRequestOptional = TypedDict("_CreateOauthTokenRequestOptional", {
    "audience": str,
    "client_id": str,
    "client_secret": str,
    "grant_type": str,
}, total=False)

class CreateOauthTokenRequest(_CreateOauthTokenRequestOptional):
    """CreateOauthTokenRequest"""


_CreateOauthTokenResponseRequired = TypedDict("_CreateOauthTokenResponseRequired", {
    "access_token": str,
    "expires_in": int,
    "token_type": Literal["Bearer"],
})

class CreateOauthTokenResponse(_CreateOauthTokenResponseRequired):
    """CreateOauthTokenResponse"""


_CreateOrderSettlementProofRequestRequired = TypedDict("_CreateOrderSettlementProofRequestRequired", {
    "proofKey": str,
})

class CreateOrderSettlementProofRequest(_CreateOrderSettlementProofRequestRequired):
    """CreateOrderSettlementProofRequest"""


_CreateOrderSettlementProofUploadUrlRequestRequired = TypedDict("_CreateOrderSettlementProofUploadUrlRequestRequired", {
    "contentLength": int,
    "contentType": Literal["application/pdf", "image/jpeg", "image/png"],
})

class CreateOrderSettlementProofUploadUrlRequest(_CreateOrderSettlementProofUploadUrlRequestRequired):
    """CreateOrderSettlementProofUploadUrlRequest"""


CreatePayoutRequest = Union['PayoutRequest', List['PayoutRequest']]


CreatePayoutResponse = Union['Payout', List[Union['Payout', 'PayoutRowError']]]


_CreateWebhookRequestRequired = TypedDict("_CreateWebhookRequestRequired", {
    "url": str,
})

_CreateWebhookRequestOptional = TypedDict("_CreateWebhookRequestOptional", {
    "description": Optional[str],
    "ed25519": bool,
    "events": Optional[List[Literal["payout.processing", "payout.paid", "payout.failed", "payout.reverted", "payout.cancelled", "payout.approval_required", "payout.recipient_check_required", "order.created", "order.awaiting_funds", "order.funds_received", "order.completed", "order.failed", "order.expired", "account.created", "application.under_review", "application.more_info_requested", "application.approved", "application.rejected", "virtual_account.active", "virtual_account.failed", "deposit.completed", "deposit.failed", "beneficiary.updated"]]],
}, total=False)

class CreateWebhookRequest(_CreateWebhookRequestRequired, _CreateWebhookRequestOptional):
    """CreateWebhookRequest"""


_DepositRequired = TypedDict("_DepositRequired", {
    "accountId": Optional[str],
    "amount": str,
    "blockNumber": Optional[str],
    "chain": Optional[str],
    "clientRef": str,
    "completedAt": Optional[str],
    "createdAt": str,
    "creditedAmount": Optional[str],
    "currency": str,
    "failureReason": Optional[str],
    "fromAddress": Optional[str],
    "id": str,
    "rail": Literal["bank_transfer", "mobile_money", "paybill", "mpesa_stk_push", "mobile_money_collection", "account_credit", "crypto"],
    "serviceFee": Optional[str],
    "status": Literal["pending", "processing", "completed", "failed", "in_review", "refunding", "refunded"],
    "txHash": Optional[str],
    "updatedAt": str,
    "virtualAccountId": Optional[str],
})

class Deposit(_DepositRequired):
    """`accountId` is the sub-account credited (null: the master account)."""


_DepositAddressRequired = TypedDict("_DepositAddressRequired", {
    "address": str,
    "chain": str,
    "network": str,
})

class DepositAddress(_DepositAddressRequired):
    """DepositAddress"""


_DepositCompletedEventRequired = TypedDict("_DepositCompletedEventRequired", {
    "createdAt": str,
    "data": 'DepositEventData',
    "id": str,
    "test": bool,
    "type": Literal["deposit.completed"],
})

_DepositCompletedEventOptional = TypedDict("_DepositCompletedEventOptional", {
    "accountId": Optional[str],
}, total=False)

class DepositCompletedEvent(_DepositCompletedEventRequired, _DepositCompletedEventOptional):
    """DepositCompletedEvent"""


_DepositEventDataRequired = TypedDict("_DepositEventDataRequired", {
    "amount": str,
    "clientRef": str,
    "creditedAmount": Optional[str],
    "currency": str,
    "id": str,
    "serviceFee": Optional[str],
    "status": Literal["pending", "processing", "completed", "failed", "in_review", "refunding", "refunded"],
})

class DepositEventData(_DepositEventDataRequired):
    """The deposit, as deposit.* events carry it"""


_DepositFailedEventRequired = TypedDict("_DepositFailedEventRequired", {
    "createdAt": str,
    "data": 'DepositEventData',
    "id": str,
    "test": bool,
    "type": Literal["deposit.failed"],
})

_DepositFailedEventOptional = TypedDict("_DepositFailedEventOptional", {
    "accountId": Optional[str],
}, total=False)

class DepositFailedEvent(_DepositFailedEventRequired, _DepositFailedEventOptional):
    """DepositFailedEvent"""


_DepositListRequired = TypedDict("_DepositListRequired", {
    "data": List['Deposit'],
    "hasMore": bool,
    "nextCursor": Optional[str],
    "object": Literal["deposit.list"],
})

class DepositList(_DepositListRequired):
    """DepositList"""


_DocumentUploadUrlRequired = TypedDict("_DocumentUploadUrlRequired", {
    "documentKey": str,
    "expiresAt": str,
    "uploadUrl": str,
})

class DocumentUploadUrl(_DocumentUploadUrlRequired):
    """DocumentUploadUrl"""


# Every code the API answers with; what each means, where, and what to do: GET /docs/errors
ErrorCode = Literal["VALIDATION_ERROR", "UNKNOWN_FIELD", "BAD_REQUEST", "UNAUTHORIZED", "TOKEN_EXPIRED", "CREDENTIAL_REVOKED", "FORBIDDEN", "ROLE_NOT_PERMITTED", "METHOD_NOT_ENTITLED", "WORKSPACE_SUSPENDED", "not_account_owner", "CAPABILITY_DISABLED", "NOT_FOUND", "CONFLICT", "PAYLOAD_TOO_LARGE", "UNSUPPORTED_MEDIA_TYPE", "UNPROCESSABLE_ENTITY", "RATE_LIMITED", "INTERNAL_ERROR", "BAD_GATEWAY", "SERVICE_UNAVAILABLE", "SERVICE_BUSY", "NOT_READY", "IDEMPOTENCY_KEY_INVALID", "IDEMPOTENCY_KEY_PROCESSING", "IDEMPOTENCY_KEY_REUSED", "INSUFFICIENT_BALANCE", "LIMIT_EXCEEDED", "PAYOUT_NOT_PERMITTED", "CORRIDOR_NOT_ENABLED", "AMOUNT_OUT_OF_BOUNDS", "UNSUPPORTED_CORRIDOR", "CORRIDOR_NOT_FOUND", "QUOTE_AMOUNT_MISMATCH", "QUOTE_EXPIRED", "QUOTE_ALREADY_USED", "QUOTE_INTENT_MISMATCH", "PAYOUT_NOT_CANCELLABLE", "PAYOUT_HELD", "APPROVAL_RULES_LIMIT", "APPROVAL_NOT_REQUIRED", "APPROVER_IS_CREATOR", "APPROVAL_NOT_PENDING", "RECIPIENT_CHECK_NOT_HELD", "RECIPIENT_ACCOUNT_NOT_FOUND", "RECIPIENT_CHECK_NOT_OFFERED", "SCREENING_HOLD_DECIDED", "SECOND_OPERATOR_REQUIRED", "LINE_ALREADY_DECIDED", "MOVEMENT_ALREADY_MATCHED", "EXCEPTION_ALREADY_RESOLVED", "INVALID_PAYOUT_STATE", "DUPLICATE_CLIENT_REF", "BENEFICIARY_SUSPENDED", "MISSING_BANK_ACCOUNT_DETAILS", "MISSING_BENEFICIARY_NAME", "RECIPIENT_DETAILS_INVALID", "BENEFICIARY_INCOMPLETE", "INVALID_IBAN", "INVALID_ACCOUNT_NUMBER", "INVALID_ROUTING_NUMBER", "SENDER_INFO_INCOMPLETE", "SENDER_INFO_INVALID", "ORIGINATOR_NOT_ON_RECORD", "UNSUPPORTED_CURRENCY", "CURRENCY_NOT_ENABLED", "CURRENCY_SANDBOX_ONLY", "SAME_CURRENCY", "RATE_UNAVAILABLE", "ORDER_NOT_AWAITING_FUNDS", "ORDER_NOT_SETTLEMENT_FUNDED", "INVALID_ORDER_STATE", "PROOF_NOT_REQUIRED", "PROOF_NOT_UPLOADED", "SETTLEMENT_UNAVAILABLE", "APPLICATION_INCOMPLETE", "APPLICATION_NOT_EDITABLE", "APPLICATION_SECTION_LOCKED", "APPLICATION_STATE_CONFLICT", "APPLICATION_TYPE_MISMATCH", "APPLICATION_PERSONS_MAX", "APPLICATION_DOCUMENTS_MAX", "DOCUMENT_KEY_USED", "DOCUMENT_NOT_UPLOADED", "TERMS_NOT_ACCEPTED", "TERMS_VERSION_NOT_CURRENT", "UPLOAD_SIZE_MISMATCH", "UPLOAD_TOO_LARGE", "UPLOAD_TYPE_NOT_ALLOWED", "UPLOAD_TYPE_MISMATCH", "UPLOAD_URL_INVALID", "UPLOAD_URL_EXPIRED", "UPLOAD_URL_USED", "KYB_INCOMPLETE", "VIRTUAL_ACCOUNT_DEACTIVATED", "VIRTUAL_ACCOUNT_NOT_ACTIVE", "VIRTUAL_ACCOUNT_REFUSED", "COLLECTIONS_NOT_OFFERED", "VIRTUAL_ACCOUNT_REQUIRED", "VIRTUAL_ACCOUNT_SELF_SERVE_UNSUPPORTED", "VIRTUAL_ACCOUNT_VERIFICATION_REQUIRED", "INVALID_VIRTUAL_ACCOUNT_STATE", "INVALID_DEPOSIT_STATE", "EVENT_STREAMS_EXCEEDED", "LAST_EVENT_ID_UNKNOWN", "URL_INVALID", "URL_NOT_HTTPS", "URL_NOT_ALLOWED", "WEBHOOK_ADDRESS_BLOCKED", "WEBHOOK_ENDPOINT_DISABLED", "WEBHOOK_DELIVERY_PENDING", "WEBHOOK_ENDPOINT_LIMIT", "OWN_API_KEYS_SCOPE_REQUIRED", "USER_EXISTS", "USER_NOT_INVITED", "USER_NOT_ACTIVE", "USER_NOT_DISABLED", "CANNOT_CHANGE_SELF", "PASSWORD_TOO_WEAK", "CHAIN_PAYOUT_NOT_FOUND", "CHAIN_PAYOUT_NOT_IN_CONFLICT", "CHAIN_PAYOUT_BUSY", "CHAIN_NOT_CONFIGURED", "CHAIN_NOT_FOUND", "CHAIN_DEPOSIT_DECIDED", "DEDICATED_ACCOUNT_TAKEN", "PROVIDER_REFUSED", "PROVIDER_UNAVAILABLE", "CHAIN_DEPOSIT_NOT_CREDITABLE", "ORDER_HELD"]


# The webhook envelope {id, type, createdAt, test, data} as delivered; GET /v1/events and the stream add `accountId`, the sub-account it concerns (null: the workspace itself); `data` by `type`
Event = Union['PayoutProcessingEvent', 'PayoutPaidEvent', 'PayoutFailedEvent', 'PayoutRevertedEvent', 'PayoutCancelledEvent', 'PayoutApprovalRequiredEvent', 'PayoutRecipientCheckRequiredEvent', 'OrderCreatedEvent', 'OrderAwaitingFundsEvent', 'OrderFundsReceivedEvent', 'OrderCompletedEvent', 'OrderFailedEvent', 'OrderExpiredEvent', 'AccountCreatedEvent', 'ApplicationUnderReviewEvent', 'ApplicationMoreInfoRequestedEvent', 'ApplicationApprovedEvent', 'ApplicationRejectedEvent', 'VirtualAccountActiveEvent', 'VirtualAccountFailedEvent', 'DepositCompletedEvent', 'DepositFailedEvent', 'BeneficiaryUpdatedEvent', 'WebhookTestEvent']


_EventListRequired = TypedDict("_EventListRequired", {
    "data": List['Event'],
    "hasMore": bool,
    "nextCursor": Optional[str],
    "object": Literal["event.list"],
})

class EventList(_EventListRequired):
    """EventList"""


_FieldErrorRequired = TypedDict("_FieldErrorRequired", {
    "field": str,
    "message": str,
})

_FieldErrorOptional = TypedDict("_FieldErrorOptional", {
    "code": str,
    "value": Any,
}, total=False)

class FieldError(_FieldErrorRequired, _FieldErrorOptional):
    """FieldError"""


_FxConversionRequired = TypedDict("_FxConversionRequired", {
    "clientRef": Optional[str],
    "createdAt": str,
    "fromAmount": str,
    "fromCurrency": str,
    "id": str,
    "quoteId": str,
    "rate": str,
    "status": Literal["completed"],
    "toAmount": str,
    "toCurrency": str,
})

class FxConversion(_FxConversionRequired):
    """FxConversion"""


_FxQuoteRequired = TypedDict("_FxQuoteRequired", {
    "createdAt": str,
    "expiresAt": str,
    "fee": str,
    "fromAmount": str,
    "fromCurrency": str,
    "id": str,
    "intent": Literal["payout", "conversion"],
    "inverseRate": str,
    "midRate": str,
    "rate": str,
    "spreadBps": int,
    "status": Literal["open", "used", "expired"],
    "toAmount": str,
    "toCurrency": str,
})

class FxQuote(_FxQuoteRequired):
    """FxQuote"""


_FxRateRequired = TypedDict("_FxRateRequired", {
    "asOf": str,
    "from": str,
    "inverseRate": str,
    "midRate": str,
    "rate": str,
    "spreadBps": int,
    "to": str,
})

class FxRate(_FxRateRequired):
    """FxRate"""


_FxRateListRequired = TypedDict("_FxRateListRequired", {
    "data": List['FxRate'],
    "object": Literal["fx_rate.list"],
})

class FxRateList(_FxRateListRequired):
    """FxRateList"""


_GetHealthzResponseRequired = TypedDict("_GetHealthzResponseRequired", {
    "status": Literal["ok"],
})

class GetHealthzResponse(_GetHealthzResponseRequired):
    """GetHealthzResponse"""


_GetReadyzResponseRequired = TypedDict("_GetReadyzResponseRequired", {
    "status": Literal["ok"],
})

class GetReadyzResponse(_GetReadyzResponseRequired):
    """GetReadyzResponse"""


_JWKSRequired = TypedDict("_JWKSRequired", {
    "keys": List[Dict[str, Any]],
})

class JWKS(_JWKSRequired):
    """JWKS"""


_LedgerBalancesRequired = TypedDict("_LedgerBalancesRequired", {
    "balances": List['BalanceEntry'],
    "calculatedAt": str,
    "clientId": str,
    "primaryCurrency": str,
    "totalValueEur": str,
    "userId": str,
})

class LedgerBalances(_LedgerBalancesRequired):
    """LedgerBalances"""


_LedgerTransactionRequired = TypedDict("_LedgerTransactionRequired", {
    "amount": str,
    "createdAt": str,
    "currency": str,
    "description": Optional[str],
    "direction": Literal["debit", "credit"],
    "id": str,
    "objectId": Optional[str],
    "objectType": str,
    "status": Literal["posted", "pending", "voided"],
})

class LedgerTransaction(_LedgerTransactionRequired):
    """LedgerTransaction"""


_LedgerTransactionListRequired = TypedDict("_LedgerTransactionListRequired", {
    "data": List['LedgerTransaction'],
    "hasMore": bool,
    "nextCursor": Optional[str],
    "object": Literal["ledger_transaction.list"],
})

class LedgerTransactionList(_LedgerTransactionListRequired):
    """LedgerTransactionList"""


_LegacyCreateFxConversionRequestRequired = TypedDict("_LegacyCreateFxConversionRequestRequired", {
    "quoteId": str,
})

_LegacyCreateFxConversionRequestOptional = TypedDict("_LegacyCreateFxConversionRequestOptional", {
    "clientRef": str,
}, total=False)

class LegacyCreateFxConversionRequest(_LegacyCreateFxConversionRequestRequired, _LegacyCreateFxConversionRequestOptional):
    """LegacyCreateFxConversionRequest"""


_LegacyCreateFxQuoteRequestRequired = TypedDict("_LegacyCreateFxQuoteRequestRequired", {
    "fromCurrency": str,
    "intent": Literal["payout", "conversion"],
    "toCurrency": str,
})

_LegacyCreateFxQuoteRequestOptional = TypedDict("_LegacyCreateFxQuoteRequestOptional", {
    "fromAmount": str,
    "toAmount": str,
}, total=False)

class LegacyCreateFxQuoteRequest(_LegacyCreateFxQuoteRequestRequired, _LegacyCreateFxQuoteRequestOptional):
    """LegacyCreateFxQuoteRequest"""


_LegacyErrorRequired = TypedDict("_LegacyErrorRequired", {
    "message": str,
    "statusCode": int,
})

_LegacyErrorOptional = TypedDict("_LegacyErrorOptional", {
    "code": 'ErrorCode',
    "doc_url": str,
    "error": str,
    "path": str,
    "scope": str,
    "timestamp": str,
}, total=False)

class LegacyError(_LegacyErrorRequired, _LegacyErrorOptional):
    """The legacy error envelope"""


_OrderRequired = TypedDict("_OrderRequired", {
    "beneficiaryId": Optional[str],
    "clientRef": Optional[str],
    "completedAt": Optional[str],
    "createdAt": str,
    "executionDeadlineAt": Optional[str],
    "failureReason": Optional[Literal["execution_failed", "review_expired"]],
    "fromAmount": str,
    "fromCurrency": str,
    "fundedAt": Optional[str],
    "funding": Literal["balance", "settlement"],
    "fundingDeadlineAt": str,
    "id": str,
    "rate": str,
    "settlement": Optional['Settlement'],
    "status": Literal["awaiting_funds", "funds_received", "executing", "completed", "failed", "expired", "cancelled"],
    "toAmount": str,
    "toCurrency": str,
    "uetr": Optional[str],
    "updatedAt": str,
})

_OrderOptional = TypedDict("_OrderOptional", {
    "accountId": str,
}, total=False)

class Order(_OrderRequired, _OrderOptional):
    """Order"""


_OrderAwaitingFundsEventRequired = TypedDict("_OrderAwaitingFundsEventRequired", {
    "createdAt": str,
    "data": 'OrderEventData',
    "id": str,
    "test": bool,
    "type": Literal["order.awaiting_funds"],
})

_OrderAwaitingFundsEventOptional = TypedDict("_OrderAwaitingFundsEventOptional", {
    "accountId": Optional[str],
}, total=False)

class OrderAwaitingFundsEvent(_OrderAwaitingFundsEventRequired, _OrderAwaitingFundsEventOptional):
    """OrderAwaitingFundsEvent"""


_OrderCompletedEventRequired = TypedDict("_OrderCompletedEventRequired", {
    "createdAt": str,
    "data": 'OrderEventData',
    "id": str,
    "test": bool,
    "type": Literal["order.completed"],
})

_OrderCompletedEventOptional = TypedDict("_OrderCompletedEventOptional", {
    "accountId": Optional[str],
}, total=False)

class OrderCompletedEvent(_OrderCompletedEventRequired, _OrderCompletedEventOptional):
    """OrderCompletedEvent"""


_OrderCreatedEventRequired = TypedDict("_OrderCreatedEventRequired", {
    "createdAt": str,
    "data": 'OrderEventData',
    "id": str,
    "test": bool,
    "type": Literal["order.created"],
})

_OrderCreatedEventOptional = TypedDict("_OrderCreatedEventOptional", {
    "accountId": Optional[str],
}, total=False)

class OrderCreatedEvent(_OrderCreatedEventRequired, _OrderCreatedEventOptional):
    """OrderCreatedEvent"""


_OrderEventDataRequired = TypedDict("_OrderEventDataRequired", {
    "clientRef": Optional[str],
    "completedAt": Optional[str],
    "createdAt": str,
    "executionDeadlineAt": Optional[str],
    "failureReason": Optional[Literal["execution_failed", "review_expired"]],
    "fromAmount": str,
    "fromCurrency": str,
    "fundedAt": Optional[str],
    "fundingDeadlineAt": str,
    "id": str,
    "rate": str,
    "settlement": Optional['Settlement'],
    "status": Literal["awaiting_funds", "funds_received", "executing", "completed", "failed", "expired", "cancelled"],
    "toAmount": str,
    "toCurrency": str,
    "uetr": Optional[str],
})

class OrderEventData(_OrderEventDataRequired):
    """The order, as order.* events carry it"""


_OrderExpiredEventRequired = TypedDict("_OrderExpiredEventRequired", {
    "createdAt": str,
    "data": 'OrderEventData',
    "id": str,
    "test": bool,
    "type": Literal["order.expired"],
})

_OrderExpiredEventOptional = TypedDict("_OrderExpiredEventOptional", {
    "accountId": Optional[str],
}, total=False)

class OrderExpiredEvent(_OrderExpiredEventRequired, _OrderExpiredEventOptional):
    """OrderExpiredEvent"""


_OrderFailedEventRequired = TypedDict("_OrderFailedEventRequired", {
    "createdAt": str,
    "data": 'OrderEventData',
    "id": str,
    "test": bool,
    "type": Literal["order.failed"],
})

_OrderFailedEventOptional = TypedDict("_OrderFailedEventOptional", {
    "accountId": Optional[str],
}, total=False)

class OrderFailedEvent(_OrderFailedEventRequired, _OrderFailedEventOptional):
    """OrderFailedEvent"""


_OrderFundsReceivedEventRequired = TypedDict("_OrderFundsReceivedEventRequired", {
    "createdAt": str,
    "data": 'OrderEventData',
    "id": str,
    "test": bool,
    "type": Literal["order.funds_received"],
})

_OrderFundsReceivedEventOptional = TypedDict("_OrderFundsReceivedEventOptional", {
    "accountId": Optional[str],
}, total=False)

class OrderFundsReceivedEvent(_OrderFundsReceivedEventRequired, _OrderFundsReceivedEventOptional):
    """OrderFundsReceivedEvent"""


_OrderListRequired = TypedDict("_OrderListRequired", {
    "data": List['Order'],
    "hasMore": bool,
    "nextCursor": Optional[str],
    "object": Literal["order.list"],
})

class OrderList(_OrderListRequired):
    """OrderList"""


_OrderRequestRequired = TypedDict("_OrderRequestRequired", {
    "fromCurrency": str,
    "toCurrency": str,
})

_OrderRequestOptional = TypedDict("_OrderRequestOptional", {
    "beneficiary": Dict[str, Any],
    "clientRef": str,
    "fromAmount": str,
    "funding": Literal["balance", "settlement"],
    "toAmount": str,
}, total=False)

class OrderRequest(_OrderRequestRequired, _OrderRequestOptional):
    """OrderRequest"""


_PayoutRequired = TypedDict("_PayoutRequired", {
    "amount": str,
    "beneficiaryId": Optional[str],
    "clientRef": str,
    "completedAt": Optional[str],
    "createdAt": str,
    "currency": str,
    "failureReason": Optional[str],
    "fee": str,
    "feeCurrency": str,
    "id": str,
    "route": str,
    "status": Literal["created", "queued", "processing", "paid", "failed", "cancelled"],
    "updatedAt": str,
})

_PayoutOptional = TypedDict("_PayoutOptional", {
    "accountId": str,
    "approval": 'PayoutApproval',
    "chain": str,
    "deliveredAmount": str,
    "metadata": Dict[str, str],
    "purpose": str,
    "quoteId": str,
    "recipientCheck": 'RecipientCheck',
    "reference": str,
    "returnReason": 'ReturnReason',
    "screening": 'PayoutScreening',
    "txHash": str,
    "uetr": str,
}, total=False)

class Payout(_PayoutRequired, _PayoutOptional):
    """Payout"""


_PayoutApprovalRequired = TypedDict("_PayoutApprovalRequired", {
    "decidedAt": Optional[str],
    "decidedBy": Optional[str],
    "expiresAt": str,
    "reason": Optional[str],
    "requestedBy": str,
    "rule": 'ApprovalRule',
    "status": Literal["pending", "approved", "rejected", "expired", "withdrawn"],
})

class PayoutApproval(_PayoutApprovalRequired):
    """Present when an approval rule of the workspace held the payout at creation (see POST /v1/approval-rules)"""


_PayoutApprovalRequiredEventRequired = TypedDict("_PayoutApprovalRequiredEventRequired", {
    "createdAt": str,
    "data": 'PayoutEventData',
    "id": str,
    "test": bool,
    "type": Literal["payout.approval_required"],
})

_PayoutApprovalRequiredEventOptional = TypedDict("_PayoutApprovalRequiredEventOptional", {
    "accountId": Optional[str],
}, total=False)

class PayoutApprovalRequiredEvent(_PayoutApprovalRequiredEventRequired, _PayoutApprovalRequiredEventOptional):
    """PayoutApprovalRequiredEvent"""


_PayoutCancelledEventRequired = TypedDict("_PayoutCancelledEventRequired", {
    "createdAt": str,
    "data": 'PayoutEventData',
    "id": str,
    "test": bool,
    "type": Literal["payout.cancelled"],
})

_PayoutCancelledEventOptional = TypedDict("_PayoutCancelledEventOptional", {
    "accountId": Optional[str],
}, total=False)

class PayoutCancelledEvent(_PayoutCancelledEventRequired, _PayoutCancelledEventOptional):
    """PayoutCancelledEvent"""


_PayoutEventDataRequired = TypedDict("_PayoutEventDataRequired", {
    "amount": str,
    "clientRef": str,
    "completedAt": Optional[str],
    "currency": str,
    "id": str,
    "status": Literal["created", "queued", "processing", "paid", "failed", "cancelled"],
})

_PayoutEventDataOptional = TypedDict("_PayoutEventDataOptional", {
    "approval": 'PayoutApproval',
    "chain": str,
    "recipientCheck": 'RecipientCheck',
    "returnReason": 'ReturnReason',
    "txHash": str,
    "uetr": str,
}, total=False)

class PayoutEventData(_PayoutEventDataRequired, _PayoutEventDataOptional):
    """The payout, as payout.* events carry it: the fields of spec §Events, what the rail reported (`returnReason`, `uetr`, `txHash`, `chain`, when it did) and, on payout.approval_required, the `approval` that holds it, on payout.recipient_check_required, the `recipientCheck` that holds it (both names)"""


_PayoutFailedEventRequired = TypedDict("_PayoutFailedEventRequired", {
    "createdAt": str,
    "data": 'PayoutEventData',
    "id": str,
    "test": bool,
    "type": Literal["payout.failed"],
})

_PayoutFailedEventOptional = TypedDict("_PayoutFailedEventOptional", {
    "accountId": Optional[str],
}, total=False)

class PayoutFailedEvent(_PayoutFailedEventRequired, _PayoutFailedEventOptional):
    """PayoutFailedEvent"""


_PayoutListRequired = TypedDict("_PayoutListRequired", {
    "data": List['Payout'],
    "hasMore": bool,
    "nextCursor": Optional[str],
    "object": Literal["payout.list"],
})

class PayoutList(_PayoutListRequired):
    """PayoutList"""


_PayoutPaidEventRequired = TypedDict("_PayoutPaidEventRequired", {
    "createdAt": str,
    "data": 'PayoutEventData',
    "id": str,
    "test": bool,
    "type": Literal["payout.paid"],
})

_PayoutPaidEventOptional = TypedDict("_PayoutPaidEventOptional", {
    "accountId": Optional[str],
}, total=False)

class PayoutPaidEvent(_PayoutPaidEventRequired, _PayoutPaidEventOptional):
    """PayoutPaidEvent"""


_PayoutProcessingEventRequired = TypedDict("_PayoutProcessingEventRequired", {
    "createdAt": str,
    "data": 'PayoutEventData',
    "id": str,
    "test": bool,
    "type": Literal["payout.processing"],
})

_PayoutProcessingEventOptional = TypedDict("_PayoutProcessingEventOptional", {
    "accountId": Optional[str],
}, total=False)

class PayoutProcessingEvent(_PayoutProcessingEventRequired, _PayoutProcessingEventOptional):
    """PayoutProcessingEvent"""


_PayoutRecipientCheckRequiredEventRequired = TypedDict("_PayoutRecipientCheckRequiredEventRequired", {
    "createdAt": str,
    "data": 'PayoutEventData',
    "id": str,
    "test": bool,
    "type": Literal["payout.recipient_check_required"],
})

_PayoutRecipientCheckRequiredEventOptional = TypedDict("_PayoutRecipientCheckRequiredEventOptional", {
    "accountId": Optional[str],
}, total=False)

class PayoutRecipientCheckRequiredEvent(_PayoutRecipientCheckRequiredEventRequired, _PayoutRecipientCheckRequiredEventOptional):
    """PayoutRecipientCheckRequiredEvent"""


_PayoutRequestRequired = TypedDict("_PayoutRequestRequired", {
    "amount": str,
    "beneficiary": Dict[str, Any],
    "clientRef": str,
    "currency": str,
})

_PayoutRequestOptional = TypedDict("_PayoutRequestOptional", {
    "metadata": Dict[str, str],
    "purpose": str,
    "quoteId": str,
    "reference": str,
    "route": Literal["sepa_inst", "sepa_credit", "bank_transfer", "ach", "fedwire", "swift", "crypto", "mobile_money"],
    "senderInfo": 'SenderInfo',
}, total=False)

class PayoutRequest(_PayoutRequestRequired, _PayoutRequestOptional):
    """PayoutRequest"""


_PayoutRequirementsRequired = TypedDict("_PayoutRequirementsRequired", {
    "beneficiary": Dict[str, Any],
    "sender": Dict[str, Any],
})

class PayoutRequirements(_PayoutRequirementsRequired):
    """PayoutRequirements"""


_PayoutRevertedEventRequired = TypedDict("_PayoutRevertedEventRequired", {
    "createdAt": str,
    "data": 'PayoutEventData',
    "id": str,
    "test": bool,
    "type": Literal["payout.reverted"],
})

_PayoutRevertedEventOptional = TypedDict("_PayoutRevertedEventOptional", {
    "accountId": Optional[str],
}, total=False)

class PayoutRevertedEvent(_PayoutRevertedEventRequired, _PayoutRevertedEventOptional):
    """PayoutRevertedEvent"""


_PayoutRowErrorRequired = TypedDict("_PayoutRowErrorRequired", {
    "clientRef": str,
    "error": str,
})

class PayoutRowError(_PayoutRowErrorRequired):
    """PayoutRowError"""


_PayoutScreeningRequired = TypedDict("_PayoutScreeningRequired", {
    "hits": List['ScreeningHit'],
    "status": Literal["clear", "held", "released", "rejected", "withdrawn"],
})

class PayoutScreening(_PayoutScreeningRequired):
    """Sanctions screening of the beneficiary and the sender at submit"""


_PersonInputRequired = TypedDict("_PersonInputRequired", {
    "firstName": str,
    "lastName": str,
})

_PersonInputOptional = TypedDict("_PersonInputOptional", {
    "bvn": str,
    "dateOfBirth": str,
    "emailAddress": str,
    "middleName": str,
    "nationalId": str,
    "nationality": str,
    "occupationCode": str,
    "ownershipPercentage": float,
    "phoneNumber": str,
    "residentialAddress": Dict[str, Any],
    "taxId": str,
    "title": str,
}, total=False)

class PersonInput(_PersonInputRequired, _PersonInputOptional):
    """PersonInput"""


_ProblemRequired = TypedDict("_ProblemRequired", {
    "category": Literal["invalid_request", "authentication", "permission", "not_found", "conflict", "rate_limit", "provider", "internal"],
    "code": 'ErrorCode',
    "detail": str,
    "request_id": str,
    "retryable": bool,
    "status": int,
    "title": str,
    "type": str,
})

_ProblemOptional = TypedDict("_ProblemOptional", {
    "doc_url": str,
    "errors": List['FieldError'],
    "errorsOmitted": int,
    "param": str,
    "scope": str,
}, total=False)

class Problem(_ProblemRequired, _ProblemOptional):
    """Problem details (RFC 9457)"""


_ProofUploadRequired = TypedDict("_ProofUploadRequired", {
    "expiresAt": str,
    "proofKey": str,
    "uploadUrl": str,
})

class ProofUpload(_ProofUploadRequired):
    """ProofUpload"""


_RecipientCheckRequired = TypedDict("_RecipientCheckRequired", {
    "checkedAt": Optional[str],
    "connector": str,
    "decidedAt": Optional[str],
    "decidedBy": Optional[str],
    "name": str,
    "railName": Optional[str],
    "reason": Optional[str],
    "result": Optional[Literal["match", "close_match", "no_match", "account_not_found", "unavailable"]],
    "status": Literal["pending", "passed", "held", "confirmed", "withdrawn"],
})

class RecipientCheck(_RecipientCheckRequired):
    """The beneficiary's account and name checked with the rail before paying, present where the connector serving the payout's route offers it (Confirmation of Payee for GBP Faster Payments through ClearBank, NIBSS's NIP name enquiry for NGN transfers through Paystack, a mobile-money account-name lookup). A payout is not sent while its check is `pending` or `held`: a held payout waits, its funds held, until the workspace confirms it (POST /v1/payouts/{id}/recipient-check/confirm) or cancels it."""


_RequestLogRequired = TypedDict("_RequestLogRequired", {
    "accountId": str,
    "caller": str,
    "createdAt": str,
    "durationMs": int,
    "id": str,
    "idempotencyKey": Optional[str],
    "method": str,
    "object": Literal["request_log"],
    "path": str,
    "requestBody": Any,
    "requestId": str,
    "responseBody": Any,
    "status": int,
})

class RequestLog(_RequestLogRequired):
    """RequestLog"""


_RequestLogListRequired = TypedDict("_RequestLogListRequired", {
    "data": List['RequestLog'],
    "hasMore": bool,
    "nextCursor": Optional[str],
    "object": Literal["request_log.list"],
})

class RequestLogList(_RequestLogListRequired):
    """RequestLogList"""


_RequirementRuleRequired = TypedDict("_RequirementRuleRequired", {
    "description": str,
    "field": Literal["name"],
    "pattern": str,
})

class RequirementRule(_RequirementRuleRequired):
    """RequirementRule"""


_ReturnReasonRequired = TypedDict("_ReturnReasonRequired", {
    "code": str,
    "description": str,
})

class ReturnReason(_ReturnReasonRequired):
    """Why the bank rejected or returned the payout (bank connectors only); also in the payout's events"""


_RotateWebhookSecretRequestOptional = TypedDict("_RotateWebhookSecretRequestOptional", {
    "graceSeconds": int,
}, total=False)

class RotateWebhookSecretRequest(_RotateWebhookSecretRequestOptional):
    """RotateWebhookSecretRequest"""


_SandboxApproveVirtualAccountRequestOptional = TypedDict("_SandboxApproveVirtualAccountRequestOptional", {
    "details": Dict[str, Any],
    "reason": str,
}, total=False)

class SandboxApproveVirtualAccountRequest(_SandboxApproveVirtualAccountRequestOptional):
    """SandboxApproveVirtualAccountRequest"""


_SandboxCompleteDepositRequestOptional = TypedDict("_SandboxCompleteDepositRequestOptional", {
    "reason": str,
}, total=False)

class SandboxCompleteDepositRequest(_SandboxCompleteDepositRequestOptional):
    """SandboxCompleteDepositRequest"""


_SandboxCompleteOrderRequestOptional = TypedDict("_SandboxCompleteOrderRequestOptional", {
    "rate": str,
    "toAmount": str,
    "uetr": str,
}, total=False)

class SandboxCompleteOrderRequest(_SandboxCompleteOrderRequestOptional):
    """SandboxCompleteOrderRequest"""


_SandboxDeactivateVirtualAccountRequestOptional = TypedDict("_SandboxDeactivateVirtualAccountRequestOptional", {
    "details": Dict[str, Any],
    "reason": str,
}, total=False)

class SandboxDeactivateVirtualAccountRequest(_SandboxDeactivateVirtualAccountRequestOptional):
    """SandboxDeactivateVirtualAccountRequest"""


_SandboxDepositRequestRequired = TypedDict("_SandboxDepositRequestRequired", {
    "amount": str,
})

_SandboxDepositRequestOptional = TypedDict("_SandboxDepositRequestOptional", {
    "clientRef": str,
    "currency": str,
    "outcome": Literal["completed", "failed", "in_review", "pending", "processing"],
    "rail": Literal["bank_transfer", "mobile_money", "paybill", "mpesa_stk_push", "mobile_money_collection", "account_credit", "crypto"],
    "virtualAccountId": str,
}, total=False)

class SandboxDepositRequest(_SandboxDepositRequestRequired, _SandboxDepositRequestOptional):
    """SandboxDepositRequest"""


_SandboxFailDepositRequestOptional = TypedDict("_SandboxFailDepositRequestOptional", {
    "reason": str,
}, total=False)

class SandboxFailDepositRequest(_SandboxFailDepositRequestOptional):
    """SandboxFailDepositRequest"""


_SandboxFailPayoutRequestOptional = TypedDict("_SandboxFailPayoutRequestOptional", {
    "reason": str,
}, total=False)

class SandboxFailPayoutRequest(_SandboxFailPayoutRequestOptional):
    """SandboxFailPayoutRequest"""


_SandboxFailVirtualAccountRequestOptional = TypedDict("_SandboxFailVirtualAccountRequestOptional", {
    "details": Dict[str, Any],
    "reason": str,
}, total=False)

class SandboxFailVirtualAccountRequest(_SandboxFailVirtualAccountRequestOptional):
    """SandboxFailVirtualAccountRequest"""


_SandboxFundBalanceRequestRequired = TypedDict("_SandboxFundBalanceRequestRequired", {
    "amount": str,
    "currency": str,
})

class SandboxFundBalanceRequest(_SandboxFundBalanceRequestRequired):
    """SandboxFundBalanceRequest"""


_SandboxReviewApplicationRequestRequired = TypedDict("_SandboxReviewApplicationRequestRequired", {
    "decision": Literal["approve", "reject", "request_info"],
})

_SandboxReviewApplicationRequestOptional = TypedDict("_SandboxReviewApplicationRequestOptional", {
    "editableSections": List[Literal["applicant", "businessInfo", "businessActivity", "individualActivity", "persons", "documents"]],
    "reason": str,
}, total=False)

class SandboxReviewApplicationRequest(_SandboxReviewApplicationRequestRequired, _SandboxReviewApplicationRequestOptional):
    """SandboxReviewApplicationRequest"""


_ScreeningHitRequired = TypedDict("_ScreeningHitRequired", {
    "entryId": str,
    "entryName": str,
    "list": Literal["ofac-sdn", "un", "eu", "uk-ofsi"],
    "matchedName": str,
    "score": float,
})

_ScreeningHitOptional = TypedDict("_ScreeningHitOptional", {
    "address": str,
    "currency": str,
}, total=False)

class ScreeningHit(_ScreeningHitRequired, _ScreeningHitOptional):
    """ScreeningHit"""


_SenderFieldsRequired = TypedDict("_SenderFieldsRequired", {
    "optional": List[Literal["firstName", "lastName", "dateOfBirth", "companyName", "registrationNumber", "address", "postalCode", "city", "country", "phoneNumber", "fundOrigin", "gender"]],
    "required": List[Literal["firstName", "lastName", "dateOfBirth", "companyName", "registrationNumber", "address", "postalCode", "city", "country", "phoneNumber", "fundOrigin", "gender"]],
})

class SenderFields(_SenderFieldsRequired):
    """SenderFields"""


_SenderInfoRequired = TypedDict("_SenderInfoRequired", {
    "type": Literal["individual", "business"],
})

_SenderInfoOptional = TypedDict("_SenderInfoOptional", {
    "address": str,
    "city": str,
    "companyName": str,
    "country": str,
    "dateOfBirth": str,
    "firstName": str,
    "fundOrigin": str,
    "gender": str,
    "lastName": str,
    "phoneNumber": str,
    "postalCode": str,
    "registrationNumber": str,
}, total=False)

class SenderInfo(_SenderInfoRequired, _SenderInfoOptional):
    """The originator. Keys outside the corridor lists are dropped from the stored identity, which is stored encrypted."""


_SetApiKeyScopesRequestRequired = TypedDict("_SetApiKeyScopesRequestRequired", {
    "scopes": List[str],
})

class SetApiKeyScopesRequest(_SetApiKeyScopesRequestRequired):
    """SetApiKeyScopesRequest"""


_SetApiKeyScopesResponseRequired = TypedDict("_SetApiKeyScopesResponseRequired", {
    "clientId": str,
    "message": Literal["Scopes updated"],
    "scopes": List[str],
})

class SetApiKeyScopesResponse(_SetApiKeyScopesResponseRequired):
    """SetApiKeyScopesResponse"""


_SettlementRequired = TypedDict("_SettlementRequired", {
    "currency": str,
    "expiresAt": str,
    "instructions": Dict[str, str],
    "method": Literal["bank_transfer", "crypto"],
    "reference": str,
    "requiredAmount": str,
    "requirements": Dict[str, Any],
    "settlementId": str,
    "status": Literal["pending", "proof_submitted", "received", "expired", "cancelled"],
})

class Settlement(_SettlementRequired):
    """Settlement"""


_TermsRequired = TypedDict("_TermsRequired", {
    "url": str,
    "version": str,
})

class Terms(_TermsRequired):
    """Terms"""


_UnauthorizedRequired = TypedDict("_UnauthorizedRequired", {
    "message": str,
    "statusCode": Literal[401],
})

class Unauthorized(_UnauthorizedRequired):
    """Missing, invalid or expired token"""


_UpdateApplicationPersonRequestOptional = TypedDict("_UpdateApplicationPersonRequestOptional", {
    "bvn": Optional[str],
    "dateOfBirth": Optional[str],
    "emailAddress": Optional[str],
    "firstName": str,
    "lastName": str,
    "middleName": Optional[str],
    "nationalId": Optional[str],
    "nationality": Optional[str],
    "occupationCode": Optional[str],
    "ownershipPercentage": Optional[float],
    "phoneNumber": Optional[str],
    "residentialAddress": Optional[Dict[str, Any]],
    "taxId": Optional[str],
    "title": Optional[str],
}, total=False)

class UpdateApplicationPersonRequest(_UpdateApplicationPersonRequestOptional):
    """Partial update: an absent field keeps its value, null clears an optional one"""


_UpdateApplicationRequestOptional = TypedDict("_UpdateApplicationRequestOptional", {
    "applicant": Optional[Dict[str, Any]],
    "businessActivity": Optional[Dict[str, Any]],
    "businessInfo": Optional[Dict[str, Any]],
    "companySize": Optional[Literal["sme", "large_corp", "licensed_fi"]],
    "hasIndirectControl": Optional[bool],
    "indirectControlDetails": Optional[str],
    "individualActivity": Optional[Dict[str, Any]],
}, total=False)

class UpdateApplicationRequest(_UpdateApplicationRequestOptional):
    """Edits by section. Inside a section an absent field keeps its value and null clears it; a section set to null is cleared. `companySize`, `hasIndirectControl` and `indirectControlDetails` belong to the businessInfo section. Allowed in draft; in more_info_requested only for the sections in `editableSections` (409 APPLICATION_SECTION_LOCKED otherwise); 409 APPLICATION_NOT_EDITABLE in under_review, approved or rejected."""


_UpdateBeneficiaryRequestOptional = TypedDict("_UpdateBeneficiaryRequestOptional", {
    "accounts": List[Dict[str, Any]],
    "address": Optional[str],
    "addressLine2": Optional[str],
    "city": Optional[str],
    "country": str,
    "countrySubdivision": Optional[str],
    "dateOfBirth": Optional[str],
    "email": Optional[str],
    "middleName": Optional[str],
    "name": str,
    "notes": Optional[str],
    "postcode": Optional[str],
    "registrationNumber": Optional[str],
    "status": Literal["active", "inactive"],
    "type": Literal["individual", "business"],
}, total=False)

class UpdateBeneficiaryRequest(_UpdateBeneficiaryRequestOptional):
    """Partial update: an absent field keeps its value, null clears an optional field. The result is validated again as a whole."""


_UpdateWebhookRequestOptional = TypedDict("_UpdateWebhookRequestOptional", {
    "description": Optional[str],
    "ed25519": bool,
    "events": Optional[List[Literal["payout.processing", "payout.paid", "payout.failed", "payout.reverted", "payout.cancelled", "payout.approval_required", "payout.recipient_check_required", "order.created", "order.awaiting_funds", "order.funds_received", "order.completed", "order.failed", "order.expired", "account.created", "application.under_review", "application.more_info_requested", "application.approved", "application.rejected", "virtual_account.active", "virtual_account.failed", "deposit.completed", "deposit.failed", "beneficiary.updated"]]],
    "status": Literal["enabled", "disabled"],
    "url": str,
}, total=False)

class UpdateWebhookRequest(_UpdateWebhookRequestOptional):
    """UpdateWebhookRequest"""


_UploadRequired = TypedDict("_UploadRequired", {
    "contentLength": int,
    "contentType": str,
    "key": str,
})

class Upload(_UploadRequired):
    """The stored file: register it with the resource that asked for it (e.g. POST /v2/applications/{id}/documents)"""


_ValidationErrorRequired = TypedDict("_ValidationErrorRequired", {
    "details": List['FieldError'],
    "message": str,
    "statusCode": int,
})

_ValidationErrorOptional = TypedDict("_ValidationErrorOptional", {
    "code": 'ErrorCode',
    "detailsOmitted": int,
    "doc_url": str,
    "error": str,
    "path": str,
    "scope": str,
    "timestamp": str,
}, total=False)

class ValidationError(_ValidationErrorRequired, _ValidationErrorOptional):
    """The validation envelope: the legacy envelope plus `details`, one entry per failing field"""


_VirtualAccountRequired = TypedDict("_VirtualAccountRequired", {
    "accountId": Optional[str],
    "createdAt": str,
    "currency": str,
    "deactivated": bool,
    "failureReason": Optional[str],
    "id": str,
    "status": Literal["pending", "active", "failed"],
    "updatedAt": str,
})

class VirtualAccount(_VirtualAccountRequired):
    """`accountId` is the sub-account that owns it (null: the master account). Bank details are never here: read them from GET /v1/virtual-accounts."""


_VirtualAccountActiveEventRequired = TypedDict("_VirtualAccountActiveEventRequired", {
    "createdAt": str,
    "data": 'VirtualAccountEventData',
    "id": str,
    "test": bool,
    "type": Literal["virtual_account.active"],
})

_VirtualAccountActiveEventOptional = TypedDict("_VirtualAccountActiveEventOptional", {
    "accountId": Optional[str],
}, total=False)

class VirtualAccountActiveEvent(_VirtualAccountActiveEventRequired, _VirtualAccountActiveEventOptional):
    """VirtualAccountActiveEvent"""


_VirtualAccountEventDataRequired = TypedDict("_VirtualAccountEventDataRequired", {
    "accountId": Optional[str],
    "currency": str,
    "id": str,
    "status": Literal["pending", "active", "failed"],
})

class VirtualAccountEventData(_VirtualAccountEventDataRequired):
    """The virtual account, never its bank details"""


_VirtualAccountFailedEventRequired = TypedDict("_VirtualAccountFailedEventRequired", {
    "createdAt": str,
    "data": 'VirtualAccountEventData',
    "id": str,
    "test": bool,
    "type": Literal["virtual_account.failed"],
})

_VirtualAccountFailedEventOptional = TypedDict("_VirtualAccountFailedEventOptional", {
    "accountId": Optional[str],
}, total=False)

class VirtualAccountFailedEvent(_VirtualAccountFailedEventRequired, _VirtualAccountFailedEventOptional):
    """VirtualAccountFailedEvent"""


_VirtualAccountRequestRequired = TypedDict("_VirtualAccountRequestRequired", {
    "currency": str,
})

class VirtualAccountRequest(_VirtualAccountRequestRequired):
    """VirtualAccountRequest"""


_VirtualAccountRequirementsRequired = TypedDict("_VirtualAccountRequirementsRequired", {
    "applicationApproved": bool,
    "currency": str,
    "outstanding": List[Dict[str, Any]],
    "termsVersion": str,
})

class VirtualAccountRequirements(_VirtualAccountRequirementsRequired):
    """VirtualAccountRequirements"""


_VirtualAccountWithDetailsRequired = TypedDict("_VirtualAccountWithDetailsRequired", {
    "accountHolderName": str,
    "accountId": Optional[str],
    "createdAt": str,
    "currency": str,
    "deactivated": bool,
    "failureReason": Optional[str],
    "id": str,
    "status": Literal["pending", "active", "failed"],
    "updatedAt": str,
})

_VirtualAccountWithDetailsOptional = TypedDict("_VirtualAccountWithDetailsOptional", {
    "accountNumber": str,
    "addresses": List['DepositAddress'],
    "bankCode": str,
    "bankName": str,
    "bic": str,
    "iban": str,
}, total=False)

class VirtualAccountWithDetails(_VirtualAccountWithDetailsRequired, _VirtualAccountWithDetailsOptional):
    """An active account with its bank details: IBAN and BIC (EUR, GBP), or account number, bank name and bank code, and the holder name; for USDC and USDT on chain, the deposit addresses."""


_VirtualAccountWithDetailsListRequired = TypedDict("_VirtualAccountWithDetailsListRequired", {
    "data": List['VirtualAccountWithDetails'],
    "hasMore": bool,
    "nextCursor": Optional[str],
    "object": Literal["virtual_account.list"],
})

class VirtualAccountWithDetailsList(_VirtualAccountWithDetailsListRequired):
    """VirtualAccountWithDetailsList"""


_WebhookAttemptRequired = TypedDict("_WebhookAttemptRequired", {
    "at": str,
    "durationMs": int,
    "error": Optional[str],
    "number": int,
    "responseStatus": Optional[int],
})

_WebhookAttemptOptional = TypedDict("_WebhookAttemptOptional", {
    "responseExcerpt": Optional[str],
}, total=False)

class WebhookAttempt(_WebhookAttemptRequired, _WebhookAttemptOptional):
    """WebhookAttempt"""


_WebhookDeliveryRequired = TypedDict("_WebhookDeliveryRequired", {
    "attempts": List['WebhookAttempt'],
    "createdAt": str,
    "endpointId": str,
    "eventId": str,
    "eventType": str,
    "id": str,
    "nextAttemptAt": Optional[str],
    "status": Literal["pending", "succeeded", "failed"],
})

class WebhookDelivery(_WebhookDeliveryRequired):
    """WebhookDelivery"""


_WebhookDeliveryListRequired = TypedDict("_WebhookDeliveryListRequired", {
    "data": List['WebhookDelivery'],
    "hasMore": bool,
    "nextCursor": Optional[str],
    "object": Literal["webhook_delivery.list"],
})

class WebhookDeliveryList(_WebhookDeliveryListRequired):
    """WebhookDeliveryList"""


_WebhookEndpointRequired = TypedDict("_WebhookEndpointRequired", {
    "createdAt": str,
    "description": Optional[str],
    "ed25519PublicKey": Optional[str],
    "events": Optional[List[str]],
    "id": str,
    "status": Literal["enabled", "disabled"],
    "updatedAt": str,
    "url": str,
})

class WebhookEndpoint(_WebhookEndpointRequired):
    """WebhookEndpoint"""


_WebhookEndpointDeletedRequired = TypedDict("_WebhookEndpointDeletedRequired", {
    "deleted": Literal[True],
    "id": str,
})

class WebhookEndpointDeleted(_WebhookEndpointDeletedRequired):
    """WebhookEndpointDeleted"""


_WebhookEndpointListRequired = TypedDict("_WebhookEndpointListRequired", {
    "data": List['WebhookEndpoint'],
    "hasMore": bool,
    "nextCursor": Optional[str],
    "object": Literal["webhook_endpoint.list"],
})

class WebhookEndpointList(_WebhookEndpointListRequired):
    """WebhookEndpointList"""


_WebhookEndpointWithSecretRequired = TypedDict("_WebhookEndpointWithSecretRequired", {
    "createdAt": str,
    "description": Optional[str],
    "ed25519PublicKey": Optional[str],
    "events": Optional[List[str]],
    "id": str,
    "secret": str,
    "status": Literal["enabled", "disabled"],
    "updatedAt": str,
    "url": str,
})

class WebhookEndpointWithSecret(_WebhookEndpointWithSecretRequired):
    """WebhookEndpointWithSecret"""


_WebhookSecretRequired = TypedDict("_WebhookSecretRequired", {
    "previousSecretExpiresAt": str,
    "secret": str,
})

class WebhookSecret(_WebhookSecretRequired):
    """WebhookSecret"""


_WebhookTestEventRequired = TypedDict("_WebhookTestEventRequired", {
    "createdAt": str,
    "data": 'WebhookTestEventData',
    "id": str,
    "test": bool,
    "type": Literal["webhook.test"],
})

_WebhookTestEventOptional = TypedDict("_WebhookTestEventOptional", {
    "accountId": Optional[str],
}, total=False)

class WebhookTestEvent(_WebhookTestEventRequired, _WebhookTestEventOptional):
    """WebhookTestEvent"""


_WebhookTestEventDataRequired = TypedDict("_WebhookTestEventDataRequired", {
    "endpointId": str,
    "message": str,
})

class WebhookTestEventData(_WebhookTestEventDataRequired):
    """WebhookTestEventData"""
