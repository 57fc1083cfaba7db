import { createHash } from 'node:crypto';
import type { Db, Sql, Tx } from '../../platform/db/db.js';
import { currentCommitParticipant, withCommitParticipant, type CommitParticipant } from '../../platform/db/commit-scope.js';
import { notFound, validationError, type FieldError } from '../../platform/lib/errors.js';
import { isDateTime } from '../../platform/lib/dates.js';
import type { PageRequest } from '../../platform/db/pagination.js';
import { isUuid, newId } from '../../platform/lib/ids.js';
import { storableText } from '../../platform/lib/text.js';
import { canonicalInstant, chainOf, ChainVerifier, entryHash, GENESIS_HASH, OPERATOR_CHAIN, type ChainBreak, type ChainedEntry } from './audit-chain.js';
import * as audit from './audit.repository.js';

const REDACTED_FIELDS = /secret|password|key|token|csrf|confirmation|sealed|^code$/i;

/** A file sent in a form field (a CSV of payouts, base64): the log keeps its digest and size, not the file. */
const FILE_FIELDS = /^file64$/;
function fileDigest(base64: string): string {
  const bytes = Buffer.from(base64, 'base64');
  return `[file: ${bytes.length} bytes, sha256 ${createHash('sha256').update(bytes).digest('hex')}]`;
}

