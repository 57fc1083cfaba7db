import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import { currentCommitParticipant, workThenCommit } from './commit-scope.js';
import { lockDataDir, type DataDirLock } from './data-dir-lock.js';
import { pgClientFor } from './hosts.js';
import { metrics } from '../observability/metrics.js';

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
  /**
   * Runs `fn` in one transaction: commit when it returns, roll back when it throws. A commit
   * participant current in the caller's context (src/platform/db/commit-scope.ts) writes its row just before
   * the COMMIT.
   */
  tx<T>(fn: (tx: Tx) => Promise<T>): Promise<T>;
  /** Runs `fn` holding a session-level advisory lock (used by migrations). */
  withAdvisoryLock<T>(name: string, fn: (sql: Sql) => Promise<T>): Promise<T>;
  /**
   * LISTENs on `channel`: `onMessage` gets each notification's payload once the notifying
   * transaction commits. On PostgreSQL a connection of its own listens; when it is lost,
   * `onListening(false)` is called and it listens again (`onListening(true)`) as soon as it can.
   * Resolves once listening, with `heardAll` and `stop`.
   */
  listen(channel: string, handlers: ListenHandlers): Promise<Listening>;
  /** The PostgreSQL pool's connections now (none for the embedded database: one connection, in process). */
  poolStats(): { total: number; idle: number; waiting: number } | undefined;
  close(): Promise<void>;
}

export interface Listening {
  /**
   * Resolves once every notification committed before the call has reached `onMessage` (one
   * round trip on the listening connection, shared by the calls that wait for the same one);
   * rejects when that connection is lost.
   */
  heardAll: () => Promise<void>;
  stop: () => Promise<void>;
}

export interface ListenHandlers {
  onMessage: (payload: string) => void;
  onListening: (listening: boolean) => void;
}

/** Waits between attempts to listen again after the listening connection is lost: doubling, bounded. */
const RELISTEN_DELAY_MS_MIN = 50;
const RELISTEN_DELAY_MS_MAX = 5_000;

/** How the connection that LISTENs shows in pg_stat_activity. */
export const LISTENER_APPLICATION_NAME = 'corridor-listen';

/** A channel name as an SQL identifier (LISTEN takes no parameter). */
function channelIdentifier(channel: string): string {
  if (!/^[a-z_][a-z0-9_]*$/.test(channel)) throw new Error(`invalid channel name ${channel}`);
  return channel;
}

/** First row or undefined. */
/** Whether the database answers: a trivial round trip that throws when it does not. */
export async function ping(sql: Sql): Promise<void> {
  await sql.query('SELECT 1');
}

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

/** Socket errors of a connection to the server that is refused, lost or unreachable. */
const CONNECTION_ERRNOS = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'ECONNABORTED']);
/** SQLSTATEs of a server that is shutting down, starting up or out of connections (class 08 is matched apart). */
const UNAVAILABLE_SQLSTATES = new Set(['57P01', '57P02', '57P03', '53300']);
/** What node-postgres throws, without a code, when a connection ends or cannot be had in time. */
const CONNECTION_MESSAGES = /^(Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Client was closed and is not queryable)/;
const CAUSES_FOLLOWED_MAX = 3;

/**
 * Whether an error means the database cannot be reached now (refused, lost, shutting down,
 * starting up, connection class 08, no pooled connection in time), as opposed to a statement that
 * failed. Such a request may succeed when retried later: it is answered 503 with Retry-After.
 */
