import type { Readable } from 'node:stream';
import type { Sql } from '../../platform/db/db.js';
import { csvLine } from '../../platform/lib/csv.js';
import { dayBounds, isDay } from '../../platform/lib/dates.js';
import { fieldError } from '../../platform/lib/errors.js';
import { PdfWriter } from '../../platform/lib/pdf.js';
import type { AppContext } from '../../platform/context.js';
import { getAccount, getWorkspace } from '../accounts/accounts.service.js';
import { statementLines, type StatementLine } from './balances.service.js';

/**
 * An account's statement for a period, in one currency, in the forms a finance team keeps: CSV (a
 * row a line) and PDF (the same lines, headed with who holds the account and who runs the
 * platform). Both read the ledger through statementLines, so their figures are the same.
 */

/** A statement asked for: the account, the currency, and the first and last days (UTC, both included). */
export interface StatementRequest {
  accountId: string;
  currency: string;
  from: string;
  to: string;
}

/** The period a statement covers as the ledger reads it: [first day 00:00, the day after the last) in UTC. */
export interface StatementPeriod {
  currency: string;
  from: string;
  to: string;
  fromIso: string;
  toIso: string;
}

/** Checks a statement request against the workspace's currencies: days of the calendar, in order, a currency the workspace holds. */
export function statementPeriod(input: { currency: string; from: string; to: string }, enabledCurrencies: readonly string[]): StatementPeriod {
  if (!isDay(input.from)) throw fieldError('from', 'from must be a day such as 2025-01-31');
  if (!isDay(input.to)) throw fieldError('to', 'to must be a day such as 2025-01-31');
  if (input.to < input.from) throw fieldError('to', 'to must be the same day as from or later');
  if (!enabledCurrencies.includes(input.currency)) throw fieldError('currency', `currency ${input.currency} is not enabled for this workspace`);
  return { currency: input.currency, from: input.from, to: input.to, fromIso: dayBounds(input.from).instant, toIso: dayBounds(input.to).nextInstant };
}

export const statementFileName = (period: StatementPeriod, extension: 'csv' | 'pdf'): string => `statement-${period.currency}-${period.from}-${period.to}.${extension}`;

const STATEMENT_CSV_COLUMNS = ['kind', 'at', 'transferId', 'direction', 'amount', 'currency', 'balance', 'objectType', 'objectId', 'description'];

/** The statement as CSV lines: a header, the opening balance, each posted movement with the running balance, the closing balance. */
export async function* statementCsv(sql: Sql, accountId: string, period: StatementPeriod): AsyncGenerator<string> {
  const { currency } = period;
  yield csvLine(STATEMENT_CSV_COLUMNS);
  for await (const line of statementLines(sql, accountId, currency, period)) {
    yield line.kind === 'movement'
      ? csvLine([line.kind, line.at, line.id, line.direction, line.amount, currency, line.balance, line.objectType, line.objectId, line.description])
      : csvLine([line.kind, line.at, '', '', '', currency, line.balance, '', '', '']);
  }
}

/** Who the statement is for and who issues it. */
export interface StatementParties {
  workspaceName: string;
  accountId: string;
  accountName: string;
  operatorName: string;
}

/** The workspace, the account in view (the master account or a sub-account) and the operator, named as the statement prints them. */
export async function statementParties(ctx: Pick<AppContext, 'db' | 'config'>, scope: { workspaceId: string; accountId: string }): Promise<StatementParties> {
  const workspace = await getWorkspace(ctx.db, scope.workspaceId);
  const account = scope.accountId === scope.workspaceId ? undefined : await getAccount(ctx.db, scope.workspaceId, scope.accountId);
  return { workspaceName: workspace.name, accountId: scope.accountId, accountName: account ? `sub-account ${account.name}` : 'master account', operatorName: ctx.config.operatorName };
}

const utc = (iso: string): string => `${utcTime(iso)} UTC`;
/** A time as the table's Date (UTC) column shows it: day and time to the second. */
const utcTime = (iso: string): string => iso.replace('T', ' ').replace(/(\.\d+)?Z$/, '');

const STATEMENT_COLUMNS = [
  { label: 'Date (UTC)', width: 80 },
  { label: 'Transfer', width: 142 },
  { label: 'For', width: 170 },
  { label: 'Description', width: 150 },
  { label: 'Money in', width: 70, numeric: true },
  { label: 'Money out', width: 70, numeric: true },
  { label: 'Balance', width: 80, numeric: true },
] as const;

function movementRow(line: Extract<StatementLine, { kind: 'movement' }>): string[] {
  return [
    utcTime(line.at),
    line.id,
    line.objectType ? `${line.objectType} ${line.objectId ?? ''}`.trim() : '',
    line.description ?? '',
    line.direction === 'credit' ? line.amount : '',
    line.direction === 'debit' ? line.amount : '',
    line.balance,
  ];
}

async function writeStatement(pdf: PdfWriter, lines: AsyncIterable<StatementLine>, parties: StatementParties, period: StatementPeriod): Promise<void> {
  const { currency } = period;
  pdf.title(`Statement of account: ${currency}`, `${period.from} to ${period.to} (UTC, both days included) · issued ${utc(new Date().toISOString())}`);
  pdf.facts([
    ['Account holder', parties.workspaceName],
    ['Account', `${parties.accountName} (${parties.accountId})`],
    ['Issued by', parties.operatorName],
    ['Currency', currency],
  ]);
  pdf.heading('Movements');
  pdf.startTable(STATEMENT_COLUMNS);
  let movements = 0;
  const totals = { in: 0, out: 0 };
  for await (const line of lines) {
    if (line.kind !== 'movement') pdf.row([utcTime(line.at), '', '', line.kind === 'opening' ? 'Opening balance' : 'Closing balance', '', '', line.balance], { bold: true });
    else {
      movements += 1;
      totals[line.direction === 'credit' ? 'in' : 'out'] += 1;
      pdf.row(movementRow(line));
    }
  }
  pdf.endTable();
  pdf.paragraph(
    `${movements} posted movement${movements === 1 ? '' : 's'} (${totals.in} in, ${totals.out} out), amounts in ${currency}, each with the balance after it. ` +
      'Holds not yet posted (pending payouts) are not movements until they post. The closing balance is at the start of the day after the last day.',
  );
}

/**
 * The statement as a PDF, written while the ledger is read: the account holder, the account, the
 * operator, then the opening balance, every posted movement with the running balance and the
 * closing balance (the lines of statementCsv). A failed read ends the stream with the error.
 */
export function statementPdf(sql: Sql, accountId: string, period: StatementPeriod, parties: StatementParties): Readable {
  const pdf = new PdfWriter({ title: `Statement ${period.currency} ${period.from} to ${period.to}`, author: parties.operatorName, subject: `Statement of ${parties.workspaceName}`, landscape: true });
  writeStatement(pdf, statementLines(sql, accountId, period.currency, period), parties, period).then(
    () => pdf.end(),
    (err: unknown) => pdf.fail(err instanceof Error ? err : new Error(String(err))),
  );
  return pdf.stream;
}
