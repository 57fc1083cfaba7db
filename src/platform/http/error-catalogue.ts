/**
 * Every `code` the API answers with: its status, the body shape it comes in, whether the same request
 * may succeed later, where it is answered and what to do. Served at GET /docs/errors (HTML and JSON)
 * and as the `code` enum of the OpenAPI document's error shapes. test/http/error-catalogue.test.ts
 * fails when a code thrown in src/ is missing here.
 *
 * Shapes: `route` is the route family's shape (RFC 9457 problem details under /v2, /v1/fx, /v1/webhooks,
 * /v1/events, /v1/virtual-accounts, /v1/deposits, /v1/capabilities, /v1/api-keys and /operator; the
 * legacy envelope elsewhere, the validation envelope when it lists `details`); `problem` is problem
 * details on every route; `validation` lists the failing fields (`details` or `errors`, each with its
 * own `code`); `oauth` is the token endpoint's RFC 6749 body `{error, error_description, error_uri}`,
 * the code in `error`.
 */
export type ErrorShape = 'route' | 'problem' | 'validation' | 'oauth';

export interface ErrorCodeEntry {
  code: string;
  status: number[];
  shape: ErrorShape;
  /** True: retry the same request later (with the same Idempotency-Key for a POST). */
  retryable: boolean;
  /** Where it is answered. */
  endpoints: string;
  meaning: string;
  action: string;
}

const e = (code: string, status: number[], shape: ErrorShape, retryable: boolean, endpoints: string, meaning: string, action: string): ErrorCodeEntry => ({
  code,
  status,
  shape,
  retryable,
  endpoints,
  meaning,
  action,
});

const ANY = 'any endpoint';
const POSTS = 'any POST';
const PAYOUT = 'POST /v1/payouts';
const BENEFICIARY_WRITES = 'POST /v1/beneficiaries, PUT /v1/beneficiaries/{id}, POST /v1/payouts (inline beneficiary)';
const APPLICATION_WRITES = 'PATCH /v2/applications/{id}, /v2/applications/{id}/persons and /documents';

