import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { CryptoBox } from '../lib/crypto-box.js';
import type { Db, Tx } from './db.js';
import { sealedRecipients } from './migrations/0018_sealed_recipients.js';
import { payoutCatalogRail } from './migrations/0065_payout_catalog_rail.js';
import { auditChain } from './migrations/0027_audit_chain.js';
import { auditStoredBytes } from './migrations/0080_audit_stored_bytes.js';

const MIGRATIONS_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), 'migrations');

/**
 * A schema change: plain SQL (`NNNN_name.sql`), or code (`NNNN_name.ts`) for a change SQL cannot
 * make alone, such as sealing existing rows with the encryption key.
 */
export type Migration = { version: string; sql: string } | { version: string; up: (tx: Tx, box: CryptoBox) => Promise<void> };

/** The migrations written in TypeScript, listed here (each a file under migrations/). */
const CODE_MIGRATIONS: readonly Migration[] = [sealedRecipients, auditChain, payoutCatalogRail, auditStoredBytes];

export function listMigrations(dir = MIGRATIONS_DIR): Migration[] {
  const sql: Migration[] = fs
    .readdirSync(dir)
    .filter((name) => /^\d{4}_[a-z0-9_]+\.sql$/.test(name))
    .map((name) => ({ version: name.replace(/\.sql$/, ''), sql: fs.readFileSync(path.join(dir, name), 'utf8') }));
  return [...sql, ...CODE_MIGRATIONS].sort((a, b) => (a.version < b.version ? -1 : a.version > b.version ? 1 : 0));
}

/**
 * Applies every migration not yet applied, each in its own transaction, forward only (a failure
 * rolls its migration back whole, so a crash midway leaves it to run again from the start).
 * A session advisory lock makes two processes starting at once apply them one after the other.
 */
export async function migrate(db: Db, box: CryptoBox, migrations = listMigrations()): Promise<string[]> {
  return db.withAdvisoryLock('corridor.migrate', async () => {
    await db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
      version text PRIMARY KEY,
      applied_at timestamptz NOT NULL DEFAULT now()
    )`);
    const applied = new Set((await db.query<{ version: string }>('SELECT version FROM schema_migrations')).map((r) => r.version));
    const done: string[] = [];
    for (const migration of migrations) {
      if (applied.has(migration.version)) continue;
      await db.tx(async (tx) => {
        if ('sql' in migration) await tx.exec(migration.sql);
        else await migration.up(tx, box);
        await tx.query('INSERT INTO schema_migrations (version) VALUES ($1)', [migration.version]);
      });
      done.push(migration.version);
    }
    return done;
  });
}
