import { readSecretKey } from '../connectors/paystack/config.js';
import { startPaystackSimulator } from '../connectors/paystack/simulator.js';
import { formatAmount } from '../platform/lib/money.js';
import { serveUntilSignal, simulatorLog } from './simulator-process.js';

/**
 * `corridor paystack-sim --secret-key-file F --webhook-url URL [--port N] [--host H] [--balance NGN]
 * [--lose-rate R] [--repeat-rate R] [--account-name NAME]`: the sandbox Paystack
 * (src/connectors/paystack/simulator.ts) as its own process. It serves the endpoints the connector
 * calls (balance, account resolution, transfer recipients, transfers and their verification) on
 * H:N for the connectors file's `"paystack": { "baseUrl": "http://127.0.0.1:N", ... }`, checks the
 * secret key F holds (the section's `secretKeyFile`), and sends its webhooks to URL (Corridor's
 * /connectors/paystack/webhook) signed with that key, by magic accounts
 * (docs/guides/ngn-transfers.md, "The sandbox simulator"). Runs until SIGINT or SIGTERM.
 */
export async function paystackSim(options: { port: number; host: string; secretKeyFile: string; webhookUrl: string; balanceMinor: bigint; loseRate: number; repeatRate: number; accountName: string | undefined }): Promise<void> {
  const log = simulatorLog('paystack-sim');
  const secretKey = readSecretKey(options.secretKeyFile, (why) => {
    throw new Error(`--secret-key-file ${why}`);
  });
  const sim = await startPaystackSimulator({
    secretKey,
    webhookUrl: options.webhookUrl,
    balanceMinor: options.balanceMinor,
    settleMs: 1000,
    reverseMs: 5000,
    loseRate: options.loseRate,
    repeatRate: options.repeatRate,
    host: options.host,
    port: options.port,
    log,
    ...(options.accountName ? { defaultAccountName: options.accountName } : {}),
  });
  log(`serving Paystack's transfer API at ${sim.url} (balance NGN ${formatAmount(options.balanceMinor, 'NGN')}); webhooks to ${options.webhookUrl}`);
  await serveUntilSignal(() => sim.close());
}
