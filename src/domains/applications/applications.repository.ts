import type { Sql } from '../../platform/db/db.js';
import { maybeOne, one } from '../../platform/db/db.js';
import { listFilters, paginate, type PageRequest, type PageResult } from '../../platform/db/pagination.js';
import type { ApplicationStatus, ApplicationType, DocumentType, RiskLevel, ScreeningStatus, Section } from './applications.transitions.js';
import type { AccountScope } from '../accounts/caller.js';

/** All SQL of the applications module. `data` columns hold sealed JSON (lib/crypto-box). */

export interface ApplicationRow {
  id: string;
  workspace_id: string;
  account_id: string | null;
  application_type: ApplicationType;
  status: ApplicationStatus;
  data: string;
  editable_sections: Section[];
  more_info_reason: string | null;
  risk_level: RiskLevel | null;
  screening_status: ScreeningStatus;
  terms_version: string | null;
  terms_accepted_at: Date | null;
  submitted_at: Date | null;
  decided_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

export interface PersonRow {
  id: string;
  application_id: string;
  data: string;
  created_at: Date;
  updated_at: Date;
}

export interface DocumentRow {
  id: string;
  application_id: string;
  person_id: string | null;
  type: DocumentType;
  upload_key: string;
  content_type: string;
  size_bytes: string;
  created_at: Date;
}

const COLUMNS = `id, workspace_id, account_id, application_type, status, data, editable_sections, more_info_reason, risk_level,
  screening_status, terms_version, terms_accepted_at, submitted_at, decided_at, created_at, updated_at`;
const PERSON_COLUMNS = 'id, application_id, data, created_at, updated_at';
const DOCUMENT_COLUMNS = 'id, application_id, person_id, type, upload_key, content_type, size_bytes::text AS size_bytes, created_at';
const SCOPE = '(workspace_id = $1 AND ($2::uuid IS NULL OR account_id = $2::uuid))';

export async function insertApplication(sql: Sql, a: { id: string; scope: AccountScope; type: ApplicationType; data: string }): Promise<ApplicationRow> {
  return one<ApplicationRow>(
    sql,
    `INSERT INTO applications (id, workspace_id, account_id, application_type, data) VALUES ($1, $2, $3, $4, $5) RETURNING ${COLUMNS}`,
    [a.id, a.scope.workspaceId, a.scope.subAccountId ?? null, a.type, a.data],
  );
}

/** One application in the caller's scope; with `lock`, held until the transaction ends (every write takes it first). */
export async function findApplication(sql: Sql, scope: AccountScope, id: string, options: { lock?: boolean } = {}): Promise<ApplicationRow | undefined> {
  return maybeOne<ApplicationRow>(sql, `SELECT ${COLUMNS} FROM applications WHERE ${SCOPE} AND id = $3${options.lock ? ' FOR UPDATE' : ''}`, [
    scope.workspaceId,
    scope.subAccountId ?? null,
    id,
  ]);
}

/** Any workspace's application (operator API), locked. */
export async function findApplicationById(sql: Sql, id: string): Promise<ApplicationRow | undefined> {
  return maybeOne<ApplicationRow>(sql, `SELECT ${COLUMNS} FROM applications WHERE id = $1 FOR UPDATE`, [id]);
}

export async function updateData(sql: Sql, id: string, data: string): Promise<ApplicationRow> {
  return one<ApplicationRow>(sql, `UPDATE applications SET data = $2, updated_at = now() WHERE id = $1 RETURNING ${COLUMNS}`, [id, data]);
}

export async function touch(sql: Sql, id: string): Promise<void> {
  await sql.query('UPDATE applications SET updated_at = now() WHERE id = $1', [id]);
}

export async function setTerms(sql: Sql, id: string, version: string): Promise<ApplicationRow> {
  return one<ApplicationRow>(
    sql,
    `UPDATE applications SET terms_version = $2, terms_accepted_at = now(), updated_at = now() WHERE id = $1 RETURNING ${COLUMNS}`,
    [id, version],
  );
}

export async function setScreening(sql: Sql, id: string, s: { screeningStatus?: ScreeningStatus | undefined; riskLevel?: RiskLevel | undefined }): Promise<ApplicationRow> {
  return one<ApplicationRow>(
    sql,
    `UPDATE applications SET screening_status = COALESCE($2, screening_status), risk_level = COALESCE($3, risk_level), updated_at = now()
      WHERE id = $1 RETURNING ${COLUMNS}`,
    [id, s.screeningStatus ?? null, s.riskLevel ?? null],
  );
}

/**
 * Compare-and-set move: from `from` to `to` only if the row is still in `from`. Entering
 * more_info_requested sets the reason and the editable sections; any other move clears them.
 */
export async function moveStatus(
  sql: Sql,
  m: { id: string; from: ApplicationStatus; to: ApplicationStatus; moreInfoReason: string | null; editableSections: readonly Section[] },
): Promise<ApplicationRow | undefined> {
  return maybeOne<ApplicationRow>(
    sql,
    `UPDATE applications
        SET status = $3, more_info_reason = $4, editable_sections = $5::text[], updated_at = now(),
            submitted_at = CASE WHEN $3 = 'under_review' THEN now() ELSE submitted_at END,
            decided_at = CASE WHEN $3 IN ('approved', 'rejected', 'more_info_requested') THEN now() ELSE decided_at END
      WHERE id = $1 AND status = $2 RETURNING ${COLUMNS}`,
    [m.id, m.from, m.to, m.moreInfoReason, m.editableSections],
  );
}

export async function pageApplications(
  sql: Sql,
  scope: AccountScope | undefined,
  page: PageRequest,
  filter: { status?: ApplicationStatus | undefined; workspaceId?: string | undefined },
): Promise<PageResult<ApplicationRow>> {
  const { where, params, add } = listFilters();
  const workspaceId = scope ? scope.workspaceId : filter.workspaceId;
  if (workspaceId) add('workspace_id = ?', workspaceId);
  if (scope?.subAccountId) add('account_id = ?::uuid', scope.subAccountId);
  if (filter.status) add('status = ?', filter.status);
  return paginate(sql, page, { object: 'application.list', from: `SELECT ${COLUMNS} FROM applications`, where, params, map: (row: ApplicationRow) => row });
}

// ---------------------------------------------------------------------------------------------
// Persons

export async function insertPerson(sql: Sql, p: { id: string; applicationId: string; workspaceId: string; data: string }): Promise<PersonRow> {
  return one<PersonRow>(
    sql,
    `INSERT INTO application_persons (id, application_id, workspace_id, data) VALUES ($1, $2, $3, $4) RETURNING ${PERSON_COLUMNS}`,
    [p.id, p.applicationId, p.workspaceId, p.data],
  );
}

/** The persons of an application in the order they were added (bounded by APPLICATION_PERSONS_MAX). */
export async function personsOf(sql: Sql, applicationId: string): Promise<PersonRow[]> {
  return sql.query<PersonRow>(`SELECT ${PERSON_COLUMNS} FROM application_persons WHERE application_id = $1 ORDER BY seq`, [applicationId]);
}

export async function updatePerson(sql: Sql, id: string, data: string): Promise<PersonRow> {
  return one<PersonRow>(sql, `UPDATE application_persons SET data = $2, updated_at = now() WHERE id = $1 RETURNING ${PERSON_COLUMNS}`, [id, data]);
}

export async function deletePerson(sql: Sql, id: string): Promise<void> {
  await sql.query('UPDATE application_documents SET deleted_at = now() WHERE person_id = $1 AND deleted_at IS NULL', [id]);
  await sql.query('DELETE FROM application_persons WHERE id = $1', [id]);
}

// ---------------------------------------------------------------------------------------------
// Documents

export async function insertDocument(
  sql: Sql,
  d: { id: string; applicationId: string; workspaceId: string; personId: string | null; type: DocumentType; uploadKey: string; contentType: string; sizeBytes: number },
): Promise<DocumentRow> {
  return one<DocumentRow>(
    sql,
    `INSERT INTO application_documents (id, application_id, workspace_id, person_id, type, upload_key, content_type, size_bytes)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING ${DOCUMENT_COLUMNS}`,
    [d.id, d.applicationId, d.workspaceId, d.personId, d.type, d.uploadKey, d.contentType, d.sizeBytes],
  );
}

/** The live documents of an application, oldest first (bounded by APPLICATION_DOCUMENTS_MAX). */
export async function documentsOf(sql: Sql, applicationId: string): Promise<DocumentRow[]> {
  return sql.query<DocumentRow>(
    `SELECT ${DOCUMENT_COLUMNS} FROM application_documents WHERE application_id = $1 AND deleted_at IS NULL ORDER BY seq`,
    [applicationId],
  );
}

/** Whether an upload key was ever registered as a document (deleted ones included: a key names one file). */
export async function documentKeyUsed(sql: Sql, uploadKey: string): Promise<boolean> {
  return (await sql.query('SELECT 1 FROM application_documents WHERE upload_key = $1', [uploadKey])).length > 0;
}

export async function deleteDocument(sql: Sql, applicationId: string, id: string): Promise<boolean> {
  const rows = await sql.query('UPDATE application_documents SET deleted_at = now() WHERE application_id = $1 AND id = $2 AND deleted_at IS NULL RETURNING 1', [
    applicationId,
    id,
  ]);
  return rows.length === 1;
}

/** The owner's latest approved application (its own: a master account's excludes its sub-accounts'), with its live document types. */
export async function latestApproved(
  sql: Sql,
  workspaceId: string,
  subAccountId: string | undefined,
): Promise<{ id: string; application_type: ApplicationType; terms_version: string | null; document_types: DocumentType[] } | undefined> {
  return maybeOne(
    sql,
    `SELECT a.id, a.application_type, a.terms_version,
            COALESCE((SELECT array_agg(DISTINCT d.type ORDER BY d.type) FROM application_documents d
                       WHERE d.application_id = a.id AND d.deleted_at IS NULL), '{}'::text[]) AS document_types
       FROM applications a
      WHERE a.workspace_id = $1 AND a.account_id IS NOT DISTINCT FROM $2::uuid AND a.status = 'approved'
      ORDER BY a.decided_at DESC NULLS LAST, a.created_at DESC, a.id DESC
      LIMIT 1`,
    [workspaceId, subAccountId ?? null],
  );
}
