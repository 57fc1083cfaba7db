import { describe, expect, it } from 'vitest';
import { checkE164, isEvmAddress, isSolanaAddress, isTronAddress, toChecksumAddress } from '../../src/domains/corridors/account-formats.js';
import { checkIban, isAbaRoutingNumber, isBic, isNuban, nubanCheckDigit } from '../../src/platform/lib/bank-account.js';
import {
  CATALOG,
  FUND_ORIGINS,
  SENDER_GENDERS,
  SENDER_TYPES,
  catalogCurrencies,
  checkRecipient,
  findProviders,
  payoutRequirements,
  validateSender,
  recipientErrorKind,
  validateRecipient,
  type AccountType,
  type Provider,
  type Recipient,
  type RecipientType,
  type RecipientValidator,
} from '../../src/domains/corridors/index.js';
import { parseWorkspaceTerms } from '../../src/domains/accounts/workspace-terms.js';
import { ADDRESSES, corridorCases, mobileNumber, validRecipient } from '../helpers/corridor-fixtures.js';

const provider = (id: string): Provider => {
  const found = CATALOG.find((p) => p.id === id);
  if (!found) throw new Error(`no provider ${id}`);
  return found;
};

/** A copy of the recipient with the first account's data changed. */
function withData(recipient: Recipient, change: Record<string, unknown>): Recipient {
  const [account, ...rest] = recipient.accounts ?? [];
  if (!account) throw new Error('no account');
  const data = { ...account.data };
  for (const [k, v] of Object.entries(change)) {
    if (v === undefined) delete data[k];
    else data[k] = v;
  }
  return { ...recipient, accounts: [{ ...account, data }, ...rest] };
}

describe('account formats', () => {
  it('accepts an IBAN with its country code and check digits, with spaces or in lower case', () => {
    for (const iban of ['DE89370400440532013000', 'GB29NWBK60161331926819', 'FR1420041010050500013M02606', 'de89 3704 0044 0532 0130 00']) {
      expect(checkIban(iban).valid, iban).toBe(true);
    }
    expect(checkIban('GB29 NWBK 6016 1331 9268 19').country).toBe('GB');
  });

  it('refuses an IBAN with wrong check digits, an unknown country or the wrong length for its country', () => {
    for (const iban of ['DE89370400440532013001', 'DE00370400440532013000', 'XX89370400440532013000', 'DE8937040044053201300', 'not an iban']) {
      expect(checkIban(iban).valid, iban).toBe(false);
    }
  });

  it('checks BICs of 8 or 11 characters', () => {
    expect(isBic('DEUTDEFF')).toBe(true);
    expect(isBic('DEUTDEFF500')).toBe(true);
    expect(isBic('DEUTDE')).toBe(false);
    expect(isBic('DEUT DEFF')).toBe(false);
  });

  it('checks the ABA routing number checksum', () => {
    for (const aba of ['021000021', '011000015', '026009593', '121000358']) expect(isAbaRoutingNumber(aba), aba).toBe(true);
    for (const aba of ['021000022', '02100002', '0210000210', 'A21000021', '000000000']) expect(isAbaRoutingNumber(aba), aba).toBe(false);
  });

  it('computes the NUBAN check digit over the widened bank code and serial', () => {
    // 000044 069000003 weighted 3,7,3,...: 28 + 12 + 42 + 27 + 9 = 118, check digit (10 - 8) mod 10 = 2
    expect(nubanCheckDigit('044', '069000003')).toBe(2);
    expect(isNuban('044', '0690000032')).toBe(true);
    expect(isNuban('044', '0690000031')).toBe(false);
    expect(isNuban('044', '069000003')).toBe(false);
    expect(isNuban('44', '0690000032')).toBe(false);
    // a 6-digit institution code and its legacy 5-digit form (prefixed 9) agree
    const serial = '123456789';
    expect(isNuban('090267', serial + String(nubanCheckDigit('090267', serial)))).toBe(true);
    expect(nubanCheckDigit('50211', serial)).toBe(nubanCheckDigit('950211', serial));
  });

  it('takes phone numbers in E.164 form only, valid for their country', () => {
    expect(checkE164('+2250123456789')).toEqual({ valid: true, country: 'CI' });
    expect(checkE164('+237671234567')).toEqual({ valid: true, country: 'CM' });
    for (const phone of ['2250123456789', '+225 01 23 45 67 89', '+22501', '+0123456789', '+99912345678']) {
      expect(checkE164(phone).valid, phone).toBe(false);
    }
  });

  it('checks EVM addresses: hex, and the EIP-55 checksum when mixed case', () => {
    // the test vectors of EIP-55
    for (const address of [
      '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
      '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359',
      '0xdbF03B407c01E7cD3CBea99509d93f8DDDC8C6FB',
      '0xD1220A0cf47c7B9Be7A2E6BA89F429762e7b9aDb',
    ]) {
      expect(toChecksumAddress(address.toLowerCase())).toBe(address);
      expect(isEvmAddress(address)).toBe(true);
    }
    expect(isEvmAddress('0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed')).toBe(true);
    expect(isEvmAddress('0x5AAEB6053F3E94C9B9A09F33669435E7EF1BEAED')).toBe(true);
    expect(isEvmAddress('0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeD')).toBe(false);
    expect(isEvmAddress('0x5aaeb6053f3e94c9b9a09f33669435e7ef1beae')).toBe(false);
    expect(isEvmAddress('5aaeb6053f3e94c9b9a09f33669435e7ef1beaed00')).toBe(false);
    expect(isEvmAddress('0xZaaeb6053f3e94c9b9a09f33669435e7ef1beaed')).toBe(false);
  });

  it('checks Tron addresses by base58check and their 0x41 prefix', () => {
    expect(isTronAddress('TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t')).toBe(true);
    expect(isTronAddress('TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6u')).toBe(false);
    expect(isTronAddress('0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed')).toBe(false);
    expect(isTronAddress('1BoatSLRHtKNngkdXEeobR76b53LETtpyT')).toBe(false);
  });

  it('checks Solana addresses: base58 of 32 bytes', () => {
    expect(isSolanaAddress('EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v')).toBe(true);
    expect(isSolanaAddress('11111111111111111111111111111111')).toBe(true);
    expect(isSolanaAddress('EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGG')).toBe(false);
    expect(isSolanaAddress('EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTD0lv')).toBe(false);
  });
});

