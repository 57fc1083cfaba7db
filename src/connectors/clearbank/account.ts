import { electronicFormatIBAN, isValidIBAN } from 'ibantools';
import UkModulusChecking from 'uk-modulus-checking';
import type { FieldError } from '../../platform/lib/errors.js';

/** A UK account as Faster Payments reaches it: a 6-digit sort code and an 8-digit account number. */
export interface UkAccount {
  sortCode: string;
  accountNumber: string;
}

/** A GB IBAN's sort code and account number (GBkk BBBB SSSSSS AAAAAAAA), or undefined when it is not a valid GB IBAN. */
export function ukAccountOfIban(iban: string): UkAccount | undefined {
  const electronic = electronicFormatIBAN(iban) ?? '';
  if (!electronic.startsWith('GB') || electronic.length !== 22 || !isValidIBAN(electronic)) return undefined;
  return { sortCode: electronic.slice(8, 14), accountNumber: electronic.slice(14, 22) };
}

/** Passes VocaLink's modulus checks (uk-modulus-checking); a sort code the table does not name cannot be checked and passes. */
export function passesModulusCheck(account: UkAccount): boolean {
  return new UkModulusChecking({ sortCode: account.sortCode, accountNumber: account.accountNumber }).isValid();
}

interface AccountData {
  iban?: unknown;
  sortCode?: unknown;
  accountNumber?: unknown;
}

/**
 * The beneficiary's UK account: a bank_account's sortCode (112233 or 11-22-33) and 8-digit
 * accountNumber, or a GB IBAN turned into its sort code and account number; with the field to name
 * when it is not one. Its modulus check is answered apart (`passesModulusCheck`).
 */
export function ukAccountOf(beneficiary: Record<string, unknown>): { account: UkAccount } | { error: FieldError } {
  const accounts = (beneficiary.accounts ?? []) as { data?: AccountData }[];
  for (const [i, a] of accounts.entries()) {
    const data = a.data ?? {};
    if (typeof data.sortCode === 'string' && typeof data.accountNumber === 'string') {
      const sortCode = data.sortCode.replace(/-/g, '');
      if (!/^[0-9]{6}$/.test(sortCode)) return { error: { field: `beneficiary.accounts[${i}].data.sortCode`, message: 'a sort code is 6 digits (112233 or 11-22-33)', code: 'RECIPIENT_DETAILS_INVALID' } };
      if (!/^[0-9]{8}$/.test(data.accountNumber)) return { error: { field: `beneficiary.accounts[${i}].data.accountNumber`, message: 'a UK account number is 8 digits', code: 'RECIPIENT_DETAILS_INVALID' } };
      return { account: { sortCode, accountNumber: data.accountNumber } };
    }
    if (typeof data.iban === 'string') {
      const account = ukAccountOfIban(data.iban);
      if (!account) return { error: { field: `beneficiary.accounts[${i}].data.iban`, message: 'Faster Payments reach a UK account: a valid GB IBAN (or a sort code and account number)', code: 'RECIPIENT_DETAILS_INVALID' } };
      return { account };
    }
  }
  return { error: { field: 'beneficiary.accounts', message: 'a Faster Payment needs a UK account: sortCode and accountNumber, or a GB IBAN', code: 'RECIPIENT_DETAILS_INVALID' } };
}

/** What the connector refuses at submit: no UK account, or one that fails its modulus check. */
export function accountErrors(beneficiary: Record<string, unknown>): FieldError[] {
  const found = ukAccountOf(beneficiary);
  if ('error' in found) return [found.error];
  if (!passesModulusCheck(found.account)) {
    return [{ field: 'beneficiary.accounts', message: `sort code ${found.account.sortCode} and account number ${found.account.accountNumber} fail the UK modulus check: one of them is mistyped`, code: 'RECIPIENT_DETAILS_INVALID' }];
  }
  return [];
}
