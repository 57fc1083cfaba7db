import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toAppError } from '../../src/platform/http/errors.js';
import { OPERATOR_RIGHTS, WORKSPACE_RIGHTS, type OperatorRole, type WorkspaceRole } from '../../src/domains/users/rights.js';
import { PayoutService } from '../../src/domains/payouts/payouts.service.js';
import { cancelOwnPayout } from '../../src/domains/payouts/payouts.lifecycle.js';
import { decidePayout, createRule } from '../../src/controls/approvals/approvals.service.js';
import { createBeneficiary } from '../../src/domains/beneficiaries/beneficiaries.service.js';
import { requestVirtualAccount } from '../../src/domains/virtual-accounts/virtual-accounts.service.js';
import { issueCredential } from '../../src/domains/auth/credentials.service.js';
import { createEndpoint } from '../../src/domains/webhooks/webhooks.service.js';
import { inviteUser, invitationOptions } from '../../src/domains/users/users.service.js';
import { releaseHold } from '../../src/controls/screening/screening.holds.js';
import { reviewAnyApplication, setScreening } from '../../src/domains/applications/applications.service.js';
import { adjustBalance, openWorkspace } from '../../src/controls/operator/operator.service.js';
import { matchLine } from '../../src/controls/reconciliation/reconciliation.service.js';
import { decideChainDeposit } from '../../src/connectors/chain/chain.service.js';
import { getWorkspace } from '../../src/domains/accounts/accounts.service.js';
import { callerWorkspace, type Caller } from '../../src/domains/accounts/caller.js';
import { ALL_SCOPES } from '../../src/domains/auth/scopes.js';
import { createTestApp, newWorkspace, operator, type TestApp } from '../helpers/app.js';
import { dashboardUser, WebClient } from '../helpers/web-client.js';

const PASSWORD = 'a long enough passphrase';

let t: TestApp;
let workspaceId: string;

beforeAll(async () => {
  t = await createTestApp({ env: { SIGN_IN_FAILURES_PER_15_MIN: '100' } });
  workspaceId = (await newWorkspace(t.app)).workspaceId;
}, 180_000);
afterAll(async () => t?.close());

/** What the caller of a service sees: the spec's envelope fields (a refused role: 403 ROLE_NOT_PERMITTED), or undefined when it succeeded. */
async function callerAs(role: WorkspaceRole): Promise<Caller> {
  const workspace = await getWorkspace(t.ctx.db, workspaceId);
  return { workspaceId, accountId: workspaceId, subAccountId: undefined, clientId: `dashboard:${randomUUID()}`, scopes: [...ALL_SCOPES], role, workspace: callerWorkspace(workspace) };
}

const where = { path: '/dashboard/test', requestId: 'req-roles' };

describe('the rights table', () => {
  it('gives each workspace role the rights the issue names, and a viewer none', () => {
    const rightsOf = (role: WorkspaceRole) => Object.entries(WORKSPACE_RIGHTS).filter(([, roles]) => (roles as readonly string[]).includes(role)).map(([r]) => r).sort();
    expect(rightsOf('admin')).toEqual(Object.keys(WORKSPACE_RIGHTS).sort());
    expect(rightsOf('finance')).toEqual(['approve', 'beneficiaries', 'pay', 'receive']);
    expect(rightsOf('approver')).toEqual(['approve']);
    expect(rightsOf('developer')).toEqual(['credentials', 'sandbox', 'webhooks']);
    expect(rightsOf('viewer')).toEqual([]);
  });

  it('gives each operator role the rights the issue names, and support none', () => {
    const rightsOf = (role: OperatorRole) => Object.entries(OPERATOR_RIGHTS).filter(([, roles]) => (roles as readonly string[]).includes(role)).map(([r]) => r).sort();
    expect(rightsOf('administrator')).toEqual(Object.keys(OPERATOR_RIGHTS).sort());
    expect(rightsOf('compliance')).toEqual(['applications', 'screening']);
    expect(rightsOf('finance')).toEqual(['credits', 'rails', 'reconciliation']);
    expect(rightsOf('support')).toEqual([]);
  });
});

/**
 * Each workspace right, asserted by the service itself (no page, no route): the refused role gets
 * 403 ROLE_NOT_PERMITTED before anything is read; the allowed role gets past the check to the
 * service's own answer (here, mostly: the object named does not exist).
 */
