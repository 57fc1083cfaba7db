import type { Sql } from '../../platform/db/db.js';
import { advisoryKey, maybeOne } from '../../platform/db/db.js';
import { listFilters, paginate, type PageRequest } from '../../platform/db/pagination.js';
import type { PayoutStatus } from './payouts.transitions.js';
import type { Hit } from '../../controls/screening/screening.service.js';
import type { RecipientCheckRow } from '../../controls/recipient-checks/recipient-checks.view.js';

export interface RailReferences {
  uetr?: string;
  txHash?: string;
  chain?: string;
  /** On chain: what the recipient's Transfer log says arrived, when less than the amount (a token that took a fee). */
  deliveredAmount?: string;
}

/** A payout as the step path reads and moves it: its own columns, without its screening. */
export interface PayoutCoreRow {
  id: string;
  workspace_id: string;
  account_id: string;
  client_ref: string;
  status: PayoutStatus;
  currency: string;
  amount_minor: string;
  fee_minor: string;
  route: string;
  /** The catalog rail chosen at creation (`sepa_credit`, `swift`, `crypto`…): the payout's one record of it. */
  catalog_rail: string;
  provider: string;
  beneficiary_id: string | null;
  quote_id: string | null;
  funding_currency: string;
  funding_minor: string;
  purpose: string | null;
  reference: string | null;
  metadata: Record<string, string> | null;
  hold_transfer_id: string | null;
  fee_transfer_id: string | null;
  failure_reason: string | null;
  /** The rail's reject or return reason (an ISO 20022 code and its text), from the connector. */
  return_reason: { code: string; description: string } | null;
  /** The rail's references of the payout: `uetr` (SWIFT), `txHash` and `chain` (on chain). */
  rail: RailReferences | null;
  reverted_at: Date | null;
  created_at: Date;
  updated_at: Date;
  completed_at: Date | null;
}

/** A payout as read back (the API's answers): with its sanctions screening. */
export interface PayoutRow extends PayoutCoreRow {
  /** The sanctions screening hold of the payout (screening module), null when it was never held. */
  screening: { status: 'held' | 'released' | 'rejected' | 'withdrawn'; hits: Hit[] } | null;
  /** The recipient (name) check of the payout (recipient-checks module), null when its connector offers none; absent where not read. */
  recipient_check?: RecipientCheckRow | null;
}

/**
 * The payout's own columns, what the step path reads and moves (PayoutCoreRow): not its sealed copy
 * of the recipient and sender, which no read opens, nor its screening, which no step needs.
 */
export const PAYOUT_CORE_COLUMNS = `id, workspace_id, account_id, client_ref, status, currency, amount_minor::text AS amount_minor,
  fee_minor::text AS fee_minor, route, catalog_rail, provider, beneficiary_id, quote_id, funding_currency,
  funding_minor::text AS funding_minor, purpose, reference, metadata, hold_transfer_id, fee_transfer_id, failure_reason,
  return_reason, rail, reverted_at, created_at, updated_at, completed_at`;

/**
 * What reads of a payout answer (PayoutRow): its own columns and its screening hold, looked up by
 * the screening's primary key only for the payouts read back (one, or a page), never in the step path.
 */
export const PAYOUT_COLUMNS = `${PAYOUT_CORE_COLUMNS},
  (SELECT jsonb_build_object('status', s.status, 'hits', s.hits) FROM payout_screenings s WHERE s.payout_id = payouts.id) AS screening,
  (SELECT to_jsonb(r) FROM payout_recipient_checks r WHERE r.payout_id = payouts.id) AS recipient_check`;

export interface NewPayout {
  id: string;
  workspaceId: string;
  accountId: string;
  clientRef: string;
  status: PayoutStatus;
  currency: string;
  amountMinor: bigint;
  feeMinor: bigint;
  route: string;
  /** The catalog rail that pays it, chosen at creation. */
  catalogRail: string;
  provider: string;
  beneficiaryId: string | null;
  /** The recipient as validated and the sender, each sealed JSON (lib/crypto-box): personal data. */
  beneficiary: string;
  sender: string | null;
  quoteId: string | null;
  fundingCurrency: string;
  fundingMinor: bigint;
  purpose: string | null;
  reference: string | null;
  metadata: Record<string, string> | null;
  holdTransferId: string | null;
  feeTransferId: string | null;
  failureReason: string | null;
}

