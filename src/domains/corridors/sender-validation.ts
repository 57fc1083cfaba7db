/**
 * Sender checks of a payout (the third stage, after the recipient's): what the paying provider needs
 * of `senderInfo`, with the spec's codes SENDER_INFO_INCOMPLETE, SENDER_INFO_INVALID and
 * ORIGINATOR_NOT_ON_RECORD. Keys outside the provider's lists are dropped from the stored identity;
 * `dateOfBirth` on a business sender is refused outright.
 */
import type { FieldError } from '../../platform/lib/errors.js';
import {
  FUND_ORIGINS,
  SENDER_GENDERS,
  SENDER_INFO_KEYS,
  SENDER_TYPES,
  type Provider,
  type SenderInfoKey,
  type SenderSpec,
  type SenderType,
} from './catalog.js';
import { checkE164 } from './account-formats.js';

export type SenderInfo = { type: SenderType } & Partial<Record<SenderInfoKey, string>>;

export interface SenderCheck {
  errors: FieldError[];
  /** The identity to store: `type` and the allowed keys present; undefined when the workspace is the originator. */
  senderInfo: SenderInfo | undefined;
  /** Who originates the payout: the supplied senderInfo, or the workspace itself as a business. */
  originator: 'sender_info' | 'workspace';
}

/** The sender keys a provider requires and accepts for a sender type. */
export function senderRequirements(provider: Provider, senderType: SenderType): SenderSpec {
  return provider.sender[senderType];
}

const LENGTH_MAX: Readonly<Record<SenderInfoKey, number>> = {
  firstName: 100,
  lastName: 100,
  dateOfBirth: 10,
  companyName: 200,
  registrationNumber: 100,
  address: 200,
  postalCode: 20,
  city: 100,
  country: 2,
  phoneNumber: 16,
  fundOrigin: 32,
  gender: 16,
};

/** Why a value is not acceptable for its key, or undefined. */
function valueProblem(key: SenderInfoKey, value: string, today: string): string | undefined {
  if (value.length > LENGTH_MAX[key]) return `must be at most ${LENGTH_MAX[key]} characters`;
  switch (key) {
    case 'gender':
      return (SENDER_GENDERS as readonly string[]).includes(value) ? undefined : `must be one of: ${SENDER_GENDERS.join(', ')}`;
    case 'fundOrigin':
      return (FUND_ORIGINS as readonly string[]).includes(value) ? undefined : `must be one of: ${FUND_ORIGINS.join(', ')}`;
    case 'country':
      return /^[A-Z]{2}$/.test(value) ? undefined : 'must be an ISO 3166-1 alpha-2 country code';
    case 'phoneNumber':
      return checkE164(value).valid ? undefined : 'must be a valid phone number in E.164 form, such as +237671234567';
    case 'dateOfBirth':
      return isPastDate(value, today) ? undefined : 'must be a past date in the form YYYY-MM-DD';
    default:
      return undefined;
  }
}

/** A real calendar date `YYYY-MM-DD` strictly before `today` (also `YYYY-MM-DD`). */
export function isPastDate(value: string, today: string): boolean {
  if (!/^[0-9]{4}-[0-9]{2}-[0-9]{2}$/.test(value)) return false;
  const date = new Date(`${value}T00:00:00Z`);
  return !Number.isNaN(date.getTime()) && date.toISOString().slice(0, 10) === value && value < today && value >= '1900-01-01';
}

function inferType(info: Record<string, unknown>): SenderType {
  return typeof info.companyName === 'string' && typeof info.firstName !== 'string' ? 'business' : 'individual';
}

/**
 * The sender checks of a payout paid by `provider`. Without senderInfo the workspace is the business
 * originator, unless the corridor needs senderInfo (SENDER_INFO_INCOMPLETE) or the workspace has no
 * business identity on record (ORIGINATOR_NOT_ON_RECORD). With it: `type` (individual or business;
 * inferred from companyName when absent), dateOfBirth refused on a business, every required key
 * present (SENDER_INFO_INCOMPLETE), every kept value well formed (SENDER_INFO_INVALID).
 */
export function validateSender(
  senderInfo: unknown,
  provider: Provider,
  workspaceHasBusinessIdentity: boolean,
  options: { fieldPrefix?: string; today?: string } = {},
): SenderCheck {
  const base = options.fieldPrefix ?? 'senderInfo';
  const today = options.today ?? new Date().toISOString().slice(0, 10);
  const fail = (errors: FieldError[]): SenderCheck => ({ errors, senderInfo: undefined, originator: 'sender_info' });
  if (senderInfo === undefined || senderInfo === null) {
    if (provider.sender.senderInfoRequired) {
      const keys = provider.sender.individual.required.join(', ');
      return fail([{ field: base, message: `${base} is required on this corridor (for an individual sender: ${keys})`, code: 'SENDER_INFO_INCOMPLETE' }]);
    }
    if (!workspaceHasBusinessIdentity) {
      return fail([
        { field: base, message: `${base} is required: the workspace has no business identity on record to originate the payout`, code: 'ORIGINATOR_NOT_ON_RECORD' },
      ]);
    }
    return { errors: [], senderInfo: undefined, originator: 'workspace' };
  }
  if (typeof senderInfo !== 'object' || Array.isArray(senderInfo)) {
    return fail([{ field: base, message: `${base} must be an object`, code: 'SENDER_INFO_INVALID' }]);
  }
  const info = senderInfo as Record<string, unknown>;
  if (info.type !== undefined && !(SENDER_TYPES as readonly unknown[]).includes(info.type)) {
    return fail([{ field: `${base}.type`, message: `${base}.type must be one of: ${SENDER_TYPES.join(', ')}`, code: 'SENDER_INFO_INVALID' }]);
  }
  const type = (info.type as SenderType | undefined) ?? inferType(info);
  const invalid: FieldError[] = [];
  const incomplete: FieldError[] = [];
  if (type === 'business' && info.dateOfBirth !== undefined && info.dateOfBirth !== null) {
    invalid.push({ field: `${base}.dateOfBirth`, message: `${base}.dateOfBirth is not accepted for a business sender`, code: 'SENDER_INFO_INVALID' });
  }
  const spec = senderRequirements(provider, type);
  const allowed = new Set<SenderInfoKey>([...spec.required, ...spec.optional]);
  const kept: SenderInfo = { type };
  for (const key of SENDER_INFO_KEYS) {
    if (!allowed.has(key)) continue;
    const value = info[key];
    if (value === undefined || value === null) continue;
    const field = `${base}.${key}`;
    const problem = typeof value !== 'string' || value.trim() === '' ? 'must be a non-empty string' : valueProblem(key, value, today);
    if (problem) invalid.push({ field, message: `${field} ${problem}`, code: 'SENDER_INFO_INVALID' });
    else kept[key] = value as string;
  }
  for (const key of spec.required) {
    if (kept[key] === undefined && !invalid.some((e) => e.field === `${base}.${key}`)) {
      incomplete.push({ field: `${base}.${key}`, message: `${base}.${key} is required for ${type === 'individual' ? 'an individual' : 'a business'} sender on this corridor`, code: 'SENDER_INFO_INCOMPLETE' });
    }
  }
  const errors = [...invalid, ...incomplete];
  return errors.length ? fail(errors) : { errors: [], senderInfo: kept, originator: 'sender_info' };
}
