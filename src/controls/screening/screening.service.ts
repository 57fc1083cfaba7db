import { createHash } from 'node:crypto';
import type { AppContext } from '../../platform/context.js';
import type { Sql, Tx } from '../../platform/db/db.js';
import type { PageRequest } from '../../platform/db/pagination.js';
import { enqueue } from '../../platform/jobs/queue.js';
import { conflict, fieldError } from '../../platform/lib/errors.js';
import { newId } from '../../platform/lib/ids.js';
import type { ListedAddress } from './lists/addresses.js';
import { parseListFile } from './lists/index.js';
import { ListIndex, screenAll, type Hit, type ListEntry, type ListName, type Subject } from './matching.js';
import { screenAddresses, type AddressHit } from './screening.addresses.js';
import * as repo from './screening.repository.js';

/**
 * Sanctions screening: list versions loaded from the official files, an in-memory index per active
 * version (built once per process, on load or on first use), and the screening of beneficiaries and
 * of payouts at submit. The holds a hit puts on a payout, and their release or rejection, are in
 * screening.holds.ts; the re-screening after a load in screening.jobs.ts.
 */

export const SCREENING_RESCREEN_JOB = 'screening.rescreen';

export type { Hit, ListName } from './matching.js';
export { LIST_NAMES } from './matching.js';

// ---------------------------------------------------------------------------------------------
// The indexes of the active versions, per process

/** Each version's index (versions never change; ids are never reused), kept while its version is active. */
const indexes = new Map<string, Promise<ListIndex>>();

function indexOf(db: Sql, version: { id: string; list: ListName }): Promise<ListIndex> {
  let index = indexes.get(version.id);
  if (!index) {
    index = repo.entriesOf(db, version.id).then((entries) => new ListIndex(version.list, version.id, entries));
    index.catch(() => indexes.delete(version.id));
    indexes.set(version.id, index);
  }
  return index;
}

/** What screening is given: the settings, and the database an index's entries are read from. */
type ScreeningContext = Pick<AppContext, 'config' | 'db'>;

/**
 * The indexes of the newest version of each list, as `sql` (the caller's transaction) sees them: one
 * small query. An index is built on its first use in this process, its entries read outside the
 * caller's transaction on PostgreSQL (a version's entries never change), so a payout group's locks
 * are not held while a list is read.
 */
export async function activeIndexes(ctx: ScreeningContext, sql: Sql): Promise<ListIndex[]> {
  const active = await repo.activeVersions(sql);
  const ids = new Set(active.map((v) => v.id));
  for (const id of indexes.keys()) if (!ids.has(id)) indexes.delete(id);
  // The embedded database is one connection whose transactions are exclusive: read in the caller's.
  const reader = ctx.db.kind === 'pglite' ? sql : ctx.db;
  return Promise.all(active.map((v) => indexOf(reader, v)));
}

/** Forgets every index built by this process, as a process that never loaded them (tests). */
export function forgetIndexes(): void {
  indexes.clear();
}

// ---------------------------------------------------------------------------------------------
// Loading a list

export function versionData(row: repo.VersionRow) {
  return {
    id: row.id,
    list: row.list,
    format: row.format,
    sha256: row.sha256,
    bytes: Number(row.bytes),
    entries: row.entries,
    names: row.names,
    individuals: row.individuals,
    entities: row.entities,
    addresses: row.addresses,
    loadedBy: row.loaded_by,
    loadedAt: row.loaded_at.toISOString(),
  };
}
export type VersionView = ReturnType<typeof versionData>;

/**
 * Loads a list file as a new version of its list, in the caller's transaction: parsed in the list's
 * official format (a file that is not one, or holds no entry, is refused naming `file`), stored with
 * its counts and digest, made the list's active version, and a background re-screening of every active
 * beneficiary is queued. `loadedBy` is who loaded it (`key:<id>`, `user:<id>`, `cli`).
 */
export async function loadList(tx: Tx, input: { list: ListName; bytes: Uint8Array; loadedBy: string }): Promise<VersionView> {
  let entries: ListEntry[];
  let format: string;
  let addresses: ListedAddress[];
  try {
    ({ entries, format, addresses } = parseListFile(input.list, input.bytes));
  } catch (err) {
    throw fieldError('file', `file is not a ${input.list} list in its official format: ${err instanceof Error ? err.message : String(err)}`);
  }
  entries = entries.filter((e) => e.entryId && e.name);
  if (entries.length === 0) throw fieldError('file', `file holds no ${input.list} entry`);
  const id = newId();
  const index = new ListIndex(input.list, id, entries);
  const row = await repo.insertVersion(tx, {
    id,
    list: input.list,
    format,
    sha256: createHash('sha256').update(input.bytes).digest('hex'),
    bytes: String(input.bytes.byteLength),
    entries: entries.length,
    names: index.nameCount,
    individuals: entries.filter((e) => e.kind === 'individual').length,
    entities: entries.filter((e) => e.kind !== 'individual').length,
    addresses: addresses.length,
    loaded_by: input.loadedBy,
  });
  await repo.insertEntries(tx, id, entries);
  await repo.insertAddresses(tx, id, addresses);
  await enqueue(tx, { kind: SCREENING_RESCREEN_JOB, payload: { versionId: id } });
  // This process screens against the new version from its commit on without reading it back.
  indexes.set(id, Promise.resolve(index));
  return versionData(row);
}