describe('workspace rights in the services', () => {
  const unknown = () => randomUUID();
  const cases: { right: string; allowed: WorkspaceRole; refused: WorkspaceRole; call: (c: Caller) => (tx: never) => Promise<unknown> }[] = [
    { right: 'pay (create)', allowed: 'finance', refused: 'approver', call: (c) => () => new PayoutService(t.ctx).check(c, { amount: 'x' } as never) },
    { right: 'pay (cancel)', allowed: 'finance', refused: 'developer', call: (c) => (tx) => cancelOwnPayout(t.ctx, tx, c, unknown()) },
    { right: 'approve', allowed: 'approver', refused: 'developer', call: (c) => (tx) => decidePayout(t.ctx, tx, c, unknown(), 'approve', undefined, where) },
    { right: 'beneficiaries', allowed: 'finance', refused: 'approver', call: (c) => (tx) => createBeneficiary(tx, t.ctx.box, c, {} as never) },
    { right: 'receive', allowed: 'finance', refused: 'developer', call: (c) => (tx) => requestVirtualAccount(t.ctx, tx, c, 'XXX') },
    { right: 'credentials', allowed: 'developer', refused: 'finance', call: (c) => (tx) => issueCredential(tx, t.ctx.box, c, { scopes: ['launch:rockets'] }) },
    { right: 'webhooks', allowed: 'developer', refused: 'finance', call: (c) => (tx) => createEndpoint(tx, t.ctx.box, { allowPrivateNetworks: false, urlLengthMax: 2048, endpointsMax: 20 }, c, { url: 'not a url' }) },
    { right: 'workspace (approval rules)', allowed: 'admin', refused: 'finance', call: (c) => (tx) => createRule(tx, c, { type: 'nonsense' } as never, where) },
    {
      right: 'workspace (users)',
      allowed: 'admin',
      refused: 'developer',
      call: (c) => (tx) => inviteUser(tx, t.ctx.box, invitationOptions(t.config), workspaceId, { email: 'not an email', role: 'viewer' }, { seesEveryOwner: false, manager: { workspaceRole: c.role as WorkspaceRole } }),
    },
  ];
  for (const c of cases) {
    it(`${c.right}: ${c.allowed} passes the check, ${c.refused} is refused 403 ROLE_NOT_PERMITTED`, async () => {
      const refused = await serviceAnswer(await callerAs(c.refused), c.call);
      expect(refused).toMatchObject({ status: 403, code: 'ROLE_NOT_PERMITTED' });
      expect(refused?.message).toContain(`Your role (${c.refused}) may not`);
      const allowed = await serviceAnswer(await callerAs(c.allowed), c.call);
      expect(allowed?.code).not.toBe('ROLE_NOT_PERMITTED');
    });
  }

  it('lets an API credential (no role) through: its scopes decide, where it authenticates', async () => {
    const caller = { ...(await callerAs('viewer')), role: undefined };
    const answer = await serviceAnswer(caller, (c) => (tx) => cancelOwnPayout(t.ctx, tx, c, randomUUID()));
    expect(answer).toMatchObject({ status: 404 });
  });
});

async function serviceAnswer<C>(caller: C, call: (c: C) => (tx: never) => Promise<unknown>) {
  try {
    await t.ctx.db.tx((tx) => call(caller)(tx as never));
    return undefined;
  } catch (err) {
    const e = toAppError(err, t.config.limits);
    return { status: e.status, code: e.code, message: e.message };
  }
}