export function isConnectionError(err: unknown, depth = 0): boolean {
  if (typeof err !== 'object' || err === null || depth > CAUSES_FOLLOWED_MAX) return false;
  const e = err as { code?: unknown; message?: unknown; errors?: unknown; cause?: unknown };
  if (typeof e.code === 'string' && (CONNECTION_ERRNOS.has(e.code) || UNAVAILABLE_SQLSTATES.has(e.code) || /^08[0-9A-Z]{3}$/.test(e.code))) return true;
  if (typeof e.message === 'string' && CONNECTION_MESSAGES.test(e.message)) return true;
  // Connecting to a name with several addresses fails with an AggregateError of each attempt.
  if (Array.isArray(e.errors) && e.errors.length > 0 && e.errors.every((inner) => isConnectionError(inner, depth + 1))) return true;
  return e.cause !== undefined && isConnectionError(e.cause, depth + 1);
}
const TX_ATTEMPTS_MAX = 5;
/** Waits between attempts to get a connection while the database cannot be reached (a failover): doubling, bounded. */
const RECONNECT_DELAY_MS_MIN = 50;
const RECONNECT_DELAY_MS_MAX = 1_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

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
  /** The handlers of each channel this process LISTENs on. */
  private readonly channels = new Map<string, Set<ListenHandlers>>();
  /** The channels each pooled connection LISTENs on. */
  private readonly heardBy = new WeakMap<pg.PoolClient, Set<string>>();
  /** Pooled connections given an 'error' listener of their own. */
  private readonly guarded = new WeakSet<pg.PoolClient>();
  /**
   * `retryMs`: how long getting a connection is retried, with backoff, while the database cannot be
   * reached (restarting, failing over to a standby) before the error is thrown (an API request is
   * then answered 503 with Retry-After; a job is retried by the runner).
   */
  constructor(
    private readonly pool: pg.Pool,
    private readonly Client: typeof pg.Client,
    private readonly retryMs: number,
  ) {}

  private async pooled(): Promise<pg.PoolClient> {
    const deadline = Date.now() + this.retryMs;
    for (let delayMs = RECONNECT_DELAY_MS_MIN; ; delayMs = Math.min(delayMs * 2, RECONNECT_DELAY_MS_MAX)) {
      try {
        return await this.pool.connect();
      } catch (err) {
        if (!isConnectionError(err) || Date.now() + delayMs > deadline) throw err;
        await sleep(delayMs);
      }
    }
  }

  /**
   * A pooled connection that LISTENs on every channel of this process, so that a change this
   * process commits is heard (on the committing connection itself, before its COMMIT returns)
   * before anything else runs here.
   */
  private async connection(): Promise<pg.PoolClient> {
    const client = await this.pooled();
    if (!this.guarded.has(client)) {
      // A connection lost while checked out (the server stopped) is emitted as an 'error' event, which
      // without a listener would be an uncaught exception ending the process: the query in flight
      // fails instead, and the client is discarded on release.
      this.guarded.add(client);
      client.on('error', () => undefined);
    }
    if (this.channels.size === 0) return client;
    let heard = this.heardBy.get(client);
    if (!heard) {
      this.heardBy.set(client, (heard = new Set()));
      client.on('notification', (n) => this.dispatch(n));
    }
    try {
      for (const channel of this.channels.keys()) {
        if (heard.has(channel)) continue;
        await client.query(`LISTEN ${channel}`);
        heard.add(channel);
      }
    } catch (err) {
      client.release(true);
      throw err;
    }
    return client;
  }

  private dispatch(n: pg.Notification): void {
    for (const handlers of this.channels.get(n.channel) ?? []) handlers.onMessage(n.payload ?? '');
  }

  async query<T>(text: string, params?: readonly unknown[]): Promise<T[]> {
    const client = await this.connection();
    try {
      const result = await client.query(text, params as unknown[]);
      client.release();
      return result.rows as T[];
    } catch (err) {
      // An SQL error leaves the connection usable; anything else (a lost connection) does not.
      client.release((err as { code?: string }).code === undefined);
      throw err;
    }
  }

  /**
   * A pooled client, listened to while it is checked out: a connection lost between two queries
   * (the server stopped) is emitted as an 'error' event, which without a listener would be an
   * uncaught exception and end the process. The next query on it fails instead, and it is
   * discarded on release.
   */
  private async checkout(): Promise<{ client: pg.PoolClient; release: (destroy?: boolean) => void }> {
    const client = await this.connection();
    const onError = (): void => undefined;
    client.on('error', onError);
    return {
      client,
      release: (destroy = false) => {
        client.off('error', onError);
        client.release(destroy);
      },
    };
  }

  async tx<T>(fn: (tx: Tx) => Promise<T>): Promise<T> {
    const participant = currentCommitParticipant<Tx>();
    for (let attempt = 1; ; attempt++) {
      const { client, release } = await this.checkout();
      let released = false;
      const timer = metrics.dbTransactionDuration.startTimer();
      let outcome = 'rollback';
      let commitSent = false;
      try {
        await client.query('BEGIN');
        const tx = makeTx(
          async (text, params) => (await client.query(text, params as unknown[])).rows,
          async (script) => {
            await client.query(script);
          },
        );
        const { result, joined } = await workThenCommit(tx, fn, participant);
        commitSent = true;
        await client.query('COMMIT');
        outcome = 'commit';
        if (joined) participant?.committed();
        return result;
      } catch (err) {
        try {
          await client.query('ROLLBACK');
        } catch {
          release(true);
          released = true;
        }
        const code = (err as { code?: string }).code;
        if (code && RETRYABLE_SQLSTATES.has(code) && attempt < TX_ATTEMPTS_MAX) continue;
        // The connection was lost before COMMIT was sent (a failover): the server rolled the
        // transaction back, so it runs again on a new connection, as after a serialization failure.
        // Lost during COMMIT, its outcome is unknown: the error goes to the caller (answered 503; a
        // keyed request retried replays the answer if it did commit).
        if (!commitSent && isConnectionError(err) && attempt < TX_ATTEMPTS_MAX) {
          if (!released) release(true);
          released = true;
          await sleep(RECONNECT_DELAY_MS_MIN * 2 ** attempt);
          continue;
        }
        throw err;
      } finally {
        timer({ outcome });
        if (!released) release();
      }
    }
  }

  async withAdvisoryLock<T>(name: string, fn: (sql: Sql) => Promise<T>): Promise<T> {
    const { client, release } = await this.checkout();
    const key = advisoryKey(name);
    try {
      // Waits by trying, not by blocking in pg_advisory_lock: a blocked call holds a snapshot while it
      // waits, and CREATE INDEX CONCURRENTLY run by the holder (a migration outside a transaction)
      // waits for every snapshot, so the two deadlocked (two processes migrating at once).
      for (let delayMs = 20; ; delayMs = Math.min(delayMs * 2, 500)) {
        const [row] = (await client.query<{ locked: boolean }>('SELECT pg_try_advisory_lock($1::bigint) AS locked', [key])).rows;
        if (row?.locked) break;
        await new Promise((resolve) => setTimeout(resolve, delayMs));
      }
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
      release();
    }
  }

  async exec(script: string): Promise<void> {
    await this.query(script);
  }

  async listen(channel: string, handlers: ListenHandlers): Promise<Listening> {
    const statement = `LISTEN ${channelIdentifier(channel)}`;
    const forChannel = this.channels.get(channel) ?? new Set();
    this.channels.set(channel, forChannel.add(handlers));
    let stopped = false;
    let client: pg.Client | undefined;
    let retry: NodeJS.Timeout | undefined;
    let delayMs = RELISTEN_DELAY_MS_MIN;
    const connect = async (): Promise<void> => {
      const c = new this.Client({ ...this.pool.options, application_name: LISTENER_APPLICATION_NAME });
      // Changes committed by other processes (this process's own are heard on the committing connection too).
      c.on('notification', (n) => handlers.onMessage(n.payload ?? ''));
      let lost = false;
      const onLost = () => {
        if (lost) return;
        lost = true;
        if (client === c) client = undefined;
        handlers.onListening(false);
        void c.end().catch(() => undefined);
        if (!stopped) retry = setTimeout(() => void relisten(), delayMs);
        delayMs = Math.min(delayMs * 2, RELISTEN_DELAY_MS_MAX);
      };
      c.on('error', onLost);
      c.on('end', onLost);
      try {
        await c.connect();
        await c.query(statement);
      } catch (err) {
        onLost();
        throw err;
      }
      client = c;
      delayMs = RELISTEN_DELAY_MS_MIN;
      handlers.onListening(true);
    };
    const relisten = async () => {
      if (stopped) return;
      await connect().catch(() => undefined); // a failure schedules the next attempt
    };
    await relisten();
    // A query on the listening connection is answered after the notifications committed before it
    // was sent: callers that arrive while one is out wait for the next one.
    let sent: Promise<void> | undefined;
    let next: Promise<void> | undefined;
    const heardAll = (): Promise<void> => {
      if (next) return next;
      if (!sent) {
        if (!client) return Promise.reject(new Error('not listening'));
        sent = client
          .query('SELECT 1')
          .then(() => undefined)
          .finally(() => (sent = undefined));
        return sent;
      }
      next = sent
        .catch(() => undefined)
        .then(() => {
          next = undefined;
          return heardAll();
        });
      return next;
    };
    return {
      heardAll,
      stop: async () => {
        stopped = true;
        forChannel.delete(handlers);
        if (retry) clearTimeout(retry);
        await client?.end().catch(() => undefined);
      },
    };
  }

  poolStats() {
    return { total: this.pool.totalCount, idle: this.pool.idleCount, waiting: this.pool.waitingCount };
  }

  async close(): Promise<void> {
    await this.pool.end();
  }
}

