import { Type } from 'typebox';
import { Nullable, Page, PageQuery, Timestamp, Uuid } from '../../lib/schemas.js';

export const EventId = Type.String({ pattern: '^evt_[A-Za-z0-9_-]{1,64}$', description: 'Event id, prefix evt_' });

export const EventSchema = Type.Object(
  {
    id: EventId,
    type: Type.String({ examples: ['payout.paid'] }),
    createdAt: Timestamp,
    test: Type.Boolean({ description: 'True for events sent by the webhook test operation' }),
    data: Type.Record(Type.String(), Type.Unknown(), { description: 'Event-specific, as delivered in the webhook' }),
    accountId: Nullable(Uuid),
  },
  { title: 'Event', description: 'The webhook envelope {id, type, createdAt, test, data}, plus the sub-account it concerns (null: the workspace itself)' },
);

export const EventParams = Type.Object({ id: EventId });

export const EventQuery = Type.Object({
  ...PageQuery.properties,
  type: Type.Optional(Type.String({ pattern: '^[a-z_]+\\.[a-z_]+$', maxLength: 100, description: 'Only events of this type' })),
  createdFrom: Type.Optional(Type.String({ format: 'date-time', description: 'Only events created at or after this instant' })),
  createdTo: Type.Optional(Type.String({ format: 'date-time', description: 'Only events created before this instant' })),
});

export const EventPage = Page('event.list', EventSchema);

export const EventStreamQuery = Type.Object({
  types: Type.Optional(
    Type.String({
      pattern: '^[a-z_]+\\.[a-z_]+(,[a-z_]+\\.[a-z_]+)*$',
      maxLength: 2000,
      description: 'Only events of these types, comma-separated (payout.paid,payout.failed)',
    }),
  ),
});

export const EventStreamHeaders = Type.Object({
  'last-event-id': Type.Optional(
    Type.String({ pattern: '^evt_[A-Za-z0-9_-]{1,64}$', description: 'Resume after this event: every later event, none twice' }),
  ),
});
