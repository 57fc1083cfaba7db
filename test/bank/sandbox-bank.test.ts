import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { validateXML } from 'xmllint-wasm';
import { createRunner } from '../../src/jobs.js';
import type { JobRunner } from '../../src/platform/jobs/runner.js';
import { parseBankConfig } from '../../src/connectors/bank/bank.config.js';
import { answerInbox, MAGIC_AMOUNTS, magicOutcome, runSandboxBank } from '../../src/connectors/bank/bank.simulator.js';
import { getEventListeners } from 'node:events';
import { DirectoryTransport } from '../../src/connectors/bank/bank.transport.js';
import { buildPain001 } from '../../src/connectors/bank/pain001.js';
import { corridorFreeEnv, CORRIDOR_BIN } from '../../support/processes.js';
import { createTestApp, type Caller, type TestApp } from '../helpers/app.js';
import { ADA, balance, fund, payingWorkspace, ref, waitFor, type PayoutView } from '../payouts/helpers.js';
import { BANK_ROUTES, connectorsFile, GRACE } from './helpers.js';

/**
 * The sandbox bank: the same bank connector, its files going to a local folder in the sandbox, and
 * `corridor bank-sim` as its own process answering them by magic amounts (docs/guides/bank-rails.md).
 */

const XSD = path.join(path.dirname(fileURLToPath(import.meta.url)), '../../src/connectors/bank/inbound/xsd');
const ACCOUNTS = [
  { id: 'eur-main', iban: 'DE02100100109307118603', bic: 'PBNKDEFFXXX', name: 'Corridor Payments GmbH', currency: 'EUR' },
  { id: 'usd-main', iban: 'DE75512108001245126199', bic: 'PBNKDEFFXXX', name: 'Corridor Payments GmbH', currency: 'USD' },
];

type Read = PayoutView & { returnReason?: { code: string; description: string } };

describe('the sandbox bank configuration', () => {
  it('takes a local folder instead of SFTP in the sandbox only, and never both', () => {
    const section = { directory: '/tmp/corridor-bank', accounts: ACCOUNTS };
    expect(parseBankConfig(section, 'sandbox')).toMatchObject({ directory: '/tmp/corridor-bank', sftp: undefined });
    expect(() => parseBankConfig(section, 'production')).toThrow(/bank.directory is a local folder for the sandbox only \(CORRIDOR_ENV=sandbox\)/);
    expect(() => parseBankConfig({ ...section, sftp: {} }, 'sandbox')).toThrow(/bank.directory and bank.sftp exclude each other/);
  });

  it('reads the decimals of an amount: magic ones reject or return, the others are paid', () => {
    expect(magicOutcome('10.61')).toEqual({ kind: 'reject', code: 'AC01' });
    expect(magicOutcome('1250.71')).toEqual({ kind: 'return', code: 'AC04', via: 'pacs.004' });
    expect(magicOutcome('10.610')).toEqual({ kind: 'reject', code: 'AC01' });
    expect(magicOutcome('10.60')).toEqual({ kind: 'paid' });
    expect(magicOutcome('1061')).toEqual({ kind: 'paid' });
  });
});