// ---------------------------------------------------------------------------------------------

const BAD_NAMES = ['Madonna', 'Zoë Ωmega', 'Ada Lovelace, Countess of Lovelace and Baroness Byron of Ockham', ' Ada Lovelace'];

interface Breaker {
  validator: RecipientValidator | 'presence';
  what: string;
  recipient: Recipient;
  field: string;
  code: string | undefined;
}

/** One broken recipient per check the provider runs on this account type. */
function breakers(p: Provider, currency: string, accountType: AccountType, type: RecipientType, network?: string): Breaker[] {
  const base = validRecipient(p, currency, type, accountType, network);
  const data = 'beneficiary.accounts.0.data';
  const out: Breaker[] = [];
  const runs = (v: RecipientValidator) => p.submitValidators.includes(v);
  if (runs('name_rules')) {
    for (const rule of p.recipient[type].rules) {
      const name = BAD_NAMES.find((n) => !new RegExp(rule.pattern).test(n));
      if (!name) throw new Error(`no bad name for ${rule.pattern}`);
      out.push({ validator: 'name_rules', what: `name "${name}" against ${rule.pattern}`, recipient: { ...base, name }, field: 'beneficiary.name', code: rule.code });
    }
  }
  for (const field of p.recipient[type].required) {
    out.push({ validator: 'presence', what: `without ${field}`, recipient: { ...base, [field]: undefined }, field: `beneficiary.${field}`, code: 'BENEFICIARY_INCOMPLETE' });
  }
  if (accountType === 'iban') {
    out.push({ validator: 'presence', what: 'without iban', recipient: withData(base, { iban: undefined }), field: `${data}.iban`, code: 'MISSING_BANK_ACCOUNT_DETAILS' });
    if (runs('iban')) {
      out.push({ validator: 'iban', what: 'bad check digits', recipient: withData(base, { iban: 'DE89370400440532013001' }), field: `${data}.iban`, code: 'INVALID_IBAN' });
    }
    if (runs('bic')) out.push({ validator: 'bic', what: 'bad BIC', recipient: withData(base, { bic: 'NOT A BIC' }), field: `${data}.bic`, code: 'INVALID_ROUTING_NUMBER' });
  }
  if (accountType === 'bank_account') {
    const spec = p.accounts.bank_account;
    if (spec?.objectCheck === 'nuban') {
      out.push({ validator: 'nuban', what: 'wrong check digit', recipient: withData(base, { crAccount: '0690000031' }), field: data, code: undefined });
      out.push({ validator: 'presence', what: 'without bankCode', recipient: withData(base, { bankCode: undefined }), field: data, code: undefined });
    } else {
      for (const f of spec?.fields ?? []) {
        if (f.required) out.push({ validator: 'presence', what: `without ${f.key}`, recipient: withData(base, { [f.key]: undefined }), field: `${data}.${f.key}`, code: 'MISSING_BANK_ACCOUNT_DETAILS' });
        if (f.validator && runs(f.validator)) {
          const code = f.validator === 'account_number' ? 'INVALID_ACCOUNT_NUMBER' : 'INVALID_ROUTING_NUMBER';
          out.push({ validator: f.validator, what: `malformed ${f.key}`, recipient: withData(base, { [f.key]: '!!' }), field: `${data}.${f.key}`, code });
        }
        if (f.checksum === 'aba' && runs('routing_number')) {
          out.push({ validator: 'routing_number', what: 'ABA checksum', recipient: withData(base, { [f.key]: '021000022' }), field: `${data}.${f.key}`, code: 'INVALID_ROUTING_NUMBER' });
        }
      }
    }
  }
  if (accountType === 'mobile_money') {
    out.push({ validator: 'presence', what: 'without phoneNumber', recipient: withData(base, { phoneNumber: undefined }), field: `${data}.phoneNumber`, code: 'MISSING_BANK_ACCOUNT_DETAILS' });
    out.push({ validator: 'presence', what: 'unserved network', recipient: withData(base, { network: 'mpesa' === base.accounts?.[0]?.data.network ? 'wave' : 'mpesa' }), field: `${data}.network`, code: 'UNSUPPORTED_CORRIDOR' });
    if (runs('phone_number')) {
      out.push({ validator: 'phone_number', what: 'not E.164', recipient: withData(base, { phoneNumber: '0123 456' }), field: `${data}.phoneNumber`, code: 'INVALID_ACCOUNT_NUMBER' });
      out.push({ validator: 'phone_number', what: 'another country', recipient: withData(base, { phoneNumber: mobileNumber('FR') }), field: `${data}.phoneNumber`, code: 'INVALID_ACCOUNT_NUMBER' });
    }
  }
  if (accountType === 'crypto' && network) {
    out.push({ validator: 'presence', what: 'without address', recipient: withData(base, { address: undefined }), field: `${data}.address`, code: 'MISSING_BANK_ACCOUNT_DETAILS' });
    if (runs('crypto_address')) {
      const invalid = ADDRESSES[network as keyof typeof ADDRESSES].invalid;
      out.push({ validator: 'crypto_address', what: 'bad address', recipient: withData(base, { address: invalid }), field: `${data}.address`, code: 'INVALID_ACCOUNT_NUMBER' });
    }
  }
  return out;
}

