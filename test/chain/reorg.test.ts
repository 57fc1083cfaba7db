import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Address, Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { operator } from '../helpers/app.js';
import { DEV_KEYS, TOKEN_ABI } from '../helpers/anvil.js';
import { balance } from '../payouts/helpers.js';
import { receivingWorkspace, requestAccount, type VirtualAccount } from '../virtual-accounts/helpers.js';
import { chainWorld, recipient, type ChainWorld } from './harness.js';

/** Reorgs deeper than the confirmations on anvil (evm_snapshot / evm_revert): a deposit is the transfer, wherever it is mined. */
describe('chain deposits across a reorg deeper than the confirmations', () => {
  let w: ChainWorld;
  const SENDER = 2;
  beforeAll(async () => {
    w = await chainWorld({ confirmations: 2 });
    await w.anvil.mint(w.usdc, privateKeyToAccount(DEV_KEYS[SENDER] as Hex).address, 1_000_000_000n);
  });
  afterAll(async () => {
    await w?.anvil.test.setAutomine(true);
    await w?.close();
  });

  const rawOf = (hash: Hex) => w.anvil.public.request({ method: 'eth_getRawTransactionByHash' as never, params: [hash] as never }) as Promise<Hex>;

  it('the same transaction re-mined at another block and log index is credited once; a transfer that vanished is reversed (credit taken back, audited); one that comes back is credited again', async () => {
    const c = await receivingWorkspace(w.t.app, { name: 'Reorg Ltd' });
    await requestAccount(c, 'USDC');
    const [account] = (await c.request('GET', '/v1/virtual-accounts?currency=USDC')).json<{ data: VirtualAccount[] }>().data;
    const address = ((account?.addresses as { address: Address }[])[0] as { address: Address }).address;
    await w.worker.tick();

    const snapshot = await w.anvil.test.snapshot();
    const kept = await w.anvil.transferFrom(SENDER, w.usdc, address, 5_000_000n);
    const lost = await w.anvil.transferFrom(SENDER, w.usdc, address, 2_000_000n);
    await w.anvil.public.waitForTransactionReceipt({ hash: lost });
    const keptRaw = await rawOf(kept);
    const lostRaw = await rawOf(lost);
    const keptBefore = await w.anvil.public.getTransactionReceipt({ hash: kept });
    await w.anvil.mine(3);
    await w.worker.tick();
    const deposits = async () => (await c.request('GET', '/v1/deposits')).json<{ data: { amount: string; status: string }[] }>().data;
    expect((await deposits()).map((d) => [d.amount, d.status]).sort()).toEqual([['2.000000', 'completed'], ['5.000000', 'completed']]);

    // The chain goes back past both transfers (deeper than the 2 confirmations) and grows longer
    // without them; then `kept` is mined again, after another transfer in its block (another log index).
    await w.anvil.test.revert({ id: snapshot });
    await w.anvil.test.setAutomine(false);
    await w.anvil.mine(6);
    // A mint (a Transfer log) paying a higher tip, so that the node puts it first in the block.
    await w.anvil.wallet.writeContract({ address: w.usdc, abi: TOKEN_ABI, functionName: 'mint', args: [recipient(), 1n], maxPriorityFeePerGas: 50_000_000_000n, maxFeePerGas: 100_000_000_000n, account: w.anvil.wallet.account ?? null, chain: w.anvil.wallet.chain });
    expect(await w.anvil.public.request({ method: 'eth_sendRawTransaction', params: [keptRaw] })).toBe(kept);
    await w.anvil.mine(1);
    const keptAfter = await w.anvil.public.getTransactionReceipt({ hash: kept });
    expect(keptAfter.blockNumber).toBeGreaterThan(keptBefore.blockNumber);
    expect(keptAfter.logs[0]?.logIndex).not.toBe(keptBefore.logs[0]?.logIndex);
    await w.anvil.mine(3);
    await w.worker.tick();
    await w.worker.tick();

    expect((await deposits()).map((d) => [d.amount, d.status]).sort()).toEqual([['2.000000', 'failed'], ['5.000000', 'completed']]);
    expect(await balance(c, 'USDC')).toMatchObject({ balance: '5.000000' });
    const rows = (await operator(w.t.app, 'GET', '/operator/v1/chain/deposits?limit=100')).json<{ data: { txHash: string; status: string; logIndex: number; blockNumber: string; reversedAt: string | null }[] }>().data;
    expect(rows.filter((r) => r.txHash === kept)).toEqual([expect.objectContaining({ status: 'credited', logIndex: keptAfter.logs[0]?.logIndex, blockNumber: keptAfter.blockNumber.toString() })]);
    expect(rows.filter((r) => r.txHash === lost)).toEqual([expect.objectContaining({ status: 'reversed', reversedAt: expect.any(String) })]);
    const audit = await w.t.ctx.db.query<{ body: { change: string; txHash: string } }>("SELECT body FROM operator_audit_log WHERE body->>'change' = 'chain_deposit.reversed'");
    expect(audit.map((a) => a.body.txHash)).toEqual([lost]);

    // The lost transfer comes back (its same bytes): taken again, credited once more, once.
    expect(await w.anvil.public.request({ method: 'eth_sendRawTransaction', params: [lostRaw] })).toBe(lost);
    await w.anvil.mine(3);
    await w.worker.tick();
    await w.worker.tick();
    expect((await deposits()).map((d) => [d.amount, d.status]).sort()).toEqual([['2.000000', 'completed'], ['2.000000', 'failed'], ['5.000000', 'completed']]);
    expect(await balance(c, 'USDC')).toMatchObject({ balance: '7.000000' });
  });
});
