import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fedwireExecutionDate } from '../../src/connectors/fedwire/calendar.js';
import { federalReserveHolidays, isFedBusinessDay as isFedwireBusinessDay } from '../../src/platform/lib/federal-reserve-calendar.js';
import { parseFedwireConfig } from '../../src/connectors/fedwire/config.js';
import { fedwireConnectorOf, type FedwireConnector } from '../../src/connectors/fedwire/fedwire.connector.js';
import { runWireCutoff } from '../../src/connectors/fedwire/outbound.js';
import { parseFedwireFile } from '../../src/connectors/fedwire/parse.js';
import { createRunner } from '../../src/jobs.js';
import type { JobRunner } from '../../src/platform/jobs/runner.js';
import { endToEndIdOf } from '../../src/connectors/bank/bank.instructions.js';
import { runUpload } from '../../src/connectors/bank/bank.service.js';
import { validatePain001 } from '../../src/connectors/bank/pain001.validate.js';
import { ledgerInvariantViolations } from '../../src/domains/ledger/ledger.service.js';
import { createTestApp, OPERATOR_KEY, type Caller, type TestApp } from '../helpers/app.js';
import { WebClient } from '../helpers/web-client.js';
import { sshdMissing, startSftpServer, type SftpServer } from '../helpers/sftp-server.js';
import { balance, eventTypesOf, fund, payingWorkspace, ref, waitFor } from '../payouts/helpers.js';
import { connectorsFile } from '../bank/helpers.js';
import { CORPORATION_B, fedwireSection } from './fedwire-helpers.js';

/**
 * The fedwire connector (issue 31, points 6 to 8): the Fed's own ISO 20022 samples read or refused,
 * the Fedwire calendar, and wires end to end over a real OpenSSH SFTP server with the worker
 * running: a payout leaves as a schema-valid pain.001 with the ABA routing numbers as USABA clearing
 * members and its UETR, and comes back paid (pacs.002 ACSC), rejected (pacs.002 RJCT E433) or returned
 * (pacs.004 DUPL), each answer built from the Fed's sample with this payout's UETR in it.
 */

const SAMPLES = path.resolve(import.meta.dirname, '../../../shared/real-world/fedwire');
const sample = (name: string) => fs.readFileSync(path.join(SAMPLES, name), 'utf8');

describe("the Fed's sample files", () => {
  it('reads each status, return and acknowledgement, and refuses each message it does not apply with the reason', () => {
    const read = Object.fromEntries(
      fs.readdirSync(SAMPLES).filter((n) => n.endsWith('.xml')).sort().map((name) => {
        try {
          return [name, parseFedwireFile(fs.readFileSync(path.join(SAMPLES, name)))];
        } catch (err) {
          return [name, { refused: (err as Error).message }];
        }
      }),
    );
    expect(Object.keys(read)).toHaveLength(7);
    expect(read['CustomerCreditTransfer_Scenario1_Step2_pacs.002.xml']).toEqual({
      kind: 'pacs.002', version: 'pacs.002.001.10', messageId: '20250310QMGFNP31000001', groupRejected: undefined,
      statuses: [{ uetr: '8a562c67-ca16-48ba-b074-65581be6f011', endToEndId: undefined, status: 'ACSC', reason: undefined, originalMessageId: '20250310B1QDRCQR000001' }],
    });
    expect(read['CustomerCreditTransfer_Scenario2_Step2_pacs.002-RJCT.xml']).toMatchObject({
      kind: 'pacs.002',
      statuses: [{ uetr: '8a562c67-ca16-48ba-b074-65581be6f011', status: 'RJCT', reason: { code: 'E433', proprietary: true, additionalInfo: 'The routing number of the Instructed Agent is not permissible to receive Fedwire Funds transaction.' } }],
    });
    expect(read['PaymentReturn_Scenario1_Step4_pacs.004.xml']).toMatchObject({
      kind: 'pacs.004', messageId: '20250310ISOTEST1000912',
      returns: [{ uetr: '8a562c67-ca16-48ba-b074-65581be6f011', endToEndId: 'Scenario01EtoEId001', amount: { minor: 15100074n, currency: 'USD' }, reason: { code: 'DUPL' }, settlementDate: '2025-03-10' }],
    });
    expect(read['FedwireFundsAcknowledgement_Scenario1_Step1a_admi.007.xml']).toMatchObject({
      kind: 'admi.007', acknowledgements: [{ reference: '20250310B1QDRCQR000711', messageName: 'pain.013.001.07', statusCode: 'TS01' }],
    });
    expect((read['CustomerCreditTransfer_Scenario1_Step1_pacs.008.xml'] as { refused: string }).refused).toMatch(/^pacs\.008\.001\.08: a pacs\.008 is a customer credit transfer between banks/);
    expect((read['PaymentReturn_Scenario1_Step1_pacs.008.xml'] as { refused: string }).refused).toMatch(/^pacs\.008\.001\.08: /);
    expect((read['PaymentReturn_Scenario1_Step3_camt.029.xml'] as { refused: string }).refused).toMatch(/^camt\.029\.001\.09: a camt\.029 answers a request to cancel or return a wire .* arrives as a pacs\.004/);
  });

  it('refuses a file that declares entities before parsing it', () => {
    const xml = `<?xml version="1.0"?><!DOCTYPE d [<!ENTITY x "y">]>${sample('CustomerCreditTransfer_Scenario1_Step2_pacs.002.xml')}`;
    expect(() => parseFedwireFile(xml)).toThrow('the file declares a DOCTYPE or entities');
  });
});

