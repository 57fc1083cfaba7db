/**
 * Bank account identifiers, one owner for the whole tree: the IBAN's stored form and its check
 * (ibantools), BIC, US ABA routing numbers and Nigerian NUBAN check digits. Beneficiaries, virtual
 * accounts, the corridor catalog and the bank connector (its configured accounts, its files out and
 * the files coming back) all normalise and check accounts here. No I/O.
 */
import { electronicFormatIBAN, extractIBAN, isValidBIC } from 'ibantools';

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
