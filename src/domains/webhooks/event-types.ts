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

/** The types an endpoint may subscribe to. */
export const SUBSCRIBABLE_EVENT_TYPES = EVENT_TYPES.filter((t) => t !== 'webhook.test');

export const TEST_EVENT_TYPE = 'webhook.test' satisfies EventType;