describe('every corridor of the catalog', () => {
  const cases = corridorCases(CATALOG);

  it.each(cases.map((c) => [c.label, c] as const))('accepts a valid individual and business recipient: %s', (_label, c) => {
    for (const type of ['individual', 'business'] as const) {
      const recipient = validRecipient(c.provider, c.currency, type, c.accountType, c.network);
      const check = checkRecipient(recipient, { currency: c.currency, route: c.provider.route, provider: c.provider });
      expect(check.errors, `${type}: ${JSON.stringify(check.errors)}`).toEqual([]);
      expect(check.provider?.id).toBe(c.provider.id);
    }
  });

  it.each(cases.map((c) => [c.label, c] as const))('refuses a recipient failing each of its validators: %s', (_label, c) => {
    for (const type of ['individual', 'business'] as const) {
      for (const b of breakers(c.provider, c.currency, c.accountType, type, c.network)) {
        const errors = validateRecipient(b.recipient, { currency: c.currency, route: c.provider.route, provider: c.provider });
        const hit = errors.find((e) => e.field === b.field && e.code === b.code);
        expect(hit, `${type} ${b.what}: ${JSON.stringify(errors)}`).toBeDefined();
      }
    }
  });

  it('exercises every validator each provider runs at submit', () => {
    for (const p of CATALOG) {
      const exercised = new Set(
        corridorCases([p]).flatMap((c) => (['individual', 'business'] as const).flatMap((t) => breakers(p, c.currency, c.accountType, t, c.network).map((b) => b.validator))),
      );
      for (const v of p.submitValidators) expect(exercised.has(v), `${p.id} ${v}`).toBe(true);
    }
  });
});

