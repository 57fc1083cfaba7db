import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callbackRefused, unknownCallback } from '../../src/connectors/mobile-money/mobile-money.conditions.js';
import { registryOf } from '../../src/connectors/registry.js';
import { alertsEvaluateJob } from '../../src/controls/alerts/alerts.jobs.js';
import { notificationsSendJob } from '../../src/controls/notifications/notifications.jobs.js';
import { operator } from '../helpers/app.js';
import { HttpsReceiver, signedWith, type Received } from '../helpers/https-receiver.js';
import { API_KEY, CALLBACK_SECRET, ghWallet, momoWorld, type MomoWorld } from './helpers.js';

const ALERT_SECRET = 'whsec_momo_alerts_test_secret_0123456789';
const ONCALL = '/oncall';

interface AlertHook {
  type: string;
  data: { id: string; source: string; subject: string; status: string; summary: string; details: { count: number; windowMinutes: number; latest: { correlationId: string } } };
}

/**
 * Issue 34 (5): callbacks for a correlation id Corridor never sent, and callbacks refused (forged,
 * replayed, or signed with another secret), are recorded and alerted: the connector declares
 * mobile_money.unknown_callback and mobile_money.callback_refused, and an evaluation takes each to the
 * operator's signed alert webhook, naming how many and the latest correlation id, and neither the
 * callback's body (personal data) nor a secret. The simulator sends the callbacks; Prism stands
 * between Corridor and it as in every mobile-money test.
 */
