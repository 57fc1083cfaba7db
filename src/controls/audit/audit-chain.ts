import { createHash } from 'node:crypto';

/**
 * The audit log's hash chain (docs/audit-log.md says how to verify it without Corridor).
 *
 * Every entry belongs to one chain: its workspace's (the chain is named by the workspace id) or the
 * operator's (`operator`, for calls that name no workspace). Entry `seq` n of a chain carries
 * `prevHash`, the `hash` of entry n-1 (64 zeros for entry 1, the genesis), and its own
 *
 *   hash = lowercase hex of SHA-256 over the UTF-8 bytes of the canonical JSON (RFC 8785, JCS) of
 *          { actor, at, body, chain, id, method, operatorKeyId, path, prevHash, requestId, seq,
 *            statusCode, workspaceId }
 *
 * where `at` is the instant in UTC with six fractional digits (2025-01-31T09:15:00.123456Z), a
 * missing value is null, and `body` is the request body as stored (secrets redacted). Removing,
 * editing or reordering an entry breaks the link at that entry; removing the newest entries shows
 * against the chain's head (audit_chains: the last seq and hash, kept in the same transaction).
 */

export const GENESIS_HASH = '0'.repeat(64);
export const OPERATOR_CHAIN = 'operator';

/** The fields an entry's hash covers (an export line is this plus `hash`). */
export interface ChainedFields {
  chain: string;
  seq: number;
  prevHash: string;
  id: string;
  at: string;
  operatorKeyId: string | null;
  actor: string | null;
  method: string;
  path: string;
  statusCode: number;
  requestId: string;
  workspaceId: string | null;
  body: unknown;
}

export interface ChainedEntry extends ChainedFields {
  hash: string;
}

/** The chain an entry with this workspace (or none) belongs to. */
export function chainOf(workspaceId: string | null | undefined): string {
  return workspaceId ?? OPERATOR_CHAIN;
}

/** An instant as the hash covers it: UTC, microseconds (what PostgreSQL keeps); a Date has milliseconds. */
export function canonicalInstant(at: Date): string {
  return at.toISOString().replace(/Z$/, '000Z');
}

/** RFC 8785 (JCS) for the values JSON text parses to: object keys sorted by UTF-16 code units, no whitespace. */
export function canonicalJson(value: unknown): string {
  if (value === null || value === undefined || typeof value !== 'object') return JSON.stringify(value ?? null);
  if (Array.isArray(value)) return `[${value.map((v) => canonicalJson(v)).join(',')}]`;
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record)
    .filter((k) => record[k] !== undefined)
    .sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(record[k])}`).join(',')}}`;
}

export function entryHash(fields: ChainedFields): string {
  const covered: ChainedFields = {
    chain: fields.chain,
    seq: fields.seq,
    prevHash: fields.prevHash,
    id: fields.id,
    at: fields.at,
    operatorKeyId: fields.operatorKeyId,
    actor: fields.actor,
    method: fields.method,
    path: fields.path,
    statusCode: fields.statusCode,
    requestId: fields.requestId,
    workspaceId: fields.workspaceId,
    body: fields.body ?? null,
  };
  return createHash('sha256').update(canonicalJson(covered), 'utf8').digest('hex');
}

export type BreakReason = 'missing' | 'out_of_order' | 'other_chain' | 'prev_hash_mismatch' | 'hash_mismatch' | 'head_mismatch';

/** The first broken link of a chain: where, and why. */
export interface ChainBreak {
  seq: number;
  entryId: string | null;
  reason: BreakReason;
  detail: string;
}

/** Where a chain's kept entries start: after `seq` (0, or the last entry retention deleted), whose hash was `hash`. */
export interface ChainStart {
  seq: number;
  hash: string;
}

/**
 * Checks a chain's entries fed in seq order, one at a time; the first break found is kept and
 * later entries are not looked at.
 */
export class ChainVerifier {
  private expectedSeq: number;
  private expectedPrev: string;
  checked = 0;
  broken: ChainBreak | undefined;

  constructor(
    readonly chain: string,
    start: ChainStart = { seq: 0, hash: GENESIS_HASH },
  ) {
    this.expectedSeq = start.seq + 1;
    this.expectedPrev = start.hash;
  }

  /** Checks the next entry; false once the chain is broken. */
  next(entry: ChainedEntry): boolean {
    if (this.broken) return false;
    const at = (reason: BreakReason, detail: string, seq = entry.seq, entryId: string | null = entry.id) => {
      this.broken = { seq, entryId, reason, detail };
      return false;
    };
    if (entry.chain !== this.chain) return at('other_chain', `entry ${entry.id} belongs to chain ${entry.chain}`);
    if (entry.seq > this.expectedSeq) return at('missing', `entry ${this.expectedSeq} is missing (the next one kept is ${entry.seq})`, this.expectedSeq, null);
    if (entry.seq < this.expectedSeq) return at('out_of_order', `entry ${entry.seq} comes after entry ${this.expectedSeq - 1}`);
    if (entry.prevHash !== this.expectedPrev) return at('prev_hash_mismatch', `its prevHash is not the hash of entry ${entry.seq - 1}`);
    if (entryHash(entry) !== entry.hash) return at('hash_mismatch', 'its content does not match its hash (edited)');
    this.checked++;
    this.expectedSeq = entry.seq + 1;
    this.expectedPrev = entry.hash;
    return true;
  }

  /** After the last entry: the chain's head (its last seq and hash) must be the last entry checked. */
  end(head: { seq: number; hash: string }): ChainBreak | undefined {
    if (this.broken) return this.broken;
    if (head.seq >= this.expectedSeq) {
      this.broken = { seq: this.expectedSeq, entryId: null, reason: 'missing', detail: `entries ${this.expectedSeq} to ${head.seq} are missing (the head is at ${head.seq})` };
    } else if (head.seq < this.expectedSeq - 1) {
      this.broken = { seq: head.seq + 1, entryId: null, reason: 'head_mismatch', detail: `entries past the head (${head.seq}) were added outside the chain` };
    } else if (head.hash !== this.expectedPrev) {
      this.broken = { seq: head.seq, entryId: null, reason: 'head_mismatch', detail: `the head's hash is not the hash of entry ${head.seq}` };
    }
    return this.broken;
  }
}
