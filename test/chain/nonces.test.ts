import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChainWorker } from '../../src/connectors/chain/chain.worker.js';
import { ledgerInvariantViolations } from '../../src/domains/ledger/ledger.service.js';
import { treasuryConditions } from '../../src/connectors/chain/chain.treasury.js';
import { OPERATOR_KEY, operator } from '../helpers/app.js';
import { WebClient } from '../helpers/web-client.js';
import { balance, eventTypesOf } from '../payouts/helpers.js';
import { chainRow, chainWorld, handOver, HOT, HOT_KEY, payoutStatus, recipient, usdcPayout, usdcWorkspace, type ChainWorld } from './harness.js';
import { outsideTransaction } from './issuer-tokens.js';

/**
 * The hot wallet used outside Corridor (issue 39): the chain ahead of Corridor's nonce stops the rail,
 * a payout whose nonce another transaction took is put in conflict (never left processing for ever,
 * never counted sent), and the operator re-signs or cancels it; the treasury shows it all.
 */
describe('chain nonces the hot wallet shares with the world', () => {
  let w: ChainWorld;
  beforeAll(async () => {
    w = await chainWorld({ confirmations: 1, issuerTokens: true, chainSettings: { gasLowBelow: '1000000', processingAlarmSeconds: 0 } });
  });
  afterAll(async () => {
    await w?.close();
  });

  const looks = async (n = 2) => {
    for (let i = 0; i < n; i++) await w.worker.tick();
  };
  const post = (url: string, key: string) => w.t.app.inject({ method: 'POST', url, headers: { authorization: `Bearer ${OPERATOR_KEY}`, 'idempotency-key': key } });
  type Treasury = {
    chain: string;
    hotWallet: string;
    gas: { balance: string; lowBelow: string };
    tokens: { currency: string; balance: string }[];
    nonce: { next: string | null; onChain: string };
    processing: { count: number; oldestAgeSeconds: number | null; conflicts: number; held: number };
    lastBlock: { head: string | null };
    breaker: { open: boolean; reason: string | null; detail: string | null };
    conditions: { code: string; message: string }[];
  };
  const treasury = async () => {
    const res = await operator(w.t.app, 'GET', '/operator/v1/chain/treasury');
    expect(res.statusCode, res.body).toBe(200);
    return res.json<{ data: Treasury[] }>().data[0] as Treasury;
  };

  it('a transaction from the hot wallet outside Corridor stops the rail (nonce_drift): the payout is held, the operator sees it and resumes, and it is paid at the next nonce', async () => {
    const c = await usdcWorkspace(w.t);
    const first = await usdcPayout(c, recipient(), '1');
    await handOver(w);
    await looks();
    expect((await payoutStatus(w, first)).status).toBe('paid');
    await outsideTransaction(w.anvil, HOT_KEY);
    const to = recipient();
    const id = await usdcPayout(c, to, '2');
    await handOver(w);
    await looks();
    expect((await chainRow(w, id)).status).toBe('accepted');
    const t = await treasury();
    expect(t.breaker).toMatchObject({ open: true, reason: 'nonce_drift' });
    expect(BigInt(t.nonce.onChain)).toBe(BigInt(t.nonce.next ?? '0') + 1n);
    expect(t.conditions.map((x) => x.code)).toEqual(expect.arrayContaining(['breaker_open', 'nonce_drift']));
    const res = await post('/operator/v1/chain/chains/ethereum/resume', 'resume-drift');
    expect(res.statusCode, res.body).toBe(200);
    await looks();
    expect((await payoutStatus(w, id)).status).toBe('paid');
    expect(await w.anvil.balance(w.usdc, to)).toBe(2_000_000n);
    const after = await treasury();
    expect(after.nonce.next).toBe(after.nonce.onChain);
    expect(after.breaker.open).toBe(false);
  });

  it("a payout whose nonce another transaction took is put in conflict, not left processing (nonce too low is not success without our receipt); the operator re-signs it once at a fresh nonce and it is paid", async () => {
    const c = await usdcWorkspace(w.t);
    const to = recipient();
    const id = await usdcPayout(c, to, '3');
    await handOver(w);
    // Between signing and broadcast, the hot wallet signs elsewhere at the same nonce.
    const racing = new ChainWorker(w.t.ctx, {
      hooks: {
        afterSign: async () => {
          const nonce = (await chainRow(w, id)).nonce;
          await outsideTransaction(w.anvil, HOT_KEY, Number(nonce));
        },
      },
    });
    await racing.tick();
    await looks(3);
    expect((await chainRow(w, id)).status).toBe('conflict');
    expect((await payoutStatus(w, id)).status).toBe('processing');
    expect(await w.anvil.balance(w.usdc, to)).toBe(0n);
    const t = await treasury();
    expect(t.processing.conflicts).toBe(1);
    expect(t.conditions.map((x) => x.code)).toEqual(expect.arrayContaining(['nonce_conflict', 'breaker_open', 'processing_too_long']));
    const listed = (await operator(w.t.app, 'GET', '/operator/v1/chain/payouts')).json<{ data: { payoutId: string; status: string; ageSeconds: number; errorDetail: string }[] }>().data;
    expect(listed.find((p) => p.payoutId === id)).toMatchObject({ status: 'conflict', errorDetail: expect.stringMatching(/nonce/i) });

    // The console shows the conflict with its actions, the treasury and the breaker.
    const web = new WebClient(w.t.app);
    await web.get('/console/sign-in');
    await web.post('/console/sign-in/key', { operatorKey: OPERATOR_KEY });
    const page = await web.get('/console/chain');
    expect(page.statusCode, page.body).toBe(200);
    expect(page.body).toContain(id);
    expect(page.body).toContain(`/console/chain/payouts/${id}/resign`);
    expect(page.body).toContain('nonce_drift');

    const resigned = await post(`/operator/v1/chain/payouts/${id}/resign`, `resign-${id}`);
    expect(resigned.statusCode, resigned.body).toBe(200);
    expect(resigned.json()).toMatchObject({ status: 'signed' });
    const again = await post(`/operator/v1/chain/payouts/${id}/resign`, `resign-${id}`);
    expect(again.statusCode).toBe(200);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect((await post('/operator/v1/chain/chains/ethereum/resume', `resume-${id}`)).statusCode).toBe(200);
    await looks(3);
    expect((await payoutStatus(w, id)).status).toBe('paid');
    const transfers = (await w.anvil.transfers(w.usdc)).filter((x) => x.to === to);
    expect(transfers).toHaveLength(1);
    expect(transfers[0]?.value).toBe(3_000_000n);
    const versions = await w.t.ctx.db.query<{ nonce: string }>('SELECT nonce::text AS nonce FROM chain_transactions WHERE payout_id = $1 ORDER BY signed_at', [id]);
    expect(versions).toHaveLength(2);
    expect(versions[0]?.nonce).not.toBe(versions[1]?.nonce);
  });

  it('a payout in conflict the operator cancels fails once, its funds back on the balance, the ledger balanced; a second cancel is refused', async () => {
    const c = await usdcWorkspace(w.t, '1000');
    const id = await usdcPayout(c, recipient(), '10');
    await handOver(w);
    const racing = new ChainWorker(w.t.ctx, {
      hooks: { afterSign: async () => void (await outsideTransaction(w.anvil, HOT_KEY, Number((await chainRow(w, id)).nonce))) },
    });
    await racing.tick();
    await looks(3);
    expect((await chainRow(w, id)).status).toBe('conflict');
    expect(await balance(c, 'USDC')).toMatchObject({ balance: '990.000000' });
    const cancelled = await post(`/operator/v1/chain/payouts/${id}/cancel`, `cancel-${id}`);
    expect(cancelled.statusCode, cancelled.body).toBe(200);
    expect(await payoutStatus(w, id)).toEqual({ status: 'failed', failure_reason: 'chain_nonce_conflict_cancelled' });
    expect(await balance(c, 'USDC')).toMatchObject({ balance: '1000.000000', pendingOut: '0.000000' });
    expect((await eventTypesOf(w.t, id)).filter((e) => e === 'payout.failed')).toHaveLength(1);
    const twice = await post(`/operator/v1/chain/payouts/${id}/cancel`, `cancel-again-${id}`);
    expect(twice.statusCode).toBe(409);
    expect(await balance(c, 'USDC')).toMatchObject({ balance: '1000.000000' });
    expect(await ledgerInvariantViolations(w.t.ctx.db)).toEqual([]);
    expect((await post('/operator/v1/chain/chains/ethereum/resume', `resume-c-${id}`)).statusCode).toBe(200);
  });

  it('the treasury shows the hot wallet\'s gas and token balances, its nonce against the chain, the last block, and the conditions with their thresholds (queryable for alerts)', async () => {
    const t = await treasury();
    expect(t.hotWallet.toLowerCase()).toBe(HOT.toLowerCase());
    expect(Number(t.gas.balance)).toBeGreaterThan(0);
    expect(t.gas.lowBelow).toBe('1000000');
    expect(t.tokens.map((x) => x.currency).sort()).toEqual(['USDC', 'USDT']);
    expect(t.nonce.next).toBe(t.nonce.onChain);
    expect(BigInt(t.lastBlock.head ?? '0')).toBeGreaterThan(0n);
    const conditions = await treasuryConditions(w.t.ctx);
    expect(conditions).toEqual([expect.objectContaining({ chain: 'ethereum', code: 'gas_low' })]);
  });
});
