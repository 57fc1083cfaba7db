import { spawn, type ChildProcess } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HealthRecorder } from '../../src/connectors/health.js';
import { registryOf } from '../../src/connectors/registry.js';
import { createRunner } from '../../src/jobs.js';
import { endToEndIdOf } from '../../src/connectors/bank/bank.instructions.js';
import { reportPayoutOutcomes } from '../../src/domains/payouts/payouts.port.js';
import { createTestApp, onPostgres, type Caller, type TestApp } from '../helpers/app.js';
import { CORRIDOR_BIN, corridorFreeEnv } from '../helpers/processes.js';
import { bankSection, sshdMissing, startSftpServer, type SftpServer } from '../helpers/sftp-server.js';
import { BANK_ROUTES, connectorsFile } from '../bank/helpers.js';
import { chainWorld, recipient, usdcWorkspace } from '../chain/harness.js';
import { CORPORATION_B, fedwireSection } from './fedwire-helpers.js';
import { achSection, US_PERSON } from '../ach/helpers.js';
import { ALAN, clearBankWorld } from '../clearbank/harness.js';
import { ADA, balance, eventTypesOf, fund, payingWorkspace, ref } from '../payouts/helpers.js';
import { GH_PERSON, ghWallet, momoWorkspace, momoWorld, until } from '../mobile-money/helpers.js';
import { startPaystackSimulator } from '../../src/connectors/paystack/simulator.js';
import { nubanCheckDigit } from '../../src/platform/lib/bank-account.js';
import { startPrism } from '../helpers/prism.js';
import { NG_PERSON, PAYSTACK_YAML, SECRET_KEY, secretKeyFile } from '../paystack/helpers.js';

/**
 * One conformance suite every connector passes: a new connector adds one entry to RAILS. Each entry
 * says how to set its rail up (real servers: sshd for the bank, anvil for the chain), what payout it
 * serves, and how many times a payout reached its rail (a file entry, a transfer on chain, or, for a
 * connector inside Corridor, its move to processing). The suite drives the connector only through the
 * platform: payouts created through the API, its jobs and loops run by worker runners as a worker
 * process runs them, outcomes reported through the payouts port.
 */

interface RailWorld {
  t: TestApp;
  /** A workspace funded in the currency its payouts are in. */
  caller(): Promise<Caller>;
  /** A new payout this connector serves, created through the API; `sent` counts its arrivals on the rail. */
  payout(c: Caller): Promise<{ id: string; sent: () => Promise<number> }>;
  /** The payout's currency (balances are read in it). */
  currency: string;
  /**
   * Kills a worker with SIGKILL after the payout is recorded for the rail and before it is sent, then
   * lets a worker run again. Absent for a connector where nothing leaves Corridor in between.
   */
  crash?: (id: string) => Promise<void>;
  close(): Promise<void>;
}

interface Rail {
  name: string;
  /** Why the rail cannot run on this machine, or false. */
  skip: string | false;
  /** Whether its jobs or loops talk to a rail, so its health shows a last success after it worked. */
  calls: boolean;
  /** Whether it delivers files, so its health shows the last file. */
  files: boolean;
  /** Whether something leaves Corridor between its record and its send, so a worker can be killed there (RailWorld.crash). */
  crashable: boolean;
  world(): Promise<RailWorld>;
}

/** A connector inside Corridor (the simulator, the manual queue): a payout reached its rail when it moved to processing. */
const processingEvents = (t: TestApp, id: string) => async () => (await eventTypesOf(t, id)).filter((e) => e === 'payout.processing').length;

async function apiPayout(c: Caller, body: Record<string, unknown>): Promise<string> {
  const res = await c.request('POST', '/v1/payouts', { clientRef: ref('conf'), ...body });
  expect(res.statusCode, res.body).toBe(201);
  return res.json<{ id: string }>().id;
}

async function eurWorld(t: TestApp, close: () => Promise<void>): Promise<RailWorld> {
  return {
    t,
    currency: 'EUR',
    caller: async () => {
      const c = await payingWorkspace(t);
      await fund(c, 'EUR', '1000');
      return c;
    },
    payout: async (c) => {
      const id = await apiPayout(c, { amount: '10.00', currency: 'EUR', route: 'sepa_credit', beneficiary: ADA });
      return { id, sent: processingEvents(t, id) };
    },
    close,
  };
}

