import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChainConnector } from '../../src/connectors/chain/chain.connector.js';
import { ChainWorker } from '../../src/connectors/chain/chain.worker.js';
import { createTestApp } from '../helpers/app.js';
import { startAnvil } from '../helpers/anvil.js';
import { ledgerInvariantViolations } from '../../src/domains/ledger/ledger.service.js';
import { REVERTED_REASON } from '../../src/connectors/chain/chain.payouts.js';
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

  it('a transaction stuck past replaceAfterSeconds is replaced at the same nonce with a higher fee within the cap; the version mined counts, paid once', async () => {
    const c = await usdcWorkspace(w.t);
    const to = recipient();
    const id = await usdcPayout(c, to, '2.5');
    await handOver(w);
    await w.anvil.test.setAutomine(false);
    try {
      // A worker whose chain replaces a transaction as soon as it is not mined.
      const { ethereum } = JSON.parse(fs.readFileSync(w.connectorsFile, 'utf8')).chains;
      const stuck = new ChainWorker(w.t.ctx, { connector: new ChainConnector({ ethereum: { ...ethereum, replaceAfterSeconds: 0 } }, w.t.ctx) });
      await stuck.tick(); // signed and sent; nothing is mined
      await stuck.tick(); // not mined, waited 0 s: replaced
      await stuck.tick(); // and again (each version 10% more, below the cap)
    } finally {
      await w.anvil.test.setAutomine(true);
    }
    const versions = await w.t.ctx.db.query<{ hash: string; nonce: string; max_fee_per_gas: string; max_priority_fee_per_gas: string }>(
      'SELECT hash, nonce::text AS nonce, max_fee_per_gas::text AS max_fee_per_gas, max_priority_fee_per_gas::text AS max_priority_fee_per_gas FROM chain_transactions WHERE payout_id = $1 ORDER BY signed_at',
      [id],
    );
    expect(versions.length).toBeGreaterThanOrEqual(3);
    expect(new Set(versions.map((v) => v.nonce)).size).toBe(1);
    for (let i = 1; i < versions.length; i++) {
      expect(BigInt(versions[i]!.max_fee_per_gas) * 100n).toBeGreaterThanOrEqual(BigInt(versions[i - 1]!.max_fee_per_gas) * 110n);
      expect(BigInt(versions[i]!.max_fee_per_gas)).toBeLessThanOrEqual(100_000_000_000n);
    }
    await w.anvil.mine(3);
    await w.worker.tick();
    expect((await payoutStatus(w, id)).status).toBe('paid');
    const theirs = (await w.anvil.transfers(w.usdc)).filter((t) => t.to === to);
    expect(theirs).toHaveLength(1);
    expect(versions.map((v) => v.hash)).toContain(theirs[0]?.transactionHash);
    const read = (await c.request('GET', `/v1/payouts/${id}`)).json<{ txHash: string }>();
    expect(read.txHash).toBe(theirs[0]?.transactionHash);
  });
});

describe('chain checks at start', () => {
  it('refuses to start when a token\'s decimals() is not the currency\'s scale', async () => {
    const anvil = await startAnvil();
    try {
      const wrong = await anvil.deployToken('USDC', 18);
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'corridor-chain-'));
      const file = path.join(dir, 'connectors.json');
      fs.writeFileSync(file, JSON.stringify({ routes: { crypto: 'chain' }, chains: { ethereum: { chainId: anvil.chainId, rpcUrls: [anvil.url], tokens: { USDC: wrong } } } }));
      await expect(createTestApp({ env: { CORRIDOR_CONNECTORS_FILE: file } })).rejects.toThrow(/USDC token 0x[0-9a-fA-F]{40} has 18 decimals, configured 6/);
      fs.rmSync(dir, { recursive: true, force: true });
    } finally {
      await anvil.stop();
    }
  });
});
