import fs from 'node:fs';
import * as openpgp from 'openpgp';
import type { Section } from '../../platform/connectors-file.js';
import type { CryptoBox } from '../../platform/lib/crypto-box.js';

/**
 * OpenPGP for a bank's host-to-host service (the "bank" section's `pgp`), with the `openpgp` library:
 * every file Corridor sends is encrypted to the bank's public key and signed with Corridor's private
 * key; every file the bank sends (`*.pgp`, `*.gpg`, `*.asc`) is decrypted with Corridor's private key
 * and its signature verified with the bank's public key. A file that cannot be decrypted, or whose
 * signature is missing or not the bank's, is never read: it is quarantined with the reason.
 *
 *   "pgp": { "bankPublicKeyFile": "/etc/corridor/bank-pgp-public.asc",
 *            "privateKey": "v1.…", "passphrase": "v1.…", "requireIncoming": true }
 *
 * `privateKey` (Corridor's armored private key) and `passphrase` are sealed under
 * CORRIDOR_ENCRYPTION_KEY with `corridor bank encrypt-secret`, as every secret of the connectors file
 * is, and opened in memory at start only. The bank's public key is not secret: it is read from a file.
 * `requireIncoming` (default true): a file from the bank that is not PGP-encrypted is quarantined.
 */
export interface PgpSettings {
  bankPublicKey: string;
  /** Corridor's armored private key, sealed (`v1.…`). */
  privateKeySealed: string;
  /** The private key's passphrase, sealed, when the key has one. */
  passphraseSealed: string | undefined;
  requireIncoming: boolean;
}

/** File names the bank's PGP files carry. */
export const PGP_SUFFIXES = ['.pgp', '.gpg', '.asc'] as const;

export const isPgpName = (name: string): boolean => PGP_SUFFIXES.some((s) => name.toLowerCase().endsWith(s));

const PUBLIC_ARMOR = '-----BEGIN PGP PUBLIC KEY BLOCK-----';
const PRIVATE_ARMOR = '-----BEGIN PGP PRIVATE KEY BLOCK-----';

function sealed(o: Section, key: string, optional: boolean): string | undefined {
  if (optional && !o.has(key)) return undefined;
  const value = o.text(key);
  if (!value.startsWith('v1.')) o.fail(key, 'must be sealed with `corridor bank encrypt-secret` (a value starting "v1."), never the key or passphrase in clear');
  return value;
}

/** The section's `pgp`, validated (the bank's public key read from its file, Corridor's key still sealed). */
export function pgpSection(o: Section): PgpSettings {
  const file = o.text('bankPublicKeyFile');
  let bankPublicKey: string;
  try {
    bankPublicKey = fs.readFileSync(file, 'utf8');
  } catch {
    return o.fail('bankPublicKeyFile', `names a file that cannot be read: ${file}`);
  }
  if (!bankPublicKey.includes(PUBLIC_ARMOR)) o.fail('bankPublicKeyFile', `must hold the bank's armored OpenPGP public key (${PUBLIC_ARMOR})`);
  return {
    bankPublicKey,
    privateKeySealed: sealed(o, 'privateKey', false) as string,
    passphraseSealed: sealed(o, 'passphrase', true),
    requireIncoming: o.bool('requireIncoming', true),
  };
}

/**
 * The keys in memory: the other side's public key (the bank's, for Corridor; Corridor's, for the
 * sandbox bank) and one's own private key, unlocked.
 */
export interface PgpKeys {
  theirs: openpgp.PublicKey;
  ours: openpgp.PrivateKey;
}

/** The connector's PGP: the secrets opened at start (a wrong CORRIDOR_ENCRYPTION_KEY refuses to start), the keys read once, on first use. */
export class BankPgp {
  private keys: Promise<PgpKeys> | undefined;
  private readonly privateKeyArmored: string;
  private readonly passphrase: string | undefined;

