import type { FastifyRequest } from 'fastify';
import { Type, type TObject } from 'typebox';
import { Uuid } from '../../platform/lib/schemas.js';
import { isUuid } from '../../platform/lib/ids.js';
import { notice, table, when, type Column } from '../web/components.js';
import type { FedCalendarDay } from '../../platform/lib/federal-reserve-calendar.js';
import type { Refusal } from '../web/forms.js';
import { html, type Html } from '../../platform/lib/html.js';
import { operatorRoleMay, type OperatorActor, type OperatorRight, type OperatorRole } from '../../domains/users/rights.js';

/** What every console page route is: hidden from the API docs, signed in to the console. */
export const consolePage = { schema: { hide: true }, config: { web: { area: 'console' as const } } };

/** A console change that needs an operator right (rights.ts): a role without it is refused 403 ROLE_NOT_PERMITTED, here and in the service. */
export const consoleChange = (right: OperatorRight) => ({ schema: { hide: true }, config: { web: { area: 'console' as const, right } } });

/** A console page whose path names objects: the path is validated as the API's is (400 before the handler); a change names its right. */
export function consoleRoute(params: TObject, right?: OperatorRight) {
  return { schema: { hide: true, params }, config: { web: { area: 'console' as const, ...(right ? { right } : {}) } } };
}

/** `:id` (the workspace on /console/workspaces/:id/..., the object elsewhere), and one more id. */
export const IdPath = Type.Object({ id: Uuid });
export const idsPath = (other: string) => Type.Object({ id: Uuid, [other]: Uuid });

/** The refusal as an alert, with each field's message. */
export { attempt, queryChoice, type Refusal } from '../web/forms.js';

export function refusalNotice(refusal: Refusal | undefined): Html {
  if (!refusal) return html``;
  const fields = Object.entries(refusal.fields);
  return notice('error', html`<p>${refusal.message}</p>${fields.length ? html`<ul>${fields.map(([k, v]) => html`<li><strong>${k}</strong>: ${v}</li>`)}</ul>` : ''}`);
}

/** A query parameter that names an id (a UUID), or undefined. */
export function queryId(req: FastifyRequest, name: string): string | undefined {
  const value = ((req.query ?? {}) as Record<string, unknown>)[name];
  return typeof value === 'string' && isUuid(value) ? value : undefined;
}

/** The rows of a queue list page, by cursor. */
export const QUEUE_PAGE_ROWS = 50;

/**
 * What a console change did, said on the page it lands on: the change's redirect carries
 * `?done=<code>` (and `ref`, the object's id); the page shows only the fixed text of a known code,
 * so a link cannot make it say anything else.
 */
const DONE_TEXT: Record<string, string> = {
  'payout-pay': 'Payout {ref} marked paid: its held funds are posted to the rail.',
  'payout-fail': 'Payout {ref} marked failed: its held funds are back on the balance.',
  'payout-revert': 'Payout {ref} reverted: its amount and fee are credited back to the balance.',
  'virtual-account-approve': 'Virtual account {ref} approved: it is active.',
  'virtual-account-fail': 'Virtual account {ref} refused.',
  'deposit-credited': 'Inbound payment recorded as a deposit and credited to the account.',
  'deposit-complete': 'Deposit {ref} completed: its amount is credited to the account.',
  'deposit-fail': 'Deposit {ref} failed: nothing was credited.',
  'order-confirm-funds': 'Funds confirmed as received for order {ref}: they are held for its execution.',
  'order-execute': 'Order {ref} is executing.',
  'order-complete': 'Order {ref} completed: the final amounts are below.',
  'order-fail': 'Order {ref} failed: its held funds are back on the balance.',
  'order-screening-release': 'Order {ref} released from its screening hold: the desk may execute and complete it.',
  'order-screening-reject': 'Order {ref} rejected on its screening match: it is cancelled or failed and its held funds are back on the balance.',
  'application-approve': 'Application {ref} approved.',
  'application-reject': 'Application {ref} rejected.',
  'application-request_info': 'More information requested on application {ref}: the applicant can edit it again.',
  'application-screening': 'Screening of application {ref} saved.',
  'workspace-created': 'Workspace created.',
  'currencies': 'Currencies changed.',
  'capability-on': 'Capability switched on.',
  'capability-off': 'Capability switched off: calls through it are refused (403 CAPABILITY_DISABLED).',
  'settings': 'Settings saved.',
  'balances': 'Balance adjusted: the adjustment is posted to the ledger.',
  'credentials': 'Credential revoked: its tokens no longer work.',
  'users': 'Dashboard user changed.',
  'chain-resign': 'Chain payout {ref} re-signed at a fresh nonce: the worker broadcasts it on its next look.',
  'chain-cancel': 'Chain payout {ref} cancelled: it failed and its funds are back on the balance.',
  'chain-resume': 'Payouts of chain {ref} resumed: held payouts are signed on the next look.',
  'chain-deposit-release': 'Chain deposit {ref} released: credited to its owner.',
  'chain-deposit-reject': 'Chain deposit {ref} rejected: never credited; the tokens stay on the deposit address.',
};

