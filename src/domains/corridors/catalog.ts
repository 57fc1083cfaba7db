/**
 * The corridor catalog: the simulated providers of every rail, as data (DESIGN §4 Corridors).
 *
 * The requirements endpoint, the recipient validators (beneficiaries and payouts), provider selection,
 * the available-rails answer and the docs table all read this one table, so they cannot disagree.
 * Adding a corridor is adding an entry here; no code branches on a provider or a country.
 *
 * Order matters: within the providers that can pay an account, the first entry wins (default-routed
 * providers before the others).
 */

export const ROUTES = ['sepa_inst', 'sepa_credit', 'bank_transfer', 'ach', 'fedwire', 'swift', 'crypto', 'mobile_money'] as const;
export type Route = (typeof ROUTES)[number];
/** How an auto-routed EUR or GBP payout (sent without `route`) reports its rail. */
export const AUTO_ROUTE_NAME = 'international';

export const ACCOUNT_TYPES = ['iban', 'bank_account', 'mobile_money', 'crypto'] as const;
export type AccountType = (typeof ACCOUNT_TYPES)[number];

export const RECIPIENT_TYPES = ['individual', 'business'] as const;
export type RecipientType = (typeof RECIPIENT_TYPES)[number];

/** The only values `required`/`optional` of the requirements answer may hold (spec); name, country and accounts are implied. */
export const RECIPIENT_FIELDS = ['email', 'address', 'addressLine2', 'city', 'postcode', 'countrySubdivision', 'dateOfBirth'] as const;
export type RecipientField = (typeof RECIPIENT_FIELDS)[number];

/** The allowed `senderInfo` keys (spec); any other key is dropped from the stored sender identity. */
export const SENDER_INFO_KEYS = [
  'firstName',
  'lastName',
  'dateOfBirth',
  'companyName',
  'registrationNumber',
  'address',
  'postalCode',
  'city',
  'country',
  'phoneNumber',
  'fundOrigin',
  'gender',
] as const;
export type SenderInfoKey = (typeof SENDER_INFO_KEYS)[number];
export const SENDER_TYPES = ['individual', 'business'] as const;
export type SenderType = (typeof SENDER_TYPES)[number];
export const SENDER_GENDERS = ['male', 'female', 'other'] as const;
export const FUND_ORIGINS = ['salary', 'savings', 'business_income', 'investment', 'gift', 'other'] as const;

export const MOBILE_MONEY_NETWORKS = ['mtn', 'orange', 'airtel', 'moov', 'mpesa', 'vodafone', 'wave', 'free'] as const;
export type MobileMoneyNetwork = (typeof MOBILE_MONEY_NETWORKS)[number];
export const CRYPTO_NETWORKS = ['ethereum', 'tron', 'polygon', 'solana'] as const;
export type CryptoNetwork = (typeof CRYPTO_NETWORKS)[number];

/** Keys a bank-account item's `data` may carry (DESIGN §4 Beneficiary accounts). */
export const BANK_DATA_KEYS = ['accountNumber', 'routingNumber', 'sortCode', 'bankCode', 'crAccount', 'bankName', 'swiftCode'] as const;
export type BankDataKey = (typeof BANK_DATA_KEYS)[number];

/**
 * Checks a provider may run on the recipient. Only those in a provider's `submitValidators` run
 * synchronously at submit; presence of what the corridor needs is always checked.
 */
export const RECIPIENT_VALIDATORS = [
  'name_rules',
  'iban',
  'bic',
  'account_number',
  'routing_number',
  'nuban',
  'phone_number',
  'crypto_address',
] as const;
export type RecipientValidator = (typeof RECIPIENT_VALIDATORS)[number];

/** A value-shape constraint on the recipient's `name` (ECMAScript pattern, no flags, matched against the value as submitted). */
export interface NameRule {
  field: 'name';
  pattern: string;
  description: string;
  /** The stable code a violation carries at submit. */
  code: 'MISSING_BENEFICIARY_NAME' | 'RECIPIENT_DETAILS_INVALID';
}