/** The embedded database (PGlite): one connection, so its transactions run one at a time. */
export class PgliteDb implements Db {
  readonly kind = 'pglite' as const;
  /** `lock`: the data directory's, released at close (none in memory). */
  constructor(
    private readonly pglite: PGlite,
    private readonly lock?: DataDirLock,
  ) {}

  async query<T>(text: string, params?: readonly unknown[]): Promise<T[]> {
    const result = await this.pglite.query<T>(text, params as unknown[]);
    return result.rows;
  }

  async tx<T>(fn: (tx: Tx) => Promise<T>): Promise<T> {
    // PGlite is one connection: its transactions are exclusive, so they never conflict.
    const participant = currentCommitParticipant<Tx>();
    const { result, joined } = await this.pglite.transaction(async (t) =>
      workThenCommit(
        makeTx(
          async (text, params) => (await t.query(text, params as unknown[])).rows,
          async (script) => {
            await t.exec(script);
          },
        ),
        fn,
        participant,
      ),
    );
    if (joined) participant?.committed();
    return result;
  }

  async withAdvisoryLock<T>(_name: string, fn: (sql: Sql) => Promise<T>): Promise<T> {
    // The embedded database belongs to this one process; an exclusive transaction is the lock.
    return fn(this);
  }

  async exec(script: string): Promise<void> {
    await this.pglite.exec(script);
  }

