import type { Config } from '../platform/config.js';
import { sealSecretFromStdin } from './secrets.js';
import { MobileMoneySimulator } from '../connectors/mobile-money/simulator.js';
import { serveUntilSignal, simulatorLog } from './simulator-process.js';

/**
 * `corridor mobile-money encrypt-secret`: seals the operator's API key or the callback secret read
 * from standard input under CORRIDOR_ENCRYPTION_KEY, for the connectors file's "mobile-money"
 * section (apiKey, callbackSecret). Prints the sealed value only; never the secret.
 */
export function encryptMobileMoneySecret(config: Config): Promise<void> {
  return sealSecretFromStdin(config, 'pipe the API key or the callback secret on standard input');
}

/**
 * `corridor mobile-money-sim --port N --api-key K --callback-secret S [--lose-rate R] [--holder-name NAME]`:
 * the GSMA Mobile Money API v1.2 simulator (src/connectors/mobile-money/simulator.ts) for the sandbox:
 * the "mobile-money" section's baseUrl points at it (http is allowed with CORRIDOR_ENV=sandbox). Its
 * magic values are in docs/guides/mobile-money.md. Runs until SIGINT or SIGTERM.
 */
export async function mobileMoneySim(options: { port: number; apiKey: string; callbackSecret: string; loseRate: number; holderName: string | undefined; host: string }): Promise<void> {
  const log = simulatorLog('mobile-money-sim');
  const sim = new MobileMoneySimulator({ apiKey: options.apiKey, callbackSecret: options.callbackSecret, loseRate: options.loseRate, delayMs: 500, timeoutMs: 30_000, ...(options.holderName ? { holderName: options.holderName } : {}), log });
  const url = await sim.listen(options.port, options.host);
  log(`serving the GSMA Mobile Money API v1.2 at ${url} (callbacks lost: ${Math.round(options.loseRate * 100)}%)`);
  await serveUntilSignal(() => sim.close());
}
