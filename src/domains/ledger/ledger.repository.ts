import type { Sql } from '../../platform/db/db.js';
import { listFilters, paginate, type PageRequest } from '../../platform/db/pagination.js';

/** All SQL of the ledger. Amounts cross this boundary as decimal strings of minor units. */

export async function ensureSystemAccounts(sql: Sql, rows: readonly { id: string; kind: string; code: string; currency: string }[]): Promise<void> {
  await sql.query(
    `INSERT INTO ledger_accounts (id, kind, code, currency)
     SELECT * FROM unnest($1::uuid[], $2::text[], $3::text[], $4::text[])
     ON CONFLICT DO NOTHING`,
    [rows.map((r) => r.id), rows.map((r) => r.kind), rows.map((r) => r.code), rows.map((r) => r.currency)],
  );
}

export async function ensureCustomerAccount(sql: Sql, id: string, workspaceId: string, accountId: string, currency: string): Promise<void> {
  await sql.query(
    `INSERT INTO ledger_accounts (id, kind, workspace_id, account_id, currency) VALUES ($1, 'customer', $2, $3, $4)
     ON CONFLICT DO NOTHING`,
    [id, workspaceId, accountId, currency],
  );
}

/**
 * Adds an amount to one side of a customer account's running totals. A debit only happens if the
 * available balance covers it: no row when it does not (or when there is no such account).
 */
export async function moveCustomer(
  sql: Sql,
  side: 'debit' | 'credit',
  accountId: string,
  currency: string,
  amountMinor: string,
  phase: 'posted' | 'pending',
): Promise<{ id: string } | undefined> {
  const column = `${side}s_${phase}`;
  const covered = side === 'debit' ? 'AND debits_posted + debits_pending + $3::numeric <= credits_posted' : '';
  const rows = await sql.query<{ id: string }>(
    `UPDATE ledger_accounts SET ${column} = ${column} + $3::numeric, last_transfer_at = now()
      WHERE kind = 'customer' AND account_id = $1 AND currency = $2 ${covered}
      RETURNING id`,
    [accountId, currency, amountMinor],
  );
  return rows[0];
}

export interface TransferRow {
  id: string;
  currency: string;
  debit_account_id: string;
  credit_account_id: string;
  amount_minor: string;
  status: 'posted' | 'pending' | 'voided';
  reference_type: string;
  reference_id: string | null;
}

export interface NewTransfer {
  id: string;
  currency: string;
  debitId: string;
  creditId: string;
  amountMinor: string;
  status: 'posted' | 'pending';
  referenceType: string;
  referenceId: string | null;
  description: string | null;
}

const INSERT_TRANSFERS = `INSERT INTO ledger_transfers (id, currency, debit_account_id, credit_account_id, amount_minor, status, two_phase,
                                   reference_type, reference_id, description)
     SELECT id, currency, debit, credit, amount, status, status = 'pending', rtype, rid, descr
       FROM unnest($1::uuid[], $2::text[], $3::uuid[], $4::uuid[], $5::numeric[], $6::text[], $7::text[], $8::text[], $9::text[])
            AS t(id, currency, debit, credit, amount, status, rtype, rid, descr)`;

const transferParams = (rows: readonly NewTransfer[]): unknown[] => [
  rows.map((r) => r.id),
  rows.map((r) => r.currency),
  rows.map((r) => r.debitId),
  rows.map((r) => r.creditId),
  rows.map((r) => r.amountMinor),
  rows.map((r) => r.status),
  rows.map((r) => r.referenceType),
  rows.map((r) => r.referenceId),
  rows.map((r) => r.description),
];

export async function insertTransfers(sql: Sql, rows: readonly NewTransfer[]): Promise<void> {
  await sql.query(INSERT_TRANSFERS, transferParams(rows));
}

/**
 * A batch of holds in one statement: each customer account's batch total added to its pending
 * debits (rows locked by the caller) and every pending transfer inserted.
 */
export async function insertHolds(sql: Sql, totals: readonly { id: string; amountMinor: string }[], rows: readonly NewTransfer[]): Promise<void> {
  await sql.query(
    `WITH debited AS (
       UPDATE ledger_accounts a SET debits_pending = a.debits_pending + d.amount, last_transfer_at = now()
         FROM unnest($10::uuid[], $11::numeric[]) AS d(id, amount)
        WHERE a.id = d.id
       RETURNING a.id)
     ${INSERT_TRANSFERS}`,
    [...transferParams(rows), totals.map((t) => t.id), totals.map((t) => t.amountMinor)],
  );
}

