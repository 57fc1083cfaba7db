import type { ChildProcess } from 'node:child_process';
import os from 'node:os';
import type { AppContext } from '../src/platform/context.js';
import { ledgerInvariantViolations } from '../src/domains/ledger/ledger.service.js';
import { smoke } from './measure.js';
import { cpuReader, payersOf, setUp, startApi, startWorker, sustained, type Sustained, WORKSPACES } from './payouts.js';
import type { Receiver } from './receiver.js';
import { BENCH_QUERY } from './statements.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** How long the pipeline may take to finish the payouts of a phase once its load stops. */
const DRAIN_MS = Number(process.env.BENCH_DRAIN_MS || 120_000);
/** The phases: API and worker processes of each (BENCH_SCALE_PROCESSES, `1,2` unless set). */
const PROCESSES = (process.env.BENCH_SCALE_PROCESSES || '1,2').split(',').map(Number);

interface Check {
  payouts: number;
  paid: number;
  paidEvents: number;
  paidEventsDoubled: number;
  holdsPosted: number;
  holdsOther: number;
  events: number;
  delivered: number;
  deliveriesOther: number;
  stepJobs: number;
  failedJobs: number;
}

/** What became of the payouts of one phase (their clientRefs start with `label-`) and of their events. */
async function check(ctx: AppContext, label: string): Promise<Check> {
  const [row] = await ctx.db.query<Check>(
    `${BENCH_QUERY} WITH p AS (SELECT id, workspace_id, status FROM payouts WHERE client_ref LIKE $1),
          e AS (SELECT ev.id, ev.type, ev.data->>'id' AS payout_id FROM events ev JOIN p ON ev.workspace_id = p.workspace_id AND ev.data->>'id' = p.id::text
                 WHERE ev.type LIKE 'payout.%'),
          paid_events AS (SELECT payout_id, count(*) AS n FROM e WHERE type = 'payout.paid' GROUP BY payout_id)
     SELECT (SELECT count(*)::int FROM p) AS payouts,
            (SELECT count(*)::int FROM p WHERE status = 'paid') AS paid,
            (SELECT count(*)::int FROM paid_events) AS "paidEvents",
            (SELECT count(*)::int FROM paid_events WHERE n > 1) AS "paidEventsDoubled",
            (SELECT count(*)::int FROM ledger_transfers t JOIN p ON t.reference_type = 'payout' AND t.reference_id = p.id::text WHERE t.two_phase AND t.status = 'posted') AS "holdsPosted",
            (SELECT count(*)::int FROM ledger_transfers t JOIN p ON t.reference_type = 'payout' AND t.reference_id = p.id::text WHERE t.two_phase AND t.status <> 'posted') AS "holdsOther",
            (SELECT count(*)::int FROM e) AS events,
            (SELECT count(*)::int FROM webhook_deliveries d JOIN e ON d.event_id = e.id WHERE d.status = 'succeeded') AS delivered,
            (SELECT count(*)::int FROM webhook_deliveries d JOIN e ON d.event_id = e.id WHERE d.status <> 'succeeded') AS "deliveriesOther",
            (SELECT count(*)::int FROM jobs j JOIN p ON j.kind = 'payout.step' AND (j.payload->'payoutIds' ? p.id::text OR j.payload->>'payoutId' = p.id::text)) AS "stepJobs",
            (SELECT count(*)::int FROM jobs WHERE status = 'failed') AS "failedJobs"`,
    [`${label}-%`],
  );
  return row as Check;
}

/** Waits until every payout of the phase is paid and every one of their events is delivered (or DRAIN_MS passes). */
async function drain(ctx: AppContext, label: string): Promise<Check> {
  const deadline = Date.now() + DRAIN_MS;
  // Statistics for the check's joins: in the fresh database autovacuum may not have analysed the
  // tables yet, and the planner then joins tens of thousands of events to payouts by nested loops
  // (one check taking longer than the whole drain, which then reported its stale snapshot).
  await ctx.db.query(`${BENCH_QUERY} ANALYZE payouts, events, webhook_deliveries, jobs, ledger_transfers`);
  for (;;) {
    const c = await check(ctx, label);
    const done = c.paid === c.payouts && c.paidEvents === c.payouts && c.delivered === c.events && c.stepJobs === 0;
    if (done || Date.now() > deadline) return c;
    await sleep(250);
  }
}

interface Phase {
  processes: number;
  result: Sustained;
  check: Check;
  receivedEach: boolean;
  ledgerSound: boolean;
  correct: boolean;
}

