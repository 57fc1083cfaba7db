import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, operator, type TestApp } from '../helpers/app.js';
import { fund, payingWorkspace, ref, saveBeneficiary } from '../payouts/helpers.js';
import { receivingWorkspace, requestAccount } from '../virtual-accounts/helpers.js';

interface Listed {
  id: string;
  status: string;
  workspaceId?: string;
}

const listOf = async (t: TestApp, url: string): Promise<Listed[]> => {
  const res = await operator(t.app, 'GET', url);
  expect(res.statusCode, res.body).toBe(200);
  return res.json<{ data: Listed[] }>().data;
};

/** The operator's queues across workspaces: the lists the console's pages show, through the same services. */
describe('operator lists across workspaces', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => t?.close());

  it('lists every workspace’s payouts with their workspace, filtered by workspace, status and provider', async () => {
    const a = await payingWorkspace(t);
    const b = await payingWorkspace(t);
    const ids: Record<string, string> = {};
    for (const c of [a, b]) {
      await fund(c, 'EUR', '100.00');
      const beneficiary = await saveBeneficiary(c);
      const res = await c.request('POST', '/v1/payouts', { clientRef: ref(), amount: '10.00', currency: 'EUR', beneficiary: { id: beneficiary } });
      expect(res.statusCode, res.body).toBe(201);
      ids[c.workspaceId] = res.json<{ id: string }>().id;
    }
    const all = await listOf(t, '/operator/v1/payouts?limit=100');
    expect(all.find((p) => p.id === ids[a.workspaceId])?.workspaceId).toBe(a.workspaceId);
    expect(all.find((p) => p.id === ids[b.workspaceId])?.workspaceId).toBe(b.workspaceId);
    const onlyA = await listOf(t, `/operator/v1/payouts?workspaceId=${a.workspaceId}`);
    expect(onlyA.map((p) => p.id)).toEqual([ids[a.workspaceId]]);
    expect(onlyA[0]?.status).not.toBe('failed');
    expect(await listOf(t, `/operator/v1/payouts?workspaceId=${a.workspaceId}&status=paid`)).toEqual([]);
    expect(await listOf(t, '/operator/v1/payouts?provider=no-such-provider')).toEqual([]);
    expect((await operator(t.app, 'GET', '/operator/v1/payouts?status=lost')).statusCode).toBe(400);
  });

  it('lists virtual accounts waiting for approval, and deposits, of every workspace', async () => {
    const c = await receivingWorkspace(t.app);
    const pending = await requestAccount(c, 'USD');
    expect(pending.status).toBe('pending');
    const queue = await listOf(t, '/operator/v1/virtual-accounts?status=pending');
    expect(queue.find((v) => v.id === pending.id)).toMatchObject({ status: 'pending', workspaceId: c.workspaceId });
    expect(await listOf(t, `/operator/v1/virtual-accounts?status=active&workspaceId=${c.workspaceId}`)).toEqual([]);

    const eur = await requestAccount(c, 'EUR');
    const deposit = await c.request('POST', '/v1/sandbox/deposits', { virtualAccountId: eur.id, amount: '25.00' });
    expect(deposit.statusCode, deposit.body).toBe(201);
    const deposits = await listOf(t, `/operator/v1/deposits?workspaceId=${c.workspaceId}`);
    expect(deposits.map((d) => d.id)).toEqual([deposit.json<{ id: string }>().id]);
    expect(deposits[0]?.workspaceId).toBe(c.workspaceId);
  });

  it('is the operator’s only: a workspace token gets 401', async () => {
    const c = await payingWorkspace(t);
    for (const url of ['/operator/v1/payouts', '/operator/v1/virtual-accounts', '/operator/v1/deposits']) expect((await c.request('GET', url)).statusCode).toBe(401);
  });
});
