import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reportPayoutOutcomes } from '../../src/domains/payouts/payouts.outcomes.js';
import { createTestApp, type Caller, type TestApp } from '../helpers/app.js';
import { dashboardUser, type WebClient } from '../helpers/web-client.js';
import { fund, payingWorkspace, ref } from '../payouts/helpers.js';

/** The dashboard's payout page of an on-chain payout: its chain and transaction hash in its facts and on its timeline (both databases). */

const TX = `0x${'ab12'.repeat(16)}`;
let t: TestApp;
let c: Caller;
let admin: WebClient;

beforeAll(async () => {
  // Steps far apart: the simulator never moves the payout; the test reports its outcomes as a connector would.
  t = await createTestApp({ env: { SANDBOX_STEP_MS: '600000' } });
  c = await payingWorkspace(t);
  await fund(c, 'USDC', '100');
  admin = await dashboardUser(t.app, c.workspaceId, 'chain-admin@example.com');
});
afterAll(async () => t?.close());

describe('the dashboard payout page of an on-chain payout', () => {
  it('shows its chain and transaction hash, in its facts and on the moves of its timeline', async () => {
    const beneficiary = { name: 'Satoshi Nakamoto', country: 'JP', accounts: [{ type: 'crypto', currency: 'USDC', data: { network: 'ethereum', address: '0x1111111111111111111111111111111111111111' } }] };
    const created = await c.request('POST', '/v1/payouts', { clientRef: ref('chain-page'), amount: '12.50', currency: 'USDC', route: 'crypto', beneficiary });
    expect(created.statusCode, created.body).toBe(201);
    const id = created.json<{ id: string }>().id;

    const rail = { txHash: TX, chain: 'ethereum' };
    await t.ctx.db.tx((tx) => reportPayoutOutcomes(t.ctx, tx, [{ payoutId: id, move: 'process', rail }]));
    const [paid] = await t.ctx.db.tx((tx) => reportPayoutOutcomes(t.ctx, tx, [{ payoutId: id, move: 'pay' }]));
    expect(paid).toMatchObject({ applied: true, status: 'paid' });
    expect((await c.request('GET', `/v1/payouts/${id}`)).json()).toMatchObject({ status: 'paid', txHash: TX, chain: 'ethereum' });

    const page = await admin.get(`/dashboard/payouts/${id}`);
    expect(page.statusCode, page.body).toBe(200);
    const facts = page.body.slice(0, page.body.indexOf('class="timeline"'));
    expect(facts).toMatch(/Chain<\/dt>\s*<dd>ethereum<\/dd>/);
    expect(facts).toMatch(new RegExp(`Transaction</dt>\\s*<dd><span class="copyable"><code id="[^"]+">${TX}</code>`));
    const timeline = page.body.slice(page.body.indexOf('class="timeline"'), page.body.indexOf('</ol>', page.body.indexOf('class="timeline"')));
    const moves = timeline.split('<li>').slice(2); // after "created"
    expect(moves).toHaveLength(2);
    for (const move of moves) expect(move).toContain(`transaction <code>${TX}</code> on ethereum`);
    expect(moves[1]).toContain('payout.paid');
  });
});