/** Bytes as the audit log keeps them: their size and digest, never their content. */
export function bytesDigest(bytes: Uint8Array): { size: number; sha256: string } {
  return { size: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex') };
}

/**
 * The body as audited: secrets redacted, and text a refused call carried made storable
 * (src/platform/lib/text.ts). An uploaded file (src/faces/web/multipart.ts) is kept as its own `toJSON` says
 * (name, type, size, digest), and any other bytes as their size and digest: a payroll CSV or a
 * passport image never reaches the log.
 */
function redact(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return storableText(value);
  if (depth > 5 || value === null || typeof value !== 'object') return value;
  if (value instanceof Uint8Array) return bytesDigest(value);
  const toJSON = (value as { toJSON?: unknown }).toJSON;
  if (typeof toJSON === 'function') return redact(toJSON.call(value), depth + 1);
  if (Array.isArray(value)) return value.slice(0, 50).map((v) => redact(v, depth + 1));
  return Object.fromEntries(
    Object.entries(value as Record<string, unknown>).map(([k, v]) => [storableText(k), REDACTED_FIELDS.test(k) ? '[redacted]' : FILE_FIELDS.test(k) && typeof v === 'string' ? fileDigest(v) : redact(v, depth + 1)]),
  );
}

/** One operator call (API or page) as the audit log keeps it. */
export interface AuditEntry {
  operatorKeyId: string | null;
  method: string;
  path: string;
  statusCode: number;
  requestId: string;
  workspaceId: string | undefined;
  body: unknown;
  /** Who acted beside an operator key: `console` (signed in with the key), `user:<id>` (a dashboard user). */
  actor?: string | undefined;
}

/**
 * Appends an entry to its chain in `tx` (the workspace's, or the operator's): locks the chain's
 * head, links the entry to the head's hash, and moves the head to it, so a chain's entries are
 * appended one transaction at a time and each covers the one before it.
 */
export async function appendAudit(tx: Tx, entry: AuditEntry): Promise<void> {
  const workspaceId = entry.workspaceId && isUuid(entry.workspaceId) ? entry.workspaceId : null;
  const chain = chainOf(workspaceId);
  const head = await audit.lockChainHead(tx, chain, GENESIS_HASH);
  // JSON as stored and read back (jsonb): the hash covers the value the log will show.
  const bodyText = entry.body === undefined ? null : JSON.stringify(redact(entry.body));
  const at = new Date();
  const fields = {
    chain,
    seq: head.seq + 1,
    prevHash: head.last_hash,
    id: newId(),
    at: canonicalInstant(at),
    operatorKeyId: entry.operatorKeyId,
    actor: entry.actor ?? null,
    method: entry.method,
    path: entry.path.slice(0, 2000),
    statusCode: entry.statusCode,
    requestId: entry.requestId,
    workspaceId,
    body: bodyText === null ? null : (JSON.parse(bodyText) as unknown),
  };
  await audit.appendChained(tx, {
    id: fields.id,
    at,
    operator_key: fields.operatorKeyId,
    method: fields.method,
    path: fields.path,
    status_code: fields.statusCode,
    request_id: fields.requestId,
    workspace_id: workspaceId,
    body: bodyText,
    actor: fields.actor,
    chain,
    seq: fields.seq,
    prev_hash: fields.prevHash,
    hash: entryHash(fields),
  });
}

/** Writes an entry in a transaction of its own (a call that changed nothing: a read, a refusal). */
export async function writeAudit(db: Db, entry: AuditEntry): Promise<void> {
  await db.tx((tx) => appendAudit(tx, entry));
}

/** What a request's entry holds before its answer is known. */
export type AuditDraft = Omit<AuditEntry, 'statusCode'>;

/**
 * The audit entry of one request (an operator API call, a change from a page), written in the
 * transaction of its change: the first transaction of the request that writes anything gets the
 * entry just before its COMMIT (src/platform/db/commit-scope.ts), so the change and its entry commit or roll
 * back together. A request that committed no change (a read, a refusal, a failure) has its entry
 * written when it is answered (`writeAnswered`), with the answer's status.
 */
export class AuditScope implements CommitParticipant<Tx> {
  /** Written with a committed change. */
  recorded = false;
  private closed = false;
  /** The change being made appends its own entry for this call (a service that audits its changes). */
  private changeAudits = false;

  constructor(
    private readonly draft: AuditDraft,
    /** The answer's status as known when the change commits. */
    private readonly status: () => number,
  ) {}

  /** Names the workspace the change belongs to when the request's path did not (a move from a console queue). */
  attribute(workspaceId: string): void {
    if (!this.draft.workspaceId) this.draft.workspaceId = workspaceId;
  }

  /** The change carries its own entry for this call: the call's is not added to it (see `auditedByChange`). */
  leaveToChange(): void {
    this.changeAudits = true;
  }

  async beforeCommit(tx: Tx): Promise<boolean> {
    if (this.recorded || this.closed || !(await audit.transactionWrote(tx))) return false;
    // The change's own entry stands for the call: once it commits, nothing more is written for it.
    if (!this.changeAudits) await appendAudit(tx, { ...this.draft, statusCode: this.status() });
    return true;
  }

  committed(): void {
    this.recorded = true;
  }

  /** Once answered: the entry, unless a committed change already carries it (nothing joins after this). */
  async writeAnswered(db: Db, statusCode: number): Promise<void> {
    this.closed = true;
    if (this.recorded) return;
    await writeAudit(db, { ...this.draft, statusCode });
  }
}

/** Runs a request's handler with its audit scope current. */
export function withAuditScope<T>(scope: AuditScope, fn: () => T): T {
  return withCommitParticipant(scope, fn);
}

/**
 * Names the workspace of the change being made, for its audit entry (a console or operator move on
 * an order, deposit, payout or application found by its id): the entry joins that workspace's
 * chain and shows in its audit view. Nothing when no request is being audited here.
 */
export function auditWorkspace(workspaceId: string): void {
  const participant = currentCommitParticipant<Tx>();
  if (participant instanceof AuditScope) participant.attribute(workspaceId);
}

/**
 * Says, from inside a change whose service appended its own audit entry for this call (an approval
 * decision, an approval rule: src/controls/approvals/approvals.service.ts), that the request's entry
 * is not added to that transaction: one change, one entry. A call whose change does not commit (a
 * refusal) still has the request's entry written when it is answered. Nothing when no request is
 * being audited here.
 */
export function auditedByChange(): void {
  const participant = currentCommitParticipant<Tx>();
  if (participant instanceof AuditScope) participant.leaveToChange();
}

// ---------------------------------------------------------------------------------------------
// Verifying and exporting a chain

const VERIFY_BATCH = 1000;

/** The chain of a workspace, or the operator's: a workspace id must be a UUID. */
export function chainFor(workspaceId: string | undefined): string {
  if (workspaceId === undefined) return OPERATOR_CHAIN;
  if (!isUuid(workspaceId)) throw notFound('No such audit chain');
  return workspaceId;
}

export interface ChainVerification {
  object: 'audit_chain.verification';
  chain: string;
  valid: boolean;
  /** The entries kept: from `firstSeq` (after those retention deleted) to the head. */
  firstSeq: number;
  checked: number;
  head: { seq: number; hash: string };
  firstBroken: ChainBreak | null;
}

const entryOf = (r: audit.ChainedRow): ChainedEntry => ({
  chain: r.chain,
  seq: r.seq,
  prevHash: r.prev_hash,
  hash: r.hash,
  id: r.id,
  at: r.at,
  operatorKeyId: r.operator_key,
  actor: r.actor,
  method: r.method,
  path: r.path,
  statusCode: r.status_code,
  requestId: r.request_id,
  workspaceId: r.workspace_id,
  body: r.body ?? null,
});

/** A stored body with the bytes earlier versions copied into it replaced as `redact` keeps them now; undefined when it holds none. */
export function withoutStoredBytes(body: unknown, depth = 0): unknown {
  if (depth > 8 || body === null || typeof body !== 'object') return undefined;
  if (Array.isArray(body)) {
    const items = body.map((v) => withoutStoredBytes(v, depth + 1));
    return items.some((v) => v !== undefined) ? items.map((v, i) => v ?? body[i]) : undefined;
  }
  const record = body as Record<string, unknown>;
  const buffer = bufferJson(record);
  if (buffer) return bytesDigest(buffer);
  const fileBytes = typeof record.bytes === 'object' && record.bytes !== null ? (bufferJson(record.bytes as Record<string, unknown>) ?? numberedBytes(record.bytes as Record<string, unknown>)) : undefined;
  if (fileBytes && typeof record.filename === 'string') {
    const { bytes: _bytes, ...file } = record;
    return { ...file, ...bytesDigest(fileBytes) };
  }
  const entries = Object.entries(record).map(([k, v]) => [k, withoutStoredBytes(v, depth + 1)] as const);
  return entries.some(([, v]) => v !== undefined) ? Object.fromEntries(entries.map(([k, v]) => [k, v ?? record[k]])) : undefined;
}

const isByte = (v: unknown) => Number.isInteger(v) && (v as number) >= 0 && (v as number) <= 255;

/** A Buffer as its own toJSON wrote it: `{ type: 'Buffer', data: [...] }`. */
function bufferJson(value: Record<string, unknown>): Uint8Array | undefined {
  return value.type === 'Buffer' && Array.isArray(value.data) && value.data.every(isByte) ? Uint8Array.from(value.data as number[]) : undefined;
}

/** A Buffer's entries as the old redaction copied them, next to a file's name: `{ "0": 80, "1": 75, ... }`. */
function numberedBytes(value: Record<string, unknown>): Uint8Array | undefined {
  const keys = Object.keys(value);
  if (keys.length === 0 || !keys.every((k, i) => k === String(i)) || !Object.values(value).every(isByte)) return undefined;
  return Uint8Array.from(Object.values(value) as number[]);
}

/**
 * Replaces the bytes of uploaded files that versions before migration 0080 copied into entries'
 * bodies (issue 37) by their size and digest, and relinks each chain from its first changed entry
 * to its head: every later entry gets its new prevHash and hash, and `audit_relinks` keeps each
 * entry's old and new hash, so a chain exported or a head kept outside the database before the
 * purge can still be matched entry by entry (docs/audit-log.md). In the caller's transaction, each
 * chain's head locked while it is relinked. Answers how many bodies changed and entries were relinked.
 */
export async function purgeStoredBytes(tx: Tx): Promise<{ purged: number; relinked: number }> {
  let purged = 0;
  let relinked = 0;
  for (const { chain, first_seq } of await audit.chainsWithStoredBytes(tx)) {
    const head = await audit.lockChainHead(tx, chain, GENESIS_HASH);
    let prevHash: string | undefined;
    let after = Math.max(first_seq - 1, head.pruned_seq);
    for (;;) {
      const rows = await audit.chainEntries(tx, chain, after, head.seq, VERIFY_BATCH);
      for (const row of rows) {
        const entry = entryOf(row);
        const body = withoutStoredBytes(entry.body);
        if (body !== undefined) purged++;
        const fields = { ...entry, body: body ?? entry.body, prevHash: prevHash ?? entry.prevHash };
        const hash = entryHash(fields);
        if (hash !== entry.hash) {
          await audit.relinkEntry(tx, { chain, seq: entry.seq, body: fields.body === null ? null : JSON.stringify(fields.body), prevHash: fields.prevHash, hash, oldHash: entry.hash, reason: body !== undefined ? 'stored_bytes_purged' : 'relinked' });
          relinked++;
        }
        prevHash = hash;
      }
      if (rows.length < VERIFY_BATCH) break;
      after = (rows[rows.length - 1] as audit.ChainedRow).seq;
    }
    if (prevHash !== undefined && prevHash !== head.last_hash) await audit.setChainHeadHash(tx, chain, prevHash);
  }
  return { purged, relinked };
}

/** The entries of a chain up to its head as it stood when asked, in seq order, read in batches. */
async function* chainEntries(sql: Sql, chain: string, head: audit.ChainHead | undefined): AsyncGenerator<ChainedEntry> {
  if (!head) return;
  // Entries up to the head's seq are committed (the head moves in their transaction).
  let after = head.pruned_seq;
  for (;;) {
    const rows = await audit.chainEntries(sql, chain, after, head.seq, VERIFY_BATCH);
    for (const row of rows) yield entryOf(row);
    if (rows.length < VERIFY_BATCH) return;
    after = (rows[rows.length - 1] as audit.ChainedRow).seq;
  }
}

/**
 * Checks a chain from where it starts (its genesis, or where retention cut it) to its head: each
 * entry's seq follows the one before, its prevHash is that entry's hash, and its hash is the hash
 * of its content; the head is the last entry. Reports the first broken link (seq and reason).
 */
export async function verifyAuditChain(sql: Sql, workspaceId: string | undefined): Promise<ChainVerification> {
  const chain = chainFor(workspaceId);
  const head = await audit.chainHead(sql, chain);
  const start = head ? { seq: head.pruned_seq, hash: head.pruned_hash } : { seq: 0, hash: GENESIS_HASH };
  const verifier = new ChainVerifier(chain, start);
  for await (const entry of chainEntries(sql, chain, head)) {
    if (!verifier.next(entry)) break;
  }
  const headNow = { seq: head?.seq ?? 0, hash: head?.last_hash ?? GENESIS_HASH };
  const broken = verifier.end(headNow) ?? null;
  return { object: 'audit_chain.verification', chain, valid: broken === null, firstSeq: start.seq + 1, checked: verifier.checked, head: headNow, firstBroken: broken };
}

/** A chain's entries as JSON Lines: each line the fields its hash covers and the hash (docs/audit-log.md). */
export async function* exportAuditChain(sql: Sql, workspaceId: string | undefined): AsyncGenerator<string> {
  const chain = chainFor(workspaceId);
  const head = await audit.chainHead(sql, chain);
  for await (const entry of chainEntries(sql, chain, head)) yield `${JSON.stringify(entry)}\n`;
}

/** A row found by id for a move from a queue, its workspace named for the audit entry (auditWorkspace). */
export function attributed<T extends { workspace_id: string } | undefined>(row: T): T {
  if (row) auditWorkspace(row.workspace_id);
  return row;
}

/** Retention: deletes at most `limit` audit entries written before `before` (only when RETENTION_AUDIT_LOG_DAYS is set). */
export async function deleteAuditBefore(sql: Sql, before: Date, limit: number): Promise<number> {
  return audit.deleteAuditBefore(sql, before, limit);
}

/** The audit log's filters (API query and console form alike). */
export interface AuditFilters extends PageRequest {
  workspaceId?: string | undefined;
  /** Exact HTTP method (POST, PUT, DELETE...). */
  method?: string | undefined;
  /** A part of the path, case-insensitive. */
  pathContains?: string | undefined;
  statusCode?: number | undefined;
  /** `console`, `user:<id>`, or `api` (a call with the operator key itself: no actor). */
  actor?: string | undefined;
  /** From this instant (inclusive) to that one (exclusive). */
  from?: string | undefined;
  to?: string | undefined;
}

const escapeLike = (text: string): string => text.replace(/[\\%_]/g, (c) => `\\${c}`);

/** The filters that cannot be asked of the database as given: each failing one named. */
function auditFilterErrors(f: AuditFilters): FieldError[] {
  const errors: FieldError[] = [];
  if (f.workspaceId && !isUuid(f.workspaceId)) errors.push({ field: 'workspaceId', message: 'workspaceId must be a workspace id (a UUID)' });
  for (const name of ['from', 'to'] as const) {
    const value = f[name];
    if (value && !isDateTime(value)) errors.push({ field: name, message: `${name} must be a date-time such as 2025-01-31T12:00:00Z` });
  }
  if (f.statusCode !== undefined && !(Number.isInteger(f.statusCode) && f.statusCode >= 100 && f.statusCode <= 599)) {
    errors.push({ field: 'statusCode', message: 'statusCode must be an HTTP status between 100 and 599' });
  }
  return errors;
}

/** The audit log newest first, filtered (one implementation for the API and the console). */
export function listAudit(sql: Sql, f: AuditFilters) {
  const errors = auditFilterErrors(f);
  if (errors.length) throw validationError(errors);
  const query = {
    ...f,
    method: f.method?.toUpperCase(),
    pathLike: f.pathContains ? escapeLike(f.pathContains) : undefined,
    actor: f.actor === 'api' ? null : f.actor,
  };
  return audit.listAudit(sql, query, (row) => ({
    id: row.id,
    at: row.at.toISOString(),
    operatorKeyId: row.operator_key,
    method: row.method,
    path: row.path,
    statusCode: row.status_code,
    requestId: row.request_id,
    workspaceId: row.workspace_id,
    body: row.body,
    actor: row.actor,
  }));
}