/**
 * Resolves pending transfers exactly once and moves their amounts out of the pending columns of the
 * customer accounts they touch (system accounts keep no running totals), in one statement: the
 * transfers' compare-and-set from pending, then those balance rows locked in id order (the order
 * holds lock them in, so this never deadlocks with a batch of holds) and updated. Rows only for the
 * transfers that were pending (already resolved or unknown ones are missing). Kept for the end of a
 * transaction, it holds the balance rows only from here to the commit.
 */
export async function resolvePendingMany(sql: Sql, resolutions: readonly { transferId: string; to: 'posted' | 'voided' }[]): Promise<TransferRow[]> {
  return sql.query<TransferRow>(
    `WITH resolved AS (
       UPDATE ledger_transfers t SET status = r.to_status, resolved_at = now()
         FROM unnest($1::uuid[], $2::text[]) AS r(id, to_status)
        WHERE t.id = r.id AND t.status = 'pending'
       RETURNING t.id, t.currency, t.debit_account_id, t.credit_account_id, t.amount_minor, t.status, t.reference_type, t.reference_id
     ), sides AS (
       SELECT debit_account_id AS id, -amount_minor AS dpe, CASE WHEN status = 'posted' THEN amount_minor ELSE 0 END AS dp, 0::numeric AS cpe, 0::numeric AS cp FROM resolved
       UNION ALL
       SELECT credit_account_id, 0, 0, -amount_minor, CASE WHEN status = 'posted' THEN amount_minor ELSE 0 END FROM resolved
     ), deltas AS (
       SELECT id, sum(dpe) AS dpe, sum(dp) AS dp, sum(cpe) AS cpe, sum(cp) AS cp FROM sides GROUP BY id
     ), locked AS MATERIALIZED (
       SELECT a.id FROM ledger_accounts a WHERE a.id IN (SELECT id FROM deltas) AND a.kind = 'customer' ORDER BY a.id FOR UPDATE
     ), settled AS (
       UPDATE ledger_accounts a SET
          debits_pending  = a.debits_pending  + d.dpe,
          debits_posted   = a.debits_posted   + d.dp,
          credits_pending = a.credits_pending + d.cpe,
          credits_posted  = a.credits_posted  + d.cp,
          last_transfer_at = now()
         FROM deltas d
        WHERE a.id = d.id AND a.id IN (SELECT id FROM locked)
       RETURNING a.id
     )
     SELECT id, currency, debit_account_id, credit_account_id, amount_minor::text AS amount_minor, status, reference_type, reference_id
       FROM resolved`, // settled runs all the same: a data-modifying WITH always runs to completion
    [resolutions.map((r) => r.transferId), resolutions.map((r) => r.to)],
  );
}

export async function findTransfersByReference(sql: Sql, referenceType: string, referenceId: string): Promise<TransferRow[]> {
  return sql.query<TransferRow>(
    `SELECT id, currency, debit_account_id, credit_account_id, amount_minor::text AS amount_minor, status, reference_type, reference_id
       FROM ledger_transfers WHERE reference_type = $1 AND reference_id = $2 ORDER BY created_at, id`,
    [referenceType, referenceId],
  );
}

export interface BalanceRow {
  id: string;
  currency: string;
  debits_posted: string;
  credits_posted: string;
  debits_pending: string;
  credits_pending: string;
  last_transfer_at: Date | null;
}

export async function customerBalances(sql: Sql, accountId: string): Promise<BalanceRow[]> {
  return sql.query<BalanceRow>(
    `SELECT id, currency, debits_posted::text AS debits_posted, credits_posted::text AS credits_posted,
            debits_pending::text AS debits_pending, credits_pending::text AS credits_pending, last_transfer_at
       FROM ledger_accounts WHERE kind = 'customer' AND account_id = $1 ORDER BY currency`,
    [accountId],
  );
}

/**
 * Every way the ledger could be wrong, as rows: a customer account whose running balances differ from
 * its transfers, a transfer whose accounts are of another currency, or a currency whose accounts do
 * not sum to zero. Empty when the ledger is sound.
 */