export function listVersions(sql: Sql, f: PageRequest & { list?: ListName | undefined }) {
  return repo.listVersions(sql, f, versionData);
}

// ---------------------------------------------------------------------------------------------
// Screening

/** Screens subjects against every active list: each subject's hits (empty: clear), best first. */
export async function screen(ctx: ScreeningContext, sql: Sql, subjects: readonly Subject[]): Promise<Hit[][]> {
  if (subjects.length === 0) return [];
  const active = await activeIndexes(ctx, sql);
  return subjects.map((s) => screenAll(active, s, ctx.config.screening.matchThreshold));
}

/** A beneficiary as screening reads it. */
export interface BeneficiarySubject {
  id: string;
  workspaceId: string;
  type?: 'individual' | 'business' | undefined;
  name: string;
  middleName?: string | undefined;
  country?: string | undefined;
  dateOfBirth?: string | undefined;
}

const beneficiarySubject = (b: BeneficiarySubject): Subject => ({
  name: b.middleName && !b.name.includes(b.middleName) ? `${b.name} ${b.middleName}` : b.name,
  kind: b.type,
  country: b.country,
  dateOfBirth: b.dateOfBirth,
});

/**
 * Screens beneficiaries and records each one's status and hits (clear or hit), in the caller's
 * transaction: on create and change, and again after each new list version.
 */
export async function screenBeneficiaries(ctx: ScreeningContext, tx: Sql, beneficiaries: readonly BeneficiarySubject[]): Promise<Hit[][]> {
  const hits = await screen(ctx, tx, beneficiaries.map(beneficiarySubject));
  await repo.upsertBeneficiaryScreenings(tx, beneficiaries.map((b, i) => ({ beneficiaryId: b.id, workspaceId: b.workspaceId, hits: hits[i] as Hit[] })));
  return hits;
}

/** A beneficiary's last screening as the operator reads it (`never`: not screened yet, e.g. saved before any list was loaded). */
export async function beneficiaryScreening(sql: Sql, workspaceId: string, beneficiaryId: string) {
  const row = await repo.findBeneficiaryScreening(sql, workspaceId, beneficiaryId);
  return row ? { status: row.status, hits: row.hits, screenedAt: row.screened_at.toISOString() } : { status: 'never' as const, hits: [], screenedAt: null };
}

export function listBeneficiaryHits(sql: Sql, f: PageRequest) {
  return repo.listBeneficiaryHits(sql, f, (row) => ({ beneficiaryId: row.beneficiary_id, workspaceId: row.workspace_id, status: row.status, hits: row.hits, screenedAt: row.screened_at.toISOString() }));
}

// ---------------------------------------------------------------------------------------------
// Payouts at submit

/** A payout as written at submit, its recipient and sender still open. */
export interface SubmittedPayout {
  id: string;
  workspaceId: string;
  clientRef: string;
  amountMinor: bigint;
  currency: string;
  beneficiary: Record<string, unknown>;
  sender: Record<string, unknown> | null;
}

const str = (v: unknown): string | undefined => (typeof v === 'string' && v.trim() !== '' ? v : undefined);

function payoutSubjects(p: SubmittedPayout): Subject[] {
  const b = p.beneficiary;
  const subjects: Subject[] = [];
  const name = str(b.name);
  if (name) {
    subjects.push(beneficiarySubject({ id: p.id, workspaceId: p.workspaceId, type: b.type === 'business' ? 'business' : b.type === 'individual' ? 'individual' : undefined, name, middleName: str(b.middleName), country: str(b.country), dateOfBirth: str(b.dateOfBirth) }));
  }
  const s = p.sender;
  if (s) {
    const person = [str(s.firstName), str(s.lastName)].filter(Boolean).join(' ');
    const senderName = str(s.companyName) && !person ? (str(s.companyName) as string) : person;
    if (senderName) subjects.push({ name: senderName, kind: person ? 'individual' : 'business', country: str(s.country), dateOfBirth: str(s.dateOfBirth) });
  }
  return subjects;
}

/** The crypto wallets a payout's beneficiary names (its `account` and `accounts` of type crypto). */
function payoutWallets(p: SubmittedPayout): { network: string; address: string }[] {
  const b = p.beneficiary;
  type Account = { type?: unknown; data?: { network?: unknown; address?: unknown } };
  const accounts = [...(Array.isArray(b.accounts) ? (b.accounts as Account[]) : []), ...(b.account ? [b.account as Account] : [])];
  return accounts.flatMap((a) => (a.type === 'crypto' && typeof a.data?.address === 'string' ? [{ network: str(a.data.network) ?? '', address: a.data.address }] : []));
}

