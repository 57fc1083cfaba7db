import type { AppContext } from '../../platform/context.js';
import type { Sql, Tx } from '../../platform/db/db.js';
import { DomainError, conflict, fieldError, notFound, validationError, type FieldError } from '../../platform/lib/errors.js';
import type { PageRequest } from '../../platform/db/pagination.js';
import type { CryptoBox } from '../../platform/lib/crypto-box.js';
import { newId } from '../../platform/lib/ids.js';
import { recordBusinessIdentity } from '../accounts/accounts.service.js';
import { recordEvent } from '../events/events.service.js';
import * as repo from './applications.repository.js';
import type { ApplicationRow } from './applications.repository.js';
import {
  applyIndirectControl,
  createData,
  dateErrors,
  missingItems,
  patchData,
  screenedName,
  sectionsTouched,
  simulatedScreening,
  typeFieldErrors,
  type ApplicationData,
  type Fields,
} from './applications.rules.js';
import {
  canMove,
  DECISION_TARGET,
  RISK_LEVELS,
  SCREENING_STATUSES,
  SECTIONS_OF,
  STATUS_EVENT,
  type ApplicationStatus,
  type ReviewDecision,
  type RiskLevel,
  type ScreeningStatus,
  type Section,
} from './applications.transitions.js';
import { assertEditable, requireApplication } from './applications.access.js';
import { addPersons, personFacts } from './persons.service.js';
import { documentFacts } from './documents.service.js';
import { assertCapability, type AccountScope, type Caller } from '../accounts/caller.js';
import { attributed } from '../../controls/audit/audit.service.js';
import { assertOperatorRight, type OperatorActor } from '../users/rights.js';


// ---------------------------------------------------------------------------------------------
// Views

export const sealData = (box: CryptoBox, data: ApplicationData): string => box.encrypt(JSON.stringify(data));
export const openData = (box: CryptoBox, row: Pick<ApplicationRow, 'data'>): ApplicationData => JSON.parse(box.decrypt(row.data)) as ApplicationData;

/** The fields of the spec's application object (§Application, response body): also the data of application.* events. */
export function applicationSummary(row: ApplicationRow, data: ApplicationData) {
  return {
    id: row.id,
    accountId: row.account_id ?? row.workspace_id,
    applicationType: row.application_type,
    createdAt: row.created_at.toISOString(),
    status: row.status,
    editableSections: row.status === 'more_info_requested' ? row.editable_sections : [],
    moreInfoReason: row.status === 'more_info_requested' ? row.more_info_reason : null,
    registeredName: typeof data.businessInfo?.registeredName === 'string' ? data.businessInfo.registeredName : null,
    riskLevel: row.risk_level,
    screeningStatus: row.screening_status,
  };
}

function maskedApplicant(applicant: Fields | undefined) {
  if (!applicant) return null;
  const { applicantNationalId, ...rest } = applicant;
  return { ...rest, applicantNationalIdProvided: typeof applicantNationalId === 'string' };
}

/** The application as the API shows it: the spec's fields, then the sections (government ids masked). */
export function applicationView(row: ApplicationRow, data: ApplicationData) {
  return {
    ...applicationSummary(row, data),
    updatedAt: row.updated_at.toISOString(),
    companySize: data.companySize ?? null,
    applicant: maskedApplicant(data.applicant),
    businessInfo: data.businessInfo ?? null,
    businessActivity: data.businessActivity ?? null,
    individualActivity: data.individualActivity ?? null,
    hasIndirectControl: data.hasIndirectControl ?? null,
    indirectControlDetails: data.indirectControlDetails ?? null,
    termsAcceptedVersion: row.terms_version,
    termsAcceptedAt: row.terms_accepted_at?.toISOString() ?? null,
    submittedAt: row.submitted_at?.toISOString() ?? null,
    decidedAt: row.decided_at?.toISOString() ?? null,
  };
}
export type ApplicationView = ReturnType<typeof applicationView>;

const view = (box: CryptoBox, row: ApplicationRow) => applicationView(row, openData(box, row));

// ---------------------------------------------------------------------------------------------
// Validation

/** The fields the application type does not take (400), from the keys a body sets. */
function assertFieldsOfType(type: ApplicationRow['application_type'], body: Fields): void {
  const errors = typeFieldErrors(type, Object.keys(body).filter((k) => body[k] !== undefined && body[k] !== null));
  if (errors.length) throw validationError(errors);
}

