import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AsyncConnector, HandedOverPayout } from '../../src/connectors/connector.js';
import { parseConnectorsConfig } from '../../src/platform/connectors-file.js';
import { ConnectorRegistry } from '../../src/connectors/registry.js';
import { defineConnector } from '../../src/connectors/definition.js';
import { CONNECTORS_PRESENT } from '../../src/runtime.js';
import { loadConfig } from '../../src/platform/config.js';
import { createRunner } from '../../src/jobs.js';
import type { JobRunner } from '../../src/platform/jobs/runner.js';
import { reportPayoutOutcomes } from '../../src/domains/payouts/payouts.outcomes.js';
import { createTestApp, type Caller, type TestApp } from '../helpers/app.js';
import { ADA, balance, fund, payingWorkspace, ref, waitFor } from '../payouts/helpers.js';

function connectorsFile(content: unknown): string {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'corridor-connectors-')), 'connectors.json');
  fs.writeFileSync(file, JSON.stringify(content));
  return file;
}

/** A connector for the test: it keeps what it is handed, as a bank connector records payouts for its next file. */
class KeepingConnector implements AsyncConnector {
  readonly name = 'keeping';
  readonly async = true;
  readonly accepted: HandedOverPayout[] = [];
  firstStepMs(): number {
    return 0;
  }
  nextStep() {
    return { move: 'none' as const, nextInMs: null };
  }
  canCancelProcessing(): boolean {
    return false;
  }
  async accept(_tx: unknown, payouts: readonly HandedOverPayout[]): Promise<void> {
    for (const p of payouts) if (!this.accepted.some((a) => a.id === p.id)) this.accepted.push(p);
  }
}

/** A connector definition of the test's own, building the connector given. */
const keepingDefinition = (build: () => KeepingConnector) => defineConnector({ name: 'keeping', section: 'keeping', build, reasons: [], backlog: ['queued'] });