describe('mobile-money callbacks unknown or refused reach the operator as alerts', () => {
  let w: MomoWorld;
  let oncall: HttpsReceiver;

  beforeAll(async () => {
    oncall = await HttpsReceiver.start();
    w = await momoWorld({ env: { ALERT_WEBHOOK_URL: oncall.url(ONCALL, '127.0.0.1'), ALERT_WEBHOOK_SECRET: ALERT_SECRET } });
  }, 600_000);
  afterAll(async () => {
    await w?.close();
    await oncall?.close();
  });

  const callbackUrl = (correlationId: string) => `${String(w.section.callbackBaseUrl)}/callbacks/mobile-money/${encodeURIComponent(correlationId)}`;
  /** A transaction the simulator calls back with, carrying a wallet (personal data no alert may copy). */
  const transaction = (reference: string) => JSON.stringify({ transactionReference: reference, transactionStatus: 'completed', amount: '9.00', currency: 'GHS', type: 'disbursement', creditParty: [{ key: 'msisdn', value: ghWallet('7777') }] });

  /** One evaluation as the worker runs it, then the notifications job: answers the alert webhooks sent for mobile money. */
  async function evaluateAndSend(): Promise<AlertHook[]> {
    await alertsEvaluateJob(w.t.ctx, registryOf(w.t.ctx.connectors).alertSources());
    await notificationsSendJob(w.t.ctx);
    return oncall
      .requests(ONCALL)
      .map((r: Received) => {
        expect(signedWith(r.body, r.headers, ALERT_SECRET), 'the alert webhook is signed').toBe(true);
        return JSON.parse(r.body) as AlertHook;
      })
      .filter((h) => h.data.source.startsWith('mobile_money.'));
  }

  /** What an alert about callbacks may never carry: the callback's content and the connector's secrets. */
  const carriesNothingPrivate = (hook: AlertHook) => {
    const text = JSON.stringify(hook);
    for (const secret of [ghWallet('7777'), '7777', API_KEY, CALLBACK_SECRET, 'guessed-key-1234']) expect(text).not.toContain(secret);
  };

  it('are declared by the connector, so this deployment evaluates them; nothing opens while no such callback came', async () => {
    expect(registryOf(w.t.ctx.connectors).alertSources().map((s) => s.name)).toEqual(expect.arrayContaining(['mobile_money.unknown_callback', 'mobile_money.callback_refused']));
    expect(await evaluateAndSend()).toEqual([]);
    const conditions = await operator(w.t.app, 'GET', '/operator/v1/alert-conditions');
    expect(conditions.statusCode, conditions.body).toBe(200);
    expect(conditions.json<{ data: { id: string; unit: string; threshold: number }[] }>().data.filter((c) => c.id.startsWith('mobile_money.'))).toEqual(
      expect.arrayContaining([expect.objectContaining({ id: 'mobile_money.unknown_callback', unit: 'minutes', threshold: 60 }), expect.objectContaining({ id: 'mobile_money.callback_refused', unit: 'minutes', threshold: 60 })]),
    );
  }, 120_000);

  it('alerts callbacks for correlation ids Corridor never sent once, with their count and the latest id (shown safely), and closes when none came in the window', async () => {
    const first = '0b7f7a52-2f5e-4f4e-9a53-3a0c2b8f0a01';
    const odd = 'not-ours <b>1</b>';
    expect(await w.sim.deliver(callbackUrl(first), first, transaction('U1'))).toBe(404);
    expect(await w.sim.deliver(callbackUrl(odd), odd, transaction('U2'))).toBe(404);
    expect(await w.t.ctx.db.query("SELECT correlation_id FROM momo_callbacks WHERE outcome = 'unknown' ORDER BY received_at")).toEqual([{ correlation_id: first }, { correlation_id: odd }]);

    const hooks = await evaluateAndSend();
    expect(hooks).toHaveLength(1);
    const [opened] = hooks as [AlertHook];
    expect(opened).toMatchObject({ type: 'alert.opened', data: { source: 'mobile_money.unknown_callback', subject: 'unknown', status: 'open', details: { count: 2, windowMinutes: 60, latest: { correlationId: 'not-ours??b?1??b?' } } } });
    expect(opened.data.summary).toContain('2 mobile-money callback(s) for a correlation id Corridor never sent');
    expect(opened.data.summary).toContain('not-ours??b?1??b?');
    carriesNothingPrivate(opened);

    // Evaluated again with nothing new: no second notification; a third unknown callback updates the open alert's count.
    expect(await evaluateAndSend()).toHaveLength(1);
    const third = '0b7f7a52-2f5e-4f4e-9a53-3a0c2b8f0a03';
    expect(await w.sim.deliver(callbackUrl(third), third, transaction('U3'))).toBe(404);
    expect(await evaluateAndSend()).toHaveLength(1);
    const open = await operator(w.t.app, 'GET', `/operator/v1/alerts/${opened.data.id}`);
    expect(open.json()).toMatchObject({ status: 'open', details: { count: 3, latest: { correlationId: third } } });

    // An hour on, none in the window: the alert closes and the operator is told.
    await w.t.ctx.db.query("UPDATE momo_callbacks SET received_at = received_at - interval '61 minutes' WHERE outcome = 'unknown'");
    const after = await evaluateAndSend();
    expect(after.map((h) => [h.type, h.data.source, h.data.status])).toEqual([
      ['alert.opened', 'mobile_money.unknown_callback', 'open'],
      ['alert.closed', 'mobile_money.unknown_callback', 'closed'],
    ]);
  }, 120_000);

  it('alerts refused callbacks (a wrong secret, a stale date), naming the latest correlation id and neither the key tried nor the body', async () => {
    const target = '0b7f7a52-2f5e-4f4e-9a53-3a0c2b8f0b01';
    expect(await w.sim.deliver(callbackUrl(target), target, transaction('F1'), { 'X-API-Key': 'guessed-key-1234' })).toBe(401);
    expect(await w.sim.deliver(callbackUrl(target), target, transaction('F2'), { 'X-Date': new Date(Date.now() - 3_600_000).toISOString() })).toBe(401);
    expect(await unknownCallback.check(w.t.ctx, { threshold: 60, filter: {} })).toEqual([]);

    const refused = (await evaluateAndSend()).filter((h) => h.data.source === 'mobile_money.callback_refused');
    expect(refused).toHaveLength(1);
    const [opened] = refused as [AlertHook];
    expect(opened).toMatchObject({ type: 'alert.opened', data: { subject: 'refused', details: { count: 2, latest: { correlationId: target } } } });
    expect(opened.data.summary).toContain('2 mobile-money callback(s) refused');
    carriesNothingPrivate(opened);

    // A window of one minute no longer sees them once they are older.
    await w.t.ctx.db.query("UPDATE momo_callbacks SET received_at = received_at - interval '2 minutes' WHERE outcome = 'refused'");
    expect(await callbackRefused.check(w.t.ctx, { threshold: 1, filter: {} })).toEqual([]);
    expect(await callbackRefused.check(w.t.ctx, { threshold: 60, filter: {} })).toHaveLength(1);
  }, 120_000);
});
