import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Connector, ConnectorPayoutView, ConnectorStep, RecipientCheck, RecipientCheckRequest } from '../../src/connectors/connector.js';
import { defineConnector } from '../../src/connectors/definition.js';
import { createRunner } from '../../src/jobs.js';
import type { JobRunner } from '../../src/platform/jobs/runner.js';
import { createTestApp, type Caller, type TestApp } from '../helpers/app.js';
import { dashboardUser } from '../helpers/web-client.js';
import { ADA, balance, eventTypesOf, fund, payingWorkspace, ref, saveBeneficiary, waitFor, type PayoutView } from '../payouts/helpers.js';

/**
 * A connector of the test's own that offers recipient checks (as a Confirmation of Payee or a name
 * enquiry would) and pays what it is handed: processing at its first step, paid at the next. What
 * its rail answers is set by each test.
 */
class NamingConnector implements Connector {
  readonly name = 'naming';
  readonly asked: RecipientCheckRequest[] = [];
  answer: (request: RecipientCheckRequest) => Promise<RecipientCheck> = async () => ({ kind: 'account_name', accountName: 'ADA LOVELACE' });
  firstStepMs(): number {
    return 0;
  }
  nextStep(payout: ConnectorPayoutView): ConnectorStep {
    if (payout.status === 'queued') return { move: 'process', nextInMs: 0 };
    if (payout.status === 'processing') return { move: 'pay', nextInMs: null };
    return { move: 'none', nextInMs: null };
  }
  canCancelProcessing(): boolean {
    return false;
  }
  async verifyRecipient(request: RecipientCheckRequest): Promise<RecipientCheck> {
    this.asked.push(request);
    return this.answer(request);
  }
}

interface CheckView {
  status: string;
  result: string | null;
  name: string;
  railName: string | null;
  reason: string | null;
  connector: string;
  checkedAt: string | null;
  decidedBy: string | null;
  decidedAt: string | null;
}
type Read = PayoutView & { recipientCheck?: CheckView };

const ATTEMPTS = 3;

