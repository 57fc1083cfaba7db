import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRunner } from '../../src/jobs.js';
import type { JobRunner } from '../../src/platform/jobs/runner.js';
import { startPaystackSimulator, type PaystackSimulator } from '../../src/connectors/paystack/simulator.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { startPrism, type PrismProxy } from '../helpers/prism.js';
import { connectorsFile } from '../bank/helpers.js';
import { fund, payingWorkspace, ref } from '../payouts/helpers.js';
import type { Caller } from '../helpers/app.js';

/** Paystack's published definition, read where the shared real-world folder keeps it. */
export const PAYSTACK_YAML = path.resolve(process.cwd(), '../shared/real-world/nigeria/paystack.yaml');
export const SECRET_KEY = 'sk_test_corridor0123456789abcdef';

export function secretKeyFile(key = SECRET_KEY): string {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'corridor-paystack-')), 'paystack.key');
  fs.writeFileSync(file, `${key}\n`, { mode: 0o600 });
  return file;
}

export interface PaystackRig {
  sim: PaystackSimulator;
  prism: PrismProxy;
  t: TestApp;
  runner: JobRunner | undefined;
  c: Caller;
  base: string;
  close(): Promise<void>;
}

/** The simulator, Prism in front of it holding both sides to paystack.yaml, and Corridor (listening, for webhooks) whose paystack connector calls through Prism. */
export async function paystackRig(options: { webhookWaitSeconds?: number; runner?: boolean; env?: Record<string, string>; routes?: Record<string, unknown> } = {}): Promise<PaystackRig> {
  const sim = await startPaystackSimulator({ secretKey: SECRET_KEY, settleMs: 100, reverseMs: 100, defaultAccountName: 'ADAEZE OKAFOR' });
  const prism = await startPrism(PAYSTACK_YAML, sim.url);
  const file = connectorsFile({ routes: options.routes ?? { bank_transfer: 'paystack' }, paystack: { baseUrl: prism.url, secretKeyFile: secretKeyFile(), webhookWaitSeconds: options.webhookWaitSeconds ?? 3, pollSeconds: 1, lowBalance: '10000.00' } });
  const t = await createTestApp({ env: { CORRIDOR_CONNECTORS_FILE: file, JOB_POLL_MS: '20', ...options.env } });
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  const address = t.app.server.address();
  const base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  sim.options.webhookUrl = `${base}/connectors/paystack/webhook`;
  const runner = options.runner === false ? undefined : createRunner(t.ctx);
  runner?.start();
  const c = await payingWorkspace(t);
  await fund(c, 'NGN', '1000000.00');
  return {
    sim,
    prism,
    t,
    runner,
    c,
    base,
    close: async () => {
      await runner?.stop();
      await t.close();
      await prism.stop();
      await sim.close();
    },
  };
}

export const NG_PERSON = (crAccount: string, name = 'Adaeze Okafor') => ({
  name,
  type: 'individual',
  country: 'NG',
  accounts: [{ type: 'bank_account', currency: 'NGN', data: { bankCode: '058', crAccount } }],
});

export async function ngnPayout(c: Caller, crAccount: string, amount = '1500.00', name?: string): Promise<string> {
  const res = await c.request('POST', '/v1/payouts', { clientRef: ref('ngn'), amount, currency: 'NGN', route: 'bank_transfer', beneficiary: NG_PERSON(crAccount, name) });
  if (res.statusCode !== 201) throw new Error(`POST /v1/payouts: ${res.statusCode} ${res.body}`);
  return res.json<{ id: string }>().id;
}
