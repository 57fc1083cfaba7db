/**
 * Recipient validation, shared by beneficiaries (create, update) and payouts (submit), in the spec's
 * order: corridor-required recipient fields first, then recipient structure (the payment account).
 * Only the first failing stage is reported, so a request failing several is corrected one check per
 * round trip. Every entry names its field relative to the request body (`beneficiary.` for a payout,
 * nothing for a beneficiary) and carries the spec's code in `code`, except the field-format entry of
 * account-object rules (Nigerian bankCode/crAccount), which has none.
 */
import type { FieldError } from '../../platform/lib/errors.js';
import {
  CRYPTO_NETWORKS,
  MOBILE_MONEY_NETWORKS,
  type BankDataField,
  type CryptoNetwork,
  type Provider,
  type RecipientField,
  type RecipientType,
  type RecipientValidator,
  type Route,
} from './catalog.js';
import { CRYPTO_ADDRESS_SHAPES, checkE164, isCryptoAddress } from './account-formats.js';
import { NG_BANK_CODE, checkIban, isAbaRoutingNumber, isBic, isNuban } from '../../platform/lib/bank-account.js';
import { accountCountry, candidateProviders, findProviders, servesCountry, type AccountLike } from './providers.js';
import { CATALOG } from './catalog.js';

/** A payment account as a beneficiary carries it. */
export interface RecipientAccount extends AccountLike {
  id?: string | undefined;
  data: Record<string, unknown>;
}

/** A beneficiary as stored or as sent in full: what recipient validation looks at. */
export interface Recipient {
  type?: RecipientType | undefined;
  name?: string | null | undefined;
  country?: string | null | undefined;
  email?: string | null | undefined;
  address?: string | null | undefined;
  addressLine2?: string | null | undefined;
  city?: string | null | undefined;
  postcode?: string | null | undefined;
  countrySubdivision?: string | null | undefined;
  dateOfBirth?: string | null | undefined;
  accounts?: readonly RecipientAccount[] | undefined;
}

export interface CorridorContext {
  /** The payout currency: the account paid is one in this currency. */
  currency: string;
  /** The rail asked for; absent: auto-routed (EUR, GBP) or, for a beneficiary, the account's primary corridor. */
  route?: Route | undefined;
  /** Which `accounts[]` item is paid; default: the first in `currency` some provider can pay. */
  accountIndex?: number | undefined;
  /** The paying provider when the caller already chose it; default: selectProvider's choice. */
  provider?: Provider | undefined;
  /** Prefix of every `field`: 'beneficiary.' (default, a payout body) or '' (a beneficiary body). */
  fieldPrefix?: string | undefined;
  /** Minor units of the payout, to prefer a provider whose bounds hold it. */
  amountMinor?: bigint | undefined;
  /** 'payout' (default) or 'beneficiary' (selection without route; see SelectionQuery.purpose). */
  purpose?: 'payout' | 'beneficiary' | undefined;
  /**
   * Enforce the Travel Rule at submit: an individual on a crypto corridor without dateOfBirth is refused
   * with an uncoded entry naming the field. The payout passes true only when the workspace's
   * travelRuleScreening is on outside the sandbox.
   */
  travelRule?: boolean | undefined;
  catalog?: readonly Provider[] | undefined;
}

export interface RecipientCheck {
  /** The provider that pays (undefined when none can: then `structure` holds UNSUPPORTED_CORRIDOR). */
  provider: Provider | undefined;
  accountIndex: number | undefined;
  /** Stage 1: corridor-required recipient fields (name, required fields, Travel Rule dateOfBirth). */
  required: FieldError[];
  /** Stage 2: recipient structure (the account: details present, formats, corridor support). */
  structure: FieldError[];
  /** What to report: the first failing stage. */
  errors: FieldError[];
}

export const RECIPIENT_CODES = [
  'MISSING_BENEFICIARY_NAME',
  'BENEFICIARY_INCOMPLETE',
  'MISSING_BANK_ACCOUNT_DETAILS',
  'INVALID_IBAN',
  'INVALID_ACCOUNT_NUMBER',
  'INVALID_ROUTING_NUMBER',
  'UNSUPPORTED_CORRIDOR',
  'RECIPIENT_DETAILS_INVALID',
] as const;

/**
 * 'field_format': the uncoded account-object entry (`…accounts.N.data`), which a batch payout checks on
 * every row before creating any and which rejects the whole array. 'recipient': any other entry
 * (coded recipient refusals, and the uncoded Travel Rule dateOfBirth), reported per row.
 */
