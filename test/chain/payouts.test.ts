import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ledgerInvariantViolations } from '../../src/modules/ledger/ledger.service.js';
import { REVERTED_REASON } from '../../src/modules/chain/chain.payouts.js';
import { balance, eventTypesOf } from '../payouts/helpers.js';
import { chainRow, chainWorld, handOver, HOT, payoutStatus, recipient, usdcPayout, usdcWorkspace, type ChainWorld } from './harness.js';

/** USDC payouts as real ERC-20 transfers on a local anvil node (both databases). */
describe('chain payouts on anvil', () => {
  let w: ChainWorld;
  beforeAll(async () => {
    w = await chainWorld({ confirmations: 3 });
  });
  afterAll(async () => {
    await w?.close();
  });

  it('a USDC payout is one ERC-20 transfer, paid after its confirmations; the recipient gets exactly the amount', async () => {
    const c = await usdcWorkspace(w.t);
    const to = recipient();
    const id = await usdcPayout(c, to, '12.345678');
    await handOver(w);
    await w.worker.tick(); // signed, recorded, broadcast; automine puts it in a block
    expect((await payoutStatus(w, id)).status).toBe('processing');
    expect(await w.anvil.balance(w.usdc, to)).toBe(12_345_678n);
    await w.worker.tick(); // 1 confirmation of 3
    expect((await payoutStatus(w, id)).status).toBe('processing');
    await w.anvil.mine(1);
    await w.worker.tick(); // 2 of 3
    expect((await payoutStatus(w, id)).status).toBe('processing');
    await w.anvil.mine(1);
    await w.worker.tick(); // 3 of 3: paid
    expect((await payoutStatus(w, id)).status).toBe('paid');
    await w.anvil.mine(3);
    await w.worker.tick();
    const events = await eventTypesOf(w.t, id);
    expect(events.filter((e) => e === 'payout.paid')).toHaveLength(1);
    expect(events.indexOf('payout.processing')).toBeLessThan(events.indexOf('payout.paid'));
    const transfers = (await w.anvil.transfers(w.usdc)).filter((t) => t.to === to);
    expect(transfers).toHaveLength(1);
    expect(transfers[0]).toMatchObject({ from: HOT, value: 12_345_678n });
    const row = await chainRow(w, id);
    expect(row).toMatchObject({ status: 'confirmed', mined_hash: transfers[0]?.transactionHash });
    expect(await balance(c, 'USDC')).toMatchObject({ pendingOut: '0.000000' });
    // The hash and the chain on the payout read and in payout.paid (additive fields).
    const read = (await c.request('GET', `/v1/payouts/${id}`)).json<Record<string, unknown>>();
    expect(read).toMatchObject({ status: 'paid', txHash: transfers[0]?.transactionHash, chain: 'ethereum' });
    const [paid] = await w.t.ctx.db.query<{ data: Record<string, unknown> }>("SELECT data FROM events WHERE type = 'payout.paid' AND data->>'id' = $1", [id]);
    expect(paid?.data).toMatchObject({ txHash: transfers[0]?.transactionHash, chain: 'ethereum' });
  });

  it('a transfer that reverts on chain (hot wallet short of tokens) fails the payout with a clear reason and releases the funds', async () => {
    const c = await usdcWorkspace(w.t, '5000000');
    const to = recipient();
    const hotBalance = await w.anvil.balance(w.usdc, HOT);
    const id = await usdcPayout(c, to, (Number(hotBalance / 1_000_000n) + 1).toString());
    expect(await balance(c, 'USDC')).toMatchObject({ balance: (5_000_000 - Number(hotBalance / 1_000_000n) - 1).toString() + '.000000' });
    await handOver(w);
    await w.worker.tick();
    await w.anvil.mine(3);
    await w.worker.tick();
    expect(await payoutStatus(w, id)).toEqual({ status: 'failed', failure_reason: REVERTED_REASON });
    expect(await balance(c, 'USDC')).toMatchObject({ balance: '5000000.000000', pendingOut: '0.000000' });
    expect(await w.anvil.balance(w.usdc, to)).toBe(0n);
    expect((await chainRow(w, id)).status).toBe('failed');
    expect(await ledgerInvariantViolations(w.t.ctx.db)).toEqual([]);
  });

  it('a reorg that drops the transaction before its confirmations neither pays nor loses it: the same bytes are broadcast again and paid once', async () => {
    const c = await usdcWorkspace(w.t);
    const to = recipient();
    const id = await usdcPayout(c, to, '7.000001');
    await handOver(w);
    await w.worker.tick();
    const first = await chainRow(w, id);
    await w.worker.tick();
    expect((await chainRow(w, id)).mined_hash).not.toBeNull();
    // The block holding it is replaced by an empty one.
    await w.anvil.test.request({ method: 'anvil_reorg' as never, params: [1, []] as never });
    expect(await w.anvil.balance(w.usdc, to)).toBe(0n);
    await w.worker.tick(); // seen gone: not paid, broadcast again (automine mines it anew)
    expect((await payoutStatus(w, id)).status).toBe('processing');
    await w.anvil.mine(3);
    await w.worker.tick();
    expect((await payoutStatus(w, id)).status).toBe('paid');
    const transfers = (await w.anvil.transfers(w.usdc)).filter((t) => t.to === to);
    expect(transfers).toHaveLength(1);
    expect(transfers[0]?.value).toBe(7_000_001n);
    const rows = await w.t.ctx.db.query<{ hash: string }>('SELECT hash FROM chain_transactions WHERE payout_id = $1', [id]);
    expect(rows).toHaveLength(1); // never signed anew
    expect((await chainRow(w, id)).nonce).toBe(first.nonce);
    expect(await eventTypesOf(w.t, id)).toEqual(expect.arrayContaining(['payout.paid']));
    expect((await eventTypesOf(w.t, id)).filter((e) => e === 'payout.paid')).toHaveLength(1);
  });
});
