import type { FastifyBaseLogger } from 'fastify';
import { randomBytes } from 'node:crypto';
import type { AppContext } from '../../context.js';
import { DeliveryClient, type AttemptResult } from './delivery-client.js';
import * as repo from './webhooks.repository.js';
import { decideOutcome } from './schedule.js';

const NIL_UUID = '00000000-0000-0000-0000-000000000000';
const RECORD_BATCH_MAX = 500;
const SECRET_CACHE_MAX = 1000;

/** How long a taken delivery stays with its worker: the attempt's deadline, twice, and a second. */
export const leaseMsFor = (timeoutMs: number): number => 2 * timeoutMs + 1000;

/** The JSON envelope of the spec (§Events): `{id, type, createdAt, test, data}`, data as stored. */
export function envelope(d: Pick<repo.ClaimedDelivery, 'event_id' | 'event_type' | 'event_created_at' | 'event_test' | 'event_data'>): string {
  return `{"id":${JSON.stringify(d.event_id)},"type":${JSON.stringify(d.event_type)},"createdAt":${JSON.stringify(
    d.event_created_at.toISOString(),
  )},"test":${d.event_test ? 'true' : 'false'},"data":${d.event_data}}`;
}

/**
 * Delivers webhooks, in any number of worker processes sharing one database. Each pass turns new
 * outbox events into deliveries, takes due deliveries (per endpoint at most WEBHOOK_ENDPOINT_CONCURRENCY
 * at once, in total at most WEBHOOK_IN_FLIGHT_MAX), sends them, and records the outcomes in batches.
 * Idle, it polls every JOB_POLL_MS. Nothing lives only in memory: a delivery in flight when a process
 * dies is leased in the database and is attempted again once its lease ends.
 */
