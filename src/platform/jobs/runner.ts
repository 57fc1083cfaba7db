import type { FastifyBaseLogger } from 'fastify';
import { randomBytes } from 'node:crypto';
import type { AppContext } from '../context.js';
import type { Tx } from '../db/db.js';
import { metrics } from '../observability/metrics.js';
import { claimJobs, completeJob, enqueue, enqueueMany, failJob, rescheduleJob, takeJobs, takeJobsById, type Job, type NewJob } from './queue.js';

/** A job handler returns nothing when done, or a Date to run again then (not an attempt). */
export type JobHandler = (ctx: AppContext, job: Job) => Promise<void | Date>;

/**
 * Runs many jobs of one kind together (all those of that kind in one claim). It retires each job it
 * handled itself, in the transaction of its work, and returns the jobs that failed with their
 * errors: the runner reschedules those with backoff as it does for a throwing `JobHandler`.
 */
export interface JobBatchHandler {
  batch: (ctx: AppContext, jobs: Job[]) => Promise<Map<string, unknown>>;
}

/**
 * Runs many jobs of one kind in the transaction that takes them (`takeJobs`: deleted there, FOR
 * UPDATE SKIP LOCKED): no claim is written and no lease kept, the jobs end with the commit of their
 * work, and a rollback or a crash before it leaves them due. For work that is one transaction (payout
 * steps). When a batch's transaction fails, each of its jobs runs again in a transaction of its own,
 * and those that fail again are rescheduled with backoff as for a throwing `JobHandler`.
 */
export interface JobTxHandler {
  inTx: (ctx: AppContext, tx: Tx, jobs: Job[]) => Promise<void>;
  /**
   * When a job carries several items (a step job's payouts), the payload key of their array: a
   * transaction takes about jobHandlerBatchMax items, however many jobs carry them.
   */
  itemsKey?: string;
}

/** A job of several items as a job per item, each as it was otherwise (its attempts start again). */
function splitJob(job: Job, itemsKey: string): NewJob[] {
  return (job.payload[itemsKey] as unknown[]).map((item) => ({ kind: job.kind, payload: { ...job.payload, [itemsKey]: [item] }, maxAttempts: job.max_attempts }));
}

/** The items a job taken by a JobTxHandler carries (one without an array of them under `itemsKey`). */
export function jobItems(job: Job, itemsKey: string | undefined): number {
  const items = itemsKey === undefined ? undefined : job.payload[itemsKey];
  return Array.isArray(items) ? items.length : 1;
}

export type AnyJobHandler = JobHandler | JobBatchHandler | JobTxHandler;

export interface Recurring {
  kind: string;
  everyMs: number;
}

/**
 * Polls the job table and runs due jobs with bounded concurrency. Any number of runners may share
 * one database. `stop()` stops claiming and waits for the jobs in hand.
 */
export class JobRunner {
  readonly workerId = `w_${randomBytes(6).toString('hex')}`;
  private running = false;
  /** Set by stop(): no transaction taking jobs starts after it (a tick works without start(): tests run one). */
  private stopped = false;
  private timer: NodeJS.Timeout | undefined;
  private recurringTimers: NodeJS.Timeout[] = [];
  private inFlight = new Set<Promise<void>>();
  /** Jobs in hand (a batch counts each of its jobs). */
  private jobsInHand = 0;
  private ticking = false;
  /** A wake-up came while ticking, which would otherwise be lost until the next poll. */
  private tickAgain = false;
  /** The last claim took all it asked for: more may be due as soon as jobs in hand finish. */
  private backlogged = false;
  private log: FastifyBaseLogger;

