import type { Sql } from '../../platform/db/db.js';
import { maybeOne, one } from '../../platform/db/db.js';
import { listFilters, paginate, type PageRequest } from '../../platform/db/pagination.js';
import type { ListedAddress } from './lists/addresses.js';
import { addressKey } from './lists/addresses.js';
import type { EntryKind, Hit, ListEntry, ListName } from './matching.js';

/** All SQL of the screening tables: list versions and entries, beneficiary screenings, payout holds, settings. */

export interface VersionRow {
  id: string;
  list: ListName;
  format: string;
  sha256: string;
  bytes: string;
  entries: number;
  names: number;
  individuals: number;
  entities: number;
  /** Digital-currency addresses its entries carry. */
  addresses: number;
  loaded_by: string;
  loaded_at: Date;
}

const VERSION_COLUMNS = 'id, list, format, sha256, bytes::text AS bytes, entries, names, individuals, entities, addresses, loaded_by, loaded_at';

export async function insertVersion(sql: Sql, v: Omit<VersionRow, 'loaded_at'>): Promise<VersionRow> {
  return one<VersionRow>(
    sql,
    `INSERT INTO screening_list_versions (id, list, format, sha256, bytes, entries, names, individuals, entities, addresses, loaded_by)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) RETURNING ${VERSION_COLUMNS}`,
    [v.id, v.list, v.format, v.sha256, v.bytes, v.entries, v.names, v.individuals, v.entities, v.addresses, v.loaded_by],
  );
}

/** Rows of entries per INSERT: keeps each statement's parameters small. */
const ENTRY_ROWS_PER_STATEMENT = 2000;

export async function insertEntries(sql: Sql, versionId: string, entries: readonly ListEntry[]): Promise<void> {
  for (let start = 0; start < entries.length; start += ENTRY_ROWS_PER_STATEMENT) {
    const chunk = entries.slice(start, start + ENTRY_ROWS_PER_STATEMENT);
    const col = <T>(f: (e: ListEntry) => T) => chunk.map(f);
    await sql.query(
      `INSERT INTO screening_entries (version_id, position, entry_id, kind, name, aliases, dates_of_birth, countries, programs)
       SELECT $1, position, entry_id, kind, name, aliases::jsonb, dates_of_birth::jsonb, countries::jsonb, programs::jsonb
         FROM unnest($2::int[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[])
           AS e(position, entry_id, kind, name, aliases, dates_of_birth, countries, programs)`,
      [
        versionId,
        chunk.map((_, i) => start + i),
        col((e) => e.entryId),
        col((e) => e.kind),
        col((e) => e.name),
        col((e) => JSON.stringify(e.aliases)),
        col((e) => JSON.stringify(e.datesOfBirth)),
        col((e) => JSON.stringify(e.countries)),
        col((e) => JSON.stringify(e.programs)),
      ],
    );
  }
}

/** A version's entries in their file's order. */
export async function entriesOf(sql: Sql, versionId: string): Promise<ListEntry[]> {
  const rows = await sql.query<{ entry_id: string; kind: EntryKind; name: string; aliases: string[]; dates_of_birth: string[]; countries: string[]; programs: string[] }>(
    'SELECT entry_id, kind, name, aliases, dates_of_birth, countries, programs FROM screening_entries WHERE version_id = $1 ORDER BY position',
    [versionId],
  );
  return rows.map((r) => ({ entryId: r.entry_id, kind: r.kind, name: r.name, aliases: r.aliases, datesOfBirth: r.dates_of_birth, countries: r.countries, programs: r.programs }));
}

/** A version's digital-currency addresses (its entries'), each under its lookup key. */
export async function insertAddresses(sql: Sql, versionId: string, addresses: readonly ListedAddress[]): Promise<void> {
  for (let start = 0; start < addresses.length; start += ENTRY_ROWS_PER_STATEMENT) {
    const chunk = addresses.slice(start, start + ENTRY_ROWS_PER_STATEMENT);
    await sql.query(
      `INSERT INTO screening_addresses (version_id, address_key, address, currency, entry_id, entry_name)
       SELECT $1, k, a, c, e, n FROM unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::text[]) AS x(k, a, c, e, n)
       ON CONFLICT DO NOTHING`,
      [versionId, chunk.map((a) => addressKey(a.address)), chunk.map((a) => a.address), chunk.map((a) => a.currency), chunk.map((a) => a.entryId), chunk.map((a) => a.entryName)],
    );
  }
}

export interface ListedAddressRow {
  list: ListName;
  address_key: string;
  address: string;
  currency: string;
  entry_id: string;
  entry_name: string;
}

/** The addresses with these keys on the newest version of each list. */
export async function activeListedAddresses(sql: Sql, keys: readonly string[]): Promise<ListedAddressRow[]> {
  if (keys.length === 0) return [];
  return sql.query<ListedAddressRow>(
    `SELECT v.list, a.address_key, a.address, a.currency, a.entry_id, a.entry_name
       FROM screening_addresses a
       JOIN (SELECT DISTINCT ON (list) id, list FROM screening_list_versions ORDER BY list, loaded_at DESC, id DESC) v ON v.id = a.version_id
      WHERE a.address_key = ANY($1::text[])
      ORDER BY v.list, a.entry_id`,
    [keys],
  );
}

