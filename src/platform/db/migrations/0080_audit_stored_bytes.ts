import type { CryptoBox } from '../../lib/crypto-box.js';
import type { Tx } from '../db.js';
import { purgeStoredBytes } from '../../../controls/audit/audit.service.js';

/**
 * Versions before this one copied the bytes of files uploaded from the pages (payroll CSVs with
 * every employee's IBAN, passport images) into the audit log's bodies. This migration replaces
 * them by their size and digest, as the log keeps a file now, and relinks each chain touched from
 * its first changed entry (src/controls/audit/audit.service.ts, `purgeStoredBytes`);
 * `audit_relinks` keeps every relinked entry's old and new hash, so a chain exported before, or a
 * head kept outside the database, is still matched entry by entry (docs/audit-log.md). Code, not
 * SQL: the canonical hash is computed in TypeScript. A crash midway rolls it back whole.
 */
export const auditStoredBytes = {
  version: '0080_audit_stored_bytes',
  async up(tx: Tx, _box: CryptoBox): Promise<void> {
    await tx.exec(`CREATE TABLE audit_relinks (
      chain       text NOT NULL,
      seq         bigint NOT NULL,
      old_hash    text NOT NULL,
      new_hash    text NOT NULL,
      reason      text NOT NULL,
      relinked_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (chain, seq, relinked_at)
    )`);
    await purgeStoredBytes(tx);
  },
};