export async function invariantViolations(sql: Sql): Promise<{ problem: string; subject: string }[]> {
  return sql.query(
    `WITH sums AS (
       SELECT a.id, a.kind, a.currency, a.debits_posted, a.credits_posted, a.debits_pending, a.credits_pending,
              COALESCE(SUM(t.amount_minor) FILTER (WHERE t.debit_account_id = a.id AND t.status = 'posted'), 0) AS dp,
              COALESCE(SUM(t.amount_minor) FILTER (WHERE t.credit_account_id = a.id AND t.status = 'posted'), 0) AS cp,
              COALESCE(SUM(t.amount_minor) FILTER (WHERE t.debit_account_id = a.id AND t.status = 'pending'), 0) AS dpe,
              COALESCE(SUM(t.amount_minor) FILTER (WHERE t.credit_account_id = a.id AND t.status = 'pending'), 0) AS cpe
         FROM ledger_accounts a
         LEFT JOIN ledger_transfers t ON t.debit_account_id = a.id OR t.credit_account_id = a.id
        GROUP BY a.id)
     SELECT 'running balance differs from transfers' AS problem, id::text AS subject FROM sums
      WHERE kind = 'customer' AND (debits_posted <> dp OR credits_posted <> cp OR debits_pending <> dpe OR credits_pending <> cpe)
     UNION ALL
     SELECT 'customer available balance below zero', id::text FROM sums
      WHERE kind = 'customer' AND dp + dpe > cp
     UNION ALL
     SELECT 'currency does not sum to zero', currency FROM sums GROUP BY currency
     HAVING SUM(cp - dp) <> 0 OR SUM(cpe - dpe) <> 0
     UNION ALL
     SELECT 'transfer between accounts of another currency', t.id::text FROM ledger_transfers t
       JOIN ledger_accounts d ON d.id = t.debit_account_id JOIN ledger_accounts c ON c.id = t.credit_account_id
      WHERE d.currency <> t.currency OR c.currency <> t.currency`,
  );
}

/** Locks customer accounts for a batch of holds (in id order, so batches never deadlock) and reads their available balances. */
export async function lockCustomersAvailable(
  sql: Sql,
  keys: { accountId: string; currency: string }[],
): Promise<{ id: string; account_id: string; currency: string; available: string }[]> {
  return sql.query(
    `SELECT a.id, a.account_id, a.currency, (a.credits_posted - a.debits_posted - a.debits_pending)::text AS available
       FROM ledger_accounts a
       JOIN unnest($1::uuid[], $2::text[]) AS k(account_id, currency) ON a.account_id = k.account_id AND a.currency = k.currency
      WHERE a.kind = 'customer'
      ORDER BY a.id
        FOR UPDATE OF a`,
    [keys.map((k) => k.accountId), keys.map((k) => k.currency)],
  );
}

export interface TransactionRow {
  id: string;
  currency: string;
  amount_minor: string;
  direction: 'debit' | 'credit';
  status: 'posted' | 'pending' | 'voided';
  reference_type: string;
  reference_id: string | null;
  description: string | null;
  created_at: Date;
}

/** Every transfer touching a customer account, newest first (the movement feed), optionally in one currency. */
export function listTransfersOf<Item>(sql: Sql, accountId: string, page: PageRequest & { currency?: string | undefined }, map: (row: TransactionRow) => Item) {
  const { where, params, add } = listFilters();
  add("a.kind = 'customer'");
  add('a.account_id = ?', accountId);
  if (page.currency) add('t.currency = ?', page.currency);
  return paginate(sql, page, {
    object: 'ledger_transaction.list',
    from: `SELECT t.id, t.currency, t.amount_minor::text AS amount_minor, t.status, t.reference_type, t.reference_id,
                  t.description, t.created_at,
                  CASE WHEN a.id = t.debit_account_id THEN 'debit' ELSE 'credit' END AS direction
             FROM ledger_transfers t JOIN ledger_accounts a ON a.id = t.debit_account_id OR a.id = t.credit_account_id`,
    where,
    params,
    createdColumn: 't.created_at',
    idColumn: 't.id',
    map,
  });
}