export function recipientErrorKind(error: FieldError): 'field_format' | 'recipient' {
  return error.code === undefined && /(^|\.)accounts\.\d+\.data$/.test(error.field) ? 'field_format' : 'recipient';
}

export const isFieldFormatError = (error: FieldError): boolean => recipientErrorKind(error) === 'field_format';

const blank = (value: unknown): boolean => typeof value !== 'string' || value.trim() === '';
const entry = (field: string, message: string, code?: string): FieldError => ({ field, message: `${field} ${message}`, ...(code ? { code } : {}) });

/** Validates the recipient against the corridor that pays it; see RecipientCheck. */
export function checkRecipient(recipient: Recipient, context: CorridorContext): RecipientCheck {
  const prefix = context.fieldPrefix ?? 'beneficiary.';
  const resolved = resolveAccount(recipient, context, prefix);
  if ('error' in resolved) {
    return { provider: undefined, accountIndex: resolved.index, required: [], structure: [resolved.error], errors: [resolved.error] };
  }
  const { provider, index, account } = resolved;
  const required = requiredFieldErrors(recipient, provider, prefix, context.travelRule ?? false);
  const structure = accountErrors(recipient, account, provider, `${prefix}accounts.${index}`);
  return { provider, accountIndex: index, required, structure, errors: required.length ? required : structure };
}

/** The entries to report for this recipient on this corridor, in the spec's order (first failing stage only). */
export function validateRecipient(recipient: Recipient, context: CorridorContext): FieldError[] {
  return checkRecipient(recipient, context).errors;
}

// ---------------------------------------------------------------------------------------------
// Which account, which provider

type Resolved = { provider: Provider; index: number; account: RecipientAccount } | { error: FieldError; index: number | undefined };

function resolveAccount(recipient: Recipient, context: CorridorContext, prefix: string): Resolved {
  const accounts = recipient.accounts ?? [];
  const indices =
    context.accountIndex !== undefined
      ? [context.accountIndex]
      : accounts.flatMap((a, i) => (a.currency === context.currency ? [i] : []));
  const first = indices[0];
  if (first === undefined || accounts[first] === undefined) {
    return { index: undefined, error: entry(`${prefix}accounts`, `holds no account in ${context.currency}`, 'UNSUPPORTED_CORRIDOR') };
  }
  for (const index of indices) {
    const account = accounts[index];
    if (!account) continue;
    const candidates = candidateProviders(
      {
        currency: context.currency,
        route: context.route,
        account,
        beneficiaryCountry: recipient.country,
        amountMinor: context.amountMinor,
        purpose: context.purpose,
      },
      context.catalog ?? CATALOG,
    );
    const provider = context.provider ? candidates.find((p) => p.id === context.provider?.id) : candidates[0];
    if (provider) return { provider, index, account };
  }
  const account = accounts[first] as RecipientAccount;
  return { index: first, error: unsupported(recipient, account, context, `${prefix}accounts.${first}`) };
}

/** Why no provider pays the account, on the field at fault. */
function unsupported(recipient: Recipient, account: RecipientAccount, context: CorridorContext, path: string): FieldError {
  const catalog = context.catalog ?? CATALOG;
  const code = 'UNSUPPORTED_CORRIDOR';
  const over = context.route ? ` over ${context.route}` : '';
  if (account.currency !== context.currency) return entry(`${path}.currency`, `is ${account.currency}, not the payout currency ${context.currency}`, code);
  const serving = findProviders({ currency: account.currency, route: context.route }, catalog);
  if (serving.length === 0) return entry(`${path}.currency`, `${account.currency} is not paid${over}`, code);
  const types = [...new Set(serving.flatMap((p) => Object.keys(p.accounts)))];
  if (!types.includes(account.type)) {
    const autoRouted = context.route === undefined && (context.purpose ?? 'payout') === 'payout' && serving.some((p) => p.autoRoute);
    const allowed = autoRouted ? ['iban'] : types;
    return entry(`${path}.type`, `${account.type} accounts are not paid in ${account.currency}${over}; accepted: ${allowed.join(', ')}`, code);
  }
  const country = accountCountry(account, recipient.country);
  const inCountry = serving.filter((p) => country !== undefined && servesCountry(p, country));
  if (inCountry.length === 0) return entry(`${path}.country`, `${account.currency}${over} is not paid into ${country ?? 'an unknown country'}`, code);
  return entry(`${path}.type`, `${account.type} accounts in ${account.currency} are not paid${over} without a route; send route`, code);
}

// ---------------------------------------------------------------------------------------------
// Stage 1: corridor-required recipient fields

