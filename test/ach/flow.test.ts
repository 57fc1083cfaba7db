import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AchConnector } from '../../src/connectors/ach/index.js';
import { readNacha } from '../../src/connectors/ach/nacha.js';
import { SandboxAchBank, type SandboxRule } from '../../src/connectors/ach/sandbox.js';
import { runCutoff, runPoll } from '../../src/connectors/ach/service.js';
import { createRunner } from '../../src/jobs.js';
import { createTestApp, OPERATOR_KEY, type Caller, type TestApp } from '../helpers/app.js';
import { HttpsReceiver, signedWith } from '../helpers/https-receiver.js';
import { WebClient } from '../helpers/web-client.js';
import { sshdMissing, startSftpServer, type SftpServer } from '../helpers/sftp-server.js';
import { connectorsFile } from '../bank/helpers.js';
import { balance, eventTypesOf, fund, payingWorkspace, ref, saveBeneficiary } from '../payouts/helpers.js';
import { settlementReference } from '../../src/connectors/ach/service.js';
import { getStatement } from '../../src/controls/reconciliation/reconciliation.service.js';
import { achSection, bai2Statement, US_PERSON } from './helpers.js';

const nacha = createRequire(import.meta.url)('@midlandsbank/node-nacha') as { from(text: string): { data: { file: { footer: { entryAndAddendaCount: number; totalCredit: number; totalDebit: number; entryHash: number } }; batches: { entries: { amount: number; receivingDFIIdentification: number; traceNumber: number; transactionCode: number | string; dfiAccount: string }[] }[] } } };

const RULES: SandboxRule[] = [
  { match: { accountNumber: '55550003' }, action: { return: { code: 'R03' } } },
  { match: { accountNumber: '55550101' }, action: { correction: { code: 'C01', data: '55550199' } } },
  { match: { accountNumber: '55550001' }, action: { return: { code: 'R01' } } },
  { match: { accountNumber: '55550501' }, action: { correction: { code: 'C01', data: '55550599' } } },
];

/** The files in the ODFI's inbox, read. */
const inbox = (server: SftpServer) =>
  fs
    .readdirSync(server.inbox)
    .filter((n) => n.endsWith('.ach'))
    .sort()
    .map((name) => ({ name, text: fs.readFileSync(path.join(server.inbox, name), 'latin1') }));

