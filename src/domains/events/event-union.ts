/**
 * The event as a discriminated union: one schema per event type (`PayoutPaidEvent`…), each with the
 * data its module emits (the payout, order, deposit… fields of spec §Events), so generated clients
 * get `type` as the union of the event types and `data` typed by it. The data schemas are picked from
 * the resources' own schemas, so a field renamed there is renamed here.
 */
import { Type, type TObject, type TProperties, type TSchema } from 'typebox';
import { Nullable, Timestamp, Uuid } from '../../platform/lib/schemas.js';
import { AccountSchema } from '../accounts/accounts.schemas.js';
import { ApplicationSchema } from '../applications/applications.schemas.js';
import { BeneficiarySchema } from '../beneficiaries/beneficiaries.schemas.js';
import { DepositSchema } from '../deposits/deposits.schemas.js';
import { OrderSchema } from '../orders/orders.schemas.js';
import { PayoutSchema } from '../payouts/payouts.schemas.js';
import { VirtualAccountSchema } from '../virtual-accounts/virtual-accounts.schemas.js';
import { EVENT_TYPES, type EventType } from '../webhooks/event-types.js';

export const EventId = Type.String({ pattern: '^evt_[A-Za-z0-9_-]{1,64}$', description: 'Event id, prefix evt_' });

function pick<P extends TProperties>(schema: TObject<P>, keys: readonly (keyof P & string)[], title: string, description: string): TSchema {
  return Type.Object(Object.fromEntries(keys.map((k) => [k, schema.properties[k]])) as TProperties, { title, description });
}

const PayoutEventData = pick(
  PayoutSchema,
  ['id', 'clientRef', 'amount', 'currency', 'status', 'completedAt', 'returnReason', 'uetr', 'txHash', 'chain', 'approval', 'recipientCheck'],
  'PayoutEventData',
  'The payout, as payout.* events carry it: the fields of spec §Events, what the rail reported (`returnReason`, `uetr`, `txHash`, `chain`, when it did) and, on payout.approval_required, the `approval` that holds it, on payout.recipient_check_required, the `recipientCheck` that holds it (both names)',
);
const OrderEventData = pick(
  OrderSchema,
  ['id', 'clientRef', 'status', 'fromCurrency', 'toCurrency', 'fromAmount', 'toAmount', 'rate', 'failureReason', 'uetr', 'settlement', 'fundingDeadlineAt', 'executionDeadlineAt', 'fundedAt', 'completedAt', 'createdAt'],
  'OrderEventData',
  'The order, as order.* events carry it',
);
const AccountEventData = pick(AccountSchema, ['id', 'parentAccountId', 'accountType', 'status', 'country', 'createdAt'], 'AccountEventData', 'The new sub-account');
const ApplicationEventData = pick(
  ApplicationSchema,
  ['id', 'accountId', 'applicationType', 'createdAt', 'status', 'editableSections', 'moreInfoReason', 'registeredName', 'riskLevel', 'screeningStatus'],
  'ApplicationEventData',
  'The application (without its sections), as application.* events carry it',
);
const VirtualAccountEventData = pick(VirtualAccountSchema, ['id', 'accountId', 'currency', 'status'], 'VirtualAccountEventData', 'The virtual account, never its bank details');
const DepositEventData = pick(DepositSchema, ['id', 'clientRef', 'amount', 'serviceFee', 'creditedAmount', 'currency', 'status'], 'DepositEventData', 'The deposit, as deposit.* events carry it');
const BeneficiaryEventData = Type.Object(
  {
    id: BeneficiarySchema.properties.id,
    accountId: BeneficiarySchema.properties.accountId,
    status: BeneficiarySchema.properties.status,
    correction: Type.Object(
      {
        code: Type.String({ description: "The rail's code, such as the ACH notification of change C01" }),
        description: Type.String({ description: 'The code in words' }),
        beneficiaryAccountId: Uuid,
        payoutId: Type.String({ format: 'uuid', description: 'The payout whose entry the rail corrected' }),
        fields: Type.Array(Type.String(), { description: 'The account data fields corrected (their new values: GET /v1/beneficiaries/{id})' }),
      },
      { title: 'BeneficiaryCorrection', description: "The rail's correction of one of the beneficiary's accounts, named but never its values" },
    ),
  },
  { title: 'BeneficiaryEventData', description: "The beneficiary, as beneficiary.updated carries it: which of its accounts a rail corrected (an ACH notification of change), never the bank details themselves" },
);
const WebhookTestEventData = Type.Object({ endpointId: Uuid, message: Type.String() }, { title: 'WebhookTestEventData' });

const DATA_BY_PREFIX: Record<string, TSchema> = {
  payout: PayoutEventData,
  order: OrderEventData,
  account: AccountEventData,
  application: ApplicationEventData,
  virtual_account: VirtualAccountEventData,
  deposit: DepositEventData,
  beneficiary: BeneficiaryEventData,
  webhook: WebhookTestEventData,
};

/** `payout.paid`: PayoutPaidEvent. */
export const eventSchemaName = (type: string): string =>
  `${type
    .split(/[._]/)
    .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
    .join('')}Event`;

/** The data schema of an event type, by its prefix (a new type of a known resource needs nothing here). */
export function eventDataSchema(type: EventType): TSchema {
  const data = DATA_BY_PREFIX[type.split('.')[0] as string];
  if (!data) throw new Error(`no data schema for event type ${type}`);
  return data;
}

const eventOf = (type: EventType) =>
  Type.Object(
    {
      id: EventId,
      type: Type.Literal(type),
      createdAt: Timestamp,
      test: Type.Boolean({ description: 'True for events sent by the webhook test operation' }),
      data: eventDataSchema(type),
      accountId: Type.Optional(
        { ...Nullable(Uuid), description: 'GET /v1/events and the event stream only: the sub-account the event concerns (null: the workspace itself). Webhook deliveries and `corridor listen` carry the envelope alone, without it' },
      ),
    },
    { title: eventSchemaName(type) },
  );

/** Every event: one of the event types, told apart by `type`. */
export const EventSchema = Type.Union(
  EVENT_TYPES.map((t) => eventOf(t)),
  {
    title: 'Event',
    description: 'The webhook envelope {id, type, createdAt, test, data} as delivered; GET /v1/events and the stream add `accountId`, the sub-account it concerns (null: the workspace itself); `data` by `type`',
    discriminator: { propertyName: 'type', mapping: Object.fromEntries(EVENT_TYPES.map((t) => [t, `#/components/schemas/${eventSchemaName(t)}`])) },
  },
);

export const EVENT_TYPES_MESSAGE = `must be one of: ${EVENT_TYPES.join(', ')}`;

/** The event type, as a query parameter or a filter: one of the types (a typo is refused). */
export const EventTypeSchema = Type.Union(
  EVENT_TYPES.map((t) => Type.Literal(t)),
  { title: 'EventType', 'x-message': EVENT_TYPES_MESSAGE },
);
