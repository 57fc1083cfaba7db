import { Type } from 'typebox';
import { Country, Page, Timestamp, Uuid } from '../../platform/lib/schemas.js';

export const AccountSchema = Type.Object(
  {
    id: Uuid,
    parentAccountId: Type.Optional(Uuid),
    accountType: Type.Union([Type.Literal('master'), Type.Literal('sub')]),
    status: Type.Union([Type.Literal('pending'), Type.Literal('active'), Type.Literal('suspended'), Type.Literal('closed')]),
    country: Country,
    name: Type.String(),
    clientRef: Type.Optional(Type.String()),
    primaryCurrency: Type.Optional(Type.String()),
    createdAt: Timestamp,
  },
  { title: 'Account' },
);

export const CreateAccountBody = Type.Object({
  name: Type.String({ minLength: 2, maxLength: 100 }),
  country: Country,
  clientRef: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
});

export const AccountPage = Page('account.list', AccountSchema);
