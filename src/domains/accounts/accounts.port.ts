/*
 * The accounts module's port for connectors: a workspace's settings as parsed terms (a rail reads the
 * options the operator set for the workspace, such as ACH prenotes).
 */
import type { Sql } from '../../platform/db/db.js';
import { findWorkspace } from './workspaces.repository.js';
import { parseWorkspaceTerms, type WorkspaceTerms } from './workspace-terms.js';

/** The workspace's terms; undefined when there is no such workspace. */
export async function workspaceTermsOf(sql: Sql, workspaceId: string): Promise<WorkspaceTerms | undefined> {
  const row = await findWorkspace(sql, workspaceId);
  return row ? parseWorkspaceTerms(row.settings) : undefined;
}