export const ERROR_CODES: readonly ErrorCodeEntry[] = [
  // Any endpoint
  e('VALIDATION_ERROR', [400], 'validation', false, ANY, 'The request does not match the operation\'s schema; every failing field is listed.', 'Fix the listed fields and send again.'),
  e('UNKNOWN_FIELD', [400], 'validation', false, 'any endpoint with a JSON body', 'A field of the body is not one the operation takes (a typo such as `referense`, or a field of another operation); the field\'s path is in `field` (and `param`), the message suggests the nearest known field. Until this change such a field was dropped silently.', 'Rename or remove the field; the operation\'s fields are in the API reference (GET /docs).'),
  e('BAD_REQUEST', [400], 'route', false, ANY, 'The request is malformed in a way not tied to one field.', 'Read `message`/`detail`, fix the request.'),
  e('UNAUTHORIZED', [401], 'route', false, ANY, 'No valid credential (a 401 without code carries only statusCode and message).', 'Send `Authorization: Bearer <token>`; request a new token from POST /oauth/token when it expired.'),
  e('TOKEN_EXPIRED', [401], 'route', true, 'GET /v1/events/stream', 'The access token expired while the stream was open.', 'Request a new token and reconnect with Last-Event-ID.'),
  e('CREDENTIAL_REVOKED', [401, 409], 'route', false, 'GET /v1/events/stream; POST /operator/v1/workspaces/{id}/credentials/{clientId}/rotate', 'The credential was revoked (409: a revoked credential cannot be rotated).', 'Use another credential; ask the operator for a new one.'),
  e('FORBIDDEN', [403], 'route', false, ANY, 'The credential may not do this.', 'Check the credential\'s scopes and the workspace\'s capabilities.'),
  e('ROLE_NOT_PERMITTED', [403], 'route', false, ANY, 'The signed-in dashboard or console user\'s role does not hold the right this change needs (the message names the roles that do; every role reads everything). An API credential is never refused this way: its scopes decide.', 'Ask a user whose role holds the right, or an admin to change your role (Users page; PATCH /operator/v1/workspaces/{id}/users/{userId} or /operator/v1/operators/{userId}).'),
  e('METHOD_NOT_ENTITLED', [403], 'route', false, ANY, 'The credential lacks the scope the operation needs: named in the body\'s `scope` (and in the message); each operation of the OpenAPI document lists its scope under `security`.', 'Grant the scope (PUT /v1/api-keys/{clientId}/scopes) or use a credential that has it.'),
  e('access_denied', [401], 'oauth', false, 'POST /oauth/token', 'The client id and secret were not accepted (unknown, revoked, or a wrong secret).', 'Check CORRIDOR_CLIENT_ID and CORRIDOR_CLIENT_SECRET (or the Basic credentials) against the dashboard\'s Credentials page; a revoked credential needs a new one.'),
  e('invalid_grant', [400], 'oauth', false, 'POST /oauth/token', 'grant_type is not client_credentials, the only grant this server issues tokens for.', 'Send grant_type=client_credentials.'),
  e('invalid_audience', [400], 'oauth', false, 'POST /oauth/token', 'The audience asked for is not this API\'s (the description names the one expected).', 'Send the audience the description names (CORRIDOR_AUDIENCE in the CLI), or none.'),
  e('WORKSPACE_SUSPENDED', [403], 'route', false, ANY, 'The workspace is suspended.', 'Contact the operator.'),
  e('not_account_owner', [403], 'route', false, 'any endpoint with Service-Account-Id', 'Service-Account-Id names an account that is not a sub-account of this workspace.', 'Send the id of one of your sub-accounts (GET /v1/accounts), or no header.'),
  e('CAPABILITY_DISABLED', [403], 'route', false, 'payouts, orders, FX, virtual accounts, deposits and applications endpoints', 'The capability is switched off for the workspace.', 'Ask the operator to enable it (GET /v1/capabilities shows which are on).'),
  e('NOT_FOUND', [404], 'route', false, ANY, 'No such resource in this workspace (another workspace\'s objects are not found either), or no such route.', 'Check the id and the Service-Account-Id header.'),
  e('CONFLICT', [409], 'route', false, ANY, 'The resource is not in a state that allows this.', 'Read the resource again and decide.'),
  e('PAYLOAD_TOO_LARGE', [413], 'route', false, ANY, 'The body is larger than the route takes.', 'Send a smaller body (uploads go to a signed upload URL).'),
  e('UNSUPPORTED_MEDIA_TYPE', [415], 'route', false, ANY, 'The body is not JSON in UTF-8.', 'Send `Content-Type: application/json` (charset utf-8).'),
  e('UNPROCESSABLE_ENTITY', [422], 'route', false, ANY, 'Well-formed, but the rules refuse it now.', 'Read `message`/`detail`.'),
  e('RATE_LIMITED', [429], 'route', true, ANY, 'Too many requests from this address (or too many failed authentications).', 'Wait for Retry-After, then retry.'),
  e('INTERNAL_ERROR', [500], 'problem', true, ANY, 'An unexpected failure; nothing is half done.', 'Retry with the same Idempotency-Key; report the request_id if it persists.'),
  e('BAD_GATEWAY', [502], 'problem', true, ANY, 'A provider failed.', 'Retry later with the same Idempotency-Key.'),
  e('SERVICE_UNAVAILABLE', [503], 'problem', true, ANY, 'The database cannot be reached now.', 'Retry after Retry-After with the same Idempotency-Key.'),
  e('SERVICE_BUSY', [503], 'problem', true, PAYOUT, 'Too many payouts are waiting to be written.', 'Retry after Retry-After with the same Idempotency-Key.'),
  e('NOT_READY', [503], 'route', true, 'GET /readyz', 'The service is not ready to take traffic.', 'Wait; an orchestrator keeps it out of rotation meanwhile.'),
  // Idempotency
  e('IDEMPOTENCY_KEY_INVALID', [400], 'problem', false, POSTS, 'The Idempotency-Key is not 1 to 255 printable ASCII characters.', 'Send a UUID as the key.'),
  e('IDEMPOTENCY_KEY_PROCESSING', [409], 'problem', true, POSTS, 'A request with this key is still being processed.', 'Retry shortly with the same key and body.'),
  e('IDEMPOTENCY_KEY_REUSED', [422], 'problem', false, POSTS, 'The key was used with a different request.', 'Use a new key for a new request.'),
  // Payouts and recipients
  e('INSUFFICIENT_BALANCE', [400, 422], 'route', false, 'POST /v1/payouts, POST /v1/orders, POST /operator/v1/workspaces/{id}/balances/adjust', 'The available balance does not cover the amount and fee. On POST /v1/payouts a fiat payout without a quote is recorded as failed under its clientRef (payout.failed), so that clientRef is taken.', 'Fund the balance (sandbox: POST /v1/sandbox/balances/fund), then send it again with a new clientRef and a new Idempotency-Key (the same clientRef answers DUPLICATE_CLIENT_REF).'),
  e('LIMIT_EXCEEDED', [400], 'route', false, 'POST /v1/payouts, POST /v1/orders', 'The amount is over a per-transaction or daily limit.', 'Send a smaller amount, or wait for the next day.'),
  e('PAYOUT_NOT_PERMITTED', [400], 'route', false, PAYOUT, 'The workspace\'s terms do not permit payouts yet.', 'Complete onboarding (applications) or ask the operator.'),
  e('CORRIDOR_NOT_ENABLED', [400], 'route', false, PAYOUT, 'The currency is not enabled for the workspace.', 'Ask the operator to enable the currency.'),
  e('AMOUNT_OUT_OF_BOUNDS', [400], 'route', false, PAYOUT, 'The amount is below the rail\'s minimum or above its maximum.', 'See GET /v2/payouts/requirements for the bounds.'),
  e('UNSUPPORTED_CORRIDOR', [400], 'validation', false, `${PAYOUT}, ${BENEFICIARY_WRITES}`, 'No rail pays this currency to this account.', 'Pick an account and currency from GET /v1/payouts/available-rails.'),
  e('CORRIDOR_NOT_FOUND', [404], 'route', false, 'GET /v2/payouts/requirements', 'No provider serves this country, currency and route.', 'See the corridor table at /docs/corridors.'),
  e('QUOTE_AMOUNT_MISMATCH', [400], 'validation', false, PAYOUT, 'The quote is locked to another currency or amount.', 'Request a quote for this payout\'s currency and amount.'),
  e('QUOTE_EXPIRED', [400], 'route', false, 'POST /v1/payouts, POST /v1/fx/conversions', 'The quote expired.', 'Request a new quote (the SDK\'s quoteAndPay does).'),
  e('QUOTE_ALREADY_USED', [400], 'route', false, 'POST /v1/payouts, POST /v1/fx/conversions', 'The quote was already used.', 'Request a new quote.'),
  e('QUOTE_INTENT_MISMATCH', [400], 'route', false, 'POST /v1/payouts, POST /v1/fx/conversions', 'The quote was requested for another intent (payout or conversion).', 'Request a quote with the right intent.'),
  e('PAYOUT_NOT_CANCELLABLE', [409], 'route', false, 'POST /v1/payouts/{id}/cancel', 'The payout is paid, failed, cancelled or reverted, or already on its way to the rail (the message says which).', 'Nothing to cancel: read the payout; a paid payout is final.'),
  e('PAYOUT_HELD', [409], 'route', false, 'POST /v1/sandbox/payouts/{id}/process|pay, POST /operator/v1/payouts/{id}/process|pay', 'A sanctions screening hit, a pending approval or its recipient check holds the payout; it cannot go forward until released, approved or confirmed.', 'Release it (screening queue), approve it (POST /v1/payouts/{id}/approve) or confirm its recipient (POST /v1/payouts/{id}/recipient-check/confirm); cancel or fail stay allowed.'),
  e('APPROVAL_RULES_LIMIT', [409], 'route', false, 'POST /v1/approval-rules', 'The workspace already has the most approval rules allowed.', 'Delete a rule you no longer need first.'),
  e('APPROVAL_NOT_REQUIRED', [409], 'route', false, 'POST /v1/payouts/{id}/approve, POST /v1/payouts/{id}/reject', 'No approval rule held this payout.', 'Nothing to decide: the payout proceeds by itself.'),
  e('APPROVER_IS_CREATOR', [403], 'route', false, 'POST /v1/payouts/{id}/approve, POST /v1/payouts/{id}/reject', 'The payout\'s creator cannot decide its own approval (maker-checker).', 'Decide with another dashboard user, or a credential with write:approvals that did not create it.'),
  e('APPROVAL_NOT_PENDING', [409], 'route', false, 'POST /v1/payouts/{id}/approve, POST /v1/payouts/{id}/reject', 'The approval was already decided, expired or withdrawn (someone decided first).', 'Read the payout: its approval says who decided and when.'),
  e('RECIPIENT_CHECK_NOT_HELD', [409], 'route', false, 'POST /v1/payouts/{id}/recipient-check/confirm', 'The payout\'s recipient check does not hold it: none (its rail offers none), not answered yet, passed, already confirmed, or withdrawn.', 'Read the payout: its recipientCheck says where it is.'),
  e('RECIPIENT_ACCOUNT_NOT_FOUND', [409], 'route', false, 'POST /v1/payouts/{id}/recipient-check/confirm', 'The rail knows no such account: a payout to it cannot be confirmed.', 'Cancel the payout (POST /v1/payouts/{id}/cancel) and correct the beneficiary\'s account.'),
  e('RECIPIENT_CHECK_NOT_OFFERED', [409], 'route', false, 'POST /v1/beneficiaries/{id}/verify-recipient', 'No connector serving this beneficiary\'s route and currency offers recipient checks.', 'Nothing to check: payouts on that route are sent without one.'),
  e('SCREENING_HOLD_DECIDED', [409], 'route', false, 'POST /operator/v1/screening/holds/{payoutId}/release|reject', 'The screening hold was already released, rejected or withdrawn.', 'Read the hold; nothing more to decide.'),
  e('SECOND_OPERATOR_REQUIRED', [409], 'route', false, 'POST /operator/v1/screening/holds/{payoutId}/release', 'Dual control: the same operator cannot give both releases of a held payout.', 'Ask a second, different operator to release it.'),
  e('LINE_ALREADY_DECIDED', [409], 'route', false, 'POST /operator/v1/reconciliation/lines/{id}/match|ignore', 'The statement line is already matched or ignored.', 'Read the line; nothing more to decide.'),
  e('MOVEMENT_ALREADY_MATCHED', [409], 'route', false, 'POST /operator/v1/reconciliation/lines/{id}/match', 'The movement is already matched to another statement line.', 'Pick the movement the line really is, or ignore the line with a reason.'),
  e('EXCEPTION_ALREADY_RESOLVED', [409], 'route', false, 'POST /operator/v1/reconciliation/exceptions/{id}/resolve', 'The exception is already resolved.', 'Read it: its resolution says who and what.'),
  e('INVALID_PAYOUT_STATE', [409], 'route', false, 'POST /v1/sandbox/payouts/{id}/*, POST /operator/v1/payouts/{id}/*', 'The payout cannot move to that status from its current one.', 'Read the payout and move it from its current status.'),
  e('DUPLICATE_CLIENT_REF', [400, 409], 'route', false, 'POST /v1/payouts, POST /v1/orders, POST /v1/fx/conversions, POST /v1/accounts, POST /v1/collections', 'Another object already has this clientRef.', 'Use a new clientRef, or read the existing object (a retry should reuse its Idempotency-Key instead).'),
  e('BENEFICIARY_SUSPENDED', [409], 'route', false, `PUT /v1/beneficiaries/{id}, DELETE /v1/beneficiaries/{id}, ${PAYOUT}`, 'The beneficiary is suspended by the operator.', 'Contact the operator.'),
  e('MISSING_BANK_ACCOUNT_DETAILS', [400], 'validation', false, BENEFICIARY_WRITES, 'The account lacks the details its type needs (an IBAN, an account number…).', 'See GET /v2/payouts/requirements for the fields.'),
  e('MISSING_BENEFICIARY_NAME', [400], 'validation', false, BENEFICIARY_WRITES, 'The corridor needs the recipient\'s name.', 'Send `name`.'),
  e('RECIPIENT_DETAILS_INVALID', [400], 'validation', false, BENEFICIARY_WRITES, 'A recipient field breaks the corridor\'s rule (listed per field).', 'Fix the listed fields.'),
  e('BENEFICIARY_INCOMPLETE', [400], 'validation', false, BENEFICIARY_WRITES, 'A field the corridor requires is missing.', 'See GET /v2/payouts/requirements.'),
  e('INVALID_IBAN', [400], 'validation', false, BENEFICIARY_WRITES, 'The IBAN fails its checksum or country format.', 'Check the IBAN.'),
  e('INVALID_ACCOUNT_NUMBER', [400], 'validation', false, BENEFICIARY_WRITES, 'The account number is not valid for its country.', 'Check the account number.'),
  e('INVALID_ROUTING_NUMBER', [400], 'validation', false, BENEFICIARY_WRITES, 'The routing number (ABA, sort code…) is not valid.', 'Check the routing number.'),
  e('SENDER_INFO_INCOMPLETE', [400], 'validation', false, PAYOUT, 'The corridor requires sender fields that are missing.', 'Send the listed `senderInfo` fields.'),
  e('SENDER_INFO_INVALID', [400], 'validation', false, PAYOUT, 'A `senderInfo` field is invalid.', 'Fix the listed fields.'),
  e('ORIGINATOR_NOT_ON_RECORD', [400], 'validation', false, PAYOUT, 'No senderInfo and no business identity on record to originate the payout.', 'Send `senderInfo`, or complete the business application.'),
  // FX and currencies
  e('UNSUPPORTED_CURRENCY', [400], 'validation', false, 'FX, sandbox funding, virtual accounts, deposits, operator currencies', 'The currency is not one the platform supports.', 'Use a supported ISO 4217 code.'),
  e('CURRENCY_NOT_ENABLED', [400], 'validation', false, 'FX, sandbox funding, virtual accounts, deposits', 'The currency is not enabled for the workspace.', 'Ask the operator to enable it.'),
  e('CURRENCY_SANDBOX_ONLY', [400], 'validation', false, 'PUT /operator/v1/workspaces/{id}/currencies/{code}', 'The currency exists only in the sandbox.', 'Enable it in the sandbox only.'),
  e('SAME_CURRENCY', [400], 'validation', false, 'GET /v1/fx/rates, POST /v1/fx/quotes', 'From and to currencies are the same.', 'Pick two different currencies.'),
  e('RATE_UNAVAILABLE', [400], 'validation', false, 'POST /v1/fx/quotes, POST /v1/orders', 'No rate is available for the pair now.', 'Try another pair, or later.'),
  // Orders
  e('ORDER_NOT_AWAITING_FUNDS', [409], 'route', false, 'POST /v1/orders/{id}/settlement/proof(-upload-url)', 'The order no longer awaits funds.', 'Read the order.'),
  e('ORDER_NOT_SETTLEMENT_FUNDED', [409], 'route', false, 'POST /v1/sandbox/orders/{id}/confirm-funds', 'The order is funded from the balance: nothing to confirm.', 'Execute the order instead.'),
  e('INVALID_ORDER_STATE', [409], 'route', false, 'POST /v1/sandbox/orders/{id}/*, POST /operator/v1/orders/{id}/*', 'The order cannot move there from its status.', 'Read the order.'),
  e('PROOF_NOT_REQUIRED', [409], 'route', false, 'POST /v1/orders/{id}/settlement/*', 'This order takes no proof of payment.', 'Nothing to upload.'),
  e('PROOF_NOT_UPLOADED', [409], 'route', false, 'POST /v1/orders/{id}/settlement/proof', 'Nothing was uploaded to the proofKey yet.', 'PUT the file to its uploadUrl first (the SDK\'s upload helper does all three steps).'),
  e('SETTLEMENT_UNAVAILABLE', [422], 'route', false, 'POST /v1/orders', 'Settlement funding is not offered for the currency.', 'Fund the order from the balance.'),
  // Applications and uploads
  e('APPLICATION_INCOMPLETE', [422], 'problem', false, 'POST /v2/applications/{id}/submit', 'Required sections are missing (listed).', 'Complete the listed fields, persons and documents.'),
  e('APPLICATION_NOT_EDITABLE', [409], 'problem', false, APPLICATION_WRITES, 'The application is submitted or decided.', 'Wait for the review; a rejected application is final.'),
  e('APPLICATION_SECTION_LOCKED', [409], 'problem', false, APPLICATION_WRITES, 'The section was approved and is locked.', 'Leave it as it is.'),
  e('APPLICATION_STATE_CONFLICT', [409], 'problem', false, 'POST /v2/applications/{id}/submit, sandbox review', 'The application is not in a state that allows this.', 'Read the application.'),
  e('APPLICATION_TYPE_MISMATCH', [400], 'problem', false, 'POST /v2/applications/{id}/persons', 'The person\'s role does not fit the application type.', 'Use a role of the application type.'),
  e('APPLICATION_PERSONS_MAX', [400], 'problem', false, 'POST /v2/applications/{id}/persons', 'The application has the most persons it may have.', 'Remove one first.'),
  e('APPLICATION_DOCUMENTS_MAX', [400], 'problem', false, 'POST /v2/applications/{id}/documents(/upload-url)', 'The application has the most documents it may have.', 'Delete one first.'),
  e('DOCUMENT_KEY_USED', [409], 'problem', false, 'POST /v2/applications/{id}/documents', 'The upload key is already registered.', 'Request a new upload URL.'),
  e('DOCUMENT_NOT_UPLOADED', [409], 'problem', false, 'POST /v2/applications/{id}/documents', 'Nothing was uploaded to the key yet.', 'PUT the file to its uploadUrl first.'),
  e('TERMS_NOT_ACCEPTED', [422], 'problem', false, 'POST /v2/applications/{id}/submit', 'The current terms were not accepted.', 'POST /v2/applications/{id}/terms-acceptance with the version from GET /v2/terms.'),
  e('TERMS_VERSION_NOT_CURRENT', [409], 'problem', false, 'POST /v2/applications/{id}/terms-acceptance', 'The version is not the current one.', 'Accept the version GET /v2/terms names.'),
  e('UPLOAD_SIZE_MISMATCH', [400], 'problem', false, 'PUT /v2/uploads/{key}', 'The file is not the contentLength the URL was issued for.', 'Request a URL with the right contentLength.'),
  e('UPLOAD_TOO_LARGE', [400, 413], 'problem', false, 'PUT /v2/uploads/{key}, upload-url operations', 'The file is larger than UPLOAD_BYTES_MAX.', 'Send a smaller file.'),
  e('UPLOAD_TYPE_NOT_ALLOWED', [415], 'problem', false, 'PUT /v2/uploads/{key}', 'Only PDF, JPEG and PNG files are accepted.', 'Convert the file.'),
  e('UPLOAD_TYPE_MISMATCH', [415], 'problem', false, 'PUT /v2/uploads/{key}', 'The file is not the contentType the URL was issued for.', 'Request a URL with the right contentType.'),
  e('UPLOAD_URL_INVALID', [403], 'problem', false, 'PUT /v2/uploads/{key}', 'The URL was not issued here (signature mismatch).', 'Use the uploadUrl exactly as returned.'),
  e('UPLOAD_URL_EXPIRED', [403], 'problem', false, 'PUT /v2/uploads/{key}', 'The URL expired.', 'Request a new upload URL.'),
  e('UPLOAD_URL_USED', [409], 'problem', false, 'PUT /v2/uploads/{key}', 'The URL already took a file.', 'Request a new upload URL for another file.'),
  // Virtual accounts and deposits
  e('KYB_INCOMPLETE', [409], 'problem', false, 'POST /v1/virtual-accounts', 'No approved application with documents and current terms.', 'Complete onboarding (see GET /v1/virtual-accounts/requirements).'),
  e('VIRTUAL_ACCOUNT_DEACTIVATED', [409], 'problem', false, 'POST /v1/virtual-accounts', 'The account in this currency was deactivated.', 'Contact support.'),
  e('VIRTUAL_ACCOUNT_NOT_ACTIVE', [409], 'problem', false, 'POST /v1/sandbox/deposits', 'Deposits land only in an active virtual account.', 'Wait for the account to be approved.'),
  e('VIRTUAL_ACCOUNT_REFUSED', [409, 422], 'problem', false, 'POST /v1/virtual-accounts', 'The issuer refused the account.', 'Read `detail`; contact support.'),
  e('COLLECTIONS_NOT_OFFERED', [409], 'problem', false, 'POST /v1/collections', 'No mobile-money connector runs in this deployment, so no request to pay can be sent.', 'Ask the operator to configure the mobile-money connector (docs/guides/mobile-money.md).'),
  e('VIRTUAL_ACCOUNT_REQUIRED', [409], 'problem', false, 'POST /v1/sandbox/deposits', 'The rail lands in a virtual account and there is none in the currency.', 'Create a virtual account first.'),
  e('VIRTUAL_ACCOUNT_SELF_SERVE_UNSUPPORTED', [422], 'problem', false, 'POST /v1/virtual-accounts', 'This currency\'s accounts are issued by support.', 'Contact support.'),
  e('VIRTUAL_ACCOUNT_VERIFICATION_REQUIRED', [409, 422], 'problem', false, 'POST /v1/virtual-accounts', 'The issuer needs more verification.', 'Complete the application\'s verification.'),
  e('INVALID_VIRTUAL_ACCOUNT_STATE', [409], 'problem', false, 'POST /v1/sandbox/virtual-accounts/{id}/*, operator moves', 'The account cannot move there from its status.', 'Read the account.'),
  e('INVALID_DEPOSIT_STATE', [409], 'problem', false, 'POST /v1/sandbox/deposits/{id}/*, operator moves', 'The deposit cannot move there from its status.', 'Read the deposit.'),
  // Events and webhooks
  e('EVENT_STREAMS_EXCEEDED', [429], 'problem', true, 'GET /v1/events/stream', 'The workspace has the most open streams it may have.', 'Close a stream, or retry later.'),
  e('LAST_EVENT_ID_UNKNOWN', [400], 'problem', false, 'GET /v1/events/stream', 'Last-Event-ID names no event of this workspace.', 'Resume from an event id you received, or without the header.'),
  e('URL_INVALID', [400], 'validation', false, 'POST /v1/webhooks, PATCH /v1/webhooks/{id}', 'The URL is not a valid absolute URL.', 'Send an https:// URL without credentials or fragment.'),
  e('URL_NOT_HTTPS', [400], 'validation', false, 'POST /v1/webhooks, PATCH /v1/webhooks/{id}', 'Webhook URLs must be HTTPS.', 'Serve the receiver over HTTPS (corridor listen forwards to http://localhost).'),
  e('URL_NOT_ALLOWED', [400], 'validation', false, 'POST /v1/webhooks, PATCH /v1/webhooks/{id}', 'The URL names a host that may not receive webhooks.', 'Use a public host.'),
  e('WEBHOOK_ADDRESS_BLOCKED', [400], 'validation', false, 'POST /v1/webhooks, PATCH /v1/webhooks/{id}', 'The host resolves to a private or reserved address.', 'Use a publicly routable host.'),
  e('WEBHOOK_ENDPOINT_DISABLED', [409], 'problem', false, 'POST /v1/webhooks/{id}/test, POST /v1/webhooks/{id}/deliveries/{deliveryId}/resend', 'The endpoint is disabled.', 'Enable it (PATCH status enabled).'),
  e('WEBHOOK_DELIVERY_PENDING', [409], 'problem', false, 'POST /v1/webhooks/{id}/deliveries/{deliveryId}/resend', 'The delivery is still pending: its retries are under way.', 'Wait for nextAttemptAt, or for it to finish, then resend.'),
  e('WEBHOOK_ENDPOINT_LIMIT', [409], 'problem', false, 'POST /v1/webhooks', 'The workspace has the most endpoints it may have.', 'Delete an endpoint first.'),
  // API keys, users, operator
  e('OWN_API_KEYS_SCOPE_REQUIRED', [400], 'validation', false, 'PUT /v1/api-keys/{clientId}/scopes', 'A credential may not remove write:api_keys from itself.', 'Change it with another credential.'),
  e('USER_EXISTS', [409], 'problem', false, 'POST /operator/v1/workspaces/{id}/users, POST /operator/v1/operators', 'A user with this email exists.', 'Use the existing user.'),
  e('USER_NOT_INVITED', [409], 'problem', false, 'POST …/users/{userId}/invitation', 'The user already accepted the invitation.', 'Nothing to resend.'),
  e('USER_NOT_ACTIVE', [409], 'problem', false, 'PATCH …/users/{userId}', 'An invited user has not signed in yet.', 'Wait until they accept the invitation.'),
  e('USER_NOT_DISABLED', [409], 'problem', false, 'PATCH …/users/{userId}', 'Only a disabled user can be enabled again.', 'Nothing to do.'),
  e('CANNOT_CHANGE_SELF', [409], 'problem', false, 'PATCH …/users/{userId}', 'You cannot change your own role or disable yourself.', 'Ask another administrator.'),
  e('PASSWORD_TOO_WEAK', [400], 'validation', false, 'invitation and password pages', 'The password is too easy to guess.', 'Choose a longer, less common password.'),
  // The chain rail (operator)
  e('CHAIN_PAYOUT_NOT_FOUND', [404], 'problem', false, 'POST /operator/v1/chain/payouts/{id}/resign, /cancel', 'No chain payout has this id.', 'Check the id on GET /operator/v1/chain/payouts.'),
  e('CHAIN_PAYOUT_NOT_IN_CONFLICT', [409], 'problem', false, 'POST /operator/v1/chain/payouts/{id}/resign, /cancel', 'Only a payout in nonce conflict is re-signed or cancelled (this one is not, or no longer).', 'Read its status on GET /operator/v1/chain/payouts.'),
  e('CHAIN_PAYOUT_BUSY', [409], 'problem', true, 'POST /operator/v1/chain/payouts/{id}/resign, /cancel', 'A worker holds the payout right now.', 'Retry with the same Idempotency-Key.'),
  e('CHAIN_NOT_CONFIGURED', [409], 'problem', false, 'POST /operator/v1/chain/payouts/{id}/resign, /cancel', "The payout's chain does not pay out in this process's connectors file.", 'Call a process whose connectors file has the chain and its hot wallet.'),
  e('CHAIN_NOT_FOUND', [404], 'problem', false, 'POST /operator/v1/chain/chains/{name}/resume, /fundings', 'No configured chain of this name pays out.', 'Check the name on GET /operator/v1/chain/chains.'),
  e('CHAIN_DEPOSIT_DECIDED', [409], 'problem', false, 'POST /operator/v1/chain/deposits/{id}/release, /reject', 'Only a held chain deposit is released or rejected (this one is credited, rejected or reversed).', 'Read its status on GET /operator/v1/chain/deposits.'),
  e('DEDICATED_ACCOUNT_TAKEN', [409], 'problem', false, 'POST /operator/v1/paystack/dedicated-accounts', "The email names a Paystack customer whose dedicated account is another owner's virtual account; nothing was recorded.", 'Give the owner its own email.'),
  e('PROVIDER_REFUSED', [422], 'problem', false, 'POST /operator/v1/paystack/dedicated-accounts', 'The provider refused the request (its message says why: an unknown bank slug, a customer it cannot validate); nothing was recorded.', 'Correct what the message names and send it again.'),
  e('PROVIDER_UNAVAILABLE', [503], 'problem', true, 'POST /operator/v1/paystack/dedicated-accounts', 'The provider did not answer, or answered with a server error; nothing was recorded (a repeat finds what the provider made).', 'Retry later with the same Idempotency-Key.'),
  e('CHAIN_DEPOSIT_NOT_CREDITABLE', [409], 'problem', false, 'POST /operator/v1/chain/deposits/{id}/release', 'The held deposit still cannot be credited: its token is not taken, its owner has no virtual account in the currency, or the deposit service refused it.', 'Open the virtual account (or enable the currency) first, then release it again; or reject it.'),
  e('ORDER_HELD', [409], 'problem', false, 'POST /operator/v1/orders/{id}/execute, /complete, and the sandbox order moves', "The order's beneficiary matched a sanctions list: the desk cannot execute or complete it.", 'An operator releases or rejects it on POST /operator/v1/screening/order-holds/{orderId}/release or /reject.'),
];