describe('the Fedwire calendar', () => {
  it('knows the Federal Reserve holidays of 2026 and 2027, a Sunday holiday on the Monday after and a Saturday one not moved', () => {
    expect(federalReserveHolidays(2026).map((h) => h.date)).toEqual(['2026-01-01', '2026-01-19', '2026-02-16', '2026-05-25', '2026-06-19', '2026-09-07', '2026-10-12', '2026-11-11', '2026-11-26', '2026-12-25']);
    // 4 July 2026 is a Saturday: not moved, the Reserve Banks are open on Friday 3 July; 2027's Christmas (a Saturday) likewise.
    expect(isFedwireBusinessDay('2026-07-03')).toBe(true);
    expect(isFedwireBusinessDay('2027-12-24')).toBe(true);
    // 2023's New Year fell on a Sunday: observed Monday 2 January.
    expect(federalReserveHolidays(2023).map((h) => h.date)).toContain('2023-01-02');
    expect(isFedwireBusinessDay('2026-11-26')).toBe(false);
    expect(isFedwireBusinessDay('2026-11-28')).toBe(false);
  });

  it('executes a wire today before the bank cut-off, else on the next Fedwire business day (Eastern Time, daylight saving included)', () => {
    // Tuesday 10 March 2026, 17:59 EDT (UTC-4) and 18:00 EDT, bank cut-off 18:00.
    expect(fedwireExecutionDate(new Date('2026-03-10T21:59:00Z'), '18:00')).toBe('2026-03-10');
    expect(fedwireExecutionDate(new Date('2026-03-10T22:00:00Z'), '18:00')).toBe('2026-03-11');
    // Wednesday 25 November 2026 at 21:30 EST: the funds service is in Thursday's business day, Thanksgiving: Friday 27.
    expect(fedwireExecutionDate(new Date('2026-11-26T02:30:00Z'), '17:00')).toBe('2026-11-27');
    // Friday 27 November 2026 16:00 EST, bank cut-off 15:00: Monday 30 November.
    expect(fedwireExecutionDate(new Date('2026-11-27T21:00:00Z'), '15:00')).toBe('2026-11-30');
  });

  it('refuses a bank cut-off after the Fed takes customer transfers (18:00 ET)', () => {
    expect(() => parseFedwireConfig({ directory: '/tmp/x', account: { id: 'usd', name: 'C', accountNumber: '1234567', routingNumber: '011104238' }, bankCutoff: '18:30' }, 'sandbox')).toThrow(
      'connectors file: fedwire.bankCutoff must be at the latest 18:00',
    );
    expect(() => parseFedwireConfig({ directory: '/tmp/x', account: { id: 'usd', name: 'C', accountNumber: '1234567', routingNumber: '011104239' } }, 'sandbox')).toThrow('fedwire.account.routingNumber must be a 9-digit ABA routing number');
  });
});

