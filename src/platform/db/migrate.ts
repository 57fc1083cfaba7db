import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { CryptoBox } from '../lib/crypto-box.js';
import type { Db, Sql, Tx } from './db.js';
import { sealedRecipients } from './migrations/0018_sealed_recipients.js';
import { payoutCatalogRail } from './migrations/0065_payout_catalog_rail.js';
import { auditChain } from './migrations/0027_audit_chain.js';
import { auditStoredBytes } from './migrations/0080_audit_stored_bytes.js';

const MIGRATIONS_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), 'migrations');

/**
 * A schema change: plain SQL (`NNNN_name.sql`), or code (`NNNN_name.ts`) for a change SQL cannot
 * make alone, such as sealing existing rows with the encryption key.
 */
export type Migration = { version: string; sql: string; outsideTransaction?: boolean } | { version: string; up: (tx: Tx, box: CryptoBox) => Promise<void> };

/**
 * The first line of a migration that runs outside a transaction, statement by statement, so that
 * `CREATE INDEX CONCURRENTLY` can build an index without blocking writes. Each statement must be
 * safe to run again (`IF NOT EXISTS`): a crash midway leaves the migration unrecorded, to run again
 * from its first statement at the next start.
 */
export const OUTSIDE_TRANSACTION = '-- corridor:outside-transaction';

/** The migrations written in TypeScript, listed here (each a file under migrations/). */
const CODE_MIGRATIONS: readonly Migration[] = [sealedRecipients, auditChain, payoutCatalogRail, auditStoredBytes];

export function listMigrations(dir = MIGRATIONS_DIR): Migration[] {
  const sql: Migration[] = fs
    .readdirSync(dir)
    .filter((name) => /^\d{4}_[a-z0-9_]+\.sql$/.test(name))
    .map((name) => {
      const text = fs.readFileSync(path.join(dir, name), 'utf8');
      return { version: name.replace(/\.sql$/, ''), sql: text, outsideTransaction: text.startsWith(OUTSIDE_TRANSACTION) };
    });
  return [...sql, ...CODE_MIGRATIONS].sort((a, b) => (a.version < b.version ? -1 : a.version > b.version ? 1 : 0));
}

/**
 * Applies every migration not yet applied, each in its own transaction, forward only (a failure
 * rolls its migration back whole, so a crash midway leaves it to run again from the start).
 * A session advisory lock makes two processes starting at once apply them one after the other.
 */
export async function migrate(db: Db, box: CryptoBox, migrations = listMigrations()): Promise<string[]> {
  return db.withAdvisoryLock('corridor.migrate', async (sql) => {
    await db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
      version text PRIMARY KEY,
      applied_at timestamptz NOT NULL DEFAULT now()
    )`);
    const applied = new Set((await db.query<{ version: string }>('SELECT version FROM schema_migrations')).map((r) => r.version));
    const done: string[] = [];
    for (const migration of migrations) {
      if (applied.has(migration.version)) continue;
      if ('sql' in migration && migration.outsideTransaction) {
        await runOutsideTransaction(db, sql, migration.sql);
        await sql.query('INSERT INTO schema_migrations (version) VALUES ($1)', [migration.version]);
        done.push(migration.version);
        continue;
      }
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

/** The indexes a script builds concurrently, by name. */
const concurrentIndexes = (script: string): string[] =>
  [...script.matchAll(/CREATE\s+(?:UNIQUE\s+)?INDEX\s+CONCURRENTLY\s+(?:IF\s+NOT\s+EXISTS\s+)?("?[A-Za-z_][A-Za-z0-9_]*"?)/gi)].map((m) => m[1] as string);

/**
 * Drops what a failed `CREATE INDEX CONCURRENTLY` leaves behind: an index of that name marked invalid
 * (PostgreSQL keeps it, and it would be written by every insert while `IF NOT EXISTS` skipped it).
 */
async function dropInvalidIndexes(sql: Sql, names: readonly string[]): Promise<void> {
  for (const name of names) {
    const [invalid] = await sql.query<{ name: string }>(
      `SELECT c.relname AS name FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
        WHERE c.relname = $1 AND c.relnamespace = current_schema()::regnamespace AND NOT i.indisvalid`,
      [name.replaceAll('"', '')],
    );
    if (invalid) await sql.exec(`DROP INDEX CONCURRENTLY IF EXISTS ${name}`);
  }
}

/**
 * A migration marked OUTSIDE_TRANSACTION: its statements one by one on the migrating connection. An
 * index a failed earlier run left invalid is dropped first, and one this run leaves invalid is
 * dropped before the error is thrown. The embedded database has one connection and no concurrent
 * writer, so there the indexes are built plainly (CONCURRENTLY left out).
 */
async function runOutsideTransaction(db: Db, sql: Sql, script: string): Promise<void> {
  const statements = script
    .split(/;\s*(?:\n|$)/)
    .map((s) => s.replace(/^(\s*--[^\n]*\n)+/g, '').trim())
    .filter((s) => s.length > 0 && !/^--/.test(s));
  const indexes = db.kind === 'postgres' ? concurrentIndexes(script) : [];
  await dropInvalidIndexes(sql, indexes);
  try {
    for (const statement of statements) await sql.exec(db.kind === 'postgres' ? statement : statement.replace(/\b(INDEX)\s+CONCURRENTLY\b/gi, '$1'));
  } catch (err) {
    await dropInvalidIndexes(sql, indexes).catch(() => undefined);
    throw err;
  }
}
