import { afterEach, describe, expect, it } from 'vitest';
import { migrate, OUTSIDE_TRANSACTION, type Migration } from '../../src/platform/db/migrate.js';
import { CryptoBox } from '../../src/platform/lib/crypto-box.js';
import { blankDatabase, onPostgres } from '../helpers/app.js';
import { randomBytes } from 'node:crypto';

const box = CryptoBox.load(randomBytes(32).toString('base64'), 'memory://');
let close: (() => Promise<void>) | undefined;
afterEach(async () => {
  await close?.();
  close = undefined;
});

const table: Migration = { version: '0001_t', sql: 'CREATE TABLE t (id int PRIMARY KEY, code text NOT NULL); INSERT INTO t VALUES (1, $$a$$), (2, $$a$$);' };
const uniqueCode = (version: string): Migration => ({
  version,
  sql: `${OUTSIDE_TRANSACTION}\n-- one code per row\nCREATE UNIQUE INDEX CONCURRENTLY IF NOT EXISTS t_code ON t (code);\n`,
  outsideTransaction: true,
});

async function indexes(db: { query: <T>(text: string) => Promise<T[]> }): Promise<{ name: string; valid: boolean }[]> {
  return db.query(`SELECT c.relname AS name, i.indisvalid AS valid FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid WHERE c.relname = 't_code'`);
}

describe('a migration that runs outside a transaction', () => {
  it('builds its index (CONCURRENTLY on PostgreSQL) and is recorded once', async () => {
    const d = await blankDatabase();
    close = d.close;
    await d.db.exec("CREATE TABLE t (id int PRIMARY KEY, code text NOT NULL); INSERT INTO t VALUES (1, 'a'), (2, 'b')");
    expect(await migrate(d.db, box, [uniqueCode('0002_code')])).toEqual(['0002_code']);
    expect(await indexes(d.db)).toEqual([{ name: 't_code', valid: true }]);
    expect(await migrate(d.db, box, [uniqueCode('0002_code')])).toEqual([]);
  });

  it('leaves no invalid index behind when the build fails, is not recorded, and runs again once the data is fixed', async () => {
    const d = await blankDatabase();
    close = d.close;
    await migrate(d.db, box, [table]);
    await expect(migrate(d.db, box, [table, uniqueCode('0002_code')])).rejects.toThrow(/duplicate|unique/i);
    // PostgreSQL keeps a failed concurrent build as an invalid index: it is dropped.
    expect(await indexes(d.db)).toEqual([]);
    expect(await d.db.query("SELECT version FROM schema_migrations WHERE version = '0002_code'")).toEqual([]);
    await d.db.exec("UPDATE t SET code = 'b' WHERE id = 2");
    expect(await migrate(d.db, box, [table, uniqueCode('0002_code')])).toEqual(['0002_code']);
    expect(await indexes(d.db)).toEqual([{ name: 't_code', valid: true }]);
  });

  it.runIf(onPostgres)('drops an invalid index an earlier crashed run left before building it again', async () => {
    const d = await blankDatabase();
    close = d.close;
    await migrate(d.db, box, [table]);
    await d.db.exec('CREATE UNIQUE INDEX CONCURRENTLY t_code ON t (code)').catch(() => undefined);
    expect(await indexes(d.db)).toEqual([{ name: 't_code', valid: false }]);
    await d.db.exec("UPDATE t SET code = 'b' WHERE id = 2");
    expect(await migrate(d.db, box, [table, uniqueCode('0002_code')])).toEqual(['0002_code']);
    expect(await indexes(d.db)).toEqual([{ name: 't_code', valid: true }]);
  });
});