describe('operator rights in the services', () => {
  const unknown = () => randomUUID();
  const cases: { right: string; allowed: OperatorRole; refused: OperatorRole; call: (role: OperatorRole) => (tx: never) => Promise<unknown> }[] = [
    { right: 'workspaces', allowed: 'administrator', refused: 'compliance', call: (role) => (tx) => openWorkspace(tx, { name: '', country: '' }, { role }) },
    { right: 'screening', allowed: 'compliance', refused: 'finance', call: (role) => (tx) => releaseHold(t.ctx, tx, unknown(), { name: 'user:x', role }) },
    { right: 'screening (applications)', allowed: 'compliance', refused: 'support', call: (role) => (tx) => setScreening(t.ctx, tx, unknown(), {}, { role }) },
    { right: 'applications', allowed: 'compliance', refused: 'finance', call: (role) => (tx) => reviewAnyApplication(t.ctx, tx, unknown(), { decision: 'approve' } as never, { role }) },
    { right: 'credits', allowed: 'finance', refused: 'compliance', call: (role) => (tx) => adjustBalance(tx, unknown(), { currency: 'XXX', amount: '1', reason: 'x' }, 'req', { role }) },
    { right: 'reconciliation', allowed: 'finance', refused: 'support', call: (role) => (tx) => matchLine(tx, unknown(), unknown(), { name: 'user:x', role }) },
    { right: 'rails', allowed: 'finance', refused: 'compliance', call: (role) => (tx) => decideChainDeposit(t.ctx, tx, unknown(), 'release', { name: 'user:x', role }) },
  ];
  for (const c of cases) {
    it(`${c.right}: ${c.allowed} passes the check, ${c.refused} is refused 403 ROLE_NOT_PERMITTED`, async () => {
      const refused = await serviceAnswer(c.refused, c.call);
      expect(refused).toMatchObject({ status: 403, code: 'ROLE_NOT_PERMITTED' });
      expect(refused?.message).toContain(`Your role (${c.refused}) may not`);
      const allowed = await serviceAnswer(c.allowed, c.call);
      expect(allowed?.code).not.toBe('ROLE_NOT_PERMITTED');
    });
  }
});

describe('roles through the operator API', () => {
  it('invites a workspace user with each new role and changes it; an unknown role is 400 on role', async () => {
    for (const role of ['finance', 'approver', 'developer'] as const) {
      const res = await operator(t.app, 'POST', `/operator/v1/workspaces/${workspaceId}/users`, { email: `${role}-api@roles.example`, role });
      expect(res.statusCode, res.body).toBe(201);
      expect(res.json()).toMatchObject({ user: { role } });
    }
    const invited = await operator(t.app, 'POST', `/operator/v1/workspaces/${workspaceId}/users`, { email: 'changes@roles.example', role: 'viewer' });
    const id = invited.json<{ user: { id: string } }>().user.id;
    const changed = await operator(t.app, 'PATCH', `/operator/v1/workspaces/${workspaceId}/users/${id}`, { role: 'approver' });
    expect(changed.statusCode, changed.body).toBe(200);
    expect(changed.json()).toMatchObject({ role: 'approver' });
    const operatorRole = await operator(t.app, 'PATCH', `/operator/v1/workspaces/${workspaceId}/users/${id}`, { role: 'compliance' });
    expect(operatorRole.statusCode).toBe(400);
    expect(operatorRole.json()).toMatchObject({ param: 'role' });
  });

  it('invites operator users as administrator by default or with a role, and changes the role', async () => {
    const plain = await operator(t.app, 'POST', '/operator/v1/operators', { email: 'default-op@roles.example' });
    expect(plain.statusCode, plain.body).toBe(201);
    expect(plain.json()).toMatchObject({ user: { role: 'administrator' } });
    const support = await operator(t.app, 'POST', '/operator/v1/operators', { email: 'support-op@roles.example', role: 'support' });
    expect(support.json()).toMatchObject({ user: { role: 'support' } });
    const id = support.json<{ user: { id: string } }>().user.id;
    const changed = await operator(t.app, 'PATCH', `/operator/v1/operators/${id}`, { role: 'compliance' });
    expect(changed.statusCode, changed.body).toBe(200);
    expect(changed.json()).toMatchObject({ role: 'compliance' });
    const workspaceRole = await operator(t.app, 'PATCH', `/operator/v1/operators/${id}`, { role: 'viewer' });
    expect(workspaceRole.statusCode).toBe(400);
  });
});

async function operatorClient(email: string, role: OperatorRole): Promise<WebClient> {
  const res = await operator(t.app, 'POST', '/operator/v1/operators', { email, role });
  const client = new WebClient(t.app);
  expect((await client.acceptInvitation(res.json<{ invitationUrl: string }>().invitationUrl, PASSWORD)).done?.statusCode).toBe(303);
  return client;
}