/** The rules on the application as it stands after the write: dates, and the indirect-control answer. */
function assertValidData(data: ApplicationData): ApplicationData {
  const checked = applyIndirectControl(data);
  const errors = [...dateErrors(checked.data), ...checked.errors];
  if (errors.length) throw validationError(errors);
  return checked.data;
}

// ---------------------------------------------------------------------------------------------
// Commands

/** POST /v2/applications: a draft owned by the scope's account; `persons` become persons, `documents` are ignored. */
export async function createApplication(ctx: AppContext, tx: Tx, scope: AccountScope, body: Fields & { applicationType: 'business' | 'individual' }): Promise<ApplicationView> {
  const type = body.applicationType;
  assertFieldsOfType(type, body);
  const data = assertValidData(createData(body));
  const row = await repo.insertApplication(tx, { id: newId(), scope, type, data: sealData(ctx.box, data) });
  const persons = (body.persons as Fields[] | undefined) ?? [];
  if (persons.length) await addPersons(ctx, tx, row, persons, 'persons.');
  return applicationView(row, data);
}

export async function getApplication(ctx: AppContext, sql: Sql, scope: AccountScope, id: string): Promise<ApplicationView> {
  return view(ctx.box, await requireApplication(sql, scope, id));
}

export async function listApplications(ctx: AppContext, sql: Sql, scope: AccountScope | undefined, query: PageRequest & { status?: ApplicationStatus | undefined; workspaceId?: string | undefined }) {
  const page = await repo.pageApplications(sql, scope, query, query);
  return { ...page, data: page.data.map((row) => view(ctx.box, row)) };
}

/** PATCH /v2/applications/{id}: by section, on the application as it stands after the write. */
export async function patchApplication(ctx: AppContext, tx: Tx, scope: AccountScope, id: string, body: Fields): Promise<ApplicationView> {
  const row = await requireApplication(tx, scope, id, { lock: true });
  assertEditable(row, sectionsTouched(body));
  assertFieldsOfType(row.application_type, body);
  const data = assertValidData(patchData(openData(ctx.box, row), body));
  return applicationView(await repo.updateData(tx, id, sealData(ctx.box, data)), data);
}

/** POST /v2/applications/{id}/terms-acceptance: only the current version counts. */
export async function acceptTerms(ctx: AppContext, tx: Tx, scope: AccountScope, id: string, version: string): Promise<ApplicationView> {
  const row = await requireApplication(tx, scope, id, { lock: true });
  if (row.status !== 'draft' && row.status !== 'more_info_requested') throw conflict('APPLICATION_NOT_EDITABLE', `The application is ${row.status}`);
  if (version !== ctx.config.termsVersion) {
    throw fieldError('version', `version must be the current terms version "${ctx.config.termsVersion}" (GET /v2/terms)`, 'TERMS_VERSION_NOT_CURRENT');
  }
  return view(ctx.box, await repo.setTerms(tx, id, version));
}

/** Moves an application by compare-and-set and records its event in the same transaction. */
async function move(
  tx: Tx,
  box: CryptoBox,
  row: ApplicationRow,
  to: ApplicationStatus,
  extra: { moreInfoReason?: string; editableSections?: readonly Section[] } = {},
): Promise<ApplicationRow> {
  if (!canMove(row.status, to)) {
    throw conflict('APPLICATION_STATE_CONFLICT', `The application is ${row.status}; it cannot move to ${to}`);
  }
  const moved = await repo.moveStatus(tx, {
    id: row.id,
    from: row.status,
    to,
    moreInfoReason: extra.moreInfoReason ?? null,
    editableSections: extra.editableSections ?? [],
  });
  if (!moved) throw conflict('APPLICATION_STATE_CONFLICT', 'The application changed meanwhile; read it again');
  const type = STATUS_EVENT[to];
  if (type) {
    await recordEvent(tx, {
      workspaceId: moved.workspace_id,
      accountId: moved.account_id ?? undefined,
      type,
      data: applicationSummary(moved, openData(box, moved)),
    });
  }
  return moved;
}

