/**
 * Pure format checks of the catalog's non-bank account identifiers: E.164 phone numbers
 * (libphonenumber-js) and crypto addresses per network (EVM hex with the EIP-55 checksum when mixed
 * case, Tron base58check, Solana base58 of 32 bytes). Bank accounts (IBAN, BIC, ABA, NUBAN) have their
 * one owner in platform/lib/bank-account.ts. No I/O; each answers a boolean or a normalised value.
 */
import { keccak_256 } from '@noble/hashes/sha3.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { base58, createBase58check } from '@scure/base';
import { parsePhoneNumberFromString } from 'libphonenumber-js';
import type { CryptoNetwork } from './catalog.js';

// ---------------------------------------------------------------------------------------------
// Phone numbers

const E164 = /^\+[1-9][0-9]{6,14}$/;

/** An E.164 number (`+` and digits, no spaces) that libphonenumber-js knows as valid; its country when it is. */
export function checkE164(value: string): { valid: boolean; country: string | undefined } {
  if (!E164.test(value)) return { valid: false, country: undefined };
  const parsed = parsePhoneNumberFromString(value);
  if (!parsed || !parsed.isValid()) return { valid: false, country: undefined };
  return { valid: true, country: parsed.country };
}

// ---------------------------------------------------------------------------------------------
// Crypto addresses

const hex = (bytes: Uint8Array): string => Buffer.from(bytes).toString('hex');
const tronBase58check = createBase58check(sha256);

/** EIP-55: the mixed-case checksum of a 20-byte hex address (`0x` and 40 hex digits). */
export function toChecksumAddress(address: string): string {
  const lower = address.slice(2).toLowerCase();
  const hash = hex(keccak_256(new TextEncoder().encode(lower)));
  let out = '0x';
  for (let i = 0; i < lower.length; i++) {
    const c = lower[i] as string;
    out += parseInt(hash[i] as string, 16) >= 8 ? c.toUpperCase() : c;
  }
  return out;
}

/** `0x` and 40 hex digits; all-lower or all-upper case is accepted as is, mixed case must carry the EIP-55 checksum. */
export function isEvmAddress(value: string): boolean {
  if (!/^0x[0-9a-fA-F]{40}$/.test(value)) return false;
  const body = value.slice(2);
  if (body === body.toLowerCase() || body === body.toUpperCase()) return true;
  return toChecksumAddress(value) === value;
}

/** Base58check (double SHA-256) of 21 bytes starting with 0x41: the addresses that begin with T. */
export function isTronAddress(value: string): boolean {
  if (!/^T[1-9A-HJ-NP-Za-km-z]{33}$/.test(value)) return false;
  try {
    const payload = tronBase58check.decode(value);
    return payload.length === 21 && payload[0] === 0x41;
  } catch {
    return false;
  }
}

/** Base58 of exactly 32 bytes (an ed25519 public key or a program-derived address). */
export function isSolanaAddress(value: string): boolean {
  if (!/^[1-9A-HJ-NP-Za-km-z]{32,44}$/.test(value)) return false;
  try {
    return base58.decode(value).length === 32;
  } catch {
    return false;
  }
}

/** What a valid address looks like on each network (for messages). */
export const CRYPTO_ADDRESS_SHAPES: Readonly<Record<CryptoNetwork, string>> = {
  ethereum: '0x and 40 hex digits, with a valid EIP-55 checksum when mixed case',
  polygon: '0x and 40 hex digits, with a valid EIP-55 checksum when mixed case',
  tron: 'a base58check Tron address starting with T',
  solana: 'a base58 Solana address of 32 bytes',
};

const ADDRESS_CHECKS: Readonly<Record<CryptoNetwork, (value: string) => boolean>> = {
  ethereum: isEvmAddress,
  polygon: isEvmAddress,
  tron: isTronAddress,
  solana: isSolanaAddress,
};

export function isCryptoAddress(network: CryptoNetwork, value: string): boolean {
  return ADDRESS_CHECKS[network](value);
}
