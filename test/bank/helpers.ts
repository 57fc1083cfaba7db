import fs from 'node:fs';
import { afterAll, beforeAll } from 'vitest';
import os from 'node:os';
import path from 'node:path';
import { bankConnectorOf } from '../../src/connectors/bank/bank.connector.js';
import { runPoll } from '../../src/connectors/bank/bank.service.js';
import { createRunner } from '../../src/jobs.js';
import { createTestApp, type Caller, type TestApp } from '../helpers/app.js';
import { SftpBank } from '../helpers/sftp-bank.js';
import { bankSection, startSftpServer, type SftpServer } from '../helpers/sftp-server.js';
import { fund, payingWorkspace } from '../payouts/helpers.js';

/** A connectors file (CORRIDOR_CONNECTORS_FILE) with this content, in a temporary directory. */
export function connectorsFile(content: unknown): string {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'corridor-connectors-')), 'connectors.json');
  fs.writeFileSync(file, JSON.stringify(content));
  return file;
}

export const BANK_ROUTES = { sepa_credit: 'bank', sepa_inst: 'bank', swift: 'bank' };

/** A SWIFT beneficiary in Switzerland paid in USD, with a structured address. */
export const GRACE = {
  type: 'individual',
  name: 'Grace Hopper',
  country: 'CH',
  address: 'Bahnhofstrasse 1',
  city: 'Zurich',
  postcode: '8001',
  accounts: [{ type: 'iban', currency: 'USD', data: { iban: 'CH9300762011623852957', bic: 'UBSWCHZH80A' } }],
};


/** An app whose bank connector pays over a real OpenSSH SFTP server, its job runner started, with one paying workspace funded. */
export interface BankApp {
  server: SftpServer;
  t: TestApp;
  c: Caller;
  stop(): Promise<void>;
}

export async function startBankApp(bank: Parameters<typeof bankSection>[1], funds: Record<string, string>): Promise<BankApp> {
  const server = await startSftpServer();
  const file = connectorsFile({ routes: BANK_ROUTES, bank: bankSection(server, bank) });
  const t = await createTestApp({ env: { CORRIDOR_CONNECTORS_FILE: file, JOB_POLL_MS: '20' } });
  const runner = createRunner(t.ctx);
  runner.start();
  const c = await payingWorkspace(t);
  for (const [currency, amount] of Object.entries(funds)) await fund(c, currency, amount);
  return {
    server,
    t,
    c,
    stop: async () => {
      await runner.stop();
      await t.close();
      await server.stop();
    },
  };
}

/** An app whose bank connector reads the given accounts' files from a real OpenSSH SFTP server's outbox, polled when the test says, and the test-side bank logged in. */
export interface PolledBankApp {
  server: SftpServer;
  t: TestApp;
  bank: SftpBank;
  /** One look at the bank's outbox over SFTP, as the bank.poll job takes it. */
  poll(): Promise<void>;
  stop(): Promise<void>;
}

export async function startPolledBankApp(accounts: unknown[]): Promise<PolledBankApp> {
  const server = await startSftpServer();
  const t = await createTestApp({ env: { CORRIDOR_CONNECTORS_FILE: connectorsFile({ routes: BANK_ROUTES, bank: bankSection(server, { accounts }) }) } });
  const bank = await SftpBank.connect(server);
  return {
    server,
    t,
    bank,
    poll: async () => {
      const connector = bankConnectorOf(t.ctx);
      if (!connector) throw new Error('no bank connector configured');
      await runPoll(t.ctx, connector.runtime, 'bank');
    },
    stop: async () => {
      await bank.end();
      await t.close();
      await server.stop();
    },
  };
}

/** A polled bank app for the tests of one describe block: started before them, stopped after; the returned function gives it. */
export function polledBankAppForSuite(accounts: unknown[]): () => PolledBankApp {
  let app: PolledBankApp | undefined;
  beforeAll(async () => {
    app = await startPolledBankApp(accounts);
  }, 300_000);
  afterAll(async () => {
    await app?.stop();
  }, 120_000);
  return () => {
    if (!app) throw new Error('the polled bank app has not started');
    return app;
  };
}