interface WireRead {
  id: string;
  status: string;
  amount: string;
  uetr?: string;
  failureReason: string | null;
  returnReason?: { code: string; description: string };
}

describe.skipIf(sshdMissing)(`Fedwire payouts end to end${sshdMissing ? ` (${sshdMissing})` : ''}`, () => {
  let server: SftpServer;
  let t: TestApp;
  let runner: JobRunner;
  let c: Caller;
  let answers = 0;

  beforeAll(async () => {
    server = await startSftpServer();
    const file = connectorsFile({ routes: { fedwire: 'fedwire' }, fedwire: fedwireSection(server) });
    t = await createTestApp({ env: { CORRIDOR_CONNECTORS_FILE: file, JOB_POLL_MS: '20' } });
    runner = createRunner(t.ctx);
    runner.start();
    c = await payingWorkspace(t);
    await fund(c, 'USD', '100000.00');
  }, 180_000);
  afterAll(async () => {
    await runner?.stop();
    await t?.close();
    await server?.stop();
  });

  /** The workspace's USD money, without the time of its last movement. */
  const funds = async () => {
    const b = await balance(c, 'USD');
    return { balance: b?.balance, pendingOut: b?.pendingOut, totalBalance: b?.totalBalance };
  };
  const read = async (id: string) => (await c.request('GET', `/v1/payouts/${id}`)).json<WireRead>();
  const inbox = () => fs.readdirSync(server.inbox).filter((n) => n.endsWith('.xml')).map((n) => fs.readFileSync(path.join(server.inbox, n), 'utf8'));

  /** A wire created through the API, once its file is in the bank's inbox and the payout is processing with its UETR. */
  async function sentWire(amount: string): Promise<{ id: string; uetr: string; xml: string }> {
    const res = await c.request('POST', '/v1/payouts', { clientRef: ref('wire'), amount, currency: 'USD', route: 'fedwire', beneficiary: CORPORATION_B });
    expect(res.statusCode, res.body).toBe(201);
    const id = res.json<{ id: string }>().id;
    await waitFor(c, id, (p) => p.status === 'processing', 120_000);
    const uetr = (await read(id)).uetr as string;
    expect(uetr).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    const files = inbox().filter((x) => x.includes(`<EndToEndId>${endToEndIdOf(id)}</EndToEndId>`));
    expect(files).toHaveLength(1);
    return { id, uetr, xml: files[0] as string };
  }

  /** The bank answers into its outbox (written whole, then renamed); resolves once Corridor took the file in and archived it. */
  async function answer(kind: string, xml: string): Promise<void> {
    const name = `${String(++answers).padStart(3, '0')}-${kind}.xml`;
    fs.writeFileSync(path.join(server.outbox, `${name}.part`), xml);
    fs.renameSync(path.join(server.outbox, `${name}.part`), path.join(server.outbox, name));
    const deadline = Date.now() + 120_000;
    while (!fs.existsSync(path.join(server.outbox, 'archive', name)) && !fs.existsSync(path.join(server.outbox, 'quarantine', name))) {
      if (Date.now() > deadline) throw new Error(`${name} was not taken in`);
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(fs.existsSync(path.join(server.outbox, 'archive', name)), `${name} quarantined`).toBe(true);
  }

  /** The Fed's sample with this wire's UETR and a message id of its own. */
  const withUetr = (xml: string, uetr: string) => xml.replaceAll('8a562c67-ca16-48ba-b074-65581be6f011', uetr).replace(/<GrpHdr>\s*<MsgId>[^<]*<\/MsgId>/, `<GrpHdr><MsgId>${ref('fed').slice(0, 35)}</MsgId>`);

  it('sends a wire as a schema-valid pain.001 with USABA agents and its UETR, recorded before it left, and pays it on pacs.002 ACSC', async () => {
    const before = await balance(c, 'USD');
    const wire = await sentWire('1500.00');
    expect((await validatePain001(wire.xml, 'swift')).valid).toBe(true);
    expect(wire.xml).toContain(`<UETR>${wire.uetr}</UETR>`);
    expect(wire.xml).toMatch(/<DbtrAgt>\s*<FinInstnId>\s*<ClrSysMmbId>\s*<ClrSysId>\s*<Cd>USABA<\/Cd>\s*<\/ClrSysId>\s*<MmbId>011104238<\/MmbId>/);
    expect(wire.xml).toMatch(/<CdtrAgt>\s*<FinInstnId>\s*<ClrSysMmbId>\s*<ClrSysId>\s*<Cd>USABA<\/Cd>\s*<\/ClrSysId>\s*<MmbId>021040078<\/MmbId>/);
    expect(wire.xml).toMatch(/<CdtrAcct>\s*<Id>\s*<Othr>\s*<Id>567876543<\/Id>/);
    expect(wire.xml).toContain('<InstdAmt Ccy="USD">1500.00</InstdAmt>');
    // What left is what was recorded: the file's bytes have the SHA-256 stored before the upload.
    const [recorded] = await t.ctx.db.query<{ sha256: string; scheme: string; status: string }>(
      "SELECT f.sha256, f.scheme, f.status FROM bank_files f JOIN bank_payouts p ON p.file_id = f.id WHERE p.payout_id = $1", [wire.id],
    );
    const { createHash } = await import('node:crypto');
    expect(recorded).toEqual({ sha256: createHash('sha256').update(wire.xml).digest('hex'), scheme: 'fedwire', status: 'delivered' });

    await answer('pacs002-acsc', withUetr(sample('CustomerCreditTransfer_Scenario1_Step2_pacs.002.xml'), wire.uetr));
    expect(await read(wire.id)).toMatchObject({ status: 'paid', uetr: wire.uetr });
    expect((await balance(c, 'USD'))?.pendingOut).toBe(before?.pendingOut);
    expect(await ledgerInvariantViolations(t.ctx.db)).toEqual([]);
    const [movement] = await t.ctx.db.query<{ kind: string; bank_account: string }>('SELECT kind, bank_account FROM bank_movements WHERE object_id = $1', [wire.id]);
    expect(movement).toEqual({ kind: 'payout', bank_account: 'usd-wires' });
  }, 300_000);

  it('fails a wire the Fed rejects with E433, with the reason in words and who must act, and gives the funds back', async () => {
    const before = await funds();
    const wire = await sentWire('250.00');
    expect(await funds()).not.toEqual(before);
    await answer('pacs002-rjct', withUetr(sample('CustomerCreditTransfer_Scenario2_Step2_pacs.002-RJCT.xml'), wire.uetr));
    const p = await read(wire.id);
    expect(p).toMatchObject({ status: 'failed', returnReason: { code: 'E433', description: 'The routing number of the Instructed Agent is not permissible to receive Fedwire Funds transaction' } });
    expect(p.failureReason).toBe(
      "Rejected by Fedwire: E433 The routing number of the Instructed Agent is not permissible to receive Fedwire Funds transaction. Who must act: the workspace corrects the beneficiary's bank details",
    );
    expect(await funds()).toEqual(before);
    expect((await eventTypesOf(t, wire.id)).filter((e) => e === 'payout.failed')).toHaveLength(1);
  }, 300_000);

  it('reverts a paid wire the beneficiary bank returns with pacs.004 (DUPL): funds back once, the same return again changes nothing', async () => {
    const wire = await sentWire('1510.74');
    await answer('pacs002-acsc', withUetr(sample('CustomerCreditTransfer_Scenario1_Step2_pacs.002.xml'), wire.uetr));
    expect((await read(wire.id)).status).toBe('paid');
    const paid = await funds();
    const returned = withUetr(sample('PaymentReturn_Scenario1_Step4_pacs.004.xml'), wire.uetr)
      .replaceAll('Scenario01EtoEId001', endToEndIdOf(wire.id))
      .replaceAll('151000.74', '1510.74');
    await answer('pacs004', returned);
    const p = await read(wire.id);
    expect(p).toMatchObject({ status: 'failed', returnReason: { code: 'DUPL', description: 'Payment is a duplicate of another payment' } });
    expect(p.failureReason).toBe("Returned over Fedwire by the beneficiary's bank: DUPL Payment is a duplicate of another payment. Who must act: the workspace");
    const back = await funds();
    expect(Number(back?.balance) - Number(paid?.balance)).toBeCloseTo(1510.74, 2);
    // The same return a second time (another file name, the same message): quarantined as taken in before, nothing moves.
    const name = `${String(++answers).padStart(3, '0')}-pacs004-again.xml`;
    fs.writeFileSync(path.join(server.outbox, name), `${returned}\n`);
    const deadline = Date.now() + 120_000;
    while (!fs.existsSync(path.join(server.outbox, 'quarantine', name))) {
      if (Date.now() > deadline) throw new Error(`${name} was not quarantined`);
      await new Promise((r) => setTimeout(r, 50));
    }
    const [again] = await t.ctx.db.query<{ status: string; reason: string }>('SELECT status, reason FROM bank_inbound_files WHERE name = $1', [name]);
    expect(again?.reason).toMatch(/^message id .* was taken in before, from \d+-pacs004\.xml$/);
    expect(await funds()).toEqual(back);
    expect((await eventTypesOf(t, wire.id)).filter((e) => e === 'payout.reverted')).toHaveLength(1);
    expect(await ledgerInvariantViolations(t.ctx.db)).toEqual([]);
  }, 300_000);

  it("lists an answer about no wire of Corridor's (the Fed's sample as it is) as an exception with the reason, and moves nothing", async () => {
    await answer('pacs002-unknown', sample('CustomerCreditTransfer_Scenario1_Step2_pacs.002.xml'));
    await answer('admi007-unknown', sample('FedwireFundsAcknowledgement_Scenario1_Step1a_admi.007.xml'));
    const rows = await t.ctx.db.query<{ code: string; reason: string; message_type: string }>(
      "SELECT e.code, e.reason, e.message_type FROM bank_exceptions e JOIN bank_inbound_files f ON f.id = e.file_id WHERE f.name LIKE '%-unknown.xml' ORDER BY e.created_at",
    );
    expect(rows).toEqual([
      { code: 'unknown_reference', message_type: 'pacs.002', reason: 'No Fedwire payout of Corridor has the UETR 8a562c67-ca16-48ba-b074-65581be6f011: nothing applied. Who must act: the operator (ask the bank what the answer is about)' },
      { code: 'unknown_reference', message_type: 'admi.007', reason: 'The acknowledgement names 20250310B1QDRCQR000711 (a pain.013.001.07), which is no wire file Corridor delivered: nothing applied. Who must act: the operator' },
    ]);
  }, 300_000);

  it('shows the operator the wire files with their control totals, the answers that applied nothing, and the cut-off calendar, under a strict CSP', async () => {
    const web = new WebClient(t.app);
    await web.get('/console/sign-in');
    expect((await web.post('/console/sign-in/key', { operatorKey: OPERATOR_KEY })).statusCode).toBe(303);
    const before = new Date();
    const page = await web.get('/console/fedwire');
    const after = new Date();
    expect(page.statusCode).toBe(200);
    const csp = String(page.headers['content-security-policy']);
    expect(csp).toMatch(/script-src 'self'/);
    expect(csp).not.toMatch(/unsafe-inline/);
    expect(page.body).not.toMatch(/<script(?![^>]*\bsrc=)|\sstyle="|\son[a-z]+="/);
    const files = await t.ctx.db.query<{ file_name: string; msg_id: string; nb_of_txs: number; ctrl_sum: string }>("SELECT file_name, msg_id, nb_of_txs, ctrl_sum::text AS ctrl_sum FROM bank_files WHERE scheme = 'fedwire'");
    expect(files.length).toBeGreaterThan(0);
    for (const f of files) {
      expect(page.body).toContain(f.file_name);
      expect(page.body).toContain(`<code>${f.msg_id}</code>`);
      expect(page.body).toContain(`${f.ctrl_sum.replace(/\.?0+$/, '')} USD`);
    }
    expect(page.body).toContain('No Fedwire payout of Corridor has the UETR 8a562c67-ca16-48ba-b074-65581be6f011');
    const cutoff = (fedwireConnectorOf(t.ctx) as FedwireConnector).runtime.config.bankCutoff;
    expect(page.body).toContain(`your bank takes wire files until <strong>${cutoff}</strong>`);
    const executed = [fedwireExecutionDate(before, cutoff), fedwireExecutionDate(after, cutoff)].map((d) => `is executed on <strong>${d}</strong>`);
    expect(executed.some((text) => page.body.includes(text))).toBe(true);
  }, 120_000);
});

describe.skipIf(sshdMissing)(`a wire file after a crash${sshdMissing ? ` (${sshdMissing})` : ''}`, () => {
  let server: SftpServer;
  let t: TestApp;

  beforeAll(async () => {
    server = await startSftpServer();
    const file = connectorsFile({ routes: { fedwire: 'fedwire' }, fedwire: fedwireSection(server, { maxPayouts: 1, maxSeconds: 1 }) });
    t = await createTestApp({ env: { CORRIDOR_CONNECTORS_FILE: file } });
  }, 180_000);
  afterAll(async () => {
    await t?.close();
    await server?.stop();
  });

  it('is recorded before it leaves and, when the worker died between the upload and its record, is not sent a second time', async () => {
    const c = await payingWorkspace(t);
    await fund(c, 'USD', '100.00');
    const res = await c.request('POST', '/v1/payouts', { clientRef: ref('crash'), amount: '42.00', currency: 'USD', route: 'fedwire', beneficiary: CORPORATION_B });
    expect(res.statusCode, res.body).toBe(201);
    const id = res.json<{ id: string }>().id;
    const fw = fedwireConnectorOf(t.ctx) as FedwireConnector;
    // The payouts step hands the payout over (no worker runs here: each step is taken by hand).
    await t.ctx.db.tx((tx) =>
      fw.accept(tx, [{ id, workspaceId: c.workspaceId, accountId: '', clientRef: 'crash', amountMinor: 4200n, currency: 'USD', route: 'fedwire', rail: 'fedwire', beneficiary: CORPORATION_B, sender: null, fundingCurrency: 'USD', reference: null }]),
    );
    await runWireCutoff(t.ctx, fw.runtime);
    const [recorded] = await t.ctx.db.query<{ id: string; file_name: string; content: string; sha256: string; status: string }>(
      'SELECT f.id, f.file_name, f.content, f.sha256, f.status FROM bank_files f JOIN bank_payouts p ON p.file_id = f.id WHERE p.payout_id = $1',
      [id],
    );
    expect(recorded?.status).toBe('recorded');
    expect(fs.readdirSync(server.inbox).filter((n) => n.endsWith('.xml'))).toEqual([]);
    // The worker uploads the recorded bytes and dies before it records the delivery.
    const bytes = Buffer.from(t.ctx.box.decrypt(recorded?.content as string), 'base64');
    expect(await fw.runtime.transport.deliver(recorded?.file_name as string, bytes)).toBe('uploaded');
    // The next worker runs the upload again: the file is found there with the same bytes, not sent again.
    await runUpload(t.ctx, fw.runtime, recorded?.id as string);
    const sent = fs.readdirSync(server.inbox).filter((n) => n.endsWith('.xml'));
    expect(sent).toEqual([recorded?.file_name]);
    const { createHash } = await import('node:crypto');
    expect(createHash('sha256').update(fs.readFileSync(path.join(server.inbox, sent[0] as string))).digest('hex')).toBe(recorded?.sha256);
    const [after] = await t.ctx.db.query<{ status: string }>('SELECT status FROM bank_files WHERE id = $1', [recorded?.id]);
    expect(after?.status).toBe('delivered');
    expect((await c.request('GET', `/v1/payouts/${id}`)).json<{ status: string }>().status).toBe('processing');
    expect((await eventTypesOf(t, id)).filter((e) => e === 'payout.processing')).toHaveLength(1);
  }, 300_000);
});
