import { Type } from 'typebox';
import { Nullable, Page, PageQuery, Timestamp, Uuid } from '../../platform/lib/schemas.js';

const Body = Nullable(
  Type.Unknown({
    description: 'The JSON body with secrets and personal data replaced by "[redacted]" (names, addresses, account numbers, e-mail addresses, ...); a body over 16,384 characters is {"omitted": "<size>"}; null when there was none',
  }),
);

export const RequestLogSchema = Type.Object(
  {
    object: Type.Literal('request_log'),
    id: Uuid,
    requestId: Type.String({ description: 'The X-Request-Id the answer carried' }),
    method: Type.String(),
    path: Type.String({ description: 'Path and query; credential-like query values redacted' }),
    status: Type.Integer({ description: 'The HTTP status answered' }),
    durationMs: Type.Integer({ description: 'From the request to the end of the answer' }),
    idempotencyKey: Nullable(Type.String()),
    caller: Type.String({ description: 'The credential\'s client id (or dashboard:<user id>)' }),
    accountId: Uuid,
    requestBody: Body,
    responseBody: Body,
    createdAt: Timestamp,
  },
  { title: 'RequestLog' },
);

export const RequestLogPage = Page('request_log.list', RequestLogSchema);

export const RequestLogQuery = Type.Object({
  ...PageQuery.properties,
  method: Type.Optional(Type.Union(['GET', 'POST', 'PUT', 'PATCH', 'DELETE'].map((m) => Type.Literal(m)))),
  status: Type.Optional(Type.Integer({ minimum: 100, maximum: 599, description: 'Only answers with this status' })),
  failed: Type.Optional(Type.Boolean({ description: 'Only answers of 400 and above' })),
});
