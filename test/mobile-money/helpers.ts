import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, expect } from 'vitest';
import type { MobileMoneyConnector } from '../../src/connectors/mobile-money/index.js';
import { MobileMoneySimulator, type SimulatorOptions } from '../../src/connectors/mobile-money/simulator.js';
import { createRunner } from '../../src/jobs.js';
import { CryptoBox } from '../../src/platform/lib/crypto-box.js';
import { createTestApp, operator, type Caller, type TestApp } from '../helpers/app.js';
import { startPrism, type PrismProxy } from '../helpers/prism.js';
import { freePort } from '../helpers/processes.js';
import { realWorldPath } from '../helpers/real-world.js';
import { connectorsFile } from '../bank/helpers.js';
import { fund, payingWorkspace, ref } from '../payouts/helpers.js';
export { until } from '../helpers/until.js';

export const GSMA_DEFINITION = realWorldPath('mobile-money/gsma-mmapi-v1.2.0.yml');
export const API_KEY = 'sim-api-key-3f9a';
export const CALLBACK_SECRET = 'sim-callback-secret-77c1';

/** A Ghanaian wallet: the last four digits pick the simulator's outcome (0001 name mismatch, 0002 no wallet, 0003 decline, 0004 timeout). */
export const ghWallet = (last4: string) => `+23324123${last4}`;

export const GH_PERSON = (phoneNumber: string, name = 'Kofi Mensah') => ({
  type: 'individual',
  name,
  country: 'GH',
  accounts: [{ type: 'mobile_money', currency: 'GHS', country: 'GH', data: { phoneNumber, network: 'mtn' } }],
});

/**
 * The world of a mobile-money test: the GSMA simulator, Prism in validating proxy mode with GSMA's
 * published definition between Corridor and it (the connector's baseUrl is Prism's), and a Corridor
 * app listening on a real port for the simulator's callbacks, its secrets sealed under its key.
 */
export interface MomoWorld {
  t: TestApp;
  sim: MobileMoneySimulator;
  prism: PrismProxy;
  env: Record<string, string>;
  /** The connectors file's section as given. */
  section: Record<string, unknown>;
  work(): Promise<void>;
  close(): Promise<void>;
}

export async function momoWorld(options: { simulator?: Partial<SimulatorOptions>; section?: Record<string, unknown>; env?: Record<string, string>; listen?: boolean } = {}): Promise<MomoWorld> {
  const sim = new MobileMoneySimulator({ apiKey: API_KEY, callbackSecret: CALLBACK_SECRET, delayMs: 20, timeoutMs: 300, holderName: 'Kofi Mensah', ...options.simulator });
  const simUrl = await sim.listen();
  const prism = await startPrism(GSMA_DEFINITION, simUrl);
  const port = await freePort();
  const key = randomBytes(32).toString('base64');
  const box = CryptoBox.fromKey(Buffer.from(key, 'base64'));
  const section = {
    baseUrl: prism.url,
    apiKey: box.encrypt(API_KEY),
    callbackSecret: box.encrypt(CALLBACK_SECRET),
    callbackBaseUrl: `http://127.0.0.1:${port}`,
    debitParty: { key: 'accountid', value: '2000023' },
    callbackWaitSeconds: 1,
    pollSeconds: 1,
    requestTimeoutMs: 60_000,
    ...options.section,
  };
  const env = { CORRIDOR_ENCRYPTION_KEY: key, CORRIDOR_CONNECTORS_FILE: connectorsFile({ routes: { mobile_money: 'mobile-money' }, 'mobile-money': section }), ...options.env };
  const t = await createTestApp({ env });
  if (options.listen !== false) await t.app.listen({ host: '127.0.0.1', port });
  return {
    t,
    sim,
    prism,
    env: t.env,
    section,
    work: async () => {
      const runner = createRunner(t.ctx);
      try {
        // Until no payout or mobile-money job is running or due within a few seconds: a job a tick
        // took runs on after the tick returns, and a recipient check that passes schedules the
        // payout's first step as it ends, which hands the payout over.
        for (let i = 0; i < 400; i++) {
          await runner.tick();
          const [due] = await t.ctx.db.query<{ n: number }>("SELECT count(*)::int AS n FROM jobs WHERE (status = 'running' OR (status = 'queued' AND run_at <= now() + interval '5 seconds')) AND kind <> 'mobile-money.poll' AND kind LIKE ANY (ARRAY['payout%', 'mobile-money%'])");
          if (due?.n === 0) break;
          await new Promise((r) => setTimeout(r, 25));
        }
      } finally {
        await runner.stop();
      }
    },
    close: async () => {
      await t.close();
      await prism.stop();
      await sim.close();
    },
  };
}

export async function momoPayout(c: Caller, body: { amount: string; currency?: string; beneficiary: Record<string, unknown>; senderInfo?: Record<string, unknown> }): Promise<string> {
  const res = await c.request('POST', '/v1/payouts', { clientRef: ref('momo'), currency: 'GHS', route: 'mobile_money', ...body });
  expect(res.statusCode, res.body).toBe(201);
  return res.json<{ id: string }>().id;
}

/** A workspace paying mobile money: the currencies enabled and funded. */
export async function momoWorkspace(t: TestApp, funds: Record<string, string> = { GHS: '100000' }): Promise<Caller> {
  const c = await payingWorkspace(t);
  for (const [currency, amount] of Object.entries(funds)) {
    const on = await operator(t.app, 'PUT', `/operator/v1/workspaces/${c.workspaceId}/currencies/${currency}`, { enabled: true });
    expect(on.statusCode, on.body).toBe(200);
    await fund(c, currency, amount);
  }
  return c;
}

/** A mobile-money world for a whole file, with a workspace funded with `funds`, its connector, and `setup` run once on it; closed after the file. */
export function useMomoWorld(funds: Record<string, string>, setup: (w: MomoWorld, c: Caller) => Promise<void> = async () => undefined): { w: MomoWorld; c: Caller; mm: MobileMoneyConnector } {
  const world = {} as { w: MomoWorld; c: Caller; mm: MobileMoneyConnector };
  beforeAll(async () => {
    world.w = await momoWorld();
    world.mm = world.w.t.ctx.connectors.get('mobile-money') as MobileMoneyConnector;
    world.c = await momoWorkspace(world.w.t, funds);
    await setup(world.w, world.c);
  }, 600_000);
  afterAll(async () => {
    await world.w?.close();
  });
  return world;
}