describe('the connectors configuration', () => {
  const build = (content: unknown, definitions = CONNECTORS_PRESENT) =>
    ConnectorRegistry.build({ config: loadConfig({ CORRIDOR_DATA_DIR: 'memory://', CORRIDOR_CONNECTORS_FILE: connectorsFile(content) }), box: undefined as never }, definitions);

  it('serves every route with the simulator in the sandbox and the manual queue in production when unset', () => {
    const sandbox = ConnectorRegistry.build({ config: loadConfig({ CORRIDOR_DATA_DIR: 'memory://' }), box: undefined as never }, CONNECTORS_PRESENT);
    expect(sandbox.forRoute('sepa_credit', 'w1', 'EUR').name).toBe('simulated');
    const production = ConnectorRegistry.build({ config: loadConfig({ CORRIDOR_DATA_DIR: 'memory://', CORRIDOR_ENV: 'production' }), box: undefined as never }, CONNECTORS_PRESENT);
    expect(production.forRoute('swift', 'w1', 'EUR').name).toBe('manual');
  });

  it('routes per rail, and per workspace where it differs', () => {
    const registry = build({ routes: { swift: 'manual' }, workspaces: { w2: { swift: 'simulated', sepa_credit: 'manual' } } });
    expect(registry.forRoute('swift', 'w1', 'EUR').name).toBe('manual');
    expect(registry.forRoute('swift', 'w2', 'EUR').name).toBe('simulated');
    expect(registry.forRoute('sepa_credit', 'w2', 'EUR').name).toBe('manual');
    expect(registry.forRoute('sepa_credit', 'w1', 'EUR').name).toBe('simulated');
    expect(registry.routes().find((r) => r.route === 'swift')).toEqual({ route: 'swift', connector: 'manual', currencies: [], overrides: [{ workspaceId: 'w2', connector: 'simulated', currencies: [] }] });
  });

  it('routes per currency on one route: each listed currency to its connector, the others to "*" (else the default), a workspace override first', () => {
    const registry = build({ routes: { bank_transfer: { NGN: 'manual', '*': 'simulated' }, swift: { USD: 'manual' } }, workspaces: { w2: { bank_transfer: { GBP: 'manual' } } } });
    expect(registry.forRoute('bank_transfer', 'w1', 'NGN').name).toBe('manual');
    expect(registry.forRoute('bank_transfer', 'w1', 'GBP').name).toBe('simulated');
    expect(registry.forRoute('bank_transfer', 'w1', undefined).name).toBe('simulated');
    expect(registry.forRoute('bank_transfer', 'w2', 'GBP').name).toBe('manual');
    // The workspace's override names GBP only: its NGN follows the route's.
    expect(registry.forRoute('bank_transfer', 'w2', 'NGN').name).toBe('manual');
    expect(registry.forRoute('bank_transfer', 'w2', 'EUR').name).toBe('simulated');
    // No "*": the other currencies go to the environment's default (the simulator in the sandbox).
    expect(registry.forRoute('swift', 'w1', 'USD').name).toBe('manual');
    expect(registry.forRoute('swift', 'w1', 'EUR').name).toBe('simulated');
    expect(registry.routes().find((r) => r.route === 'bank_transfer')).toEqual({
      route: 'bank_transfer',
      connector: 'simulated',
      currencies: [{ currency: 'NGN', connector: 'manual' }],
      overrides: [{ workspaceId: 'w2', connector: null, currencies: [{ currency: 'GBP', connector: 'manual' }] }],
    });
  });

  it("counts a connector's declared alert conditions only where the connector is present, beside the platform's own", () => {
    const watched = defineConnector({
      name: 'keeping',
      section: 'keeping',
      build: () => new KeepingConnector(),
      reasons: [],
      backlog: ['queued'],
      conditions: [{ name: 'keeping.backlog', unit: 'minutes', defaultThreshold: 30, filterKeys: [], description: 'test source', check: async () => [] }],
    });
    const present = build({ routes: { swift: 'keeping' }, keeping: {} }, [...CONNECTORS_PRESENT, watched]);
    expect(present.alertSources().map((c) => c.name)).toEqual(expect.arrayContaining(['payouts.stuck', 'ledger.invariant', 'keeping.backlog']));
    // Not configured for any route: not built, so nothing of it is evaluated, and neither is the chain's treasury.
    const absent = build({}, [...CONNECTORS_PRESENT, watched]);
    expect(absent.alertSources().map((c) => c.name)).not.toContain('keeping.backlog');
    expect(absent.alertSources().map((c) => c.name)).not.toContain('chain.treasury');
  });

  it('refuses to start on an unknown route, an unknown connector, a connector without its section, or a file that is not JSON', () => {
    expect(() => build({ routes: { telegraph: 'manual' } })).toThrow(/unknown route "telegraph"/);
    expect(() => build({ routes: { swift: 'carrier-pigeon' } })).toThrow(/unknown connector "carrier-pigeon"/);
    const withKeeping = [...CONNECTORS_PRESENT, keepingDefinition(() => new KeepingConnector())];
    expect(() => build({ routes: { swift: 'keeping' } }, withKeeping)).toThrow(/needs a "keeping" section/);
    expect(build({ routes: { swift: 'keeping' }, keeping: {} }, withKeeping).forRoute('swift', 'w1', 'EUR').name).toBe('keeping');
    expect(() => build({ routes: { swift: 'keeping' }, keeping: {} })).toThrow(/unknown connector "keeping"/);
    expect(() => parseConnectorsConfig('{ routes: ')).toThrow(/not valid JSON/);
    expect(() => parseConnectorsConfig('{"routes": {"swift": 3}}')).toThrow(/routes.swift must be a connector name/);
    expect(() => parseConnectorsConfig('{"routes": {"swift": {"usd": "manual"}}}')).toThrow(/routes.swift: "usd" is not a currency code/);
    expect(() => parseConnectorsConfig('{"routes": {"swift": {"USD": ""}}}')).toThrow(/routes.swift.USD must be a connector name/);
    expect(() => parseConnectorsConfig('{"routes": {"swift": {}}}')).toThrow(/routes.swift names no connector/);
    expect(() => build({ routes: { bank_transfer: { NGN: 'carrier-pigeon' } } })).toThrow(/routes.bank_transfer.NGN: unknown connector "carrier-pigeon"/);
  });
});

