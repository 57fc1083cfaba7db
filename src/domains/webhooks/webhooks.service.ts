import type { Config } from '../../platform/config.js';
import type { Sql, Tx } from '../../platform/db/db.js';
import { DomainError, conflict, fieldError, notFound } from '../../platform/lib/errors.js';
import type { PageRequest } from '../../platform/db/pagination.js';
import type { CryptoBox } from '../../platform/lib/crypto-box.js';
import { isUuid, newId } from '../../platform/lib/ids.js';
import { randomBytes } from 'node:crypto';
import { lockWorkspace } from '../accounts/accounts.service.js';
import { markEventDispatched, recordEvent } from '../events/events.service.js';
import { SUBSCRIBABLE_EVENT_TYPES, TEST_EVENT_TYPE } from './event-types.js';
import { newSigningKey } from './signature.js';
import { blockedHostReason } from './ssrf-guard.js';
import * as repo from './webhooks.repository.js';
import type { DeliveryRow, EndpointRow, SigningKeyWrite } from './webhooks.repository.js';
import { assertWorkspaceRight, type WorkspaceActor } from '../users/rights.js';

export interface EndpointRules {
  allowPrivateNetworks: boolean;
  urlLengthMax: number;
  endpointsMax: number;
}

/** The endpoint rules of this deployment (WEBHOOK_ALLOW_PRIVATE_NETWORKS and the named limits). */
export function endpointRules(config: Config): EndpointRules {
  return { allowPrivateNetworks: config.webhookAllowPrivateNetworks, urlLengthMax: config.limits.webhookUrlLengthMax, endpointsMax: config.limits.webhookEndpointsMax };
}

/**
 * An endpoint URL as stored: absolute, HTTPS, no credentials or fragment, at most `urlLengthMax`
 * characters; with private networks refused, not a literal private address or localhost (host names
 * are checked again, resolved, at every connection).
 */
export function validateEndpointUrl(raw: string, rules: Pick<EndpointRules, 'allowPrivateNetworks' | 'urlLengthMax'>): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw fieldError('url', 'url must be an absolute URL such as https://example.com/webhooks', 'URL_INVALID');
  }
  if (url.protocol !== 'https:') throw fieldError('url', 'url must use https', 'URL_NOT_HTTPS');
  if (!url.hostname) throw fieldError('url', 'url must name a host', 'URL_INVALID');
  if (url.username || url.password) throw fieldError('url', 'url must not carry credentials', 'URL_INVALID');
  if (url.hash) throw fieldError('url', 'url must not have a fragment', 'URL_INVALID');
  if (url.href.length > rules.urlLengthMax) throw fieldError('url', `url must be at most ${rules.urlLengthMax} characters`, 'URL_INVALID');
  const reason = rules.allowPrivateNetworks ? undefined : blockedHostReason(url.hostname);
  if (reason) throw fieldError('url', `url must reach a public address, not a ${reason} one`, 'URL_NOT_ALLOWED');
  return url.href;
}

/**
 * `whsec_` and 32 random bytes in standard base64: the spec's HMAC keys on the whole string; Standard
 * Webhooks libraries decode the part after the prefix as base64 to key their `v1` HMAC.
 */
export const newWebhookSecret = (): string => `whsec_${randomBytes(32).toString('base64')}`;

/** A new Ed25519 key for an endpoint's `v1a` signatures, its private half sealed. */
function sealedSigningKey(box: CryptoBox): SigningKeyWrite {
  const { privateKey, publicKey } = newSigningKey();
  return { privateKeyEncrypted: box.encrypt(privateKey), publicKey };
}

