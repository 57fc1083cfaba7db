import { Type } from 'typebox';
import { Page, PageQuery } from '../../platform/lib/schemas.js';
import { EVENT_TYPES_MESSAGE, EventId, EventSchema, EventTypeSchema } from './event-union.js';

export { EventId, EventSchema } from './event-union.js';

export const EventParams = Type.Object({ id: EventId });

export const EventQuery = Type.Object({
  ...PageQuery.properties,
  type: Type.Optional(Type.Union(EventTypeSchema.anyOf, { description: 'Only events of this type', 'x-message': EVENT_TYPES_MESSAGE })),
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
