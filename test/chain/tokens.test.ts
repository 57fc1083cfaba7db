import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseTransaction, type Address, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { operator, OPERATOR_KEY } from '../helpers/app.js';
import { WebClient } from '../helpers/web-client.js';
import { DEV_KEYS } from '../helpers/anvil.js';
import { fund } from '../payouts/helpers.js';
import { receivingWorkspace, requestAccount, type VirtualAccount } from '../virtual-accounts/helpers.js';
import { chainWorld, cryptoPayoutBody, handOver, HOT, payoutStatus, recipient, usdcWorkspace, type ChainWorld } from './harness.js';

/**
 * Tokens as they are (issue 39, point 8), one anvil: USDT with 18 decimals (as on BNB Chain) paid and
 * credited exactly, a dust threshold on deposits, gas estimated with a margin and a minimum tip, and
 * only the networks a configured chain serves offered and accepted.
 */
describe('chain tokens as they are on anvil', () => {
  let w: ChainWorld;
  const SENDER = 2;
  const senderAddress = privateKeyToAccount(DEV_KEYS[SENDER] as Hex).address;
  const E12 = 10n ** 12n;
  beforeAll(async () => {
    w = await chainWorld({ confirmations: 1, usdtDecimals: 18, chainSettings: { dustBelow: { USDC: '1' }, minPriorityFeeGwei: '3', gasMarginPercent: 20 } });
    await w.anvil.mint(w.usdt, HOT, 1_000_000n * 10n ** 18n);
    await w.anvil.mint(w.usdt, senderAddress, 1_000n * 10n ** 18n);
    await w.anvil.mint(w.usdc, senderAddress, 1_000_000_000n);
  }, 120_000);
  afterAll(async () => {
    await w?.close();
  });

  const addressOf = (account: VirtualAccount): Address => (account.addresses as { address: Address }[])[0]?.address as Address;

  async function pay(token: Address, to: Address, amount: bigint): Promise<Hex> {
    const hash = await w.anvil.transferFrom(SENDER, token, to, amount);
    await w.anvil.public.waitForTransactionReceipt({ hash });
    return hash;
  }

  it('an 18-decimal USDT payout sends 10^12 base units per minor unit, with gas from eth_estimateGas plus the margin and the minimum tip, and is paid for its amount', async () => {
    const c = await usdcWorkspace(w.t);
    expect((await operator(w.t.app, 'PUT', `/operator/v1/workspaces/${c.workspaceId}/currencies/USDT`, { enabled: true })).statusCode).toBe(200);
    await fund(c, 'USDT', '1000');
    const to = recipient();
    const res = await c.request('POST', '/v1/payouts', cryptoPayoutBody(to, '12.345678', 'USDT'));
    expect(res.statusCode, res.body).toBe(201);
    const id = res.json<{ id: string }>().id;
    await handOver(w);
    await w.worker.tick();
    await w.anvil.mine(1);
    await w.worker.tick();
    expect(await payoutStatus(w, id)).toMatchObject({ status: 'paid', failure_reason: null });
    expect(await w.anvil.balance(w.usdt, to)).toBe(12_345_678n * E12);
    const read = (await c.request('GET', `/v1/payouts/${id}`)).json<{ amount: string; deliveredAmount?: string | null; txHash: string }>();
    expect(read.amount).toBe('12.345678');
    expect(read.deliveredAmount ?? null).toBeNull();

    const [signed] = await w.t.ctx.db.query<{ raw: Hex }>('SELECT raw FROM chain_transactions WHERE payout_id = $1', [id]);
    const tx = parseTransaction(signed?.raw as Hex);
    const mined = await w.anvil.public.getTransactionReceipt({ hash: read.txHash as Hex });
    // Not the old fixed 100,000: the estimate (what the transfer used, give or take) plus 20%.
    expect(tx.gas).not.toBe(100_000n);
    expect(tx.gas).toBeGreaterThanOrEqual((mined.gasUsed * 120n) / 100n);
    expect(tx.gas).toBeLessThanOrEqual((mined.gasUsed * 130n) / 100n);
    // The configured tip is 1 gwei; the chain's minimum of 3 gwei wins.
    expect(tx.maxPriorityFeePerGas).toBe(3_000_000_000n);
  });

  it('an 18-decimal USDT deposit is credited at 6 decimals, with chain, txHash, fromAddress and blockNumber on the deposit; USDC below the dust threshold is held for the operator, not credited', async () => {
    const c = await receivingWorkspace(w.t.app, { name: 'Decimals Ltd' });
    expect((await operator(w.t.app, 'PUT', `/operator/v1/workspaces/${c.workspaceId}/currencies/USDT`, { enabled: true })).statusCode).toBe(200);
    await requestAccount(c, 'USDT');
    await requestAccount(c, 'USDC');
    const accounts = (await c.request('GET', '/v1/virtual-accounts')).json<{ data: VirtualAccount[] }>().data;
    const usdt = accounts.find((a) => a.currency === 'USDT') as VirtualAccount;
    const usdc = accounts.find((a) => a.currency === 'USDC') as VirtualAccount;
    const hash = await pay(w.usdt, addressOf(usdt), 7_500_000n * E12 + 1n); // 7.5 USDT and a base unit below one minor unit
    const dust = await pay(w.usdc, addressOf(usdc), 999_999n); // 0.999999 USDC, below 1
    await w.anvil.mine(1);
    await w.worker.tick();
    const deposits = (await c.request('GET', '/v1/deposits')).json<{ data: { amount: string; currency: string; status: string; chain: string | null; txHash: string | null; fromAddress: string | null; blockNumber: string | number | null }[] }>().data;
    expect(deposits).toHaveLength(1);
    const receipt = await w.anvil.public.getTransactionReceipt({ hash });
    expect(deposits[0]).toMatchObject({ amount: '7.500000', currency: 'USDT', status: 'completed', chain: 'ethereum', txHash: hash });
    expect(deposits[0]?.fromAddress?.toLowerCase()).toBe(senderAddress.toLowerCase());
    expect(String(deposits[0]?.blockNumber)).toBe(receipt.blockNumber.toString());

    const held = (await operator(w.t.app, 'GET', '/operator/v1/chain/deposits?status=held')).json<{ data: { txHash: string; reason: string; amount: string; amountMinor: string }[] }>().data;
    expect(held.map((d) => [d.txHash, d.reason, d.amount, d.amountMinor])).toEqual([[dust, 'below_dust_threshold', '0.999999', '999999']]);
    const credited = (await operator(w.t.app, 'GET', '/operator/v1/chain/deposits?status=credited')).json<{ data: { txHash: string; amount: string; amountMinor: string }[] }>().data;
    expect(credited.find((d) => d.txHash === hash)).toMatchObject({ amount: '7.500000', amountMinor: (7_500_000n * E12 + 1n).toString() });

    // The operator releases the dust from the console's Chain page: credited once.
    const heldId = (await operator(w.t.app, 'GET', '/operator/v1/chain/deposits?status=held')).json<{ data: { id: string }[] }>().data[0]?.id as string;
    const web = new WebClient(w.t.app);
    await web.get('/console/sign-in');
    await web.post('/console/sign-in/key', { operatorKey: OPERATOR_KEY });
    const page = await web.get('/console/chain');
    const form = new RegExp(`<form[^>]*action="/console/chain/deposits/${heldId}/release"[\\s\\S]*?</form>`).exec(page.body)?.[0] ?? '';
    const fields = Object.fromEntries([...form.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)"/g)].map((m) => [m[1] as string, m[2] as string]));
    expect(Object.keys(fields)).toContain('_csrf');
    expect(page.body).toContain(`/console/chain/deposits/${heldId}/reject`);
    const { _csrf: csrf, ...once } = fields;
    const released = await web.post(`/console/chain/deposits/${heldId}/release`, once, { csrf: csrf ?? null });
    expect(released.statusCode, released.body).toBe(303);
    const after = (await c.request('GET', '/v1/deposits')).json<{ data: { amount: string; currency: string }[] }>().data;
    expect(after.map((d) => [d.amount, d.currency]).sort()).toEqual([['0.999999', 'USDC'], ['7.500000', 'USDT']]);
    expect((await operator(w.t.app, 'GET', '/operator/v1/chain/deposits?status=held')).json<{ data: unknown[] }>().data).toEqual([]);
  });

  it('offers and accepts only the networks a configured chain pays: a polygon or tron payout is refused at submit with a field error', async () => {
    const c = await usdcWorkspace(w.t);
    expect((await operator(w.t.app, 'PUT', `/operator/v1/workspaces/${c.workspaceId}/currencies/USDT`, { enabled: true })).statusCode).toBe(200);
    for (const [network, currency] of [['polygon', 'USDC'], ['tron', 'USDT']] as const) {
      const res = await c.request('POST', '/v1/payouts', cryptoPayoutBody(network === 'tron' ? 'TJRabPrwbZy45sbavfcjinPJC18kjpRTv8' : recipient(), '5', currency, network));
      expect(res.statusCode, res.body).toBe(400);
      const fields = res.json<{ errors?: { field: string; code: string }[]; details?: { field: string; code: string }[] }>();
      expect([...(fields.errors ?? []), ...(fields.details ?? [])]).toContainEqual(expect.objectContaining({ field: 'beneficiary.accounts.0.data.network', code: 'UNSUPPORTED_CORRIDOR' }));
    }
    const [{ n } = { n: -1 }] = await w.t.ctx.db.query<{ n: number }>("SELECT count(*)::int AS n FROM payouts WHERE workspace_id = $1", [c.workspaceId]);
    expect(n).toBe(0);

    const rails = async (network: string) => {
      const b = await c.request('POST', '/v1/beneficiaries', { name: 'Satoshi Nakamoto', country: 'JP', accounts: [{ type: 'crypto', currency: 'USDC', data: { network, address: recipient() } }] });
      expect(b.statusCode, b.body).toBe(201);
      const accountId = b.json<{ accounts: { id: string }[] }>().accounts[0]?.id;
      return (await c.request('GET', `/v1/payouts/available-rails?accountId=${accountId}`)).json<{ data: { route: string }[] }>().data.map((r) => r.route);
    };
    expect(await rails('ethereum')).toEqual(['crypto']);
    expect(await rails('polygon')).toEqual([]);
  });
});
