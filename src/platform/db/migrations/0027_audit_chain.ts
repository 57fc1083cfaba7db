import type { CryptoBox } from '../../lib/crypto-box.js';
import type { Tx } from '../db.js';
import { chainOf, entryHash, GENESIS_HASH, type ChainedFields } from '../../../controls/audit/audit-chain.js';

/**
 * The audit log becomes a set of hash chains (src/controls/audit/audit-chain.ts; one per
 * workspace, one for the operator). Entries written before this migration are chained here, in the
 * order they were written (at, then id), each into the chain of its workspace, so the whole history
 * verifies from its genesis: SQL alone cannot compute the canonical hash, hence code. A crash
 * midway rolls the migration back whole; the next start runs it again.
 *
 * `audit_chains` holds each chain's head (the last seq and hash), locked FOR UPDATE by each append
 * in the appending transaction, so a chain's entries are appended one at a time and deleting its
 * newest entries shows. `pruned_seq` and `pruned_hash` say where retention cut the chain's start.
 */

const BATCH = 1000;

const ADD = `
CREATE TABLE audit_chains (
  chain       text PRIMARY KEY,
  seq         bigint NOT NULL,
  last_hash   text NOT NULL,
  pruned_seq  bigint NOT NULL DEFAULT 0,
  pruned_hash text NOT NULL
);
ALTER TABLE operator_audit_log ADD COLUMN chain text, ADD COLUMN seq bigint, ADD COLUMN prev_hash text, ADD COLUMN hash text;`;

const FINISH = `
ALTER TABLE operator_audit_log
  ALTER COLUMN chain SET NOT NULL, ALTER COLUMN seq SET NOT NULL,
  ALTER COLUMN prev_hash SET NOT NULL, ALTER COLUMN hash SET NOT NULL,
  ADD CONSTRAINT operator_audit_log_chain_seq UNIQUE (chain, seq);`;

/** The instant as the hash covers it (UTC, six fractional digits): the same expression the repository reads with. */
export const CANONICAL_AT_SQL = `to_char(at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;

interface OldRow {
  id: string;
  at: string;
  at_key: string;
  operator_key: string | null;
  actor: string | null;
  method: string;
  path: string;
  status_code: number;
  request_id: string;
  workspace_id: string | null;
  body: unknown;
}

export const auditChain = {
  version: '0027_audit_chain',
  async up(tx: Tx, _box: CryptoBox): Promise<void> {
    await tx.exec(ADD);
    const heads = new Map<string, { seq: number; hash: string }>();
    let after: { at: string; id: string } | undefined;
    for (;;) {
      const rows = await tx.query<OldRow>(
        `SELECT id::text AS id, ${CANONICAL_AT_SQL} AS at, at::text AS at_key, operator_key::text AS operator_key, actor, method, path,
                status_code, request_id, workspace_id::text AS workspace_id, body
           FROM operator_audit_log
          ${after ? 'WHERE (at, id) > ($1::timestamptz, $2::uuid)' : ''}
          ORDER BY at, id LIMIT ${BATCH}`,
        after ? [after.at, after.id] : [],
      );
      const updates = rows.map((r) => {
        const chain = chainOf(r.workspace_id);
        const prev = heads.get(chain) ?? { seq: 0, hash: GENESIS_HASH };
        const fields: ChainedFields = {
          chain,
          seq: prev.seq + 1,
          prevHash: prev.hash,
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
        };
        const hash = entryHash(fields);
        heads.set(chain, { seq: fields.seq, hash });
        return { ...fields, hash };
      });
      if (updates.length) {
        await tx.query(
          `UPDATE operator_audit_log l SET chain = u.chain, seq = u.seq, prev_hash = u.prev_hash, hash = u.hash
             FROM unnest($1::uuid[], $2::text[], $3::bigint[], $4::text[], $5::text[]) AS u(id, chain, seq, prev_hash, hash)
            WHERE l.id = u.id`,
          [updates.map((u) => u.id), updates.map((u) => u.chain), updates.map((u) => u.seq), updates.map((u) => u.prevHash), updates.map((u) => u.hash)],
        );
      }
      if (rows.length < BATCH) break;
      const last = rows[rows.length - 1] as OldRow;
      after = { at: last.at_key, id: last.id };
    }
    if (heads.size) {
      const list = [...heads];
      await tx.query(
        `INSERT INTO audit_chains (chain, seq, last_hash, pruned_hash) SELECT h.chain, h.seq, h.hash, $4 FROM unnest($1::text[], $2::bigint[], $3::text[]) AS h(chain, seq, hash)`,
        [list.map(([c]) => c), list.map(([, h]) => h.seq), list.map(([, h]) => h.hash), GENESIS_HASH],
      );
    }
    await tx.exec(FINISH);
  },
};
