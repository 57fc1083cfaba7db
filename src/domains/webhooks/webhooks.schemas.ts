import { Type } from 'typebox';
import { Nullable, Page, PageQuery, Timestamp, Uuid } from '../../platform/lib/schemas.js';
import { ROTATION_GRACE_SECONDS_MAX } from '../../platform/lib/secrets.js';
import { EVENT_TYPES, SUBSCRIBABLE_EVENT_TYPES } from './event-types.js';

const EndpointUrl = Type.String({
  minLength: 1,
  maxLength: 2048,
  description: 'HTTPS URL that receives the POSTs; at most 2048 characters, no credentials or fragment',
  examples: ['https://localhost:3000/webhooks/corridor'],
});

const SubscribableType = Type.Union(
  SUBSCRIBABLE_EVENT_TYPES.map((t) => Type.Literal(t)),
  { 'x-message': `must be one of: ${SUBSCRIBABLE_EVENT_TYPES.join(', ')}` },
);

const EventFilter = Nullable(
  Type.Array(SubscribableType, {
    minItems: 1,
    maxItems: SUBSCRIBABLE_EVENT_TYPES.length,
    description: 'The event types sent to this endpoint; null or absent: every type',
  }),
);

const Description = Nullable(Type.String({ maxLength: 500, description: 'Your note about the endpoint' }));

export const EndpointStatus = Type.Union([Type.Literal('enabled'), Type.Literal('disabled')], {
  description: 'A disabled endpoint gets no new deliveries; its pending ones wait until it is enabled again',
});

export const EndpointSchema = Type.Object(
  {
    id: Uuid,
    url: Type.String(),
    description: Nullable(Type.String()),
    events: Nullable(Type.Array(Type.String(), { description: 'Subscribed event types; null: every type' })),
    status: EndpointStatus,
    ed25519PublicKey: Nullable(
      Type.String({
        pattern: '^whpk_[A-Za-z0-9+/]{43}=$',
        description: 'With `ed25519: true`: the Ed25519 public key (`whpk_` + base64 of its 32 bytes) that verifies the `v1a` signature of webhook-signature; no secret. Null: HMAC signatures only',
      }),
    ),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { title: 'WebhookEndpoint' },
);

const Secret = Type.String({
  pattern: '^whsec_',
  description:
    'The signing secret, shown only here. X-Service-Signature = hex(HMAC-SHA256(key = this whole string as UTF-8, message = `<X-Service-Timestamp>.<raw body>`)); a Standard Webhooks library takes it as it is (`new Webhook(secret)`) to verify webhook-signature',
});

const Ed25519Opt = Type.Boolean({
  description: 'Also sign each delivery with an Ed25519 key of this endpoint (`v1a` in webhook-signature; receivers verify with `ed25519PublicKey`, no shared secret). `false` drops the key',
});

export const CreatedEndpointSchema = Type.Object(
  { ...EndpointSchema.properties, secret: Secret },
  { title: 'WebhookEndpointWithSecret' },
);

export const CreateEndpointBody = Type.Object(
  { url: EndpointUrl, events: Type.Optional(EventFilter), description: Type.Optional(Description), ed25519: Type.Optional(Ed25519Opt) },
  { additionalProperties: false },
);

export const UpdateEndpointBody = Type.Object(
  {
    url: Type.Optional(EndpointUrl),
    events: Type.Optional(EventFilter),
    status: Type.Optional(EndpointStatus),
    description: Type.Optional(Description),
    ed25519: Type.Optional(Ed25519Opt),
  },
  { additionalProperties: false },
);

export const RotateSecretBody = Type.Object(
  {
    graceSeconds: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: ROTATION_GRACE_SECONDS_MAX,
        default: 0,
        description: 'How long the secret being replaced keeps signing beside the new one, in seconds (0 to 604800, 7 days). Default 0: it stops at once.',
      }),
    ),
  },
  { additionalProperties: false },
);

export const SecretSchema = Type.Object(
  {
    secret: Secret,
    previousSecretExpiresAt: { ...Timestamp, description: 'Until when the replaced secret signs beside the new one (the time of the rotation when it stopped at once)' },
  },
  { title: 'WebhookSecret' },
);
export const DeletedSchema = Type.Object({ id: Uuid, deleted: Type.Literal(true) }, { title: 'WebhookEndpointDeleted' });

export const AttemptSchema = Type.Object(
  {
    number: Type.Integer({ minimum: 1, description: '1 to 6 for the scheduled attempts; a resend adds one more' }),
    at: Timestamp,
    responseStatus: Nullable(Type.Integer({ description: 'HTTP status received; null when none was (timeout, refused, TLS error)' })),
    durationMs: Type.Integer({ minimum: 0 }),
    error: Nullable(Type.String({ description: 'Why no 2xx was received, when not told by the status' })),
    responseExcerpt: Type.Optional(
      Nullable(Type.String({ description: 'The first 4 KiB of the response body (on GET of one delivery only)' })),
    ),
  },
  { title: 'WebhookAttempt' },
);

export const DeliverySchema = Type.Object(
  {
    id: Uuid,
    endpointId: Uuid,
    eventId: Type.String({ description: 'The event id (evt_...), the same on every attempt' }),
    eventType: Type.String(),
    status: Type.Union([Type.Literal('pending'), Type.Literal('succeeded'), Type.Literal('failed')], {
      description: 'succeeded on a 2xx within the deadline; failed after 6 attempts without one',
    }),
    attempts: Type.Array(AttemptSchema),
    nextAttemptAt: Nullable(Timestamp),
    createdAt: Timestamp,
  },
  { title: 'WebhookDelivery' },
);

export const EndpointPage = Page('webhook_endpoint.list', EndpointSchema);
export const DeliveryPage = Page('webhook_delivery.list', DeliverySchema);

export const DeliveryParams = Type.Object({ id: Uuid, deliveryId: Uuid });

export const DeliveryQuery = Type.Object({
  ...PageQuery.properties,
  status: Type.Optional(Type.Union([Type.Literal('pending'), Type.Literal('succeeded'), Type.Literal('failed')])),
  eventType: Type.Optional(Type.Union(EVENT_TYPES.map((t) => Type.Literal(t)))),
  eventId: Type.Optional(Type.String({ pattern: '^evt_[A-Za-z0-9_-]{1,64}$', description: "Only the delivery of this event (evt_...): what `corridor events resend` looks up" })),
});