/** What an application still lacks before it can be submitted (the items of a 422 APPLICATION_INCOMPLETE). */
async function missingForSubmit(ctx: AppContext, sql: Sql, row: ApplicationRow, data: ApplicationData): Promise<FieldError[]> {
  return missingItems({
    type: row.application_type,
    data,
    persons: await personFacts(ctx, sql, row.id),
    documents: await documentFacts(sql, row.id),
    termsAccepted: row.terms_version === ctx.config.termsVersion,
  });
}

/** The scope's application and what it still lacks for submit, as submit itself would list it. */
export async function applicationWithGaps(ctx: AppContext, sql: Sql, scope: AccountScope, id: string): Promise<{ application: ApplicationView; missing: FieldError[] }> {
  const row = await requireApplication(sql, scope, id);
  const data = openData(ctx.box, row);
  return { application: applicationView(row, data), missing: await missingForSubmit(ctx, sql, row, data) };
}

/**
 * POST /v2/applications/{id}/submit: from draft or more_info_requested. An incomplete application is
 * 422 listing every missing item and stays as it was; a complete one moves to under_review (event
 * application.under_review, again on each resubmission). In the sandbox, screening runs at once
 * (applications.rules simulatedScreening); in production it stays pending until the operator sets it.
 */
export async function submitApplication(ctx: AppContext, tx: Tx, scope: AccountScope, id: string): Promise<ApplicationView> {
  const row = await requireApplication(tx, scope, id, { lock: true });
  if (row.status !== 'draft' && row.status !== 'more_info_requested') {
    throw conflict('APPLICATION_STATE_CONFLICT', `The application is ${row.status}; only a draft or more_info_requested application is submitted`);
  }
  const data = openData(ctx.box, row);
  const missing = await missingForSubmit(ctx, tx, row, data);
  if (missing.length) {
    throw new DomainError({ category: 'unprocessable', code: 'APPLICATION_INCOMPLETE', message: `The application cannot be submitted: ${missing.length} item(s) missing`, details: missing });
  }
  // Sandbox screening lands before the move, so the application.under_review event carries its outcome.
  const screened = ctx.config.env === 'sandbox' ? await repo.setScreening(tx, row.id, simulatedScreening(screenedName(row.application_type, data))) : row;
  return applicationView(await move(tx, ctx.box, screened, 'under_review'), data);
}

export interface Review {
  decision: ReviewDecision;
  reason?: string | undefined;
  editableSections?: readonly Section[] | undefined;
}

/**
 * A review decision on an under_review application (sandbox simulation or operator). request_info
 * needs a reason and reopens `editableSections` (default: every section of the type). Approving a
 * business application of the workspace itself puts its business on record as the originator of
 * payouts sent without senderInfo (unless the operator set one).
 */
export async function reviewApplication(ctx: AppContext, tx: Tx, row: ApplicationRow, review: Review): Promise<ApplicationView> {
  const to = DECISION_TARGET[review.decision] as ApplicationStatus | undefined;
  if (!to) throw fieldError('decision', 'decision must be approve, reject or request_info');
  let extra: { moreInfoReason?: string; editableSections?: readonly Section[] } = {};
  if (review.decision === 'request_info') {
    if (!review.reason) throw fieldError('reason', 'reason is required with request_info (it becomes moreInfoReason)');
    const allowed = SECTIONS_OF[row.application_type];
    const sections = review.editableSections ?? allowed;
    const foreign = sections.filter((s) => !allowed.includes(s));
    if (foreign.length) throw fieldError('editableSections', `editableSections of a ${row.application_type} application are among: ${allowed.join(', ')}`);
    extra = { moreInfoReason: review.reason, editableSections: [...new Set(sections)] };
  }
  const moved = await move(tx, ctx.box, row, to, extra);
  const data = openData(ctx.box, moved);
  if (to === 'approved' && moved.application_type === 'business') {
    await recordBusinessIdentity(tx, moved.workspace_id, businessIdentityOf(data), moved.account_id ?? undefined);
  }
  return applicationView(moved, data);
}

function businessIdentityOf(data: ApplicationData): Record<string, string> {
  const info = data.businessInfo ?? {};
  const address = (info.address ?? {}) as Fields;
  const identity: Record<string, unknown> = {
    companyName: info.registeredName,
    registrationNumber: info.registrationNumber,
    country: info.country,
    address: address.street,
    city: address.city,
    postalCode: address.postalCode,
  };
  return Object.fromEntries(Object.entries(identity).filter((e): e is [string, string] => typeof e[1] === 'string'));
}