  constructor(
    private readonly ctx: AppContext,
    private readonly handlers: ReadonlyMap<string, AnyJobHandler>,
    private readonly recurring: readonly Recurring[] = [],
  ) {
    this.log = ctx.log.child({ worker: this.workerId });
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.stopped = false;
    for (const r of this.recurring) {
      const schedule = () => {
        enqueue(this.ctx.db, { kind: r.kind, uniqueKey: `recurring:${r.kind}`, maxAttempts: 3 }).catch((err: unknown) =>
          this.log.warn({ err }, 'could not schedule recurring job'),
        );
      };
      schedule();
      this.recurringTimers.push(setInterval(schedule, r.everyMs).unref());
    }
    this.schedule(0);
  }

  private schedule(delayMs: number): void {
    if (!this.running) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.tick(), delayMs);
  }

  /**
   * Claims and runs one batch: the jobs of a kind run in the transaction that takes them are taken
   * by transactions of their own (takeInTx), the others claimed with a lease, those of a batch kind
   * going to its handler together (in parts of at most jobHandlerBatchMax, side by side), the
   * others one by one. Polls again at once when the claim was full, and again as soon as jobs in
   * hand finish while backlogged.
   */
  async tick(): Promise<number> {
    const limits = this.ctx.config.limits;
    if (this.ticking) {
      // Woken while ticking (work in hand ended, backlogged): tick again once this one ends.
      this.tickAgain = true;
      return 0;
    }
    this.ticking = true;
    let claimed = 0;
    let free = 0;
    let takenFull = false;
    try {
      for (const [kind, handler] of this.handlers) if ('inTx' in handler && (await this.takeInTx(kind, handler))) takenFull = true;
      free = limits.jobBatchMax - this.jobsInHand;
      const leased = [...this.handlers].flatMap(([kind, handler]) => ('inTx' in handler ? [] : [kind]));
      if (free > 0 && leased.length > 0) {
        const jobs = await claimJobs(this.ctx.db, this.workerId, free, limits.jobLeaseMs, leased);
        claimed = jobs.length;
        const batches = new Map<JobBatchHandler, Job[]>();
        for (const job of jobs) {
          const handler = this.handlers.get(job.kind);
          if (handler && 'batch' in handler) batches.set(handler, [...(batches.get(handler) ?? []), job]);
          else this.hold(1, this.run(job));
        }
        for (const [handler, batch] of batches) {
          for (let i = 0; i < batch.length; i += limits.jobHandlerBatchMax) {
            const part = batch.slice(i, i + limits.jobHandlerBatchMax);
            this.hold(part.length, this.runBatch(handler, part));
          }
        }
      }
    } catch (err) {
      this.log.error({ err }, 'job claim failed');
    } finally {
      this.ticking = false;
    }
    this.backlogged = (free > 0 && claimed >= free) || takenFull;
    const again = this.tickAgain;
    this.tickAgain = false;
    this.schedule(claimed >= limits.jobBatchMax || again ? 0 : limits.jobPollMs);
    return claimed;
  }

  /**
   * Keeps track of work in hand (`jobs` of them at most); when it ends while backlogged, claims again at
   * once. Answers a way to lower the count once the work knows it holds fewer (a take that found less
   * than its room), so the room it did not use goes back to the other kinds' claim at once.
   */
  private hold(jobs: number, work: Promise<void>): (holds: number) => void {
    let held = jobs;
    this.jobsInHand += held;
    const p = work.finally(() => {
      this.inFlight.delete(p);
      this.jobsInHand -= held;
      held = 0;
      if (this.backlogged) {
        this.backlogged = false;
        this.schedule(0);
      }
    });
    this.inFlight.add(p);
    return (holds) => {
      if (holds >= held) return;
      this.jobsInHand -= held - holds;
      held = holds;
    };
  }

  /**
   * Starts transactions that take and run due jobs of a kind run in the transaction that takes them
   * (JobTxHandler), about jobHandlerBatchMax items each, one after another's take while each take is
   * full and the runner has room: side by side, as the parts of one claim. Answers whether more may
   * be due (the last take was full, or there was no room).
   */
  private async takeInTx(kind: string, handler: JobTxHandler): Promise<boolean> {
    const limits = this.ctx.config.limits;
    for (;;) {
      const room = Math.min(limits.jobHandlerBatchMax, limits.jobBatchMax - this.jobsInHand);
      if (this.stopped) return false;
      if (room <= 0) return true;
      let taken: (items: number) => void = () => undefined;
      const took = new Promise<number>((resolve) => (taken = resolve));
      const holds = this.hold(room, this.runInTx(kind, handler, room, taken));
      const items = await took;
      holds(items);
      if (items < room) return false;
    }
  }

  /** One transaction taking up to `room` items of jobs and running them; `taken` hears how many it took. */
  private async runInTx(kind: string, handler: JobTxHandler, room: number, taken: (items: number) => void): Promise<void> {
    let jobs: Job[] = [];
    try {
      await this.ctx.db.tx(async (tx) => {
        jobs = await takeJobs(tx, [kind], room, handler.itemsKey);
        taken(jobs.reduce((n, job) => n + jobItems(job, handler.itemsKey), 0));
        if (jobs.length > 0) await handler.inTx(this.ctx, tx, jobs);
      });
      if (jobs.length > 0) metrics.jobRuns.inc({ kind, outcome: 'done' }, jobs.length);
      return;
    } catch (err) {
      taken(0);
      if (jobs.length === 0) return this.log.error({ err }, 'job claim failed');
      const [only] = jobs;
      if (jobs.length === 1 && only && jobItems(only, handler.itemsKey) === 1) return this.fail(only, err);
    }
    // The batch's transaction rolled back, its jobs due again: each runs in a transaction of its own,
    // and a job of several items is split into a job per item (due at once, its attempt not counted),
    // so one bad item fails alone (unless another worker took the job meanwhile).
    for (const job of jobs) {
      try {
        await this.ctx.db.tx(async (tx) => {
          const [again] = await takeJobsById(tx, [job.id]);
          if (!again) return;
          if (jobItems(again, handler.itemsKey) > 1) await enqueueMany(tx, splitJob(again, handler.itemsKey as string));
          else await handler.inTx(this.ctx, tx, [again]);
        });
      } catch (err) {
        await this.fail(job, err);
      }
    }
  }

  private async run(job: Job): Promise<void> {
    const handler = this.handlers.get(job.kind);
    try {
      if (!handler || !(typeof handler === 'function')) throw new Error(`no handler for job kind ${job.kind}`);
      const again = await handler(this.ctx, job);
      if (again instanceof Date) await rescheduleJob(this.ctx.db, job.id, again);
      else await completeJob(this.ctx.db, job.id);
      metrics.jobRuns.inc({ kind: job.kind, outcome: 'done' });
    } catch (err) {
      await this.fail(job, err);
    }
  }

  private async runBatch(handler: JobBatchHandler, jobs: Job[]): Promise<void> {
    let failures: Map<string, unknown>;
    try {
      failures = await handler.batch(this.ctx, jobs);
    } catch (err) {
      failures = new Map(jobs.map((job) => [job.id, err]));
    }
    for (const job of jobs) {
      if (failures.has(job.id)) await this.fail(job, failures.get(job.id));
      else metrics.jobRuns.inc({ kind: job.kind, outcome: 'done' });
    }
  }

  private async fail(job: Job, err: unknown): Promise<void> {
    const delayMs = Math.min(1000 * 2 ** (job.attempts - 1), 5 * 60_000);
    metrics.jobRuns.inc({ kind: job.kind, outcome: 'failed' });
    this.log.warn({ err, jobId: job.id, kind: job.kind, attempt: job.attempts }, 'job failed');
    await failJob(this.ctx.db, job, err instanceof Error ? err.message : String(err), delayMs).catch((e: unknown) =>
      this.log.error({ err: e, jobId: job.id }, 'could not record job failure'),
    );
  }

  async stop(): Promise<void> {
    this.running = false;
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    for (const t of this.recurringTimers) clearInterval(t);
    this.recurringTimers = [];
    // Until none is left: a tick under way may still start a transaction taking jobs beside another.
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
  }
}