/**
 * A customer account's posted balance now in each currency, with the net of its posted transfers
 * per UTC day made since `sinceIso` (a day with none has no row): read in one statement, so the
 * balances at the end of each day are computed back from the same snapshot.
 */
export async function postedNetPerDay(sql: Sql, accountId: string, sinceIso: string): Promise<{ currency: string; posted_now: string; day: string | null; net: string | null }[]> {
  return sql.query(
    `SELECT a.currency, (a.credits_posted - a.debits_posted)::text AS posted_now, d.day, d.net
       FROM ledger_accounts a
       LEFT JOIN LATERAL (
         SELECT to_char(t.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day,
                SUM(CASE WHEN t.credit_account_id = a.id THEN t.amount_minor ELSE -t.amount_minor END)::text AS net
           FROM ledger_transfers t
          WHERE (t.debit_account_id = a.id OR t.credit_account_id = a.id) AND t.status = 'posted' AND t.created_at >= $2::timestamptz
          GROUP BY 1
       ) d ON true
      WHERE a.kind = 'customer' AND a.account_id = $1
      ORDER BY a.currency, d.day`,
    [accountId, sinceIso],
  );
}

/** A customer account's posted balance in `currency` from its transfers made before `beforeIso` (a statement's opening balance), in minor units. */
export async function postedBalanceBefore(sql: Sql, accountId: string, currency: string, beforeIso: string): Promise<bigint> {
  const rows = await sql.query<{ balance: string }>(
    `SELECT COALESCE(SUM(CASE WHEN t.credit_account_id = a.id THEN t.amount_minor ELSE -t.amount_minor END), 0)::text AS balance
       FROM ledger_accounts a JOIN ledger_transfers t ON a.id = t.debit_account_id OR a.id = t.credit_account_id
      WHERE a.kind = 'customer' AND a.account_id = $1 AND a.currency = $2 AND t.status = 'posted' AND t.created_at < $3::timestamptz`,
    [accountId, currency, beforeIso],
  );
  return BigInt(rows[0]?.balance ?? '0');
}

export interface StatementRow {
  id: string;
  created_at: Date;
  /** created_at to the microsecond, for the next chunk's keyset. */
  created_text: string;
  amount_minor: string;
  direction: 'debit' | 'credit';
  reference_type: string | null;
  reference_id: string | null;
  description: string | null;
}

/** The posted transfers of a customer account in `currency` made in [fromIso, toIso), oldest first, `limit` after the (created_at, id) given. */
export async function statementRows(
  sql: Sql,
  accountId: string,
  currency: string,
  range: { fromIso: string; toIso: string },
  after: { at: string; id: string } | undefined,
  limit: number,
): Promise<StatementRow[]> {
  return sql.query<StatementRow>(
    `SELECT t.id, t.created_at, t.created_at::text AS created_text, t.amount_minor::text AS amount_minor, t.reference_type, t.reference_id, t.description,
            CASE WHEN a.id = t.debit_account_id THEN 'debit' ELSE 'credit' END AS direction
       FROM ledger_accounts a JOIN ledger_transfers t ON a.id = t.debit_account_id OR a.id = t.credit_account_id
      WHERE a.kind = 'customer' AND a.account_id = $1 AND a.currency = $2 AND t.status = 'posted'
        AND t.created_at >= $3::timestamptz AND t.created_at < $4::timestamptz
        AND ($5::timestamptz IS NULL OR (t.created_at, t.id) > ($5::timestamptz, $6::uuid))
      ORDER BY t.created_at, t.id LIMIT $7`,
    [accountId, currency, range.fromIso, range.toIso, after?.at ?? null, after?.id ?? null, limit],
  );
}

/**
 * A system account's posted balance seen from its debit side (posted debits less posted credits: what
 * an asset account such as a rail float holds), 0 when it has no transfer or does not exist yet.
 */
export async function systemDebitBalance(sql: Sql, id: string): Promise<bigint> {
  const [row] = await sql.query<{ balance: string }>(
    `SELECT ((SELECT COALESCE(sum(amount_minor), 0) FROM ledger_transfers WHERE debit_account_id = $1 AND status = 'posted')
           - (SELECT COALESCE(sum(amount_minor), 0) FROM ledger_transfers WHERE credit_account_id = $1 AND status = 'posted'))::text AS balance`,
    [id],
  );
  return BigInt(row?.balance ?? '0');
}