export interface RecipientSpec {
  required: readonly RecipientField[];
  optional: readonly RecipientField[];
  rules: readonly NameRule[];
}

export interface SenderSpec {
  required: readonly SenderInfoKey[];
  optional: readonly SenderInfoKey[];
}

/** One key of a bank-account `data` object on a corridor: presence, and the shape its validator checks. */
export interface BankDataField {
  key: BankDataKey;
  required: boolean;
  /** The validator that checks the shape (only when it runs at submit); absent: presence only. */
  validator?: 'account_number' | 'routing_number' | 'bic';
  /** ECMAScript pattern the value must match. */
  pattern?: string;
  /** An arithmetic check on top of the pattern. */
  checksum?: 'aba';
  description: string;
}

export interface AccountSpecs {
  iban?: { bic: 'optional' | 'required' };
  bank_account?: {
    fields: readonly BankDataField[];
    /** Checked on the account object as a whole: one uncoded entry on `accounts.N.data` naming each failing key. */
    objectCheck?: 'nuban';
  };
  /** Networks served per destination country. */
  mobile_money?: { networks: Readonly<Record<string, readonly MobileMoneyNetwork[]>> };
  /** Networks served per currency. */
  crypto?: { networks: Readonly<Record<string, readonly CryptoNetwork[]>> };
}

/** Payout amount bounds of a currency on a provider, decimal strings in major units; no `max` means no corridor cap. */
export interface AmountBounds {
  min: string;
  max?: string;
}

export interface Provider {
  id: string;
  name: string;
  route: Route;
  /** Currency code → amount bounds; the keys are the currencies the provider pays. */
  amounts: Readonly<Record<string, AmountBounds>>;
  /** Destination countries (ISO 3166-1 alpha-2), or 'any' (crypto). */
  countries: readonly string[] | 'any';
  /** Payouts are routed to this provider by default; one outside default routing pays only where no default one does. */
  defaultRouting: boolean;
  /** Candidate for EUR/GBP payouts sent without `route` (auto-routed to iban accounts, reported as `international`). */
  autoRoute: boolean;
  accounts: AccountSpecs;
  recipient: Readonly<Record<RecipientType, RecipientSpec>>;
  /** Crypto: `dateOfBirth` of an individual recipient is required while the workspace's Travel Rule screening is on. */
  travelRule: boolean;
  sender: Readonly<Record<SenderType, SenderSpec>> & { senderInfoRequired: boolean };
  /** Validators run synchronously at submit (beneficiary create and update, payout submit). */
  submitValidators: readonly RecipientValidator[];
}

// ---------------------------------------------------------------------------------------------
// Countries

const SEPA = 'AD AT BE BG CH CY CZ DE DK EE ES FI FR GB GR HR HU IE IS IT LI LT LU LV MC MT NL NO PL PT RO SE SI SK SM VA'.split(' ');
const SWIFT_EUROPE = [...SEPA, ...'AL BA GE MD ME MK RS TR UA'.split(' ')];
const SWIFT_GLOBAL =
  'AE AR AU BD BR CA CL CN CO EG GH HK ID IL IN JP KE KR MA MX MY NG NZ PE PH PK QA SA SG TH TW TZ UG US VN ZA ZM'.split(' ');

// ---------------------------------------------------------------------------------------------
// Name rules (shared constants, so rules combined across providers deduplicate)

