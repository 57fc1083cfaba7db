import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HoldBatcher } from '../../src/domains/ledger/hold-batcher.js';
import { balancesOf, ledger, ledgerInvariantViolations } from '../../src/domains/ledger/ledger.service.js';
import { moveFromSystem } from '../../src/domains/ledger/funding.service.js';
import { createTestApp, newWorkspace, type TestApp } from '../helpers/app.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t.close());

async function fundedWorkspace(amountMinor: bigint): Promise<string> {
  const c = await newWorkspace(t.app);
  await t.ctx.db.tx((tx) =>
    moveFromSystem(tx, { workspaceId: c.workspaceId, accountId: c.workspaceId, currency: 'EUR', amountMinor, system: 'sandbox_funding', reference: { type: 'funding' } }),
  );
  return c.workspaceId;
}

/** Amounts 1..200 (minor units) sum to 20100; a balance of 10000 covers only some of them. */
const AMOUNTS = Array.from({ length: 200 }, (_, i) => BigInt(i + 1));
const BALANCE = 10_000n;

async function expectSound(workspaceId: string, accepted: bigint[]) {
  const acceptedSum = accepted.reduce((a, b) => a + b, 0n);
  expect(acceptedSum).toBeLessThanOrEqual(BALANCE);
  const [eur] = await balancesOf(t.ctx.db, workspaceId);
  expect(eur?.pendingOutMinor).toBe(acceptedSum);
  expect(eur?.availableMinor).toBe(BALANCE - acceptedSum);
  const [{ n }] = (await t.ctx.db.query<{ n: number }>(
    "SELECT count(*)::int AS n FROM ledger_transfers WHERE reference_type = 'test-hold' AND reference_id = $1",
    [workspaceId],
  )) as [{ n: number }];
  expect(n).toBe(accepted.length);
  expect(await ledgerInvariantViolations(t.ctx.db)).toEqual([]);
}

describe('concurrent holds against one balance', () => {
  it('200 parallel holds, one transaction each: the accepted never exceed the balance, the rest are refused cleanly', async () => {
    const workspaceId = await fundedWorkspace(BALANCE);
    const results = await Promise.allSettled(
      AMOUNTS.map((amountMinor) =>
        t.ctx.db.tx((tx) =>
          ledger.hold(tx, {
            debit: { customer: workspaceId, workspaceId },
            credit: { system: 'provider_clearing', code: 'sepa_inst' },
            currency: 'EUR',
            amountMinor,
            reference: { type: 'test-hold', id: workspaceId },
          }),
        ),
      ),
    );
    const accepted = AMOUNTS.filter((_, i) => results[i]?.status === 'fulfilled');
    const refused = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    expect(accepted.length).toBeGreaterThan(0);
    expect(refused.length).toBeGreaterThan(0);
    for (const r of refused) expect(r.reason).toMatchObject({ category: 'invalid_request', code: 'INSUFFICIENT_BALANCE' });
    await expectSound(workspaceId, accepted);
  });

  it('200 parallel holds through the batcher: same guarantees, far fewer transactions', async () => {
    const workspaceId = await fundedWorkspace(BALANCE);
    const batcher = new HoldBatcher(t.ctx.db);
    const results = await Promise.all(
      AMOUNTS.map((amountMinor) =>
        batcher.submit({ accountId: workspaceId, currency: 'EUR', legs: [{ amountMinor, credit: { system: 'provider_clearing', code: 'sepa_inst' } }], reference: { type: 'test-hold', id: workspaceId } }),
      ),
    );
    const accepted = AMOUNTS.filter((_, i) => results[i]?.ok);
    for (const r of results) if (!r.ok) expect(r.error).toMatchObject({ category: 'invalid_request', code: 'INSUFFICIENT_BALANCE' });
    // Arrival order is kept, and any later hold that still fits is accepted: no refused hold would fit in what is left.
    const left = BALANCE - accepted.reduce((a, b) => a + b, 0n);
    const refusedAmounts = AMOUNTS.filter((_, i) => !results[i]?.ok);
    expect(refusedAmounts.every((a) => a > left)).toBe(true);
    expect(accepted).toEqual(AMOUNTS.slice(0, 140)); // 1 + … + 140 = 9870; 141 no longer fits
    await expectSound(workspaceId, accepted);
  });

  it('a batched hold of several legs is accepted whole or not at all', async () => {
    const workspaceId = await fundedWorkspace(1000n);
    const batcher = new HoldBatcher(t.ctx.db);
    const legs = (a: bigint, b: bigint) => [
      { amountMinor: a, credit: { system: 'provider_clearing' as const, code: 'sepa_inst' } },
      { amountMinor: b, credit: { system: 'fee_revenue' as const } },
    ];
    const results = await Promise.all([
      batcher.submit({ accountId: workspaceId, currency: 'EUR', legs: legs(600n, 100n), reference: { type: 'test-hold', id: workspaceId } }),
      batcher.submit({ accountId: workspaceId, currency: 'EUR', legs: legs(250n, 100n), reference: { type: 'test-hold', id: workspaceId } }),
      batcher.submit({ accountId: workspaceId, currency: 'EUR', legs: legs(200n, 100n), reference: { type: 'test-hold', id: workspaceId } }),
    ]);
    expect(results.map((r) => r.ok)).toEqual([true, false, true]);
    const [eur] = await balancesOf(t.ctx.db, workspaceId);
    expect(eur?.pendingOutMinor).toBe(1000n);
    const [{ n }] = (await t.ctx.db.query<{ n: number }>("SELECT count(*)::int AS n FROM ledger_transfers WHERE reference_id = $1", [workspaceId])) as [{ n: number }];
    expect(n).toBe(4);
    expect(await ledgerInvariantViolations(t.ctx.db)).toEqual([]);
});
});
