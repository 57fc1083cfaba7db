import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRunner } from '../../src/jobs.js';
import type { JobRunner } from '../../src/platform/jobs/runner.js';
import { createTestApp, onPostgres, operator, type Caller, type TestApp } from '../helpers/app.js';
import { ADDRESSES } from '../helpers/corridor-fixtures.js';
import { balance, payingWorkspace, ref, waitFor } from './helpers.js';

/** Production: the manual provider (the operator settles) and the Travel Rule. Production needs PostgreSQL. */
describe.skipIf(!onPostgres)('payouts in production (PostgreSQL)', () => {
  let t: TestApp;
  let runner: JobRunner;
  let c: Caller;

  beforeAll(async () => {
    t = await createTestApp({ env: { CORRIDOR_ENV: 'production', JOB_POLL_MS: '20' } });
    runner = createRunner(t.ctx);
    runner.start();
    c = await payingWorkspace(t);
    const adjust = await operator(t.app, 'POST', `/operator/v1/workspaces/${c.workspaceId}/balances/adjust`, { currency: 'USDC', amount: '500', reason: 'prefunding' });
    expect(adjust.statusCode, adjust.body).toBe(201);
  });
  afterAll(async () => {
    await runner?.stop();
    await t?.close();
  });

  const wallet = { type: 'crypto', currency: 'USDC', data: { network: 'ethereum', address: ADDRESSES.ethereum.valid } };

  it('refuses a crypto payout to an individual without dateOfBirth while Travel Rule screening is on, naming the field, without a code', async () => {
    const res = await c.request('POST', '/v1/payouts', { clientRef: ref(), amount: '10', currency: 'USDC', route: 'crypto', beneficiary: { name: 'Satoshi Nakamoto', country: 'JP', accounts: [wallet] } });
    expect(res.statusCode, res.body).toBe(400);
    const [detail] = res.json().details;
    expect(detail.field).toBe('beneficiary.dateOfBirth');
    expect(detail.code).toBeUndefined();
  });

  it('accepts it when screening is switched off for the workspace', async () => {
    const w = await payingWorkspace(t, { travelRuleScreening: false });
    await operator(t.app, 'POST', `/operator/v1/workspaces/${w.workspaceId}/balances/adjust`, { currency: 'USDC', amount: '50', reason: 'prefunding' });
    const res = await w.request('POST', '/v1/payouts', { clientRef: ref(), amount: '10', currency: 'USDC', route: 'crypto', beneficiary: { name: 'Satoshi Nakamoto', country: 'JP', accounts: [wallet] } });
    expect(res.statusCode, res.body).toBe(201);
  });

  it('moves a payout to processing at once with the manual provider and leaves settlement to the operator', async () => {
    const res = await c.request('POST', '/v1/payouts', {
      clientRef: ref(),
      amount: '25',
      currency: 'USDC',
      route: 'crypto',
      beneficiary: { name: 'Satoshi Nakamoto', country: 'JP', dateOfBirth: '1975-04-05', accounts: [wallet] },
    });
    expect(res.statusCode, res.body).toBe(201);
    const id = res.json<{ id: string }>().id;
    await waitFor(c, id, (p) => p.status === 'processing');
    expect(await balance(c, 'USDC')).toMatchObject({ pendingOut: '25.000000' });
    const paid = await operator(t.app, 'POST', `/operator/v1/payouts/${id}/pay`);
    expect(paid.statusCode, paid.body).toBe(200);
    expect(paid.json()).toMatchObject({ status: 'paid' });
    expect(await balance(c, 'USDC')).toMatchObject({ pendingOut: '0.000000', totalBalance: '475.000000' });
  });

  it('has no sandbox endpoints', async () => {
    const res = await c.request('POST', '/v1/sandbox/balances/fund', { currency: 'USDC', amount: '1' });
    expect(res.statusCode).toBe(404);
  });
});
