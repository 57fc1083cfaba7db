import type { AppContext } from '../../platform/context.js';
import type { Sql, Tx } from '../../platform/db/db.js';
import { conflict, fieldError, notFound } from '../../platform/lib/errors.js';
import { newId } from '../../platform/lib/ids.js';
import type { Storage } from '../../platform/storage/storage.js';
import { findUpload, issueUpload, type IssuedUpload, type UploadContentType } from '../../platform/storage/uploads.service.js';
import { assertEditable, requireApplication } from './applications.access.js';
import * as repo from './applications.repository.js';
import type { ApplicationRow, DocumentRow } from './applications.repository.js';
import { APPLICATION_DOCUMENTS_MAX } from './applications.schemas.js';
import { PERSON_DOCUMENT_TYPES, type DocumentType } from './applications.transitions.js';
import type { AccountScope } from '../accounts/caller.js';

/** Documents of an application: upload URL, PUT (platform/storage), register, list, delete. */

export const DOCUMENT_UPLOAD_PURPOSE = 'application-documents';

export function documentView(row: DocumentRow) {
  return {
    id: row.id,
    applicationId: row.application_id,
    personId: row.person_id,
    type: row.type,
    documentKey: row.upload_key,
    contentType: row.content_type,
    sizeBytes: Number(row.size_bytes),
    createdAt: row.created_at.toISOString(),
  };
}
export type DocumentView = ReturnType<typeof documentView>;

export async function documentFacts(sql: Sql, applicationId: string): Promise<{ type: DocumentType; personId: string | null }[]> {
  return (await repo.documentsOf(sql, applicationId)).map((d) => ({ type: d.type, personId: d.person_id }));
}

/** A document belongs to its person's section when it names one, else to the company's documents. */
/**
 * The section a document is written in: a company document is the `documents` section; a person's
 * document belongs to both that person (`persons`) and the documents, so a reviewer who reopened
 * either (asking for a director's passport by reopening `documents`, say) gets it (issue 37).
 */
function assertDocumentEditable(app: ApplicationRow, personId: string | null): void {
  const reopened = app.status === 'more_info_requested' && personId && app.editable_sections.includes('documents');
  assertEditable(app, [reopened ? 'documents' : personId ? 'persons' : 'documents']);
}

function assertCanUpload(app: ApplicationRow): void {
  if (app.status === 'more_info_requested' && !app.editable_sections.some((s) => s === 'documents' || s === 'persons')) {
    throw conflict('APPLICATION_SECTION_LOCKED', 'The application is more_info_requested and neither documents nor persons may be edited');
  }
  if (app.status !== 'draft' && app.status !== 'more_info_requested') throw conflict('APPLICATION_NOT_EDITABLE', `The application is ${app.status} and cannot be edited`);
}

/** POST …/documents/upload-url: a single-use signed URL to PUT one file to (valid UPLOAD_URL_TTL_MS). */
export async function issueDocumentUpload(
  ctx: AppContext,
  tx: Tx,
  storage: Storage,
  scope: AccountScope,
  applicationId: string,
  body: { contentType: UploadContentType; contentLength: number },
): Promise<{ documentKey: string; uploadUrl: string; expiresAt: string }> {
  const app = await requireApplication(tx, scope, applicationId, { lock: true });
  assertCanUpload(app);
  const issued: IssuedUpload = await issueUpload(tx, storage, ctx.config, {
    workspaceId: app.workspace_id,
    purpose: DOCUMENT_UPLOAD_PURPOSE,
    ownerId: app.id,
    contentType: body.contentType,
    contentLength: body.contentLength,
  });
  return { documentKey: issued.key, uploadUrl: issued.uploadUrl, expiresAt: issued.expiresAt };
}

