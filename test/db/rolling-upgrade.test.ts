import { randomBytes, randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { insertFile } from '../../src/connectors/bank/inbound/inbound.repository.js';
import { recordStatement } from '../../src/controls/reconciliation/reconciliation.port.js';
import { connect, type Db } from '../../src/platform/db/db.js';
import { listMigrations, migrate, type Migration } from '../../src/platform/db/migrate.js';
import { CryptoBox } from '../../src/platform/lib/crypto-box.js';
import { createTestApp, freshPostgresDatabase, onPostgres, type Caller, type TestApp } from '../helpers/app.js';
import { ADA, fund, payingWorkspace, ref } from '../payouts/helpers.js';

/**
 * Issue 36 (5): a rolling upgrade. The previous release is this code with its schema stopped before
 * the new migration (the migration runner applies the list it is given); the new release's migration
 * builds an index on bank_statements CONCURRENTLY (0166). While the previous release serves, a
 * transaction writing bank_statements stays open (as a long bank file being applied would), so the
 * build is held in progress; the previous release's writes, to that very table and through its API,
 * must complete meanwhile. A plain CREATE INDEX in its transaction is shown to queue the same write,
 * so the test can tell a blocking migration from one that is not. PostgreSQL only: the embedded
 * database has one connection and builds indexes plainly.
 */

const NEW = '0166_bank_statement_sequence_index';
/** How long a write may wait before the test calls it blocked: far beyond any write's time on a loaded machine, far short of "for ever". */
const BLOCKED_AFTER_MS = 60_000;

const previousRelease = (): Migration[] => listMigrations().filter((m) => m.version < NEW);
/** The release that adds NEW (migrations after it belong to later releases). */
const newRelease = (): Migration[] => listMigrations().filter((m) => m.version <= NEW);

let cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
  cleanups = [];
});

/** A database at the previous release's schema, with an app of the previous release serving on it and a workspace that can pay. */
async function previousReleaseServing(): Promise<{ url: string; key: string; box: CryptoBox; old: TestApp; c: Caller }> {
  const database = await freshPostgresDatabase();
  cleanups.push(database.drop);
  const key = randomBytes(32).toString('base64');
  const old = await createTestApp({ databaseUrl: database.url, migrations: previousRelease(), env: { CORRIDOR_ENCRYPTION_KEY: key } });
  cleanups.push(old.close);
  const applied = await old.ctx.db.query<{ version: string }>('SELECT version FROM schema_migrations ORDER BY version DESC LIMIT 1');
  expect((applied[0]?.version ?? '') < NEW).toBe(true);
  const c = await payingWorkspace(old);
  await fund(c, 'EUR', '1000.00');
  return { url: database.url, key, box: CryptoBox.load(key, 'memory://'), old, c };
}

/** A session of its own holding bank_statements as any writer does (ROW EXCLUSIVE), its transaction left open until released. */
async function openWriter(url: string): Promise<{ pid: number; release: () => Promise<void> }> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  cleanups.push(() => client.end());
  await client.query('BEGIN');
  await client.query('LOCK TABLE bank_statements IN ROW EXCLUSIVE MODE');
  const [row] = (await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows;
  return { pid: row?.pid as number, release: async () => void (await client.query('COMMIT')) };
}

/** A statement recorded by the reconciliation service, as the bank connector records one it read (its inbound file first). */
async function writeStatement(db: Db, n: number): Promise<void> {
  await db.tx(async (tx) => {
    const fileId = randomUUID();
    await insertFile(tx, { id: fileId, name: `rolling-${n}.xml`, sha256: randomBytes(32).toString('hex'), status: 'processed', reason: null, size: 1 });
    const recorded = await recordStatement(tx, { fileId, bankAccount: 'eur-main', statementId: `ROLLING-${n}-${randomUUID()}`, iban: undefined, currency: 'EUR', date: '2026-03-02', electronicSeq: BigInt(n), legalSeq: undefined, openingMinor: 0n, closingMinor: 0n, lines: [] });
    expect(recorded.duplicate).toBe(false);
  });
}

/** A payout created through the API. */
async function createPayout(c: Caller, n: number): Promise<void> {
  const res = await c.request('POST', '/v1/payouts', { clientRef: ref(`rolling${n}`), amount: '1.00', currency: 'EUR', beneficiary: ADA }, { 'idempotency-key': `rolling-${randomUUID()}` });
  expect(res.statusCode, res.body).toBe(201);
}

/** Resolves with the write's outcome; rejects, naming it, if it has not finished within BLOCKED_AFTER_MS. */
async function notBlocked<T>(what: string, write: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const blocked = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} was blocked by the migration`)), BLOCKED_AFTER_MS);
  });
  try {
    return await Promise.race([write, blocked]);
  } finally {
    clearTimeout(timer);
  }
}

async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 120_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`never: ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The phase of the index build on bank_statements, while one runs. */
async function buildPhase(db: Db): Promise<string | undefined> {
  const [row] = await db.query<{ phase: string; command: string }>("SELECT phase, command FROM pg_stat_progress_create_index WHERE relid = 'bank_statements'::regclass");
  return row ? `${row.command}: ${row.phase}` : undefined;
}