/** Who acts in the console, as decisions record it: the operator user signed in, or the operator key the console was opened with. */
export const consoleActor = (req: FastifyRequest): string => (req.web.session?.user ? `user:${req.web.session.user.id}` : `key:${req.web.session?.operatorKeyId ?? 'unknown'}`);

/** Who acts in the console with their role (undefined for a session opened with the operator key: every right). */
export const operatorActor = (req: FastifyRequest): OperatorActor => ({ name: consoleActor(req), role: req.web.session?.user?.role as OperatorRole | undefined });

/** Whether the console's signed-in person holds a right (pages show the forms of what they may do). */
export const consoleMay = (req: FastifyRequest, right: OperatorRight): boolean => operatorRoleMay(operatorActor(req).role, right);

/** Where a change goes when done: `path` (its query and #fragment kept) saying `code` (and `ref`). */
export function withDone(path: string, code: keyof typeof DONE_TEXT, ref?: string): string {
  const url = new URL(path, 'http://console.invalid');
  url.searchParams.set('done', code);
  if (ref) url.searchParams.set('ref', ref);
  else url.searchParams.delete('ref');
  return `${url.pathname}${url.search}${url.hash}`;
}

/** The notice of what the last change did (`?done=`), or nothing. */
export function doneNotice(req: FastifyRequest): Html {
  const query = (req.query ?? {}) as Record<string, unknown>;
  const text = typeof query.done === 'string' ? DONE_TEXT[query.done] : undefined;
  if (!text) return html``;
  const ref = typeof query.ref === 'string' && /^[A-Za-z0-9_-]{1,64}$/.test(query.ref) ? query.ref : '';
  return notice('success', text.replace('{ref}', ref).replace(/ {2,}/g, ' '));
}

/** A US rail's calendar as its console page shows it: each day a banking day, or closed (a weekend, or the Federal Reserve holiday named). */
export function fedCalendarTable(caption: string, days: readonly FedCalendarDay[]): Html {
  return table<FedCalendarDay>(
    caption,
    [
      { label: 'Date', cell: (d) => d.date },
      { label: 'Day', cell: (d) => d.weekday },
      { label: 'Settles', cell: (d) => (d.bankingDay ? 'banking day' : html`<span class="muted">closed${d.holiday ? html`: ${d.holiday} (Federal Reserve holiday)` : ' (weekend)'}</span>`) },
    ],
    days,
  );
}

/** The columns of a file a connector sent: when it was made, when it reached the bank, and the last delivery problem. */
export function fileDeliveryColumns<T extends { createdAt: string; deliveredAt: string | null; lastError: string | null }>(): Column<T>[] {
  return [
    { label: 'Created', cell: (f) => when(f.createdAt) },
    { label: 'Delivered', cell: (f) => when(f.deliveredAt) },
    { label: 'Problem', cell: (f) => (f.lastError ? html`<pre>${f.lastError}</pre>` : '') },
  ];
}
