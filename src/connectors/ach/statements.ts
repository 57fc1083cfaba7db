import { createHash } from 'node:crypto';
import type { AppContext } from '../../platform/context.js';
import { newId } from '../../platform/lib/ids.js';
import { recordException, recordStatement } from '../../controls/reconciliation/reconciliation.port.js';
import { inboundFileApplied, insertInboundFile, quarantineInboundFile, startApplyingInboundFile, findInboundFileBySha } from '../bank/bank.port.js';
import { Bai2Error, balanceOf, readBai2, type Bai2Account, type Bai2File, type Bai2Group } from './bai2.js';
import type { AchConfig } from './config.js';

/** A BAI2 file starts with its file header record. */
export const isBai2 = (bytes: Buffer): boolean => /^\uFEFF?\s*01,/.test(bytes.subarray(0, 16).toString('latin1'));

export type StatementOutcome = { name: string; outcome: 'applied'; statements: number; lines: number; exceptions: number } | { name: string; outcome: 'refused'; reason: string } | { name: string; outcome: 'seen' };

/** What the ODFI's BAI2 report names an account's opening and closing ledger balances: 010 and 015. */
const OPENING_LEDGER = '010';
const CLOSING_LEDGER = '015';

const statementIdOf = (file: Bai2File, group: Bai2Group, a: Bai2Account) => `bai2:${file.sender}:${file.fileId}:${group.asOfDate}:${a.accountNumber}`;

/**
 * Takes one BAI2 statement file from the ODFI into reconciliation, once: the file is recorded by its
 * hash among the bank files taken in (the same book as camt.053), then each account of a configured
 * `statementAccounts` entry becomes a statement (opening and closing ledger balances, 010 and 015;
 * each transaction a line, credit or debit by its type code) matched against Corridor's book like a
 * camt.053's, its difference shown. An account Corridor does not know, or without both balances, is
 * an exception for the operator; a file that cannot be read, or whose totals disagree, is refused
 * whole with the reason. A group marked test only (status 4) or a deletion (2) is not a statement.
 */
export async function takeInStatements(ctx: AppContext, config: AchConfig, name: string, bytes: Buffer): Promise<StatementOutcome> {
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  if (await findInboundFileBySha(ctx.db, sha256)) return { name, outcome: 'seen' };
  return ctx.db.tx(async (tx) => {
    const recorded = await insertInboundFile(tx, { id: newId(), name, sha256, size: bytes.length, status: 'received', reason: null });
    if (!recorded) return { name, outcome: 'seen' as const };
    const refuse = async (reason: string, message?: { type: string; version: string; id: string }) => {
      await quarantineInboundFile(tx, recorded.id, reason, message);
      return { name, outcome: 'refused' as const, reason };
    };
    let file: Bai2File;
    try {
      file = readBai2(bytes.toString('latin1'));
    } catch (err) {
      if (!(err instanceof Bai2Error)) throw err;
      return refuse(`not a BAI2 file Corridor can read: ${err.message}`);
    }
    const message = { type: 'bai2', version: '2', id: `${file.sender}:${file.fileId}:${file.createdOn}` };
    if (!(await startApplyingInboundFile(tx, recorded.id, message))) return refuse(`BAI2 file ${file.fileId} of ${file.sender} made on ${file.createdOn} was taken in before`, message);
    let statements = 0;
    let lines = 0;
    let exceptions = 0;
    for (const group of file.groups) {
      if (group.status === '2' || group.status === '4') continue;
      for (const a of group.accounts) {
        const known = config.statementAccounts.find((s) => s.accountNumber === a.accountNumber);
        const opening = balanceOf(a, OPENING_LEDGER);
        const closing = balanceOf(a, CLOSING_LEDGER);
        if (!known || opening === undefined || closing === undefined) {
          exceptions++;
          const reason = !known
            ? `BAI2 statement of account ${a.accountNumber}, which no "ach".statementAccounts entry names: not reconciled. Who must act: the operator (add the account, or ask the ODFI why it reports it)`
            : `BAI2 statement of account ${a.accountNumber} on ${group.asOfDate} without its opening (010) and closing (015) ledger balances: not reconciled. Who must act: the operator (ask the ODFI for a prior-day report)`;
          await recordException(tx, { file_id: recorded.id, bank_account: known?.id ?? null, message_type: 'bai2', code: known ? 'statement_incomplete' : 'unknown_account', reason, entry_ref: null, end_to_end_id: null, direction: null, amount_minor: null, currency: a.currency, booking_date: group.asOfDate });
          continue;
        }
        const result = await recordStatement(tx, {
          fileId: recorded.id,
          bankAccount: known.id,
          statementId: statementIdOf(file, group, a),
          iban: undefined,
          currency: a.currency,
          date: group.asOfDate,
          openingMinor: opening,
          closingMinor: closing,
          lines: a.transactions.map((t) => ({
            entryRef: t.bankReference,
            endToEndId: t.customerReference,
            direction: t.direction,
            amountMinor: t.amountMinor,
            currency: a.currency,
            bookingDate: t.valueDate ?? group.asOfDate,
            bankTransactionCode: t.typeCode,
            description: t.text,
          })),
        });
        if (!result.duplicate) {
          statements++;
          lines += a.transactions.length;
        }
      }
    }
    await inboundFileApplied(tx, recorded.id, { units: 1, entries: lines, exceptions, done: true });
    return { name, outcome: 'applied' as const, statements, lines, exceptions };
  });
}
