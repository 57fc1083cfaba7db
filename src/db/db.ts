import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';

/** Anything that runs SQL: the database itself or an open transaction. */
export interface Sql {
  query<T = Record<string, unknown>>(text: string, params?: readonly unknown[]): Promise<T[]>;
  /** Runs a script of several statements without parameters (migrations). */
  exec(script: string): Promise<void>;
}

/** An open transaction. `savepoint` runs `fn` so that a throw undoes only its own writes. */
export interface Tx extends Sql {
  readonly inTransaction: true;
  savepoint<T>(fn: (tx: Tx) => Promise<T>): Promise<T>;
}

export interface Db extends Sql {
  readonly kind: 'pglite' | 'postgres';
  /** Runs `fn` in one transaction: commit when it returns, roll back when it throws. */
  tx<T>(fn: (tx: Tx) => Promise<T>): Promise<T>;
  /** Runs `fn` holding a session-level advisory lock (used by migrations). */
  withAdvisoryLock<T>(name: string, fn: (sql: Sql) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

/** First row or undefined. */
export async function maybeOne<T>(sql: Sql, text: string, params?: readonly unknown[]): Promise<T | undefined> {
  const rows = await sql.query<T>(text, params);
  return rows[0];
}

/** Exactly one row, or an assertion failure. */
export async function one<T>(sql: Sql, text: string, params?: readonly unknown[]): Promise<T> {
  const rows = await sql.query<T>(text, params);
  if (rows.length !== 1) throw new Error(`expected one row, got ${rows.length}`);
  return rows[0] as T;
}

/** A 64-bit advisory lock key derived from a name (signed, as PostgreSQL's bigint). */
export function advisoryKey(name: string): string {
  return createHash('sha256').update(name).digest().readBigInt64BE(0).toString();
}

const RETRYABLE_SQLSTATES = new Set(['40001', '40P01']); // serialization failure, deadlock
const TX_ATTEMPTS_MAX = 5;

function makeTx(
  run: (text: string, params?: readonly unknown[]) => Promise<unknown[]>,
  exec: (script: string) => Promise<void>,
): Tx {
  let depth = 0;
  const tx: Tx = {
    inTransaction: true,
    exec,
    query: async <T>(text: string, params?: readonly unknown[]) => (await run(text, params)) as T[],
    async savepoint<T>(fn: (t: Tx) => Promise<T>): Promise<T> {
      const name = `sp_${++depth}`;
      await run(`SAVEPOINT ${name}`);
      try {
        const result = await fn(tx);
        await run(`RELEASE SAVEPOINT ${name}`);
        return result;
      } catch (err) {
        await run(`ROLLBACK TO SAVEPOINT ${name}`);
        throw err;
      } finally {
        depth--;
      }
    },
  };
  return tx;
}

class PostgresDb implements Db {
  readonly kind = 'postgres' as const;
  constructor(private readonly pool: pg.Pool) {}

  async query<T>(text: string, params?: readonly unknown[]): Promise<T[]> {
    const result = await this.pool.query(text, params as unknown[]);
    return result.rows as T[];
  }

  async tx<T>(fn: (tx: Tx) => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      const client = await this.pool.connect();
      let released = false;
      try {
        await client.query('BEGIN');
        const result = await fn(
          makeTx(
            async (text, params) => (await client.query(text, params as unknown[])).rows,
            async (script) => {
              await client.query(script);
            },
          ),
        );
        await client.query('COMMIT');
        return result;
      } catch (err) {
        try {
          await client.query('ROLLBACK');
        } catch {
          client.release(true);
          released = true;
        }
        const code = (err as { code?: string }).code;
        if (code && RETRYABLE_SQLSTATES.has(code) && attempt < TX_ATTEMPTS_MAX) continue;
        throw err;
      } finally {
        if (!released) client.release();
      }
    }
  }

  async withAdvisoryLock<T>(name: string, fn: (sql: Sql) => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    const key = advisoryKey(name);
    try {
      await client.query('SELECT pg_advisory_lock($1::bigint)', [key]);
      try {
        return await fn({
          query: async <R>(text: string, params?: readonly unknown[]) => (await client.query(text, params as unknown[])).rows as R[],
          exec: async (script: string) => {
            await client.query(script);
          },
        });
      } finally {
        await client.query('SELECT pg_advisory_unlock($1::bigint)', [key]);
      }
    } finally {
      client.release();
    }
  }

  async exec(script: string): Promise<void> {
    await this.pool.query(script);
  }

  async close(): Promise<void> {
    await this.pool.end();
  }
}

class PgliteDb implements Db {
  readonly kind = 'pglite' as const;
  constructor(private readonly pglite: PGlite) {}

  async query<T>(text: string, params?: readonly unknown[]): Promise<T[]> {
    const result = await this.pglite.query<T>(text, params as unknown[]);
    return result.rows;
  }

  async tx<T>(fn: (tx: Tx) => Promise<T>): Promise<T> {
    // PGlite is one connection: its transactions are exclusive, so they never conflict.
    return this.pglite.transaction(async (t) =>
      fn(
        makeTx(
          async (text, params) => (await t.query(text, params as unknown[])).rows,
          async (script) => {
            await t.exec(script);
          },
        ),
      ),
    );
  }

  async withAdvisoryLock<T>(_name: string, fn: (sql: Sql) => Promise<T>): Promise<T> {
    // The embedded database belongs to this one process; an exclusive transaction is the lock.
    return fn(this);
  }

  async exec(script: string): Promise<void> {
    await this.pglite.exec(script);
  }

  async close(): Promise<void> {
    await this.pglite.close();
  }
}

export interface ConnectOptions {
  databaseUrl?: string | undefined;
  /** Directory of the embedded database; `memory://` keeps it in memory. */
  dataDir: string;
  poolMax?: number;
}

export async function connect(options: ConnectOptions): Promise<Db> {
  if (options.databaseUrl) {
    const pool = new pg.Pool({ connectionString: options.databaseUrl, max: options.poolMax ?? 20 });
    pool.on('error', () => {
      // An idle client lost its connection; the pool replaces it. Queries report their own errors.
    });
    return new PostgresDb(pool);
  }
  if (options.dataDir === 'memory://') return new PgliteDb(await PGlite.create());
  const pgdata = path.join(options.dataDir, 'pgdata');
  fs.mkdirSync(pgdata, { recursive: true });
  return new PgliteDb(await PGlite.create(pgdata));
}
