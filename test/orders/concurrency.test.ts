import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ledgerInvariantViolations } from '../../src/domains/ledger/ledger.service.js';
import { createTestApp, newWorkspace, onPostgres, operator, type TestApp } from '../helpers/app.js';
import { balance, fund, placeOrder, transfersOf, type OrderView } from './helpers.js';

/** Real concurrency on PostgreSQL (a connection per request); on the embedded database the same calls run one at a time. */

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ env: { DB_POOL_MAX: '30' } });
});
afterAll(async () => t.close());

describe(`orders under concurrency (${onPostgres ? 'PostgreSQL' : 'embedded database'})`, () => {
  it('100 parallel balance-funded orders against a balance covering 40: exactly 40 accepted and held, 60 refused 422, nothing else written', async () => {
    const w = await newWorkspace(t.app);
    await fund(w, 'EUR', '400.00');
    const answers = await Promise.all(
      Array.from({ length: 100 }, (_, i) =>
        w.request('POST', '/v1/orders', { clientRef: `race-${i}`, fromCurrency: 'EUR', toCurrency: 'USD', fromAmount: '10.00', funding: 'balance' }),
      ),
    );
    const accepted = answers.filter((r) => r.statusCode === 201);
    const refused = answers.filter((r) => r.statusCode === 422);
    expect(accepted).toHaveLength(40);
    expect(refused).toHaveLength(60);
    for (const r of refused) expect(r.json()).toMatchObject({ code: 'INSUFFICIENT_BALANCE' });
    expect(await balance(w, 'EUR')).toMatchObject({ balance: '0.00', pendingOut: '400.00', totalBalance: '400.00' });
    const listed = (await w.request('GET', '/v1/orders?limit=100')).json<{ data: OrderView[] }>().data;
    expect(listed).toHaveLength(40);
    expect(new Set(listed.map((o) => o.id))).toEqual(new Set(accepted.map((r) => r.json<OrderView>().id)));
    const [{ n }] = (await t.ctx.db.query<{ n: number }>("SELECT count(*)::int AS n FROM events WHERE workspace_id = $1 AND type = 'order.created'", [w.workspaceId])) as [{ n: number }];
    expect(n).toBe(40);
    expect(await ledgerInvariantViolations(t.ctx.db)).toEqual([]);
  });

  it('parallel creates with one clientRef: exactly one order', async () => {
    const w = await newWorkspace(t.app);
    const answers = await Promise.all(
      Array.from({ length: 10 }, () => w.request('POST', '/v1/orders', { clientRef: 'same-ref', fromCurrency: 'EUR', toCurrency: 'USD', fromAmount: '10.00' })),
    );
    expect(answers.filter((r) => r.statusCode === 201)).toHaveLength(1);
    expect(answers.filter((r) => r.statusCode === 400).map((r) => r.json().code)).toEqual(Array(9).fill('DUPLICATE_CLIENT_REF'));
  });

  it('concurrent complete and cancel on one order leave exactly one outcome and a balanced ledger', async () => {
    const w = await newWorkspace(t.app);
    await fund(w, 'EUR', '200.00');
    const orders: OrderView[] = [];
    for (let i = 0; i < 10; i++) orders.push(await placeOrder(w, { fromAmount: '20.00' }));
    const outcomes = await Promise.all(
      orders.map(async (order) => {
        const [complete, cancel] = await Promise.all([
          operator(t.app, 'POST', `/operator/v1/orders/${order.id}/complete`),
          w.request('POST', `/v1/orders/${order.id}/cancel`),
        ]);
        expect([complete.statusCode, cancel.statusCode].sort()).toEqual([200, 409]);
        const final = (await w.request('GET', `/v1/orders/${order.id}`)).json<OrderView>();
        expect(final.status).toBe(complete.statusCode === 200 ? 'completed' : 'cancelled');
        const transfers = await transfersOf(t, order.id);
        if (final.status === 'completed') expect(transfers.map((x) => x.status)).toEqual(['posted', 'posted']);
        else expect(transfers.map((x) => x.status)).toEqual(['voided']);
        return final;
      }),
    );
    const completed = outcomes.filter((o) => o.status === 'completed');
    const eur = await balance(w, 'EUR');
    expect(eur).toMatchObject({ pendingOut: '0.00', totalBalance: (200 - 20 * completed.length).toFixed(2) });
    expect(await ledgerInvariantViolations(t.ctx.db)).toEqual([]);
  });
});
