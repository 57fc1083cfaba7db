import { Type } from 'typebox';
import { Timestamp, Uuid } from '../../platform/lib/schemas.js';
import { ROTATION_GRACE_SECONDS_MAX } from './credentials.service.js';

/** A credential as listed (GET /v1/api-keys, GET /operator/v1/workspaces/{id}/credentials): never its secret. */
export const ApiKeySchema = Type.Object(
  {
    clientId: Uuid,
    scopes: Type.Array(Type.String()),
    status: Type.Union([Type.Literal('active'), Type.Literal('revoked')]),
    label: Type.Union([Type.String(), Type.Null()]),
    createdAt: Timestamp,
    lastUsedAt: Type.Union([Timestamp, Type.Null()], {
      description: 'When a token was last issued for it, to the minute (written at most once a minute); null if never',
    }),
  },
  { title: 'ApiKey' },
);

export const CredentialParams = Type.Object({ id: Uuid, clientId: Type.String({ maxLength: 100 }) });

export const RotateBody = Type.Object({
  graceSeconds: Type.Optional(
    Type.Integer({
      minimum: 0,
      maximum: ROTATION_GRACE_SECONDS_MAX,
      default: 0,
      description: 'How long the secret being replaced keeps working, in seconds (0 to 604800, 7 days). Default 0: it stops at once.',
    }),
  ),
});

export const RotatedSchema = Type.Object(
  {
    clientId: Uuid,
    clientSecret: Type.String({ description: 'The new secret, shown this once (stored only as a keyed digest)' }),
    previousSecretExpiresAt: Timestamp,
  },
  { title: 'RotatedCredential' },
);