export async function findPayout(sql: Sql, workspaceId: string, id: string): Promise<PayoutRow | undefined> {
  return maybeOne<PayoutRow>(sql, `SELECT ${PAYOUT_COLUMNS} FROM payouts WHERE workspace_id = $1 AND id = $2`, [workspaceId, id]);
}

export async function findPayoutById(sql: Sql, id: string): Promise<PayoutRow | undefined> {
  return maybeOne<PayoutRow>(sql, `SELECT ${PAYOUT_COLUMNS} FROM payouts WHERE id = $1`, [id]);
}

/** Payouts as read back, by id, in one statement (the step path reads its batches without their screening: payouts.steps.repository.ts). */
export async function findPayoutsByIds(sql: Sql, ids: readonly string[]): Promise<PayoutRow[]> {
  return sql.query<PayoutRow>(`SELECT ${PAYOUT_COLUMNS} FROM payouts WHERE id = ANY($1::uuid[]) ORDER BY id`, [ids]);
}

/**
 * What each (workspace, currency) has paid out (or holds for payouts) today, for its daily limit,
 * after taking a transaction-scoped lock per pair (sorted, so batches never deadlock): two
 * transactions cannot pass one limit together. Keyed `workspaceId:currency`.
 */
export async function lockPaidToday(sql: Sql, pairs: readonly { workspaceId: string; currency: string }[]): Promise<Map<string, bigint>> {
  if (pairs.length === 0) return new Map();
  const unique = [...new Map(pairs.map((p) => [`${p.workspaceId}:${p.currency}`, p])).values()];
  const keys = [...new Set(unique.map((p) => advisoryKey(`payout-daily:${p.workspaceId}:${p.currency}`)))].sort();
  await sql.query('SELECT count(pg_advisory_xact_lock(k)) FROM (SELECT unnest($1::bigint[]) AS k ORDER BY 1) s', [keys]);
  const rows = await sql.query<{ workspace_id: string; currency: string; total: string }>(
    `SELECT r.workspace_id, r.currency, COALESCE(SUM(p.amount_minor), 0)::text AS total
       FROM unnest($1::uuid[], $2::text[]) AS r(workspace_id, currency)
       LEFT JOIN payouts p ON p.workspace_id = r.workspace_id AND p.currency = r.currency
        AND p.status NOT IN ('failed', 'cancelled')
        AND p.created_at >= date_trunc('day', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'
      GROUP BY r.workspace_id, r.currency`,
    [unique.map((p) => p.workspaceId), unique.map((p) => p.currency)],
  );
  return new Map(rows.map((r) => [`${r.workspace_id}:${r.currency}`, BigInt(r.total)]));
}

/** Which of these (workspace, clientRef) pairs already have a payout. */
export async function existingClientRefs(sql: Sql, pairs: readonly { workspaceId: string; clientRef: string }[]): Promise<Set<string>> {
  if (pairs.length === 0) return new Set();
  const rows = await sql.query<{ workspace_id: string; client_ref: string }>(
    `SELECT p.workspace_id, p.client_ref FROM payouts p
       JOIN unnest($1::uuid[], $2::text[]) AS r(workspace_id, client_ref) ON p.workspace_id = r.workspace_id AND p.client_ref = r.client_ref`,
    [pairs.map((p) => p.workspaceId), pairs.map((p) => p.clientRef)],
  );
  return new Set(rows.map((r) => `${r.workspace_id}:${r.client_ref}`));
}