/** One phase: `n` API and `n` worker processes over one PostgreSQL, the sustained case, then everything it created checked. */
async function phase(ctx: AppContext, env: NodeJS.ProcessEnv, receiver: Receiver, credentials: Parameters<typeof payersOf>[1], n: number, statements: boolean): Promise<Phase> {
  const apis: ChildProcess[] = [];
  const workers: ChildProcess[] = [];
  try {
    const bases: string[] = [];
    for (let i = 0; i < n; i++) {
      const api = await startApi(env);
      apis.push(api.child);
      bases.push(api.base);
    }
    for (let i = 0; i < n; i++) workers.push(await startWorker(env));
    const payers = await payersOf(bases[0] as string, credentials);
    const label = `scale${n}`;
    const result = await sustained(ctx, cpuReader(ctx, receiver, () => apis, () => workers), bases, payers.slice(1), receiver, {
      title: `scale: ${n} API + ${n} worker processes over ${WORKSPACES} workspaces, one PostgreSQL${n > 1 ? ', limits shared through Redis' : ''}`,
      label,
      statements,
    });
    const c = await drain(ctx, label);
    const ids = (await ctx.db.query<{ id: string }>(`${BENCH_QUERY} SELECT ev.id FROM events ev JOIN payouts p ON ev.workspace_id = p.workspace_id AND ev.data->>'id' = p.id::text WHERE p.client_ref LIKE $1 AND ev.type LIKE 'payout.%'`, [`${label}-%`])).map((r) => r.id);
    const arrivals = (await receiver.ask<{ arrivals: (number | null)[] }>({ type: 'arrivals', ids })).arrivals;
    const receivedEach = arrivals.every((at) => at !== null);
    const ledgerSound = (await ledgerInvariantViolations(ctx.db)).length === 0;
    const correct =
      c.payouts === result.created && c.paid === c.payouts && c.paidEvents === c.payouts && c.paidEventsDoubled === 0 &&
      c.holdsOther === 0 && c.holdsPosted >= c.payouts && c.delivered === c.events && c.deliveriesOther === 0 &&
      c.stepJobs === 0 && c.failedJobs === 0 && receivedEach && ledgerSound;
    console.log(
      `    afterwards: ${c.payouts} payouts for ${result.created} answers 201 (${result.refused} refused), ${c.paid} paid, ${c.paidEvents} with a payout.paid event (${c.paidEventsDoubled} with two or more); ` +
        `holds ${c.holdsPosted} posted, ${c.holdsOther} not; ${c.events} events, ${c.delivered} delivered (${c.deliveriesOther} not), ${receivedEach ? 'each' : 'NOT each'} received by the endpoint; ` +
        `${c.stepJobs} step jobs left, ${c.failedJobs} failed jobs; ledger ${ledgerSound ? 'balanced' : 'NOT BALANCED'}: ${correct ? 'nothing lost or doubled' : 'WRONG'}`,
    );
    return { processes: n, result, check: c, receivedEach, ledgerSound, correct };
  } finally {
    for (const child of [...apis, ...workers]) child.kill('SIGTERM');
    await Promise.all([...apis, ...workers].map((child) => new Promise((resolve) => (child.exitCode !== null ? resolve(null) : child.once('exit', resolve)))));
  }
}

/**
 * `npm run bench -- scale`: the sustained case with 1 API + 1 worker process, then with 2 API + 2
 * worker processes, over one PostgreSQL (Redis at REDIS_URL, else 127.0.0.1:6379, for the limits the
 * API processes share), each phase followed by a check that every payout it created was paid once,
 * with its ledger postings, and that every one of its events was delivered.
 */
export async function scaleBench(): Promise<void> {
  const redis = process.env.BENCH_REDIS_URL || process.env.REDIS_URL || 'redis://127.0.0.1:6379';
  const setup = await setUp({ REDIS_URL: redis });
  try {
    console.log(
      `scale: ${os.cpus().length} cores; every process on this machine shares them, so on 2 cores the second phase shows correctness ` +
        `(several processes over one database, nothing lost or doubled) more than speed; load average ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}`,
    );
    const phases: Phase[] = [];
    for (const n of PROCESSES) phases.push(await phase(setup.ctx, setup.env, setup.receiver, setup.credentials, n, setup.statements && !smoke && n === 1));
    const figure = (key: (p: Phase) => string | number) => phases.map(key).join(',');
    console.log(
      `scale processes=${figure((p) => p.processes)} per_s=${figure((p) => p.result.perSecond)} p99_ms=${figure((p) => p.result.p99)} ` +
        `backlog=${figure((p) => (p.result.growing ? 'growing' : 'steady'))} correct=${phases.every((p) => p.correct) ? 'yes' : 'no'}`,
    );
    if (!phases.every((p) => p.correct)) throw new Error('scale: payouts lost or doubled, events not delivered, or the ledger unbalanced (see above)');
  } finally {
    await setup.close();
  }
}
