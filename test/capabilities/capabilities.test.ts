import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Tx } from '../../src/platform/db/db.js';
import { getWorkspace } from '../../src/domains/accounts/accounts.service.js';
import { callerWorkspace, type Caller as ServiceCaller } from '../../src/domains/accounts/caller.js';
import { reviewOwnApplication } from '../../src/domains/applications/applications.service.js';
import { simulateDeposit } from '../../src/domains/deposits/deposits.service.js';
import { cancelOwnOrder } from '../../src/domains/orders/orders.lifecycle.js';
import { cancelOwnPayout } from '../../src/domains/payouts/payouts.lifecycle.js';
import { createTestApp, newWorkspace, operator, type Caller, type TestApp } from '../helpers/app.js';
import { asSub, createSubAccount, expectProblem } from '../virtual-accounts/helpers.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t.close());

interface Capabilities {
  currencies: { code: string; enabled: boolean; payouts: boolean; deposits: boolean; virtualAccounts: boolean; sandboxOnly: boolean }[];
  paymentMethods: { route: string; currencies: string[]; countries: string[]; anyCountry: boolean }[];
}

async function capabilities(c: Caller): Promise<Capabilities> {
  const res = await c.request('GET', '/v1/capabilities');
  expect(res.statusCode, res.body).toBe(200);
  return res.json<Capabilities>();
}

const currency = (caps: Capabilities, code: string) => caps.currencies.find((c) => c.code === code);
const method = (caps: Capabilities, route: string) => caps.paymentMethods.find((m) => m.route === route);

describe('GET /v1/capabilities', () => {
  it('reports each currency of the spec for a new workspace: the defaults enabled, the others on request or sandbox-only', async () => {
    const c = await newWorkspace(t.app);
    const caps = await capabilities(c);
    expect(caps.currencies.map((x) => x.code).sort()).toEqual(['EGP', 'EUR', 'GBP', 'GHS', 'MWK', 'MZN', 'NGN', 'USD', 'USDC', 'USDT', 'XAF', 'XOF', 'ZMW']);
    expect(currency(caps, 'EUR')).toEqual({ code: 'EUR', enabled: true, payouts: true, deposits: true, virtualAccounts: true, sandboxOnly: false });
    expect(currency(caps, 'USDC')).toMatchObject({ enabled: true, deposits: true, virtualAccounts: false });
    expect(currency(caps, 'XOF')).toEqual({ code: 'XOF', enabled: false, payouts: false, deposits: false, virtualAccounts: false, sandboxOnly: false });
    expect(currency(caps, 'ZMW')).toMatchObject({ enabled: false, sandboxOnly: true });
    // Payment methods: routes of the corridor catalog with the currencies enabled on them.
    expect(method(caps, 'sepa_inst')).toMatchObject({ currencies: ['EUR'] });
    expect(method(caps, 'sepa_inst')!.countries).toContain('DE');
    // One type for countries (DESIGN: an array): crypto pays to any country, said by anyCountry with no list.
    expect(method(caps, 'crypto')).toMatchObject({ countries: [], anyCountry: true });
    expect(method(caps, 'sepa_inst')).toMatchObject({ anyCountry: false });
    for (const m of caps.paymentMethods) {
      expect(Array.isArray(m.countries), m.route).toBe(true);
      expect(typeof m.anyCountry, m.route).toBe('boolean');
    }
    expect(method(caps, 'crypto')!.currencies).toContain('USDC');
    expect(method(caps, 'crypto')!.currencies).not.toContain('USDT');
    expect(method(caps, 'mobile_money')).toBeUndefined(); // XOF, XAF, GHS are not enabled yet
  });

  it('shows an operator change at once: a currency enabled, a capability switched off', async () => {
    const c = await newWorkspace(t.app);
    expect((await operator(t.app, 'PUT', `/operator/v1/workspaces/${c.workspaceId}/currencies/XOF`, { enabled: true })).statusCode).toBe(200);
    let caps = await capabilities(c);
    expect(currency(caps, 'XOF')).toMatchObject({ enabled: true, payouts: true, deposits: true, virtualAccounts: true });
    expect(method(caps, 'mobile_money')!.currencies).toEqual(['XOF']);

    await operator(t.app, 'PUT', `/operator/v1/workspaces/${c.workspaceId}/capabilities/virtual_accounts`, { enabled: false });
    await operator(t.app, 'PUT', `/operator/v1/workspaces/${c.workspaceId}/capabilities/crypto_payouts`, { enabled: false });
    caps = await capabilities(c);
    expect(caps.currencies.every((x) => !x.virtualAccounts)).toBe(true);
    expect(currency(caps, 'USDC')).toMatchObject({ payouts: false, deposits: true });
    expect(method(caps, 'crypto')).toBeUndefined();

    await operator(t.app, 'PUT', `/operator/v1/workspaces/${c.workspaceId}/capabilities/deposits`, { enabled: false });
    await operator(t.app, 'PUT', `/operator/v1/workspaces/${c.workspaceId}/capabilities/payouts`, { enabled: false });
    caps = await capabilities(c);
    expect(caps.currencies.some((x) => x.deposits || x.payouts)).toBe(false);
    expect(caps.paymentMethods).toEqual([]);
  });

  it('answers for a sub-account with Service-Account-Id, and 403 for one not owned', async () => {
    const c = await newWorkspace(t.app);
    const subId = await createSubAccount(c, 'Shop Madrid');
    expect(await capabilities(asSub(c, subId))).toEqual(await capabilities(c));
    const other = await newWorkspace(t.app);
    const res = await asSub(other, subId).request('GET', '/v1/capabilities');
    expectProblem(res, 403, 'not_account_owner');
  });

  it('needs read:capabilities and answers problem details', async () => {
    const c = await newWorkspace(t.app, { scopes: ['read:payouts'] });
    expectProblem(await c.request('GET', '/v1/capabilities'), 403, 'METHOD_NOT_ENTITLED');
    const ok = await newWorkspace(t.app, { scopes: ['read:capabilities'] });
    expect((await ok.request('GET', '/v1/capabilities')).statusCode).toBe(200);
    expect((await t.app.inject({ method: 'GET', url: '/v1/capabilities' })).statusCode).toBe(401);
  });
});