// ---------------------------------------------------------------------------------------------

describe('recipient validation', () => {
  const swiftEurope = provider('sim-swift-europe');
  const sepa = provider('sim-sepa-instant');

  it('reports corridor-required fields before the account structure, one stage per round trip', () => {
    const recipient = withData({ ...validRecipient(swiftEurope, 'EUR', 'individual', 'iban'), address: undefined, city: undefined }, { iban: 'DE89370400440532013001' });
    const first = validateRecipient(recipient, { currency: 'EUR', route: 'swift' });
    expect(first.map((e) => [e.field, e.code])).toEqual([
      ['beneficiary.address', 'BENEFICIARY_INCOMPLETE'],
      ['beneficiary.city', 'BENEFICIARY_INCOMPLETE'],
    ]);
    const second = validateRecipient({ ...recipient, address: '1 Rue de Rivoli', city: 'Paris' }, { currency: 'EUR', route: 'swift' });
    expect(second).toEqual([
      {
        field: 'beneficiary.accounts.0.data.iban',
        message: 'beneficiary.accounts.0.data.iban is not a valid IBAN: its country code or check digits are wrong',
        code: 'INVALID_IBAN',
      },
    ]);
  });

  it('names fields relative to the body it is given', () => {
    const recipient = { ...validRecipient(sepa, 'EUR', 'individual', 'iban'), name: 'Madonna' };
    expect(validateRecipient(recipient, { currency: 'EUR', fieldPrefix: '' })[0]).toMatchObject({ field: 'name', code: 'MISSING_BENEFICIARY_NAME' });
    expect(validateRecipient(recipient, { currency: 'EUR' })[0]).toMatchObject({ field: 'beneficiary.name', code: 'MISSING_BENEFICIARY_NAME' });
  });

  it('asks an individual for a first and last name where the corridor needs them, and a business for its name', () => {
    const person = validRecipient(sepa, 'EUR', 'individual', 'iban');
    expect(validateRecipient({ ...person, name: 'Madonna' }, { currency: 'EUR' })).toEqual([
      {
        field: 'beneficiary.name',
        message: 'beneficiary.name does not fit this corridor: First and last name separated by a space, with no leading or trailing space',
        code: 'MISSING_BENEFICIARY_NAME',
      },
    ]);
    const company = validRecipient(sepa, 'EUR', 'business', 'iban');
    expect(validateRecipient({ ...company, name: 'Acme' }, { currency: 'EUR' })).toEqual([]);
    expect(validateRecipient({ ...company, name: '   ' }, { currency: 'EUR' })[0]).toMatchObject({ field: 'beneficiary.name', code: 'MISSING_BENEFICIARY_NAME' });
    expect(validateRecipient({ ...person, name: undefined }, { currency: 'EUR' })[0]).toMatchObject({ code: 'MISSING_BENEFICIARY_NAME' });
  });

  it('applies a name rule only where the paying provider checks it at submit', () => {
    // SEPA Credit has a name rule the provider applies after submit: not enforced here.
    const recipient = { ...validRecipient(provider('sim-sepa-credit'), 'EUR', 'individual', 'iban'), name: 'Zoë Ωmega' };
    expect(validateRecipient(recipient, { currency: 'EUR', route: 'sepa_credit' })).toEqual([]);
    expect(validateRecipient(recipient, { currency: 'EUR', route: 'sepa_inst' })).toEqual([]);
    expect(validateRecipient(recipient, { currency: 'EUR', route: 'swift' })[0]).toMatchObject({ code: 'RECIPIENT_DETAILS_INVALID' });
  });

  it('selects the SWIFT provider by the beneficiary country, each with its own name rules', () => {
    const global = provider('sim-swift-global');
    const inGermany = validRecipient(swiftEurope, 'USD', 'individual', 'iban');
    const inEmirates = validRecipient(global, 'USD', 'individual', 'iban');
    expect(inGermany.country).toBe('DE');
    expect(inEmirates.country).toBe('AE');
    expect(checkRecipient(inGermany, { currency: 'USD', route: 'swift' }).provider?.id).toBe('sim-swift-europe');
    expect(checkRecipient(inEmirates, { currency: 'USD', route: 'swift' }).provider?.id).toBe('sim-swift-global');
    // A mononym passes the European provider's rules, not the global one's; accents the other way round.
    expect(validateRecipient({ ...inGermany, name: 'Madonna' }, { currency: 'USD', route: 'swift' })).toEqual([]);
    expect(validateRecipient({ ...inEmirates, name: 'Madonna' }, { currency: 'USD', route: 'swift' })[0]).toMatchObject({ code: 'MISSING_BENEFICIARY_NAME' });
    expect(validateRecipient({ ...inGermany, name: 'Zoé Durand' }, { currency: 'USD', route: 'swift' })[0]).toMatchObject({ code: 'RECIPIENT_DETAILS_INVALID' });
    expect(validateRecipient({ ...inEmirates, name: 'Zoé Durand' }, { currency: 'USD', route: 'swift' })).toEqual([]);
  });

  it('refuses Nigerian account details as one uncoded field-format entry naming each failing field', () => {
    const ng = validRecipient(provider('sim-ng-nip'), 'NGN', 'individual', 'bank_account');
    const errors = validateRecipient(withData(ng, { bankCode: '44', crAccount: '12345' }), { currency: 'NGN', route: 'bank_transfer' });
    expect(errors).toEqual([
      {
        field: 'beneficiary.accounts.0.data',
        message: 'beneficiary.accounts.0.data: bankCode must be a CBN bank code of 3, 5 or 6 digits; crAccount must be a 10-digit NUBAN',
      },
    ]);
    expect(recipientErrorKind(errors[0]!)).toBe('field_format');
    const digit = validateRecipient(withData(ng, { crAccount: '0690000031' }), { currency: 'NGN', route: 'bank_transfer' });
    expect(digit[0]?.message).toContain('crAccount fails the NUBAN check digit for bankCode');
    expect(digit[0]?.code).toBeUndefined();
  });

  it('tells field-format entries from coded recipient refusals', () => {
    expect(recipientErrorKind({ field: 'beneficiary.accounts.2.data', message: 'x' })).toBe('field_format');
    expect(recipientErrorKind({ field: 'accounts.0.data', message: 'x' })).toBe('field_format');
    expect(recipientErrorKind({ field: 'beneficiary.accounts.0.data.iban', message: 'x', code: 'INVALID_IBAN' })).toBe('recipient');
    expect(recipientErrorKind({ field: 'beneficiary.dateOfBirth', message: 'x' })).toBe('recipient');
  });

  it('asks an individual crypto recipient for dateOfBirth under the Travel Rule, with an uncoded entry, when asked to', () => {
    const crypto = provider('sim-crypto');
    const person = { ...validRecipient(crypto, 'USDC', 'individual', 'crypto'), dateOfBirth: undefined };
    expect(validateRecipient(person, { currency: 'USDC', route: 'crypto' })).toEqual([]);
    expect(validateRecipient(person, { currency: 'USDC', route: 'crypto', travelRule: true })).toEqual([
      {
        field: 'beneficiary.dateOfBirth',
        message: 'beneficiary.dateOfBirth is required for a crypto payout to an individual while Travel Rule screening is enabled',
      },
    ]);
    const company = validRecipient(crypto, 'USDC', 'business', 'crypto');
    expect(validateRecipient(company, { currency: 'USDC', route: 'crypto', travelRule: true })).toEqual([]);
  });

  it('refuses a corridor the catalog does not serve with UNSUPPORTED_CORRIDOR on the field at fault', () => {
    const crypto = provider('sim-crypto');
    const onTron = withData(validRecipient(crypto, 'USDC', 'individual', 'crypto'), { network: 'tron', address: ADDRESSES.tron.valid });
    expect(validateRecipient(onTron, { currency: 'USDC', route: 'crypto' })).toEqual([
      {
        field: 'beneficiary.accounts.0.data.network',
        message: 'beneficiary.accounts.0.data.network is not a network USDC is paid on; served: ethereum, polygon, solana',
        code: 'UNSUPPORTED_CORRIDOR',
      },
    ]);
    const sepaPerson = validRecipient(sepa, 'EUR', 'individual', 'iban');
    const momoEur: Recipient = { ...sepaPerson, accounts: [{ type: 'mobile_money', currency: 'EUR', data: { phoneNumber: '+33612345678', network: 'orange' } }] };
    expect(validateRecipient(momoEur, { currency: 'EUR' })[0]).toMatchObject({ field: 'beneficiary.accounts.0.type', code: 'UNSUPPORTED_CORRIDOR' });
    // EUR without a route goes to iban accounts only
    const bankEur: Recipient = { ...sepaPerson, accounts: [{ type: 'bank_account', currency: 'EUR', country: 'US', data: { accountNumber: '1234', swiftCode: 'CHASUS33' } }] };
    expect(validateRecipient(bankEur, { currency: 'EUR' })[0]).toMatchObject({ field: 'beneficiary.accounts.0.type', code: 'UNSUPPORTED_CORRIDOR' });
    expect(validateRecipient({ ...bankEur, address: 'x', city: 'y', postcode: 'z' }, { currency: 'EUR', route: 'swift' })).toEqual([]);
    expect(validateRecipient(sepaPerson, { currency: 'EUR', route: 'ach' })[0]).toMatchObject({ field: 'beneficiary.accounts.0.currency', code: 'UNSUPPORTED_CORRIDOR' });
    expect(validateRecipient(sepaPerson, { currency: 'USD' })[0]).toMatchObject({ field: 'beneficiary.accounts', code: 'UNSUPPORTED_CORRIDOR' });
    const xofIntoGhana: Recipient = { ...sepaPerson, country: 'GH', accounts: [{ type: 'mobile_money', currency: 'XOF', data: { phoneNumber: mobileNumber('GH'), network: 'mtn' } }] };
    expect(validateRecipient(xofIntoGhana, { currency: 'XOF', route: 'mobile_money' })[0]).toMatchObject({ field: 'beneficiary.accounts.0.country', code: 'UNSUPPORTED_CORRIDOR' });
  });

  it('pays the account in the payout currency among several', () => {
    const sepaPerson = validRecipient(sepa, 'EUR', 'individual', 'iban');
    const usd = validRecipient(provider('sim-ach'), 'USD', 'individual', 'bank_account');
    const both: Recipient = { ...sepaPerson, accounts: [...(sepaPerson.accounts ?? []), ...(usd.accounts ?? [])] };
    const check = checkRecipient(both, { currency: 'USD', route: 'ach' });
    expect(check).toMatchObject({ accountIndex: 1, errors: [] });
    expect(check.provider?.id).toBe('sim-ach');
    const bad = withData({ ...both, accounts: [...(usd.accounts ?? []).map((a) => ({ ...a, data: { ...a.data, routingNumber: '021000022' } })), ...(sepaPerson.accounts ?? [])] }, {});
    expect(validateRecipient(bad, { currency: 'USD', route: 'ach' })[0]?.field).toBe('beneficiary.accounts.0.data.routingNumber');
  });
});