/** The newest version of each list: the ones screened against. */
export async function activeVersions(sql: Sql): Promise<{ id: string; list: ListName }[]> {
  return sql.query<{ id: string; list: ListName }>('SELECT DISTINCT ON (list) id, list FROM screening_list_versions ORDER BY list, loaded_at DESC, id DESC');
}

export function listVersions<Item>(sql: Sql, f: PageRequest & { list?: string | undefined }, map: (row: VersionRow) => Item) {
  const { where, params, add } = listFilters();
  if (f.list) add('list = ?', f.list);
  return paginate(sql, f, { object: 'screening_list_version.list', from: `SELECT ${VERSION_COLUMNS} FROM screening_list_versions`, where, params, createdColumn: 'loaded_at', map });
}

// ---------------------------------------------------------------------------------------------
// Beneficiaries

export interface BeneficiaryScreening {
  beneficiaryId: string;
  workspaceId: string;
  hits: Hit[];
}

/** Records the last screening of many beneficiaries with one statement. */
export async function upsertBeneficiaryScreenings(sql: Sql, rows: readonly BeneficiaryScreening[]): Promise<void> {
  if (rows.length === 0) return;
  await sql.query(
    `INSERT INTO beneficiary_screenings (beneficiary_id, workspace_id, status, hits, screened_at)
     SELECT b, w, CASE WHEN jsonb_array_length(h::jsonb) > 0 THEN 'hit' ELSE 'clear' END, h::jsonb, now()
       FROM unnest($1::uuid[], $2::uuid[], $3::text[]) AS r(b, w, h)
     ON CONFLICT (beneficiary_id) DO UPDATE SET status = EXCLUDED.status, hits = EXCLUDED.hits, screened_at = EXCLUDED.screened_at`,
    [rows.map((r) => r.beneficiaryId), rows.map((r) => r.workspaceId), rows.map((r) => JSON.stringify(r.hits))],
  );
}

export interface BeneficiaryScreeningRow {
  beneficiary_id: string;
  workspace_id: string;
  status: 'clear' | 'hit';
  hits: Hit[];
  screened_at: Date;
}

export async function findBeneficiaryScreening(sql: Sql, workspaceId: string, beneficiaryId: string): Promise<BeneficiaryScreeningRow | undefined> {
  return maybeOne<BeneficiaryScreeningRow>(sql, 'SELECT beneficiary_id, workspace_id, status, hits, screened_at FROM beneficiary_screenings WHERE workspace_id = $1 AND beneficiary_id = $2', [workspaceId, beneficiaryId]);
}

export function listBeneficiaryHits<Item>(sql: Sql, f: PageRequest, map: (row: BeneficiaryScreeningRow) => Item) {
  const { where, params, add } = listFilters();
  add("status = 'hit'");
  return paginate(sql, f, {
    object: 'beneficiary_screening.list',
    from: 'SELECT beneficiary_id, workspace_id, status, hits, screened_at FROM beneficiary_screenings',
    where,
    params,
    createdColumn: 'screened_at',
    idColumn: 'beneficiary_id',
    map,
  });
}

// ---------------------------------------------------------------------------------------------
// Payout holds

export type HoldStatus = 'held' | 'released' | 'rejected' | 'withdrawn';

export interface HoldRow {
  payout_id: string;
  workspace_id: string;
  client_ref: string;
  amount_minor: string;
  currency: string;
  status: HoldStatus;
  hits: Hit[];
  release_approved_by: string | null;
  decided_by: string | null;
  decided_at: Date | null;
  created_at: Date;
}

const HOLD_COLUMNS = 'payout_id, workspace_id, client_ref, amount_minor::text AS amount_minor, currency, status, hits, release_approved_by, decided_by, decided_at, created_at';

export interface NewHold {
  payoutId: string;
  workspaceId: string;
  clientRef: string;
  amountMinor: bigint;
  currency: string;
  hits: Hit[];
}

/** Holds many payouts with one statement. */
export async function insertHolds(sql: Sql, holds: readonly NewHold[]): Promise<void> {
  if (holds.length === 0) return;
  await sql.query(
    `INSERT INTO payout_screenings (payout_id, workspace_id, client_ref, amount_minor, currency, status, hits)
     SELECT p, w, r, a, c, 'held', h::jsonb FROM unnest($1::uuid[], $2::uuid[], $3::text[], $4::numeric[], $5::text[], $6::text[]) AS x(p, w, r, a, c, h)`,
    [holds.map((h) => h.payoutId), holds.map((h) => h.workspaceId), holds.map((h) => h.clientRef), holds.map((h) => h.amountMinor.toString()), holds.map((h) => h.currency), holds.map((h) => JSON.stringify(h.hits))],
  );
}

