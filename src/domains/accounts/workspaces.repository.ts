import type { Sql } from '../../platform/db/db.js';
import { maybeOne, one } from '../../platform/db/db.js';
import { paginate, type PageRequest } from '../../platform/db/pagination.js';

/** All SQL of the workspaces table (the accounts module owns it; other modules go through accounts.service). */

const WORKSPACE_COLUMNS = 'id, name, country, status, enabled_currencies, disabled_capabilities, settings, created_at, updated_at';

export interface WorkspaceRow {
  id: string;
  name: string;
  country: string;
  status: string;
  enabled_currencies: string[];
  disabled_capabilities: string[];
  settings: Record<string, unknown>;
  created_at: Date;
  updated_at: Date;
}

export async function insertWorkspace(
  sql: Sql,
  w: { id: string; name: string; country: string; currencies: readonly string[]; settings: Record<string, unknown> },
): Promise<WorkspaceRow> {
  return one<WorkspaceRow>(
    sql,
    `INSERT INTO workspaces (id, name, country, enabled_currencies, settings) VALUES ($1, $2, $3, $4, $5)
     RETURNING ${WORKSPACE_COLUMNS}`,
    [w.id, w.name, w.country, w.currencies, JSON.stringify(w.settings)],
  );
}

export async function findWorkspace(sql: Sql, id: string): Promise<WorkspaceRow | undefined> {
  return maybeOne<WorkspaceRow>(sql, `SELECT ${WORKSPACE_COLUMNS} FROM workspaces WHERE id = $1`, [id]);
}

export interface WorkspaceChange {
  currencies?: string[];
  disabledCapabilities?: string[];
  settings?: Record<string, unknown>;
}

export async function updateWorkspace(sql: Sql, id: string, change: WorkspaceChange): Promise<WorkspaceRow | undefined> {
  return maybeOne<WorkspaceRow>(
    sql,
    `UPDATE workspaces SET enabled_currencies = COALESCE($2, enabled_currencies),
            disabled_capabilities = COALESCE($3, disabled_capabilities),
            settings = settings || COALESCE($4::jsonb, '{}'::jsonb), updated_at = now()
      WHERE id = $1 RETURNING ${WORKSPACE_COLUMNS}`,
    [id, change.currencies ?? null, change.disabledCapabilities ?? null, change.settings ? JSON.stringify(change.settings) : null],
  );
}

/** Locks the workspace row for a read-modify-write of its arrays. */
export async function lockWorkspace(sql: Sql, id: string): Promise<WorkspaceRow | undefined> {
  return maybeOne<WorkspaceRow>(sql, `SELECT ${WORKSPACE_COLUMNS} FROM workspaces WHERE id = $1 FOR UPDATE`, [id]);
}

/** Every workspace, newest first. */
export function listWorkspaces<Item>(sql: Sql, page: PageRequest, map: (row: WorkspaceRow) => Item) {
  return paginate(sql, page, { object: 'workspace.list', from: `SELECT ${WORKSPACE_COLUMNS} FROM workspaces`, where: [], params: [], map });
}