/** Review in the sandbox (API and dashboard): the caller's own application; refused while the applications capability is off. */
export async function reviewOwnApplication(ctx: AppContext, tx: Tx, caller: AccountScope & Pick<Caller, 'workspace'>, id: string, review: Review): Promise<ApplicationView> {
  assertCapability(caller.workspace, 'applications');
  return reviewApplication(ctx, tx, await requireApplication(tx, caller, id, { lock: true }), review);
}

/** Operator: any workspace's application. */
export async function requireAnyApplication(tx: Tx, id: string): Promise<ApplicationRow> {
  const row = attributed(await repo.findApplicationById(tx, id));
  if (!row) throw notFound('Application');
  return row;
}

/** Operator (API and console): a review decision on any workspace's application. */
export async function reviewAnyApplication(ctx: AppContext, tx: Tx, id: string, review: Review, actor: Pick<OperatorActor, 'role'>): Promise<ApplicationView> {
  assertOperatorRight(actor, 'applications');
  return reviewApplication(ctx, tx, await requireAnyApplication(tx, id), review);
}

/** Operator: any workspace's application, with the workspace it belongs to (the scope its persons and documents are read in). */
export async function getAnyApplication(ctx: AppContext, sql: Sql, id: string): Promise<{ application: ApplicationView; scope: AccountScope }> {
  const row = await repo.findApplicationById(sql, id);
  if (!row) throw notFound('Application');
  return { application: view(ctx.box, row), scope: { workspaceId: row.workspace_id, subAccountId: undefined } };
}

/** Operator: set the screening outcome and risk level (production screening is the operator's). */
export async function setScreening(
  ctx: AppContext,
  tx: Tx,
  id: string,
  s: { screeningStatus?: ScreeningStatus | undefined; riskLevel?: RiskLevel | undefined },
  actor: Pick<OperatorActor, 'role'>,
): Promise<ApplicationView> {
  assertOperatorRight(actor, 'screening');
  if (s.screeningStatus !== undefined && !SCREENING_STATUSES.includes(s.screeningStatus)) throw fieldError('screeningStatus', `screeningStatus must be one of ${SCREENING_STATUSES.join(', ')}`);
  if (s.riskLevel !== undefined && !RISK_LEVELS.includes(s.riskLevel)) throw fieldError('riskLevel', `riskLevel must be one of ${RISK_LEVELS.join(', ')}`);
  await requireAnyApplication(tx, id);
  return view(ctx.box, await repo.setScreening(tx, id, s));
}


/**
 * What receiving money needs of an owner's onboarding (virtual accounts: KYB_INCOMPLETE and the
 * requirements endpoint): its latest approved application, the documents that application still
 * lacks, and whether its terms acceptance is at the current version. Other modules ask this rather
 * than reading the application tables.
 */
export interface OnboardingStanding {
  approved: boolean;
  /** Document types the owner still has to provide (on an approved application, or to get one approved). */
  missingDocuments: string[];
  /** Whether terms are accepted at `termsVersion` on the approved application. */
  termsAccepted: boolean;
  /** The document types on record with the approved application (what an issuer may verify against). */
  documentTypes: string[];
}

const DOCUMENTS_FOR_RECEIVING: Record<'business' | 'individual', readonly string[]> = {
  business: ['certificate_of_incorporation', 'photo_id'],
  individual: ['photo_id'],
};

export async function onboardingStanding(sql: Sql, owner: AccountScope, termsVersion: string): Promise<OnboardingStanding> {
  const approved = await repo.latestApproved(sql, owner.workspaceId, owner.subAccountId);
  if (!approved) return { approved: false, missingDocuments: [...DOCUMENTS_FOR_RECEIVING.business], termsAccepted: false, documentTypes: [] };
  const present = new Set<string>(approved.document_types);
  return {
    approved: true,
    missingDocuments: DOCUMENTS_FOR_RECEIVING[approved.application_type].filter((type) => !present.has(type)),
    termsAccepted: approved.terms_version === termsVersion,
    documentTypes: [...present],
  };
}
