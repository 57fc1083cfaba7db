import { Type, type TSchema } from 'typebox';
import { Country, literals, Nullable, Page, PageQuery, Timestamp, Uuid } from '../../platform/lib/schemas.js';
import { UPLOAD_CONTENT_TYPES } from '../../platform/storage/uploads.service.js';
import { APPLICATION_STATUSES, APPLICATION_TYPES, DOCUMENT_TYPES, RISK_LEVELS, SCREENING_STATUSES, SECTIONS } from './applications.transitions.js';

/** Named limits of this module. */
export const APPLICATION_PERSONS_MAX = 25;
export const APPLICATION_DOCUMENTS_MAX = 50;
export const LIST_ITEMS_MAX = 20;


const Text = (max: number, description?: string) => Type.String({ minLength: 1, maxLength: max, ...(description ? { description } : {}) });
const Name = Text(100);
const DateOfBirth = Type.String({
  format: 'date',
  pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}$',
  description: 'YYYY-MM-DD, not in the future',
  'x-message': 'must be a date in the form YYYY-MM-DD',
});
const Phone = Type.String({ pattern: '^\\+[1-9][0-9]{6,14}$', description: 'E.164, such as +2348012345678', 'x-message': 'must be a phone number in E.164 form, such as +2348012345678' });
const Email = Type.String({ format: 'email', maxLength: 254 });
const Countries = Type.Array(Country, { maxItems: 250 });
const Strings = (description?: string) => Type.Array(Text(100), { maxItems: LIST_ITEMS_MAX, ...(description ? { description } : {}) });
const Amount = Type.String({ pattern: '^(0|[1-9][0-9]*)(\\.[0-9]{1,8})?$', description: 'Decimal string in major units', 'x-message': 'must be a decimal string such as "50000.00"' });

export const Address = Type.Object(
  { street: Text(200), city: Text(100), state: Type.Optional(Text(50)), postalCode: Type.Optional(Text(20)), country: Country },
  { additionalProperties: false },
);

/** The fields of each section, each optional on create; on PATCH, null clears one. */
export const SECTION_FIELDS = {
  applicant: {
    applicantDateOfBirth: DateOfBirth,
    applicantFirstName: Name,
    applicantLastName: Name,
    applicantNationality: Country,
    applicantNationalId: Text(50, 'Government id number; stored encrypted, never shown back (applicantNationalIdProvided)'),
    applicantPhone: Phone,
  },
  businessInfo: {
    registeredName: Text(200, 'Registered company name'),
    tradingName: Text(200),
    registrationNumber: Text(100, 'Company registration number'),
    country: Country,
    incorporationDate: DateOfBirth,
    taxId: Text(50, 'Tax identification number'),
    website: Type.String({
      format: 'uri',
      pattern: '^[Hh][Tt][Tt][Pp][Ss]?://',
      maxLength: 500,
      description: 'An http or https URL (javascript:, data: and other schemes are refused)',
      'x-message': 'must be an http or https URL of at most 500 characters, such as https://example.com',
    }),
    email: Email,
    phone: Phone,
    address: Address,
  },
  businessActivity: {
    industry: Text(100),
    description: Text(1000, 'What the business does'),
    accountPurposes: Strings(),
    expectedMonthlyVolume: Amount,
    expectedCounterpartyCountries: Countries,
    sourceOfFunds: Strings(),
  },
  individualActivity: {
    applicantAccountPurposes: Strings(),
    applicantAccountPurposesOtherDescription: Text(500),
    applicantEmploymentStatus: Text(100),
    applicantExpectedCounterpartyCountries: Countries,
    applicantExpectedCryptoMonthlyVolume: Amount,
    applicantExpectedFiatMonthlyVolume: Amount,
    applicantSourceOfFunds: Strings('Required to submit an individual application'),
    applicantSourceOfFundsOtherDescription: Text(500),
    applicantSourceOfWealth: Strings(),
    applicantSourceOfWealthOtherDescription: Text(500),
  },
} satisfies Record<'applicant' | 'businessInfo' | 'businessActivity' | 'individualActivity', Record<string, TSchema>>;

