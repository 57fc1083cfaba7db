/** Every event type of the spec (§Events, Event types). `webhook.test` is sent only by the test operation. */
export const EVENT_TYPES = [
  'payout.processing',
  'payout.paid',
  'payout.failed',
  'payout.reverted',
  'payout.cancelled',
  'payout.approval_required',
  'payout.recipient_check_required',
  'order.created',
  'order.awaiting_funds',
  'order.funds_received',
  'order.completed',
  'order.failed',
  'order.expired',
  'account.created',
  'application.under_review',
  'application.more_info_requested',
  'application.approved',
  'application.rejected',
  'virtual_account.active',
  'virtual_account.failed',
  'deposit.completed',
  'deposit.failed',
  'beneficiary.updated',
  'webhook.test',
] as const;

export type EventType = (typeof EVENT_TYPES)[number];

/** When each type fires (spec §Events, Event types), for the OpenAPI document's `webhooks`. */
export const EVENT_FIRES_WHEN: Record<EventType, string> = {
  'payout.processing': 'The rail has begun processing the payout',
  'payout.paid': 'The payout settled',
  'payout.failed': 'The payout failed before settlement (read `failureReason` from the payout)',
  'payout.reverted': 'A settled payout was rejected downstream and refunded (recorded, not yet delivered)',
  'payout.cancelled': 'The payout was cancelled by the caller or downstream',
  'payout.approval_required': 'An approval rule holds the payout for a second person\'s decision (`approval`)',
  'payout.recipient_check_required': 'The rail\'s recipient check holds the payout until confirmed (`recipientCheck`)',
  'order.created': 'The order was created; fires together with order.funds_received (balance-funded) or order.awaiting_funds (settlement-funded)',
  'order.awaiting_funds': 'Funding instructions were issued (`settlement`: the account or address, amount, reference)',
  'order.funds_received': 'The source amount is held, queued for the desk',
  'order.completed': 'The desk delivered to the beneficiary (`uetr` for wire deliveries)',
  'order.failed': 'The order failed and its held funds were returned (`failureReason`)',
  'order.expired': 'The funding window closed unfunded',
  'account.created': 'A sub-account was created (POST /v1/accounts)',
  'application.under_review': 'The application was submitted',
  'application.more_info_requested': 'The review needs more (`moreInfoReason`, `editableSections`)',
  'application.approved': 'The application was approved',
  'application.rejected': 'The application was rejected',
  'virtual_account.active': 'The virtual account was approved with its details issued (never carried in the event)',
  'virtual_account.failed': 'The virtual account was refused, or cannot produce usable details',
  'deposit.completed': 'The deposit reached `completed`: credit your customer from `creditedAmount`',
  'deposit.failed': 'The deposit terminally failed (read `status` before crediting anyone)',
  'beneficiary.updated': 'A rail corrected one of the beneficiary\'s accounts (an ACH notification of change)',
  'webhook.test': 'The webhook test operation (POST /v1/webhooks/{id}/test): `test` is true, signed like any event',
};

/** Types recorded but never delivered to endpoints nor served by the events API (spec §Events: payout.reverted is not yet delivered). */
export const UNDELIVERED_EVENT_TYPES: readonly EventType[] = ['payout.reverted'];

/** The types webhook endpoints receive. */
export const DELIVERED_EVENT_TYPES = EVENT_TYPES.filter((t) => !UNDELIVERED_EVENT_TYPES.includes(t));

/** The types an endpoint may subscribe to. */
export const SUBSCRIBABLE_EVENT_TYPES = EVENT_TYPES.filter((t) => t !== 'webhook.test');

export const TEST_EVENT_TYPE = 'webhook.test' satisfies EventType;