describe('the recipient check before paying', () => {
  let t: TestApp;
  let runner: JobRunner;
  let c: Caller;
  const naming = new NamingConnector();

  beforeAll(async () => {
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'corridor-connectors-')), 'connectors.json');
    fs.writeFileSync(file, JSON.stringify({ routes: { sepa_credit: 'naming' }, naming: {} }));
    t = await createTestApp({
      env: { CORRIDOR_CONNECTORS_FILE: file, JOB_POLL_MS: '20', RECIPIENT_CHECK_ATTEMPTS_MAX: String(ATTEMPTS), RECIPIENT_CHECK_TIMEOUT_MS: '20000' },
      connectors: [defineConnector({ name: 'naming', section: 'naming', build: () => naming, reasons: [], backlog: ['queued'] })],
    });
    runner = createRunner(t.ctx);
    runner.start();
    c = await payingWorkspace(t);
    await fund(c, 'EUR', '10000');
  }, 180_000);
  afterAll(async () => {
    await runner?.stop();
    await t?.close();
  });

  const post = (url: string, body?: unknown) => c.request('POST', url, body, { 'idempotency-key': randomUUID() });
  const read = async (id: string): Promise<Read> => (await c.request('GET', `/v1/payouts/${id}`)).json<Read>();
  const waitRead = (id: string, until: (p: Read) => boolean) => waitFor(c, id, (p) => until(p as Read), 60_000) as Promise<Read>;

  async function pay(beneficiary: Record<string, unknown> = ADA, route = 'sepa_credit'): Promise<Read> {
    const res = await post('/v1/payouts', { clientRef: ref(), amount: '10.00', currency: 'EUR', route, beneficiary });
    expect(res.statusCode, res.body).toBe(201);
    return res.json<Read>();
  }

  it('pays a payout whose name the rail matches, without a hold, the check on the payout', async () => {
    naming.answer = async () => ({ kind: 'account_name', accountName: 'ADA LOVELACE' });
    const created = await pay();
    expect(created.recipientCheck).toMatchObject({ status: 'pending', result: null, name: 'Ada Lovelace', connector: 'naming' });
    const paid = await waitRead(created.id, (p) => p.status === 'paid');
    expect(paid.recipientCheck).toMatchObject({ status: 'passed', result: 'match', name: 'Ada Lovelace', railName: 'ADA LOVELACE', decidedBy: null });
    expect(paid.recipientCheck?.checkedAt).toEqual(expect.any(String));
    const asked = naming.asked.find((q) => q.reference === created.id);
    expect(asked).toMatchObject({ rail: 'sepa_credit', currency: 'EUR', name: 'Ada Lovelace' });
    expect(asked?.beneficiary).toMatchObject({ name: 'Ada Lovelace', country: 'DE' });
    expect(await eventTypesOf(t, created.id)).not.toContain('payout.recipient_check_required');
  });

  it('matches a name with its words reordered, accents and punctuation', async () => {
    naming.answer = async () => ({ kind: 'account_name', accountName: 'Ada Lovelace' });
    const created = await pay({ ...ADA, name: 'LOVELACE, Ádá' });
    const paid = await waitRead(created.id, (p) => p.status === 'paid');
    expect(paid.recipientCheck).toMatchObject({ status: 'passed', result: 'match', name: 'LOVELACE, Ádá', railName: 'Ada Lovelace' });
  });

  it('holds a close match with both names, and pays it once the workspace confirms', async () => {
    naming.answer = async () => ({ kind: 'account_name', accountName: 'Ada King Lovelace' });
    const created = await pay();
    const held = await waitRead(created.id, (p) => p.recipientCheck?.status === 'held');
    expect(held.status).toBe('queued');
    expect(held.recipientCheck).toMatchObject({ result: 'close_match', name: 'Ada Lovelace', railName: 'Ada King Lovelace' });
    const [event] = await t.ctx.db.query<{ data: { id: string; recipientCheck: CheckView } }>(
      "SELECT data FROM events WHERE type = 'payout.recipient_check_required' AND data->>'id' = $1",
      [created.id],
    );
    expect(event?.data.recipientCheck).toMatchObject({ status: 'held', result: 'close_match', name: 'Ada Lovelace', railName: 'Ada King Lovelace' });
    // Held, the sandbox cannot push it forward either.
    expect((await post(`/v1/sandbox/payouts/${created.id}/process`)).json()).toMatchObject({ code: 'PAYOUT_HELD' });

    const confirmed = await post(`/v1/payouts/${created.id}/recipient-check/confirm`);
    expect(confirmed.statusCode, confirmed.body).toBe(200);
    expect(confirmed.json<Read>().recipientCheck).toMatchObject({ status: 'confirmed', result: 'close_match', decidedBy: `client:${c.clientId}` });
    expect(confirmed.json<Read>().recipientCheck?.decidedAt).toEqual(expect.any(String));
    const paid = await waitRead(created.id, (p) => p.status === 'paid');
    expect(paid.recipientCheck).toMatchObject({ status: 'confirmed', decidedBy: `client:${c.clientId}` });
    const audit = await t.ctx.db.query<{ actor: string }>("SELECT actor FROM operator_audit_log WHERE path = $1", [`/v1/payouts/${created.id}/recipient-check/confirm`]);
    expect(audit.map((a) => a.actor)).toEqual([`client:${c.clientId}`]);
    // Decided: a second confirmation is refused.
    expect((await post(`/v1/payouts/${created.id}/recipient-check/confirm`)).json()).toMatchObject({ code: 'RECIPIENT_CHECK_NOT_HELD' });
  });

  it('holds a payout the rail says does not match, and its cancel returns the funds once and withdraws the check', async () => {
    const before = await balance(c, 'EUR');
    naming.answer = async () => ({ kind: 'verdict', result: 'no_match', reason: 'ANNM' });
    const created = await pay();
    const held = await waitRead(created.id, (p) => p.recipientCheck?.status === 'held');
    expect(held.recipientCheck).toMatchObject({ result: 'no_match', reason: 'ANNM', railName: null });
    const cancelled = await post(`/v1/payouts/${created.id}/cancel`);
    expect(cancelled.statusCode, cancelled.body).toBe(200);
    expect(cancelled.json<Read>()).toMatchObject({ status: 'cancelled', recipientCheck: { status: 'withdrawn', decidedBy: 'system' } });
    expect((await read(created.id)).recipientCheck).toMatchObject({ status: 'withdrawn', result: 'no_match', decidedBy: 'system' });
    expect((await post(`/v1/payouts/${created.id}/cancel`)).statusCode).toBe(409);
    expect((await post(`/v1/payouts/${created.id}/recipient-check/confirm`)).json()).toMatchObject({ code: 'RECIPIENT_CHECK_NOT_HELD' });
    const after = await balance(c, 'EUR');
    expect({ balance: after?.balance, pendingOut: after?.pendingOut }).toEqual({ balance: before?.balance, pendingOut: before?.pendingOut });
  });

  it('holds a payout to an account the rail does not know, which cannot be confirmed', async () => {
    naming.answer = async () => ({ kind: 'account_not_found', reason: 'AC01' });
    const created = await pay();
    await waitRead(created.id, (p) => p.recipientCheck?.status === 'held');
    const refused = await post(`/v1/payouts/${created.id}/recipient-check/confirm`);
    expect(refused.statusCode).toBe(409);
    expect(refused.json()).toMatchObject({ code: 'RECIPIENT_ACCOUNT_NOT_FOUND' });
    expect(await read(created.id)).toMatchObject({ status: 'queued', recipientCheck: { status: 'held', result: 'account_not_found' } });
    expect((await post(`/v1/payouts/${created.id}/cancel`)).json()).toMatchObject({ status: 'cancelled' });
  });

  it('asks a failing rail again with backoff, then holds the payout as unavailable for the workspace, never paying it by itself', async () => {
    let calls = 0;
    naming.answer = async () => {
      calls++;
      throw new Error('connection reset by the rail');
    };
    const created = await pay();
    const held = await waitRead(created.id, (p) => p.recipientCheck?.status === 'held');
    expect(calls).toBe(ATTEMPTS);
    expect(held).toMatchObject({ status: 'queued', recipientCheck: { result: 'unavailable' } });
    expect(held.recipientCheck?.reason).toContain('connection reset by the rail');
    const confirmed = await post(`/v1/payouts/${created.id}/recipient-check/confirm`);
    expect(confirmed.statusCode, confirmed.body).toBe(200);
    await waitRead(created.id, (p) => p.status === 'paid');
  });

  it('withdraws a check still waiting for the rail when the payout is cancelled, and records no late answer', async () => {
    let release: (answer: RecipientCheck) => void = () => undefined;
    let asked: () => void = () => undefined;
    const wasAsked = new Promise<void>((resolve) => (asked = resolve));
    naming.answer = () =>
      new Promise<RecipientCheck>((resolve) => {
        release = resolve;
        asked();
      });
    const created = await pay();
    await wasAsked;
    const cancelled = await post(`/v1/payouts/${created.id}/cancel`);
    expect(cancelled.json<Read>()).toMatchObject({ status: 'cancelled', recipientCheck: { status: 'withdrawn', result: null } });
    release({ kind: 'account_name', accountName: 'Ada Lovelace' });
    // The job ends once the late answer meets the withdrawn check.
    for (let i = 0; i < 2400; i++) {
      const [job] = await t.ctx.db.query<{ n: number }>("SELECT count(*)::int AS n FROM jobs WHERE kind = 'payout.recipient_check' AND payload->>'payoutId' = $1 AND status <> 'failed'", [created.id]);
      if (job?.n === 0) break;
      await new Promise((r) => setTimeout(r, 25));
    }
    expect(await read(created.id)).toMatchObject({ status: 'cancelled', recipientCheck: { status: 'withdrawn', result: null } });
  });

  it('leaves a payout whose connector offers no check as it was: no recipientCheck, paid', async () => {
    const asked = naming.asked.length;
    const created = await pay(ADA, 'sepa_inst');
    expect(created.recipientCheck).toBeUndefined();
    const paid = await waitRead(created.id, (p) => p.status === 'paid');
    expect(paid.recipientCheck).toBeUndefined();
    expect(naming.asked.length).toBe(asked);
  });

  it('checks a saved beneficiary on request through the connector of its route, and says when that route offers no check', async () => {
    const id = await saveBeneficiary(c, { ...ADA, name: 'Ada Lovelace' });
    naming.answer = async () => ({ kind: 'verdict', result: 'close_match', suggestedName: 'Ada K. Lovelace' });
    const res = await post(`/v1/beneficiaries/${id}/verify-recipient`, { currency: 'EUR', route: 'sepa_credit' });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ beneficiaryId: id, currency: 'EUR', route: 'sepa_credit', connector: 'naming', result: 'close_match', name: 'Ada Lovelace', railName: 'Ada K. Lovelace' });
    const notOffered = await post(`/v1/beneficiaries/${id}/verify-recipient`, { currency: 'EUR', route: 'sepa_inst' });
    expect(notOffered.statusCode).toBe(409);
    expect(notOffered.json()).toMatchObject({ code: 'RECIPIENT_CHECK_NOT_OFFERED' });
    const noAccount = await post(`/v1/beneficiaries/${id}/verify-recipient`, { currency: 'NGN' });
    expect(noAccount.statusCode).toBe(400);
    expect((await post(`/v1/beneficiaries/${randomUUID()}/verify-recipient`, { currency: 'EUR' })).statusCode).toBe(404);
  });

  it("shows a held check on the dashboard's payout page with both names, and confirms it from there", async () => {
    naming.answer = async () => ({ kind: 'account_name', accountName: 'Ada Lovelase' });
    const created = await pay();
    await waitRead(created.id, (p) => p.recipientCheck?.status === 'held');
    const web = await dashboardUser(t.app, c.workspaceId, `admin-${ref()}@example.com`);
    const pageRes = await web.get(`/dashboard/payouts/${created.id}`);
    expect(pageRes.statusCode).toBe(200);
    expect(pageRes.body).toContain('Recipient check: waiting for your decision');
    expect(pageRes.body).toContain('Ada Lovelase');
    expect(pageRes.body).toContain('Ada Lovelace');
    const form = /action="\/dashboard\/payouts\/[^"]+\/recipient-check\/confirm"[\s\S]*?name="_idempotency" value="([^"]+)"/.exec(pageRes.body);
    expect(form?.[1]).toBeDefined();
    expect(pageRes.body).toContain(`action="/dashboard/payouts/${created.id}/cancel"`);
    const done = await web.post(`/dashboard/payouts/${created.id}/recipient-check/confirm`, { _idempotency: form?.[1] as string });
    expect(done.statusCode, done.body).toBe(303);
    const again = await web.post(`/dashboard/payouts/${created.id}/recipient-check/confirm`, { _idempotency: form?.[1] as string });
    expect(again.statusCode).toBe(303);
    const confirmed = await waitRead(created.id, (p) => p.status === 'paid');
    expect(confirmed.recipientCheck).toMatchObject({ status: 'confirmed', decidedBy: expect.stringMatching(/^user:/) });
  });

  it("keeps the check's answer on the dashboard's payout page once decided: the result, the name the rail holds, the rail's reason and who confirmed it", async () => {
    naming.answer = async () => ({ kind: 'verdict', result: 'close_match', suggestedName: 'Ada K Lovelace', reason: 'MBAM: close match' });
    const created = await pay();
    await waitRead(created.id, (p) => p.recipientCheck?.status === 'held');
    const web = await dashboardUser(t.app, c.workspaceId, `admin-${ref()}@example.com`);
    const held = (await web.get(`/dashboard/payouts/${created.id}`)).body;
    expect(held).toContain('Recipient check: waiting for your decision');
    expect(held).toMatch(/Name the rail holds[\s\S]*Ada K Lovelace/);
    expect(held).toMatch(/Rail&#39;s reason[\s\S]*MBAM: close match/);

    expect((await post(`/v1/payouts/${created.id}/recipient-check/confirm`)).statusCode).toBe(200);
    await waitRead(created.id, (p) => p.status === 'paid');
    const page = (await web.get(`/dashboard/payouts/${created.id}`)).body;
    expect(page).not.toContain('Recipient check: waiting for your decision');
    const line = /<dt>Recipient check<\/dt>\s*<dd>([\s\S]*?)<\/dd>/.exec(page)?.[1] ?? '';
    expect(line).toContain('confirmed');
    expect(line).toContain("a close match: the account holder&#39;s name differs a little (naming)");
    expect(line).toContain('the rail holds the name Ada K Lovelace');
    expect(line).toContain("the rail's reason: MBAM: close match");
    expect(line).toContain(`confirmed by client:${c.clientId}`);
  });
});
