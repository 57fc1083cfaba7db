import { createPrivateKey, createPublicKey } from 'node:crypto';
import fs from 'node:fs';
import { ClearBankSimulator } from '../connectors/clearbank/simulator.js';
import { serveUntilSignal, simulatorLog } from './simulator-process.js';

/**
 * `corridor clearbank-sim --port N --token-file F --operator-public-key F --bank-private-key F
 * --webhook-url URL [--lose-rate R] [--repeat-rate R] [--account-iban IBAN]`: the sandbox ClearBank (simulator.ts) as its
 * own process. It serves ClearBank's FPS and Confirmation of Payee endpoints on 127.0.0.1:N for the
 * connectors file's `"clearbank": { "baseUrl": "http://127.0.0.1:N", ... }`, and sends its signed
 * webhooks to URL (Corridor's /connectors/clearbank/webhooks), by magic account numbers
 * (docs/guides/faster-payments.md, "Sandbox ClearBank"). Runs until SIGINT or SIGTERM.
 */
export async function clearBankSim(options: { port: number; tokenFile: string; operatorPublicKey: string; bankPrivateKey: string; webhookUrl: string; loseRate: number; repeatRate: number; accountIban: string }): Promise<void> {
  const log = simulatorLog('clearbank-sim');
  const sim = new ClearBankSimulator({
    apiToken: fs.readFileSync(options.tokenFile, 'utf8').trim(),
    operatorPublicKey: createPublicKey(fs.readFileSync(options.operatorPublicKey, 'utf8')),
    bankPrivateKey: createPrivateKey(fs.readFileSync(options.bankPrivateKey, 'utf8')),
    webhookUrl: options.webhookUrl,
    port: options.port,
    loseRate: options.loseRate,
    repeatRate: options.repeatRate,
    accountIban: options.accountIban,
    settleDelayMs: 1000,
    returnDelayMs: 5000,
    redeliverMs: 2000,
    log,
  });
  const url = await sim.start();
  log(`listening on ${url}; webhooks to ${options.webhookUrl}`);
  await serveUntilSignal(() => sim.stop());
}
