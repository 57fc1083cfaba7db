import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChainWorker } from '../../src/connectors/chain/chain.worker.js';
import { operator, OPERATOR_KEY } from '../helpers/app.js';
import { freePort } from '../helpers/processes.js';
import { WebClient } from '../helpers/web-client.js';
import { chainRow, chainWorld, handOver, recipient, usdcPayout, usdcWorkspace, type ChainWorld } from './harness.js';

/** A local TCP server that takes connections and never answers (an RPC URL that hangs). */
async function hangingServer(): Promise<{ url: string; close: () => Promise<void> }> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

type ChainStatus = { name: string; status: string; error: string | null };
const chainsOf = async (w: ChainWorld) => (await operator(w.t.app, 'GET', '/operator/v1/chain/chains')).json<{ data: ChainStatus[] }>().data;

/** An RPC outage at start (issue 33 point 8): the API starts without the chain, the worker waits and retries, the console shows it down. */
describe('chain RPC outage', () => {
  let hanging: Awaited<ReturnType<typeof hangingServer>>;
  let refusing: string;
  beforeAll(async () => {
    hanging = await hangingServer();
    refusing = `http://127.0.0.1:${await freePort()}`; // nothing listens there
  });
  afterAll(async () => {
    await hanging?.close();
  });

  it('with only a hanging and a refusing URL the API starts, takes payouts, and shows the chain down; the worker records it down and keeps the payout waiting', async () => {
    const w = await chainWorld({ rpcUrls: () => [hanging.url, refusing], rpcTimeoutMs: 500 });
    try {
      expect((await w.t.app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
      expect(await chainsOf(w)).toEqual([expect.objectContaining({ name: 'ethereum', status: 'down', error: expect.stringContaining('no RPC URL answered') })]);
      const c = await usdcWorkspace(w.t);
      const id = await usdcPayout(c, recipient(), '3.00');
      await handOver(w);
      await expect(w.worker.tick()).rejects.toThrow(/no RPC URL answered/);
      expect((await chainRow(w, id)).status).toBe('accepted');
      const [status] = await w.t.ctx.db.query<{ up: boolean; error: string }>("SELECT up, error FROM chain_status WHERE chain = 'ethereum'");
      expect(status).toMatchObject({ up: false, error: expect.stringContaining('no RPC URL answered') });
      // The URLs are shown by host only.
      expect(status?.error).toContain(new URL(refusing).host);

      const client = new WebClient(w.t.app);
      await client.get('/console/sign-in');
      expect((await client.post('/console/sign-in/key', { operatorKey: OPERATOR_KEY })).statusCode).toBe(303);
      const page = await client.get('/console/chain');
      expect(page.statusCode).toBe(200);
      expect(page.body).toContain('<strong>down</strong>');
    } finally {
      await w.close();
    }
  });

  it('with a hanging URL first and a good one second, the start-up check and the worker use the good one: the chain is up and pays', async () => {
    const w = await chainWorld({ rpcUrls: (good) => [hanging.url, good], rpcTimeoutMs: 1500, confirmations: 1 });
    try {
      const c = await usdcWorkspace(w.t);
      const to = recipient();
      const id = await usdcPayout(c, to, '4.00');
      await handOver(w);
      const worker = new ChainWorker(w.t.ctx);
      await worker.tick();
      await w.anvil.mine(1);
      await worker.tick();
      expect((await chainRow(w, id)).status).toBe('confirmed');
      expect(await w.anvil.balance(w.usdc, to)).toBe(4_000_000n);
      expect(await chainsOf(w)).toEqual([expect.objectContaining({ name: 'ethereum', status: 'up', error: null })]);
    } finally {
      await w.close();
    }
    // Every request of the worker asks the hanging URL first (rpcTimeoutMs each): slow on a loaded machine.
  }, 300_000);
});
