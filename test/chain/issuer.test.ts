import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Address } from 'viem';
import { ChainWorker } from '../../src/connectors/chain/chain.worker.js';
import { ledgerInvariantViolations } from '../../src/domains/ledger/ledger.service.js';
import { OPERATOR_KEY, operator } from '../helpers/app.js';
import { balance, fund, payingWorkspace } from '../payouts/helpers.js';
import { chainRow, chainWorld, handOver, HOT, payoutStatus, recipient, usdcPayout, type ChainWorld } from './harness.js';
import { receivingWorkspace, requestAccount } from '../virtual-accounts/helpers.js';
import { FEE_USD, ISSUER_USD, issuerCall } from './issuer-tokens.js';

/**
 * Payouts in tokens that behave like the real ones (issue 39): the issuer's blacklist, pause and
 * transfer fee checked before signing with no gas spent, the circuit breaker, nonces the chain took
 * outside Corridor, and what the recipient's Transfer log says was delivered.
 */
describe('chain payouts in tokens with an issuer (USDC-like and USDT-like)', () => {
  let w: ChainWorld;
  beforeAll(async () => {
    // Gas is estimated before signing: a fee switched on after the estimate (the race below) costs the
    // transfer another storage write, so this chain's margin leaves room for it (gasMarginPercent).
    w = await chainWorld({ confirmations: 1, issuerTokens: true, chainSettings: { breakerThreshold: 3, gasMarginPercent: 100 } });
  });
  afterAll(async () => {
    await w?.close();
  });

  const workspace = async () => {
    const c = await payingWorkspace(w.t);
    expect((await operator(w.t.app, 'PUT', `/operator/v1/workspaces/${c.workspaceId}/currencies/USDT`, { enabled: true })).statusCode).toBe(200);
    await fund(c, 'USDC', '100000');
    await fund(c, 'USDT', '100000');
    return c;
  };
  /** Looks until nothing moves (automine: a look signs and mines, the next confirms). */
  const looks = async (n = 2) => {
    for (let i = 0; i < n; i++) await w.worker.tick();
  };
  const gasOfHot = () => w.anvil.public.getBalance({ address: HOT });
  const hotNonce = () => w.anvil.public.getTransactionCount({ address: HOT, blockTag: 'pending' });
  const chainTxCount = async (id: string) =>
    (await w.t.ctx.db.query<{ n: number }>('SELECT count(*)::int AS n FROM chain_transactions WHERE payout_id = $1', [id]))[0]?.n;
  const post = (url: string, key: string) => w.t.app.inject({ method: 'POST', url, headers: { authorization: `Bearer ${OPERATOR_KEY}`, 'idempotency-key': key } });
  const resume = async () => {
    const res = await post('/operator/v1/chain/chains/ethereum/resume', `resume-${Math.random()}`);
    expect(res.statusCode, res.body).toBe(200);
    return res.json<{ resumed: boolean; breaker: { open: boolean } }>();
  };

  it('a USDT payout (transfer returns nothing) is paid and the recipient gets exactly the amount', async () => {
    const c = await workspace();
    const to = recipient();
    const id = await usdcPayout(c, to, '25.5', 'ethereum', 'USDT');
    await handOver(w);
    await looks();
    expect((await payoutStatus(w, id)).status).toBe('paid');
    expect(await w.anvil.balance(w.usdt, to)).toBe(25_500_000n);
  });

  it('a USDT payout to a recipient the issuer blacklisted is never paid: it fails recipient_frozen_by_issuer before signing, no gas spent, funds back (Tether would have frozen and then destroyed it)', async () => {
    const c = await workspace();
    const to = recipient();
    await issuerCall(w.anvil, w.usdt, FEE_USD.abi, 'addBlackList', [to]);
    const gas = await gasOfHot();
    const nonce = await hotNonce();
    const id = await usdcPayout(c, to, '10', 'ethereum', 'USDT');
    await handOver(w);
    await looks();
    // The issuer destroys what reached the frozen balance: nothing did.
    await issuerCall(w.anvil, w.usdt, FEE_USD.abi, 'destroyBlackFunds', [to]);
    await looks();
    expect(await payoutStatus(w, id)).toEqual({ status: 'failed', failure_reason: 'recipient_frozen_by_issuer' });
    expect(await chainTxCount(id)).toBe(0);
    expect(await gasOfHot()).toBe(gas);
    expect(await hotNonce()).toBe(nonce);
    expect(await balance(c, 'USDT')).toMatchObject({ balance: '100000.000000', pendingOut: '0.000000' });
    expect(await ledgerInvariantViolations(w.t.ctx.db)).toEqual([]);
    const [row] = await w.t.ctx.db.query<{ error_detail: string }>('SELECT error_detail FROM chain_payouts WHERE payout_id = $1', [id]);
    expect(row?.error_detail).toContain(to);
  });

  it('a USDC payout to a blacklisted recipient fails recipient_frozen_by_issuer with no gas spent (no transaction that would revert)', async () => {
    const c = await workspace();
    const to = recipient();
    await issuerCall(w.anvil, w.usdc, ISSUER_USD.abi, 'blacklist', [to]);
    const gas = await gasOfHot();
    const id = await usdcPayout(c, to, '3');
    await handOver(w);
    await looks();
    expect(await payoutStatus(w, id)).toEqual({ status: 'failed', failure_reason: 'recipient_frozen_by_issuer' });
    expect(await gasOfHot()).toBe(gas);
    expect(await chainTxCount(id)).toBe(0);
  });

  it('the same refusal three times in a row opens the breaker: the fourth payout is held, not failed; visible to the operator; resumed, it is paid', async () => {
    const c = await workspace();
    const frozen = recipient();
    await issuerCall(w.anvil, w.usdc, ISSUER_USD.abi, 'blacklist', [frozen]);
    // The streak of the refusals before ends with a payout that goes through.
    const ok = await usdcPayout(c, recipient(), '1');
    await handOver(w);
    await looks();
    expect((await payoutStatus(w, ok)).status).toBe('paid');
    // Handed over together, the three refusals come in any order: the third opens the breaker.
    const refused = [await usdcPayout(c, frozen, '1'), await usdcPayout(c, frozen, '1'), await usdcPayout(c, frozen, '1')];
    await handOver(w);
    await looks();
    const good = recipient();
    const held = await usdcPayout(c, good, '4');
    await handOver(w);
    await looks();
    for (const id of refused) expect((await payoutStatus(w, id)).failure_reason).toBe('recipient_frozen_by_issuer');
    expect((await payoutStatus(w, held)).status).not.toBe('failed');
    expect((await chainRow(w, held)).status).toBe('accepted');
    const treasury = (await operator(w.t.app, 'GET', '/operator/v1/chain/treasury')).json<{ data: { breaker: { open: boolean; reason: string }; processing: { held: number }; conditions: { code: string }[] }[] }>().data[0];
    expect(treasury?.breaker).toMatchObject({ open: true, reason: 'recipient_frozen_by_issuer' });
    expect(treasury?.processing.held).toBe(1);
    expect(treasury?.conditions.map((x) => x.code)).toContain('breaker_open');
    await looks(); // still held
    expect((await chainRow(w, held)).status).toBe('accepted');
    expect(await resume()).toMatchObject({ resumed: true, breaker: { open: false } });
    await looks();
    expect((await payoutStatus(w, held)).status).toBe('paid');
    expect(await w.anvil.balance(w.usdc, good)).toBe(4_000_000n);
  });

  it('a paused token opens the breaker at once (token_paused): the payout is held with no gas spent, and paid once the issuer unpauses and the operator resumes', async () => {
    const c = await workspace();
    await issuerCall(w.anvil, w.usdc, ISSUER_USD.abi, 'pause');
    const gas = await gasOfHot();
    const to = recipient();
    const id = await usdcPayout(c, to, '2');
    await handOver(w);
    await looks();
    expect((await chainRow(w, id)).status).toBe('accepted');
    expect((await payoutStatus(w, id)).status).not.toBe('failed');
    expect(await gasOfHot()).toBe(gas);
    const t = (await operator(w.t.app, 'GET', '/operator/v1/chain/treasury')).json<{ data: { breaker: { open: boolean; reason: string } }[] }>().data[0];
    expect(t?.breaker).toMatchObject({ open: true, reason: 'token_paused' });
    await issuerCall(w.anvil, w.usdc, ISSUER_USD.abi, 'unpause');
    await resume();
    await looks();
    expect((await payoutStatus(w, id)).status).toBe('paid');
  });

  it('a hot wallet on the issuer\'s blacklist opens the breaker (hot_wallet_frozen) with no gas spent', async () => {
    const c = await workspace();
    await issuerCall(w.anvil, w.usdc, ISSUER_USD.abi, 'blacklist', [HOT]);
    const gas = await gasOfHot();
    const id = await usdcPayout(c, recipient(), '2');
    await handOver(w);
    await looks();
    expect((await chainRow(w, id)).status).toBe('accepted');
    expect(await gasOfHot()).toBe(gas);
    const t = (await operator(w.t.app, 'GET', '/operator/v1/chain/treasury')).json<{ data: { breaker: { open: boolean; reason: string } }[] }>().data[0];
    expect(t?.breaker).toMatchObject({ open: true, reason: 'hot_wallet_frozen' });
    await issuerCall(w.anvil, w.usdc, ISSUER_USD.abi, 'unBlacklist', [HOT]);
    await resume();
    await looks();
    expect((await payoutStatus(w, id)).status).toBe('paid');
  });

  it('a USDT fee switched on is refused per payout (token_transfer_fee) before signing; switched on after signing, the payout is paid with what was delivered recorded and shown', async () => {
    const c = await workspace();
    await issuerCall(w.anvil, w.usdt, FEE_USD.abi, 'setParams', [10n, 10n]); // 0.1%, at most 10 USDT
    const refused = await usdcPayout(c, recipient(), '100', 'ethereum', 'USDT');
    await handOver(w);
    await looks();
    expect(await payoutStatus(w, refused)).toEqual({ status: 'failed', failure_reason: 'token_transfer_fee' });
    expect(await chainTxCount(refused)).toBe(0);
    await issuerCall(w.anvil, w.usdt, FEE_USD.abi, 'setParams', [0n, 0n]);

    // The fee switched on between the checks and the block: the Transfer log tells.
    const to = recipient();
    const id = await usdcPayout(c, to, '100', 'ethereum', 'USDT');
    await handOver(w);
    // A worker that lets the issuer switch the fee on after the checks and signing, before the broadcast.
    let switched = false;
    const racing = new ChainWorker(w.t.ctx, {
      hooks: {
        afterSign: async () => {
          if (switched) return;
          switched = true;
          await issuerCall(w.anvil, w.usdt, FEE_USD.abi, 'setParams', [10n, 10n]);
        },
      },
    });
    await racing.tick();
    await looks();
    expect(await w.anvil.balance(w.usdt, to)).toBe(99_900_000n);
    expect((await payoutStatus(w, id)).status).toBe('paid');
    const read = (await c.request('GET', `/v1/payouts/${id}`)).json<{ amount: string; deliveredAmount?: string }>();
    expect(read).toMatchObject({ amount: '100.000000', deliveredAmount: '99.900000' });
    const [row] = await w.t.ctx.db.query<{ delivered_minor: string }>('SELECT delivered_minor::text AS delivered_minor FROM chain_payouts WHERE payout_id = $1', [id]);
    expect(row?.delivered_minor).toBe('99900000');
    await issuerCall(w.anvil, w.usdt, FEE_USD.abi, 'setParams', [0n, 0n]);
    // The fee refusal streak (one) ended with the paid payout; nothing left open.
    await resume();
  });

  it('destinations that destroy funds are refused at submit with a field error: the zero address, a token contract, the hot wallet', async () => {
    const c = await workspace();
    for (const to of ['0x0000000000000000000000000000000000000000', w.usdc, w.usdt, HOT] as Address[]) {
      const res = await c.request('POST', '/v1/payouts', {
        clientRef: `dest-${to}-${Math.random()}`,
        amount: '1',
        currency: 'USDC',
        route: 'crypto',
        beneficiary: { name: 'Satoshi Nakamoto', country: 'JP', accounts: [{ type: 'crypto', currency: 'USDC', data: { network: 'ethereum', address: to } }] },
      });
      expect(res.statusCode, res.body).toBe(400);
      expect(JSON.stringify(res.json())).toContain('beneficiary.accounts.0.data.address');
    }
    expect(await balance(c, 'USDC')).toMatchObject({ balance: '100000.000000', pendingOut: '0.000000' });
  });

  it("a payout to one of Corridor's own deposit addresses fails (destination_is_corridor_deposit_address), funds back, nothing sent", async () => {
    const c = await workspace();
    const receiver = await receivingWorkspace(w.t.app);
    await requestAccount(receiver, 'USDC');
    const [account] = (await receiver.request('GET', '/v1/virtual-accounts?currency=USDC')).json<{ data: { addresses: { address: Address }[] }[] }>().data;
    const own = account?.addresses[0]?.address as Address;
    expect(own).toMatch(/^0x[0-9a-fA-F]{40}$/);
    const id = await usdcPayout(c, own, '5');
    await handOver(w);
    await looks();
    expect(await payoutStatus(w, id)).toEqual({ status: 'failed', failure_reason: 'destination_is_corridor_deposit_address' });
    expect(await chainTxCount(id)).toBe(0);
    expect(await balance(c, 'USDC')).toMatchObject({ balance: '100000.000000' });
  });
});
