import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, type Db } from '../../src/platform/db/db.js';
import { listMigrations, migrate } from '../../src/platform/db/migrate.js';
import { CryptoBox } from '../../src/platform/lib/crypto-box.js';
import { blankDatabase, freshPostgresDatabase, onPostgres } from '../helpers/app.js';

/** A database of its own (migrated by each test as it needs). */
const openDb = () => blankDatabase(10);

const versions = listMigrations().map((m) => m.version);
const box = CryptoBox.fromKey(randomBytes(32));

describe('migrations', () => {
  let h: Awaited<ReturnType<typeof openDb>>;
  beforeAll(async () => {
    h = await openDb();
  });
  afterAll(async () => h.close());

  it('numbers each migration uniquely (the two 0008s were applied before this rule and keep their names), and lists every file of the folder', () => {
    const numbers = versions.map((v) => v.slice(0, 4));
    const repeated = numbers.filter((n, i) => numbers.indexOf(n) !== i && n !== '0008');
    expect(repeated).toEqual([]);
    expect(numbers.filter((n) => n === '0008')).toHaveLength(2);
    const files = fs.readdirSync(path.resolve(import.meta.dirname, '../../src/platform/db/migrations')).map((f) => f.replace(/\.(sql|ts)$/, ''));
    expect([...versions].sort()).toEqual(files.sort());
  });

  it('applies every migration on a new database, then nothing on the second run', async () => {
    expect(versions.length).toBeGreaterThan(0);
    expect(await migrate(h.db, box)).toEqual(versions);
    expect(await migrate(h.db, box)).toEqual([]);
  });

  it('records each applied migration once in schema_migrations', async () => {
    const rows = await h.db.query<{ version: string; applied_at: Date }>('SELECT version, applied_at FROM schema_migrations ORDER BY version');
    expect(rows.map((r) => r.version)).toEqual(versions);
    for (const row of rows) expect(row.applied_at).toBeInstanceOf(Date);
  });

  it('creates the tables the application needs', async () => {
    const rows = await h.db.query<{ table_name: string }>(
      `SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'`,
    );
    const tables = rows.map((r) => r.table_name);
    for (const t of ['workspaces', 'accounts', 'credentials', 'jobs', 'events', 'idempotency_keys', 'settings']) expect(tables).toContain(t);
  });

  it('rolls back a failing migration entirely and does not record it', async () => {
    const bad = { version: '9999_broken', sql: 'CREATE TABLE broken_migration_probe (x integer);\nSELECT 1 / 0;' };
    await expect(migrate(h.db, box, [...listMigrations(), bad])).rejects.toThrow(/division by zero/);
    const [probe] = await h.db.query<{ exists: string | null }>(`SELECT to_regclass('broken_migration_probe')::text AS exists`);
    expect(probe?.exists).toBeNull();
    const recorded = await h.db.query('SELECT 1 FROM schema_migrations WHERE version = $1', [bad.version]);
    expect(recorded).toHaveLength(0);
    // A later, fixed run applies only what is missing.
    const fixed = { version: '9999_broken', sql: 'CREATE TABLE broken_migration_probe (x integer);' };
    expect(await migrate(h.db, box, [...listMigrations(), fixed])).toEqual(['9999_broken']);
    expect(await migrate(h.db, box, [...listMigrations(), fixed])).toEqual([]);
  });
});

