import { spawn } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWalletClient, http, type Address, type Hex } from 'viem';
import { treasuryConditionSource as chainTreasurySource } from '../../src/connectors/chain/chain.treasury.js';
import { evaluateAlerts } from '../../src/controls/alerts/alerts.service.js';
import { TOKEN_ABI } from '../helpers/anvil.js';
import { privateKeyToAccount } from 'viem/accounts';
import { onPostgres, operator, OPERATOR_KEY, type Caller } from '../helpers/app.js';
import { DEV_KEYS } from '../helpers/anvil.js';
import { corridorFreeEnv } from '../helpers/processes.js';
import { WebClient } from '../helpers/web-client.js';
import { receivingWorkspace, requestAccount, type VirtualAccount } from '../virtual-accounts/helpers.js';
import { chainWorld, GAS, HOT, payoutStatus, recipient, recordFunding, runJobs, usdcPayout, type ChainWorld } from './harness.js';
import { fund, payingWorkspace } from '../payouts/helpers.js';
import { ledgerInvariantViolations } from '../../src/domains/ledger/ledger.service.js';

/**
 * Sweeping (issue 39, point 7) on one anvil with the tokens that behave like the real ones: USDC by an
 * EIP-3009 authorisation relayed by the gas wallet (the deposit address never holds gas), USDT by a
 * gas top-up from the gas wallet (never the hot wallet) and a transfer; exactly once, across a kill -9.
 */
