import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeFunctionData, type Address, type Hex } from 'viem';
import { operator, type Caller } from '../helpers/app.js';
import { TOKEN_ABI } from '../helpers/anvil.js';
import { ofacSdn2021 } from '../helpers/real-world.js';
import { balance } from '../payouts/helpers.js';
import { loadList, operatorPost } from '../screening/helpers.js';
import { receivingWorkspace, requestAccount, type VirtualAccount } from '../virtual-accounts/helpers.js';
import { chainRow, chainWorld, handOver, recipient, usdcPayout, usdcWorkspace, type ChainWorld } from './harness.js';

/** OFAC SDN entry 29703 (Anton Nikolaeyvich ANDREYEV) lists this ETH address; its remark runs on into SDN_COMMENTS.CSV. */
const LISTED = '0x8576acc5c05d6ce88f4e49bf65bdf0c62f91353c' as Address;

interface HeldDeposit {
  id: string;
  status: string;
  reason: string | null;
  fromAddress: string;
  depositId: string | null;
  decidedBy: string | null;
  evidence: { list: string; entryId: string; entryName: string; address?: string; currency?: string }[];
}

/** Wallet addresses screened against the real July 2021 OFAC SDN set, on anvil: payouts to one held, deposits from one held. */
describe('sanctioned wallet addresses', () => {
  let w: ChainWorld;
  beforeAll(async () => {
    w = await chainWorld({ confirmations: 2 });
    const res = await loadList(w.t, 'ofac-sdn', ofacSdn2021(), 'text/csv');
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json()).toMatchObject({ format: 'ofac-csv', addresses: 97 });
  });
  afterAll(async () => {
    await w?.close();
  });

  it('a payout to a listed address, under another name, is held with the evidence (list, entry, address) and never signed; another address is paid', async () => {
    const c = await usdcWorkspace(w.t);
    const held = await usdcPayout(c, LISTED, '10.00');
    const read = (await c.request('GET', `/v1/payouts/${held}`)).json<{ status: string; screening: { status: string; hits: Record<string, unknown>[] } }>();
    expect(read.status).toBe('queued');
    expect(read.screening.status).toBe('held');
    expect(read.screening.hits).toEqual([
      { list: 'ofac-sdn', entryId: '29703', entryName: 'Anton Nikolaeyvich ANDREYEV', matchedName: LISTED, score: 1, address: LISTED, currency: 'ETH' },
    ]);
    // The checksummed spelling of the same address is the same address.
    const mixed = await usdcPayout(c, '0x8576aCC5C05D6Ce88f4e49bf65BdF0C62F91353C' as Address, '1.00');
    expect((await c.request('GET', `/v1/payouts/${mixed}`)).json<{ screening: { status: string } }>().screening.status).toBe('held');
    const clear = await usdcPayout(c, recipient(), '2.00');

    await handOver(w);
    await w.worker.tick();
    expect(await w.t.ctx.db.query('SELECT 1 FROM chain_payouts WHERE payout_id = ANY($1::uuid[])', [[held, mixed]])).toEqual([]);
    expect((await chainRow(w, clear)).status).not.toBe('accepted');
    expect(await w.anvil.balance(w.usdc, LISTED)).toBe(0n);
    // The operator's queue shows it with the same evidence.
    const hold = (await operator(w.t.app, 'GET', `/operator/v1/screening/holds/${held}`)).json<{ status: string; hits: Record<string, unknown>[] }>();
    expect(hold).toMatchObject({ status: 'held', hits: [expect.objectContaining({ entryId: '29703', address: LISTED, subjectName: LISTED })] });
  });

  async function usdcAddress(c: Caller): Promise<Address> {
    await requestAccount(c, 'USDC');
    const [account] = (await c.request('GET', '/v1/virtual-accounts?currency=USDC')).json<{ data: VirtualAccount[] }>().data;
    return ((account?.addresses as { address: Address }[])[0] as { address: Address }).address;
  }

  /** A transfer sent by the listed address itself (anvil sends for any address: eth_sendUnsignedTransaction). */
  async function payFromListed(to: Address, amount: bigint): Promise<Hex> {
    await w.anvil.test.setBalance({ address: LISTED, value: 10n ** 18n });
    await w.anvil.mint(w.usdc, LISTED, amount);
    const hash = await w.anvil.test.sendUnsignedTransaction({ from: LISTED, to: w.usdc, data: encodeFunctionData({ abi: TOKEN_ABI, functionName: 'transfer', args: [to, amount] }) });
    await w.anvil.public.waitForTransactionReceipt({ hash });
    return hash;
  }

  const chainDeposits = async (c: Caller) => (await operator(w.t.app, 'GET', `/operator/v1/chain/deposits?limit=100`)).json<{ data: (HeldDeposit & { workspaceId: string })[] }>().data.filter((d) => d.workspaceId === c.workspaceId);
  const depositsOf = async (c: Caller) =>
    (await c.request('GET', '/v1/deposits')).json<{ data: { id: string; amount: string; status: string; chain: string | null; txHash: string | null; fromAddress: string | null; blockNumber: string | null }[] }>().data;

  it('a deposit from a listed address is held for the operator with the evidence, not credited; release credits it once, reject never does', async () => {
    const c = await receivingWorkspace(w.t.app, { name: 'Deposit Taker Ltd' });
    const address = await usdcAddress(c);
    const first = await payFromListed(address, 7_000_000n);
    const second = await payFromListed(address, 3_000_000n);
    await w.anvil.mine(2);
    await w.worker.tick();
    const held = await chainDeposits(c);
    expect(held.map((d) => [d.status, d.reason, d.fromAddress, d.depositId])).toEqual([
      ['held', 'sanctioned_address', LISTED, null],
      ['held', 'sanctioned_address', LISTED, null],
    ]);
    expect(held[0]?.evidence).toEqual([expect.objectContaining({ list: 'ofac-sdn', entryId: '29703', entryName: 'Anton Nikolaeyvich ANDREYEV', address: LISTED, currency: 'ETH' })]);
    expect(await depositsOf(c)).toEqual([]);
    expect(await balance(c, 'USDC')).toBeUndefined();

    const byHash = async (hash: Hex) => (await w.t.ctx.db.query<{ id: string }>('SELECT id FROM chain_deposits WHERE tx_hash = $1', [hash]))[0]?.id as string;
    const release = await operatorPost(w.t, `/operator/v1/chain/deposits/${await byHash(first)}/release`);
    expect(release.statusCode, release.body).toBe(200);
    expect(release.json()).toMatchObject({ status: 'credited', decidedBy: expect.stringMatching(/^key:/), depositId: expect.any(String) });
    const again = await operatorPost(w.t, `/operator/v1/chain/deposits/${await byHash(first)}/release`);
    expect(again.statusCode, again.body).toBe(409);
    const reject = await operatorPost(w.t, `/operator/v1/chain/deposits/${await byHash(second)}/reject`);
    expect(reject.statusCode, reject.body).toBe(200);
    expect(reject.json()).toMatchObject({ status: 'rejected', depositId: null });

    await w.anvil.mine(2);
    await w.worker.tick();
    expect((await depositsOf(c)).map((d) => [d.amount, d.status])).toEqual([['7.000000', 'completed']]);
    // The integrator sees where it came from.
    const mined = await w.anvil.public.getTransactionReceipt({ hash: first });
    expect((await depositsOf(c))[0]).toMatchObject({ chain: 'ethereum', txHash: first, fromAddress: LISTED, blockNumber: mined.blockNumber.toString() });
    expect(await balance(c, 'USDC')).toMatchObject({ balance: '7.000000' });
    expect((await chainDeposits(c)).map((d) => d.status).sort()).toEqual(['credited', 'rejected']);
  });
});
