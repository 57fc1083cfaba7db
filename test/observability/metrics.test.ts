import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRunner } from '../../src/jobs.js';
import type { JobRunner } from '../../src/platform/jobs/runner.js';
import { createTestApp, operator, type Caller, type TestApp } from '../helpers/app.js';
import { HttpsReceiver } from '../helpers/https-receiver.js';
import { fund, payingWorkspace, ref, saveBeneficiary, waitFor } from '../payouts/helpers.js';

let t: TestApp;
let runner: JobRunner;
let c: Caller;
let receiver: HttpsReceiver;

beforeAll(async () => {
  receiver = await HttpsReceiver.start();
  t = await createTestApp({ env: { SANDBOX_STEP_MS: '40', JOB_POLL_MS: '20', METRICS_SAMPLE_MS: '0' } });
  runner = createRunner(t.ctx);
  runner.start();
  c = await payingWorkspace(t);
  await fund(c, 'EUR', '1000');
}, 120_000);
afterAll(async () => {
  await runner?.stop();
  await t?.close();
  await receiver?.close();
});

/** The value of one series in the exposition text (labels in the order prom-client writes them). */
function value(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe('GET /operator/v1/metrics', () => {
  it('wants the operator key: none, or a workspace token, is a 401', async () => {
    expect((await t.app.inject({ method: 'GET', url: '/operator/v1/metrics' })).statusCode).toBe(401);
    expect((await c.request('GET', '/operator/v1/metrics')).statusCode).toBe(401);
  });

  it('exposes requests, payouts by status, rail and connector, the oldest payout age, webhook attempts, the job queue and the process after a payout is paid', async () => {
    const endpoint = await c.request('POST', '/v1/webhooks', { url: receiver.url('/hooks') });
    expect(endpoint.statusCode, endpoint.body).toBe(201);
    const beneficiaryId = await saveBeneficiary(c);
    const held = await c.request('POST', '/v1/payouts', { clientRef: ref(), amount: '30.14', currency: 'EUR', beneficiary: { id: beneficiaryId } });
    expect(held.statusCode, held.body).toBe(201);
    const created = await c.request('POST', '/v1/payouts', { clientRef: ref(), amount: '10.00', currency: 'EUR', beneficiary: { id: beneficiaryId } });
    expect(created.statusCode, created.body).toBe(201);
    await waitFor(c, created.json<{ id: string }>().id, (p) => p.status === 'paid', 60_000);
    await waitFor(c, held.json<{ id: string }>().id, (p) => p.status === 'processing', 60_000);
    await receiver.waitUntil('/hooks', (got) => got.length > 0, 60_000);

    // The receiver has the request before the worker has its answer: scrape until the attempt is counted.
    let res = await operator(t.app, 'GET', '/operator/v1/metrics');
    for (let i = 0; i < 600 && value(res.body, 'corridor_webhook_attempts_total{outcome="succeeded"}') === undefined; i++) {
      await new Promise((r) => setTimeout(r, 100));
      res = await operator(t.app, 'GET', '/operator/v1/metrics');
    }
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = res.body;
    expect(value(text, 'corridor_payouts_created_total{status="queued",rail="international",connector="simulated"}')).toBeGreaterThanOrEqual(2);
    expect(value(text, 'corridor_payouts_moved_total{status="paid",rail="international",connector="simulated"}')).toBeGreaterThanOrEqual(1);
    expect(value(text, 'corridor_payouts_unfinished{connector="simulated",status="processing"}')).toBeGreaterThanOrEqual(1);
    expect(value(text, 'corridor_payout_oldest_age_seconds{connector="simulated",status="processing"}')).toBeGreaterThanOrEqual(0);
    expect(value(text, 'corridor_http_request_duration_seconds_count{method="POST",route="/v1/payouts",status="201"}')).toBeGreaterThanOrEqual(2);
    expect(value(text, 'corridor_webhook_attempts_total{outcome="succeeded"}')).toBeGreaterThanOrEqual(1);
    expect(text).toMatch(/^corridor_jobs_queued\{kind="[a-z._]+"\} \d+$/m);
    expect(text).toMatch(/^corridor_job_runs_total\{kind="payout\.step",outcome="done"\} \d+$/m);
    expect(text).toMatch(/^corridor_process_resident_memory_bytes \d+/m);
    expect(text).toMatch(/^corridor_db_transaction_duration_seconds_count|# HELP corridor_db_transaction_duration_seconds/m);
    expect(text).toContain('# HELP corridor_screening_list_age_seconds');
  });

  it('is not written to the audit log (a scrape every few seconds), unlike the other operator calls', async () => {
    await operator(t.app, 'GET', '/operator/v1/metrics');
    const res = await operator(t.app, 'GET', '/operator/v1/audit-log?limit=100');
    const paths = res.json<{ data: { path: string }[] }>().data.map((e) => e.path);
    expect(paths).not.toContain('/operator/v1/metrics');
    expect(paths.length).toBeGreaterThan(0);
  });
});
