import fs from 'node:fs';
import path from 'node:path';
import type { Config } from '../platform/config.js';
import { CryptoBox } from '../platform/lib/crypto-box.js';
import { MobileMoneySimulator } from '../connectors/mobile-money/simulator.js';
import { serveUntilSignal, simulatorLog } from './simulator-process.js';

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8').trim();
}

/**
 * `corridor mobile-money encrypt-secret`: seals the operator's API key or the callback secret read
 * from standard input under CORRIDOR_ENCRYPTION_KEY, for the connectors file's "mobile-money"
 * section (apiKey, callbackSecret). Prints the sealed value only; never the secret.
 */
export async function encryptMobileMoneySecret(config: Config): Promise<void> {
  const secret = await readStdin();
  if (!secret) throw new Error('pipe the API key or the callback secret on standard input');
  const keyFile = path.resolve(config.dataDir, 'encryption.key');
  if (!config.encryptionKey && !fs.existsSync(keyFile)) {
    throw new Error(`CORRIDOR_ENCRYPTION_KEY is unset and there is no key file at ${keyFile}: set CORRIDOR_ENCRYPTION_KEY (or CORRIDOR_DATA_DIR) as the server that reads the connectors file runs with`);
  }
  const box = CryptoBox.load(config.encryptionKey, config.dataDir);
  process.stdout.write(`${box.encrypt(secret)}\n`);
  process.stderr.write(`sealed under key id ${box.keyId}; the server must run with the same key\n`);
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