export function endpointView(row: EndpointRow) {
  return {
    id: row.id,
    url: row.url,
    description: row.description,
    events: row.event_types,
    status: row.status,
    ed25519PublicKey: row.signing_public_key,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

export function deliveryView(row: DeliveryRow) {
  return {
    id: row.id,
    endpointId: row.endpoint_id,
    eventId: row.event_id,
    eventType: row.event_type,
    status: row.status,
    attempts: row.attempts,
    nextAttemptAt: row.next_attempt_at ? row.next_attempt_at.toISOString() : null,
    createdAt: row.created_at.toISOString(),
  };
}

/** The event types an endpoint subscribes to, each once and sorted; null or absent: every type. */
function eventFilter<T extends string[] | null | undefined>(types: T): T {
  if (!types) return types;
  const unknown = types.filter((t) => !(SUBSCRIBABLE_EVENT_TYPES as readonly string[]).includes(t));
  if (unknown.length) throw fieldError('events', `events must be among: ${SUBSCRIBABLE_EVENT_TYPES.join(', ')} (not ${unknown.join(', ')})`);
  if (types.length === 0) throw fieldError('events', 'events must name at least one type, or be absent for every type');
  return [...new Set(types)].sort() as T;
}

/** A path's endpoint id: anything but a UUID names no endpoint. */
function endpointId(id: string): string {
  if (!isUuid(id)) throw notFound('Webhook endpoint');
  return id;
}

export async function createEndpoint(
  tx: Tx,
  box: CryptoBox,
  rules: EndpointRules,
  owner: WorkspaceActor,
  input: { url: string; events?: string[] | null | undefined; description?: string | null | undefined; ed25519?: boolean | undefined },
): Promise<{ row: EndpointRow; secret: string }> {
  assertWorkspaceRight(owner, 'webhooks');
  const { workspaceId } = owner;
  const url = validateEndpointUrl(input.url, rules);
  const eventTypes = eventFilter(input.events) ?? null;
  // The workspace's lock serialises endpoint creation, so the endpoint limit holds under concurrent requests.
  await lockWorkspace(tx, workspaceId);
  if ((await repo.countEndpoints(tx, workspaceId)) >= rules.endpointsMax) {
    throw conflict('WEBHOOK_ENDPOINT_LIMIT', `A workspace has at most ${rules.endpointsMax} webhook endpoints`);
  }
  const secret = newWebhookSecret();
  const row = await repo.insertEndpoint(tx, {
    id: newId(),
    workspaceId,
    url,
    description: input.description ?? null,
    eventTypes,
    secretEncrypted: box.encrypt(secret),
    signingKey: input.ed25519 ? sealedSigningKey(box) : null,
  });
  return { row, secret };
}

export async function getEndpoint(sql: Sql, workspaceId: string, id: string): Promise<EndpointRow> {
  const row = await repo.findEndpoint(sql, workspaceId, endpointId(id));
  if (!row) throw notFound('Webhook endpoint');
  return row;
}

export function listEndpoints(sql: Sql, workspaceId: string, page: PageRequest) {
  return repo.listEndpoints(sql, workspaceId, page, endpointView);
}

/**
 * Changes an endpoint. `ed25519: true` gives it an Ed25519 key if it has none (keeping the one it
 * has: its receivers hold the public key), `false` drops it (no more `v1a` signatures).
 */
export async function updateEndpoint(
  sql: Sql,
  box: CryptoBox,
  rules: EndpointRules,
  workspaceId: string,
  id: string,
  change: { url?: string; events?: string[] | null; status?: 'enabled' | 'disabled'; description?: string | null; ed25519?: boolean },
): Promise<EndpointRow> {
  const current = change.ed25519 === undefined ? undefined : await getEndpoint(sql, workspaceId, id);
  const signingKey = change.ed25519 === undefined || Boolean(current?.signing_public_key) === change.ed25519 ? {} : { signingKey: change.ed25519 ? sealedSigningKey(box) : null };
  const row = await repo.updateEndpoint(sql, workspaceId, endpointId(id), {
    ...signingKey,
    ...(change.url !== undefined ? { url: validateEndpointUrl(change.url, rules) } : {}),
    ...(change.events !== undefined ? { eventTypes: eventFilter(change.events) } : {}),
    ...(change.status !== undefined ? { status: change.status } : {}),
    ...(change.description !== undefined ? { description: change.description } : {}),
  });
  if (!row) throw notFound('Webhook endpoint');
  return row;
}

/** Deletes the endpoint and its delivery history; its pending deliveries are never attempted. */
export async function deleteEndpoint(sql: Sql, workspaceId: string, id: string): Promise<void> {
  if (!(await repo.deleteEndpoint(sql, workspaceId, endpointId(id)))) throw notFound('Webhook endpoint');
}

/**
 * A new secret, effective at once: every later attempt, retries included, is signed with it. With
 * `graceSeconds`, the secret it replaces signs beside it for that long (a second `v1` signature in
 * webhook-signature), so receivers switch at any moment of the overlap; 0: it stops at once.
 */
export async function rotateSecret(tx: Tx, box: CryptoBox, workspaceId: string, id: string, graceSeconds = 0): Promise<{ secret: string; previousSecretExpiresAt: string }> {
  const secret = newWebhookSecret();
  const row = await repo.updateEndpoint(tx, workspaceId, endpointId(id), { secretEncrypted: box.encrypt(secret), graceSeconds });
  if (!row) throw notFound('Webhook endpoint');
  return { secret, previousSecretExpiresAt: (row.previous_secret_until ?? row.updated_at).toISOString() };
}

/**
 * Records a `webhook.test` event (test: true) and its one delivery, to this endpoint only: the event
 * is marked dispatched in the same transaction so the outbox never sends it to the others.
 */
export async function sendTestEvent(tx: Tx, workspaceId: string, id: string): Promise<DeliveryRow> {
  const endpoint = await getEndpoint(tx, workspaceId, id);
  if (endpoint.status !== 'enabled') {
    throw new DomainError({ category: 'conflict', code: 'WEBHOOK_ENDPOINT_DISABLED', message: 'The endpoint is disabled: enable it to send a test event' });
  }
  const eventId = await recordEvent(tx, {
    workspaceId,
    type: TEST_EVENT_TYPE,
    test: true,
    data: { endpointId: endpoint.id, message: 'A test event sent from the webhook endpoint test operation' },
  });
  await markEventDispatched(tx, eventId);
  return repo.insertDelivery(tx, { id: newId(), workspaceId, endpointId: endpoint.id, eventId, eventType: TEST_EVENT_TYPE });
}

/**
 * Sends a delivery again now. A finished one (the integrator fixed their receiver) gets one fresh
 * attempt of the same event, recorded as its next attempt; a pending one waiting for its next
 * scheduled attempt has that attempt at once ("retry now"). Either is signed with the endpoint's
 * current secret when sent. Refused while an attempt of it is under way, and for a disabled endpoint.
 */
export async function resendDelivery(tx: Tx, workspaceId: string, endpointId: string, id: string): Promise<DeliveryRow> {
  const endpoint = await getEndpoint(tx, workspaceId, endpointId);
  if (endpoint.status !== 'enabled') {
    throw new DomainError({ category: 'conflict', code: 'WEBHOOK_ENDPOINT_DISABLED', message: 'The endpoint is disabled: enable it to resend a delivery' });
  }
  if (!isUuid(id)) throw notFound('Webhook delivery');
  const requeued = await repo.requeueDelivery(tx, workspaceId, endpointId, id);
  if (requeued) return requeued;
  await getDelivery(tx, workspaceId, endpointId, id);
  throw conflict('WEBHOOK_DELIVERY_PENDING', 'An attempt of this delivery is under way: read it again for its outcome, then resend it if it failed');
}

export async function listDeliveries(
  sql: Sql,
  workspaceId: string,
  endpointId: string,
  query: PageRequest & { status?: string | undefined; eventType?: string | undefined; eventId?: string | undefined },
) {
  await getEndpoint(sql, workspaceId, endpointId);
  return repo.listDeliveries(sql, workspaceId, endpointId, query, deliveryView);
}

export async function getDelivery(sql: Sql, workspaceId: string, endpointId: string, id: string): Promise<DeliveryRow> {
  const row = await repo.findDelivery(sql, workspaceId, endpointId, id);
  if (!row) throw notFound('Webhook delivery');
  return row;
}

/** The deliveries of the workspace's events to its endpoints, with their attempts (an event's page, a payout's timeline). */
export async function deliveriesOfEvents(sql: Sql, workspaceId: string, eventIds: readonly string[], limit: number) {
  if (eventIds.length === 0) return [];
  return (await repo.deliveriesOfEvents(sql, workspaceId, eventIds, limit)).map(deliveryView);
}

export type { AttemptRecord } from './webhooks.repository.js';

/** Retention: deletes at most `limit` finished deliveries older than `before`; answers how many. */
export const deleteFinishedDeliveriesBefore = repo.deleteFinishedDeliveriesBefore;
export { failingEndpoints, type FailingEndpoint } from './webhooks.repository.js';
