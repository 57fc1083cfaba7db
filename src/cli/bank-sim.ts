import fs from 'node:fs';
import path from 'node:path';
import type { Config } from '../platform/config.js';
import { sealSecretFromStdin } from './secrets.js';
import { readKeys } from '../connectors/bank/bank.pgp.js';
import { answerInbox, runSandboxBank } from '../connectors/bank/bank.simulator.js';

/**
 * `corridor bank encrypt-secret`: seals Corridor's armored PGP private key, or its passphrase, read
 * from standard input under CORRIDOR_ENCRYPTION_KEY, for the connectors file's "bank".pgp section
 * (privateKey, passphrase). Prints the sealed value only; never the secret.
 */
export function encryptBankSecret(config: Config): Promise<void> {
  return sealSecretFromStdin(config, 'pipe the armored PGP private key or its passphrase on standard input');
}

/**
 * `corridor bank-sim --dir DIR [--interval-ms N] [--once] [--pgp-key FILE --corridor-public-key FILE [--pgp-passphrase-file FILE]]`: the sandbox bank (bank.simulator.ts) as
 * its own process. It answers the pain.001 files the bank connector writes into DIR/in (the
 * connectors file's `"bank": { "directory": DIR }`, sandbox only) into DIR/out, by magic amounts
 * (docs/guides/bank-rails.md, "Sandbox bank"). With --pgp-key (the bank's armored private key) and
 * --corridor-public-key, it takes PGP files only and answers encrypted and signed, as a bank's
 * host-to-host service with PGP does. Runs until SIGINT or SIGTERM; --once answers what
 * waits and exits.
 */
export async function bankSim(options: { dir: string; intervalMs: number; once: boolean; pgp?: { privateKeyFile: string; passphraseFile?: string | undefined; corridorPublicKeyFile: string } | undefined }): Promise<void> {
  const dir = path.resolve(options.dir);
  const log = (line: string) => process.stdout.write(`${new Date().toISOString()} bank-sim ${line}\n`);
  const p = options.pgp;
  const pgp = p && (await readKeys(fs.readFileSync(p.corridorPublicKeyFile, 'utf8'), fs.readFileSync(p.privateKeyFile, 'utf8'), p.passphraseFile && fs.readFileSync(p.passphraseFile, 'utf8').trim()));
  if (options.once) {
    await answerInbox({ dir, log, pgp });
    return;
  }
  const controller = new AbortController();
  process.once('SIGINT', () => controller.abort());
  process.once('SIGTERM', () => controller.abort());
  log(`answering ${path.join(dir, 'in')} into ${path.join(dir, 'out')} every ${options.intervalMs} ms`);
  await runSandboxBank({ dir, log, pgp, intervalMs: options.intervalMs, signal: controller.signal });
}
