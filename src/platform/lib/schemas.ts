import { Type, type TSchema } from 'typebox';

/** Shared wire shapes. Every route's schemas are built from these. */
export const Uuid = Type.String({ format: 'uuid', description: 'UUID' });
export const Timestamp = Type.String({ format: 'date-time', description: 'ISO 8601 timestamp' });
export const Country = Type.String({
  pattern: '^[A-Z]{2}$',
  minLength: 2,
  maxLength: 2,
  description: 'ISO 3166-1 alpha-2 country code',
  'x-message': 'must be an ISO 3166-1 alpha-2 country code (two capital letters)',
});
/** One of `values` (an anyOf of string consts), typed as their union so that a route's request and reply types name them. */
export const literals = <T extends string>(values: readonly T[], description?: string) =>
  Type.Unsafe<T>(Type.Union(values.map((v) => Type.Literal(v)), description ? { description } : {}));

export const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

export const IdParams = Type.Object({ id: Uuid });

export const FieldErrorSchema = Type.Object(
  {
    field: Type.String(),
    message: Type.String(),
    code: Type.Optional(Type.String()),
    value: Type.Optional(Type.Unknown()),
  },
  { additionalProperties: false, title: 'FieldError' },
);

/** What helps the developer act, on every error shape (src/platform/http/errors.ts, guidance). */
const GUIDANCE = {
  doc_url: Type.Optional(Type.String({ format: 'uri', description: "The code's entry in the error catalogue (GET /docs/errors#CODE): what it means and what to do" })),
  param: Type.Optional(Type.String({ description: 'For a field error, the first failing field (as in details[].field / errors[].field)' })),
  scope: Type.Optional(Type.String({ description: 'On 403 METHOD_NOT_ENTITLED, the scope the credential lacks' })),
};

const legacyFields = {
  statusCode: Type.Integer(),
  message: Type.String({ description: 'A stable code for money-movement refusals, otherwise text; for validation errors the details joined with "; "' }),
  error: Type.Optional(Type.String({ examples: ['BAD_REQUEST'] })),
  code: Type.Optional(Type.String({ description: 'One of the codes of GET /docs/errors' })),
  timestamp: Type.Optional(Timestamp),
  path: Type.Optional(Type.String()),
  doc_url: GUIDANCE.doc_url,
  scope: GUIDANCE.scope,
};

/** The legacy envelope: a refusal without field details. */
export const LegacyErrorSchema = Type.Object(legacyFields, { title: 'LegacyError', description: 'The legacy error envelope' });

/** The validation envelope: the legacy envelope plus the failing fields. */
export const ValidationErrorSchema = Type.Object(
  {
    ...legacyFields,
    details: Type.Array(FieldErrorSchema, { description: 'At most 50 entries' }),
    detailsOmitted: Type.Optional(Type.Integer({ description: 'How many more failing fields there were than `details` lists' })),
  },
  { title: 'ValidationError', description: 'The validation envelope: the legacy envelope plus `details`, one entry per failing field' },
);

export const ProblemSchema = Type.Object(
  {
    type: Type.String({ format: 'uri' }),
    title: Type.String(),
    status: Type.Integer(),
    code: Type.String({ description: 'One of the codes of GET /docs/errors' }),
    detail: Type.String(),
    category: Type.Union(
      ['invalid_request', 'authentication', 'permission', 'not_found', 'conflict', 'rate_limit', 'provider', 'internal'].map((c) =>
        Type.Literal(c),
      ),
    ),
    retryable: Type.Boolean({ description: 'Authoritative. False on a POST sent without Idempotency-Key, except a 429 (refused before anything was done: always true, with Retry-After).' }),
    request_id: Type.String({ description: 'Equal to the x-request-id response header' }),
    errors: Type.Optional(Type.Array(FieldErrorSchema, { description: 'At most 50 entries' })),
    errorsOmitted: Type.Optional(Type.Integer({ description: 'How many more failing fields there were than `errors` lists' })),
    ...GUIDANCE,
  },
  { title: 'Problem', description: 'Problem details (RFC 9457)' },
);

export const UnauthorizedSchema = Type.Object(
  { statusCode: Type.Literal(401), message: Type.String() },
  { title: 'Unauthorized', description: 'Missing, invalid or expired token' },
);

/** A page of results: `{object, data, hasMore, nextCursor}`. */
/** `payout.list`: PayoutList, the page's schema name in the OpenAPI document. */
const pageTitle = (object: string): string =>
  object
    .replace(/\.list$/, '_list')
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
    .join('');

/** The item's title plus List when it has one (OperatorPayoutList), else from the object (`payout.list`: PayoutList). */
const pageTitleOf = (object: string, item: TSchema): string => {
  const title = (item as { title?: unknown }).title;
  return typeof title === 'string' && /^[A-Z][A-Za-z0-9]*$/.test(title) ? `${title}List` : pageTitle(object);
};

/** A page of results: `{object, data, hasMore, nextCursor}`, named `title` (default: PayoutList for `payout.list`). */
export const Page = <T extends TSchema>(object: string, item: T, title = pageTitleOf(object, item)) =>
  Type.Object(
    {
      object: Type.Literal(object),
      data: Type.Array(item),
      hasMore: Type.Boolean(),
      nextCursor: Nullable(Type.String()),
    },
    { title },
  );

export const PageQuery = Type.Object({
  cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 512, description: "The previous page's nextCursor" })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20, description: 'Page size, 1 to 100' })),
});

export const MessageSchema = Type.Object({ message: Type.String() });
