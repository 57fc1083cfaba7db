import { forbidden } from '../../platform/lib/errors.js';

/**
 * Who may do what: the one table of roles and rights, for a workspace's users (the dashboard) and
 * the operator's users (the console). The services assert a right before they change anything (a
 * page only hides what a role may not do); an API credential's rights are its scopes, checked where
 * it authenticates, so a caller without a role passes here.
 */
export const WORKSPACE_ROLES = ['admin', 'finance', 'approver', 'developer', 'viewer'] as const;
export type WorkspaceRole = (typeof WORKSPACE_ROLES)[number];

export const OPERATOR_ROLES = ['administrator', 'compliance', 'finance', 'support'] as const;
export type OperatorRole = (typeof OPERATOR_ROLES)[number];

/** What a workspace user may change, and which roles may (a viewer reads only; every role reads everything). */
export const WORKSPACE_RIGHTS = {
  /** Create, import and cancel payouts; FX quotes and orders. */
  pay: ['admin', 'finance'],
  /** Approve or reject a payout held for approval. */
  approve: ['admin', 'finance', 'approver'],
  /** Add and change beneficiaries. */
  beneficiaries: ['admin', 'finance'],
  /** Receiving accounts (virtual accounts). */
  receive: ['admin', 'finance'],
  /** API credentials: create, rotate, revoke, scopes. */
  credentials: ['admin', 'developer'],
  /** Webhook endpoints: create, change, test, delete. */
  webhooks: ['admin', 'developer'],
  /** The sandbox tools (simulated outcomes and deposits). */
  sandbox: ['admin', 'developer'],
  /** The workspace itself: onboarding, approval rules, and its users. */
  workspace: ['admin'],
} as const satisfies Record<string, readonly WorkspaceRole[]>;
export type WorkspaceRight = keyof typeof WORKSPACE_RIGHTS;

/** What an operator user may change, and which roles may (support reads only). */
export const OPERATOR_RIGHTS = {
  /** Workspaces: create, currencies, capabilities, settings, their credentials and dashboard users; the operator's own users. */
  workspaces: ['administrator'],
  /** Screening decisions (payouts, orders, applications) and the screening settings. */
  screening: ['administrator', 'compliance'],
  /** Onboarding applications: approve, reject, ask for more information. */
  applications: ['administrator', 'compliance'],
  /** Balance adjustments and deposits recorded by hand. */
  credits: ['administrator', 'finance'],
  /** Reconciliation: match, ignore, resolve. */
  reconciliation: ['administrator', 'finance'],
  /** The rails: the bank and manual queues, the chain (re-sign, cancel, resume, deposits), the FX desk. */
  rails: ['administrator', 'finance'],
} as const satisfies Record<string, readonly OperatorRole[]>;
export type OperatorRight = keyof typeof OPERATOR_RIGHTS;

/** A right in words (a refusal says what was refused; the Users pages list them). */
export const RIGHT_WORDS: Record<WorkspaceRight | OperatorRight, string> = {
  pay: 'send or cancel payouts',
  approve: 'approve or reject payouts',
  beneficiaries: 'change beneficiaries',
  receive: 'change receiving accounts',
  credentials: 'manage API credentials',
  webhooks: 'manage webhook endpoints',
  sandbox: 'use the sandbox tools',
  workspace: "change the workspace's settings and users",
  workspaces: 'manage workspaces and users',
  screening: 'decide on screening matches',
  applications: 'review applications',
  credits: 'credit or adjust balances',
  reconciliation: 'reconcile statements',
  rails: 'act on the bank, chain and desk queues',
};

export const isWorkspaceRole = (value: unknown): value is WorkspaceRole => (WORKSPACE_ROLES as readonly unknown[]).includes(value);
export const isOperatorRole = (value: unknown): value is OperatorRole => (OPERATOR_ROLES as readonly unknown[]).includes(value);

/** The roles that hold a right. */
export function rolesWith(right: WorkspaceRight): readonly WorkspaceRole[];
export function rolesWith(right: OperatorRight): readonly OperatorRole[];
export function rolesWith(right: WorkspaceRight | OperatorRight): readonly string[] {
  return right in WORKSPACE_RIGHTS ? WORKSPACE_RIGHTS[right as WorkspaceRight] : OPERATOR_RIGHTS[right as OperatorRight];
}

/** Whether a workspace role holds a right (undefined: an API credential, whose scopes decide). */
export function workspaceRoleMay(role: WorkspaceRole | undefined, right: WorkspaceRight): boolean {
  return role === undefined || (WORKSPACE_RIGHTS[right] as readonly WorkspaceRole[]).includes(role);
}

/** Whether an operator role holds a right (undefined: the operator key, which holds every right). */
export function operatorRoleMay(role: OperatorRole | undefined, right: OperatorRight): boolean {
  return role === undefined || (OPERATOR_RIGHTS[right] as readonly OperatorRole[]).includes(role);
}

function refusal(role: string, right: WorkspaceRight | OperatorRight) {
  const holders = rolesWith(right as WorkspaceRight) as readonly string[];
  return forbidden('ROLE_NOT_PERMITTED', `Your role (${role}) may not ${RIGHT_WORDS[right]}: ask a user with the role ${holders.join(' or ')}`);
}

/** Refuses (403 ROLE_NOT_PERMITTED) a workspace user whose role lacks the right; a caller without a role (an API credential) passes. */
export function assertWorkspaceRight(caller: { role?: WorkspaceRole | undefined }, right: WorkspaceRight): void {
  if (!workspaceRoleMay(caller.role, right)) throw refusal(caller.role as string, right);
}

/** A workspace acted on, with the role of the dashboard user who acts (none for an API credential or the operator). */
export interface WorkspaceActor {
  workspaceId: string;
  role?: WorkspaceRole | undefined;
}

/** Who acts for the operator: an operator user with their role, or (role undefined) the operator key. */
export interface OperatorActor {
  /** `user:<id>` or `key:<id>`, as decisions and the audit record it. */
  name: string;
  role: OperatorRole | undefined;
}

/** The operator key (the operator API, a console opened with the key): every right. */
export const OPERATOR_KEY_ROLE: Pick<OperatorActor, 'role'> = { role: undefined };

/** Refuses (403 ROLE_NOT_PERMITTED) an operator user whose role lacks the right; the operator key holds every right. */
export function assertOperatorRight(actor: Pick<OperatorActor, 'role'>, right: OperatorRight): void {
  if (!operatorRoleMay(actor.role, right)) throw refusal(actor.role as string, right);
}

/** A role in words, for the Users pages and the API's descriptions. */
export const ROLE_WORDS: Record<`workspace:${WorkspaceRole}` | `operator:${OperatorRole}`, string> = {
  'workspace:admin': 'Admin: everything, users and settings too',
  'workspace:finance': 'Finance: pays, approves, beneficiaries, receiving accounts',
  'workspace:approver': 'Approver: approves or rejects held payouts only',
  'workspace:developer': 'Developer: API credentials, webhooks, sandbox tools; no money',
  'workspace:viewer': 'Viewer: reads only',
  'operator:administrator': 'Administrator: everything, workspaces and operators too',
  'operator:compliance': 'Compliance: screening and applications',
  'operator:finance': 'Finance: credits, reconciliation, bank, chain and desk',
  'operator:support': 'Support: reads only',
};
