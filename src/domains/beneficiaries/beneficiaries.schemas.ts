import { Type } from 'typebox';
import { Country, literals, Nullable, Page, PageQuery, Timestamp, Uuid } from '../../platform/lib/schemas.js';
import { ACCOUNT_TYPES } from '../corridors/catalog.js';

/** Named limits of this module. */
export const BENEFICIARY_ACCOUNTS_MAX = 10;
export const ACCOUNT_DATA_VALUE_LENGTH_MAX = 128;


export const BeneficiaryType = literals(['individual', 'business'], 'Default individual');
export const BeneficiaryStatus = literals(['active', 'inactive', 'suspended']);

const DataValue = (description: string) => Type.Optional(Type.String({ minLength: 1, maxLength: ACCOUNT_DATA_VALUE_LENGTH_MAX, description }));

export const AccountData = Type.Object(
  {
    iban: DataValue('iban: the IBAN (spaces allowed; stored without them)'),
    bic: DataValue('iban: the BIC of the bank (required on some corridors)'),
    accountNumber: DataValue('bank_account: the account number'),
    routingNumber: DataValue('bank_account (US): the 9-digit ABA routing number'),
    sortCode: DataValue('bank_account (GB): the 6-digit sort code'),
    bankCode: DataValue('bank_account (NG, GH): the bank code'),
    crAccount: DataValue('bank_account (NG): the 10-digit NUBAN'),
    bankName: DataValue('bank_account: the bank name'),
    swiftCode: DataValue('bank_account (SWIFT): the BIC of the bank'),
    phoneNumber: DataValue('mobile_money: the number in E.164 form, such as +2250701234567'),
    network: DataValue(
      'mobile_money: mtn, orange, airtel, moov, mpesa, vodafone, wave or free; crypto: ethereum, tron, polygon or solana',
    ),
    address: DataValue('crypto: the wallet address'),
  },
  {
    additionalProperties: false,
    description: 'The account details; which keys a corridor needs is in the corridor table (GET /docs/corridors)',
  },
);

export const AccountItem = Type.Object(
  {
    id: Type.String({ format: 'uuid', description: 'Server-assigned; names this account in GET /v1/payouts/available-rails' }),
    type: literals(ACCOUNT_TYPES),
    currency: Type.String({ pattern: '^[A-Z]{3,10}$', description: 'Currency paid to this account', 'x-message': 'must be a currency code such as "EUR"' }),
    country: Type.Optional(Country),
    data: AccountData,
  },
  { additionalProperties: false, title: 'BeneficiaryAccount' },
);

const AccountItemInput = Type.Object(
  {
    id: Type.Optional(
      Type.String({
        format: 'uuid',
        description: 'Server-assigned. Ignored on create; on update, keeps that existing account (with the new details) instead of adding one',
      }),
    ),
    type: AccountItem.properties.type,
    currency: AccountItem.properties.currency,
    country: AccountItem.properties.country,
    data: AccountData,
  },
  { additionalProperties: false },
);

const Accounts = Type.Array(AccountItemInput, { minItems: 1, maxItems: BENEFICIARY_ACCOUNTS_MAX });

const DateOfBirth = Type.String({
  format: 'date',
  pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}$',
  description: 'YYYY-MM-DD; individuals only',
  'x-message': 'must be a date in the form YYYY-MM-DD',
});

/** The optional fields and their bounds (spec §Limits). */
const Address = Type.String({ minLength: 1, maxLength: 200 });
const AddressLine2 = Type.String({ minLength: 1, maxLength: 200 });
const City = Type.String({ minLength: 1, maxLength: 100, description: 'May be required by the corridor' });
const CountrySubdivision = Type.String({ minLength: 1, maxLength: 50, description: 'e.g. a state code' });
const Email = Type.String({ format: 'email', maxLength: 254 });
const MiddleName = Type.String({ minLength: 1, maxLength: 100 });
const Notes = Type.String({ minLength: 1, maxLength: 500 });
const Postcode = Type.String({ minLength: 1, maxLength: 20 });
const RegistrationNumber = Type.String({ minLength: 1, maxLength: 100, description: 'Business only; required on some corridors' });

