import type { FieldError } from '../../platform/lib/errors.js';
import { isPastDate } from '../corridors/sender-validation.js';
import type { ApplicationType, DocumentType, RiskLevel, ScreeningStatus, Section } from './applications.transitions.js';

/** Pure rules of an application: no I/O, so each is testable on its own and read in one place. */

export type Fields = Record<string, unknown>;

/** The sections and answers of an application, as sealed in `applications.data`. */
export interface ApplicationData {
  companySize?: string;
  applicant?: Fields;
  businessInfo?: Fields;
  businessActivity?: Fields;
  individualActivity?: Fields;
  hasIndirectControl?: boolean;
  indirectControlDetails?: string;
}

export type SectionKey = 'applicant' | 'businessInfo' | 'businessActivity' | 'individualActivity';
const SECTION_KEYS: readonly SectionKey[] = ['applicant', 'businessInfo', 'businessActivity', 'individualActivity'];

/** The section each top-level PATCH field belongs to. */
export const SECTION_OF_FIELD: Record<string, Section> = {
  applicant: 'applicant',
  businessInfo: 'businessInfo',
  businessActivity: 'businessActivity',
  individualActivity: 'individualActivity',
  companySize: 'businessInfo',
  hasIndirectControl: 'businessInfo',
  indirectControlDetails: 'businessInfo',
};

const BUSINESS_ONLY = ['companySize', 'businessInfo', 'businessActivity', 'hasIndirectControl', 'indirectControlDetails', 'persons'];
const INDIVIDUAL_ONLY = ['individualActivity'];

/** Fields given that the application type does not take (400). */
export function typeFieldErrors(type: ApplicationType, given: readonly string[]): FieldError[] {
  const refused = type === 'business' ? INDIVIDUAL_ONLY : BUSINESS_ONLY;
  return given
    .filter((k) => refused.includes(k))
    .map((k) => ({ field: k, message: `${k} is accepted on ${type === 'business' ? 'individual' : 'business'} applications only` }));
}

const today = () => new Date().toISOString().slice(0, 10);
const notFuture = (value: string, on: string) => isPastDate(value, on) || value === on;

/** Date rules the schema cannot state: dates of birth in the past, an incorporation date not in the future. */
export function dateErrors(data: ApplicationData, on = today()): FieldError[] {
  const errors: FieldError[] = [];
  const dob = data.applicant?.applicantDateOfBirth;
  if (typeof dob === 'string' && !isPastDate(dob, on)) {
    errors.push({ field: 'applicant.applicantDateOfBirth', message: 'applicant.applicantDateOfBirth must be a real past date in the form YYYY-MM-DD' });
  }
  const incorporated = data.businessInfo?.incorporationDate;
  if (typeof incorporated === 'string' && !notFuture(incorporated, on)) {
    errors.push({ field: 'businessInfo.incorporationDate', message: 'businessInfo.incorporationDate must be a real date, not in the future' });
  }
  return errors;
}

export function personDateErrors(person: Fields, prefix: string, on = today()): FieldError[] {
  const dob = person.dateOfBirth;
  if (typeof dob === 'string' && !isPastDate(dob, on)) return [{ field: `${prefix}dateOfBirth`, message: `${prefix}dateOfBirth must be a real past date in the form YYYY-MM-DD` }];
  return [];
}

/**
 * The indirect-control rule, on the application as it stands after the write: details are cleared
 * when the answer is false and required when it is true. Returns the data to store, or the error.
 */
export function applyIndirectControl(data: ApplicationData): { data: ApplicationData; errors: FieldError[] } {
  if (data.hasIndirectControl === false) {
    const { indirectControlDetails: _cleared, ...rest } = data;
    return { data: rest, errors: [] };
  }
  if (data.hasIndirectControl === true && !data.indirectControlDetails) {
    return { data, errors: [{ field: 'indirectControlDetails', message: 'indirectControlDetails is required when hasIndirectControl is true' }] };
  }
  return { data, errors: [] };
}

/** Absent keeps, null clears. */
export function mergeFields(current: Fields | undefined, patch: Fields): Fields | undefined {
  const merged: Fields = { ...(current ?? {}) };
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete merged[k];
    else if (v !== undefined) merged[k] = v;
  }
  return Object.keys(merged).length ? merged : undefined;
}

/** The data of a create body: sections as given, `null` details treated as absent. */
export function createData(body: Fields): ApplicationData {
  const data: ApplicationData = {};
  for (const key of SECTION_KEYS) {
    const section = body[key] as Fields | undefined;
    if (section && Object.keys(section).length) data[key] = section;
  }
  if (typeof body.companySize === 'string') data.companySize = body.companySize;
  if (typeof body.hasIndirectControl === 'boolean') data.hasIndirectControl = body.hasIndirectControl;
  if (typeof body.indirectControlDetails === 'string') data.indirectControlDetails = body.indirectControlDetails;
  return data;
}

/** A PATCH applied by section: a section object merges field by field, a section set to null is cleared. */
export function patchData(current: ApplicationData, body: Fields): ApplicationData {
  const next: ApplicationData = { ...current };
  for (const key of SECTION_KEYS) {
    if (!(key in body)) continue;
    const value = body[key] as Fields | null | undefined;
    if (value === null) delete next[key];
    else if (value !== undefined) {
      const merged = mergeFields(current[key], value);
      if (merged) next[key] = merged;
      else delete next[key];
    }
  }
  for (const key of ['companySize', 'hasIndirectControl', 'indirectControlDetails'] as const) {
    if (!(key in body)) continue;
    const value = body[key];
    if (value === null) delete next[key];
    else if (value !== undefined) (next as Fields)[key] = value;
  }
  return next;
}

