import type { FastifyBaseLogger } from 'fastify';
import { observeAttempt } from '../../platform/observability/metrics.js';
import { randomBytes } from 'node:crypto';
import type { AppContext } from '../../platform/context.js';
import { DeliveryClient, type AttemptResult } from './delivery-client.js';
import { decideOutcome } from './schedule.js';
import { signingKeyOf, type Signing } from './signature.js';
import * as repo from './webhooks.repository.js';

const NIL_UUID = '00000000-0000-0000-0000-000000000000';
const RECORD_BATCH_MAX = 500;
const SECRET_CACHE_MAX = 1000;
/** How often at most a worker looks for ended dispatch leases (a lease lasts over a second: leaseMsFor). */
const RECOVER_INTERVAL_MS = 1000;

/**
 * How long a taken delivery stays with its worker: a queued delivery waits for at most one attempt
 * of its endpoint, then makes its own, each within the deadline; plus a second.
 */
export const leaseMsFor = (timeoutMs: number): number => 2 * timeoutMs + 1000;

/** The JSON envelope of the spec (§Events): `{id, type, createdAt, test, data}`, data as stored. */
export function envelope(d: Pick<repo.ClaimedDelivery, 'event_id' | 'event_type' | 'event_created_at' | 'event_test' | 'event_data'>): string {
  return `{"id":${JSON.stringify(d.event_id)},"type":${JSON.stringify(d.event_type)},"createdAt":${JSON.stringify(
    d.event_created_at.toISOString(),
  )},"test":${d.event_test ? 'true' : 'false'},"data":${d.event_data}}`;
}

/** A sleep that a signal ends early; a signal given while awake makes the next sleep return at once. */
class Wakeup {
  private signalled = false;
  private wake: (() => void) | undefined;

  signal(): void {
    this.signalled = true;
    this.wake?.();
  }

  /** Forgets signals given before now (the caller is about to look for work anyway). */
  reset(): void {
    this.signalled = false;
  }

  sleep(ms: number): Promise<void> {
    if (this.signalled) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.wake = undefined;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.wake = done;
    });
  }
}

/**
 * Delivers webhooks, in any number of worker processes sharing one database. Two loops:
 * - the dispatcher turns new outbox events into deliveries (in batches, at once while there are
 *   more, else polling every 50 ms, or JOB_POLL_MS if shorter), creating those this worker has room
 *   for already leased to it and sending them straight away (one insert, then one outcome write);
 * - the claimer takes due deliveries (retries, deliveries created beyond that room, and those whose
 *   lease ended), leased in the database.
 * Either way each endpoint gets up to twice WEBHOOK_ENDPOINT_CONCURRENCY here (sending at most that
 * many at once, the rest queued here so the next starts the moment one ends), and at most
 * WEBHOOK_IN_FLIGHT_MAX in all. A delivery is committed before its first attempt is sent. Outcomes
 * are recorded in batches. Nothing lives only in memory: a delivery taken by a process that dies is
 * due again when its lease ends.
 */
export class WebhookEngine {
  readonly workerId = `wh_${randomBytes(6).toString('hex')}`;
  private readonly client: DeliveryClient;
  private readonly log: FastifyBaseLogger;
  private running = false;
  private loops: Promise<void>[] = [];
  private readonly dispatchWakeup = new Wakeup();
  private readonly claimWakeup = new Wakeup();
  /** Attempts being sent, and how many per endpoint. */
  private readonly inFlight = new Set<Promise<void>>();
  private readonly sendingByEndpoint = new Map<string, number>();
  /** Leased deliveries waiting for a free slot of their endpoint. */
  private readonly queuedByEndpoint = new Map<string, repo.ClaimedDelivery[]>();
  private queuedCount = 0;
  private readonly toRecord: (repo.AttemptWrite & { leaseId: string | undefined })[] = [];
  /** Dispatched leases (webhook_leases rows) of this worker: their deliveries not yet recorded or handed back. */
  private readonly leases = new Map<string, { left: number; until: number }>();
  /** The lease row of each dispatched delivery until its outcome is queued. */
  private readonly leaseOf = new Map<string, string>();
  private recording: Promise<void> | undefined;
  /** Endpoints with pending deliveries, as of the last walk and the dispatches since. */
  private endpoints: string[] = [];
  private walkedAt = 0;
  private recoveredAt = 0;
  private walkAfter = NIL_UUID;
  private rotation = 0;
  private readonly secrets = new Map<string, unknown>();

