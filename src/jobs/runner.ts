import type { FastifyBaseLogger } from 'fastify';
import { randomBytes } from 'node:crypto';
import type { AppContext } from '../context.js';
import { claimJobs, completeJob, enqueue, failJob, rescheduleJob, type Job } from './queue.js';

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

export type AnyJobHandler = JobHandler | JobBatchHandler;

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
  private timer: NodeJS.Timeout | undefined;
  private recurringTimers: NodeJS.Timeout[] = [];
  private inFlight = new Set<Promise<void>>();
  /** Jobs in hand (a batch counts each of its jobs). */
  private jobsInHand = 0;
  private ticking = false;
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
   * Claims and runs one batch: the jobs of a batch kind go to its handler together (in parts of at
   * most jobHandlerBatchMax, side by side), the others one by one. Polls again at once when the claim was full, and again as soon as jobs in hand finish
   * while backlogged.
   */
  async tick(): Promise<number> {
    const limits = this.ctx.config.limits;
    if (this.ticking) return 0;
    this.ticking = true;
    let claimed = 0;
    let free = 0;
    try {
      free = limits.jobBatchMax - this.jobsInHand;
      if (free > 0) {
        const jobs = await claimJobs(this.ctx.db, this.workerId, free, limits.jobLeaseMs, [...this.handlers.keys()]);
        claimed = jobs.length;
        const batches = new Map<JobBatchHandler, Job[]>();
        for (const job of jobs) {
          const handler = this.handlers.get(job.kind);
          if (handler && 'batch' in handler) batches.set(handler, [...(batches.get(handler) ?? []), job]);
          else this.hold([job], this.run(job));
        }
        for (const [handler, batch] of batches) {
          for (let i = 0; i < batch.length; i += limits.jobHandlerBatchMax) {
            const part = batch.slice(i, i + limits.jobHandlerBatchMax);
            this.hold(part, this.runBatch(handler, part));
          }
        }
      }
    } catch (err) {
      this.log.error({ err }, 'job claim failed');
    } finally {
      this.ticking = false;
    }
    this.backlogged = free > 0 && claimed >= free;
    this.schedule(claimed >= limits.jobBatchMax ? 0 : limits.jobPollMs);
    return claimed;
  }

  /** Keeps track of work in hand; when it ends while backlogged, claims again at once. */
  private hold(jobs: Job[], work: Promise<void>): void {
    this.jobsInHand += jobs.length;
    const p = work.finally(() => {
      this.inFlight.delete(p);
      this.jobsInHand -= jobs.length;
      if (this.backlogged) {
        this.backlogged = false;
        this.schedule(0);
      }
    });
    this.inFlight.add(p);
  }

  private async run(job: Job): Promise<void> {
    const handler = this.handlers.get(job.kind);
    try {
      if (!handler || 'batch' in handler) throw new Error(`no handler for job kind ${job.kind}`);
      const again = await handler(this.ctx, job);
      if (again instanceof Date) await rescheduleJob(this.ctx.db, job.id, again);
      else await completeJob(this.ctx.db, job.id);
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
    }
  }

  private async fail(job: Job, err: unknown): Promise<void> {
    const delayMs = Math.min(1000 * 2 ** (job.attempts - 1), 5 * 60_000);
    this.log.warn({ err, jobId: job.id, kind: job.kind, attempt: job.attempts }, 'job failed');
    await failJob(this.ctx.db, job, err instanceof Error ? err.message : String(err), delayMs).catch((e: unknown) =>
      this.log.error({ err: e, jobId: job.id }, 'could not record job failure'),
    );
  }

  async stop(): Promise<void> {
    this.running = false;
    if (this.timer) clearTimeout(this.timer);
    for (const t of this.recurringTimers) clearInterval(t);
    this.recurringTimers = [];
    await Promise.allSettled([...this.inFlight]);
  }
}
