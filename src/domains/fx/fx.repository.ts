import type { Sql } from '../../platform/db/db.js';
import { maybeOne, one } from '../../platform/db/db.js';

/** All SQL of the FX module. Amounts cross this boundary as decimal strings of minor units. */

export type QuoteIntent = 'payout' | 'conversion';

export interface QuoteRow {
  id: string;
  workspace_id: string;
  account_id: string;
  intent: QuoteIntent;
  from_currency: string;
  to_currency: string;
  from_amount_minor: string;
  to_amount_minor: string;
  fee_minor: string;
  fixed_side: 'from' | 'to';
  rate: string;
  mid_rate: string;
  spread_bps: number;
  /** As stored: an open quote past its expiry is still `open` here (see `expired`). */
  status: 'open' | 'used';
  /** Computed against the database clock when read. */
  expired: boolean;
  expires_at: Date;
  created_at: Date;
}

export interface ConversionRow {
  id: string;
  workspace_id: string;
  account_id: string;
  quote_id: string;
  client_ref: string | null;
  from_currency: string;
  to_currency: string;
  from_amount_minor: string;
  to_amount_minor: string;
  rate: string;
  status: 'completed';
  created_at: Date;
}

const QUOTE_COLUMNS = `id, workspace_id, account_id, intent, from_currency, to_currency,
  from_amount_minor::text AS from_amount_minor, to_amount_minor::text AS to_amount_minor, fee_minor::text AS fee_minor,
  fixed_side, rate, mid_rate, spread_bps, status, (status = 'open' AND expires_at <= now()) AS expired, expires_at, created_at`;

const CONVERSION_COLUMNS = `id, workspace_id, account_id, quote_id, client_ref, from_currency, to_currency,
  from_amount_minor::text AS from_amount_minor, to_amount_minor::text AS to_amount_minor, rate, status, created_at`;

export async function insertQuote(
  sql: Sql,
  q: {
    id: string;
    workspaceId: string;
    accountId: string;
    intent: QuoteIntent;
    fromCurrency: string;
    toCurrency: string;
    fromAmountMinor: string;
    toAmountMinor: string;
    feeMinor: string;
    fixedSide: 'from' | 'to';
    rate: string;
    midRate: string;
    spreadBps: number;
    lifetimeMs: number;
  },
): Promise<QuoteRow> {
  return one<QuoteRow>(
    sql,
    `INSERT INTO fx_quotes (id, workspace_id, account_id, intent, from_currency, to_currency, from_amount_minor,
                            to_amount_minor, fee_minor, fixed_side, rate, mid_rate, spread_bps, expires_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7::numeric, $8::numeric, $9::numeric, $10, $11, $12, $13,
             now() + $14::bigint * interval '1 millisecond')
     RETURNING ${QUOTE_COLUMNS}`,
    [
      q.id,
      q.workspaceId,
      q.accountId,
      q.intent,
      q.fromCurrency,
      q.toCurrency,
      q.fromAmountMinor,
      q.toAmountMinor,
      q.feeMinor,
      q.fixedSide,
      q.rate,
      q.midRate,
      q.spreadBps,
      q.lifetimeMs,
    ],
  );
}

/** A quote of the account acted on, within its workspace. */
export async function findQuote(sql: Sql, workspaceId: string, accountId: string, id: string): Promise<QuoteRow | undefined> {
  return maybeOne<QuoteRow>(sql, `SELECT ${QUOTE_COLUMNS} FROM fx_quotes WHERE workspace_id = $1 AND account_id = $2 AND id = $3`, [
    workspaceId,
    accountId,
    id,
  ]);
}

/**
 * The quotes these accounts name, each within its account and workspace, locked for update in id
 * order (concurrent writers never deadlock): what a payout plan decides on, until its transaction ends.
 */
export async function lockQuotes(sql: Sql, refs: readonly { workspaceId: string; accountId: string; id: string }[]): Promise<QuoteRow[]> {
  if (refs.length === 0) return [];
  return sql.query<QuoteRow>(
    `SELECT ${QUOTE_COLUMNS} FROM fx_quotes
      WHERE (workspace_id, account_id, id) IN (SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::uuid[]))
      ORDER BY id FOR UPDATE`,
    [refs.map((r) => r.workspaceId), refs.map((r) => r.accountId), refs.map((r) => r.id)],
  );
}

/**
 * Many consumptions at once, each a compare-and-set as markQuoteUsed's (open, of its intent, not
 * expired): the quotes used by the rows of one plan. Returns the ids marked.
 */
