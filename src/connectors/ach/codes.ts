import { addDays, addFedBusinessDays } from '../../platform/lib/federal-reserve-calendar.js';
import type { RailReason, ReasonActor } from '../connector.js';

/**
 * The ACH network's reason codes as data (NACHA Operating Rules, Appendix Four and Five): each return
 * code with its words, who must act on it, and its return window; each change code (notification of
 * change) with the field it corrects.
 *
 * Who must act: `beneficiary` when the receiver's account details are wrong or the account cannot take
 * the entry (the workspace corrects the beneficiary); `workspace` when the originator's authorization
 * or request is at issue; `operator` for what concerns the file, the ODFI or the network (a malformed
 * entry, a dishonored or contested return).
 */

export interface ReturnCode extends RailReason {
  /** The return window: banking days after settlement, or calendar days for unauthorized consumer entries. */
  window: { bankingDays: number } | { calendarDays: number };
}

const r = (code: string, words: string, actor: ReasonActor, window: ReturnCode['window'] = { bankingDays: 2 }): ReturnCode => ({ code, words, actor, window });
const SIXTY = { calendarDays: 60 };

export const RETURN_CODES: readonly ReturnCode[] = [
  r('R01', 'insufficient funds in the receiver\'s account', 'beneficiary'),
  r('R02', 'the receiver\'s account is closed', 'beneficiary'),
  r('R03', 'no account, or the account number does not match the name', 'beneficiary'),
  r('R04', 'the account number is invalid', 'beneficiary'),
  r('R05', 'unauthorized debit to a consumer account with a corporate SEC code', 'workspace', SIXTY),
  r('R06', 'returned at the ODFI\'s request', 'operator'),
  r('R07', 'the receiver revoked the authorization', 'workspace', SIXTY),
  r('R08', 'the receiver stopped the payment', 'workspace'),
  r('R09', 'uncollected funds in the receiver\'s account', 'beneficiary'),
  r('R10', 'the receiver says the entry was not authorized or is improper', 'workspace', SIXTY),
  r('R11', 'the entry does not match the terms of the receiver\'s authorization', 'workspace', SIXTY),
  r('R12', 'the account was sold to another bank', 'beneficiary'),
  r('R13', 'the routing number is not a valid ACH routing number', 'beneficiary'),
  r('R14', 'the representative payee died or cannot continue', 'beneficiary'),
  r('R15', 'the beneficiary or the account holder died', 'beneficiary'),
  r('R16', 'the account is frozen, or the entry was returned for OFAC reasons', 'beneficiary'),
  r('R17', 'the entry fails the receiving bank\'s edit criteria or is questionable', 'operator'),
  r('R18', 'improper effective entry date', 'operator'),
  r('R19', 'the amount field is in error', 'operator'),
  r('R20', 'the account does not allow this transaction', 'beneficiary'),
  r('R21', 'invalid company identification', 'workspace'),
  r('R22', 'invalid individual identification number', 'beneficiary'),
  r('R23', 'the receiver refused the credit', 'beneficiary'),
  r('R24', 'duplicate entry', 'operator'),
  r('R25', 'addenda error', 'operator'),
  r('R26', 'a mandatory field is in error', 'operator'),
  r('R27', 'trace number error', 'operator'),
  r('R28', 'the routing number\'s check digit is wrong', 'beneficiary'),
  r('R29', 'the corporate receiver says the entry was not authorized', 'workspace'),
  r('R30', 'the receiving bank does not take part in the check truncation program', 'operator'),
  r('R31', 'permissible return entry (CCD and CTX only)', 'workspace'),
  r('R32', 'the receiving bank cannot settle the entry', 'operator'),
  r('R33', 'return of an XCK entry', 'operator'),
  r('R34', 'the receiving bank\'s participation is limited by its regulator', 'operator'),
  r('R35', 'return of an improper debit entry', 'operator'),
  r('R36', 'return of an improper credit entry', 'operator'),
  r('R37', 'the source document was presented for payment', 'workspace', SIXTY),
  r('R38', 'stop payment on the source document', 'workspace', SIXTY),
  r('R39', 'improper source document', 'workspace'),
  r('R40', 'return of an ENR entry by a federal government agency', 'operator'),
  r('R41', 'invalid transaction code (ENR)', 'operator'),
  r('R42', 'routing number or check digit error (ENR)', 'operator'),
  r('R43', 'invalid DFI account number (ENR)', 'operator'),
  r('R44', 'invalid individual ID number (ENR)', 'operator'),
  r('R45', 'invalid individual name or company name (ENR)', 'operator'),
  r('R46', 'invalid representative payee indicator (ENR)', 'operator'),
  r('R47', 'duplicate enrollment (ENR)', 'operator'),
  r('R50', 'state law affecting RCK acceptance', 'operator'),
  r('R51', 'the RCK entry is ineligible or improper', 'workspace', SIXTY),
  r('R52', 'stop payment on the item (RCK)', 'workspace', SIXTY),
  r('R53', 'the item and the RCK entry were both presented', 'workspace', SIXTY),
  r('R61', 'dishonored: misrouted return', 'operator'),
  r('R62', 'dishonored: return of an erroneous or reversing debit', 'operator'),
  r('R67', 'dishonored: duplicate return', 'operator'),
  r('R68', 'dishonored: untimely return', 'operator'),
  r('R69', 'dishonored: field errors in the return', 'operator'),
  r('R70', 'dishonored: permissible return entry not accepted, or no written demand for payment', 'operator'),
  r('R71', 'contested: misrouted dishonored return', 'operator'),
  r('R72', 'contested: untimely dishonored return', 'operator'),
  r('R73', 'contested: the return was timely', 'operator'),
  r('R74', 'contested: the return was correct', 'operator'),
  r('R75', 'contested: the return was not a duplicate', 'operator'),
  r('R76', 'contested: no errors found in the return', 'operator'),
  r('R77', 'contested: the return of a non-acceptance was accepted', 'operator'),
  r('R80', 'IAT entry coding error', 'operator'),
  r('R81', 'the receiving bank does not take part in IAT', 'operator'),
  r('R82', 'invalid foreign receiving DFI identification', 'operator'),
  r('R83', 'the foreign receiving DFI cannot settle', 'operator'),
  r('R84', 'the entry was not processed by the gateway', 'operator'),
  r('R85', 'the outbound international payment was coded wrongly', 'operator'),
];

