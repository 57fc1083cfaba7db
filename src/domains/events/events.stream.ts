import type pg from 'pg';
import type { AppContext } from '../../platform/context.js';
import { DomainError } from '../../platform/lib/errors.js';
import { pgClientFor } from '../../platform/db/hosts.js';
import { eventsAfter, listenForEvents, type StreamCursor, type StreamEventRow } from './events.repository.js';

/** The NOTIFY channel of 0012_events_stream.sql; the payload is the workspace id. */
export const EVENTS_CHANNEL = 'corridor_events';
const LISTEN_RETRY_MS_MAX = 30_000;
/** How soon a stream looks again when committed events wait behind an older transaction still running. */
const WITHHELD_RETRY_MS = 50;
/** The longest delay a Node timer takes; a token expiring later is checked again when it fires. */
const TIMER_MS_MAX = 2 ** 31 - 1;

/** Where one stream's events go (the SSE connection); `send` resolves once the client can take more. */
export interface StreamSink {
  send(row: StreamEventRow): Promise<void>;
  heartbeat(): void;
  /** The process is shutting down: end the connection. */
  end(): void;
  /** The credential may no longer read the stream: end the connection with this refusal. */
  fail(refusal: DomainError): void;
}

/** Whether the stream's caller may still read it: checked before each batch is written, on every announced change, and at `expiresAtMs`. */
export interface StreamAccess {
  /** The refusal the caller gets now, or undefined while it may read. */
  check(): Promise<DomainError | undefined>;
  /** When the caller's token expires (ms since the epoch). */
  expiresAtMs: number | undefined;
}

export interface StreamFilter {
  accountId?: string | undefined;
  types?: string[] | undefined;
}

interface Subscriber {
  workspaceId: string;
  cursor: StreamCursor;
  filter: StreamFilter;
  sink: StreamSink;
  access: StreamAccess;
  /** Check access before the next look even with nothing to send (a change was announced, or the token's expiry came). */
  recheck: boolean;
  expiryTimer: NodeJS.Timeout | undefined;
  pumping: boolean;
  again: boolean;
  closed: boolean;
  /** A look-again is scheduled (events were held back): at most one per stream, whatever woke it. */
  lookAgain: boolean;
}

/**
 * The live event streams of one API process. Each stream catches up by query from its cursor
 * (events.repository eventsAfter), woken by PostgreSQL NOTIFY on every committed event insert from
 * any process, and by a poll that is the only wake-up on PGlite or while the listener is down.
 * Streams per workspace are bounded (limits.eventStreamsPerWorkspaceMax; 429 past it).
 */
export class EventStreams {
  private readonly byWorkspace = new Map<string, Set<Subscriber>>();
  private pollTimer: NodeJS.Timeout | undefined;
  private heartbeatTimer: NodeJS.Timeout | undefined;
  private listener: pg.Client | undefined;
  private listenRetryTimer: NodeJS.Timeout | undefined;
  private listenFailures = 0;
  private stopped = false;

  constructor(private readonly ctx: AppContext) {}

  /** Whether NOTIFY currently wakes the streams (false on PGlite and while reconnecting). */
  get listening(): boolean {
    return this.listener !== undefined;
  }

  /** Opens a stream from `cursor`; refuses with 429 when the workspace has its maximum open. Returns its close function. */
  open(workspaceId: string, cursor: StreamCursor, filter: StreamFilter, sink: StreamSink, access: StreamAccess): () => void {
    const max = this.ctx.config.limits.eventStreamsPerWorkspaceMax;
    const set = this.byWorkspace.get(workspaceId) ?? new Set<Subscriber>();
    if (this.stopped || set.size >= max) {
      throw new DomainError({
        category: 'rate_limit',
        code: 'EVENT_STREAMS_EXCEEDED',
        message: `At most ${max} event streams may be open per workspace`,
        retryable: true,
        retryAfterSec: 5,
      });
    }
    const sub: Subscriber = {
      workspaceId,
      cursor,
      filter,
      sink,
      access,
      recheck: false,
      expiryTimer: undefined,
      pumping: false,
      again: false,
      closed: false,
      lookAgain: false,
    };
    set.add(sub);
    this.byWorkspace.set(workspaceId, set);
    this.startTimers();
    this.armExpiry(sub);
    void this.pump(sub);
    return () => this.remove(sub);
  }

  /** Ends every stream (the process is closing). */
  async close(): Promise<void> {
    this.stopped = true;
    for (const set of this.byWorkspace.values()) for (const sub of set) sub.sink.end();
    this.byWorkspace.clear();
    this.stopTimers();
    await this.stopListener();
  }

  /** The credentials of `workspaceId` (undefined: of any workspace) may have changed: its streams check theirs now. */
  credentialsChanged(workspaceId: string | undefined): void {
    const sets = workspaceId === undefined ? [...this.byWorkspace.values()] : [this.byWorkspace.get(workspaceId) ?? new Set<Subscriber>()];
    for (const set of sets) {
      for (const sub of set) {
        sub.recheck = true;
        void this.pump(sub);
      }
    }
  }

  /** At the token's expiry the stream checks its access (and ends: TOKEN_EXPIRED). */
  private armExpiry(sub: Subscriber): void {
    if (sub.access.expiresAtMs === undefined) return;
    const delayMs = Math.min(TIMER_MS_MAX, Math.max(0, sub.access.expiresAtMs - Date.now()) + 1);
    sub.expiryTimer = setTimeout(() => {
      sub.recheck = true;
      void this.pump(sub);
      if (delayMs === TIMER_MS_MAX && !sub.closed) this.armExpiry(sub);
    }, delayMs).unref();
  }

