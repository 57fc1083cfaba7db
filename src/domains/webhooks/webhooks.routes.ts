import { Type } from 'typebox';
import type { AppContext } from '../../platform/context.js';
import { route, type App } from '../../platform/http/routes.js';
import { runIdempotent } from '../../platform/http/idempotency.js';
import { IdParams, PageQuery } from '../../platform/lib/schemas.js';
import {
  CreatedEndpointSchema,
  CreateEndpointBody,
  DeletedSchema,
  DeliveryPage,
  DeliveryParams,
  DeliveryQuery,
  DeliverySchema,
  EndpointPage,
  EndpointSchema,
  RotateSecretBody,
  SecretSchema,
  UpdateEndpointBody,
} from './webhooks.schemas.js';
import * as webhooks from './webhooks.service.js';

const tags = ['Webhooks'];

const SIGNING =
  'Each delivery is a POST of `{id, type, createdAt, test, data}` with `X-Service-Timestamp` (Unix seconds, fresh per attempt) and `X-Service-Signature` = hex(HMAC-SHA256(key = the whsec_ secret as UTF-8, message = `<timestamp>.<raw body>`)). It also carries the Standard Webhooks headers (https://www.standardwebhooks.com), for receivers that use its libraries: `webhook-id` (the event id), `webhook-timestamp` and `webhook-signature` = `v1,<base64 HMAC-SHA256(key = the base64 after whsec_, decoded; message = `<webhook-id>.<webhook-timestamp>.<raw body>`)>`, plus `v1a,<base64 Ed25519 signature of the same>` when the endpoint has `ed25519: true` (verify with its `ed25519PublicKey`). A 2xx within the deadline is success; redirects are not followed; up to 6 attempts, after about 1, 2, 4, 8 and 16 minutes (jitter up to the same again). Receivers deduplicate by event id.';

const rules = (ctx: AppContext): webhooks.EndpointRules => webhooks.endpointRules(ctx.config);

/** Webhook endpoints (workspace-level: a sub-account's events go to its workspace's endpoints) and their delivery history. */
export function webhookRoutes(app: App, ctx: AppContext): void {
  app.route(createEndpoint(ctx));
  app.route(listEndpoints(ctx));
  app.route(getEndpoint(ctx));
  app.route(updateEndpoint(ctx));
  app.route(deleteEndpoint(ctx));
  app.route(rotateSecret(ctx));
  app.route(sendTestEvent(ctx));
  app.route(listDeliveries(ctx));
  app.route(getDelivery(ctx));
  app.route(resendDelivery(ctx));
}

function createEndpoint(ctx: AppContext) {
  return route.post(
    '/v1/webhooks',
    {
      config: { auth: 'workspace', scope: 'write:webhooks' },
      schema: {
        tags,
        summary: 'Register a webhook endpoint; the answer carries its signing secret, shown only this once',
        description: `HTTPS only (an http:// URL is a 400). ${SIGNING}`,
        body: CreateEndpointBody,
        response: { 201: CreatedEndpointSchema },
      },
    },
    async (req, reply) =>
      runIdempotent(ctx, req, reply, async (tx) => {
        const { row, secret } = await webhooks.createEndpoint(tx, ctx.box, rules(ctx), { workspaceId: req.auth.workspaceId }, req.body);
        return { status: 201, body: { ...webhooks.endpointView(row), secret } };
      }),
  );
}

function listEndpoints(ctx: AppContext) {
  return route.get(
    '/v1/webhooks',
    {
      config: { auth: 'workspace', scope: 'read:webhooks' },
      schema: { tags, summary: "The workspace's webhook endpoints, newest first", querystring: PageQuery, response: { 200: EndpointPage } },
    },
    async (req) => webhooks.listEndpoints(ctx.db, req.auth.workspaceId, req.query),
  );
}

function getEndpoint(ctx: AppContext) {
  return route.get(
    '/v1/webhooks/:id',
    {
      config: { auth: 'workspace', scope: 'read:webhooks' },
      schema: { tags, summary: 'One webhook endpoint (never its secret)', params: IdParams, response: { 200: EndpointSchema } },
    },
    async (req) => webhooks.endpointView(await webhooks.getEndpoint(ctx.db, req.auth.workspaceId, req.params.id)),
  );
}

function updateEndpoint(ctx: AppContext) {
  return route.patch(
    '/v1/webhooks/:id',
    {
      config: { auth: 'workspace', scope: 'write:webhooks' },
      schema: {
        tags,
        summary: 'Change the URL, the event types, the status (enabled or disabled) or the description',
        description: 'Absent fields keep their values; `events: null` subscribes to every type, `description: null` clears it.',
        params: IdParams,
        body: UpdateEndpointBody,
        response: { 200: EndpointSchema },
      },
    },
    async (req) => webhooks.endpointView(await webhooks.updateEndpoint(ctx.db, ctx.box, rules(ctx), req.auth.workspaceId, req.params.id, req.body)),
  );
}