/** Sessions waiting for a lock on bank_statements, other than `except`. */
async function waitingOnStatements(db: Db, except: readonly number[]): Promise<number> {
  const [row] = await db.query<{ n: number }>(
    "SELECT count(*)::int AS n FROM pg_locks WHERE relation = 'bank_statements'::regclass AND NOT granted AND NOT (pid = ANY($1::int[]))",
    [except],
  );
  return row?.n ?? 0;
}

describe.runIf(onPostgres)('a rolling upgrade', () => {
  it('the previous release keeps writing, to the table being indexed and through its API, while the new release builds its index concurrently; then both serve side by side', async () => {
    const { url, key, box, old, c } = await previousReleaseServing();
    await writeStatement(old.ctx.db, 1);
    const writer = await openWriter(url);

    // The new release migrates: 0166 builds its index CONCURRENTLY, and waits for the open writer before its build.
    const newDb = await connect({ databaseUrl: url, dataDir: 'memory://', poolMax: 2 });
    cleanups.push(() => newDb.close());
    const migrating = migrate(newDb, box, newRelease());
    migrating.catch(() => undefined);
    const phase = await until('the index build starts', () => buildPhase(old.ctx.db));
    expect(phase).toMatch(/^CREATE INDEX CONCURRENTLY: waiting for writers before build/);

    // Meanwhile the previous release serves writes, to the table being indexed and through its API.
    for (let n = 2; n <= 6; n++) {
      await notBlocked(`statement ${n}`, writeStatement(old.ctx.db, n));
      await notBlocked(`payout ${n}`, createPayout(c, n));
    }
    // The build is still held in progress: nothing waited for it, and it is not recorded yet.
    expect(await buildPhase(old.ctx.db)).toMatch(/^CREATE INDEX CONCURRENTLY/);
    expect(await old.ctx.db.query('SELECT version FROM schema_migrations WHERE version = $1', [NEW])).toEqual([]);

    // The open writer commits: the build finishes, the migration is recorded once, its index valid.
    await writer.release();
    expect(await migrating).toEqual([NEW]);
    const [index] = await old.ctx.db.query<{ valid: boolean }>("SELECT i.indisvalid AS valid FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid WHERE c.relname = 'bank_statements_sequence'");
    expect(index).toEqual({ valid: true });

    // The new release starts beside the previous one (it applies what later releases add, if any); both write.
    const next = await createTestApp({ databaseUrl: url, env: { CORRIDOR_ENCRYPTION_KEY: key } });
    cleanups.push(next.close);
    await writeStatement(next.ctx.db, 7);
    await writeStatement(old.ctx.db, 8);
    await createPayout(c, 8);
    const statements = await old.ctx.db.query<{ seq: string }>("SELECT electronic_seq::text AS seq FROM bank_statements WHERE bank_account = 'eur-main' ORDER BY electronic_seq");
    expect(statements.map((s) => s.seq)).toEqual(['1', '2', '3', '4', '5', '6', '7', '8']);
    const [payouts] = await old.ctx.db.query<{ n: number }>('SELECT count(*)::int AS n FROM payouts WHERE workspace_id = $1', [c.workspaceId]);
    expect(payouts?.n).toBe(6);
  }, 600_000);

  it('the same index built plainly in its transaction would queue the writes behind it: the test tells the two apart', async () => {
    const { url, box, old } = await previousReleaseServing();
    const writer = await openWriter(url);
    const plain: Migration = { version: '0166_plain_index', sql: 'CREATE INDEX bank_statements_sequence_plain ON bank_statements (bank_account, statement_date, electronic_seq)' };
    const newDb = await connect({ databaseUrl: url, dataDir: 'memory://', poolMax: 2 });
    cleanups.push(() => newDb.close());
    const migrating = migrate(newDb, box, [...previousRelease(), plain]);
    migrating.catch(() => undefined);
    // The plain build waits for the open writer, holding its place in the lock queue...
    await until('the plain build waits for its lock', async () => ((await waitingOnStatements(old.ctx.db, [writer.pid])) >= 1 ? true : undefined));

    // ...so the previous release's next write to the table queues behind it.
    let written = false;
    const write = writeStatement(old.ctx.db, 1).then(() => {
      written = true;
    });
    await until('the write queues behind the plain build', async () => ((await waitingOnStatements(old.ctx.db, [writer.pid])) >= 2 ? true : undefined));
    expect(written).toBe(false);

    await writer.release();
    expect(await migrating).toEqual(['0166_plain_index']);
    await write;
    expect(written).toBe(true);
  }, 600_000);
});