export type SectionName = keyof typeof SECTION_FIELDS;
export const PATCHABLE_SECTIONS = Object.keys(SECTION_FIELDS) as SectionName[];

const optionalAll = (fields: Record<string, TSchema>) =>
  Type.Object(Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, Type.Optional(v)])), { additionalProperties: false });
const nullableAll = (fields: Record<string, TSchema>) =>
  Type.Object(Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, Type.Optional(Nullable(v))])), { additionalProperties: false });

/** Person fields (spec §Application, persons). */
export const PERSON_FIELDS = {
  firstName: Name,
  lastName: Name,
  middleName: Name,
  title: Text(50, 'e.g. Director, CEO'),
  dateOfBirth: DateOfBirth,
  emailAddress: Email,
  phoneNumber: Phone,
  nationality: Country,
  residentialAddress: Address,
  bvn: Type.String({ pattern: '^[0-9]{11}$', description: 'Nigerian Bank Verification Number (11 digits); stored encrypted, never shown back', 'x-message': 'must be 11 digits' }),
  nationalId: Text(50, 'Government id number; stored encrypted, never shown back (nationalIdProvided)'),
  taxId: Text(50, 'Personal tax id; stored encrypted, never shown back (taxIdProvided)'),
  occupationCode: Text(20),
  ownershipPercentage: Type.Number({ minimum: 0, maximum: 100, description: '0 to 100; the sum over an application’s persons is at most 100' }),
};
export const REQUIRED_PERSON_FIELDS = ['firstName', 'lastName'] as const;

export const PersonBody = Type.Object(
  Object.fromEntries(
    Object.entries(PERSON_FIELDS).map(([k, v]) => [k, (REQUIRED_PERSON_FIELDS as readonly string[]).includes(k) ? v : Type.Optional(v)]),
  ),
  {
    additionalProperties: false,
    title: 'PersonInput',
    examples: [{ firstName: 'Ada', lastName: 'Lovelace', dateOfBirth: '1985-12-10', nationality: 'GB', title: 'Director', ownershipPercentage: 25, nationalId: 'AB123456C' }],
  },
);
export const PersonPatch = Type.Object(
  Object.fromEntries(
    Object.entries(PERSON_FIELDS).map(([k, v]) => [k, Type.Optional((REQUIRED_PERSON_FIELDS as readonly string[]).includes(k) ? v : Nullable(v))]),
  ),
  { additionalProperties: false, description: 'Partial update: an absent field keeps its value, null clears an optional one' },
);