/** The sections a PATCH body writes. */
export function sectionsTouched(body: Fields): Section[] {
  return [...new Set(Object.keys(body).flatMap((k) => (SECTION_OF_FIELD[k] ? [SECTION_OF_FIELD[k]] : [])))];
}

/** Sum of ownership over persons; at most 100. */
export function ownershipError(persons: readonly Fields[], field: string): FieldError | undefined {
  const total = persons.reduce((sum, p) => sum + (typeof p.ownershipPercentage === 'number' ? p.ownershipPercentage : 0), 0);
  if (total > 100 + 1e-9) return { field, message: `${field} would bring the ownership over the application's persons to ${total}%; the total is at most 100%` };
  return undefined;
}

export interface SubmitFacts {
  type: ApplicationType;
  data: ApplicationData;
  persons: readonly (Fields & { id: string })[];
  documents: readonly { type: DocumentType; personId: string | null }[];
  termsAccepted: boolean;
}

const missing = (field: string, message: string, code = 'MISSING'): FieldError => ({ field, message, code });
const blank = (v: unknown) => v === undefined || v === null || v === '' || (Array.isArray(v) && v.length === 0);

/** Every item that keeps an application from being submitted (DESIGN §4 Pinned details, Applications); empty when complete. */
export function missingItems(f: SubmitFacts): FieldError[] {
  const errors: FieldError[] = [];
  if (f.type === 'business') {
    for (const k of ['registeredName', 'registrationNumber', 'country']) {
      if (blank(f.data.businessInfo?.[k])) errors.push(missing(`businessInfo.${k}`, `businessInfo.${k} is required to submit`));
    }
    if (f.persons.length === 0) errors.push(missing('persons', 'at least one person (director or owner) is required to submit'));
    for (const p of f.persons) {
      for (const k of ['firstName', 'lastName', 'dateOfBirth', 'nationality']) {
        if (blank(p[k])) errors.push(missing(`persons.${p.id}.${k}`, `person ${p.id} needs ${k} to submit`));
      }
      if (!f.documents.some((d) => d.type === 'photo_id' && d.personId === p.id)) {
        errors.push(missing(`persons.${p.id}.documents.photo_id`, `person ${p.id} needs a photo_id document to submit`));
      }
    }
    if (!f.documents.some((d) => d.type === 'certificate_of_incorporation' && d.personId === null)) {
      errors.push(missing('documents.certificate_of_incorporation', 'a company-level certificate_of_incorporation document is required to submit'));
    }
    if (f.data.hasIndirectControl === undefined) errors.push(missing('hasIndirectControl', 'hasIndirectControl must be answered to submit'));
    else if (f.data.hasIndirectControl && blank(f.data.indirectControlDetails)) {
      errors.push(missing('indirectControlDetails', 'indirectControlDetails is required when hasIndirectControl is true'));
    }
  } else {
    for (const k of ['applicantFirstName', 'applicantLastName', 'applicantDateOfBirth', 'applicantNationality']) {
      if (blank(f.data.applicant?.[k])) errors.push(missing(`applicant.${k}`, `applicant.${k} is required to submit`));
    }
    if (!f.documents.some((d) => d.type === 'photo_id' && d.personId === null)) {
      errors.push(missing('documents.photo_id', "a photo_id document of the applicant is required to submit"));
    }
    if (blank(f.data.individualActivity?.applicantSourceOfFunds)) {
      errors.push(missing('individualActivity.applicantSourceOfFunds', 'individualActivity.applicantSourceOfFunds is required to submit'));
    }
  }
  if (!f.termsAccepted) errors.push(missing('termsAcceptance', 'the current terms must be accepted (POST /v2/applications/{id}/terms-acceptance)', 'TERMS_NOT_ACCEPTED'));
  return errors;
}

/** The name screening looks at: the registered company name, or the applicant's full name. */
export function screenedName(type: ApplicationType, data: ApplicationData): string {
  if (type === 'business') return String(data.businessInfo?.registeredName ?? '');
  return [data.applicant?.applicantFirstName, data.applicant?.applicantLastName].filter(Boolean).join(' ');
}

/**
 * Sandbox screening, deterministic on the screened name (case-insensitive): a name containing
 * "flagged" is flagged (risk high); "prohibited" is clear with risk prohibited; "high risk" gives
 * risk high; "medium risk" risk medium; anything else is clear with risk low.
 */
export function simulatedScreening(name: string): { screeningStatus: ScreeningStatus; riskLevel: RiskLevel } {
  const n = name.toLowerCase();
  if (n.includes('flagged')) return { screeningStatus: 'flagged', riskLevel: 'high' };
  if (n.includes('prohibited')) return { screeningStatus: 'clear', riskLevel: 'prohibited' };
  if (n.includes('high risk')) return { screeningStatus: 'clear', riskLevel: 'high' };
  if (n.includes('medium risk')) return { screeningStatus: 'clear', riskLevel: 'medium' };
  return { screeningStatus: 'clear', riskLevel: 'low' };
}