  constructor(
    private readonly ctx: AppContext,
    client?: DeliveryClient,
  ) {
    const { config } = ctx;
    this.client =
      client ??
      new DeliveryClient({
        timeoutMs: config.webhookTimeoutMs,
        excerptBytesMax: config.limits.webhookResponseExcerptBytesMax,
        allowPrivateNetworks: config.webhookAllowPrivateNetworks,
        caFile: config.webhookCaFile,
      });
    this.log = ctx.log.child({ worker: this.workerId, component: 'webhooks' });
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.loops = [this.dispatchLoop(), this.claimLoop()];
  }

  /** Stops taking work, hands queued deliveries back, waits for the attempts in flight and records them. */
  async stop(): Promise<void> {
    if (!this.running) return;
    this.running = false;
    this.dispatchWakeup.signal();
    this.claimWakeup.signal();
    await Promise.all(this.loops);
    const queued = [...this.queuedByEndpoint.values()].flat().map((d) => d.id);
    this.queuedByEndpoint.clear();
    this.queuedCount = 0;
    if (queued.length) await repo.releaseDeliveries(this.ctx.db, this.workerId, queued, this.leasesDone(queued)).catch((err: unknown) => this.log.warn({ err }, 'could not release queued webhook deliveries'));
    await Promise.allSettled([...this.inFlight]);
    await this.recording;
    await this.flushRecords();
    await this.client.close();
  }

  private async dispatchLoop(): Promise<void> {
    const { limits } = this.ctx.config;
    while (this.running) {
      this.dispatchWakeup.reset();
      let found = 0;
      try {
        const dispatched = await repo.dispatchEvents(this.ctx.db, limits.webhookDispatchBatchMax, this.running ? this.dispatchLease() : undefined);
        found = dispatched.events;
        const due = new Set(dispatched.endpointIds);
        if (dispatched.leaseId) {
          this.leases.set(dispatched.leaseId, { left: dispatched.leased.length, until: Date.now() + leaseMsFor(this.ctx.config.webhookTimeoutMs) });
          for (const d of dispatched.leased) this.leaseOf.set(d.id, dispatched.leaseId);
        }
        await this.takeAll(dispatched.leased, due);
        for (const id of due) if (!this.endpoints.includes(id)) this.endpoints.push(id);
        if (due.size) this.claimWakeup.signal();
      } catch (err) {
        this.log.error({ err }, 'webhook dispatch failed');
      }
      if (found === 0 && this.running) await this.dispatchWakeup.sleep(Math.min(limits.jobPollMs, limits.webhookDispatchPollMs));
    }
  }

  private async claimLoop(): Promise<void> {
    const { limits } = this.ctx.config;
    while (this.running) {
      this.claimWakeup.reset();
      let claimed = 0;
      try {
        claimed = await this.claim();
      } catch (err) {
        this.log.error({ err }, 'webhook claim failed');
      }
      // Idle until an attempt ends, a dispatch brings deliveries, or the poll interval passes (retries falling due).
      if (claimed === 0 && this.running) await this.claimWakeup.sleep(limits.jobPollMs);
    }
  }

  /** Takes due deliveries within the limits; returns how many. */
  private async claim(): Promise<number> {
    const { config } = this.ctx;
    if (Date.now() - this.walkedAt >= config.limits.jobPollMs) {
      if (Date.now() - this.recoveredAt >= RECOVER_INTERVAL_MS) await this.recover();
      await this.walk();
    }
    const room = config.webhookInFlightMax - this.inFlight.size - this.queuedCount;
    const allowance = room > 0 ? this.allowance() : [];
    if (allowance.length === 0) return 0;
    const rows = await repo.claimDueDeliveries(this.ctx.db, this.workerId, allowance, room, leaseMsFor(config.webhookTimeoutMs));
    await this.takeAll(rows, new Set());
    return rows.length;
  }

  /**
   * What the dispatcher may create leased to this worker: up to what each endpoint may still take
   * (as for a claim) and the room left in all; the rest is created due, for any worker to claim.
   */
  private dispatchLease(): repo.DispatchLease {
    const { config } = this.ctx;
    const depth = 2 * config.webhookEndpointConcurrency;
    const free: { endpoint_id: string; free: number }[] = [];
    for (const id of new Set([...this.sendingByEndpoint.keys(), ...this.queuedByEndpoint.keys()])) free.push({ endpoint_id: id, free: Math.max(0, depth - this.load(id)) });
    return {
      workerId: this.workerId,
      leaseMs: leaseMsFor(config.webhookTimeoutMs),
      free,
      depth,
      room: Math.max(0, config.webhookInFlightMax - this.inFlight.size - this.queuedCount),
    };
  }