describe('chain sweeps on anvil', () => {
  let w: ChainWorld;
  const SENDER = 2;
  const sender = privateKeyToAccount(DEV_KEYS[SENDER] as Hex).address;
  beforeAll(async () => {
    w = await chainWorld({ confirmations: 1, issuerTokens: true, gasWallet: true, chainSettings: { sweepAtLeast: { USDC: '10', USDT: '10' } } });
    await w.anvil.mint(w.usdc, sender, 1_000_000_000n);
    await w.anvil.mint(w.usdt, sender, 1_000_000_000n);
  }, 240_000);
  afterAll(async () => {
    await w?.close();
  });

  /** A receiving workspace with USDC and USDT deposit addresses (the same address: one per owner and chain). */
  async function depositAddress(name: string): Promise<{ c: Caller; address: Address }> {
    const c = await receivingWorkspace(w.t.app, { name });
    expect((await operator(w.t.app, 'PUT', `/operator/v1/workspaces/${c.workspaceId}/currencies/USDT`, { enabled: true })).statusCode).toBe(200);
    await requestAccount(c, 'USDC');
    await requestAccount(c, 'USDT');
    const accounts = (await c.request('GET', '/v1/virtual-accounts')).json<{ data: VirtualAccount[] }>().data;
    const address = (accounts[0]?.addresses as { address: Address }[])[0]?.address as Address;
    return { c, address };
  }

  async function pay(token: Address, to: Address, amount: bigint): Promise<void> {
    await w.anvil.public.waitForTransactionReceipt({ hash: await w.anvil.transferFrom(SENDER, token, to, amount) });
  }

  type Sweep = { id: string; currency: string; fromAddress: string; toAddress: string; amount: string; amountUnits: string; method: string; status: string; txHash: string; topUpTxHash: string | null };
  const sweeps = async () => (await operator(w.t.app, 'GET', '/operator/v1/chain/sweeps')).json<{ data: Sweep[] }>().data;

  it('sweeps a USDC deposit address by a relayed EIP-3009 authorisation (no gas on it) and a USDT one by a top-up from the gas wallet, once each; the treasury reconciles at zero', async () => {
    const { address } = await depositAddress('Sweep Ltd');
    await pay(w.usdc, address, 40_000_000n);
    await pay(w.usdt, address, 109_900_000n);
    await pay(w.usdc, address, 5_000_000n); // 45 USDC in all
    const hotNonce = await w.anvil.public.getTransactionCount({ address: HOT });
    const hotUsdc = await w.anvil.balance(w.usdc, HOT);
    const hotUsdt = await w.anvil.balance(w.usdt, HOT);
    for (let i = 0; i < 4; i++) {
      await w.worker.tick();
      await w.anvil.mine(1);
    }
    const done = await sweeps();
    expect(done.filter((s) => s.fromAddress === address.toLowerCase()).map((s) => [s.currency, s.method, s.status, s.amountUnits]).sort()).toEqual([
      ['USDC', 'authorization', 'confirmed', '45000000'],
      ['USDT', 'top_up', 'confirmed', '109900000'],
    ]);
    expect(await w.anvil.balance(w.usdc, address)).toBe(0n);
    expect(await w.anvil.balance(w.usdt, address)).toBe(0n);
    expect(await w.anvil.balance(w.usdc, HOT)).toBe(hotUsdc + 45_000_000n);
    expect(await w.anvil.balance(w.usdt, HOT)).toBe(hotUsdt + 109_900_000n);
    // The hot wallet signed nothing: the gas wallet relayed USDC and topped the address up for USDT.
    expect(await w.anvil.public.getTransactionCount({ address: HOT })).toBe(hotNonce);
    const usdc = done.find((s) => s.currency === 'USDC') as Sweep;
    const usdt = done.find((s) => s.currency === 'USDT') as Sweep;
    expect((await w.anvil.public.getTransaction({ hash: usdc.txHash as Hex })).from.toLowerCase()).toBe(GAS.toLowerCase());
    expect((await w.anvil.public.getTransaction({ hash: usdt.topUpTxHash as Hex })).from.toLowerCase()).toBe(GAS.toLowerCase());
    expect((await w.anvil.public.getTransaction({ hash: usdt.txHash as Hex })).from.toLowerCase()).toBe(address.toLowerCase());
    // The deposit address sent one transaction (the USDT transfer); the USDC one needed none of its gas.
    expect(await w.anvil.public.getTransactionCount({ address })).toBe(1);

    // More looks sweep nothing again.
    await w.worker.tick();
    await w.worker.tick();
    expect((await sweeps()).filter((s) => s.fromAddress === address.toLowerCase())).toHaveLength(2);

    const treasury = (await operator(w.t.app, 'GET', '/operator/v1/chain/treasury')).json<{ data: { reconciliation: { currency: string; depositAddresses: { onChain: string; expected: string; difference: string }; hotWallet: { sweptIn: string } }[]; conditions: { code: string }[] }[] }>().data[0];
    expect(treasury?.reconciliation.map((r) => [r.currency, r.depositAddresses.difference])).toEqual([['USDC', '0'], ['USDT', '0']]);
    expect(treasury?.conditions.map((c) => c.code)).not.toContain('reconciliation_difference');

    // Tokens arriving on an address outside Corridor's records (sent by nobody it watches for: a
    // direct mint) show as a difference.
    await w.anvil.mint(w.usdc, address, 1_000_000n);
    const after = (await operator(w.t.app, 'GET', '/operator/v1/chain/treasury')).json<{ data: { reconciliation: { currency: string; depositAddresses: { difference: string } }[]; conditions: { code: string }[] }[] }>().data[0];
    expect(after?.reconciliation.find((r) => r.currency === 'USDC')?.depositAddresses.difference).toBe('1000000');
    expect(after?.conditions.map((c) => c.code)).toContain('reconciliation_difference');

    // The alert source chain.treasury opens one alert for it, and closes it once the difference is gone
    // (the stray token sent away with the deposit address's own key).
    const opened = await evaluateAlerts(w.t.ctx, [chainTreasurySource]);
    expect(opened.opened.map((a) => [a.source, a.subject])).toContainEqual(['chain.treasury', 'ethereum/reconciliation_difference']);
    expect(opened.opened.find((a) => a.subject === 'ethereum/reconciliation_difference')?.summary).toMatch(/difference 1000000/);
    const [owner] = await w.t.ctx.db.query<{ derivation_index: number }>(
      'SELECT o.derivation_index FROM chain_deposit_addresses a JOIN chain_deposit_owners o ON o.account_id = a.account_id WHERE a.address = $1',
      [address.toLowerCase()],
    );
    const key = w.connector.chains[0]?.deposits?.wallet.account?.(owner?.derivation_index ?? -1);
    expect(key?.address).toBe(address);
    await w.anvil.test.setBalance({ address, value: 10n ** 17n });
    const own = createWalletClient({ account: key, chain: w.anvil.wallet.chain, transport: http(w.anvil.url) });
    await w.anvil.public.waitForTransactionReceipt({ hash: await own.writeContract({ address: w.usdc, abi: TOKEN_ABI, functionName: 'transfer', args: [sender, 1_000_000n], account: key ?? null, chain: w.anvil.wallet.chain }) });
    const cleared = await evaluateAlerts(w.t.ctx, [chainTreasurySource]);
    expect(cleared.closed.map((a) => a.subject)).toContain('ethereum/reconciliation_difference');

    const client = new WebClient(w.t.app);
    await client.get('/console/sign-in');
    expect((await client.post('/console/sign-in/key', { operatorKey: OPERATOR_KEY })).statusCode).toBe(303);
    const page = await client.get('/console/chain');
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('Sweeps of deposit addresses');
    expect(page.body).toContain(usdc.txHash);
    expect(page.body).toContain(usdt.topUpTxHash as string);
  });

  it("after deposits, sweeps and payouts the hot wallet reconciles with the ledger's float at zero; tokens taken out of it outside Corridor show the difference and open an alert, closed once the operator records the withdrawal", async () => {
    type Float = { onChain: string; ledger: string; ledgerAmount: string; payingOut: string; sweepingIn: string; difference: string };
    type Treasury = { reconciliation: { currency: string; hotWallet: Float }[]; conditions: { code: string; message: string }[] };
    const treasury = async () => (await operator(w.t.app, 'GET', '/operator/v1/chain/treasury')).json<{ data: Treasury[] }>().data[0] as Treasury;
    const hotOf = (t: Treasury, currency: string) => t.reconciliation.find((r) => r.currency === currency)?.hotWallet as Float;
    const before = await treasury();
    // The harness's funding of the hot wallet is the opening float: reconciled before anything moves.
    expect(before.reconciliation.map((r) => [r.currency, r.hotWallet.difference, r.hotWallet.ledger === r.hotWallet.onChain])).toEqual([['USDC', '0', true], ['USDT', '0', true]]);

    const { address } = await depositAddress('Float Ltd');
    await pay(w.usdc, address, 30_000_000n);
    await pay(w.usdt, address, 20_000_000n);
    const c = await payingWorkspace(w.t);
    expect((await operator(w.t.app, 'PUT', `/operator/v1/workspaces/${c.workspaceId}/currencies/USDT`, { enabled: true })).statusCode).toBe(200);
    await fund(c, 'USDC', '1000');
    await fund(c, 'USDT', '1000');
    const usdcOut = await usdcPayout(c, recipient(), '12.5');
    const usdtOut = await usdcPayout(c, recipient(), '7.25', 'ethereum', 'USDT');
    await runJobs(w.t);
    for (let i = 0; i < 5; i++) {
      await w.worker.tick();
      await w.anvil.mine(1);
    }
    expect([(await payoutStatus(w, usdcOut)).status, (await payoutStatus(w, usdtOut)).status]).toEqual(['paid', 'paid']);
    expect((await sweeps()).filter((s) => s.fromAddress === address.toLowerCase()).map((s) => [s.currency, s.status]).sort()).toEqual([
      ['USDC', 'confirmed'],
      ['USDT', 'confirmed'],
    ]);
    const after = await treasury();
    expect(after.reconciliation.map((r) => [r.currency, r.hotWallet.difference, r.hotWallet.ledger === r.hotWallet.onChain, r.hotWallet.payingOut, r.hotWallet.sweepingIn])).toEqual([
      ['USDC', '0', true, '0', '0'],
      ['USDT', '0', true, '0', '0'],
    ]);
    // The ledger's float moved by what was swept in less what was paid out, each once.
    expect(BigInt(hotOf(after, 'USDC').ledger) - BigInt(hotOf(before, 'USDC').ledger)).toBe(30_000_000n - 12_500_000n);
    expect(BigInt(hotOf(after, 'USDT').ledger) - BigInt(hotOf(before, 'USDT').ledger)).toBe(20_000_000n - 7_250_000n);
    expect(after.conditions.map((x) => x.code)).not.toContain('float_difference');
    expect(await ledgerInvariantViolations(w.t.ctx.db)).toEqual([]);

    // 5 USDC leave the hot wallet outside Corridor (its key used elsewhere).
    const stranger = recipient();
    await w.anvil.public.waitForTransactionReceipt({ hash: await w.anvil.transferFrom(1, w.usdc, stranger, 5_000_000n) });
    const outside = await treasury();
    expect(hotOf(outside, 'USDC').difference).toBe('-5000000');
    expect(hotOf(outside, 'USDT').difference).toBe('0');
    expect(outside.conditions.find((x) => x.code === 'float_difference')?.message).toMatch(/USDC.*difference -5000000/);
    const opened = await evaluateAlerts(w.t.ctx, [chainTreasurySource]);
    expect(opened.opened.map((a) => [a.source, a.subject])).toContainEqual(['chain.treasury', 'ethereum/float_difference']);
    const client = new WebClient(w.t.app);
    await client.get('/console/sign-in');
    expect((await client.post('/console/sign-in/key', { operatorKey: OPERATOR_KEY })).statusCode).toBe(303);
    const page = await client.get('/console/chain');
    expect(page.body).toContain('Hot wallet against the ledger');
    expect(page.body).toContain('<strong>-5000000</strong>');

    // The operator records the withdrawal (under an Idempotency-Key: a retry records nothing more); reconciled, the alert closes.
    const withdrawal = await recordFunding(w.t, 'USDC', '5', 'out', 'withdrawal-float-1', { note: 'moved to cold storage' });
    const replay = await recordFunding(w.t, 'USDC', '5', 'out', 'withdrawal-float-1', { note: 'moved to cold storage' });
    expect(replay.transferId).toBe(withdrawal.transferId);
    expect(BigInt(withdrawal.float.replace('.', ''))).toBe(BigInt(hotOf(after, 'USDC').ledger) - 5_000_000n);
    const settled = await treasury();
    expect(hotOf(settled, 'USDC').difference).toBe('0');
    expect(settled.conditions.map((x) => x.code)).not.toContain('float_difference');
    const closed = await evaluateAlerts(w.t.ctx, [chainTreasurySource]);
    expect(closed.closed.map((a) => a.subject)).toContain('ethereum/float_difference');
    expect(await ledgerInvariantViolations(w.t.ctx.db)).toEqual([]);
    // The operator's call is in the audit log with what it recorded.
    const audit = (await operator(w.t.app, 'GET', '/operator/v1/audit-log?method=POST&pathContains=/fundings&limit=100')).json<{ data: { path: string; statusCode: number; body: unknown }[] }>().data;
    expect(audit.find((e) => (e.body as { note?: string } | null)?.note === 'moved to cold storage')).toMatchObject({ path: '/operator/v1/chain/chains/ethereum/fundings', statusCode: 201 });
    // A currency the chain has no token of, and a chain that does not pay out, are refused; nothing moves.
    const post = (url: string, payload: object) => w.t.app.inject({ method: 'POST', url, headers: { authorization: `Bearer ${OPERATOR_KEY}` }, payload });
    const euro = await post('/operator/v1/chain/chains/ethereum/fundings', { currency: 'EUR', amount: '5', direction: 'in' });
    const refused = euro.json<{ errors?: { field: string }[]; details?: { field: string }[] }>();
    expect([euro.statusCode, (refused.errors ?? refused.details ?? []).map((e) => e.field)]).toEqual([400, ['currency']]);
    expect((await post('/operator/v1/chain/chains/polygon/fundings', { currency: 'USDC', amount: '5', direction: 'in' })).json<{ code: string }>().code).toBe('CHAIN_NOT_FOUND');
    expect(hotOf(await treasury(), 'USDC').difference).toBe('0');
  });

  const crashes = [
    { currency: 'USDC', point: 'afterSweepSigned', when: 'after recording a USDC sweep, before sending it', state: 'signed' },
    { currency: 'USDT', point: 'afterSweepSigned', when: 'after recording a USDT sweep (top-up and transfer signed), before sending either', state: 'signed' },
    { currency: 'USDT', point: 'afterTopUpMined', when: "after a USDT sweep's gas top-up is mined, before the deposit address's transfer is sent", state: 'topped_up' },
  ] as const;
  for (const crash of crashes) {
    it.skipIf(!onPostgres)(`a worker killed with SIGKILL ${crash.when}: the restarted worker sends the recorded bytes, swept exactly once`, async () => {
      const { address } = await depositAddress(`Crash Sweep ${crash.currency} ${crash.point} Ltd`);
      const token = crash.currency === 'USDC' ? w.usdc : w.usdt;
      await pay(token, address, 12_000_000n);
      await w.anvil.mine(1);
      const gasBefore = await w.anvil.public.getTransactionCount({ address: GAS });
      // The worker that crashes credits the deposit and records its sweep in one look.
      const child = spawn(process.execPath, ['--import', 'tsx', path.join(import.meta.dirname, 'crash-worker.ts'), crash.point], {
        env: { ...corridorFreeEnv(), ...w.env },
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      const reached = await new Promise<string>((resolve, reject) => {
        let out = '';
        child.stdout.on('data', (chunk: Buffer) => {
          out += chunk.toString();
          if (out.includes('\n')) resolve(out.trim());
        });
        child.once('exit', (code) => reject(new Error(`worker exited ${code}: ${out}`)));
      });
      expect(reached).toBe(`REACHED ${crash.point}`);
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGKILL');
      await exited;
      const recorded = (await sweeps()).filter((s) => s.fromAddress === address.toLowerCase() && s.currency === crash.currency && s.status === crash.state);
      expect(recorded).toHaveLength(1);
      expect(await w.anvil.balance(token, address)).toBe(12_000_000n); // the tokens have not moved
      const [stored] = await w.t.ctx.db.query<{ tx_raw: string; top_up_raw: string | null }>('SELECT tx_raw, top_up_raw FROM chain_sweeps WHERE id = $1', [recorded[0]?.id]);
      for (let i = 0; i < 3; i++) {
        await w.worker.tick();
        await w.anvil.mine(1);
      }
      const ended = (await sweeps()).filter((s) => s.fromAddress === address.toLowerCase() && s.currency === crash.currency);
      expect(ended.map((s) => [s.id, s.status])).toEqual([[recorded[0]?.id, 'confirmed']]);
      expect(await w.anvil.balance(token, address)).toBe(0n);
      const mined = await w.anvil.public.getTransaction({ hash: recorded[0]?.txHash as Hex });
      expect(mined.hash).toBe(recorded[0]?.txHash);
      // The bytes sent are the bytes recorded before the crash: nothing was signed again.
      const [after] = await w.t.ctx.db.query<{ tx_raw: string; top_up_raw: string | null }>('SELECT tx_raw, top_up_raw FROM chain_sweeps WHERE id = $1', [recorded[0]?.id]);
      expect(after).toEqual(stored);
      // Exactly one transfer of the token out of the address, and for USDT exactly one gas top-up.
      const out = (await w.anvil.transfers(token)).filter((t) => t.from.toLowerCase() === address.toLowerCase());
      expect(out).toHaveLength(1);
      expect(await w.anvil.public.getTransactionCount({ address: GAS })).toBe(gasBefore + 1);
      // The deposit address signed its USDT transfer once (USDC: nothing, the gas wallet relayed it).
      expect(await w.anvil.public.getTransactionCount({ address })).toBe(crash.currency === 'USDT' ? 1 : 0);
      // The sweep reached the ledger's float once.
      const floated = await w.t.ctx.db.query('SELECT id FROM ledger_transfers WHERE reference_type = $1 AND reference_id = $2', ['chain_sweep', recorded[0]?.id]);
      expect(floated).toHaveLength(1);
      if (crash.currency === 'USDT') {
        const topUp = await w.anvil.public.getTransaction({ hash: recorded[0]?.topUpTxHash as Hex });
        expect(topUp.to?.toLowerCase()).toBe(address.toLowerCase());
      }
    });
  }
});