/** POST …/documents: registers an uploaded file as a document of the application (or of one of its persons). */
export async function registerDocument(
  tx: Tx,
  scope: AccountScope,
  applicationId: string,
  body: { documentKey: string; type: DocumentType; personId?: string | undefined },
): Promise<DocumentView> {
  const app = await requireApplication(tx, scope, applicationId, { lock: true });
  const personId = body.personId ?? null;
  assertDocumentEditable(app, personId);
  const upload = await findUpload(tx, app.workspace_id, body.documentKey);
  if (!upload || upload.purpose !== DOCUMENT_UPLOAD_PURPOSE || upload.owner_id !== app.id) {
    throw fieldError('documentKey', 'documentKey does not name an upload of this application (POST …/documents/upload-url)');
  }
  if (!upload.uploaded_at) throw conflict('DOCUMENT_NOT_UPLOADED', 'Nothing was uploaded to this documentKey yet: PUT the file to its uploadUrl first');
  if (await repo.documentKeyUsed(tx, upload.key)) throw conflict('DOCUMENT_KEY_USED', 'This documentKey is already registered as a document');
  if (personId) {
    if (app.application_type !== 'business' || !(await repo.personsOf(tx, app.id)).some((p) => p.id === personId)) {
      throw fieldError('personId', 'personId does not name a person of this application');
    }
    if (!PERSON_DOCUMENT_TYPES.includes(body.type)) throw fieldError('type', `a person's document is one of: ${PERSON_DOCUMENT_TYPES.join(', ')}`);
  }
  if ((await repo.documentsOf(tx, app.id)).length >= APPLICATION_DOCUMENTS_MAX) {
    throw conflict('APPLICATION_DOCUMENTS_MAX', `An application has at most ${APPLICATION_DOCUMENTS_MAX} documents`);
  }
  const row = await repo.insertDocument(tx, {
    id: newId(),
    applicationId: app.id,
    workspaceId: app.workspace_id,
    personId,
    type: body.type,
    uploadKey: upload.key,
    contentType: upload.content_type,
    sizeBytes: Number(upload.content_length),
  });
  await repo.touch(tx, app.id);
  return documentView(row);
}

export async function listDocuments(sql: Sql, scope: AccountScope, applicationId: string) {
  await requireApplication(sql, scope, applicationId);
  const rows = await repo.documentsOf(sql, applicationId);
  return { object: 'application_document.list' as const, data: rows.map(documentView), hasMore: false, nextCursor: null };
}

async function requireDocument(sql: Sql, applicationId: string, documentId: string): Promise<DocumentRow> {
  const row = (await repo.documentsOf(sql, applicationId)).find((d) => d.id === documentId);
  if (!row) throw notFound('Document');
  return row;
}

export async function getDocument(sql: Sql, scope: AccountScope, applicationId: string, documentId: string): Promise<DocumentView> {
  await requireApplication(sql, scope, applicationId);
  return documentView(await requireDocument(sql, applicationId, documentId));
}

/** Operator: a document's file as uploaded, with its type (the bytes come from storage). */
export async function readDocumentFile(sql: Sql, storage: Storage, scope: AccountScope, applicationId: string, documentId: string): Promise<{ document: DocumentView; bytes: Buffer }> {
  await requireApplication(sql, scope, applicationId);
  const row = await requireDocument(sql, applicationId, documentId);
  const upload = await findUpload(sql, scope.workspaceId, row.upload_key);
  const bytes = upload && (await storage.get(upload.storage_key));
  if (!bytes) throw notFound('Document file');
  return { document: documentView(row), bytes };
}

/** DELETE …/documents/{documentId}: the document leaves the application (the stored file is kept with its record). */
export async function deleteDocument(tx: Tx, scope: AccountScope, applicationId: string, documentId: string): Promise<void> {
  const app = await requireApplication(tx, scope, applicationId, { lock: true });
  const doc = await requireDocument(tx, applicationId, documentId);
  assertDocumentEditable(app, doc.person_id);
  await repo.deleteDocument(tx, applicationId, documentId);
  await repo.touch(tx, applicationId);
}