describe('the sandbox bank folder', () => {
  it('keeps at most one abort listener on its signal however many rounds it runs (it added one per round)', async () => {
    // A file where the folder should be: every round fails at once and logs, so rounds are counted without timing.
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'corridor-bank-rounds-')), 'not-a-folder');
    fs.writeFileSync(file, '');
    const controller = new AbortController();
    let rounds = 0;
    let listenersMax = 0;
    const running = runSandboxBank({
      dir: file,
      intervalMs: 1,
      signal: controller.signal,
      log: () => {
        rounds += 1;
        listenersMax = Math.max(listenersMax, getEventListeners(controller.signal, 'abort').length);
        if (rounds === 30) controller.abort();
      },
    });
    await running;
    expect(rounds).toBe(30);
    expect(listenersMax).toBeLessThanOrEqual(1);
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
    fs.rmSync(path.dirname(file), { recursive: true, force: true });
  });
  it('takes a file once: delivered again it is not rewritten nor answered twice; a different file under its name is refused', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'corridor-bank-dir-'));
    try {
      const transport = new DirectoryTransport(dir);
      const { xml } = buildPain001({
        scheme: 'sepa',
        msgId: 'a'.repeat(32),
        createdAt: new Date('2026-03-03T10:00:00Z'),
        executionDate: '2026-03-03',
        debtor: { name: 'Corridor Sandbox', iban: ACCOUNTS[0]?.iban as string, bic: 'PBNKDEFFXXX', currency: 'EUR' },
        batches: [{ id: `${'a'.repeat(32)}-1`, instant: false, transfers: [{ endToEndId: 'b'.repeat(32), amount: '10.71', currency: 'EUR', creditor: { name: 'Ada Lovelace' }, account: { iban: 'DE89370400440532013000' } }] }],
      });
      const bytes = Buffer.from(xml);
      expect(await transport.deliver('f.xml', bytes)).toBe('uploaded');
      expect(await transport.deliver('f.xml', bytes)).toBe('already_there');
      await expect(transport.deliver('f.xml', Buffer.from('<Other/>'))).rejects.toThrow(/different file named f.xml/);
      expect(fs.readdirSync(transport.inbox)).toEqual(['f.xml']);

      const [first] = await answerInbox({ dir });
      expect(first?.answers.map((a) => a.split('-').slice(2, -1).join('-'))).toEqual(['pain002', 'camt054', 'pacs004']);
      // Corridor interrupted after its upload delivers the same file again: the bank answers it no second time.
      expect(await transport.deliver('f.xml', bytes)).toBe('uploaded');
      expect(await answerInbox({ dir })).toEqual([]);
      expect(fs.readdirSync(path.join(dir, 'out')).filter((n) => n.endsWith('.xml'))).toHaveLength(3);
      fs.writeFileSync(path.join(transport.inbox, 'junk.xml'), '<NotISO/>');
      expect(await answerInbox({ dir })).toEqual([expect.objectContaining({ file: 'junk.xml', answers: [], error: expect.stringContaining('not a pain.001') })]);
      expect(fs.readdirSync(path.join(dir, 'in', 'unreadable'))).toEqual(['junk.xml']);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('payouts answered by the sandbox bank (corridor bank-sim)', () => {
  let dir: string;
  let t: TestApp;
  let runner: JobRunner;
  let sim: ChildProcess;
  let simOutput = '';
  let c: Caller;

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'corridor-bank-sim-'));
    const file = connectorsFile({ routes: BANK_ROUTES, bank: { directory: dir, accounts: ACCOUNTS, cutoff: { maxPayouts: 500, maxSeconds: 1 }, pollSeconds: 1 } });
    t = await createTestApp({ env: { CORRIDOR_CONNECTORS_FILE: file, JOB_POLL_MS: '20' } });
    runner = createRunner(t.ctx);
    runner.start();
    sim = spawn(process.execPath, [CORRIDOR_BIN, 'bank-sim', '--dir', dir, '--interval-ms', '100'], { env: corridorFreeEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
    sim.stdout?.on('data', (d: Buffer) => (simOutput += d.toString()));
    sim.stderr?.on('data', (d: Buffer) => (simOutput += d.toString()));
    c = await payingWorkspace(t);
    await fund(c, 'EUR', '1000.00');
    await fund(c, 'USD', '1000.00');
  }, 180_000);
  afterAll(async () => {
    if (sim && sim.exitCode === null) {
      const exited = new Promise((r) => sim.once('exit', r));
      sim.kill('SIGTERM');
      await exited;
    }
    await runner?.stop();
    await t?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('pays, rejects and returns by magic amounts, with the ISO reasons on the payouts', async () => {
    const start = await balance(c, 'EUR');
    const amounts = ['10.00', '10.61', '10.64', '10.71', '10.72', '10.75', '10.81'];
    const batch = await c.request('POST', '/v1/payouts', amounts.map((amount) => ({ clientRef: ref('sim'), amount, currency: 'EUR', route: 'sepa_credit', beneficiary: ADA })));
    expect(batch.statusCode, batch.body).toBe(201);
    const swift = await c.request('POST', '/v1/payouts', { clientRef: ref('sim'), amount: '250.62', currency: 'USD', route: 'swift', beneficiary: GRACE });
    expect(swift.statusCode, swift.body).toBe(201);
    const [paid, ac01, am04, ac04, md07, ac06, pending] = batch.json<{ id: string }[]>().map((p) => p.id) as string[];
    const settled = (p: PayoutView) => p.status === 'paid' || p.status === 'failed';
    const read = async (id: string) => (await waitFor(c, id, settled, 30_000)) as Read;

    expect(await read(paid as string)).toMatchObject({ status: 'paid' });
    expect(await read(ac01 as string)).toMatchObject({ status: 'failed', returnReason: { code: 'AC01', description: 'Format of the account number specified is not correct' }, failureReason: "Rejected by the bank: AC01 Format of the account number specified is not correct (the bank: \"Corridor sandbox bank: magic amount 10.61\"). Who acts: the workspace, which corrects the beneficiary's details (or asks the beneficiary) and sends a new payout" });
    expect(await read(am04 as string)).toMatchObject({ status: 'failed', returnReason: { code: 'AM04' } });
    expect(await read(swift.json<{ id: string }>().id)).toMatchObject({ status: 'failed', returnReason: { code: 'AC04' } });
    for (const [id, code] of [[ac04, 'AC04'], [md07, 'MD07'], [ac06, 'AC06']] as const) {
      // Paid, then returned: a pacs.004 (or, for .75, a camt.054 return entry) after the booked debit.
      const returned = await waitFor(c, id as string, (p) => p.status === 'failed', 30_000);
      expect(returned).toMatchObject({ returnReason: { code } });
      const types = await t.ctx.db.query<{ type: string }>("SELECT type FROM events WHERE data->>'id' = $1 ORDER BY seq", [id]);
      expect(types.map((e) => e.type)).toEqual(['payout.processing', 'payout.paid', 'payout.reverted']);
    }
    // The bank accepted the .81 one and never booked it: it stays processing.
    const [accepted] = await t.ctx.db.query<{ n: number }>("SELECT count(*)::int AS n FROM bank_inbound_files WHERE message_type = 'pain.002'");
    expect(accepted?.n).toBeGreaterThan(0);
    expect((await c.request('GET', `/v1/payouts/${pending}`)).json<Read>().status).toBe('processing');

    // Funds: only the paid one and the pending one are still out (amounts and fees); the rejected and returned ones came back.
    const kept = await Promise.all([paid, pending].map(async (id) => (await c.request('GET', `/v1/payouts/${id}`)).json<Read>()));
    const out = kept.reduce((sum, p) => sum + Math.round(Number(p.amount) * 100) + Math.round(Number(p.fee) * 100), 0);
    const now = await balance(c, 'EUR');
    expect(Math.round(Number(start?.balance) * 100) - Math.round(Number(now?.balance) * 100)).toBe(out);

    // Every answer the sandbox bank wrote validates against its ISO schema; nothing was quarantined.
    const archive = path.join(dir, 'out', 'archive');
    const answers = fs.readdirSync(archive).filter((n) => n.endsWith('.xml'));
    expect(answers.some((n) => n.includes('-pacs004-'))).toBe(true);
    expect(answers.some((n) => n.includes('-camt054-return-'))).toBe(true);
    for (const name of answers) {
      const xml = fs.readFileSync(path.join(archive, name), 'utf8');
      const message = /xsd:([a-z]+\.\d{3}\.\d{3}\.\d{2})/.exec(xml)?.[1] as string;
      const result = await validateXML({ xml: [{ fileName: name, contents: xml }], schema: [{ fileName: `${message}.xsd`, contents: fs.readFileSync(path.join(XSD, `${message}.xsd`), 'utf8') }] });
      expect(result.errors.map((e) => e.message), name).toEqual([]);
    }
    expect(fs.existsSync(path.join(dir, 'out', 'quarantine'))).toBe(false);
    expect(fs.readdirSync(path.join(dir, 'in', 'answered')).length).toBeGreaterThanOrEqual(2);
    expect(simOutput).toContain('answered with pain002');
  });

  it('documents every magic amount in the bank rails guide', () => {
    const guide = fs.readFileSync(path.join(path.dirname(fileURLToPath(import.meta.url)), '../../docs/guides/bank-rails.md'), 'utf8');
    for (const [decimals, outcome] of Object.entries(MAGIC_AMOUNTS)) {
      const row = guide.split('\n').find((line) => line.startsWith(`| \`.${decimals}\``));
      expect(row, `.${decimals}`).toBeTruthy();
      if ('code' in outcome) expect(row).toContain(`\`${outcome.code}\``);
    }
  });
});