describe.runIf(onPostgres)('migrations on PostgreSQL, two processes at once', () => {
  it('two connect()+migrate() started together on a fresh database both succeed and apply each migration exactly once', async () => {
    const pgdb = await freshPostgresDatabase();
    const opened: Db[] = [];
    try {
      const run = async () => {
        const db = await connect({ databaseUrl: pgdb.url, dataDir: 'memory://', poolMax: 4 });
        opened.push(db);
        return migrate(db, box);
      };
      const [a, b] = await Promise.all([run(), run()]);
      // One of them applied everything, the other found nothing left to do.
      expect([...(a ?? []), ...(b ?? [])].sort()).toEqual(versions);
      expect([a?.length, b?.length].sort()).toEqual([0, versions.length].sort());
      const rows = await opened[0]!.query<{ version: string }>('SELECT version FROM schema_migrations ORDER BY version');
      expect(rows.map((r) => r.version)).toEqual(versions);
    } finally {
      await Promise.all(opened.map((db) => db.close()));
      await pgdb.drop();
    }
  });

  it('withAdvisoryLock makes two holders of the same name run one after the other', async () => {
    const h = await openDb();
    const other = await connect({ databaseUrl: h.url, dataDir: 'memory://', poolMax: 2 });
    try {
      const log: string[] = [];
      const hold = (db: Db, who: string) =>
        db.withAdvisoryLock('corridor.test.lock', async () => {
          log.push(`${who}:in`);
          await new Promise((r) => setTimeout(r, 150));
          log.push(`${who}:out`);
        });
      await Promise.all([hold(h.db, 'a'), hold(other, 'b')]);
      expect(log).toHaveLength(4);
      // Never interleaved: each "in" is followed by its own "out".
      expect(log[1]).toBe(log[0]!.replace(':in', ':out'));
      expect(log[3]).toBe(log[2]!.replace(':in', ':out'));
    } finally {
      await other.close();
      await h.close();
    }
  });
});

describe('transactions', () => {
  let h: Awaited<ReturnType<typeof openDb>>;
  beforeAll(async () => {
    h = await openDb();
    await h.db.exec('CREATE TABLE tx_probe (id text PRIMARY KEY, n integer NOT NULL DEFAULT 0)');
  });
  afterAll(async () => h.close());

  const ids = async () => (await h.db.query<{ id: string }>('SELECT id FROM tx_probe ORDER BY id')).map((r) => r.id);

  it('commits when the function returns and passes its result through', async () => {
    const result = await h.db.tx(async (tx) => {
      expect(tx.inTransaction).toBe(true);
      await tx.query('INSERT INTO tx_probe (id) VALUES ($1)', ['commit-1']);
      return 42;
    });
    expect(result).toBe(42);
    expect(await ids()).toContain('commit-1');
  });

  it('rolls back every write when the function throws, and rethrows', async () => {
    await expect(
      h.db.tx(async (tx) => {
        await tx.query('INSERT INTO tx_probe (id) VALUES ($1)', ['rollback-1']);
        await tx.query('INSERT INTO tx_probe (id) VALUES ($1)', ['rollback-2']);
        throw new Error('changed my mind');
      }),
    ).rejects.toThrow('changed my mind');
    const now = await ids();
    expect(now).not.toContain('rollback-1');
    expect(now).not.toContain('rollback-2');
  });

  it('rolls back when a statement fails (constraint violation)', async () => {
    await expect(
      h.db.tx(async (tx) => {
        await tx.query('INSERT INTO tx_probe (id) VALUES ($1)', ['dup-before']);
        await tx.query('INSERT INTO tx_probe (id) VALUES ($1)', ['commit-1']);
      }),
    ).rejects.toThrow();
    expect(await ids()).not.toContain('dup-before');
  });

  it('a savepoint that throws undoes only its own writes', async () => {
    await h.db.tx(async (tx) => {
      await tx.query('INSERT INTO tx_probe (id) VALUES ($1)', ['sp-outer-before']);
      await expect(
        tx.savepoint(async (inner) => {
          await inner.query('INSERT INTO tx_probe (id) VALUES ($1)', ['sp-inner']);
          throw new Error('inner failure');
        }),
      ).rejects.toThrow('inner failure');
      await tx.query('INSERT INTO tx_probe (id) VALUES ($1)', ['sp-outer-after']);
    });
    const now = await ids();
    expect(now).toContain('sp-outer-before');
    expect(now).toContain('sp-outer-after');
    expect(now).not.toContain('sp-inner');
  });

  it('a savepoint recovers the transaction after a failed statement', async () => {
    await h.db.tx(async (tx) => {
      await expect(tx.savepoint((inner) => inner.query('INSERT INTO tx_probe (id) VALUES ($1)', ['commit-1']))).rejects.toThrow();
      await tx.query('INSERT INTO tx_probe (id) VALUES ($1)', ['sp-after-error']);
    });
    expect(await ids()).toContain('sp-after-error');
  });

  it('nested savepoints keep their writes on success and undo only the inner one on failure', async () => {
    const result = await h.db.tx(async (tx) =>
      tx.savepoint(async (a) => {
        await a.query('INSERT INTO tx_probe (id) VALUES ($1)', ['nest-a']);
        await a
          .savepoint(async (b) => {
            await b.query('INSERT INTO tx_probe (id) VALUES ($1)', ['nest-b']);
            throw new Error('b fails');
          })
          .catch(() => undefined);
        await a.savepoint((c) => c.query('INSERT INTO tx_probe (id) VALUES ($1)', ['nest-c']));
        return 'done';
      }),
    );
    expect(result).toBe('done');
    const now = await ids();
    expect(now).toEqual(expect.arrayContaining(['nest-a', 'nest-c']));
    expect(now).not.toContain('nest-b');
  });

  it('a throwing outer transaction also undoes its released savepoints', async () => {
    await expect(
      h.db.tx(async (tx) => {
        await tx.savepoint((sp) => sp.query('INSERT INTO tx_probe (id) VALUES ($1)', ['released-then-rolled-back']));
        throw new Error('outer fails');
      }),
    ).rejects.toThrow('outer fails');
    expect(await ids()).not.toContain('released-then-rolled-back');
  });
});

