import { Type } from 'typebox';
import { literals, Uuid } from '../../platform/lib/schemas.js';
import { RECIPIENT_FIELDS, ROUTES, SENDER_INFO_KEYS } from './catalog.js';


export const RouteSchema = literals(ROUTES);

export const RequirementsQuery = Type.Object({
  currency: Type.String({
    pattern: '^[A-Za-z]{3,10}$',
    examples: ['EUR'],
    description: 'Destination currency',
    'x-message': 'must be a currency code of 3 to 10 letters',
  }),
  route: Type.Optional(literals(ROUTES, 'Narrows both parties to that corridor')),
  country: Type.Optional(
    Type.String({
      pattern: '^[A-Za-z]{2}$',
      description:
        'With route=mobile_money the destination country; with route=swift the beneficiary country, which selects the paying provider and therefore the recipient rules; ignored on other rails and when route is absent',
      'x-message': 'must be an ISO 3166-1 alpha-2 country code',
    }),
  ),
});

const Rule = Type.Object(
  {
    field: Type.Literal('name'),
    pattern: Type.String({ description: 'ECMAScript regular expression without delimiters or flags, matched against the value exactly as it will be submitted' }),
    description: Type.String({ description: 'Text suitable to display beside the field' }),
  },
  { title: 'RequirementRule' },
);

const BeneficiaryFields = Type.Object(
  {
    required: Type.Array(literals(RECIPIENT_FIELDS), { description: 'Fields that must be provided; name, country and accounts are always required and not listed' }),
    optional: Type.Array(literals(RECIPIENT_FIELDS), { description: 'Fields that may be provided; every one is accepted by POST /v1/beneficiaries' }),
    rules: Type.Array(Rule, { description: 'Value-shape constraints on this corridor; empty when none beyond presence' }),
  },
  { title: 'BeneficiaryFields' },
);

const SenderFields = Type.Object(
  {
    required: Type.Array(literals(SENDER_INFO_KEYS), { description: 'Keys of senderInfo that must be present when a senderInfo block of this type is supplied' }),
    optional: Type.Array(literals(SENDER_INFO_KEYS), { description: 'Keys that may be present; any other key is dropped' }),
  },
  { title: 'SenderFields' },
);

export const PayoutRequirementsSchema = Type.Object(
  {
    beneficiary: Type.Object({ individual: BeneficiaryFields, business: BeneficiaryFields }),
    sender: Type.Object({
      individual: SenderFields,
      business: SenderFields,
      senderInfoRequired: Type.Boolean({
        description:
          'When false, omitting senderInfo attributes the workspace itself as a business originator; when true the corridor needs a field the workspace identity cannot carry (e.g. the sender phone into Cameroon)',
      }),
    }),
  },
  { title: 'PayoutRequirements' },
);

export const AvailableRailsQuery = Type.Object({
  accountId: Type.String({ format: 'uuid', description: 'A beneficiary account id (`accounts[].id`, assigned by the server)', 'x-message': 'must be a beneficiary account id (UUID)', 'x-sample-variable': 'BENEFICIARY_ACCOUNT_ID' }),
});

const Rail = Type.Object(
  {
    route: RouteSchema,
    provider: Type.String({ description: 'The provider that pays this account on the rail' }),
    defaultRouting: Type.Boolean({ description: 'False when the rail is served only outside default routing' }),
    minAmount: Type.String({ description: 'Decimal string in major units' }),
    maxAmount: Type.Union([Type.String(), Type.Null()], { description: 'Decimal string in major units; null when the corridor has no cap' }),
    senderInfoRequired: Type.Boolean(),
    recipientReady: Type.Boolean({ description: 'The beneficiary passes this rail’s recipient checks as it stands' }),
    recipientIssues: Type.Array(
      Type.Object({ field: Type.String(), message: Type.String(), code: Type.Optional(Type.String()) }),
      { description: 'What a payout over this rail would be refused for now (first failing check stage)' },
    ),
  },
  { title: 'AvailableRail' },
);

export const AvailableRailsSchema = Type.Object(
  {
    object: Type.Literal('rail.list'),
    accountId: Uuid,
    beneficiaryId: Uuid,
    currency: Type.String(),
    autoRoute: Type.Union([RouteSchema, Type.Null()], {
      description: 'For EUR and GBP iban accounts: the rail a payout sent without route takes (reported as `international`); null otherwise',
    }),
    data: Type.Array(Rail),
  },
  { title: 'AvailableRails' },
);