/**
 * The screening of payouts at submit, in the transaction that writes them (after their rows, before
 * their first steps are scheduled): each payout whose beneficiary or sender matches a list, or whose
 * crypto wallet is a listed address (screening.addresses.ts), is held (recorded with its evidence)
 * and must not be scheduled. Returns the held payouts' hits by payout id.
 */
export async function holdListedPayouts(ctx: ScreeningContext, tx: Tx, payouts: readonly SubmittedPayout[]): Promise<Map<string, Hit[]>> {
  const held = new Map<string, Hit[]>();
  if (payouts.length === 0) return held;
  const active = await activeIndexes(ctx, tx);
  const wallets = payouts.flatMap((p) => payoutWallets(p).map((w) => ({ payoutId: p.id, request: { ...w, currency: p.currency, direction: 'outgoing' as const } })));
  const addressHits = await screenAddresses(tx, wallets.map((w) => w.request));
  for (const p of payouts) {
    const hits: Hit[] = [
      ...wallets.flatMap((w, i) => (w.payoutId === p.id ? (addressHits[i] as AddressHit[]) : [])),
      ...(active.length === 0 ? [] : payoutSubjects(p).flatMap((s) => screenAll(active, s, ctx.config.screening.matchThreshold))),
    ].sort((a, b) => b.score - a.score);
    if (hits.length > 0) held.set(p.id, hits);
  }
  const holds = payouts.filter((p) => held.has(p.id)).map((p) => ({ payoutId: p.id, workspaceId: p.workspaceId, clientRef: p.clientRef, amountMinor: p.amountMinor, currency: p.currency, hits: held.get(p.id) as Hit[] }));
  await repo.insertHolds(tx, holds);
  return held;
}

/** The screening a payout read shows: `clear`, or its hold's status with the evidence. */
export interface PayoutScreening {
  status: 'clear' | repo.HoldStatus;
  hits: { list: string; entryId: string; entryName: string; matchedName: string; score: number; address?: string; currency?: string }[];
}

/** A hit as a payout read shows it (the subject's own name is the customer's, already known to them). */
export const hitEvidence = (h: Hit | AddressHit) => ({
  list: h.list,
  entryId: h.entryId,
  entryName: h.entryName,
  matchedName: h.matchedName,
  score: h.score,
  ...('address' in h ? { address: h.address, currency: h.currency } : {}),
});

// ---------------------------------------------------------------------------------------------
// Trade-desk orders delivered to a beneficiary

/**
 * The screening of an order delivered to a beneficiary, at its creation and in its transaction: on a
 * match the order is held (recorded with its evidence) and the desk cannot execute or complete it
 * until an operator releases it (screening.holds.ts). Returns the hits (empty: clear).
 */
export async function holdListedOrder(ctx: ScreeningContext, tx: Tx, order: { id: string; beneficiary: BeneficiarySubject }): Promise<Hit[]> {
  const [hits = []] = await screen(ctx, tx, [beneficiarySubject(order.beneficiary)]);
  if (hits.length > 0) await repo.insertOrderHold(tx, { orderId: order.id, workspaceId: order.beneficiary.workspaceId, beneficiaryId: order.beneficiary.id, hits });
  return hits;
}

export function orderHoldData(row: repo.OrderHoldRow) {
  return {
    orderId: row.order_id,
    workspaceId: row.workspace_id,
    beneficiaryId: row.beneficiary_id,
    status: row.status,
    hits: row.hits,
    decidedBy: row.decided_by,
    decidedAt: row.decided_at ? row.decided_at.toISOString() : null,
    createdAt: row.created_at.toISOString(),
  };
}
export type OrderHoldView = ReturnType<typeof orderHoldData>;

/** An order's screening hold, or undefined when its beneficiary matched nothing (or it has none). */
export async function orderHold(sql: Sql, orderId: string): Promise<OrderHoldView | undefined> {
  const row = await repo.findOrderHold(sql, orderId);
  return row ? orderHoldData(row) : undefined;
}

/** Refuses to let the desk execute or complete an order its screening holds (409 ORDER_HELD). */
export async function assertOrderNotHeld(tx: Tx, orderId: string): Promise<void> {
  const row = await repo.findOrderHold(tx, orderId, { lock: true });
  if (row?.status === 'held') {
    throw conflict('ORDER_HELD', "The order's beneficiary matched a sanctions list: an operator must release it (or reject it) before the desk executes or completes it");
  }
}

/** An order that ended otherwise (cancelled, expired, failed) while held: its hold closes as `withdrawn`, evidence kept. */
export async function withdrawOrderHold(tx: Tx, orderId: string): Promise<void> {
  await repo.decideOrderHold(tx, orderId, 'withdrawn', 'system');
}

export const activeListAges = repo.activeListAges;