  private load(endpointId: string): number {
    return (this.sendingByEndpoint.get(endpointId) ?? 0) + (this.queuedByEndpoint.get(endpointId)?.length ?? 0);
  }

  /**
   * Takes leased deliveries (dispatched or claimed). The dispatcher and the claimer run side by side,
   * so together they may have leased more of an endpoint's than it may hold here: those are handed
   * back at once (due again, their endpoints added to `due`), so no queued delivery waits longer
   * than its lease allows.
   */
  private async takeAll(rows: readonly repo.ClaimedDelivery[], due: Set<string>): Promise<void> {
    const depth = 2 * this.ctx.config.webhookEndpointConcurrency;
    const back: string[] = [];
    for (const row of rows) {
      if (this.running && this.load(row.endpoint_id) < depth) this.take(row);
      else {
        back.push(row.id);
        due.add(row.endpoint_id);
      }
    }
    if (back.length) await repo.releaseDeliveries(this.ctx.db, this.workerId, back, this.leasesDone(back));
  }

  /**
   * Makes due the deliveries of ended dispatch leases (any worker's: one that died mid-way) still
   * without an outcome, and forgets this worker's own ended leases (their rows went with them).
   */
  private async recover(): Promise<void> {
    await repo.recoverExpiredLeases(this.ctx.db, this.ctx.config.limits.webhookClaimEndpointsMax);
    const now = Date.now();
    this.recoveredAt = now;
    for (const [id, lease] of this.leases) if (lease.until < now) this.leases.delete(id);
    for (const [deliveryId, leaseId] of this.leaseOf) if (!this.leases.has(leaseId)) this.leaseOf.delete(deliveryId);
  }

  /** Counts a dispatched delivery as done with (recorded or handed back); returns its lease when that was the last. */
  private leaseDone(deliveryId: string): string | undefined {
    const leaseId = this.leaseOf.get(deliveryId);
    if (leaseId === undefined) return undefined;
    this.leaseOf.delete(deliveryId);
    const lease = this.leases.get(leaseId);
    if (!lease) return undefined;
    if (--lease.left > 0) return undefined;
    this.leases.delete(leaseId);
    return leaseId;
  }

  /** The leases that these deliveries complete. */
  private leasesDone(deliveryIds: readonly string[]): string[] {
    const done: string[] = [];
    for (const id of deliveryIds) {
      const leaseId = this.leaseDone(id);
      if (leaseId !== undefined) done.push(leaseId);
    }
    return done;
  }

  /** Refreshes the endpoints with pending deliveries, a bounded number at a time, rotating through them. */
  private async walk(): Promise<void> {
    const limit = this.ctx.config.limits.webhookClaimEndpointsMax;
    const found = await repo.endpointsWithPendingDeliveries(this.ctx.db, this.walkAfter, limit);
    this.walkAfter = found.length >= limit ? (found[found.length - 1] as string) : NIL_UUID;
    this.endpoints = found;
    this.walkedAt = Date.now();
  }

  /** What each endpoint may still take (sending plus queued up to twice its concurrency), from a rotating start. */
  private allowance(): { endpoint_id: string; free: number }[] {
    const depth = 2 * this.ctx.config.webhookEndpointConcurrency;
    const n = this.endpoints.length;
    const start = n ? this.rotation++ % n : 0;
    const out: { endpoint_id: string; free: number }[] = [];
    for (let i = 0; i < n; i++) {
      const id = this.endpoints[(start + i) % n] as string;
      const free = depth - (this.sendingByEndpoint.get(id) ?? 0) - (this.queuedByEndpoint.get(id)?.length ?? 0);
      if (free > 0) out.push({ endpoint_id: id, free });
    }
    return out;
  }

  /** Sends a taken delivery now if its endpoint has a free slot, else queues it for the next one. */
  private take(row: repo.ClaimedDelivery): void {
    if ((this.sendingByEndpoint.get(row.endpoint_id) ?? 0) < this.ctx.config.webhookEndpointConcurrency) return this.launch(row);
    const queue = this.queuedByEndpoint.get(row.endpoint_id);
    if (queue) queue.push(row);
    else this.queuedByEndpoint.set(row.endpoint_id, [row]);
    this.queuedCount++;
  }