export const NAME_SPLITS: NameRule = {
  field: 'name',
  pattern: '^\\S+(?:\\s+\\S+)+$',
  description: 'First and last name separated by a space, with no leading or trailing space',
  code: 'MISSING_BENEFICIARY_NAME',
};
const SWIFT_CHARSET_35: NameRule = {
  field: 'name',
  pattern: "^[A-Za-z0-9/?:().,'+ -]{2,35}$",
  description: "SWIFT character set: Latin letters without accents, digits, spaces and / ? : ( ) . , ' + - only; at most 35 characters",
  code: 'RECIPIENT_DETAILS_INVALID',
};
const LATIN_PERSON_70: NameRule = {
  field: 'name',
  pattern: "^[A-Za-z\\u00C0-\\u00D6\\u00D8-\\u00F6\\u00F8-\\u00FF' .-]{2,70}$",
  description: "Latin letters (accents allowed), spaces, apostrophes, dots and hyphens only; at most 70 characters",
  code: 'RECIPIENT_DETAILS_INVALID',
};
const LATIN_BUSINESS_70: NameRule = {
  field: 'name',
  pattern: "^[A-Za-z0-9\\u00C0-\\u00D6\\u00D8-\\u00F6\\u00F8-\\u00FF&'()., /-]{2,70}$",
  description: "Latin letters (accents allowed), digits, spaces and & ' ( ) . , / - only; at most 70 characters",
  code: 'RECIPIENT_DETAILS_INVALID',
};
const UK_FPS_40: NameRule = {
  field: 'name',
  pattern: "^[A-Za-z0-9&'.,/ -]{1,40}$",
  description: "Latin letters without accents, digits, spaces and & ' . , / - only; at most 40 characters",
  code: 'RECIPIENT_DETAILS_INVALID',
};
const ACH_22: NameRule = {
  field: 'name',
  pattern: '^[ -~]{1,22}$',
  description: 'Printable ASCII characters only; at most 22 characters (NACHA receiver name)',
  code: 'RECIPIENT_DETAILS_INVALID',
};
const FEDWIRE_35: NameRule = {
  field: 'name',
  pattern: '^[ -~]{1,35}$',
  description: 'Printable ASCII characters only; at most 35 characters',
  code: 'RECIPIENT_DETAILS_INVALID',
};
const EPC_70: NameRule = {
  field: 'name',
  pattern: "^[A-Za-z0-9/?:().,'+ -]{1,70}$",
  description: "EPC basic Latin character set; at most 70 characters (checked by the provider after submit)",
  code: 'RECIPIENT_DETAILS_INVALID',
};

// ---------------------------------------------------------------------------------------------
// Recipient and sender field sets

const ALL_OPTIONAL_PERSON: readonly RecipientField[] = ['email', 'address', 'addressLine2', 'city', 'postcode', 'countrySubdivision', 'dateOfBirth'];
const ALL_OPTIONAL_BUSINESS: readonly RecipientField[] = ['email', 'address', 'addressLine2', 'city', 'postcode', 'countrySubdivision'];

/** A recipient spec: the required fields, and every other allowed field optional (a business never takes dateOfBirth). */
function recipient(type: RecipientType, required: readonly RecipientField[], rules: readonly NameRule[]): RecipientSpec {
  const all = type === 'individual' ? ALL_OPTIONAL_PERSON : ALL_OPTIONAL_BUSINESS;
  return { required, optional: all.filter((f) => !required.includes(f)), rules };
}

const SENDER_PERSON_OPTIONAL: readonly SenderInfoKey[] = ['dateOfBirth', 'address', 'postalCode', 'city', 'phoneNumber', 'fundOrigin', 'gender'];
const SENDER_BUSINESS_OPTIONAL: readonly SenderInfoKey[] = ['registrationNumber', 'address', 'postalCode', 'city', 'phoneNumber', 'fundOrigin'];

function sender(extraRequired: readonly SenderInfoKey[] = [], senderInfoRequired = false): Provider['sender'] {
  const individualRequired: SenderInfoKey[] = ['firstName', 'lastName', 'country', ...extraRequired];
  const businessRequired: SenderInfoKey[] = ['companyName', 'country', ...extraRequired.filter((k) => k !== 'dateOfBirth' && k !== 'gender')];
  return {
    individual: { required: individualRequired, optional: SENDER_PERSON_OPTIONAL.filter((k) => !individualRequired.includes(k)) },
    business: { required: businessRequired, optional: SENDER_BUSINESS_OPTIONAL.filter((k) => !businessRequired.includes(k)) },
    senderInfoRequired,
  };
}

