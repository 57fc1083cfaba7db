import type { FastifyRequest } from 'fastify';
import type { AppContext } from '../../platform/context.js';
import { getWorkspace } from '../../domains/accounts/accounts.service.js';
import { callerWorkspace, type ActingAccount, type Caller } from '../../domains/accounts/caller.js';
import { ALL_SCOPES } from '../../domains/auth/scopes.js';
import type { WebSession } from '../../domains/users/sessions.service.js';
import { workspaceRoleMay, type WorkspaceRight, type WorkspaceRole } from '../../domains/users/rights.js';

export type DashboardUser = NonNullable<WebSession['user']> & { workspaceId: string };

/** The signed-in dashboard user (every member page has one; a dashboard session is always a workspace's user). */
export function dashboardUser(req: FastifyRequest): DashboardUser {
  const user = req.web.session?.user;
  if (!user || user.workspaceId === null) throw new Error('dashboard page without a signed-in workspace user');
  return user as DashboardUser;
}

/**
 * The account the pages act on, as an API call would: the workspace's master account, or the
 * sub-account the session chose on the Accounts page (as Service-Account-Id; the session reads it
 * only while the workspace still owns it).
 */
export function actingAccount(req: FastifyRequest): ActingAccount {
  const { workspaceId, role } = dashboardUser(req);
  const sub = req.web.session?.actingAccount?.id;
  return { workspaceId, subAccountId: sub, accountId: sub ?? workspaceId, role: role as WorkspaceRole };
}

/**
 * The caller the services expect (the same Caller http/auth builds), for a dashboard user acting on
 * their workspace's master account or the sub-account they chose. The user's role decides what they
 * may change (the services assert its rights, src/domains/users/rights.ts), so the scopes are every
 * scope; the client id names the user (what audit entries show). Capabilities are checked by the
 * services, as for an API call.
 */
export async function dashboardCaller(ctx: AppContext, req: FastifyRequest): Promise<Caller> {
  const user = dashboardUser(req);
  const workspace = await getWorkspace(ctx.db, user.workspaceId);
  const acting = actingAccount(req);
  return {
    workspaceId: workspace.id,
    clientId: `dashboard:${user.id}`,
    role: user.role as WorkspaceRole,
    scopes: [...ALL_SCOPES],
    accountId: acting.accountId,
    subAccountId: acting.subAccountId,
    workspace: callerWorkspace(workspace),
  };
}

/** A page any signed-in user of the workspace reads. */
export const memberPage = { schema: { hide: true }, config: { web: { area: 'dashboard' as const } } };
/** A change that needs a right (src/domains/users/rights.ts): a role without it is refused 403 ROLE_NOT_PERMITTED, here and in the service. */
export const rightPage = (right: WorkspaceRight) => ({ schema: { hide: true }, config: { web: { area: 'dashboard' as const, right } } });

/** Whether the signed-in user's role holds the right (their pages show the forms of what they may do). */
export function canChange(req: FastifyRequest, right: WorkspaceRight): boolean {
  return workspaceRoleMay(dashboardUser(req).role as WorkspaceRole, right);
}

export { refusalOf, type Refusal } from '../web/forms.js';