const BY_CODE = new Map(ERROR_CODES.map((entry) => [entry.code, entry]));
export const errorCodeEntry = (code: string): ErrorCodeEntry | undefined => BY_CODE.get(code);

const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** The catalogue as an HTML page (no script, no inline style: the page CSP allows neither). */
export function errorCataloguePage(): string {
  const rows = ERROR_CODES.map(
    (entry) =>
      `<tr id="${escapeHtml(entry.code)}"><td><code>${escapeHtml(entry.code)}</code></td><td>${entry.status.join(', ')}</td><td>${entry.shape}</td><td>${entry.retryable ? 'yes' : 'no'}</td><td>${escapeHtml(entry.endpoints)}</td><td>${escapeHtml(entry.meaning)}</td><td>${escapeHtml(entry.action)}</td></tr>`,
  ).join('\n');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Corridor error codes</title></head>
<body>
<h1>Corridor error codes</h1>
<p>Every <code>code</code> the API answers with. Shape <em>route</em>: RFC 9457 problem details on problem-details routes, the legacy envelope elsewhere; <em>problem</em>: problem details on every route; <em>validation</em>: the failing fields are listed (<code>details</code> or <code>errors</code>). Retryable: retry the same request later, with the same Idempotency-Key. As JSON: <a href="/docs/errors.json">/docs/errors.json</a>; the OpenAPI document's <code>ErrorCode</code> schema lists the same codes.</p>
<table>
<thead><tr><th>Code</th><th>Status</th><th>Shape</th><th>Retryable</th><th>Where</th><th>Meaning</th><th>What to do</th></tr></thead>
<tbody>
${rows}
</tbody>
</table>
</body></html>`;
}


/**
 * What a person reads for an error (the dashboard's and the console's error notices, the CLI's
 * failures): the message when it is words; when it is only the code (the legacy envelope carries
 * codes in `message`, DESIGN: Pinned details), the catalogue's meaning and what to do.
 */
export function messageInWords(code: string | undefined, message: string): string {
  const entry = BY_CODE.get(code ?? message);
  if (!entry || (message !== entry.code && message.trim() !== '')) return message;
  return `${entry.meaning} ${entry.action}`;
}