/** Inserts many payouts with one statement. */
export async function insertPayouts(sql: Sql, ps: readonly NewPayout[]): Promise<PayoutCoreRow[]> {
  if (ps.length === 0) return [];
  const col = <T>(f: (p: NewPayout) => T) => ps.map(f);
  const json = (v: unknown) => (v === null || v === undefined ? null : JSON.stringify(v));
  return sql.query<PayoutCoreRow>(
    `INSERT INTO payouts (id, workspace_id, account_id, client_ref, status, currency, amount_minor, fee_minor, route, catalog_rail, provider,
                          beneficiary_id, beneficiary, sender, quote_id, funding_currency, funding_minor, purpose, reference,
                          metadata, hold_transfer_id, fee_transfer_id, failure_reason)
     SELECT id, workspace_id, account_id, client_ref, status, currency, amount_minor, fee_minor, route, catalog_rail, provider,
            beneficiary_id, beneficiary, sender, quote_id, funding_currency, funding_minor, purpose, reference,
            metadata::jsonb, hold_transfer_id, fee_transfer_id, failure_reason
       FROM unnest($1::uuid[], $2::uuid[], $3::uuid[], $4::text[], $5::text[], $6::text[], $7::numeric[], $8::numeric[], $9::text[],
                   $10::text[], $11::uuid[], $12::text[], $13::text[], $14::uuid[], $15::text[], $16::numeric[], $17::text[],
                   $18::text[], $19::text[], $20::uuid[], $21::uuid[], $22::text[], $23::text[])
         AS p(id, workspace_id, account_id, client_ref, status, currency, amount_minor, fee_minor, route, provider,
              beneficiary_id, beneficiary, sender, quote_id, funding_currency, funding_minor, purpose, reference,
              metadata, hold_transfer_id, fee_transfer_id, failure_reason, catalog_rail)
     RETURNING ${PAYOUT_CORE_COLUMNS}`,
    [
      col((p) => p.id), col((p) => p.workspaceId), col((p) => p.accountId), col((p) => p.clientRef), col((p) => p.status),
      col((p) => p.currency), col((p) => p.amountMinor.toString()), col((p) => p.feeMinor.toString()), col((p) => p.route),
      col((p) => p.provider), col((p) => p.beneficiaryId), col((p) => p.beneficiary), col((p) => p.sender),
      col((p) => p.quoteId), col((p) => p.fundingCurrency), col((p) => p.fundingMinor.toString()), col((p) => p.purpose),
      col((p) => p.reference), col((p) => json(p.metadata)), col((p) => p.holdTransferId), col((p) => p.feeTransferId),
      col((p) => p.failureReason), col((p) => p.catalogRail),
    ],
  );
}

/**
 * Serialises payouts of the same (workspace, clientRef) across transactions, so the check for a
 * duplicate and the insert act as one. Keys are taken in sorted order: batches never deadlock.
 */
export async function lockClientRefs(sql: Sql, pairs: readonly { workspaceId: string; clientRef: string }[]): Promise<void> {
  if (pairs.length === 0) return;
  const keys = [...new Set(pairs.map((p) => advisoryKey(`payout-client-ref:${p.workspaceId}:${p.clientRef}`)))].sort();
  await sql.query('SELECT count(pg_advisory_xact_lock(k)) FROM (SELECT unnest($1::bigint[]) AS k ORDER BY 1) s', [keys]);
}

export interface PayoutFilters extends PageRequest {
  clientRef?: string | undefined;
  status?: string | undefined;
  createdFrom?: string | undefined;
  createdTo?: string | undefined;
  /** The provider settling it (`manual`: the operator's queue). */
  provider?: string | undefined;
  /** Anything a person types in a search box: part of the client reference, the id, the amount, the beneficiary (ids found by name). */
  search?: PayoutSearch | undefined;
}

export interface PayoutSearch {
  /** Matched anywhere in the client reference, case-insensitive. */
  text: string;
  /** Beneficiaries whose name matched. */
  beneficiaryIds: readonly string[];
  /** The typed amount in minor units, per currency it is a valid amount of. */
  amounts: readonly { currency: string; amountMinor: string }[];
}

/** `text` as a LIKE pattern matching it anywhere (its own % and _ taken literally). */
export const containsPattern = (text: string): string => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