  async listen(channel: string, handlers: ListenHandlers): Promise<Listening> {
    // One connection in this process: notifications arrive as the notifying transaction commits.
    const unlisten = await this.pglite.listen(channelIdentifier(channel), handlers.onMessage);
    handlers.onListening(true);
    return {
      heardAll: async () => undefined,
      stop: async () => {
        if (!this.pglite.closed) await unlisten();
      },
    };
  }

  poolStats(): undefined {
    return undefined;
  }

  async close(): Promise<void> {
    try {
      await this.pglite.close();
    } finally {
      this.lock?.release();
    }
  }
}

export interface ConnectOptions {
  databaseUrl?: string | undefined;
  /** Directory of the embedded database; `memory://` keeps it in memory. */
  dataDir: string;
  poolMax?: number;
  /** How long a request waits for a pooled PostgreSQL connection before it fails (then answered 503). */
  connectTimeoutMs?: number;
  /**
   * The starting contents of an in-memory embedded database (a PGlite `dumpDataDir`): the tests
   * start each app from one migrated copy instead of running initdb again.
   */
  memoryTemplate?: Blob;
}

export async function connect(options: ConnectOptions): Promise<Db> {
  if (options.databaseUrl) {
    // A multi-host URL (postgres://h1:5432,h2:5432/db?target_session_attrs=read-write) gets a client
    // class that chooses the server (src/platform/db/hosts.ts).
    const { Client, connectionString } = pgClientFor(options.databaseUrl);
    const connectTimeoutMs = options.connectTimeoutMs ?? 5000;
    const pool = new pg.Pool({ Client, connectionString, max: options.poolMax ?? 20, connectionTimeoutMillis: connectTimeoutMs });
    pool.on('error', () => {
      // An idle client lost its connection; the pool replaces it. Queries report their own errors.
    });
    return new PostgresDb(pool, Client, connectTimeoutMs);
  }
  if (options.dataDir === 'memory://') return new PgliteDb(await PGlite.create(options.memoryTemplate ? { loadDataDir: options.memoryTemplate } : {}));
  return openEmbedded(options.dataDir);
}

/** The embedded database of a data directory, which this process holds alone (src/platform/db/data-dir-lock.ts). */
async function openEmbedded(dataDir: string): Promise<Db> {
  const lock = lockDataDir(dataDir);
  try {
    const pgdata = path.join(dataDir, 'pgdata');
    fs.mkdirSync(pgdata, { recursive: true });
    return new PgliteDb(await PGlite.create(pgdata), lock);
  } catch (err) {
    lock.release();
    throw err;
  }
}
