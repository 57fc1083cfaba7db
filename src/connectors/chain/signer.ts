import { privateKeyToAccount } from 'viem/accounts';
import type { Address, Hex, TransactionSerializableEIP1559 } from 'viem';

/**
 * What signs the hot wallet's transactions. The local signer holds the key (opened from the
 * connectors file with CORRIDOR_ENCRYPTION_KEY); a KMS or HSM signer implements the same two
 * members, and nothing else in the chain connector sees a key.
 */
export interface ChainSigner {
  readonly address: Address;
  /** The signed, serialized EIP-1559 transaction (the raw bytes broadcast as they are). */
  signTransaction(tx: TransactionSerializableEIP1559): Promise<Hex>;
}

/** A signer from a private key held in memory (never logged, never stored unsealed). */
export function localSigner(privateKey: string): ChainSigner {
  const key = (privateKey.startsWith('0x') ? privateKey : `0x${privateKey}`) as Hex;
  if (!/^0x[0-9a-fA-F]{64}$/.test(key)) throw new Error('the hot wallet key must be 32 bytes of hex');
  const account = privateKeyToAccount(key);
  return {
    address: account.address,
    signTransaction: (tx) => account.signTransaction(tx),
  };
}
