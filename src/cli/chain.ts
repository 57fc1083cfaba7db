import { readStdin, sealingBox } from './secrets.js';
import type { Config } from '../platform/config.js';
import { accountXpub, depositWallet } from '../connectors/chain/hd.js';
import { localSigner } from '../connectors/chain/signer.js';

/**
 * `corridor chain encrypt-key`: seals a hot wallet private key (hex), a deposit wallet mnemonic or an
 * account-level xpub read from standard input under CORRIDOR_ENCRYPTION_KEY (as `corridor start` loads
 * it), for the `chains` section of the connectors file. Prints the sealed value on stdout, and on
 * stderr what it is (the hot wallet's address, or the first deposit address) and the key it is sealed
 * under (where it came from and its id, as `corridor start` would load it). Without
 * CORRIDOR_ENCRYPTION_KEY it uses the data directory's key file only if one exists: it never makes a
 * new key that no server holds.
 */
export async function encryptChainKey(config: Config): Promise<void> {
  const secret = await readStdin();
  if (!secret) throw new Error('pipe the key, mnemonic or xpub on standard input');
  let what: string;
  if (/^(0x)?[0-9a-fA-F]{64}$/.test(secret)) what = `hot wallet key of ${localSigner(secret).address}`;
  else what = `deposit wallet; first address m/44'/60'/0'/0/0 = ${depositWallet(secret).address(0)}`;
  const { box, source } = sealingBox(config);
  process.stdout.write(`${box.encrypt(secret)}\n`);
  process.stderr.write(`sealed: ${what}\nunder: ${source}, key id ${box.keyId}; the server must run with the same key\n`);
}

/** `corridor chain xpub`: the account-level xpub (m/44'/60'/0') of a mnemonic read from standard input, for a watch-only deposit wallet. */
export async function chainXpub(): Promise<void> {
  process.stdout.write(`${accountXpub(await readStdin())}\n`);
}
