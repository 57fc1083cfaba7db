import { spawn } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Address } from 'viem';
import { ChainWorker } from '../../src/connectors/chain/chain.worker.js';
import { onPostgres } from '../helpers/app.js';
import { corridorFreeEnv } from '../helpers/processes.js';
import { ref } from '../payouts/helpers.js';
import { chainRow, chainWorld, handOver, HOT, payoutStatus, recipient, runJobs, usdcPayout, usdcWorkspace, type ChainWorld } from './harness.js';

/** Nonces under two workers, and workers killed with SIGKILL between signing, broadcast and record. */
describe('chain payout workers', () => {
  let w: ChainWorld;
  beforeAll(async () => {
    w = await chainWorld({ confirmations: 2 });
  });
  afterAll(async () => {
    await w?.close();
  });

  it('two workers never take the same nonce: 200 payouts in a burst all land, nonces gapless, one transfer each', async () => {
    const c = await usdcWorkspace(w.t);
    const recipients: Address[] = Array.from({ length: 200 }, () => recipient());
    const ids: string[] = [];
    for (let b = 0; b < 2; b++) {
      const rows = recipients.slice(b * 100, b * 100 + 100).map((to, i) => ({
        clientRef: ref('burst'),
        amount: `1.${String(b * 100 + i + 1).padStart(6, '0')}`,
        currency: 'USDC',
        route: 'crypto',
        beneficiary: { name: 'Satoshi Nakamoto', country: 'JP', accounts: [{ type: 'crypto', currency: 'USDC', data: { network: 'ethereum', address: to } }] },
      }));
      const res = await c.request('POST', '/v1/payouts', rows);
      expect(res.statusCode, res.body).toBe(201);
      ids.push(...res.json<{ id: string }[]>().map((p) => p.id));
    }
    for (let i = 0; i < 4; i++) await runJobs(w.t); // the step's batches hand them over
    const [handed] = await w.t.ctx.db.query<{ n: number }>("SELECT count(*)::int AS n FROM chain_payouts WHERE status = 'accepted' AND payout_id = ANY($1)", [ids]);
    expect(handed?.n).toBe(200);
    const nonceBefore = await w.anvil.public.getTransactionCount({ address: HOT });
    const second = new ChainWorker(w.t.ctx);
    for (let round = 0; round < 10; round++) {
      await Promise.all([w.worker.tick(), second.tick()]);
      const [left] = await w.t.ctx.db.query<{ n: number }>("SELECT count(*)::int AS n FROM payouts WHERE id = ANY($1) AND status <> 'paid'", [ids]);
      if (left?.n === 0) break;
      await w.anvil.mine(2);
    }
    const nonces = (await w.t.ctx.db.query<{ nonce: string }>('SELECT nonce::text AS nonce FROM chain_payouts WHERE payout_id = ANY($1) ORDER BY chain_payouts.nonce', [ids])).map((r) => Number(r.nonce));
    expect(nonces).toEqual(Array.from({ length: 200 }, (_, i) => nonceBefore + i));
    expect(await w.anvil.public.getTransactionCount({ address: HOT })).toBe(nonceBefore + 200);
    const [paid] = await w.t.ctx.db.query<{ n: number }>("SELECT count(*)::int AS n FROM payouts WHERE id = ANY($1) AND status = 'paid'", [ids]);
    expect(paid?.n).toBe(200);
    const transfers = await w.anvil.transfers(w.usdc);
    for (const [i, to] of recipients.entries()) {
      const theirs = transfers.filter((t) => t.to === to);
      expect(theirs.map((t) => t.value)).toEqual([1_000_000n + BigInt(i + 1)]);
    }
  });

  for (const point of ['afterSign', 'afterBroadcast'] as const) {
    it.skipIf(!onPostgres)(`a worker killed with SIGKILL ${point === 'afterSign' ? 'after signing, before broadcast' : 'after broadcast, before the record is updated'}: exactly one transfer on chain, paid once`, async () => {
      const c = await usdcWorkspace(w.t);
      const to = recipient();
      const id = await usdcPayout(c, to, '3.141592');
      await handOver(w);
      const child = spawn(process.execPath, ['--import', 'tsx', path.join(import.meta.dirname, 'crash-worker.ts'), point], {
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
      expect(reached).toBe(`REACHED ${point}`);
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGKILL');
      await exited;
      const row = await chainRow(w, id);
      expect(row.status).toBe('signed'); // recorded before broadcast; the record of the broadcast never made it
      expect(await w.anvil.balance(w.usdc, to)).toBe(point === 'afterSign' ? 0n : 3_141_592n);
      // The restarted worker broadcasts the same bytes (or finds them mined), never signs anew.
      await w.worker.tick();
      await w.anvil.mine(2);
      await w.worker.tick();
      await w.worker.tick();
      expect((await payoutStatus(w, id)).status).toBe('paid');
      const theirs = (await w.anvil.transfers(w.usdc)).filter((t) => t.to === to);
      expect(theirs.map((t) => t.value)).toEqual([3_141_592n]);
      const versions = await w.t.ctx.db.query<{ hash: string }>('SELECT hash FROM chain_transactions WHERE payout_id = $1', [id]);
      expect(versions).toHaveLength(1);
      expect(versions[0]?.hash).toBe(theirs[0]?.transactionHash);
    });
  }
});