describe('an async connector', () => {
  let t: TestApp;
  let runner: JobRunner;
  let c: Caller;
  const keeping = new KeepingConnector();

  beforeAll(async () => {
    t = await createTestApp({ env: { CORRIDOR_CONNECTORS_FILE: connectorsFile({ routes: { sepa_credit: 'keeping' }, keeping: {} }), JOB_POLL_MS: '20' }, connectors: [keepingDefinition(() => keeping)] });
    runner = createRunner(t.ctx);
    runner.start();
    c = await payingWorkspace(t);
    await fund(c, 'EUR', '1000');
  }, 180_000);
  afterAll(async () => {
    await runner?.stop();
    await t?.close();
  });

  async function handedOver(clientRef: string): Promise<HandedOverPayout> {
    const res = await c.request('POST', '/v1/payouts', { clientRef, amount: '100.00', currency: 'EUR', route: 'sepa_credit', beneficiary: ADA });
    expect(res.statusCode, res.body).toBe(201);
    const id = res.json<{ id: string }>().id;
    for (let i = 0; i < 400 && !keeping.accepted.some((p) => p.id === id); i++) await new Promise((r) => setTimeout(r, 25));
    const payout = keeping.accepted.find((p) => p.id === id);
    expect(payout).toBeDefined();
    return payout as HandedOverPayout;
  }

  it('is handed each queued payout on its route with its recipient opened, and the payout waits in queued', async () => {
    const p = await handedOver(ref());
    expect(p).toMatchObject({ workspaceId: c.workspaceId, amountMinor: 10000n, currency: 'EUR', route: 'sepa_credit', rail: 'sepa_credit', sender: null });
    expect(p.beneficiary).toMatchObject({ name: 'Ada Lovelace', country: 'DE' });
    expect((await c.request('GET', `/v1/payouts/${p.id}`)).json().status).toBe('queued');
  });

  it('reports the rail outcomes: processing with a UETR, then paid; a move from the wrong state is not applied', async () => {
    const p = await handedOver(ref());
    const uetr = 'e9ae2b4f-3a4b-4d5c-9e1f-0a1b2c3d4e5f';
    const [processed] = await t.ctx.db.tx((tx) => reportPayoutOutcomes(t.ctx, tx, [{ payoutId: p.id, move: 'process', rail: { uetr } }]));
    expect(processed).toEqual({ payoutId: p.id, applied: true, status: 'processing' });
    const [paid] = await t.ctx.db.tx((tx) => reportPayoutOutcomes(t.ctx, tx, [{ payoutId: p.id, move: 'pay' }]));
    expect(paid).toEqual({ payoutId: p.id, applied: true, status: 'paid' });
    const again = await t.ctx.db.tx((tx) => reportPayoutOutcomes(t.ctx, tx, [{ payoutId: p.id, move: 'pay' }, { payoutId: '00000000-0000-4000-8000-000000000000', move: 'pay' }]));
    expect(again).toEqual([
      { payoutId: p.id, applied: false, status: 'paid' },
      { payoutId: '00000000-0000-4000-8000-000000000000', applied: false, status: undefined },
    ]);
    const read = (await c.request('GET', `/v1/payouts/${p.id}`)).json();
    expect(read).toMatchObject({ status: 'paid', uetr });
    expect(read.returnReason).toBeUndefined();
  });

  it('keeps a reject reason on the payout and its event, and releases the funds', async () => {
    const before = await balance(c, 'EUR');
    const p = await handedOver(ref());
    const returnReason = { code: 'AC01', description: 'Incorrect account number' };
    await t.ctx.db.tx((tx) => reportPayoutOutcomes(t.ctx, tx, [{ payoutId: p.id, move: 'fail', failureReason: 'beneficiary_account_invalid', returnReason }]));
    const read = await waitFor(c, p.id, (x) => x.status === 'failed');
    expect(read).toMatchObject({ failureReason: 'beneficiary_account_invalid', returnReason });
    const after = await balance(c, 'EUR');
    expect({ balance: after?.balance, pendingOut: after?.pendingOut }).toEqual({ balance: before?.balance, pendingOut: before?.pendingOut });
    const events = (await c.request('GET', `/v1/events?type=payout.failed`)).json<{ data: { data: { id: string; returnReason?: unknown } }[] }>().data;
    expect(events.find((e) => e.data.id === p.id)?.data.returnReason).toEqual(returnReason);
  });
});