function deleteEndpoint(ctx: AppContext) {
  return route.delete(
    '/v1/webhooks/:id',
    {
      config: { auth: 'workspace', scope: 'write:webhooks' },
      schema: {
        tags,
        summary: 'Delete an endpoint with its delivery history; its pending deliveries are dropped',
        params: IdParams,
        response: { 200: DeletedSchema },
      },
    },
    async (req) => {
      await webhooks.deleteEndpoint(ctx.db, req.auth.workspaceId, req.params.id);
      return { id: req.params.id, deleted: true as const };
    },
  );
}

function rotateSecret(ctx: AppContext) {
  return route.post(
    '/v1/webhooks/:id/rotate-secret',
    {
      config: { auth: 'workspace', scope: 'write:webhooks' },
      schema: {
        tags,
        summary: 'Replace the signing secret; the new one, shown only here, signs every later attempt (retries included)',
        description:
          'With `graceSeconds`, the secret being replaced keeps signing beside the new one for that long: each delivery\'s `webhook-signature` carries a `v1` signature by each secret (X-Service-Signature: the new one), so a receiver can switch at any moment of the overlap. Default 0: the previous secret stops at once.',
        params: IdParams,
        body: Type.Optional(RotateSecretBody),
        response: { 200: SecretSchema },
      },
    },
    async (req, reply) =>
      runIdempotent(ctx, req, reply, async (tx) => ({
        status: 200,
        body: await webhooks.rotateSecret(tx, ctx.box, req.auth.workspaceId, req.params.id, req.body?.graceSeconds ?? 0),
      })),
  );
}

function sendTestEvent(ctx: AppContext) {
  return route.post(
    '/v1/webhooks/:id/test',
    {
      config: { auth: 'workspace', scope: 'write:webhooks' },
      schema: {
        tags,
        summary: 'Send a webhook.test event (test: true) to this endpoint, signed like any event; answers with its delivery',
        description: 'The delivery is pending when answered; follow it at GET /v1/webhooks/{id}/deliveries/{deliveryId}.',
        params: IdParams,
        response: { 201: DeliverySchema },
      },
    },
    async (req, reply) =>
      runIdempotent(ctx, req, reply, async (tx) => ({
        status: 201,
        body: webhooks.deliveryView(await webhooks.sendTestEvent(tx, req.auth.workspaceId, req.params.id)),
      })),
  );
}

function listDeliveries(ctx: AppContext) {
  return route.get(
    '/v1/webhooks/:id/deliveries',
    {
      config: { auth: 'workspace', scope: 'read:webhooks' },
      schema: {
        tags,
        summary: "An endpoint's deliveries, newest first, by status and event type",
        description: 'Attempts are listed without their response excerpt; GET one delivery to read it.',
        params: IdParams,
        querystring: DeliveryQuery,
        response: { 200: DeliveryPage },
      },
    },
    async (req) => webhooks.listDeliveries(ctx.db, req.auth.workspaceId, req.params.id, req.query),
  );
}

function getDelivery(ctx: AppContext) {
  return route.get(
    '/v1/webhooks/:id/deliveries/:deliveryId',
    {
      config: { auth: 'workspace', scope: 'read:webhooks' },
      schema: {
        tags,
        summary: 'One delivery with every attempt: number, time, response status, duration, error and response excerpt',
        params: DeliveryParams,
        response: { 200: DeliverySchema },
      },
    },
    async (req) => webhooks.deliveryView(await webhooks.getDelivery(ctx.db, req.auth.workspaceId, req.params.id, req.params.deliveryId)),
  );
}

function resendDelivery(ctx: AppContext) {
  return route.post(
    '/v1/webhooks/:id/deliveries/:deliveryId/resend',
    {
      config: { auth: 'workspace', scope: 'write:webhooks' },
      schema: {
        tags,
        summary: 'Send a delivery again now: a finished one gets one fresh attempt, a waiting one its next attempt at once; signed anew with the current secret',
        description:
          'For the way back after fixing a receiver. A finished delivery gets one more attempt; a pending one waiting for its next scheduled attempt has that attempt now (retry now). The delivery is pending when answered (202) and the attempt is made at once by a worker; follow it at GET /v1/webhooks/{id}/deliveries/{deliveryId}. While an attempt of it is under way: 409 WEBHOOK_DELIVERY_PENDING; a disabled endpoint is 409 WEBHOOK_ENDPOINT_DISABLED.',
        params: DeliveryParams,
        response: { 202: DeliverySchema },
      },
    },
    async (req, reply) =>
      runIdempotent(ctx, req, reply, async (tx) => ({
        status: 202,
        body: webhooks.deliveryView(await webhooks.resendDelivery(tx, req.auth.workspaceId, req.params.id, req.params.deliveryId)),
      })),
  );
}