function requiredFieldErrors(recipient: Recipient, provider: Provider, prefix: string, travelRule: boolean): FieldError[] {
  const type: RecipientType = recipient.type ?? 'individual';
  const spec = provider.recipient[type];
  const errors: FieldError[] = [];
  const nameField = `${prefix}name`;
  if (blank(recipient.name)) {
    errors.push(
      entry(nameField, type === 'business' ? "must carry the company's legal name" : "must carry the recipient's first and last name", 'MISSING_BENEFICIARY_NAME'),
    );
  } else if (provider.submitValidators.includes('name_rules')) {
    for (const rule of spec.rules) {
      if (!new RegExp(rule.pattern).test(recipient.name as string)) errors.push(entry(nameField, `does not fit this corridor: ${rule.description}`, rule.code));
    }
  }
  for (const field of spec.required) {
    if (field === 'dateOfBirth') continue; // Travel Rule only, below
    if (blank(recipient[field])) errors.push(entry(`${prefix}${field}`, `is required on this corridor (${provider.route})`, 'BENEFICIARY_INCOMPLETE'));
  }
  if (travelRule && provider.travelRule && type === 'individual' && blank(recipient.dateOfBirth)) {
    errors.push(entry(`${prefix}dateOfBirth`, 'is required for a crypto payout to an individual while Travel Rule screening is enabled'));
  }
  return errors;
}

/** The recipient fields a provider requires of a type, with dateOfBirth added for individuals under the Travel Rule. */
export function requiredRecipientFields(provider: Provider, type: RecipientType, travelRuleScreening: boolean): RecipientField[] {
  const required = [...provider.recipient[type].required];
  if (type === 'individual' && provider.travelRule && travelRuleScreening && !required.includes('dateOfBirth')) required.push('dateOfBirth');
  return type === 'business' ? required.filter((f) => f !== 'dateOfBirth') : required;
}

// ---------------------------------------------------------------------------------------------
// Stage 2: recipient structure

function accountErrors(recipient: Recipient, account: RecipientAccount, provider: Provider, path: string): FieldError[] {
  const runs = (v: RecipientValidator): boolean => provider.submitValidators.includes(v);
  const data = account.data ?? {};
  switch (account.type) {
    case 'iban':
      return ibanErrors(data, provider, path, runs);
    case 'bank_account':
      return bankAccountErrors(data, provider, path, runs);
    case 'mobile_money':
      return mobileMoneyErrors(data, provider, path, runs, accountCountry(account, recipient.country));
    case 'crypto':
      return cryptoErrors(data, provider, path, runs, account.currency);
    default:
      return [entry(`${path}.type`, `${account.type} is not an account type`, 'UNSUPPORTED_CORRIDOR')];
  }
}

type Runs = (validator: RecipientValidator) => boolean;
const text = (value: unknown): string | undefined => (typeof value === 'string' && value.trim() !== '' ? value : undefined);
const missing = (path: string, key: string, what: string): FieldError => entry(`${path}.data.${key}`, `is required: ${what}`, 'MISSING_BANK_ACCOUNT_DETAILS');

function ibanErrors(data: Record<string, unknown>, provider: Provider, path: string, runs: Runs): FieldError[] {
  const errors: FieldError[] = [];
  const iban = text(data.iban);
  if (iban === undefined) errors.push(missing(path, 'iban', 'the IBAN'));
  else if (runs('iban') && !checkIban(iban).valid) {
    errors.push(entry(`${path}.data.iban`, 'is not a valid IBAN: its country code or check digits are wrong', 'INVALID_IBAN'));
  }
  const bic = text(data.bic);
  if (bic === undefined && provider.accounts.iban?.bic === 'required') errors.push(missing(path, 'bic', 'the BIC of the bank'));
  else if (bic !== undefined && runs('bic') && !isBic(bic.toUpperCase())) {
    errors.push(entry(`${path}.data.bic`, 'is not a valid BIC (8 or 11 characters)', 'INVALID_ROUTING_NUMBER'));
  }
  return errors;
}

const FORMAT_CODES = { account_number: 'INVALID_ACCOUNT_NUMBER', routing_number: 'INVALID_ROUTING_NUMBER', bic: 'INVALID_ROUTING_NUMBER' } as const;

function fieldFormatOk(field: BankDataField, value: string): boolean {
  if (field.pattern !== undefined && !new RegExp(field.pattern).test(value)) return false;
  if (field.checksum === 'aba' && !isAbaRoutingNumber(value)) return false;
  if (field.validator === 'bic' && !isBic(value.toUpperCase())) return false;
  return true;
}