describe.runIf(onPostgres)('transaction retries on PostgreSQL', () => {
  let h: Awaited<ReturnType<typeof openDb>>;
  let other: Db;
  beforeAll(async () => {
    h = await openDb();
    other = await connect({ databaseUrl: h.url, dataDir: 'memory://', poolMax: 4 });
    await h.db.exec(`CREATE TABLE retry_probe (id text PRIMARY KEY, n integer NOT NULL DEFAULT 0);
      INSERT INTO retry_probe (id) VALUES ('a'), ('b'), ('c')`);
  });
  afterAll(async () => {
    await other.close();
    await h.close();
  });

  const n = async (id: string) => (await h.db.query<{ n: number }>('SELECT n FROM retry_probe WHERE id = $1', [id]))[0]?.n;

  it('retries a serialization failure (40001) and commits the retry', async () => {
    let attempts = 0;
    await h.db.tx(async (tx) => {
      attempts++;
      await tx.query('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ');
      await tx.query(`SELECT n FROM retry_probe WHERE id = 'c'`); // takes the snapshot
      if (attempts === 1) {
        // Another session changes the row after our snapshot: our update cannot be serialized.
        await other.query(`UPDATE retry_probe SET n = n + 100 WHERE id = 'c'`);
      }
      await tx.query(`UPDATE retry_probe SET n = n + 1 WHERE id = 'c'`);
    });
    expect(attempts).toBe(2);
    expect(await n('c')).toBe(101);
  });

  it('retries the victim of a deadlock (40P01); both transactions commit', async () => {
    let bothLocked!: () => void;
    const barrier = new Promise<void>((resolve) => {
      let count = 0;
      bothLocked = () => {
        if (++count === 2) resolve();
      };
    });
    let attempts = 0;
    const cross = (first: string, second: string) =>
      h.db.tx(async (tx) => {
        attempts++;
        await tx.query('UPDATE retry_probe SET n = n + 1 WHERE id = $1', [first]);
        bothLocked();
        await barrier;
        await tx.query('UPDATE retry_probe SET n = n + 1 WHERE id = $1', [second]);
      });
    await Promise.all([cross('a', 'b'), cross('b', 'a')]);
    // The deadlock victim ran again (a retry can meet the same deadlock once more, and is retried too).
    expect(attempts).toBeGreaterThanOrEqual(3);
    expect(attempts).toBeLessThanOrEqual(6);
    expect(await n('a')).toBe(2);
    expect(await n('b')).toBe(2);
  }, 20_000);

  it('does not retry other errors', async () => {
    let attempts = 0;
    await expect(
      h.db.tx(async (tx) => {
        attempts++;
        await tx.query('SELECT 1 / 0');
      }),
    ).rejects.toThrow(/division by zero/);
    expect(attempts).toBe(1);
  });

  it('gives up after a bounded number of attempts', async () => {
    let attempts = 0;
    await expect(
      h.db.tx(async () => {
        attempts++;
        throw Object.assign(new Error('could not serialize access'), { code: '40001' });
      }),
    ).rejects.toThrow('could not serialize access');
    expect(attempts).toBeGreaterThan(1);
    expect(attempts).toBeLessThanOrEqual(10);
  });
});