export async function findHold(sql: Sql, payoutId: string, options: { lock?: boolean } = {}): Promise<HoldRow | undefined> {
  return maybeOne<HoldRow>(sql, `SELECT ${HOLD_COLUMNS} FROM payout_screenings WHERE payout_id = $1${options.lock ? ' FOR UPDATE' : ''}`, [payoutId]);
}

/** The first release under dual control: recorded only while no one has. */
export async function approveRelease(sql: Sql, payoutId: string, by: string): Promise<HoldRow | undefined> {
  return maybeOne<HoldRow>(
    sql,
    `UPDATE payout_screenings SET release_approved_by = $2 WHERE payout_id = $1 AND status = 'held' AND release_approved_by IS NULL RETURNING ${HOLD_COLUMNS}`,
    [payoutId, by],
  );
}

/** The decision on a held payout: a compare-and-set from `held`. */
export async function decideHold(sql: Sql, payoutId: string, to: 'released' | 'rejected', by: string): Promise<HoldRow | undefined> {
  return maybeOne<HoldRow>(
    sql,
    `UPDATE payout_screenings SET status = $2, decided_by = $3, decided_at = now() WHERE payout_id = $1 AND status = 'held' RETURNING ${HOLD_COLUMNS}`,
    [payoutId, to, by],
  );
}

export function listHolds<Item>(sql: Sql, f: PageRequest & { status?: HoldStatus | undefined; workspaceId?: string | undefined }, map: (row: HoldRow) => Item) {
  const { where, params, add } = listFilters();
  if (f.status) add('status = ?', f.status);
  if (f.workspaceId) add('workspace_id = ?', f.workspaceId);
  return paginate(sql, f, { object: 'screening_hold.list', from: `SELECT ${HOLD_COLUMNS} FROM payout_screenings`, where, params, idColumn: 'payout_id', map });
}

// ---------------------------------------------------------------------------------------------
// Settings

export interface SettingsRow {
  dual_control: boolean;
  updated_by: string | null;
  updated_at: Date;
}

export async function readSettings(sql: Sql): Promise<SettingsRow> {
  return one<SettingsRow>(sql, 'SELECT dual_control, updated_by, updated_at FROM screening_settings WHERE id');
}

export async function writeSettings(sql: Sql, dualControl: boolean, by: string): Promise<SettingsRow> {
  return one<SettingsRow>(sql, 'UPDATE screening_settings SET dual_control = $1, updated_by = $2, updated_at = now() WHERE id RETURNING dual_control, updated_by, updated_at', [dualControl, by]);
}

// ---------------------------------------------------------------------------------------------
// Order holds

export interface OrderHoldRow {
  order_id: string;
  workspace_id: string;
  beneficiary_id: string;
  status: HoldStatus;
  hits: Hit[];
  decided_by: string | null;
  decided_at: Date | null;
  created_at: Date;
}

const ORDER_HOLD_COLUMNS = 'order_id, workspace_id, beneficiary_id, status, hits, decided_by, decided_at, created_at';

export async function insertOrderHold(sql: Sql, hold: { orderId: string; workspaceId: string; beneficiaryId: string; hits: Hit[] }): Promise<OrderHoldRow> {
  return one<OrderHoldRow>(
    sql,
    `INSERT INTO order_screenings (order_id, workspace_id, beneficiary_id, status, hits) VALUES ($1, $2, $3, 'held', $4::jsonb) RETURNING ${ORDER_HOLD_COLUMNS}`,
    [hold.orderId, hold.workspaceId, hold.beneficiaryId, JSON.stringify(hold.hits)],
  );
}

export async function findOrderHold(sql: Sql, orderId: string, options: { lock?: boolean } = {}): Promise<OrderHoldRow | undefined> {
  return maybeOne<OrderHoldRow>(sql, `SELECT ${ORDER_HOLD_COLUMNS} FROM order_screenings WHERE order_id = $1${options.lock ? ' FOR UPDATE' : ''}`, [orderId]);
}

/** The decision on a held order (or its withdrawal by `system`): a compare-and-set from `held`. */
export async function decideOrderHold(sql: Sql, orderId: string, to: 'released' | 'rejected' | 'withdrawn', by: string): Promise<OrderHoldRow | undefined> {
  return maybeOne<OrderHoldRow>(
    sql,
    `UPDATE order_screenings SET status = $2, decided_by = $3, decided_at = now() WHERE order_id = $1 AND status = 'held' RETURNING ${ORDER_HOLD_COLUMNS}`,
    [orderId, to, by],
  );
}

/** Each list's active (newest) version: when it was loaded and its age in seconds (database clock). */
export async function activeListAges(sql: Sql): Promise<{ list: string; loadedAt: Date; ageSeconds: number }[]> {
  return sql.query(
    `SELECT DISTINCT ON (list) list, loaded_at AS "loadedAt", EXTRACT(EPOCH FROM now() - loaded_at)::float8 AS "ageSeconds"
       FROM screening_list_versions ORDER BY list, loaded_at DESC`,
  );
}