function bankAccountErrors(data: Record<string, unknown>, provider: Provider, path: string, runs: Runs): FieldError[] {
  const spec = provider.accounts.bank_account;
  if (!spec) return [];
  if (spec.objectCheck === 'nuban') return nubanErrors(data, path, runs);
  const errors: FieldError[] = [];
  for (const field of spec.fields) {
    const value = data[field.key];
    if (value === undefined || value === null || value === '') {
      if (field.required) errors.push(missing(path, field.key, field.description));
      continue;
    }
    if (field.validator === undefined || !runs(field.validator)) continue;
    if (typeof value !== 'string' || !fieldFormatOk(field, value)) {
      errors.push(entry(`${path}.data.${field.key}`, `has the wrong length or format for this corridor: ${field.description}`, FORMAT_CODES[field.validator]));
    }
  }
  return errors;
}

/** Nigerian accounts: bankCode and crAccount checked as one object; one uncoded entry naming each failing field. */
function nubanErrors(data: Record<string, unknown>, path: string, runs: Runs): FieldError[] {
  const problems: string[] = [];
  const bankCode = typeof data.bankCode === 'string' ? data.bankCode : undefined;
  const crAccount = typeof data.crAccount === 'string' ? data.crAccount : undefined;
  const bankCodeOk = bankCode !== undefined && NG_BANK_CODE.test(bankCode);
  const crAccountShapeOk = crAccount !== undefined && /^[0-9]{10}$/.test(crAccount);
  if (bankCode === undefined) problems.push('bankCode is required (the CBN bank code)');
  else if (!bankCodeOk) problems.push('bankCode must be a CBN bank code of 3, 5 or 6 digits');
  if (crAccount === undefined) problems.push('crAccount is required (the 10-digit NUBAN)');
  else if (!crAccountShapeOk) problems.push('crAccount must be a 10-digit NUBAN');
  else if (bankCodeOk && runs('nuban') && !isNuban(bankCode, crAccount)) problems.push('crAccount fails the NUBAN check digit for bankCode');
  if (problems.length === 0) return [];
  const field = `${path}.data`;
  return [{ field, message: `${field}: ${problems.join('; ')}` }];
}

function mobileMoneyErrors(data: Record<string, unknown>, provider: Provider, path: string, runs: Runs, country: string | undefined): FieldError[] {
  const errors: FieldError[] = [];
  const phone = text(data.phoneNumber);
  const network = text(data.network);
  if (phone === undefined) errors.push(missing(path, 'phoneNumber', 'the mobile-money number in E.164 form'));
  else if (runs('phone_number')) {
    const parsed = checkE164(phone);
    if (!parsed.valid) errors.push(entry(`${path}.data.phoneNumber`, 'must be a valid phone number in E.164 form, such as +2250701234567', 'INVALID_ACCOUNT_NUMBER'));
    else if (country !== undefined && parsed.country !== country) {
      errors.push(entry(`${path}.data.phoneNumber`, `is not a ${country} number (the destination country)`, 'INVALID_ACCOUNT_NUMBER'));
    }
  }
  const served = (country !== undefined ? provider.accounts.mobile_money?.networks[country] : undefined) ?? [];
  if (network === undefined) errors.push(missing(path, 'network', `the mobile-money network (${MOBILE_MONEY_NETWORKS.join(', ')})`));
  else if (!served.some((n) => n === network)) {
    errors.push(entry(`${path}.data.network`, `is not a network paid in ${country ?? 'this country'}; served: ${served.join(', ')}`, 'UNSUPPORTED_CORRIDOR'));
  }
  return errors;
}

function cryptoErrors(data: Record<string, unknown>, provider: Provider, path: string, runs: Runs, currency: string): FieldError[] {
  const errors: FieldError[] = [];
  const address = text(data.address);
  const network = text(data.network);
  const served = provider.accounts.crypto?.networks[currency] ?? [];
  const known = CRYPTO_NETWORKS.find((n) => n === network);
  if (network === undefined) errors.push(missing(path, 'network', `the network (${served.join(', ')})`));
  else if (!served.some((n) => n === network)) {
    errors.push(entry(`${path}.data.network`, `is not a network ${currency} is paid on; served: ${served.join(', ')}`, 'UNSUPPORTED_CORRIDOR'));
  }
  if (address === undefined) errors.push(missing(path, 'address', 'the wallet address'));
  else if (known !== undefined && runs('crypto_address') && !isCryptoAddress(known as CryptoNetwork, address)) {
    errors.push(entry(`${path}.data.address`, `is not a valid ${known} address: expected ${CRYPTO_ADDRESS_SHAPES[known]}`, 'INVALID_ACCOUNT_NUMBER'));
  }
  return errors;
}
