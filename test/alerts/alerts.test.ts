import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { alertsEvaluateJob } from '../../src/controls/alerts/alerts.jobs.js';
import { registryOf } from '../../src/connectors/registry.js';
import { conditionSources, type ConditionSource } from '../../src/controls/alerts/alert-sources.js';
import { evaluateAlerts } from '../../src/controls/alerts/alerts.service.js';
import { notificationsSendJob } from '../../src/controls/notifications/notifications.jobs.js';
import { signPayload } from '../../src/domains/webhooks/signature.js';
import { createTestApp, operator, OPERATOR_KEY, type Caller, type TestApp } from '../helpers/app.js';
import { startSmtp } from '../helpers/smtp.js';
import { WebClient } from '../helpers/web-client.js';
import { fund, payingWorkspace, ref, saveBeneficiary } from '../payouts/helpers.js';

const SECRET = 'whsec_alerts_test_secret_0123456789';

interface Hook {
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** The operator's webhook receiver: answers `status()` (200 unless told otherwise) and keeps what it got. */
async function startReceiver(): Promise<{ url: string; hooks: Hook[]; status: { code: number }; close: () => Promise<void> }> {
  const hooks: Hook[] = [];
  const status = { code: 200 };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      hooks.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      res.statusCode = status.code;
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/corridor-alerts`, hooks, status, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

let t: TestApp;
let smtp: Awaited<ReturnType<typeof startSmtp>>;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
let c: Caller;

beforeAll(async () => {
  smtp = await startSmtp();
  receiver = await startReceiver();
  t = await createTestApp({
    env: {
      ALERT_EMAIL_TO: 'oncall@example.test, payments-ops@example.test',
      SMTP_URL: `smtp://127.0.0.1:${smtp.port}`,
      ALERT_WEBHOOK_URL: receiver.url,
      ALERT_WEBHOOK_SECRET: SECRET,
    },
  });
  c = await payingWorkspace(t);
  await fund(c, 'EUR', '1000');
}, 120_000);
afterAll(async () => {
  await t?.close();
  await smtp?.close();
  await receiver?.close();
});

/** The signature check a receiver makes, with the signing workspace webhooks use. */
function verified(hook: Hook): boolean {
  const timestamp = Number(hook.headers['x-service-timestamp']);
  return hook.headers['x-service-signature'] === signPayload(SECRET, timestamp, hook.body);
}

async function openAlerts(): Promise<{ id: string; conditionId: string; subject: string; status: string; summary: string }[]> {
  const res = await operator(t.app, 'GET', '/operator/v1/alerts?status=open');
  expect(res.statusCode, res.body).toBe(200);
  return res.json<{ data: { id: string; conditionId: string; subject: string; status: string; summary: string }[] }>().data;
}