describe('roles on the pages', () => {
  /** Each dashboard right: a form POST by a role without it is 403 with the refusal in words; a role with it gets past the check. */
  const forms: { right: string; path: string; allowed: WorkspaceRole; refused: WorkspaceRole }[] = [
    { right: 'pay', path: '/dashboard/payouts/new', allowed: 'finance', refused: 'approver' },
    { right: 'beneficiaries', path: '/dashboard/beneficiaries/new', allowed: 'finance', refused: 'developer' },
    { right: 'receive', path: '/dashboard/receiving/virtual-accounts', allowed: 'finance', refused: 'viewer' },
    { right: 'credentials', path: '/dashboard/credentials', allowed: 'developer', refused: 'finance' },
    { right: 'webhooks', path: '/dashboard/webhooks', allowed: 'developer', refused: 'approver' },
    { right: 'sandbox', path: '/dashboard/sandbox/fund', allowed: 'developer', refused: 'finance' },
    { right: 'workspace', path: '/dashboard/users', allowed: 'admin', refused: 'finance' },
    { right: 'approve', path: `/dashboard/approvals/${randomUUID()}/approve`, allowed: 'approver', refused: 'developer' },
  ];
  const clients = new Map<WorkspaceRole, WebClient>();
  const as = async (role: WorkspaceRole) => {
    if (!clients.has(role)) clients.set(role, await dashboardUser(t.app, workspaceId, `${role}-pages@roles.example`, role));
    return clients.get(role) as WebClient;
  };

  for (const f of forms) {
    it(`dashboard ${f.right}: ${f.refused} is refused 403, ${f.allowed} gets past the check`, async () => {
      const refused = await as(f.refused);
      await refused.get('/dashboard');
      const no = await refused.post(f.path, {});
      expect(no.statusCode).toBe(403);
      expect(no.body).toContain(`Your role (${f.refused}) may not`);
      const allowed = await as(f.allowed);
      await allowed.get('/dashboard');
      const yes = await allowed.post(f.path, {});
      expect(yes.statusCode).not.toBe(403);
    });
  }

  it('shows each role and what it may do on the Users page, and an admin changes a role there', async () => {
    const admin = await as('admin');
    const finance = await as('finance');
    const page = await admin.get('/dashboard/users');
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('What each role may do');
    expect(page.body).toContain('<strong>approver</strong>: may approve or reject payouts');
    expect(page.body).toContain('<strong>viewer</strong>: reads only');
    const users = (await operator(t.app, 'GET', `/operator/v1/workspaces/${workspaceId}/users?limit=100`)).json<{ data: { id: string; email: string; role: string }[] }>().data;
    const financeId = users.find((u) => u.email === 'finance-pages@roles.example')?.id as string;
    expect(page.body).toContain(`id="role-${financeId}"`);
    const changed = await admin.post(`/dashboard/users/${financeId}/role`, { role: 'approver' });
    expect(changed.statusCode, changed.body).toBe(303);
    const after = (await operator(t.app, 'GET', `/operator/v1/workspaces/${workspaceId}/users?limit=100`)).json<{ data: { id: string; role: string }[] }>().data;
    expect(after.find((u) => u.id === financeId)?.role).toBe('approver');
    // The change applies at the person's next request: paying is now refused.
    const pay = await finance.post('/dashboard/payouts/new', {});
    expect(pay.statusCode).toBe(403);
    expect(pay.body).toContain('Your role (approver) may not send or cancel payouts');
    await admin.post(`/dashboard/users/${financeId}/role`, { role: 'finance' });
  });

  it('refuses a console change to a role without its right, lets the right role through, and shows operator roles', async () => {
    const support = await operatorClient('support-console@roles.example', 'support');
    await support.get('/console');
    const no = await support.post('/console/workspaces', { name: 'Support Made', country: 'DE' });
    expect(no.statusCode).toBe(403);
    expect(no.body).toContain('Your role (support) may not manage workspaces and users');
    const compliance = await operatorClient('compliance-console@roles.example', 'compliance');
    await compliance.get('/console');
    expect((await compliance.post('/console/screening/settings', { dualControl: 'off' })).statusCode).not.toBe(403);
    expect((await compliance.post(`/console/workspaces/${workspaceId}/balances/adjust`, { currency: 'EUR', amount: '1.00', reason: 'test' })).statusCode).toBe(403);
    const administrator = await operatorClient('admin-console@roles.example', 'administrator');
    const page = await administrator.get('/console/operators');
    expect(page.body).toContain('<strong>compliance</strong>: may decide on screening matches; review applications');
    const ops = (await operator(t.app, 'GET', '/operator/v1/operators?limit=100')).json<{ data: { id: string; email: string }[] }>().data;
    const supportId = ops.find((u) => u.email === 'support-console@roles.example')?.id as string;
    expect((await administrator.post(`/console/operators/${supportId}/role`, { role: 'finance' })).statusCode).toBe(303);
    // Support cannot manage operators; finance now credits.
    expect((await compliance.post(`/console/operators/${supportId}/role`, { role: 'administrator' })).statusCode).toBe(403);
  });
});