export class WebhookEngine {
  readonly workerId = `wh_${randomBytes(6).toString('hex')}`;
  private readonly client: DeliveryClient;
  private readonly log: FastifyBaseLogger;
  private running = false;
  private loopDone: Promise<void> | undefined;
  private wake: (() => void) | undefined;
  /** Set when an attempt ended since the last pass began: the next sleep returns at once. */
  private woken = false;
  private readonly inFlight = new Set<Promise<void>>();
  private readonly busyByEndpoint = new Map<string, number>();
  private readonly toRecord: repo.AttemptWrite[] = [];
  private recording: Promise<void> | undefined;
  /** Endpoints with pending deliveries, as of the last walk and the last dispatches. */
  private endpoints: string[] = [];
  private walkedAt = 0;
  private walkAfter = NIL_UUID;
  private rotation = 0;
  private readonly secrets = new Map<string, string>();

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
    this.loopDone = this.loop();
  }

  /** Stops taking deliveries, waits for the attempts in flight and records them. */
  async stop(): Promise<void> {
    this.running = false;
    this.notify();
    await this.loopDone;
    await Promise.allSettled([...this.inFlight]);
    await this.recording;
    await this.flushRecords();
    await this.client.close();
  }

  private async loop(): Promise<void> {
    const { jobPollMs } = this.ctx.config.limits;
    while (this.running) {
      let again = false;
      this.woken = false;
      try {
        again = await this.pass();
      } catch (err) {
        this.log.error({ err }, 'webhook pass failed');
      }
      if (!this.running) break;
      // More work is waiting: go again at once, unless every slot is taken (an attempt ending wakes the loop).
      const full = this.inFlight.size >= this.ctx.config.webhookInFlightMax;
      if (!again || full) await this.sleep(full ? 60_000 : jobPollMs);
    }
  }

  private notify(): void {
    this.woken = true;
    this.wake?.();
  }

  private sleep(ms: number): Promise<void> {
    if (this.woken) return Promise.resolve();
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

  /** One pass: dispatch, then claim and start attempts. True when there may be more to do at once. */
  async pass(): Promise<boolean> {
    const { config } = this.ctx;
    const dispatched = await repo.dispatchEvents(this.ctx.db, config.limits.webhookDispatchBatchMax);
    for (const id of dispatched.endpointIds) if (!this.endpoints.includes(id)) this.endpoints.push(id);
    if (Date.now() - this.walkedAt >= config.limits.jobPollMs) await this.walk();

    const free = config.webhookInFlightMax - this.inFlight.size;
    let claimed = 0;
    if (free > 0) {
      const allowance = this.allowance();
      if (allowance.length > 0) {
        const rows = await repo.claimDueDeliveries(this.ctx.db, this.workerId, allowance, free, leaseMsFor(config.webhookTimeoutMs));
        claimed = rows.length;
        for (const row of rows) this.launch(row);
      }
    }
    return dispatched.events > 0 || (claimed > 0 && claimed >= free);
  }

  /** Refreshes the endpoints with pending deliveries, a bounded number at a time, rotating through them. */
  private async walk(): Promise<void> {
    const limit = this.ctx.config.limits.webhookClaimEndpointsMax;
    const found = await repo.endpointsWithPendingDeliveries(this.ctx.db, this.walkAfter, limit);
    this.walkAfter = found.length >= limit ? (found[found.length - 1] as string) : NIL_UUID;
    this.endpoints = found;
    this.walkedAt = Date.now();
  }

  /** What each endpoint may still take, starting from a rotating position so no endpoint is always last. */
  private allowance(): { endpoint_id: string; free: number }[] {
    const cap = this.ctx.config.webhookEndpointConcurrency;
    const n = this.endpoints.length;
    const start = n ? this.rotation++ % n : 0;
    const out: { endpoint_id: string; free: number }[] = [];
    for (let i = 0; i < n; i++) {
      const id = this.endpoints[(start + i) % n] as string;
      const free = cap - (this.busyByEndpoint.get(id) ?? 0);
      if (free > 0) out.push({ endpoint_id: id, free });
    }
    return out;
  }

  private secretOf(row: repo.ClaimedDelivery): string {
    let secret = this.secrets.get(row.secret_encrypted);
    if (secret === undefined) {
      secret = this.ctx.box.decrypt(row.secret_encrypted);
      if (this.secrets.size >= SECRET_CACHE_MAX) this.secrets.clear();
      this.secrets.set(row.secret_encrypted, secret);
    }
    return secret;
  }

  private launch(row: repo.ClaimedDelivery): void {
    this.busyByEndpoint.set(row.endpoint_id, (this.busyByEndpoint.get(row.endpoint_id) ?? 0) + 1);
    const p = this.attempt(row).finally(() => {
      this.inFlight.delete(p);
      const busy = (this.busyByEndpoint.get(row.endpoint_id) ?? 1) - 1;
      if (busy > 0) this.busyByEndpoint.set(row.endpoint_id, busy);
      else this.busyByEndpoint.delete(row.endpoint_id);
      this.notify();
    });
    this.inFlight.add(p);
  }

  private async attempt(row: repo.ClaimedDelivery): Promise<void> {
    let result: AttemptResult;
    try {
      result = await this.client.send({ url: row.url, body: envelope(row), secret: this.secretOf(row) });
    } catch (err) {
      // Not an HTTP failure (those are results): a bug. The lease ends and the delivery is taken again.
      this.log.error({ err, deliveryId: row.id }, 'webhook attempt failed unexpectedly');
      return;
    }
    const number = row.attempt_count + 1;
    const { config } = this.ctx;
    const outcome = decideOutcome(number, result.ok, result.endedAt, {
      attemptsMax: config.limits.webhookAttemptsMax,
      retryDelaysMs: config.webhookRetryDelaysMs,
    });
    this.record({
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
  private record(write: repo.AttemptWrite): void {
    this.toRecord.push(write);
    this.recording ??= this.flushRecords().finally(() => {
      this.recording = undefined;
    });
  }

  private async flushRecords(): Promise<void> {
    while (this.toRecord.length > 0) {
      const batch = this.toRecord.splice(0, RECORD_BATCH_MAX);
      try {
        await repo.recordAttempts(this.ctx.db, this.workerId, batch);
      } catch (err) {
        // The leases end and these deliveries are attempted again: at least once, never lost.
        this.log.error({ err, deliveries: batch.length }, 'could not record webhook attempts');
      }
    }
  }
}
