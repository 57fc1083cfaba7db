import { generateKeyPairSync } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'vitest';
import { createRunner } from '../../src/jobs.js';

type JobRunner = ReturnType<typeof createRunner>;
import { ClearBankSimulator } from '../../src/connectors/clearbank/simulator.js';
import { WEBHOOK_PATH } from '../../src/connectors/clearbank/clearbank.routes.js';
import { createTestApp, type Caller, type TestApp } from '../helpers/app.js';
import { startPrism, type PrismProxy } from '../helpers/prism.js';
import { realWorldPath } from '../helpers/real-world.js';
import { connectorsFile } from '../bank/helpers.js';
import { fund, payingWorkspace, ref, type PayoutView } from '../payouts/helpers.js';

export const FPS_DEFINITION = realWorldPath('uk/clearbank-fps-initiate-payment-v3.json');
export const COP_DEFINITION = realWorldPath('uk/clearbank-cop-outbound-v1.json');
export const STATEMENTS_DEFINITION = realWorldPath('uk/clearbank-camt053-statement-request-v1.json');
/** The operator's ClearBank account (the connectors file's debtor.iban), as the sandbox bank's statements name it. */
export const OPERATOR_IBAN = 'GB29NWBK60161331926819';

/** A sort code outside VocaLink's modulus table (every account number passes): the simulator's magic accounts use it. */
export const SIM_SORT_CODE = '700000';

export const ALAN = (accountNumber = '12345601', sortCode = SIM_SORT_CODE) => ({
  type: 'individual',
  name: 'Alan Turing',
  country: 'GB',
  accounts: [{ type: 'bank_account', currency: 'GBP', country: 'GB', data: { accountNumber, sortCode } }],
});

export interface ClearBankWorld {
  t: TestApp;
  sim: ClearBankSimulator;
  fps: PrismProxy;
  cop: PrismProxy;
  /** The proxy holding the Customer Statements API (camt.053) to its definition: the connector's scheduled job asks for a statement in every world. */
  statements: PrismProxy;
  dir: string;
  keys: { operatorPublicPem: string; bankPrivatePem: string };
  section: Record<string, unknown>;
  runner: JobRunner | undefined;
  startRunner(): void;
  caller(funds?: string): Promise<Caller>;
  payout(c: Caller, beneficiary: Record<string, unknown>, amount?: string): Promise<string>;
  waitFor(c: Caller, id: string, until: (p: PayoutView) => boolean): Promise<PayoutView>;
  /** Every violation either proxy logged: none is allowed. */
  violations(): string[];
  close(): Promise<void>;
}

/**
 * Corridor → Prism (ClearBank's FPS definition) → the sandbox ClearBank, and Corridor → Prism
 * (ClearBank's CoP definition, and its Customer Statements definition) → the same simulator, its
 * webhooks back to Corridor's listening app.
 */
export async function clearBankWorld(options: { runner?: boolean; env?: Record<string, string>; statementsAccount?: string } = {}): Promise<ClearBankWorld> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'corridor-clearbank-'));
  const operator = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const bank = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const write = (name: string, text: string) => {
    const file = path.join(dir, name);
    fs.writeFileSync(file, text, { mode: 0o600 });
    return file;
  };
  const operatorPrivatePem = operator.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  const operatorPublicPem = operator.publicKey.export({ type: 'spki', format: 'pem' }).toString();
  const bankPrivatePem = bank.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  const bankPublicPem = bank.publicKey.export({ type: 'spki', format: 'pem' }).toString();
  const apiToken = 'sandbox-token-0123456789';
  const sim = new ClearBankSimulator({ apiToken, operatorPublicKey: operator.publicKey, bankPrivateKey: bank.privateKey, settleDelayMs: 50, returnDelayMs: 200, redeliverMs: 300, accountIban: OPERATOR_IBAN });
  await sim.start();
  const [fps, cop, statements] = await Promise.all([startPrism(FPS_DEFINITION, sim.url), startPrism(COP_DEFINITION, sim.url), startPrism(STATEMENTS_DEFINITION, sim.url)]);
  const section = {
    baseUrl: fps.url,
    copBaseUrl: cop.url,
    apiTokenFile: write('token', apiToken),
    privateKeyFile: write('operator.pem', operatorPrivatePem),
    bankPublicKeyFile: write('clearbank.pem', bankPublicPem),
    debtor: { iban: OPERATOR_IBAN, address: 'GB, London, 1 King Street, EC2V 8AU' },
    batch: { maxSeconds: 0 },
    timeoutMs: 60_000,
    statementsBaseUrl: statements.url,
    ...(options.statementsAccount ? { statements: { bankAccount: options.statementsAccount } } : {}),
  };
  const t = await createTestApp({ env: { CORRIDOR_CONNECTORS_FILE: connectorsFile({ routes: { bank_transfer: 'clearbank' }, clearbank: section }), JOB_POLL_MS: '20', ...options.env } });
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  const address = t.app.server.address() as { port: number };
  sim.webhookUrl = `http://127.0.0.1:${address.port}${WEBHOOK_PATH}`;
  const world: ClearBankWorld = {
    t,
    sim,
    fps,
    cop,
    statements,
    dir,
    keys: { operatorPublicPem, bankPrivatePem },
    section,
    runner: undefined,
    startRunner() {
      if (world.runner) return;
      world.runner = createRunner(t.ctx);
      world.runner.start();
    },
    async caller(funds = '10000') {
      const c = await payingWorkspace(t);
      await fund(c, 'GBP', funds);
      return c;
    },
    async payout(c, beneficiary, amount = '10.00') {
      const res = await c.request('POST', '/v1/payouts', { clientRef: ref('fps'), amount, currency: 'GBP', route: 'bank_transfer', beneficiary });
      expect(res.statusCode, res.body).toBe(201);
      return res.json<{ id: string }>().id;
    },
    async waitFor(c, id, until) {
      const deadline = Date.now() + 120_000;
      for (;;) {
        const p = (await c.request('GET', `/v1/payouts/${id}`)).json<PayoutView>();
        if (until(p)) return p;
        if (Date.now() > deadline) throw new Error(`payout ${id} still ${p.status}`);
        await new Promise((r) => setTimeout(r, 40));
      }
    },
    violations: () => [...fps.violations(), ...cop.violations(), ...statements.violations()],
    async close() {
      await world.runner?.stop();
      await t.close();
      await sim.stop();
      await Promise.all([fps.stop(), cop.stop(), statements.stop()]);
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
  if (options.runner !== false) world.startRunner();
  return world;
}
