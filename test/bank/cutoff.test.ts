import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HandedOverPayout } from '../../src/connectors/connector.js';
import type { BankConnector } from '../../src/connectors/bank/bank.connector.js';
import { endToEndIdOf } from '../../src/connectors/bank/bank.instructions.js';
import { validatePain001 } from '../../src/connectors/bank/pain001.validate.js';
import { operator, OPERATOR_KEY, type Caller, type TestApp } from '../helpers/app.js';
import { inboxFiles, sshdMissing, type SftpServer } from '../helpers/sftp-server.js';
import { WebClient } from '../helpers/web-client.js';
import { ADA, fund, ref } from '../payouts/helpers.js';
import { startBankApp, type BankApp } from './helpers.js';
import { until } from '../helpers/until.js';

const PAYOUTS = 1000;
const MAX_PAYOUTS = 300;

describe.skipIf(sshdMissing)(`cut-off windows${sshdMissing ? ` (${sshdMissing})` : ''}`, () => {
  let app: BankApp | undefined;
  let server: SftpServer;
  let t: TestApp;
  let c: Caller;

  beforeAll(async () => {
    app = await startBankApp({ cutoff: { maxPayouts: MAX_PAYOUTS, maxSeconds: 5 } }, { EUR: String(PAYOUTS * 2) });
    ({ server, t, c } = app);
  }, 240_000);
  afterAll(() => app?.stop());

  it(`${PAYOUTS} payouts in one cut-off: each leaves in exactly one file, no file holds more than maxPayouts, every file valid`, async () => {
    const ids: string[] = [];
    for (let i = 0; i < PAYOUTS; i += 100) {
      const res = await c.request(
        'POST',
        '/v1/payouts',
        Array.from({ length: 100 }, () => ({ clientRef: ref('k'), amount: '1.01', currency: 'EUR', route: 'sepa_credit', beneficiary: ADA })),
      );
      expect(res.statusCode, res.body).toBe(201);
      ids.push(...res.json<{ id: string }[]>().map((p) => p.id));
    }
    expect(new Set(ids).size).toBe(PAYOUTS);
    await until(
      'payouts processing',
      async () => (await t.ctx.db.query<{ n: number }>("SELECT count(*)::int AS n FROM payouts WHERE id = ANY($1::uuid[]) AND status = 'processing'", [ids]))[0]?.n,
      (n) => n === PAYOUTS,
    );
    const files = inboxFiles(server);
    const seen = new Map<string, number>();
    for (const f of files) {
      const e2e = [...f.xml.matchAll(/<EndToEndId>([^<]+)<\/EndToEndId>/g)].map((m) => m[1] as string);
      expect(e2e.length).toBeLessThanOrEqual(MAX_PAYOUTS);
      expect(f.xml).toContain(`<NbOfTxs>${e2e.length}</NbOfTxs>`);
      expect(await validatePain001(f.xml, 'sepa')).toMatchObject({ valid: true, errors: [] });
      for (const id of e2e) seen.set(id, (seen.get(id) ?? 0) + 1);
    }
    for (const id of ids) expect(seen.get(endToEndIdOf(id)), id).toBe(1);
    expect(seen.size).toBe(PAYOUTS);
    expect(files.length).toBeGreaterThanOrEqual(Math.ceil(PAYOUTS / MAX_PAYOUTS));
  }, 240_000); // a thousand payouts through a real SFTP server: minutes on a loaded machine

  it('a payout cancelled while it waits for its cut-off leaves in no file; once its file is delivered it can no longer be cancelled', async () => {
    const post = async () => {
      const res = await c.request('POST', '/v1/payouts', { clientRef: ref('x'), amount: '3.00', currency: 'EUR', route: 'sepa_credit', beneficiary: ADA });
      expect(res.statusCode, res.body).toBe(201);
      return res.json<{ id: string }>().id;
    };
    const cancelled = await post();
    await until(
      'handed over to the bank',
      async () => (await t.ctx.db.query<{ status: string }>('SELECT status FROM bank_payouts WHERE payout_id = $1', [cancelled]))[0]?.status,
      (status) => status === 'pending',
    );
    const cancel = await c.request('POST', `/v1/payouts/${cancelled}/cancel`, {});
    expect(cancel.statusCode, cancel.body).toBe(200);
    // Its window's next payout leaves in the file the cancelled one would have shared.
    const sent = await post();
    await until('the next payout processing', async () => (await c.request('GET', `/v1/payouts/${sent}`)).json<{ status: string }>().status, (s) => s === 'processing', 30_000);
    const all = inboxFiles(server).map((f) => f.xml).join('\n');
    expect(all).toContain(endToEndIdOf(sent));
    expect(all).not.toContain(endToEndIdOf(cancelled));
    const late = await c.request('POST', `/v1/payouts/${sent}/cancel`, {});
    expect(late.statusCode, late.body).toBe(409);
  });

  it("a file that fails its XSD never leaves: its payouts are held in the operator's queue with the validator's message (API and console)", async () => {
    // A real payout on a rail the bank does not serve, handed to the bank with an amount the EPC schema
    // refuses (SEPA amounts stop at 999,999,999.99): what a file carrying it must do.
    await fund(c, 'GBP', '10');
    const alan = { type: 'individual', name: 'Alan Turing', country: 'GB', accounts: [{ type: 'bank_account', currency: 'GBP', data: { accountNumber: '12345678', sortCode: '112233' } }] };
    const res = await c.request('POST', '/v1/payouts', { clientRef: ref('big'), amount: '1.00', currency: 'GBP', route: 'bank_transfer', beneficiary: alan });
    expect(res.statusCode, res.body).toBe(201);
    const payout = res.json<{ id: string; clientRef: string }>();
    const bank = t.ctx.connectors.get('bank') as BankConnector;
    const before = fs.readdirSync(server.inbox).length;
    const huge: HandedOverPayout = {
      id: payout.id,
      workspaceId: c.workspaceId,
      accountId: c.workspaceId,
      clientRef: payout.clientRef,
      amountMinor: 100_000_000_000n,
      currency: 'EUR',
      route: 'sepa_credit',
      rail: 'sepa_credit',
      beneficiary: ADA,
      sender: null,
      fundingCurrency: 'EUR',
      reference: null,
    };
    await t.ctx.db.tx((tx) => bank.accept(tx, [huge]));
    const held = await until(
      'held payouts',
      async () => (await operator(t.app, 'GET', '/operator/v1/bank/held-payouts')).json<{ data: { payoutId: string; reason: string; fileId: string }[] }>().data,
      (rows) => rows.some((r) => r.payoutId === payout.id),
      30_000,
    );
    const row = held.find((r) => r.payoutId === payout.id);
    expect(row?.reason).toMatch(/failed pain\.001\.001\.09 validation: .*InstdAmt.*maxInclusive/);
    const files = (await operator(t.app, 'GET', `/operator/v1/bank/files?status=invalid`)).json<{ data: { id: string; status: string; validationError: string; fileName: string }[] }>().data;
    expect(files.find((f) => f.id === row?.fileId)).toMatchObject({ status: 'invalid', validationError: expect.stringContaining('maxInclusive') });
    expect(fs.readdirSync(server.inbox).length).toBe(before);
    expect(fs.readdirSync(server.inbox)).not.toContain(files[0]?.fileName);
    // The console lists it.
    const web = new WebClient(t.app);
    await web.get('/console/sign-in');
    expect((await web.post('/console/sign-in/key', { operatorKey: OPERATOR_KEY })).statusCode).toBe(303);
    const page = await web.get('/console/bank');
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain(payout.id);
    expect(page.body).toContain('maxInclusive');
  });
});