describe('capabilities are checked by the services the API and the dashboard share', () => {
  it('refuses a sandbox deposit, a payout or order cancel and an application review while the capability is off', async () => {
    const c = await newWorkspace(t.app);
    for (const name of ['deposits', 'payouts', 'orders', 'applications']) {
      expect((await operator(t.app, 'PUT', `/operator/v1/workspaces/${c.workspaceId}/capabilities/${name}`, { enabled: false })).statusCode).toBe(200);
    }
    const workspace = await getWorkspace(t.ctx.db, c.workspaceId);
    const caller: ServiceCaller = { workspaceId: c.workspaceId, accountId: c.workspaceId, subAccountId: undefined, clientId: 'test', scopes: [], workspace: callerWorkspace(workspace) };
    const id = randomUUID();
    const changes: [string, (tx: Tx) => Promise<unknown>][] = [
      ['deposits', (tx) => simulateDeposit(tx, caller, { currency: 'EUR', amount: '1.00' })],
      ['payouts', (tx) => cancelOwnPayout(t.ctx, tx, caller, id)],
      ['orders', (tx) => cancelOwnOrder(t.ctx, tx, caller, id)],
      ['applications', (tx) => reviewOwnApplication(t.ctx, tx, caller, id, { decision: 'approve' })],
    ];
    for (const [capability, change] of changes) {
      await expect(t.ctx.db.tx(change)).rejects.toMatchObject({ code: 'CAPABILITY_DISABLED', message: `The ${capability} capability is not enabled for this workspace` });
    }
  });
});
