import { forbidden, type DomainError } from '../../platform/lib/errors.js';
import type { Capability } from '../auth/scopes.js';
import type { WorkspaceRole } from '../users/rights.js';
import type { WorkspaceRow } from './workspaces.repository.js';
import { parseWorkspaceTerms, type WorkspaceTerms } from './workspace-terms.js';

/**
 * Who calls and which account the call acts on: built by http/auth from a workspace credential
 * (req.auth) and by the dashboard for a signed-in user (dashboardCaller). Services take it, or the
 * part of it they need (AccountScope, ActingAccount, or another Pick).
 */
export interface Caller {
  workspaceId: string;
  /** The account acted on: the `Service-Account-Id` sub-account, or the workspace's master account. */
  accountId: string;
  /** The `Service-Account-Id` header when present (an owned sub-account). */
  subAccountId: string | undefined;
  /** The credential's client id, or `dashboard:<user id>` (what audit entries show). */
  clientId: string;
  /** The OAuth scopes the caller holds. */
  scopes: string[];
  /** A dashboard user's role, whose rights the services assert (rights.ts); absent for an API credential (its scopes decide). */
  role?: WorkspaceRole | undefined;
  /** The workspace's configuration as read for this call. */
  workspace: CallerWorkspace;
  /** When the bearer token expires, ms since the epoch (absent for a dashboard session). */
  tokenExpiresAtMs?: number | undefined;
}

export interface CallerWorkspace {
  terms: WorkspaceTerms;
  enabledCurrencies: string[];
  disabledCapabilities: string[];
}

/** What rows are scoped to: the workspace, and the sub-account when one is acted on (only its rows are visible, and it owns new ones). */
export type AccountScope = Pick<Caller, 'workspaceId' | 'subAccountId' | 'role'>;

/** The account a call acts on, with its workspace and sub-account. */
export type ActingAccount = Pick<Caller, 'workspaceId' | 'subAccountId' | 'accountId' | 'role'>;

/** The caller's view of a stored workspace: its settings parsed into terms. */
export function callerWorkspace(row: Pick<WorkspaceRow, 'settings' | 'enabled_currencies' | 'disabled_capabilities'>): CallerWorkspace {
  return { terms: parseWorkspaceTerms(row.settings), enabledCurrencies: row.enabled_currencies, disabledCapabilities: row.disabled_capabilities };
}

/** The refusal of a change through a capability the operator disabled for the workspace (403 CAPABILITY_DISABLED), or undefined. */
export function capabilityRefusal(workspace: Pick<CallerWorkspace, 'disabledCapabilities'>, capability: Capability): DomainError | undefined {
  if (!workspace.disabledCapabilities.includes(capability)) return undefined;
  return forbidden('CAPABILITY_DISABLED', `The ${capability} capability is not enabled for this workspace`);
}

/** A change through a capability the operator disabled for the workspace is refused (403 CAPABILITY_DISABLED). */
export function assertCapability(workspace: Pick<CallerWorkspace, 'disabledCapabilities'>, capability: Capability): void {
  const refusal = capabilityRefusal(workspace, capability);
  if (refusal) throw refusal;
}