// ---------------------------------------------------------------------------------------------
// Bank-account shapes

const US_ACCOUNT: readonly BankDataField[] = [
  { key: 'accountNumber', required: true, validator: 'account_number', pattern: '^[0-9]{4,17}$', description: '4 to 17 digits' },
  { key: 'routingNumber', required: true, validator: 'routing_number', pattern: '^[0-9]{9}$', checksum: 'aba', description: '9-digit ABA routing number (checksum)' },
  { key: 'bankName', required: false, description: 'bank name' },
];
const SWIFT_ACCOUNT: readonly BankDataField[] = [
  { key: 'accountNumber', required: true, validator: 'account_number', pattern: '^[A-Za-z0-9]{1,34}$', description: '1 to 34 letters or digits' },
  { key: 'swiftCode', required: true, validator: 'bic', description: 'BIC (SWIFT code) of the bank, 8 or 11 characters' },
  { key: 'bankName', required: false, description: 'bank name' },
];

const MOMO_SENDER = sender();
const CRYPTO_AMOUNT: AmountBounds = { min: '1', max: '1000000' };

// ---------------------------------------------------------------------------------------------
// The providers

export const CATALOG: readonly Provider[] = [
  {
    id: 'sim-sepa-instant',
    name: 'Simulated SEPA Instant',
    route: 'sepa_inst',
    amounts: { EUR: { min: '0.01', max: '100000.00' } },
    countries: SEPA,
    defaultRouting: true,
    autoRoute: true,
    accounts: { iban: { bic: 'optional' } },
    recipient: { individual: recipient('individual', [], [NAME_SPLITS]), business: recipient('business', [], []) },
    travelRule: false,
    sender: sender(),
    submitValidators: ['name_rules', 'iban', 'bic'],
  },
  {
    id: 'sim-sepa-credit',
    name: 'Simulated SEPA Credit Transfer',
    route: 'sepa_credit',
    amounts: { EUR: { min: '0.01', max: '1000000.00' } },
    countries: SEPA,
    defaultRouting: true,
    autoRoute: true,
    accounts: { iban: { bic: 'optional' } },
    // Its name rule is applied by the provider after submit, so it is not part of the requirements' rules.
    recipient: { individual: recipient('individual', [], [EPC_70]), business: recipient('business', [], [EPC_70]) },
    travelRule: false,
    sender: sender(),
    submitValidators: ['iban', 'bic'],
  },
  {
    id: 'sim-uk-faster-payments',
    name: 'Simulated UK Faster Payments',
    route: 'bank_transfer',
    amounts: { GBP: { min: '0.01', max: '1000000.00' } },
    countries: ['GB'],
    defaultRouting: true,
    autoRoute: true,
    accounts: {
      iban: { bic: 'optional' },
      bank_account: {
        fields: [
          { key: 'accountNumber', required: true, validator: 'account_number', pattern: '^[0-9]{8}$', description: '8 digits' },
          { key: 'sortCode', required: true, validator: 'routing_number', pattern: '^[0-9]{2}-?[0-9]{2}-?[0-9]{2}$', description: '6-digit sort code (112233 or 11-22-33)' },
          { key: 'bankName', required: false, description: 'bank name' },
        ],
      },
    },
    recipient: { individual: recipient('individual', [], [UK_FPS_40]), business: recipient('business', [], [UK_FPS_40]) },
    travelRule: false,
    sender: sender(),
    submitValidators: ['name_rules', 'iban', 'bic', 'account_number', 'routing_number'],
  },
  {
    id: 'sim-ng-nip',
    name: 'Simulated NIBSS Instant Payment (Nigeria)',
    route: 'bank_transfer',
    amounts: { NGN: { min: '100.00', max: '10000000.00' } },
    countries: ['NG'],
    defaultRouting: true,
    autoRoute: false,
    accounts: {
      bank_account: {
        fields: [
          { key: 'bankCode', required: true, description: 'CBN bank code: 3 digits (commercial banks) or 5/6 digits (other institutions)' },
          { key: 'crAccount', required: true, description: '10-digit NUBAN whose check digit matches bankCode' },
          { key: 'bankName', required: false, description: 'bank name' },
        ],
        objectCheck: 'nuban',
      },
    },
    recipient: { individual: recipient('individual', [], [NAME_SPLITS]), business: recipient('business', [], []) },
    travelRule: false,
    sender: sender(),
    submitValidators: ['name_rules', 'nuban'],
  },
  {
    // Served only outside default routing: it pays GHS bank transfers because no default-routed provider does.
    id: 'sim-gh-ghipss',
    name: 'Simulated GhIPSS Instant Pay (Ghana)',
    route: 'bank_transfer',
    amounts: { GHS: { min: '1.00', max: '1000000.00' } },
    countries: ['GH'],
    defaultRouting: false,
    autoRoute: false,
    accounts: {
      bank_account: {
        fields: [
          { key: 'accountNumber', required: true, validator: 'account_number', pattern: '^[0-9]{10,16}$', description: '10 to 16 digits' },
          { key: 'bankCode', required: true, validator: 'routing_number', pattern: '^[0-9]{6}$', description: '6-digit GhIPSS bank sort code' },
          { key: 'bankName', required: false, description: 'bank name' },
        ],
      },
    },
    recipient: { individual: recipient('individual', ['city'], [NAME_SPLITS]), business: recipient('business', ['city'], []) },
    travelRule: false,
    sender: sender(),
    submitValidators: ['name_rules', 'account_number', 'routing_number'],
  },
  {
    id: 'sim-eg-ach',
    name: 'Simulated Egyptian ACH',
    route: 'bank_transfer',
    amounts: { EGP: { min: '10.00', max: '5000000.00' } },
    countries: ['EG'],
    defaultRouting: true,
    autoRoute: false,
    accounts: {
      iban: { bic: 'optional' },
      bank_account: {
        fields: [
          { key: 'accountNumber', required: true, validator: 'account_number', pattern: '^[0-9]{6,29}$', description: '6 to 29 digits' },
          { key: 'swiftCode', required: true, validator: 'bic', description: 'BIC (SWIFT code) of the bank' },
          { key: 'bankName', required: false, description: 'bank name' },
        ],
      },
    },
    recipient: { individual: recipient('individual', ['city'], [NAME_SPLITS]), business: recipient('business', ['city'], []) },
    travelRule: false,
    sender: sender(),
    submitValidators: ['name_rules', 'iban', 'bic', 'account_number'],
  },
  {
    id: 'sim-ach',
    name: 'Simulated ACH',
    route: 'ach',
    amounts: { USD: { min: '0.01', max: '1000000.00' } },
    countries: ['US'],
    defaultRouting: true,
    autoRoute: false,
    accounts: { bank_account: { fields: US_ACCOUNT } },
    recipient: { individual: recipient('individual', [], [ACH_22]), business: recipient('business', [], [ACH_22]) },
    travelRule: false,
    sender: sender(),
    submitValidators: ['name_rules', 'account_number', 'routing_number'],
  },
  {
    id: 'sim-fedwire',
    name: 'Simulated Fedwire',
    route: 'fedwire',
    amounts: { USD: { min: '1.00' } },
    countries: ['US'],
    defaultRouting: true,
    autoRoute: false,
    accounts: { bank_account: { fields: US_ACCOUNT } },
    recipient: {
      individual: recipient('individual', ['address', 'city', 'postcode', 'countrySubdivision'], [FEDWIRE_35]),
      business: recipient('business', ['address', 'city', 'postcode', 'countrySubdivision'], [FEDWIRE_35]),
    },
    travelRule: false,
    sender: sender(['address', 'city']),
    submitValidators: ['name_rules', 'account_number', 'routing_number'],
  },
  {
    id: 'sim-swift-europe',
    name: 'Simulated SWIFT (Europe)',
    route: 'swift',
    amounts: { USD: { min: '1.00' }, EUR: { min: '1.00' }, GBP: { min: '1.00' } },
    countries: SWIFT_EUROPE,
    defaultRouting: true,
    autoRoute: true,
    accounts: { iban: { bic: 'optional' }, bank_account: { fields: SWIFT_ACCOUNT } },
    recipient: {
      individual: recipient('individual', ['address', 'city'], [SWIFT_CHARSET_35]),
      business: recipient('business', ['address', 'city'], [SWIFT_CHARSET_35]),
    },
    travelRule: false,
    sender: sender(['address', 'city']),
    submitValidators: ['name_rules', 'iban', 'bic', 'account_number'],
  },
  {
    id: 'sim-swift-global',
    name: 'Simulated SWIFT (rest of the world)',
    route: 'swift',
    amounts: { USD: { min: '10.00' }, EUR: { min: '10.00' }, GBP: { min: '10.00' } },
    countries: SWIFT_GLOBAL,
    defaultRouting: true,
    autoRoute: true,
    accounts: { iban: { bic: 'required' }, bank_account: { fields: SWIFT_ACCOUNT } },
    recipient: {
      individual: recipient('individual', ['address', 'city', 'postcode'], [NAME_SPLITS, LATIN_PERSON_70]),
      business: recipient('business', ['address', 'city', 'postcode'], [LATIN_BUSINESS_70]),
    },
    travelRule: false,
    sender: sender(['address', 'city']),
    submitValidators: ['name_rules', 'iban', 'bic', 'account_number'],
  },
  {
    id: 'sim-crypto',
    name: 'Simulated stablecoin payouts',
    route: 'crypto',
    amounts: { USDC: CRYPTO_AMOUNT, USDT: CRYPTO_AMOUNT },
    countries: 'any',
    defaultRouting: true,
    autoRoute: false,
    accounts: { crypto: { networks: { USDC: ['ethereum', 'polygon', 'solana'], USDT: ['ethereum', 'tron', 'polygon', 'solana'] } } },
    recipient: { individual: recipient('individual', [], []), business: recipient('business', [], []) },
    travelRule: true,
    sender: sender(),
    submitValidators: ['crypto_address'],
  },
  {
    id: 'sim-momo-waemu',
    name: 'Simulated mobile money (West African CFA franc)',
    route: 'mobile_money',
    amounts: { XOF: { min: '200', max: '2000000' } },
    countries: ['CI', 'SN', 'BJ', 'BF', 'ML', 'TG', 'NE', 'GW'],
    defaultRouting: true,
    autoRoute: false,
    accounts: {
      mobile_money: {
        networks: {
          CI: ['orange', 'mtn', 'moov', 'wave'],
          SN: ['orange', 'free', 'wave'],
          BJ: ['mtn', 'moov'],
          BF: ['orange', 'moov'],
          ML: ['orange', 'moov'],
          TG: ['moov'],
          NE: ['airtel', 'moov'],
          GW: ['orange'],
        },
      },
    },
    recipient: { individual: recipient('individual', [], [NAME_SPLITS]), business: recipient('business', [], []) },
    travelRule: false,
    sender: MOMO_SENDER,
    submitValidators: ['name_rules', 'phone_number'],
  },
  {
    // Cameroon needs the sender's phone, which the workspace identity cannot carry: senderInfo is required.
    id: 'sim-momo-cameroon',
    name: 'Simulated mobile money (Cameroon)',
    route: 'mobile_money',
    amounts: { XAF: { min: '500', max: '1000000' } },
    countries: ['CM'],
    defaultRouting: true,
    autoRoute: false,
    accounts: { mobile_money: { networks: { CM: ['mtn', 'orange'] } } },
    recipient: { individual: recipient('individual', [], [NAME_SPLITS]), business: recipient('business', [], []) },
    travelRule: false,
    sender: sender(['phoneNumber'], true),
    submitValidators: ['name_rules', 'phone_number'],
  },
  {
    id: 'sim-momo-cemac',
    name: 'Simulated mobile money (Central African CFA franc, outside Cameroon)',
    route: 'mobile_money',
    amounts: { XAF: { min: '500', max: '1000000' } },
    countries: ['GA', 'CG', 'TD'],
    defaultRouting: true,
    autoRoute: false,
    accounts: { mobile_money: { networks: { GA: ['airtel', 'moov'], CG: ['mtn', 'airtel'], TD: ['airtel', 'moov'] } } },
    recipient: { individual: recipient('individual', [], []), business: recipient('business', [], []) },
    travelRule: false,
    sender: MOMO_SENDER,
    submitValidators: ['phone_number'],
  },
  {
    id: 'sim-momo-ghana',
    name: 'Simulated mobile money (Ghana)',
    route: 'mobile_money',
    amounts: { GHS: { min: '5.00', max: '50000.00' } },
    countries: ['GH'],
    defaultRouting: true,
    autoRoute: false,
    accounts: { mobile_money: { networks: { GH: ['mtn', 'vodafone', 'airtel'] } } },
    recipient: { individual: recipient('individual', [], [NAME_SPLITS]), business: recipient('business', [], []) },
    travelRule: false,
    sender: MOMO_SENDER,
    submitValidators: ['name_rules', 'phone_number'],
  },
  {
    id: 'sim-momo-zambia',
    name: 'Simulated mobile money (Zambia)',
    route: 'mobile_money',
    amounts: { ZMW: { min: '1.00', max: '100000.00' } },
    countries: ['ZM'],
    defaultRouting: true,
    autoRoute: false,
    accounts: { mobile_money: { networks: { ZM: ['mtn', 'airtel'] } } },
    recipient: { individual: recipient('individual', [], [NAME_SPLITS]), business: recipient('business', [], []) },
    travelRule: false,
    sender: MOMO_SENDER,
    submitValidators: ['name_rules', 'phone_number'],
  },
  {
    id: 'sim-momo-mozambique',
    name: 'Simulated mobile money (Mozambique)',
    route: 'mobile_money',
    amounts: { MZN: { min: '10.00', max: '250000.00' } },
    countries: ['MZ'],
    defaultRouting: true,
    autoRoute: false,
    accounts: { mobile_money: { networks: { MZ: ['mpesa'] } } },
    recipient: { individual: recipient('individual', [], []), business: recipient('business', [], []) },
    travelRule: false,
    sender: MOMO_SENDER,
    submitValidators: ['phone_number'],
  },
  {
    id: 'sim-momo-malawi',
    name: 'Simulated mobile money (Malawi)',
    route: 'mobile_money',
    amounts: { MWK: { min: '100.00', max: '5000000.00' } },
    countries: ['MW'],
    defaultRouting: true,
    autoRoute: false,
    accounts: { mobile_money: { networks: { MW: ['airtel'] } } },
    recipient: { individual: recipient('individual', [], [NAME_SPLITS]), business: recipient('business', [], []) },
    travelRule: false,
    sender: MOMO_SENDER,
    submitValidators: ['name_rules', 'phone_number'],
  },
];

/**
 * The catalog as a process serves it: each provider on `route` whose crypto networks the connector
 * serving it narrows (`served`, per currency) advertises only those, and a currency with none is
 * dropped from its networks (a payout on a network nobody serves is never offered).
 */
export function servedCatalog(route: Route, served: Readonly<Record<string, readonly string[]>> | undefined, catalog: readonly Provider[] = CATALOG): readonly Provider[] {
  if (!served) return catalog;
  return catalog.map((p) => {
    if (p.route !== route || !p.accounts.crypto) return p;
    const networks = Object.fromEntries(
      Object.entries(p.accounts.crypto.networks)
        .map(([currency, list]) => [currency, list.filter((n) => (served[currency] ?? []).includes(n))] as const)
        .filter(([, list]) => list.length > 0),
    );
    return { ...p, accounts: { ...p.accounts, crypto: { networks } } };
  });
}
