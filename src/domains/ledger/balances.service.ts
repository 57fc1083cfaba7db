import type { Sql } from '../../platform/db/db.js';
import type { PageRequest } from '../../platform/db/pagination.js';
import { convert, formatAmount } from '../../platform/lib/money.js';
import type { RateSource } from '../fx/rates.js';
import { balancesOf, type Balance } from './ledger.service.js';
import * as repo from './ledger.repository.js';

export function balanceEntry(b: Balance, enabledCurrencies: readonly string[]) {
  return {
    currency: b.currency,
    balance: formatAmount(b.availableMinor, b.currency),
    pendingIn: formatAmount(b.pendingInMinor, b.currency),
    pendingOut: formatAmount(b.pendingOutMinor, b.currency),
    totalBalance: formatAmount(b.totalMinor, b.currency),
    isActive: enabledCurrencies.includes(b.currency),
    lastTransactionAt: (b.lastTransactionAt ?? new Date(0)).toISOString(),
  };
}

/** The balances of one account as the spec's table, with totalValueEur at the current mid rates. */
export async function balancesView(
  sql: Sql,
  input: { accountId: string; clientId: string; enabledCurrencies: readonly string[]; primaryCurrency: string; rates: RateSource },
) {
  const balances = await balancesOf(sql, input.accountId);
  let totalEurMinor = 0n;
  for (const b of balances) {
    const rate = input.rates.eurPer(b.currency);
    if (rate && b.totalMinor > 0n) totalEurMinor += convert(b.totalMinor, b.currency, 'EUR', rate);
  }
  return {
    userId: input.accountId,
    clientId: input.clientId,
    balances: balances.map((b) => balanceEntry(b, input.enabledCurrencies)),
    totalValueEur: formatAmount(totalEurMinor, 'EUR'),
    primaryCurrency: input.primaryCurrency,
    calculatedAt: new Date().toISOString(),
  };
}

/** The movement feed behind the balances: every transfer touching the account, newest first. */
export function listTransactions(sql: Sql, accountId: string, page: PageRequest & { currency?: string | undefined }) {
  return repo.listTransfersOf(sql, accountId, page, (r) => ({
    id: r.id,
    currency: r.currency,
    amount: formatAmount(BigInt(r.amount_minor), r.currency),
    direction: r.direction,
    status: r.status,
    objectType: r.reference_type,
    objectId: r.reference_id,
    description: r.description,
    createdAt: r.created_at.toISOString(),
  }));
}

export type StatementLine =
  | { kind: 'opening' | 'closing'; at: string; balance: string }
  | { kind: 'movement'; at: string; id: string; direction: 'debit' | 'credit'; amount: string; balance: string; objectType: string | null; objectId: string | null; description: string | null };

/** Rows read per query while a statement streams. */
const STATEMENT_CHUNK_ROWS = 500;

/**
 * An account's statement in one currency for [fromIso, toIso): the opening balance, each posted
 * movement (dated when it was made) with the running balance, the closing balance. Read in chunks,
 * so a long period streams.
 */
export async function* statementLines(sql: Sql, accountId: string, currency: string, range: { fromIso: string; toIso: string }): AsyncGenerator<StatementLine> {
  let balance = await repo.postedBalanceBefore(sql, accountId, currency, range.fromIso);
  yield { kind: 'opening', at: range.fromIso, balance: formatAmount(balance, currency) };
  let after: { at: string; id: string } | undefined;
  for (;;) {
    const rows = await repo.statementRows(sql, accountId, currency, range, after, STATEMENT_CHUNK_ROWS);
    for (const r of rows) {
      balance += r.direction === 'credit' ? BigInt(r.amount_minor) : -BigInt(r.amount_minor);
      yield { kind: 'movement', at: r.created_at.toISOString(), id: r.id, direction: r.direction, amount: formatAmount(BigInt(r.amount_minor), currency), balance: formatAmount(balance, currency), objectType: r.reference_type, objectId: r.reference_id, description: r.description };
    }
    const last = rows[rows.length - 1];
    if (!last || rows.length < STATEMENT_CHUNK_ROWS) break;
    after = { at: last.created_text, id: last.id };
  }
  yield { kind: 'closing', at: range.toIso, balance: formatAmount(balance, currency) };
}

/**
 * The account's balance at the end of each UTC day of the last `days` days, per currency (the
 * Overview's chart): the posted balance, as a statement of that day closes. Computed back from the
 * posted balance now, less each later day's posted movements.
 */
export async function balanceDays(sql: Sql, accountId: string, days: number, now = new Date()): Promise<{ currency: string; days: { day: string; balance: string }[] }[]> {
  const first = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() - (days - 1)));
  const dayList = Array.from({ length: days }, (_, i) => new Date(first.getTime() + i * 86_400_000).toISOString().slice(0, 10));
  const rows = await repo.postedNetPerDay(sql, accountId, first.toISOString());
  const byCurrency = new Map<string, { now: bigint; net: Map<string, bigint> }>();
  for (const r of rows) {
    const entry = byCurrency.get(r.currency) ?? { now: BigInt(r.posted_now), net: new Map<string, bigint>() };
    if (r.day !== null && r.net !== null) entry.net.set(r.day, BigInt(r.net));
    byCurrency.set(r.currency, entry);
  }
  return [...byCurrency].map(([currency, { now: postedNow, net }]) => {
    // The end of the last day: now, less anything dated after it.
    let balance = postedNow - [...net].filter(([day]) => day > dayList[dayList.length - 1]!).reduce((sum, [, n]) => sum + n, 0n);
    const closing: { day: string; balance: string }[] = [];
    for (let i = dayList.length - 1; i >= 0; i--) {
      const day = dayList[i]!;
      closing.unshift({ day, balance: formatAmount(balance, currency) });
      balance -= net.get(day) ?? 0n;
    }
    return { currency, days: closing };
  });
}
