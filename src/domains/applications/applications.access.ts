import type { Sql } from '../../platform/db/db.js';
import { conflict, notFound } from '../../platform/lib/errors.js';
import { isUuid } from '../../platform/lib/ids.js';
import * as repo from './applications.repository.js';
import type { ApplicationRow } from './applications.repository.js';
import type { Section } from './applications.transitions.js';
import type { AccountScope } from '../accounts/caller.js';

/** An application in the caller's scope (404 for another workspace's or sub-account's, or an unknown id). */
export async function requireApplication(sql: Sql, scope: AccountScope, id: string, options: { lock?: boolean } = {}): Promise<ApplicationRow> {
  const row = isUuid(id) ? await repo.findApplication(sql, scope, id, options) : undefined;
  if (!row) throw notFound('Application');
  return row;
}

/**
 * Whether `sections` may be written now: anything in draft; in more_info_requested only the sections
 * the reviewer reopened (409 APPLICATION_SECTION_LOCKED); nothing in under_review, approved or
 * rejected (409 APPLICATION_NOT_EDITABLE).
 */
export function assertEditable(row: ApplicationRow, sections: readonly Section[]): void {
  if (row.status === 'draft') return;
  if (row.status === 'more_info_requested') {
    const locked = sections.filter((s) => !row.editable_sections.includes(s));
    if (locked.length) {
      throw conflict(
        'APPLICATION_SECTION_LOCKED',
        `The application is more_info_requested: only ${row.editable_sections.join(', ')} may be edited; ${locked.join(', ')} may not`,
      );
    }
    return;
  }
  throw conflict('APPLICATION_NOT_EDITABLE', `The application is ${row.status} and cannot be edited`);
}