describe.skipIf(sshdMissing)('ACH payouts over a real SFTP server', () => {
  let server: SftpServer;
  let t: TestApp;
  let c: Caller;
  let ach: AchConnector;
  let clock = new Date('2026-11-27T14:00:00Z'); // 09:00 in New York on a banking day
  const bank = () => new SandboxAchBank({ inbox: server.inbox, outbox: server.outbox, pending: path.join(server.dir, 'pending') }, RULES, () => clock);

  /** The worker's job runner, ticked until no job is due (payouts handed over, files uploaded). */
  async function work(): Promise<void> {
    const runner = createRunner(t.ctx);
    try {
      for (let i = 0; i < 1000; i++) {
        await runner.tick();
        const [due] = await t.ctx.db.query<{ n: number }>("SELECT count(*)::int AS n FROM jobs WHERE status = 'queued' AND run_at <= now() AND kind <> 'ach.poll'");
        if (due?.n === 0) break;
      }
    } finally {
      await runner.stop();
    }
  }

  beforeAll(async () => {
    server = await startSftpServer();
    t = await createTestApp({ env: { CORRIDOR_CONNECTORS_FILE: connectorsFile({ routes: { ach: 'ach' }, ach: achSection(server, { statementAccounts: [{ id: 'usd-ach', accountNumber: '5647772655' }] }) }) } });
    ach = t.ctx.connectors.get('ach') as AchConnector;
    ach.runtime.now = () => clock;
    c = await payingWorkspace(t);
    await fund(c, 'USD', '100000');
  }, 180_000);
  afterAll(async () => {
    await t?.close();
    await server?.stop();
  });

  async function pay(beneficiary: Record<string, unknown>, amount: string): Promise<string> {
    const res = await c.request('POST', '/v1/payouts', { clientRef: ref('ach'), amount, currency: 'USD', route: 'ach', beneficiary });
    expect(res.statusCode, res.body).toBe(201);
    return res.json<{ id: string }>().id;
  }

  async function status(id: string) {
    return (await c.request('GET', `/v1/payouts/${id}`)).json<{ status: string; failureReason: string | null; returnReason?: { code: string; description: string } | null }>();
  }

  async function cutAndSend(): Promise<void> {
    await work(); // handed over to the connector
    await new Promise((r) => setTimeout(r, 1100)); // the section's maxSeconds: the oldest payout is due
    await runCutoff(t.ctx, ach.runtime);
    await work();
  }

  it('pays to a NACHA file and back as R03: reverted with the code, the funds back once', async () => {
    const before = await balance(c, 'USD');
    const id = await pay(US_PERSON('55550003'), '25.00');
    await cutAndSend();
    expect((await status(id)).status).toBe('processing');
    const [file] = inbox(server);
    expect(file).toBeDefined();
    const read = readNacha(file!.text);
    expect(read.batches[0]).toMatchObject({ sec: 'PPD', effectiveDate: '261127' });
    expect(read.totalCreditCents).toBe(2500n);
    // The effective date comes: paid. Then the ODFI's return comes back.
    await runPoll(t.ctx, ach.runtime);
    expect((await status(id)).status).toBe('paid');
    expect(bank().tick()).toHaveLength(1);
    await runPoll(t.ctx, ach.runtime);
    const after = await status(id);
    expect(after).toMatchObject({ status: 'failed', returnReason: { code: 'R03', description: expect.stringContaining('no account') } });
    expect((await eventTypesOf(t, id)).filter((e) => e === 'payout.reverted')).toHaveLength(1);
    expect((await balance(c, 'USD'))?.balance).toBe(before?.balance);
    // The same return file read again (put back in the outbox) applies nothing.
    const archived = fs.readdirSync(path.join(server.outbox, 'archive'));
    for (const name of archived) fs.copyFileSync(path.join(server.outbox, 'archive', name), path.join(server.outbox, name));
    await runPoll(t.ctx, ach.runtime);
    for (const name of archived) fs.rmSync(path.join(server.outbox, name));
    expect((await balance(c, 'USD'))?.balance).toBe(before?.balance);
    expect((await eventTypesOf(t, id)).filter((e) => e === 'payout.reverted')).toHaveLength(1);
  }, 120_000);

  it('corrects the saved beneficiary\'s account number with a C01, audited, and tells the workspace by a beneficiary.updated webhook', async () => {
    const receiver = await HttpsReceiver.start();
    try {
      const endpoint = await c.request('POST', '/v1/webhooks', { url: receiver.url('/noc'), events: ['beneficiary.updated'] }, { 'idempotency-key': ref('wh') });
      expect(endpoint.statusCode, endpoint.body).toBe(201);
      const beneficiaryId = await saveBeneficiary(c, US_PERSON('55550101'));
      const id = await pay({ id: beneficiaryId }, '10.00');
      await cutAndSend();
      expect(bank().tick()).toHaveLength(1);
      await runPoll(t.ctx, ach.runtime);
      const saved = (await c.request('GET', `/v1/beneficiaries/${beneficiaryId}`)).json<{ accounts: { id: string; data: { accountNumber: string } }[] }>();
      expect(saved.accounts[0]?.data.accountNumber).toBe('55550199');
      const audit = await t.ctx.db.query<{ body: { railCode: string; change: string } }>('SELECT body FROM operator_audit_log WHERE path = $1', [`/v1/beneficiaries/${beneficiaryId}`]);
      expect(audit.map((a) => [a.body.change, a.body.railCode])).toEqual([['beneficiary.account_corrected', 'C01']]);
      expect((await status(id)).status).toBe('paid');
      // The webhook: signed, naming the account and the field corrected, never the account number.
      const runner = createRunner(t.ctx);
      runner.start();
      try {
        const [got] = await receiver.waitUntil('/noc', (r) => r.length > 0, 120_000, 'the beneficiary.updated delivery');
        expect(signedWith(got!.body, got!.headers, endpoint.json<{ secret: string }>().secret)).toBe(true);
        const event = JSON.parse(got!.body) as { type: string; data: Record<string, unknown> };
        expect(event).toMatchObject({
          type: 'beneficiary.updated',
          data: { id: beneficiaryId, status: 'active', correction: { code: 'C01', description: expect.stringContaining('account number'), beneficiaryAccountId: saved.accounts[0]?.id, payoutId: id, fields: ['accountNumber'] } },
        });
        expect(got!.body).not.toContain('55550199');
      } finally {
        await runner.stop();
      }
      const events = await t.ctx.db.query<{ type: string }>("SELECT type FROM events WHERE workspace_id = $1 AND type = 'beneficiary.updated'", [c.workspaceId]);
      expect(events).toHaveLength(1);
    } finally {
      await receiver.close();
    }
  }, 240_000);

  it('sends a return that comes after its window to the operator\'s exceptions as late, the payout left paid', async () => {
    const id = await pay(US_PERSON('55550001'), '12.00');
    await cutAndSend();
    await runPoll(t.ctx, ach.runtime);
    expect((await status(id)).status).toBe('paid');
    const settled = clock;
    try {
      // Settled Friday 27 November 2026; an R01 may come until two banking days later (Tuesday 1 December). It comes on Thursday 3 December.
      clock = new Date('2026-12-03T15:00:00Z');
      const before = await balance(c, 'USD');
      expect(bank().tick()).toHaveLength(1);
      await runPoll(t.ctx, ach.runtime);
      expect((await status(id)).status).toBe('paid');
      expect((await eventTypesOf(t, id)).filter((e) => e === 'payout.reverted')).toHaveLength(0);
      expect((await balance(c, 'USD'))?.balance).toBe(before?.balance);
      const exceptions = await t.ctx.db.query<{ code: string; actor: string; reason: string }>('SELECT code, actor, reason FROM ach_exceptions WHERE payout_id = $1', [id]);
      expect(exceptions).toEqual([
        {
          code: 'R01',
          actor: 'operator',
          reason: expect.stringMatching(/^late return R01 \(insufficient funds.*\) of an entry settled on 2026-11-27: it came on 2026-12-03, after its window closed on 2026-12-01; the payout keeps its state/),
        },
      ]);
    } finally {
      clock = settled;
    }
  }, 120_000);

  it('puts 1,000 payouts across a cut-off each in exactly one file, Same Day before it and next day after, with control totals an independent library agrees with', async () => {
    const already = new Set(inbox(server).map((f) => f.name));
    const ids: string[] = [];
    const make = async (n: number) => {
      for (let i = 0; i < n; i += 50) ids.push(...(await Promise.all(Array.from({ length: Math.min(50, n - i) }, (_, k) => pay(US_PERSON(`7000${String(ids.length + k).padStart(4, '0')}`), `${1 + ((i + k) % 97)}.${String((i + k) % 100).padStart(2, '0')}`)))));
    };
    clock = new Date('2026-11-30T19:40:00Z'); // 14:40 New York, five minutes before the last Same Day cut-off
    await make(500);
    await cutAndSend();
    clock = new Date('2026-11-30T19:50:00Z'); // 14:50: past it
    await make(500);
    await cutAndSend();
    const files = inbox(server).filter((f) => !already.has(f.name));
    expect(files).toHaveLength(2);
    const rows = await t.ctx.db.query<{ payout_id: string; amount_minor: string; trace_number: string; file_name: string }>(
      'SELECT p.payout_id::text AS payout_id, p.amount_minor::text AS amount_minor, p.trace_number, f.file_name FROM ach_payouts p JOIN ach_files f ON f.id = p.file_id WHERE p.payout_id = ANY($1::uuid[])',
      [ids],
    );
    expect(rows).toHaveLength(1000);
    const traces = files.flatMap((f) => readNacha(f.text).batches.flatMap((b) => b.entries.map((e) => e.traceNumber)));
    expect(traces).toHaveLength(1000);
    expect(new Set(traces).size).toBe(1000);
    expect(new Set(rows.map((r) => r.trace_number))).toEqual(new Set(traces));
    const effective = files.map((f) => readNacha(f.text).batches.map((b) => b.effectiveDate));
    expect(effective).toEqual([['261130'], ['261201']]);
    for (const f of files) {
      const lib = nacha.from(f.text).data;
      const entries = lib.batches.flatMap((b) => b.entries);
      const mine = rows.filter((r) => r.file_name === f.name);
      expect(entries).toHaveLength(500);
      expect(lib.file.footer.entryAndAddendaCount).toBe(500);
      expect(BigInt(lib.file.footer.totalCredit)).toBe(mine.reduce((s, r) => s + BigInt(r.amount_minor), 0n));
      expect(BigInt(lib.file.footer.totalCredit)).toBe(entries.reduce((s, e) => s + BigInt(e.amount), 0n));
      expect(BigInt(lib.file.footer.entryHash)).toBe(entries.reduce((s, e) => s + BigInt(e.receivingDFIIdentification), 0n) % 10_000_000_000n);
    }
  }, 600_000);

  it('shows the operator the files sent with their control totals, the returns and NOCs received, what moved nothing, and the cut-off calendar, under a strict CSP', async () => {
    const saved = clock;
    clock = new Date('2026-12-24T15:00:00Z'); // 10:00 in New York, the day before Christmas
    try {
      const web = new WebClient(t.app);
      await web.get('/console/sign-in');
      expect((await web.post('/console/sign-in/key', { operatorKey: OPERATOR_KEY })).statusCode).toBe(303);
      const page = await web.get('/console/ach');
      expect(page.statusCode).toBe(200);
      const csp = String(page.headers['content-security-policy']);
      expect(csp).toMatch(/script-src 'self'/);
      expect(csp).not.toMatch(/unsafe-inline/);
      expect(page.body).not.toMatch(/<script(?![^>]*\bsrc=)|\sstyle="|\son[a-z]+="/);
      // The latest file (the 1,000 payouts' second, still in the inbox) is listed with its entry hash and total credit, as the file itself says.
      const [last] = await t.ctx.db.query<{ file_name: string; entry_hash: string }>("SELECT file_name, entry_hash FROM ach_files ORDER BY created_at DESC LIMIT 1");
      const lastFile = inbox(server).find((f) => f.name === last?.file_name);
      expect(lastFile).toBeDefined();
      const read = readNacha(lastFile!.text);
      expect(page.body).toContain(last!.file_name);
      expect(page.body).toContain(`<code>${last!.entry_hash}</code>`);
      expect(page.body).toContain(`${(Number(read.totalCreditCents) / 100).toFixed(2)} USD`);
      // The returns and corrections taken in, and the late R01 that moved nothing, in words.
      const inbound = await t.ctx.db.query<{ name: string; returns: number; changes: number }>('SELECT name, returns::int AS returns, changes::int AS changes FROM ach_inbound_files');
      expect(inbound.some((f) => f.returns === 1)).toBe(true);
      expect(inbound.some((f) => f.changes === 1)).toBe(true);
      for (const f of inbound) expect(page.body).toContain(f.name);
      expect(page.body).toMatch(/<code>R01<\/code> insufficient funds/);
      // The calendar: a Same Day file now makes the 10:30 cut-off; Christmas is closed.
      expect(page.body).toContain('settles on <strong>2026-12-24</strong>, Same Day, making the 10:30 cut-off');
      expect(page.body).toMatch(/2026-12-25<\/td>\s*<td[^>]*>Friday<\/td>\s*<td[^>]*><span class="muted">closed: Christmas Day \(Federal Reserve holiday\)/);
    } finally {
      clock = saved;
    }
  }, 120_000);
  /** The statement of the settlement account ("usd-ach") on a day, as reconciliation shows it. */
  async function statementOn(date: string) {
    const [row] = await t.ctx.db.query<{ id: string }>("SELECT id FROM bank_statements WHERE bank_account = 'usd-ach' AND statement_date = $1::date", [date]);
    expect(row, `the statement of ${date}`).toBeDefined();
    return getStatement(t.ctx.db, row!.id);
  }

  /** Puts a BAI2 report in the ODFI's outbox and takes it in. */
  async function statementArrives(name: string, text: string): Promise<void> {
    fs.writeFileSync(path.join(server.outbox, name), text);
    await runPoll(t.ctx, ach.runtime);
  }

  it('books a file\'s settlement and its returns on the settlement account, so the ODFI\'s BAI2 statement of the day reconciles at zero; a debit that differs shows as the difference', async () => {
    const saved = clock;
    try {
      // Tuesday 8 December 2026, 09:00 in New York: a Same Day file settling that day.
      clock = new Date('2026-12-08T14:00:00Z');
      const kept = await pay(US_PERSON('55550201'), '20.00');
      const returned = await pay(US_PERSON('55550003'), '30.00');
      await cutAndSend();
      const [filed] = await t.ctx.db.query<{ id: string; file_name: string; trace_number: string }>(
        'SELECT f.id::text AS id, f.file_name, p.trace_number FROM ach_payouts p JOIN ach_files f ON f.id = p.file_id WHERE p.payout_id = $1',
        [returned],
      );
      const written = fs.readFileSync(path.join(server.inbox, filed!.file_name), 'latin1');
      // The independent library reads the file the ODFI settles: 50.00 credited to the receivers, nothing debited in the file.
      const lib = nacha.from(written).data.file.footer;
      expect([BigInt(lib.totalCredit), BigInt(lib.totalDebit)]).toEqual([5000n, 0n]);
      expect(readNacha(written).batches[0]?.effectiveDate).toBe('261208');
      expect(bank().tick()).toHaveLength(1); // the R03 of the 30.00
      await runPoll(t.ctx, ach.runtime);
      expect((await status(kept)).status).toBe('paid');
      expect((await status(returned)).status).toBe('failed');
      // The ODFI's report of the day: the file's settlement debited under its reference code, the return credited under the original trace.
      const reference = settlementReference(filed!.id);
      await statementArrives(
        'stmt-20261208.bai',
        bai2Statement({
          accountNumber: '5647772655',
          asOf: '2026-12-08',
          openingCents: 10_000_000n,
          closingCents: 10_000_000n - 5000n + 3000n,
          lines: [
            { type: '466', cents: 5000n, bankRef: 'B-1208-1', customerRef: reference, text: 'ACH SETTLEMENT' },
            { type: '166', cents: 3000n, bankRef: 'B-1208-2', customerRef: filed!.trace_number, text: 'ACH RETURN R03' },
          ],
        }),
      );
      const day1 = await statementOn('2026-12-08');
      expect(day1).toMatchObject({ openingBalance: '100000.00', closingBalance: '99980.00', corridorClosingBalance: '99980.00', difference: '0.00', lines: { total: 2, matched: 2, unmatched: 0 }, movementsNotOnStatement: [] });

      // Wednesday 9 December: a 40.00 file, but the ODFI debits 45.00 under its reference: the line matches nothing and the day is 5.00 short.
      clock = new Date('2026-12-09T14:00:00Z');
      await pay(US_PERSON('55550202'), '40.00');
      await cutAndSend();
      const [second] = await t.ctx.db.query<{ id: string }>("SELECT id::text AS id FROM ach_files WHERE effective_date = '2026-12-09'");
      await runPoll(t.ctx, ach.runtime);
      await statementArrives(
        'stmt-20261209.bai',
        bai2Statement({
          accountNumber: '5647772655',
          asOf: '2026-12-09',
          openingCents: 9_998_000n,
          closingCents: 9_998_000n - 4500n,
          lines: [{ type: '466', cents: 4500n, bankRef: 'B-1209-1', customerRef: settlementReference(second!.id), text: 'ACH SETTLEMENT' }],
        }),
      );
      const day2 = await statementOn('2026-12-09');
      expect(day2).toMatchObject({ closingBalance: '99935.00', corridorClosingBalance: '99940.00', difference: '-5.00', lines: { total: 1, matched: 0, unmatched: 1 } });
      expect(day2.movementsNotOnStatement).toEqual([expect.objectContaining({ kind: 'payout', direction: 'debit', amount: '40.00', bookingDate: '2026-12-09', endToEndId: settlementReference(second!.id), object: { type: 'ach_file', id: second!.id } })]);
    } finally {
      clock = saved;
    }
  }, 180_000);
  it('with prenotes on for a workspace, sends a zero-dollar prenote per new account and files its payouts three banking days after its settlement; a returned prenote fails them, a NOC corrects them', async () => {
    const saved = clock;
    try {
      const p = await payingWorkspace(t, { achPrenotes: true });
      await fund(p, 'USD', '1000');
      const payAs = async (beneficiary: Record<string, unknown>, amount: string) => {
        const res = await p.request('POST', '/v1/payouts', { clientRef: ref('pre'), amount, currency: 'USD', route: 'ach', beneficiary });
        expect(res.statusCode, res.body).toBe(201);
        return res.json<{ id: string }>().id;
      };
      const statusOf = async (id: string) => (await p.request('GET', `/v1/payouts/${id}`)).json<{ status: string; returnReason?: { code: string; description: string } | null }>();
      const achRows = (ids: string[]) => t.ctx.db.query<{ status: string; file_id: string | null; held_reason: string | null }>('SELECT status, file_id::text AS file_id, held_reason FROM ach_payouts WHERE payout_id = ANY($1::uuid[]) ORDER BY accepted_at', [ids]);
      const fileOn = async (date: string) => {
        const [f] = await t.ctx.db.query<{ file_name: string }>('SELECT file_name FROM ach_files WHERE effective_date = $1::date ORDER BY created_at DESC LIMIT 1', [date]);
        expect(f, `a file settling on ${date}`).toBeDefined();
        const at = [path.join(server.inbox, f!.file_name), path.join(server.inbox, 'answered', f!.file_name)].find((x) => fs.existsSync(x));
        return fs.readFileSync(at!, 'latin1');
      };
      const before = await balance(p, 'USD');

      // Monday 14 December 2026, 09:00 in New York.
      clock = new Date('2026-12-14T14:00:00Z');
      const first = await payAs(US_PERSON('55550401'), '11.00');
      const second = await payAs(US_PERSON('55550401'), '12.00');
      const refused = await payAs(US_PERSON('55550003'), '13.00');
      const beneficiaryId = await saveBeneficiary(p, US_PERSON('55550501'));
      const corrected = await payAs({ id: beneficiaryId }, '14.00');
      await cutAndSend();
      // The file holds one prenote per account (23: checking, zero), no payout; the independent library reads the same.
      const prenoteFile = await fileOn('2026-12-14');
      const lib = nacha.from(prenoteFile).data;
      const libEntries = lib.batches.flatMap((b) => b.entries);
      expect(libEntries.map((e) => [String(e.transactionCode), e.amount])).toEqual([['23', 0], ['23', 0], ['23', 0]]);
      expect(lib.file.footer.totalCredit).toBe(0);
      expect(readNacha(prenoteFile).batches.flatMap((b) => b.entries.map((e) => `${e.prenote}:${e.accountNumber}`)).sort()).toEqual(['true:55550003', 'true:55550401', 'true:55550501']);
      expect((await achRows([first, second, refused, corrected])).map((r) => [r.status, r.file_id])).toEqual([['pending', null], ['pending', null], ['pending', null], ['pending', null]]);

      // The RDFI returns one prenote (R03) and corrects another (C01).
      expect(bank().tick()).toHaveLength(1);
      await runPoll(t.ctx, ach.runtime);
      expect(await statusOf(refused)).toMatchObject({ status: 'failed', returnReason: { code: 'R03', description: expect.stringContaining("prenote was returned: no account") } });
      const beneficiary = (await p.request('GET', `/v1/beneficiaries/${beneficiaryId}`)).json<{ accounts: { data: { accountNumber: string } }[] }>();
      expect(beneficiary.accounts[0]?.data.accountNumber).toBe('55550599');
      // A later payout to the returned account is held with the prenote's reason.
      const later = await payAs(US_PERSON('55550003'), '15.00');
      await work();
      expect((await achRows([later]))[0]).toMatchObject({ status: 'held', held_reason: expect.stringContaining("the account's prenote was returned R03") });

      // Wednesday 16 December: the waiting period (three banking days after the 14th) has not passed; nothing is filed.
      clock = new Date('2026-12-16T14:00:00Z');
      await runPoll(t.ctx, ach.runtime);
      await new Promise((r) => setTimeout(r, 1100));
      await runCutoff(t.ctx, ach.runtime);
      expect(await t.ctx.db.query("SELECT count(*)::int AS n FROM ach_files WHERE effective_date = '2026-12-16'")).toEqual([{ n: 0 }]);

      // Thursday 17 December: cleared; the three payouts leave in one file, the corrected one to the corrected account.
      clock = new Date('2026-12-17T14:00:00Z');
      await runPoll(t.ctx, ach.runtime);
      await cutAndSend();
      const live = nacha.from(await fileOn('2026-12-17')).data;
      expect(live.batches.flatMap((b) => b.entries.map((e) => `${e.transactionCode}:${e.dfiAccount.trim()}:${e.amount}`)).sort()).toEqual(['22:55550401:1100', '22:55550401:1200', '22:55550599:1400']);
      for (const id of [first, second, corrected]) expect((await statusOf(id)).status).toBe('processing');
      // Funds: the three in flight, the refused one back.
      expect(BigInt(Math.round(Number((await balance(p, 'USD'))?.balance) * 100))).toBe(BigInt(Math.round(Number(before?.balance) * 100)) - 3700n - 1500n);
    } finally {
      clock = saved;
    }
  }, 240_000);
});