export async function markQuotesUsed(
  sql: Sql,
  uses: readonly { workspaceId: string; accountId: string; id: string; intent: QuoteIntent; usedByType: string; usedById: string }[],
): Promise<string[]> {
  if (uses.length === 0) return [];
  const rows = await sql.query<{ id: string }>(
    `UPDATE fx_quotes q SET status = 'used', used_at = now(), used_by_type = u.used_by_type, used_by_id = u.used_by_id
       FROM unnest($1::uuid[], $2::uuid[], $3::uuid[], $4::text[], $5::text[], $6::text[]) AS u(workspace_id, account_id, id, intent, used_by_type, used_by_id)
      WHERE q.workspace_id = u.workspace_id AND q.account_id = u.account_id AND q.id = u.id AND q.intent = u.intent
        AND q.status = 'open' AND q.expires_at > now()
      RETURNING q.id`,
    [
      uses.map((u) => u.workspaceId),
      uses.map((u) => u.accountId),
      uses.map((u) => u.id),
      uses.map((u) => u.intent),
      uses.map((u) => u.usedByType),
      uses.map((u) => u.usedById),
    ],
  );
  return rows.map((r) => r.id);
}

/**
 * The one consumption of a quote, as a compare-and-set: open, of this intent, not yet expired, to used.
 * No row when any of these does not hold (the caller reads the quote to say which).
 */
export async function markQuoteUsed(
  sql: Sql,
  q: { workspaceId: string; accountId: string; id: string; intent: QuoteIntent; usedByType: string; usedById: string | null },
): Promise<QuoteRow | undefined> {
  return maybeOne<QuoteRow>(
    sql,
    `UPDATE fx_quotes SET status = 'used', used_at = now(), used_by_type = $5, used_by_id = $6
      WHERE workspace_id = $1 AND account_id = $2 AND id = $3 AND intent = $4
        AND status = 'open' AND expires_at > now()
      RETURNING ${QUOTE_COLUMNS}`,
    [q.workspaceId, q.accountId, q.id, q.intent, q.usedByType, q.usedById],
  );
}

export async function insertConversion(
  sql: Sql,
  c: {
    id: string;
    workspaceId: string;
    accountId: string;
    quoteId: string;
    clientRef: string | null;
    fromCurrency: string;
    toCurrency: string;
    fromAmountMinor: string;
    toAmountMinor: string;
    rate: string;
  },
): Promise<ConversionRow> {
  return one<ConversionRow>(
    sql,
    `INSERT INTO fx_conversions (id, workspace_id, account_id, quote_id, client_ref, from_currency, to_currency,
                                 from_amount_minor, to_amount_minor, rate, status)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8::numeric, $9::numeric, $10, 'completed')
     RETURNING ${CONVERSION_COLUMNS}`,
    [c.id, c.workspaceId, c.accountId, c.quoteId, c.clientRef, c.fromCurrency, c.toCurrency, c.fromAmountMinor, c.toAmountMinor, c.rate],
  );
}

export async function findConversion(sql: Sql, workspaceId: string, accountId: string, id: string): Promise<ConversionRow | undefined> {
  return maybeOne<ConversionRow>(
    sql,
    `SELECT ${CONVERSION_COLUMNS} FROM fx_conversions WHERE workspace_id = $1 AND account_id = $2 AND id = $3`,
    [workspaceId, accountId, id],
  );
}

export async function findConversionByClientRef(sql: Sql, workspaceId: string, clientRef: string): Promise<{ id: string } | undefined> {
  return maybeOne<{ id: string }>(sql, 'SELECT id FROM fx_conversions WHERE workspace_id = $1 AND client_ref = $2', [workspaceId, clientRef]);
}

/**
 * Retention: deletes at most `limit` quotes created before `before` that are used or expired and that
 * no conversion references (a conversion keeps its quote; a payout keeps its own figures).
 */
export async function deleteSpentQuotesBefore(sql: Sql, before: Date, limit: number): Promise<number> {
  const rows = await sql.query(
    `DELETE FROM fx_quotes WHERE id = ANY(ARRAY(
       SELECT q.id FROM fx_quotes q
        WHERE q.created_at < $1 AND (q.status = 'used' OR q.expires_at < now())
          AND NOT EXISTS (SELECT 1 FROM fx_conversions c WHERE c.quote_id = q.id OFFSET 0)
        LIMIT $2 FOR UPDATE SKIP LOCKED))
     RETURNING 1`,
    [before, limit],
  );
  return rows.length;
}
