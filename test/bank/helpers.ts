import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRunner } from '../../src/jobs.js';
import { createTestApp, type Caller, type TestApp } from '../helpers/app.js';
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