/**
 * Starts a worker process (a script beside this file, with its arguments) on the test app's env,
 * waits until it prints that it reached its point, and kills it there with SIGKILL.
 */
async function killAtPoint(script: readonly string[], env: Record<string, string>, reachedLine: string): Promise<void> {
  const [file, ...args] = script;
  const child = spawn(process.execPath, ['--import', 'tsx', path.resolve(import.meta.dirname, file as string), ...args], {
    env: { ...corridorFreeEnv(), ...env },
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
  expect(reached).toBe(reachedLine);
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGKILL');
  await exited;
}

/**
 * The world of a connector that delivers files over SFTP (bank, fedwire, ach): a real sshd, the
 * connectors file built from its section, payouts counted by a mark in the files that reached the
 * server's inbox (final names only), and the kill -9 between recording a file and sending it.
 * A short job lease lets a live worker take over the killed worker's upload job.
 */
async function fileRailWorld(rail: {
  connector: string;
  currency: string;
  connectors: (server: SftpServer) => Parameters<typeof connectorsFile>[0];
  payout: (c: Caller) => Promise<{ id: string; mark: string | RegExp }>;
  files: RegExp;
}): Promise<RailWorld> {
  const server = await startSftpServer();
  const t = await createTestApp({ env: { CORRIDOR_CONNECTORS_FILE: connectorsFile(rail.connectors(server)), JOB_LEASE_MS: '3000' } });
  const countIn = (text: string, mark: string | RegExp) => (typeof mark === 'string' ? text.split(mark).length - 1 : (text.match(mark)?.length ?? 0));
  return {
    t,
    currency: rail.currency,
    caller: async () => {
      const c = await payingWorkspace(t);
      await fund(c, rail.currency, '1000');
      return c;
    },
    payout: async (c) => {
      const { id, mark } = await rail.payout(c);
      const sent = async () =>
        fs
          .readdirSync(server.inbox)
          .filter((n) => rail.files.test(n))
          .reduce((n, f) => n + countIn(fs.readFileSync(path.join(server.inbox, f), 'latin1'), mark), 0);
      return { id, sent };
    },
    crash: () => killAtPoint(['file-crash-worker.ts', rail.connector], t.env, 'REACHED beforeSend'),
    close: async () => {
      await t.close();
      await server.stop();
    },
  };
}

const RAILS: readonly Rail[] = [
  {
    name: 'simulated',
    skip: false,
    calls: false,
    files: false,
    crashable: false,
    world: async () => {
      const t = await createTestApp({ env: { SANDBOX_STEP_MS: '0' } });
      return eurWorld(t, t.close);
    },
  },
  {
    name: 'manual',
    skip: false,
    calls: false,
    files: false,
    crashable: false,
    world: async () => {
      const t = await createTestApp({ env: { CORRIDOR_CONNECTORS_FILE: connectorsFile({ routes: { sepa_credit: 'manual' } }) } });
      return eurWorld(t, t.close);
    },
  },
  {
    name: 'bank',
    skip: sshdMissing,
    calls: true,
    files: true,
    crashable: true,
    world: () =>
      fileRailWorld({
        connector: 'bank',
        currency: 'EUR',
        connectors: (server) => ({ routes: BANK_ROUTES, bank: bankSection(server, { cutoff: { maxPayouts: 1, maxSeconds: 1 } }) }),
        payout: (c) => apiPayout(c, { amount: '10.00', currency: 'EUR', route: 'sepa_credit', beneficiary: ADA }).then((id) => ({ id, mark: `<EndToEndId>${endToEndIdOf(id)}</EndToEndId>` })),
        files: /\.xml$/,
      }),
  },
  {
    name: 'fedwire',
    skip: sshdMissing,
    calls: true,
    files: true,
    crashable: true,
    world: () =>
      fileRailWorld({
        connector: 'fedwire',
        currency: 'USD',
        connectors: (server) => ({ routes: { fedwire: 'fedwire' }, fedwire: fedwireSection(server, { maxPayouts: 1, maxSeconds: 1 }) }),
        payout: (c) => apiPayout(c, { amount: '10.00', currency: 'USD', route: 'fedwire', beneficiary: CORPORATION_B }).then((id) => ({ id, mark: `<EndToEndId>${endToEndIdOf(id)}</EndToEndId>` })),
        files: /\.xml$/,
      }),
  },
  {
    name: 'ach',
    skip: sshdMissing,
    calls: true,
    files: true,
    crashable: true,
    world: () =>
      fileRailWorld({
        connector: 'ach',
        currency: 'USD',
        connectors: (server) => ({ routes: { ach: 'ach' }, ach: achSection(server) }),
        payout: async (c) => {
          // An account of its own: the entry detail record (type 6) carries it after the transaction code and routing number.
          const account = `8${Date.now().toString().slice(-7)}${Math.floor(Math.random() * 1000)}`;
          const id = await apiPayout(c, { amount: '10.00', currency: 'USD', route: 'ach', beneficiary: US_PERSON(account) });
          return { id, mark: new RegExp(`^6.{11}${account} `, 'gm') };
        },
        files: /\.ach$/,
      }),
  },
  {
    name: 'paystack',
    skip: false,
    calls: true,
    files: false,
    // Its kill -9 between Paystack's acceptance and the record is test/paystack/crash.test.ts.
    crashable: false,
    world: async () => {
      // Corridor → prism proxy paystack.yaml → the simulator; the simulator's signed webhooks back to Corridor.
      const sim = await startPaystackSimulator({ secretKey: SECRET_KEY, settleMs: 100, defaultAccountName: 'ADAEZE OKAFOR' });
      const prism = await startPrism(PAYSTACK_YAML, sim.url);
      const section = { baseUrl: prism.url, secretKeyFile: secretKeyFile(), webhookWaitSeconds: 2, pollSeconds: 1 };
      const t = await createTestApp({ env: { CORRIDOR_CONNECTORS_FILE: connectorsFile({ routes: { bank_transfer: 'paystack' }, paystack: section }) } });
      await t.app.listen({ host: '127.0.0.1', port: 0 });
      const address = t.app.server.address();
      sim.options.webhookUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/connectors/paystack/webhook`;
      let serial = 100_000_000 + Math.floor(Math.random() * 1000) * 1000;
      return {
        t,
        currency: 'NGN',
        caller: async () => {
          const c = await payingWorkspace(t);
          await fund(c, 'NGN', '100000');
          return c;
        },
        payout: async (c) => {
          const nine = String(++serial);
          const account = `${nine}${nubanCheckDigit('058', nine)}`;
          const id = await apiPayout(c, { amount: '150.00', currency: 'NGN', route: 'bank_transfer', beneficiary: NG_PERSON(account) });
          return { id, sent: async () => [...sim.state.transfers.values()].filter((x) => x.recipient.accountNumber === account).length };
        },
        close: async () => {
          await t.close();
          expect(prism.violations()).toEqual([]);
          await prism.stop();
          await sim.close();
        },
      };
    },
  },
  {
    name: 'clearbank',
    skip: false,
    calls: true,
    files: false,
    // Its kill -9 between the bank's acceptance and the record is test/clearbank/crash.test.ts.
    crashable: false,
    world: async () => {
      const w = await clearBankWorld({ runner: false });
      return {
        t: w.t,
        currency: 'GBP',
        caller: () => w.caller('1000'),
        payout: async (c) => {
          const id = await apiPayout(c, { amount: '10.00', currency: 'GBP', route: 'bank_transfer', beneficiary: ALAN(`4${Date.now().toString().slice(-7)}`) });
          const sent = async () => (w.sim.payments.has(id.replace(/-/g, '')) ? 1 : 0);
          return { id, sent };
        },
        close: async () => {
          expect(w.violations()).toEqual([]);
          await w.close();
        },
      };
    },
  },
  {
    name: 'chain',
    skip: false,
    calls: true,
    files: false,
    crashable: true,
    world: async () => {
      const w = await chainWorld({ confirmations: 1 });
      return {
        t: w.t,
        currency: 'USDC',
        caller: () => usdcWorkspace(w.t),
        payout: async (c) => {
          const to = recipient();
          const id = await apiPayout(c, {
            amount: '3.000001',
            currency: 'USDC',
            route: 'crypto',
            beneficiary: { name: 'Satoshi Nakamoto', country: 'JP', accounts: [{ type: 'crypto', currency: 'USDC', data: { network: 'ethereum', address: to } }] },
          });
          return { id, sent: async () => (await w.anvil.transfers(w.usdc)).filter((t) => t.to === to).length };
        },
        crash: () => killAtPoint(['../chain/crash-worker.ts', 'afterSign'], w.env, 'REACHED afterSign'),
        close: w.close,
      };
    },
  },
  {
    name: 'mobile-money',
    skip: false,
    calls: true,
    files: false,
    crashable: true,
    world: async () => {
      // The GSMA simulator behind Prism (GSMA's definition): a worker killed as its disbursement reaches the provider, the request dropped unanswered.
      let victim: ChildProcess | undefined;
      const w = await momoWorld({
        simulator: {
          hooks: {
            received: async () => {
              if (!victim) return false;
              const child = victim;
              victim = undefined;
              const exited = new Promise((r) => child.once('exit', r));
              child.kill('SIGKILL');
              await exited;
              return true;
            },
          },
        },
      });
      let n = 0;
      return {
        t: w.t,
        currency: 'GHS',
        caller: () => momoWorkspace(w.t),
        payout: async (c) => {
          const id = await apiPayout(c, { amount: '10.00', currency: 'GHS', route: 'mobile_money', beneficiary: GH_PERSON(ghWallet(String(4000 + (n++ % 999)).padStart(4, '0'))) });
          return { id, sent: async () => w.sim.disbursementsOf(id).length };
        },
        crash: async () => {
          const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'corridor-momo-conf-'));
          const child = spawn(process.execPath, [CORRIDOR_BIN, 'start', '--role', 'worker'], {
            env: { ...corridorFreeEnv(), ...w.env, CORRIDOR_DATA_DIR: dataDir, JOB_POLL_MS: '20', JOB_LEASE_MS: '1000', LOG_LEVEL: 'warn' },
            stdio: ['ignore', 'ignore', 'inherit'],
          });
          victim = child;
          await until('the worker killed as its request reached the provider', async () => child.signalCode, (s) => s === 'SIGKILL', 150_000);
          fs.rmSync(dataDir, { recursive: true, force: true });
        },
        close: w.close,
      };
    },
  },
];

/** One round of work as `workers` worker processes would do it at once: their job runners' ticks, then (unless `jobsOnly`) their connectors' loops. */
async function work(t: TestApp, workers: number, jobsOnly = false): Promise<void> {
  const health = new HealthRecorder(t.ctx.db);
  const runners = Array.from({ length: workers }, () => createRunner(t.ctx));
  try {
    await Promise.all(runners.map((r) => r.tick()));
    if (jobsOnly) return;
    await Promise.all(Array.from({ length: workers }, () => registryOf(t.ctx.connectors).workers(t.ctx, health)).flat().map((loop) => loop.tick().catch(() => undefined)));
  } finally {
    await Promise.all(runners.map((r) => r.stop()));
  }
}

async function statusOf(t: TestApp, id: string): Promise<string> {
  const [row] = await t.ctx.db.query<{ status: string }>('SELECT status FROM payouts WHERE id = $1', [id]);
  return row?.status ?? 'missing';
}

/** Works in rounds until the payout left its queue (processing or beyond), waiting on the condition, never on a fixed time. */
async function untilDeparted(t: TestApp, id: string, sent: () => Promise<number>): Promise<void> {
  const deadline = Date.now() + 120_000;
  while ((await statusOf(t, id)) === 'queued' || (await sent()) === 0) {
    if (Date.now() > deadline) throw new Error(`payout ${id} still ${await statusOf(t, id)}, sent ${await sent()} times`);
    await work(t, 2);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The caller's money in the currency (its balance, what is held for payouts, the total), without the time of its last movement. */
async function funds(c: Caller, currency: string): Promise<{ balance?: string; pendingOut?: string; totalBalance?: string }> {
  const b = await balance(c, currency);
  return { balance: b?.balance, pendingOut: b?.pendingOut, totalBalance: b?.totalBalance };
}

const payCount = async (t: TestApp, id: string) => (await eventTypesOf(t, id)).filter((e) => e === 'payout.paid').length;

for (const rail of RAILS) {
  describe.skipIf(rail.skip)(`the ${rail.name} connector conforms${rail.skip ? ` (${rail.skip})` : ''}`, () => {
    let w: RailWorld;
    beforeAll(async () => {
      w = await rail.world();
    }, 300_000);
    afterAll(async () => {
      await w?.close();
    });

    it('hands a payout over exactly once under two workers', async () => {
      const c = await w.caller();
      const p = await w.payout(c);
      await untilDeparted(w.t, p.id, p.sent);
      for (let i = 0; i < 3; i++) await work(w.t, 2);
      expect(await p.sent()).toBe(1);
      expect((await eventTypesOf(w.t, p.id)).filter((e) => e === 'payout.processing')).toHaveLength(1);
    });

    it('changes nothing when an outcome is reported twice', async () => {
      const c = await w.caller();
      const p = await w.payout(c);
      await untilDeparted(w.t, p.id, p.sent);
      await w.t.ctx.db.tx((tx) => reportPayoutOutcomes(w.t.ctx, tx, [{ payoutId: p.id, move: 'pay' }]));
      const after = await funds(c, w.currency);
      const [again] = await w.t.ctx.db.tx((tx) => reportPayoutOutcomes(w.t.ctx, tx, [{ payoutId: p.id, move: 'pay' }]));
      expect(again).toEqual({ payoutId: p.id, applied: false, status: 'paid' });
      expect(await funds(c, w.currency)).toEqual(after);
      expect(await payCount(w.t, p.id)).toBe(1);
    });

    it('changes nothing when an outcome arrives after the payout was cancelled', async () => {
      const c = await w.caller();
      const before = await funds(c, w.currency);
      const p = await w.payout(c);
      expect((await c.request('POST', `/v1/payouts/${p.id}/cancel`, {})).statusCode).toBe(200);
      const late = await w.t.ctx.db.tx((tx) => reportPayoutOutcomes(w.t.ctx, tx, [{ payoutId: p.id, move: 'pay' }]));
      const lateFail = await w.t.ctx.db.tx((tx) => reportPayoutOutcomes(w.t.ctx, tx, [{ payoutId: p.id, move: 'fail', failureReason: 'beneficiary_account_invalid' }]));
      expect([...late, ...lateFail].map((r) => r.applied)).toEqual([false, false]);
      expect(await statusOf(w.t, p.id)).toBe('cancelled');
      expect(await funds(c, w.currency)).toEqual(before);
    });

    it('releases a payout cancelled before it departs: the funds return once and nothing reaches the rail', async () => {
      const c = await w.caller();
      const before = await funds(c, w.currency);
      const p = await w.payout(c);
      expect(await funds(c, w.currency)).not.toEqual(before);
      expect((await c.request('POST', `/v1/payouts/${p.id}/cancel`, {})).statusCode).toBe(200);
      expect(await funds(c, w.currency)).toEqual(before);
      expect((await c.request('POST', `/v1/payouts/${p.id}/cancel`, {})).statusCode).toBe(409);
      for (let i = 0; i < 3; i++) await work(w.t, 2);
      expect(await p.sent()).toBe(0);
      expect(await statusOf(w.t, p.id)).toBe('cancelled');
      expect(await funds(c, w.currency)).toEqual(before);
    });

    it('reports its health: capabilities, backlog, and the last success and file of a rail it talks to', async () => {
      const c = await w.caller();
      const p = await w.payout(c);
      await untilDeparted(w.t, p.id, p.sent);
      const health = (await w.t.ctx.connectors.health(w.t.ctx.db)).find((h) => h.connector === rail.name);
      expect(health).toBeDefined();
      expect(health?.capabilities.length).toBeGreaterThan(0);
      expect(health?.backlog.count).toBeGreaterThanOrEqual(0);
      if (health && health.backlog.count > 0) expect(health.backlog.oldestSince).toBeInstanceOf(Date);
      if (rail.calls) expect(health?.lastSuccessAt).toBeInstanceOf(Date);
      if (rail.files) expect(health?.lastFileAt).toBeInstanceOf(Date);
      expect(w.t.ctx.connectors.reasons(rail.name).every((r) => ['beneficiary', 'workspace', 'operator'].includes(r.actor))).toBe(true);
    });

    // Two processes share the database: PostgreSQL only.
    it.skipIf(!onPostgres || !rail.crashable)(
      'sends nothing twice when a worker is killed with SIGKILL between recording and sending',
      async () => {
        const crash = w.crash;
        expect(crash).toBeDefined();
        const c = await w.caller();
        const p = await w.payout(c);
        await work(w.t, 1, true); // handed over to the connector, nothing sent yet
        await crash?.(p.id);
        expect(await p.sent()).toBe(0);
        await untilDeparted(w.t, p.id, p.sent);
        for (let i = 0; i < 3; i++) await work(w.t, 2);
        expect(await p.sent()).toBe(1);
      },
      180_000,
    );
  });
}
