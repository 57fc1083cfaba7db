import { CryptoBox } from '../lib/crypto-box.js';
import type { Config } from '../config.js';
import { accountXpub, depositWallet } from '../modules/chain/hd.js';
import { localSigner } from '../modules/chain/signer.js';

/** Reads all of standard input (a secret is piped, never an argument: it would stay in the shell's history). */
async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8').trim();
}

/**
 * `corridor chain encrypt-key`: seals a hot wallet private key (hex), a deposit wallet mnemonic or an
 * account-level xpub read from standard input under CORRIDOR_ENCRYPTION_KEY (as `corridor start` loads
 * it), for the `chains` section of the connectors file. Prints the sealed value on stdout, and what it
 * is (the hot wallet's address, or the first deposit address) on stderr.
 */
export async function encryptChainKey(config: Config): Promise<void> {
  const secret = await readStdin();
  if (!secret) throw new Error('pipe the key, mnemonic or xpub on standard input');
  let what: string;
  if (/^(0x)?[0-9a-fA-F]{64}$/.test(secret)) what = `hot wallet key of ${localSigner(secret).address}`;
  else what = `deposit wallet; first address m/44'/60'/0'/0/0 = ${depositWallet(secret).address(0)}`;
  const box = CryptoBox.load(config.encryptionKey, config.dataDir);
  process.stdout.write(`${box.encrypt(secret)}\n`);
  process.stderr.write(`sealed: ${what}\n`);
}

/** `corridor chain xpub`: the account-level xpub (m/44'/60'/0') of a mnemonic read from standard input, for a watch-only deposit wallet. */
export async function chainXpub(): Promise<void> {
  process.stdout.write(`${accountXpub(await readStdin())}\n`);
}