function payoutWhere(scope: { workspaceId?: string | undefined; subAccountId?: string | undefined }, f: PayoutFilters) {
  const filters = listFilters();
  const { add } = filters;
  if (scope.workspaceId) add('workspace_id = ?', scope.workspaceId);
  if (f.provider) add('provider = ?', f.provider);
  if (scope.subAccountId) add('account_id = ?', scope.subAccountId);
  if (f.clientRef) add('client_ref = ?', f.clientRef);
  if (f.status) add('status = ?', f.status);
  if (f.createdFrom) add('created_at >= ?::timestamptz', f.createdFrom);
  if (f.createdTo) add('created_at < ?::timestamptz', f.createdTo);
  if (f.search) {
    const s = f.search;
    const parts = ['client_ref ILIKE ?', 'id::text = ?'];
    const values: unknown[] = [containsPattern(s.text), s.text.toLowerCase()];
    if (s.beneficiaryIds.length) {
      parts.push('beneficiary_id = ANY(?::uuid[])');
      values.push(s.beneficiaryIds);
    }
    for (const a of s.amounts) {
      parts.push('(currency = ? AND amount_minor = ?::numeric)');
      values.push(a.currency, a.amountMinor);
    }
    add(`(${parts.join(' OR ')})`, ...values);
  }
  return filters;
}

/** How many payouts a list's filters match (the "1–20 of 1,043" of a page). */
export async function countPayouts(sql: Sql, scope: { workspaceId?: string | undefined; subAccountId?: string | undefined }, f: PayoutFilters): Promise<number> {
  const { where, params } = payoutWhere(scope, f);
  const rows = await sql.query<{ n: string }>(`SELECT count(*)::text AS n FROM payouts${where.length ? ` WHERE ${where.join(' AND ')}` : ''}`, params);
  return Number(rows[0]?.n ?? 0);
}

/** Payouts newest first: a workspace's roll-up, a sub-account's, or without a workspace every workspace's. */
export function listPayouts<Item>(
  sql: Sql,
  scope: { workspaceId?: string | undefined; subAccountId?: string | undefined },
  f: PayoutFilters,
  map: (row: PayoutRow) => Item,
) {
  const { where, params } = payoutWhere(scope, f);
  return paginate(sql, f, { object: 'payout.list', from: `SELECT ${PAYOUT_COLUMNS} FROM payouts`, where, params, map });
}

/** Payouts per UTC day and currency since `sinceIso` (the overview's chart): how many, and their amounts in minor units. */
export async function payoutsPerDay(sql: Sql, scope: { workspaceId: string; subAccountId?: string | undefined }, sinceIso: string): Promise<{ day: string; currency: string; count: number; amountMinor: string }[]> {
  const rows = await sql.query<{ day: string; currency: string; n: string; amount: string }>(
    `SELECT to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day, currency, count(*)::text AS n, sum(amount_minor)::text AS amount
       FROM payouts WHERE workspace_id = $1 AND ($2::uuid IS NULL OR account_id = $2::uuid) AND created_at >= $3::timestamptz
      GROUP BY 1, 2 ORDER BY 1, 2`,
    [scope.workspaceId, scope.subAccountId ?? null, sinceIso],
  );
  return rows.map((r) => ({ day: r.day, currency: r.currency, count: Number(r.n), amountMinor: r.amount }));
}

/** Unfinished payouts per connector and status: how many, and how long the oldest has been in it (database clock). */
export interface UnfinishedPayouts {
  connector: string;
  status: PayoutStatus;
  count: number;
  oldestAgeSeconds: number;
}

/**
 * The payouts not yet paid, failed or cancelled, grouped by connector (`provider`) and status, with
 * the age of the oldest since its last move. One pass over the payouts table (no index on status:
 * it would make every payout move a non-HOT update), so callers sample it, never per request.
 */
export async function unfinishedPayouts(sql: Sql): Promise<UnfinishedPayouts[]> {
  return sql.query<UnfinishedPayouts>(
    `SELECT provider AS connector, status, count(*)::int AS count,
            EXTRACT(EPOCH FROM now() - min(updated_at))::float8 AS "oldestAgeSeconds"
       FROM payouts WHERE status IN ('created', 'queued', 'processing')
      GROUP BY provider, status ORDER BY provider, status`,
  );
}
