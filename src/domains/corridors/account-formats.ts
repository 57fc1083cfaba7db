/**
 * Pure format checks of payment-account identifiers: IBAN and BIC (ibantools), E.164 phone numbers
 * (libphonenumber-js), ABA routing numbers, Nigerian NUBAN check digits, and crypto addresses per
 * network (EVM hex with the EIP-55 checksum when mixed case, Tron base58check, Solana base58 of 32 bytes).
 * No I/O; each answers a boolean or a normalised value.
 */
import { keccak_256 } from '@noble/hashes/sha3.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { base58, createBase58check } from '@scure/base';
import { electronicFormatIBAN, extractIBAN, isValidBIC } from 'ibantools';
import { parsePhoneNumberFromString } from 'libphonenumber-js';
import type { CryptoNetwork } from './catalog.js';

// ---------------------------------------------------------------------------------------------
// IBAN and BIC

/** The IBAN without spaces, upper-cased (the form that is stored and checked). */
export function normaliseIban(value: string): string {
  return electronicFormatIBAN(value) ?? value;
}

/** Country code and check digits (mod 97) and the country's BBAN format; `country` is its first two letters when valid. */
export function checkIban(value: string): { valid: boolean; country: string | undefined } {
  const iban = normaliseIban(value);
  if (!/^[A-Z]{2}[0-9]{2}[A-Z0-9]{11,30}$/.test(iban)) return { valid: false, country: undefined };
  const extracted = extractIBAN(iban);
  return { valid: extracted.valid, country: extracted.valid ? extracted.countryCode : undefined };
}

export function isBic(value: string): boolean {
  return /^[A-Z0-9]{8}([A-Z0-9]{3})?$/.test(value) && isValidBIC(value);
}

// ---------------------------------------------------------------------------------------------
// US ABA routing number

/** 9 digits whose weighted sum 3·(d1+d4+d7) + 7·(d2+d5+d8) + (d3+d6+d9) is a multiple of 10. */
export function isAbaRoutingNumber(value: string): boolean {
  if (!/^[0-9]{9}$/.test(value)) return false;
  const d = [...value].map((c) => c.charCodeAt(0) - 48);
  const weights = [3, 7, 1, 3, 7, 1, 3, 7, 1];
  const total = d.reduce((acc, digit, i) => acc + digit * (weights[i] ?? 0), 0);
  return total % 10 === 0 && value !== '000000000';
}

// ---------------------------------------------------------------------------------------------
// Nigerian NUBAN

/** A CBN institution code: 3 digits (deposit money banks), 5 (legacy, prefixed 9) or 6 digits. */
export const NG_BANK_CODE = /^(?:[0-9]{3}|[0-9]{5}|[0-9]{6})$/;

/**
 * The NUBAN check digit of a 9-digit serial at a bank (CBN revised NUBAN standard): the bank code is
 * widened to 6 digits ("000" before a 3-digit code, "9" before a 5-digit one), the 15 digits of
 * code and serial are weighted 3, 7, 3, 3, 7, 3, ... and the check digit is (10 − sum mod 10) mod 10.
 */
export function nubanCheckDigit(bankCode: string, serial: string): number {
  const code = bankCode.length === 3 ? `000${bankCode}` : bankCode.length === 5 ? `9${bankCode}` : bankCode;
  const digits = code + serial;
  const weights = [3, 7, 3];
  let total = 0;
  for (let i = 0; i < digits.length; i++) total += (digits.charCodeAt(i) - 48) * (weights[i % 3] ?? 0);
  return (10 - (total % 10)) % 10;
}

export function isNuban(bankCode: string, account: string): boolean {
  if (!NG_BANK_CODE.test(bankCode) || !/^[0-9]{10}$/.test(account)) return false;
  return nubanCheckDigit(bankCode, account.slice(0, 9)) === account.charCodeAt(9) - 48;
}

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