// ---------------------------------------------------------------------------------------------

describe('sender validation', () => {
  const sepa = provider('sim-sepa-instant');
  const cameroon = provider('sim-momo-cameroon');
  const person = { type: 'individual', firstName: 'Ada', lastName: 'Lovelace', country: 'GB' };
  const today = '2026-01-15';

  it('attributes a payout without senderInfo to the workspace when it has a business identity on record', () => {
    expect(validateSender(undefined, sepa, true)).toEqual({ errors: [], senderInfo: undefined, originator: 'workspace' });
    expect(validateSender(undefined, sepa, false).errors).toEqual([
      {
        field: 'senderInfo',
        message: 'senderInfo is required: the workspace has no business identity on record to originate the payout',
        code: 'ORIGINATOR_NOT_ON_RECORD',
      },
    ]);
    expect(parseWorkspaceTerms({ businessIdentity: { companyName: 'Demo Ltd' } }).businessIdentity !== undefined).toBe(true);
    expect(parseWorkspaceTerms({ travelRuleScreening: true }).businessIdentity !== undefined).toBe(false);
  });

  it('requires senderInfo with the sender phone on mobile money into Cameroon', () => {
    expect(validateSender(undefined, cameroon, true).errors[0]).toMatchObject({ field: 'senderInfo', code: 'SENDER_INFO_INCOMPLETE' });
    expect(validateSender(person, cameroon, true).errors).toEqual([
      { field: 'senderInfo.phoneNumber', message: 'senderInfo.phoneNumber is required for an individual sender on this corridor', code: 'SENDER_INFO_INCOMPLETE' },
    ]);
    const ok = validateSender({ ...person, phoneNumber: '+237671234567' }, cameroon, false);
    expect(ok).toEqual({ errors: [], originator: 'sender_info', senderInfo: { ...person, phoneNumber: '+237671234567' } });
  });

  it('keeps only the allowed keys of the sender type and drops the rest', () => {
    const check = validateSender({ ...person, gender: 'female', passportNumber: 'X123', companyName: 'Ignored Ltd', iban: 'DE89' }, sepa, true);
    expect(check.errors).toEqual([]);
    expect(check.senderInfo).toEqual({ ...person, gender: 'female' });
    const business = validateSender({ type: 'business', companyName: 'Acme Ltd', country: 'GB', gender: 'other', firstName: 'Ada' }, sepa, true);
    expect(business.senderInfo).toEqual({ type: 'business', companyName: 'Acme Ltd', country: 'GB' });
  });

  it('refuses dateOfBirth on a business sender outright', () => {
    const check = validateSender({ type: 'business', companyName: 'Acme Ltd', country: 'GB', dateOfBirth: '1990-01-01' }, sepa, true);
    expect(check.errors).toEqual([
      { field: 'senderInfo.dateOfBirth', message: 'senderInfo.dateOfBirth is not accepted for a business sender', code: 'SENDER_INFO_INVALID' },
    ]);
  });

  it('refuses malformed values with SENDER_INFO_INVALID naming each field', () => {
    const check = validateSender(
      { ...person, country: 'gb', gender: 'unknown', fundOrigin: 'lottery', phoneNumber: '0123', dateOfBirth: '2030-01-01', postalCode: 'x'.repeat(21) },
      sepa,
      true,
      { today },
    );
    expect(check.errors.map((e) => [e.field, e.code])).toEqual([
      ['senderInfo.dateOfBirth', 'SENDER_INFO_INVALID'],
      ['senderInfo.postalCode', 'SENDER_INFO_INVALID'],
      ['senderInfo.country', 'SENDER_INFO_INVALID'],
      ['senderInfo.phoneNumber', 'SENDER_INFO_INVALID'],
      ['senderInfo.fundOrigin', 'SENDER_INFO_INVALID'],
      ['senderInfo.gender', 'SENDER_INFO_INVALID'],
    ]);
    expect(validateSender({ ...person, type: 'trust' }, sepa, true).errors[0]).toMatchObject({ field: 'senderInfo.type', code: 'SENDER_INFO_INVALID' });
    expect(validateSender('Ada', sepa, true).errors[0]).toMatchObject({ field: 'senderInfo', code: 'SENDER_INFO_INVALID' });
    expect(validateSender({ ...person, gender: FUND_ORIGINS[0], fundOrigin: SENDER_GENDERS[0] }, sepa, true).errors).toHaveLength(2);
  });

  it('infers the sender type from companyName when type is absent', () => {
    expect(validateSender({ companyName: 'Acme Ltd', country: 'GB' }, sepa, true).senderInfo).toEqual({ type: 'business', companyName: 'Acme Ltd', country: 'GB' });
    expect(validateSender({ firstName: 'Ada', lastName: 'Lovelace', country: 'GB' }, sepa, true).senderInfo?.type).toBe('individual');
  });

  it('never refuses as incomplete a senderInfo carrying the keys the requirements list, on any provider of the currency', () => {
    const sample: Record<string, string> = {
      firstName: 'Ada', lastName: 'Lovelace', dateOfBirth: '1985-12-10', companyName: 'Acme Ltd', registrationNumber: '0123', address: '1 High St',
      postalCode: 'EC1A 1AA', city: 'London', country: 'GB', phoneNumber: '+447400123456', fundOrigin: 'salary', gender: 'female',
    };
    for (const currency of catalogCurrencies(CATALOG)) {
      const answer = payoutRequirements({ currency, travelRuleScreening: true });
      for (const type of SENDER_TYPES) {
        const info = { type, ...Object.fromEntries(answer.sender[type].required.map((k) => [k, sample[k]])) };
        for (const p of findProviders({ currency })) {
          if (!p.defaultRouting) continue;
          expect(validateSender(info, p, false).errors, `${currency} ${type} ${p.id}`).toEqual([]);
        }
      }
    }
  });
});