const RETURNS = new Map(RETURN_CODES.map((c) => [c.code, c]));

/** A return code as data; an unknown one is the operator's to look at, with the code in its words. */
export function returnCode(code: string): ReturnCode {
  return RETURNS.get(code) ?? { code, words: `return reason ${code}, which NACHA's rules do not define`, actor: 'operator', window: { bankingDays: 2 } };
}

/** What a notification of change corrects. */
export type ChangeField = 'accountNumber' | 'routingNumber' | 'accountType' | 'name' | 'identification';

export interface ChangeCode {
  code: string;
  words: string;
  /** The beneficiary's fields the corrected data replaces, in the order the corrected data gives them. */
  fields: readonly ChangeField[];
}

export const CHANGE_CODES: readonly ChangeCode[] = [
  { code: 'C01', words: 'incorrect account number', fields: ['accountNumber'] },
  { code: 'C02', words: 'incorrect routing number', fields: ['routingNumber'] },
  { code: 'C03', words: 'incorrect routing number and account number', fields: ['routingNumber', 'accountNumber'] },
  { code: 'C04', words: 'incorrect individual or company name', fields: ['name'] },
  { code: 'C05', words: 'incorrect transaction code (checking or savings)', fields: ['accountType'] },
  { code: 'C06', words: 'incorrect account number and transaction code', fields: ['accountNumber', 'accountType'] },
  { code: 'C07', words: 'incorrect routing number, account number and transaction code', fields: ['routingNumber', 'accountNumber', 'accountType'] },
  { code: 'C08', words: 'incorrect receiving DFI identification (IAT)', fields: [] },
  { code: 'C09', words: 'incorrect individual identification number', fields: ['identification'] },
  { code: 'C10', words: 'incorrect company name', fields: ['name'] },
  { code: 'C11', words: 'incorrect company identification', fields: ['identification'] },
  { code: 'C12', words: 'incorrect company name and company identification', fields: ['name', 'identification'] },
  { code: 'C13', words: 'addenda format error', fields: [] },
];

const CHANGES = new Map(CHANGE_CODES.map((c) => [c.code, c]));

export function changeCode(code: string): ChangeCode | undefined {
  return CHANGES.get(code);
}

/** The account type a corrected transaction code (C05, C06, C07) names: the second digit 2 to 4 of a 2x code is checking, of a 3x code savings. */
export const accountTypeOfCode = (code: string): 'checking' | 'savings' | undefined => (code.startsWith('2') ? 'checking' : code.startsWith('3') ? 'savings' : undefined);

/**
 * The corrected data of a notification of change, split into the fields it corrects (NACHA's layout
 * of Addenda 98 positions 36-64): C01 the account (17), C02 the routing number (9), C03 routing (9)
 * then three blanks then account (17), C05 the transaction code (2), C06 account (17), blanks, code
 * (2), C07 routing (9), account (17), code (2), C04/C10 the name (22).
 */
export function correctedFields(change: ChangeCode, data: string): Partial<Record<ChangeField, string>> {
  const d = data.padEnd(29, ' ');
  const t = (s: string) => s.trim();
  switch (change.code) {
    case 'C01':
      return { accountNumber: t(d.slice(0, 17)) };
    case 'C02':
      return { routingNumber: t(d.slice(0, 9)) };
    case 'C03':
      return { routingNumber: t(d.slice(0, 9)), accountNumber: t(d.slice(12, 29)) };
    case 'C04':
    case 'C10':
      return { name: t(d.slice(0, 22)) };
    case 'C05':
      return { accountType: accountTypeOfCode(t(d.slice(0, 2))) ?? '' };
    case 'C06':
      return { accountNumber: t(d.slice(0, 17)), accountType: accountTypeOfCode(t(d.slice(20, 22))) ?? '' };
    case 'C07':
      return { routingNumber: t(d.slice(0, 9)), accountNumber: t(d.slice(9, 26)), accountType: accountTypeOfCode(t(d.slice(26, 28))) ?? '' };
    case 'C09':
    case 'C11':
      return { identification: t(d.slice(0, 22)) };
    default:
      return {};
  }
}

/** The reasons of the connector's definition: every return code (the change codes correct, they never fail a payout). */
export const ACH_REASONS: readonly RailReason[] = RETURN_CODES.map(({ code, words, actor }) => ({ code, words, actor }));

/**
 * The last day (YYYY-MM-DD) a return of `code` may reach the ODFI for an entry settled on
 * `settlement`: that many Federal Reserve business days after it (2 for most codes), or calendar days
 * for unauthorized consumer entries (60: R05, R07, R10, R11 …).
 */
export function returnDeadline(code: ReturnCode, settlement: string): string {
  return 'bankingDays' in code.window ? addFedBusinessDays(settlement, code.window.bankingDays) : addDays(settlement, code.window.calendarDays);
}
