import { HDKey } from '@scure/bip32';
import { mnemonicToSeedSync, validateMnemonic } from '@scure/bip39';
import { wordlist } from '@scure/bip39/wordlists/english';
import { bytesToHex, getAddress, type Address } from 'viem';
import { privateKeyToAccount, publicKeyToAddress, type PrivateKeyAccount } from 'viem/accounts';

/**
 * Deposit addresses (BIP-32/44): one per owner and chain, the owner's derivation index i giving
 * m/44'/60'/0'/0/i under the chain's deposit wallet. The wallet is an account-level extended public
 * key (m/44'/60'/0', enough to derive addresses) or a BIP-39 mnemonic (which could also sign sweeps).
 */
export interface DepositWallet {
  address(index: number): Address;
  /** The key of the address at `index`, to sign its sweeps: only a wallet from a mnemonic has one (an xpub watches). */
  account?(index: number): PrivateKeyAccount;
}

const ACCOUNT_PATH = "m/44'/60'/0'";

/** secp256k1's field prime. */
const P = 2n ** 256n - 2n ** 32n - 977n;

function modPow(base: bigint, exp: bigint, mod: bigint): bigint {
  let result = 1n;
  let b = base % mod;
  for (let e = exp; e > 0n; e >>= 1n) {
    if (e & 1n) result = (result * b) % mod;
    b = (b * b) % mod;
  }
  return result;
}

/** A compressed secp256k1 public key (33 bytes) uncompressed (65 bytes, 0x04 prefix), as addresses are made from. */
function uncompressed(key: Uint8Array): `0x${string}` {
  const x = BigInt(bytesToHex(key.subarray(1)));
  let y = modPow((x ** 3n + 7n) % P, (P + 1n) / 4n, P);
  if ((y & 1n) !== BigInt((key[0] as number) & 1)) y = P - y;
  return `0x04${x.toString(16).padStart(64, '0')}${y.toString(16).padStart(64, '0')}`;
}

export function depositWallet(secret: string): DepositWallet {
  const text = secret.trim();
  let account: HDKey;
  if (/^[xt]pub/.test(text)) account = HDKey.fromExtendedKey(text);
  else if (validateMnemonic(text, wordlist)) account = HDKey.fromMasterSeed(mnemonicToSeedSync(text)).derive(ACCOUNT_PATH);
  else throw new Error('the deposit wallet must be an extended public key (xpub) or a BIP-39 mnemonic');
  const external = account.deriveChild(0);
  const cache = new Map<number, Address>();
  const signing = account.privateKey
    ? {
        account(index: number): PrivateKeyAccount {
          const key = external.deriveChild(index).privateKey;
          if (!key) throw new Error('no private key');
          return privateKeyToAccount(bytesToHex(key));
        },
      }
    : {};
  return {
    ...signing,
    address(index) {
      let a = cache.get(index);
      if (!a) {
        const key = external.deriveChild(index).publicKey;
        if (!key) throw new Error('no public key');
        a = getAddress(publicKeyToAddress(uncompressed(key)));
        cache.set(index, a);
      }
      return a;
    },
  };
}

/** The account-level xpub of a mnemonic (what `corridor chain encrypt-key --xpub-of-mnemonic` prints to configure a watch-only wallet). */
export function accountXpub(mnemonic: string): string {
  if (!validateMnemonic(mnemonic.trim(), wordlist)) throw new Error('not a BIP-39 mnemonic');
  return HDKey.fromMasterSeed(mnemonicToSeedSync(mnemonic.trim())).derive(ACCOUNT_PATH).publicExtendedKey;
}