describe('alerts reach the operator by e-mail and signed webhook, once, and close when the condition clears', () => {
  it('opens a payouts.stuck alert for a queued payout past the threshold, sends it once, and closes it when the payout moves', async () => {
    const set = await operator(t.app, 'PUT', '/operator/v1/alert-conditions/payouts.stuck', { source: 'payouts.stuck', threshold: 0 });
    expect(set.statusCode, set.body).toBe(200);
    expect(set.json()).toMatchObject({ id: 'payouts.stuck', threshold: 0, unit: 'minutes', enabled: true });

    const beneficiaryId = await saveBeneficiary(c);
    const created = await c.request('POST', '/v1/payouts', { clientRef: ref(), amount: '12.00', currency: 'EUR', beneficiary: { id: beneficiaryId } });
    expect(created.statusCode, created.body).toBe(201);
    const payoutId = created.json<{ id: string }>().id;

    // Evaluated twice (as a worker does every ALERT_EVALUATE_MS): it opens once.
    await alertsEvaluateJob(t.ctx, registryOf(t.ctx.connectors).alertSources());
    await alertsEvaluateJob(t.ctx, registryOf(t.ctx.connectors).alertSources());
    const open = await openAlerts();
    expect(open).toHaveLength(1);
    expect(open[0]).toMatchObject({ conditionId: 'payouts.stuck', subject: 'simulated/queued', status: 'open' });

    await notificationsSendJob(t.ctx);
    expect(smtp.mails).toHaveLength(2);
    expect(smtp.mails.flatMap((m) => m.to).sort()).toEqual(['oncall@example.test', 'payments-ops@example.test']);
    expect(smtp.mails[0]?.raw).toMatch(/Subject: \[Corridor\] ALERT: 1 payout\(s\) queued on connector simulated/);
    expect(smtp.mails[0]?.raw).toContain('docs/operations.md#alert-payouts-stuck');
    expect(receiver.hooks).toHaveLength(1);
    const hook = receiver.hooks[0] as Hook;
    expect(verified(hook)).toBe(true);
    expect(JSON.parse(hook.body)).toMatchObject({ object: 'notification', type: 'alert.opened', data: { id: open[0]?.id, source: 'payouts.stuck', status: 'open' } });
    // Nothing is sent twice.
    await notificationsSendJob(t.ctx);
    expect(smtp.mails).toHaveLength(2);
    expect(receiver.hooks).toHaveLength(1);

    const cancelled = await c.request('POST', `/v1/payouts/${payoutId}/cancel`, {});
    expect(cancelled.statusCode, cancelled.body).toBe(200);
    await alertsEvaluateJob(t.ctx, registryOf(t.ctx.connectors).alertSources());
    expect(await openAlerts()).toHaveLength(0);
    const closed = await operator(t.app, 'GET', `/operator/v1/alerts/${open[0]?.id}`);
    expect(closed.json()).toMatchObject({ status: 'closed', closedAt: expect.any(String) });

    await notificationsSendJob(t.ctx);
    expect(smtp.mails).toHaveLength(4);
    expect(smtp.mails[3]?.raw).toMatch(/Subject: \[Corridor\] Resolved:/);
    expect(receiver.hooks).toHaveLength(2);
    expect(verified(receiver.hooks[1] as Hook)).toBe(true);
    expect(JSON.parse(receiver.hooks[1]?.body ?? '{}')).toMatchObject({ type: 'alert.closed', data: { id: open[0]?.id, status: 'closed' } });
  });

  it('takes a condition source another module registers with one line, and keeps its alerts open while it cannot be evaluated', async () => {
    const state = { low: ['0xhot'], broken: false };
    const gasLow: ConditionSource = {
      name: 'test.gas_low',
      unit: 'none',
      defaultThreshold: 0,
      filterKeys: [],
      description: 'hot wallet gas low (test source)',
      async check() {
        if (state.broken) throw new Error('chain unreachable');
        return state.low.map((w) => ({ subject: w, summary: `gas low on ${w}` }));
      },
    };
    const sources = [...conditionSources, gasLow];
    const first = await evaluateAlerts(t.ctx, sources);
    expect(first.opened.map((a) => a.subject)).toEqual(['0xhot']);
    state.broken = true;
    const failing = await evaluateAlerts(t.ctx, sources);
    expect(failing.failed).toEqual([{ conditionId: 'test.gas_low', error: 'chain unreachable' }]);
    expect(failing.closed).toEqual([]);
    expect((await openAlerts()).map((a) => a.subject)).toEqual(['0xhot']);
    state.broken = false;
    state.low = [];
    const cleared = await evaluateAlerts(t.ctx, sources);
    expect(cleared.closed.map((a) => a.subject)).toEqual(['0xhot']);
    await notificationsSendJob(t.ctx);
  });

  it('retries a webhook the operator URL refused, with the same body, until it is accepted', async () => {
    const sources: ConditionSource[] = [{ name: 'test.once', unit: 'none', defaultThreshold: 0, filterKeys: [], description: 'test', check: async () => [{ subject: 'x', summary: 'once' }] }];
    receiver.status.code = 503;
    const before = receiver.hooks.length;
    await evaluateAlerts(t.ctx, sources);
    await notificationsSendJob(t.ctx);
    const [pending] = await t.ctx.db.query<{ status: string; attempts: number; last_error: string }>(
      "SELECT status, attempts::int AS attempts, last_error FROM notifications WHERE channel = 'webhook' ORDER BY created_at DESC LIMIT 1",
    );
    expect(pending).toMatchObject({ status: 'pending', attempts: 1 });
    receiver.status.code = 200;
    await t.ctx.db.query("UPDATE notifications SET next_attempt_at = now() WHERE status = 'pending'");
    await notificationsSendJob(t.ctx);
    const sent = receiver.hooks.slice(before);
    expect(sent).toHaveLength(2);
    expect(sent[1]?.body).toBe(sent[0]?.body);
    expect(JSON.parse(sent[1]?.body ?? '{}').id).toBe(JSON.parse(sent[0]?.body ?? '{}').id);
  });

  it('refuses a condition with an unknown source or a filter its source does not take', async () => {
    const unknown = await operator(t.app, 'PUT', '/operator/v1/alert-conditions/x', { source: 'nope', threshold: 1 });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.body).toContain('source');
    const badFilter = await operator(t.app, 'PUT', '/operator/v1/alert-conditions/bank-processing', { source: 'payouts.stuck', threshold: 30, filter: { wallet: 'x' } });
    expect(badFilter.statusCode).toBe(400);
    expect(badFilter.body).toContain('filter.wallet');
    const narrow = await operator(t.app, 'PUT', '/operator/v1/alert-conditions/bank-processing', { source: 'payouts.stuck', threshold: 30, filter: { connector: 'bank', status: 'processing' } });
    expect(narrow.statusCode, narrow.body).toBe(200);
    const list = await operator(t.app, 'GET', '/operator/v1/alert-conditions');
    expect(list.json<{ data: { id: string }[] }>().data.map((d) => d.id)).toEqual(expect.arrayContaining(['bank-processing', 'payouts.stuck', 'webhooks.endpoint_failing', 'approvals.waiting', 'screening.list_stale', 'ledger.invariant']));
  });

  it('shows alerts to the operator only: the API wants the operator key, the console page a signed-in operator', async () => {
    expect((await t.app.inject({ method: 'GET', url: '/operator/v1/alerts' })).statusCode).toBe(401);
    expect((await c.request('GET', '/operator/v1/alerts')).statusCode).toBe(401);
    const web = new WebClient(t.app);
    await web.get('/console/sign-in');
    expect((await web.post('/console/sign-in/key', { operatorKey: OPERATOR_KEY })).statusCode).toBe(303);
    const page = await web.get('/console/alerts');
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('Open alerts');
    expect(page.body).toContain('payouts.stuck');
    expect(page.body).toContain('Notifications sent');
  });
});