const MASKED_PERSON = ['bvn', 'nationalId', 'taxId'] as const;
export const PersonSchema = Type.Object(
  {
    id: Uuid,
    applicationId: Uuid,
    ...Object.fromEntries(
      Object.entries(PERSON_FIELDS)
        .filter(([k]) => !(MASKED_PERSON as readonly string[]).includes(k))
        .map(([k, v]) => [k, (REQUIRED_PERSON_FIELDS as readonly string[]).includes(k) ? v : Type.Optional(v)]),
    ),
    bvnProvided: Type.Boolean(),
    nationalIdProvided: Type.Boolean(),
    taxIdProvided: Type.Boolean(),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { title: 'ApplicationPerson' },
);
export const PersonPage = Page('application_person.list', PersonSchema);

const IndirectControl = {
  hasIndirectControl: Type.Boolean({ description: 'Whether anyone controls the business other than through the declared persons' }),
  indirectControlDetails: Text(2000, 'Required when hasIndirectControl is true; cleared when it is false; null clears it under any answer. Judged on the application as it stands after the write.'),
};

export const ApplicationType = literals(APPLICATION_TYPES);
export const CompanySize = literals(['sme', 'large_corp', 'licensed_fi']);

export const CreateApplicationBody = Type.Object(
  {
    applicationType: ApplicationType,
    companySize: Type.Optional(CompanySize),
    applicant: Type.Optional(optionalAll(SECTION_FIELDS.applicant)),
    businessInfo: Type.Optional(optionalAll(SECTION_FIELDS.businessInfo)),
    businessActivity: Type.Optional(optionalAll(SECTION_FIELDS.businessActivity)),
    individualActivity: Type.Optional(optionalAll(SECTION_FIELDS.individualActivity)),
    hasIndirectControl: Type.Optional(IndirectControl.hasIndirectControl),
    indirectControlDetails: Type.Optional(Nullable(IndirectControl.indirectControlDetails)),
    persons: Type.Optional(
      Type.Array(PersonBody, { maxItems: APPLICATION_PERSONS_MAX, description: 'Create-time convenience: each becomes one person under /persons' }),
    ),
    documents: Type.Optional(
      Type.Array(Type.Object({ documentKey: Type.String({ maxLength: 200 }), label: Type.String({ maxLength: 200 }) }), {
        maxItems: APPLICATION_DOCUMENTS_MAX,
        description: 'Accepted and ignored: documents are uploaded through /documents after the create',
      }),
    ),
  },
  {
    description:
      'A business application (KYB) uses `companySize`, `businessInfo`, `businessActivity`, `persons` and the indirect-control answer; an individual one (KYC) uses `applicant` and `individualActivity`. A business may also name its applicant (`applicant`).',
  },
);

export const PatchApplicationBody = Type.Object(
  {
    companySize: Type.Optional(Nullable(CompanySize)),
    applicant: Type.Optional(Nullable(nullableAll(SECTION_FIELDS.applicant))),
    businessInfo: Type.Optional(Nullable(nullableAll(SECTION_FIELDS.businessInfo))),
    businessActivity: Type.Optional(Nullable(nullableAll(SECTION_FIELDS.businessActivity))),
    individualActivity: Type.Optional(Nullable(nullableAll(SECTION_FIELDS.individualActivity))),
    hasIndirectControl: Type.Optional(Nullable(IndirectControl.hasIndirectControl)),
    indirectControlDetails: Type.Optional(Nullable(IndirectControl.indirectControlDetails)),
  },
  {
    additionalProperties: false,
    description:
      'Edits by section. Inside a section an absent field keeps its value and null clears it; a section set to null is cleared. `companySize`, `hasIndirectControl` and `indirectControlDetails` belong to the businessInfo section. Allowed in draft; in more_info_requested only for the sections in `editableSections` (409 APPLICATION_SECTION_LOCKED otherwise); 409 APPLICATION_NOT_EDITABLE in under_review, approved or rejected.',
  },
);

const MaskedApplicant = Type.Object({
  ...Object.fromEntries(
    Object.entries(SECTION_FIELDS.applicant)
      .filter(([k]) => k !== 'applicantNationalId')
      .map(([k, v]) => [k, Type.Optional(v)]),
  ),
  applicantNationalIdProvided: Type.Boolean(),
});

export const ApplicationSchema = Type.Object(
  {
    id: Uuid,
    accountId: Type.String({ format: 'uuid', description: 'The account the application belongs to: the workspace, or the Service-Account-Id sub-account' }),
    applicationType: ApplicationType,
    createdAt: Timestamp,
    updatedAt: Timestamp,
    status: literals(APPLICATION_STATUSES),
    editableSections: Type.Array(literals(SECTIONS), {
      description: 'When more_info_requested: the sections that may be edited and resubmitted (applicant, businessInfo, businessActivity, individualActivity by PATCH; persons through /persons, covering their documents; documents through /documents for company-level documents). Empty otherwise.',
    }),
    moreInfoReason: Nullable(Type.String({ description: 'Reviewer notes when more_info_requested; null otherwise' })),
    registeredName: Nullable(Type.String({ description: 'businessInfo.registeredName; null until given and on individual applications' })),
    riskLevel: Nullable(literals(RISK_LEVELS, 'null until assessed: in the sandbox at submit (see the description of submit), in production by the operator')),
    screeningStatus: literals(SCREENING_STATUSES),
    companySize: Nullable(CompanySize),
    applicant: Nullable(MaskedApplicant),
    businessInfo: Nullable(optionalAll(SECTION_FIELDS.businessInfo)),
    businessActivity: Nullable(optionalAll(SECTION_FIELDS.businessActivity)),
    individualActivity: Nullable(optionalAll(SECTION_FIELDS.individualActivity)),
    hasIndirectControl: Nullable(Type.Boolean()),
    indirectControlDetails: Nullable(Type.String()),
    termsAcceptedVersion: Nullable(Type.String()),
    termsAcceptedAt: Nullable(Timestamp),
    submittedAt: Nullable(Timestamp),
    decidedAt: Nullable(Timestamp),
  },
  { title: 'Application' },
);
export const ApplicationPage = Page('application.list', ApplicationSchema);

export const ListApplicationsQuery = Type.Object({ ...PageQuery.properties, status: Type.Optional(literals(APPLICATION_STATUSES)) });
export const OperatorListApplicationsQuery = Type.Object({ ...ListApplicationsQuery.properties, workspaceId: Type.Optional(Uuid) });

export const ApplicationParams = Type.Object({ id: Uuid });
export const PersonParams = Type.Object({ id: Uuid, personId: Uuid });
export const DocumentParams = Type.Object({ id: Uuid, documentId: Uuid });

export const TermsSchema = Type.Object({ version: Type.String(), url: Type.String({ format: 'uri' }) }, { title: 'Terms' });
export const TermsAcceptanceBody = Type.Object(
  { version: Type.String({ minLength: 1, maxLength: 50, description: 'Must be the current version (GET /v2/terms)', 'x-sample-variable': 'TERMS_VERSION' }) },
  { additionalProperties: false },
);

export const UploadUrlBody = Type.Object(
  {
    contentType: literals(UPLOAD_CONTENT_TYPES, 'The type of the file; the bytes must be of this type'),
    contentLength: Type.Integer({ minimum: 1, description: 'Size of the file in bytes (at most UPLOAD_BYTES_MAX, default 10 MiB); the upload must be exactly this size' }),
  },
  { additionalProperties: false },
);
export const UploadUrlSchema = Type.Object(
  {
    documentKey: Type.String({ description: 'Names the upload in POST /v2/applications/{id}/documents' }),
    uploadUrl: Type.String({ format: 'uri', description: 'PUT the raw bytes here once, before expiresAt; no Authorization header' }),
    expiresAt: Timestamp,
  },
  { title: 'DocumentUploadUrl' },
);

export const RegisterDocumentBody = Type.Object(
  {
    documentKey: Type.String({ minLength: 1, maxLength: 200, 'x-sample-variable': 'DOCUMENT_KEY' }),
    type: literals(DOCUMENT_TYPES),
    personId: Type.Optional(Type.String({ format: 'uuid', description: "A person of this application: the document is that person's (photo_id, proof_of_address, other)" })),
  },
  { additionalProperties: false },
);
export const DocumentSchema = Type.Object(
  {
    id: Uuid,
    applicationId: Uuid,
    personId: Nullable(Uuid),
    type: literals(DOCUMENT_TYPES),
    documentKey: Type.String(),
    contentType: Type.String(),
    sizeBytes: Type.Integer(),
    createdAt: Timestamp,
  },
  { title: 'ApplicationDocument' },
);
export const DocumentPage = Page('application_document.list', DocumentSchema);

export const ReviewBody = Type.Object(
  {
    decision: literals(['approve', 'reject', 'request_info']),
    reason: Type.Optional(Text(2000, 'Required with request_info: becomes moreInfoReason')),
    editableSections: Type.Optional(
      Type.Array(literals(SECTIONS), { minItems: 1, maxItems: SECTIONS.length, description: 'With request_info: the sections to reopen (default: every section of the application type)' }),
    ),
  },
  { additionalProperties: false },
);

export const ScreeningBody = Type.Object(
  { screeningStatus: Type.Optional(literals(SCREENING_STATUSES)), riskLevel: Type.Optional(literals(RISK_LEVELS)) },
  { additionalProperties: false, minProperties: 1, examples: [{ screeningStatus: 'clear', riskLevel: 'low' }] },
);