  private launch(row: repo.ClaimedDelivery): void {
    const endpointId = row.endpoint_id;
    this.sendingByEndpoint.set(endpointId, (this.sendingByEndpoint.get(endpointId) ?? 0) + 1);
    const p = this.attempt(row).finally(() => {
      this.inFlight.delete(p);
      const sending = (this.sendingByEndpoint.get(endpointId) ?? 1) - 1;
      if (sending > 0) this.sendingByEndpoint.set(endpointId, sending);
      else this.sendingByEndpoint.delete(endpointId);
      // Stopping, the queue stays as it is: stop() hands it back to the database.
      const queue = this.running ? this.queuedByEndpoint.get(endpointId) : undefined;
      const next = queue?.shift();
      if (queue && queue.length === 0) this.queuedByEndpoint.delete(endpointId);
      if (next) {
        this.queuedCount--;
        this.launch(next);
      }
      this.claimWakeup.signal();
    });
    this.inFlight.add(p);
  }

  /** A sealed secret or key, opened once and kept (bounded): a hot endpoint's is not decrypted per attempt. */
  private opened<T>(sealed: string, open: (plain: string) => T): T {
    let value = this.secrets.get(sealed) as T | undefined;
    if (value === undefined) {
      value = open(this.ctx.box.decrypt(sealed));
      if (this.secrets.size >= SECRET_CACHE_MAX) this.secrets.clear();
      this.secrets.set(sealed, value);
    }
    return value;
  }

  private signingOf(row: repo.ClaimedDelivery): Signing {
    const same = (plain: string) => plain;
    return {
      secret: this.opened(row.secret_encrypted, same),
      previousSecret: row.previous_secret_encrypted ? this.opened(row.previous_secret_encrypted, same) : undefined,
      ed25519Key: row.signing_key_encrypted ? this.opened(row.signing_key_encrypted, signingKeyOf) : undefined,
    };
  }

  private async attempt(row: repo.ClaimedDelivery): Promise<void> {
    let result: AttemptResult;
    try {
      result = await this.client.send({ url: row.url, body: envelope(row), eventId: row.event_id, signing: this.signingOf(row) });
    } catch (err) {
      // Not an HTTP failure (those are results): a bug. The lease ends and the delivery is taken again.
      this.log.error({ err, deliveryId: row.id }, 'webhook attempt failed unexpectedly');
      return;
    }
    const number = row.attempt_count + 1;
    observeAttempt(result.ok, result.durationMs, row.event_created_at, result.endedAt);
    const { config } = this.ctx;
    const outcome = decideOutcome(number, result.ok, result.endedAt, {
      attemptsMax: config.limits.webhookAttemptsMax,
      retryDelaysMs: config.webhookRetryDelaysMs,
    });
    this.record({
      leaseId: this.leaseOf.get(row.id),
      id: row.id,
      number,
      status: outcome.status,
      next_attempt_at: outcome.nextAttemptAt?.toISOString() ?? null,
      attempt: {
        number,
        at: result.at.toISOString(),
        responseStatus: result.responseStatus,
        durationMs: result.durationMs,
        error: result.error,
        responseExcerpt: result.responseExcerpt,
      },
    });
  }

  /** Queues an outcome; one write at a time carries every outcome queued meanwhile (group commit). */
  private record(write: repo.AttemptWrite & { leaseId: string | undefined }): void {
    this.toRecord.push(write);
    this.recording ??= this.flushRecords().finally(() => {
      this.recording = undefined;
    });
  }

  private async flushRecords(): Promise<void> {
    while (this.toRecord.length > 0) {
      const batch = this.toRecord.splice(0, RECORD_BATCH_MAX);
      const doneLeases: string[] = [];
      for (const w of batch) {
        const done = w.leaseId === undefined ? undefined : this.leaseDone(w.id);
        if (done !== undefined) doneLeases.push(done);
      }
      try {
        await repo.recordAttempts(this.ctx.db, this.workerId, batch.map(({ leaseId: _leaseId, ...w }) => w), doneLeases);
      } catch (err) {
        // The leases end and these deliveries are attempted again: at least once, never lost.
        this.log.error({ err, deliveries: batch.length }, 'could not record webhook attempts');
      }
    }
  }
}
