import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Address, Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { ChainWorker } from '../../src/connectors/chain/chain.worker.js';
import { operator, OPERATOR_KEY, type Caller } from '../helpers/app.js';
import { WebClient } from '../helpers/web-client.js';
import { approveOnboarding, asSub, createSubAccount, receivingWorkspace, requestAccount, type VirtualAccount } from '../virtual-accounts/helpers.js';
import { DEV_KEYS } from '../helpers/anvil.js';
import { chainWorld, HOT, type ChainWorld } from './harness.js';

/** Deposit addresses as USDC/USDT virtual accounts, and the watcher crediting Transfer logs on anvil (both databases). */
describe('chain deposits on anvil', () => {
  let w: ChainWorld;
  const SENDER = 2; // anvil dev account paying in
  beforeAll(async () => {
    w = await chainWorld({ confirmations: 3 });
    await w.anvil.mint(w.usdc, privateKeyToAccount(DEV_KEYS[SENDER] as Hex).address, 1_000_000_000n);
    await w.anvil.mint(w.usdt, privateKeyToAccount(DEV_KEYS[SENDER] as Hex).address, 1_000_000_000n);
  });
  afterAll(async () => {
    await w?.close();
  });

  const addressOf = (account: VirtualAccount): Address => {
    const addresses = account.addresses as { chain: string; network: string; address: Address }[];
    expect(addresses).toHaveLength(1);
    expect(addresses[0]).toMatchObject({ chain: 'ethereum', network: 'ethereum' });
    return (addresses[0] as { address: Address }).address;
  };

  async function usdcAccount(c: Caller): Promise<VirtualAccount> {
    const created = await requestAccount(c, 'USDC');
    expect(created).toMatchObject({ currency: 'USDC', status: 'active' });
    const list = (await c.request('GET', '/v1/virtual-accounts?currency=USDC')).json<{ data: VirtualAccount[] }>().data;
    expect(list).toHaveLength(1);
    return list[0] as VirtualAccount;
  }

  async function deposits(c: Caller): Promise<{ id: string; amount: string; status: string; rail: string; currency: string; virtualAccountId: string | null; accountId: string | null }[]> {
    return (await c.request('GET', '/v1/deposits')).json<{ data: never[] }>().data;
  }

  /** Sends from the paying dev account (one block) and answers the transaction's hash. */
  async function pay(token: Address, to: Address, amount: bigint): Promise<string> {
    const hash = await w.anvil.transferFrom(SENDER, token, to, amount);
    await w.anvil.public.waitForTransactionReceipt({ hash: hash as `0x${string}` });
    return hash;
  }

  it('a USDC transfer to a workspace\'s deposit address is credited once, to that workspace, after its confirmations; a sub-account\'s to the sub-account', async () => {
    const a = await receivingWorkspace(w.t.app, { name: 'Alpha Ltd' });
    const b = await receivingWorkspace(w.t.app, { name: 'Beta Ltd' });
    const subId = await createSubAccount(a, 'Alpha Sub');
    await approveOnboarding(w.t.app, asSub(a, subId));
    const accountA = await usdcAccount(a);
    const accountB = await usdcAccount(b);
    const accountSub = await usdcAccount(asSub(a, subId));
    const [addrA, addrB, addrSub] = [addressOf(accountA), addressOf(accountB), addressOf(accountSub)];
    expect(new Set([addrA, addrB, addrSub]).size).toBe(3);

    await pay(w.usdc, addrA, 25_000_000n);
    await pay(w.usdc, addrSub, 4_000_000n);
    await w.worker.tick();
    expect(await deposits(a)).toEqual([]); // 1 confirmation of 3 at most
    await w.anvil.mine(1);
    await pay(w.usdc, addrB, 5_500_000n);
    await w.anvil.mine(3);
    // Two workers at once, and again: each transfer once.
    await Promise.all([w.worker.tick(), new ChainWorker(w.t.ctx).tick()]);
    await w.worker.tick();
    const ofA = await deposits(a);
    expect(ofA.map((d) => [d.amount, d.status, d.rail, d.currency, d.virtualAccountId, d.accountId]).sort()).toEqual(
      [
        ['25.000000', 'completed', 'crypto', 'USDC', accountA.id, null],
        ['4.000000', 'completed', 'crypto', 'USDC', accountSub.id, subId],
      ].sort(),
    );
    expect((await deposits(b)).map((d) => [d.amount, d.virtualAccountId])).toEqual([['5.500000', accountB.id]]);
    const [completed] = await w.t.ctx.db.query<{ n: number }>("SELECT count(*)::int AS n FROM events WHERE type = 'deposit.completed' AND workspace_id = $1", [a.workspaceId]);
    expect(completed?.n).toBe(2);
  });

  it('a transfer reorged out before its confirmations is never credited; an unsupported token or a currency without an account is held for the operator, not credited; a restart resumes from the checkpoint', async () => {
    const c = await receivingWorkspace(w.t.app, { name: 'Gamma Ltd' });
    const address = addressOf(await usdcAccount(c));
    await w.worker.tick();
    // Mined, seen with 1 confirmation, then replaced by an empty block.
    await pay(w.usdc, address, 9_000_000n);
    await w.worker.tick();
    await w.anvil.test.request({ method: 'anvil_reorg' as never, params: [1, []] as never });
    expect(await w.anvil.balance(w.usdc, address)).toBe(0n);
    await w.anvil.mine(4);
    await w.worker.tick();
    expect(await deposits(c)).toEqual([]);

    // Another token to the address, and USDT (enabled, but the owner has no USDT account).
    const other = await w.anvil.deployToken('FOO');
    await w.anvil.mint(other, privateKeyToAccount(DEV_KEYS[SENDER] as Hex).address, 1_000_000n);
    const foo = await pay(other, address, 1_000_000n);
    expect((await operator(w.t.app, 'PUT', `/operator/v1/workspaces/${c.workspaceId}/currencies/USDT`, { enabled: true })).statusCode).toBe(200);
    const usdt = await pay(w.usdt, address, 2_000_000n);
    await w.anvil.mine(3);
    // A fresh worker (a restart) resumes from the stored checkpoint.
    const [before] = await w.t.ctx.db.query<{ next_block: string }>("SELECT next_block::text AS next_block FROM chain_checkpoints WHERE chain = 'ethereum'");
    await new ChainWorker(w.t.ctx).tick();
    const held = await w.t.ctx.db.query<{ tx_hash: string; status: string; reason: string; currency: string | null }>(
      'SELECT tx_hash, status, reason, currency FROM chain_deposits WHERE workspace_id = $1 ORDER BY block_number',
      [c.workspaceId],
    );
    expect(held).toEqual([
      { tx_hash: foo, status: 'held', reason: 'unsupported_token', currency: null },
      { tx_hash: usdt, status: 'held', reason: 'no_virtual_account', currency: 'USDT' },
    ]);
    expect(await deposits(c)).toEqual([]);
    const [after] = await w.t.ctx.db.query<{ next_block: string }>("SELECT next_block::text AS next_block FROM chain_checkpoints WHERE chain = 'ethereum'");
    expect(BigInt(after?.next_block ?? 0)).toBeGreaterThan(BigInt(before?.next_block ?? 0));
  });

  it('the operator sees the held transfers (GET /operator/v1/chain/deposits?status=held) and each chain with its hot wallet, through the API and on the console\'s Chain page', async () => {
    type Held = { chain: string; txHash: string; logIndex: number; token: string; currency: string | null; amount: string | null; amountMinor: string; workspaceId: string; status: string; reason: string | null };
    const res = await operator(w.t.app, 'GET', '/operator/v1/chain/deposits?status=held');
    expect(res.statusCode, res.body).toBe(200);
    const held = res.json<{ object: string; data: Held[]; hasMore: boolean }>();
    expect(held.object).toBe('list');
    expect(held.data.map((d) => [d.status, d.reason, d.currency, d.amount, d.amountMinor]).sort()).toEqual(
      [
        ['held', 'no_virtual_account', 'USDT', '2.000000', '2000000'],
        ['held', 'unsupported_token', null, null, '1000000'],
      ].sort(),
    );
    expect(held.data.every((d) => d.chain === 'ethereum' && /^0x[0-9a-f]{64}$/.test(d.txHash))).toBe(true);
    // Paged, newest first; the credited ones are there too without the filter.
    const one = (await operator(w.t.app, 'GET', '/operator/v1/chain/deposits?status=held&limit=1')).json<{ data: Held[]; nextCursor: string | null }>();
    expect(one.data).toHaveLength(1);
    const next = (await operator(w.t.app, 'GET', `/operator/v1/chain/deposits?status=held&limit=1&cursor=${one.nextCursor}`)).json<{ data: Held[]; hasMore: boolean }>();
    expect([...one.data, ...next.data].map((d) => d.txHash).sort()).toEqual(held.data.map((d) => d.txHash).sort());
    expect(next.hasMore).toBe(false);
    const all = (await operator(w.t.app, 'GET', '/operator/v1/chain/deposits?limit=100')).json<{ data: Held[] }>().data;
    expect(all.filter((d) => d.status === 'credited').length).toBeGreaterThanOrEqual(3);
    expect((await operator(w.t.app, 'GET', '/operator/v1/chain/deposits?status=nope')).statusCode).toBe(400);

    const chains = (await operator(w.t.app, 'GET', '/operator/v1/chain/chains')).json<{ data: { name: string; network: string; chainId: number; hotWallet: string | null; receives: boolean; tokens: Record<string, string> }[] }>().data;
    expect(chains).toEqual([expect.objectContaining({ name: 'ethereum', network: 'ethereum', chainId: w.anvil.chainId, receives: true })]);
    expect(chains[0]?.hotWallet?.toLowerCase()).toBe(HOT.toLowerCase());
    expect(chains[0]?.tokens.USDC?.toLowerCase()).toBe(w.usdc.toLowerCase());

    const client = new WebClient(w.t.app);
    await client.get('/console/sign-in');
    expect((await client.post('/console/sign-in/key', { operatorKey: OPERATOR_KEY })).statusCode).toBe(303);
    const page = await client.get('/console/chain');
    expect(page.statusCode, page.body).toBe(200);
    expect(page.body).toContain('href="/console/chain"');
    expect(page.body.toLowerCase()).toContain(HOT.toLowerCase());
    for (const d of held.data) expect(page.body).toContain(d.txHash);
    expect(page.body).toContain('unsupported_token');
    expect(page.body).toContain('no_virtual_account');
    expect(page.body).not.toMatch(/<script>|style="/);
  });
});
