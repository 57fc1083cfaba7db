import { Type } from 'typebox';
import { Nullable, Page, PageQuery, Timestamp, Uuid } from '../../platform/lib/schemas.js';

export const AlertSchema = Type.Object(
  {
    id: Uuid,
    object: Type.Literal('alert'),
    conditionId: Type.String({ description: 'The condition that found it' }),
    source: Type.String({ description: 'The condition source (payouts.stuck, webhooks.endpoint_failing, …)' }),
    subject: Type.String({ description: 'What it is about: a connector and status, an endpoint id, a list name, …' }),
    status: Type.Union([Type.Literal('open'), Type.Literal('closed')]),
    summary: Type.String(),
    details: Type.Record(Type.String(), Type.Unknown()),
    openedAt: Timestamp,
    closedAt: Nullable(Timestamp),
  },
  { $id: 'Alert', title: 'Alert' },
);

export const AlertPage = Page('alert.list', AlertSchema);

export const AlertsQuery = Type.Object({
  ...PageQuery.properties,
  status: Type.Optional(Type.Union([Type.Literal('open'), Type.Literal('closed')])),
  source: Type.Optional(Type.String({ maxLength: 64 })),
});

export const AlertParams = Type.Object({ id: Uuid });

const ConditionId = Type.String({ pattern: '^[a-z0-9][a-z0-9._-]{0,63}$', examples: ['payouts.stuck'], description: 'Lower-case letters, digits, `.`, `_` and `-`; a source\'s own name for its default condition' });

export const ConditionSchema = Type.Object(
  {
    id: ConditionId,
    object: Type.Literal('alert_condition'),
    source: Type.String(),
    description: Type.String(),
    unit: Type.Union(['minutes', 'hours', 'days', 'attempts', 'none'].map((u) => Type.Literal(u))),
    threshold: Type.Number(),
    filter: Type.Record(Type.String(), Type.String()),
    enabled: Type.Boolean(),
    updatedBy: Type.String(),
    updatedAt: Timestamp,
  },
  { $id: 'AlertCondition', title: 'AlertCondition' },
);

export const ConditionList = Type.Object({ object: Type.Literal('alert_condition.list'), data: Type.Array(ConditionSchema) });

export const ConditionParams = Type.Object({ id: ConditionId });

export const ConditionBody = Type.Object(
  {
    source: Type.String({ minLength: 1, maxLength: 64, examples: ['payouts.stuck'] }),
    threshold: Type.Number({ minimum: 0, maximum: 1_000_000, examples: [60], description: "In the source's unit (minutes, hours, days, attempts)" }),
    filter: Type.Optional(Type.Record(Type.String({ maxLength: 32 }), Type.String({ minLength: 1, maxLength: 128 }), { maxProperties: 4 })),
    enabled: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);