  constructor(
    readonly settings: PgpSettings,
    box: CryptoBox,
  ) {
    const open = (value: string, what: string) => {
      try {
        return box.decrypt(value);
      } catch {
        throw new Error(`connectors file: bank.pgp.${what} cannot be opened with this CORRIDOR_ENCRYPTION_KEY (key id ${box.keyId}): seal it again with \`corridor bank encrypt-secret\``);
      }
    };
    this.privateKeyArmored = open(settings.privateKeySealed, 'privateKey');
    if (!this.privateKeyArmored.includes(PRIVATE_ARMOR)) throw new Error(`connectors file: bank.pgp.privateKey must seal an armored OpenPGP private key (${PRIVATE_ARMOR})`);
    this.passphrase = settings.passphraseSealed === undefined ? undefined : open(settings.passphraseSealed, 'passphrase');
  }

  load(): Promise<PgpKeys> {
    this.keys ??= readKeys(this.settings.bankPublicKey, this.privateKeyArmored, this.passphrase).catch((err: unknown) => {
      this.keys = undefined;
      throw err;
    });
    return this.keys;
  }

  async encryptAndSign(plain: Buffer): Promise<Buffer> {
    return encryptAndSign(await this.load(), plain);
  }

  async decryptAndVerify(bytes: Buffer): Promise<Opened> {
    return decryptAndVerify(await this.load(), bytes);
  }
}

/** Reads the other side's armored public key and one's own armored private key, unlocked with its passphrase. */
export async function readKeys(theirPublicKey: string, ownPrivateKey: string, passphrase: string | undefined): Promise<PgpKeys> {
  const theirs = await openpgp.readKey({ armoredKey: theirPublicKey });
  const locked = await openpgp.readPrivateKey({ armoredKey: ownPrivateKey });
  const ours = locked.isDecrypted() ? locked : await openpgp.decryptKey({ privateKey: locked, passphrase: passphrase ?? '' });
  return { theirs, ours };
}

/** A file encrypted to the other side's key and signed with ours, binary OpenPGP (what banks' `.pgp` files are). */
export async function encryptAndSign(keys: PgpKeys, plain: Buffer): Promise<Buffer> {
  const message = await openpgp.createMessage({ binary: new Uint8Array(plain) });
  const encrypted = await openpgp.encrypt({ message, encryptionKeys: keys.theirs, signingKeys: keys.ours, format: 'binary' });
  return Buffer.from(encrypted);
}

export type Opened = { ok: true; plain: Buffer } | { ok: false; reason: string };

const words = (err: unknown) => (err instanceof Error ? err.message : String(err));

/**
 * A PGP file from the other side, decrypted with our key and its signature verified with theirs:
 * armored or binary. An unsigned file, or one signed by another key, is refused with the reason.
 */
export async function decryptAndVerify(keys: PgpKeys, bytes: Buffer): Promise<Opened> {
  let message: openpgp.Message<Uint8Array>;
  try {
    const text = bytes.subarray(0, 64).toString('latin1');
    message = text.includes('-----BEGIN PGP MESSAGE-----') ? await openpgp.readMessage({ armoredMessage: bytes.toString('latin1') }) : await openpgp.readMessage({ binaryMessage: new Uint8Array(bytes) });
  } catch (err) {
    return { ok: false, reason: `the file is not an OpenPGP message (${words(err)}): not read` };
  }
  let result: Awaited<ReturnType<typeof openpgp.decrypt<Uint8Array>>>;
  try {
    result = await openpgp.decrypt({ message, decryptionKeys: keys.ours, verificationKeys: keys.theirs, format: 'binary' });
  } catch (err) {
    return { ok: false, reason: `the file cannot be decrypted with our private key (${words(err)}): not read; ask the bank which key it encrypted to` };
  }
  if (result.signatures.length === 0) return { ok: false, reason: "the file is not signed: a file must carry the sender's signature (\"bank\".pgp); not read" };
  const fingerprint = keys.theirs.getFingerprint().toUpperCase();
  for (const signature of result.signatures) {
    try {
      await signature.verified;
    } catch (err) {
      return { ok: false, reason: `the file's signature does not verify with the sender's public key ${fingerprint} (${words(err)}): not read; the file may not come from the sender` };
    }
  }
  return { ok: true, plain: Buffer.from(result.data) };
}
