import fs from 'node:fs';
import path from 'node:path';
import type { Config } from '../platform/config.js';
import { CryptoBox } from '../platform/lib/crypto-box.js';

/** Reads all of standard input (a secret is piped, never an argument: it would stay in the shell's history). */
export async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8').trim();
}

/**
 * The key a server started with this configuration seals and opens the connectors file's secrets
 * with: CORRIDOR_ENCRYPTION_KEY, else the data directory's key file only if one exists (a command
 * never makes a new key that no server holds). `source` says where it came from.
 */
export function sealingBox(config: Config): { box: CryptoBox; source: string } {
  const keyFile = path.resolve(config.dataDir, 'encryption.key');
  if (!config.encryptionKey && !fs.existsSync(keyFile)) {
    throw new Error(`CORRIDOR_ENCRYPTION_KEY is unset and there is no key file at ${keyFile}: set CORRIDOR_ENCRYPTION_KEY (or CORRIDOR_DATA_DIR) as the server that reads the connectors file runs with`);
  }
  const box = CryptoBox.load(config.encryptionKey, config.dataDir);
  return { box, source: config.encryptionKey ? 'CORRIDOR_ENCRYPTION_KEY' : `the key file ${keyFile} (CORRIDOR_ENCRYPTION_KEY is unset)` };
}

/**
 * `corridor <connector> encrypt-secret`: seals the secret read from standard input and prints the
 * sealed value only, never the secret; `missing` is the error when nothing was piped.
 */
export async function sealSecretFromStdin(config: Config, missing: string): Promise<void> {
  const secret = await readStdin();
  if (!secret) throw new Error(missing);
  const { box } = sealingBox(config);
  process.stdout.write(`${box.encrypt(secret)}\n`);
  process.stderr.write(`sealed under key id ${box.keyId}; the server must run with the same key\n`);
}