const Name = Type.String({ minLength: 2, maxLength: 100, description: 'Legal name; an individual gives first and last name where the corridor requires it' });

export const CreateBeneficiaryBody = Type.Object(
  {
    id: Type.Optional(
      Type.String({ format: 'uuid', description: 'An existing beneficiary: when given, the other fields are ignored and that beneficiary is answered (200)' }),
    ),
    accounts: Type.Optional(Accounts),
    country: Type.Optional(Country),
    name: Type.Optional(Name),
    type: Type.Optional(BeneficiaryType),
    address: Type.Optional(Address),
    addressLine2: Type.Optional(AddressLine2),
    city: Type.Optional(City),
    countrySubdivision: Type.Optional(CountrySubdivision),
    dateOfBirth: Type.Optional(DateOfBirth),
    email: Type.Optional(Email),
    middleName: Type.Optional(MiddleName),
    notes: Type.Optional(Notes),
    postcode: Type.Optional(Postcode),
    registrationNumber: Type.Optional(RegistrationNumber),
  },
  {
    description: '`accounts`, `country` and `name` are required unless `id` references an existing beneficiary',
    examples: [
      {
        type: 'individual',
        name: 'Ada Lovelace',
        country: 'DE',
        address: '1 Hauptstrasse',
        city: 'Berlin',
        postcode: '10115',
        accounts: [{ type: 'iban', currency: 'EUR', data: { iban: 'DE89370400440532013000' } }],
      },
    ],
    if: { required: ['id'] },
    then: {},
    else: { required: ['accounts', 'country', 'name'] },
  },
);

export const UpdateBeneficiaryBody = Type.Object(
  {
    accounts: Type.Optional(Accounts),
    country: Type.Optional(Country),
    name: Type.Optional(Name),
    type: Type.Optional(BeneficiaryType),
    status: Type.Optional(literals(['active', 'inactive'], 'Reactivate or deactivate; a suspended beneficiary is changed by the operator only')),
    address: Type.Optional(Nullable(Address)),
    addressLine2: Type.Optional(Nullable(AddressLine2)),
    city: Type.Optional(Nullable(City)),
    countrySubdivision: Type.Optional(Nullable(CountrySubdivision)),
    dateOfBirth: Type.Optional(Nullable(DateOfBirth)),
    email: Type.Optional(Nullable(Email)),
    middleName: Type.Optional(Nullable(MiddleName)),
    notes: Type.Optional(Nullable(Notes)),
    postcode: Type.Optional(Nullable(Postcode)),
    registrationNumber: Type.Optional(Nullable(RegistrationNumber)),
  },
  { description: 'Partial update: an absent field keeps its value, null clears an optional field. The result is validated again as a whole.' },
);

export const BeneficiarySchema = Type.Object(
  {
    id: Uuid,
    accountId: Type.Optional(Type.String({ format: 'uuid', description: 'The sub-account owning it; absent for the workspace’s own' })),
    type: literals(['individual', 'business']),
    status: BeneficiaryStatus,
    name: Type.String(),
    country: Type.String(),
    accounts: Type.Array(AccountItem),
    address: Type.Optional(Type.String()),
    addressLine2: Type.Optional(Type.String()),
    city: Type.Optional(Type.String()),
    countrySubdivision: Type.Optional(Type.String()),
    dateOfBirth: Type.Optional(Type.String({ description: 'YYYY-MM-DD' })),
    email: Type.Optional(Type.String()),
    middleName: Type.Optional(Type.String()),
    notes: Type.Optional(Type.String()),
    postcode: Type.Optional(Type.String()),
    registrationNumber: Type.Optional(Type.String()),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { title: 'Beneficiary' },
);

export const BeneficiaryPage = Page('beneficiary.list', BeneficiarySchema);

export const ListBeneficiariesQuery = Type.Object({
  ...PageQuery.properties,
  status: Type.Optional(BeneficiaryStatus),
});

export const OperatorStatusBody = Type.Object({ status: BeneficiaryStatus }, { additionalProperties: false });