  /** Checks the stream's access; a refused stream is ended with the refusal (an SSE error event). */
  private async allowed(sub: Subscriber): Promise<boolean> {
    // Cleared before the check: a change announced while it runs asks for another.
    sub.recheck = false;
    let refusal: DomainError | undefined;
    try {
      refusal = await sub.access.check();
    } catch (err) {
      sub.recheck = true;
      throw err;
    }
    if (!refusal) return true;
    this.remove(sub);
    sub.sink.fail(refusal);
    return false;
  }

  private remove(sub: Subscriber): void {
    sub.closed = true;
    clearTimeout(sub.expiryTimer);
    const set = this.byWorkspace.get(sub.workspaceId);
    set?.delete(sub);
    if (set && set.size === 0) this.byWorkspace.delete(sub.workspaceId);
    if (this.byWorkspace.size === 0) {
      this.stopTimers();
      void this.stopListener();
    }
  }

  private wake(workspaceId?: string): void {
    const sets = workspaceId === undefined ? [...this.byWorkspace.values()] : [this.byWorkspace.get(workspaceId) ?? new Set<Subscriber>()];
    for (const set of sets) for (const sub of set) void this.pump(sub);
  }

  /** Sends everything committed after the cursor; a wake-up during a pump runs it once more. */
  private async pump(sub: Subscriber): Promise<void> {
    if (sub.pumping) {
      sub.again = true;
      return;
    }
    sub.pumping = true;
    let withheld = false;
    try {
      do {
        sub.again = false;
        for (;;) {
          if (sub.closed) return;
          const batch = this.ctx.config.limits.eventStreamBatchMax;
          const found = await eventsAfter(this.ctx.db, sub.workspaceId, sub.cursor, sub.filter, batch);
          // The credential is checked again after the batch is read and before any of it is written.
          if ((found.rows.length > 0 || sub.recheck) && !(await this.allowed(sub))) return;
          for (const row of found.rows) {
            if (sub.closed) return;
            await sub.sink.send(row);
            sub.cursor = { txId: row.txId, seq: row.seq };
          }
          withheld = found.withheld;
          if (found.rows.length < batch) break;
        }
      } while (sub.again);
    } catch (err) {
      // The database is unreachable or the client went away: the next wake-up tries again from the cursor.
      this.ctx.log.warn({ err }, 'event stream catch-up failed');
    } finally {
      sub.pumping = false;
    }
    // Committed events wait behind an older transaction still running: look again soon rather than
    // at the next poll (the notification that woke this pump will not come again).
    if (withheld && !sub.closed && !this.stopped && !sub.lookAgain) {
      sub.lookAgain = true;
      setTimeout(() => {
        sub.lookAgain = false;
        void this.pump(sub);
      }, Math.min(WITHHELD_RETRY_MS, this.ctx.config.limits.eventStreamPollMs)).unref();
    }
  }

  private startTimers(): void {
    const { eventStreamPollMs, eventStreamHeartbeatMs } = this.ctx.config.limits;
    this.pollTimer ??= setInterval(() => this.wake(), eventStreamPollMs).unref();
    this.heartbeatTimer ??= setInterval(() => {
      for (const set of this.byWorkspace.values()) for (const sub of set) sub.sink.heartbeat();
    }, eventStreamHeartbeatMs).unref();
    if (this.ctx.db.kind === 'postgres' && !this.listener && !this.listenRetryTimer) void this.startListener();
  }

  private stopTimers(): void {
    clearInterval(this.pollTimer);
    clearInterval(this.heartbeatTimer);
    clearTimeout(this.listenRetryTimer);
    this.pollTimer = this.heartbeatTimer = this.listenRetryTimer = undefined;
  }

  /** One LISTEN connection per process, reconnected with a bounded backoff; each (re)connection catches up. */
  private async startListener(): Promise<void> {
    const url = this.ctx.config.databaseUrl;
    if (!url || this.stopped) return;
    // A multi-host URL's client class picks the server that takes writes (src/platform/db/hosts.ts).
    const { Client, connectionString } = pgClientFor(url);
    const client = new Client({ connectionString, connectionTimeoutMillis: this.ctx.config.limits.dbConnectTimeoutMs });
    const lost = (err?: unknown) => {
      if (this.listener !== client) return;
      this.listener = undefined;
      if (err) this.ctx.log.warn({ err }, 'event stream listener lost; polling until it is back');
      void client.end().catch(() => undefined);
      this.scheduleListen();
    };
    client.on('error', lost);
    client.on('end', () => lost());
    client.on('notification', (msg) => {
      if (msg.channel === EVENTS_CHANNEL && msg.payload) this.wake(msg.payload);
    });
    try {
      await client.connect();
      await listenForEvents(client, EVENTS_CHANNEL);
    } catch (err) {
      client.removeAllListeners('end');
      await client.end().catch(() => undefined);
      this.ctx.log.warn({ err }, 'event stream listener could not connect; polling');
      this.scheduleListen();
      return;
    }
    if (this.stopped || this.byWorkspace.size === 0) {
      await client.end().catch(() => undefined);
      return;
    }
    this.listener = client;
    this.listenFailures = 0;
    this.wake();
  }

  private scheduleListen(): void {
    if (this.stopped || this.byWorkspace.size === 0 || this.listenRetryTimer) return;
    const delayMs = Math.min(LISTEN_RETRY_MS_MAX, 500 * 2 ** Math.min(this.listenFailures++, 6));
    this.listenRetryTimer = setTimeout(() => {
      this.listenRetryTimer = undefined;
      void this.startListener();
    }, delayMs).unref();
  }

  private async stopListener(): Promise<void> {
    const client = this.listener;
    this.listener = undefined;
    if (client) await client.end().catch(() => undefined);
  }
}
