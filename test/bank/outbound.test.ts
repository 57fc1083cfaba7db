import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { endToEndIdOf } from '../../src/connectors/bank/bank.instructions.js';
import { validatePain001 } from '../../src/connectors/bank/pain001.validate.js';
import { createTestApp, type Caller, type TestApp } from '../helpers/app.js';
import { inboxFiles, sshdMissing, type SftpServer } from '../helpers/sftp-server.js';
import { ADA, fund, payingWorkspace, ref, waitFor } from '../payouts/helpers.js';
import { GRACE, startBankApp, type BankApp } from './helpers.js';
import { pain002 } from '../helpers/bank-answers.js';

/** The text of one element of a file (the first), for assertions. */
const element = (xml: string, name: string): string | undefined => new RegExp(`<${name}(?: [^>]*)?>([^<]*)</${name}>`).exec(xml)?.[1];
const elements = (xml: string, name: string): string[] => [...xml.matchAll(new RegExp(`<${name}(?: [^>]*)?>([^<]*)</${name}>`, 'g'))].map((m) => m[1] as string);

describe.skipIf(sshdMissing)(`payouts through the bank connector${sshdMissing ? ` (${sshdMissing})` : ''}`, () => {
  let app: BankApp | undefined;
  let server: SftpServer;
  let t: TestApp;
  let c: Caller;

  beforeAll(async () => {
    app = await startBankApp({ cutoff: { maxPayouts: 500, maxSeconds: 1 }, pollSeconds: 1 }, { EUR: '10000', USD: '10000' });
    ({ server, t, c } = app);
  }, 240_000);
  afterAll(() => app?.stop());

  it('a SEPA, a SEPA Instant and a SWIFT payout leave as pain.001 files in the bank inbox, each valid against its XSD, and go processing', async () => {
    const post = async (body: Record<string, unknown>) => {
      const res = await c.request('POST', '/v1/payouts', { clientRef: ref('bank'), ...body });
      expect(res.statusCode, res.body).toBe(201);
      return res.json<{ id: string }>().id;
    };
    // One request, so both are handed over together and share their window's file.
    const both = await c.request('POST', '/v1/payouts', [
      { clientRef: ref('sepa'), amount: '12.34', currency: 'EUR', route: 'sepa_credit', beneficiary: ADA, reference: 'Invoice 7' },
      { clientRef: ref('inst'), amount: '0.50', currency: 'EUR', route: 'sepa_inst', beneficiary: ADA },
    ]);
    expect(both.statusCode, both.body).toBe(201);
    const [sepa, inst] = both.json<{ id: string }[]>().map((p) => p.id) as [string, string];
    const swift = await post({ amount: '250.00', currency: 'USD', route: 'swift', beneficiary: GRACE });
    for (const id of [sepa, inst, swift]) await waitFor(c, id, (p) => p.status === 'processing', 120_000);

    const files = inboxFiles(server);
    expect(fs.readdirSync(server.inbox).filter((n) => n.endsWith('.part'))).toEqual([]);
    const sepaFile = files.find((f) => f.xml.includes(endToEndIdOf(sepa)));
    const swiftFile = files.find((f) => f.xml.includes(endToEndIdOf(swift)));
    expect(sepaFile && swiftFile).toBeTruthy();
    for (const f of files) expect(await validatePain001(f.xml, f.name.includes('-swift-') ? 'swift' : 'sepa')).toMatchObject({ valid: true, errors: [] });

    // SEPA: pain.001.001.09, SvcLvl SEPA, INST for the instant one, both in the EUR account's file, amounts and sums right.
    const s = sepaFile?.xml ?? '';
    expect(s).toContain('xmlns="urn:iso:std:iso:20022:tech:xsd:pain.001.001.09"');
    expect(s).toContain(endToEndIdOf(inst));
    expect(s.match(/<LclInstrm>\s*<Cd>INST<\/Cd>/g)).toHaveLength(1);
    expect(elements(s, 'PmtInfId')).toHaveLength(2);
    expect(element(s, 'NbOfTxs')).toBe('2');
    expect(element(s, 'CtrlSum')).toBe('12.84');
    expect(s).toContain('<InstdAmt Ccy="EUR">12.34</InstdAmt>');
    expect(s).toContain('<IBAN>DE02100100109307118603</IBAN>');
    expect(s).toContain('<Ustrd>Invoice 7</Ustrd>');
    expect(s).toMatch(/<StrtNm>1 Hauptstrasse<\/StrtNm>\s*<PstCd>10115<\/PstCd>\s*<TwnNm>Berlin<\/TwnNm>\s*<Ctry>DE<\/Ctry>/);

    // SWIFT: the USD account's file, a UETR shown on the payout read and in the file.
    const w = swiftFile?.xml ?? '';
    const read = (await c.request('GET', `/v1/payouts/${swift}`)).json<{ uetr?: string }>();
    expect(read.uetr).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(element(w, 'UETR')).toBe(read.uetr);
    expect(w).toContain('<IBAN>DE75512108001245126199</IBAN>');
    expect(w).toContain('<InstdAmt Ccy="USD">250.00</InstdAmt>');
    expect(w).toContain('<BICFI>UBSWCHZH80A</BICFI>');
    expect(w).toMatch(/<StrtNm>Bahnhofstrasse 1<\/StrtNm>\s*<PstCd>8001<\/PstCd>\s*<TwnNm>Zurich<\/TwnNm>\s*<Ctry>CH<\/Ctry>/);
    expect((await c.request('GET', `/v1/payouts/${sepa}`)).json<{ uetr?: string }>().uetr).toBeUndefined();

    // Each file recorded with its hash and MsgId before it left, and now delivered.
    const recorded = await t.ctx.db.query<{ msg_id: string; file_name: string; status: string; sha256: string }>('SELECT msg_id, file_name, status, sha256 FROM bank_files');
    for (const f of files) {
      const row = recorded.find((r) => r.file_name === f.name);
      expect(row).toMatchObject({ status: 'delivered', msg_id: element(f.xml, 'MsgId') });
      expect(row?.sha256).toBe((await import('node:crypto')).createHash('sha256').update(fs.readFileSync(path.join(server.inbox, f.name))).digest('hex'));
    }
  });

  it("reads the bank's answers from its SFTP outbox: a transaction rejected (failed), and a whole message rejected by its MsgId (held)", async () => {
    const post = async (body: Record<string, unknown>) => {
      const res = await c.request('POST', '/v1/payouts', { clientRef: ref('ans'), ...body });
      expect(res.statusCode, res.body).toBe(201);
      return res.json<{ id: string }>().id;
    };
    const swift = await post({ amount: '20.00', currency: 'USD', route: 'swift', beneficiary: GRACE });
    const sepa = await post({ amount: '3.00', currency: 'EUR', route: 'sepa_credit', beneficiary: ADA });
    for (const id of [swift, sepa]) await waitFor(c, id, (p) => p.status === 'processing', 120_000);
    const msgIdOf = async (payoutId: string) =>
      (await t.ctx.db.query<{ msg_id: string }>('SELECT f.msg_id FROM bank_files f JOIN bank_payouts p ON p.file_id = f.id WHERE p.payout_id = $1', [payoutId]))[0]?.msg_id as string;
    // The test is the bank: it writes its status reports into the outbox Corridor polls.
    fs.writeFileSync(path.join(server.outbox, 'sts-1.xml'), pain002({ originalMessageId: await msgIdOf(swift), transactions: [{ endToEndId: swift, status: 'RJCT', reason: 'AC01' }] }));
    fs.writeFileSync(path.join(server.outbox, 'sts-2.xml'), pain002({ originalMessageId: await msgIdOf(sepa), groupStatus: 'RJCT', groupReason: 'FF01', transactions: [] }));
    const rejected = await waitFor(c, swift, (p) => p.status === 'failed', 120_000);
    expect(rejected).toMatchObject({ returnReason: { code: 'AC01' } });
    // A whole message rejected is the file's problem: its payout is held for the operator with the bank's code, not failed.
    for (let i = 0; i < 4800 && !fs.existsSync(path.join(server.outbox, 'archive', 'sts-2.xml')); i++) await new Promise((r) => setTimeout(r, 25));
    expect((await c.request('GET', `/v1/payouts/${sepa}`)).json<{ status: string }>().status).toBe('processing');
    const [held] = await t.ctx.db.query<{ status: string; held_reason: string }>('SELECT status, held_reason FROM bank_payouts WHERE payout_id = $1', [sepa]);
    expect(held).toMatchObject({ status: 'held', held_reason: expect.stringContaining('as a whole: FF01 File format incomplete or invalid') });
    // Each file is moved into archive/ once the transaction that applied it committed.
    const archived = () => (fs.existsSync(path.join(server.outbox, 'archive')) ? fs.readdirSync(path.join(server.outbox, 'archive')).sort() : []);
    for (let i = 0; i < 400 && archived().length < 2; i++) await new Promise((r) => setTimeout(r, 25));
    expect(archived()).toEqual(['sts-1.xml', 'sts-2.xml']);
    expect(fs.readdirSync(server.outbox).filter((n) => n.endsWith('.xml'))).toEqual([]);
  });

  it('a rejection naming a message Corridor never sent, or another block of the message, fails nothing: it is the operator\'s exception', async () => {
    const res = await c.request('POST', '/v1/payouts', { clientRef: ref('mm'), amount: '4.00', currency: 'EUR', route: 'sepa_credit', beneficiary: ADA });
    expect(res.statusCode, res.body).toBe(201);
    const payout = res.json<{ id: string }>().id;
    await waitFor(c, payout, (p) => p.status === 'processing', 120_000);
    const [sent] = await t.ctx.db.query<{ msg_id: string; pmt_inf_id: string }>('SELECT f.msg_id, p.pmt_inf_id FROM bank_files f JOIN bank_payouts p ON p.file_id = f.id WHERE p.payout_id = $1', [payout]);
    const msgId = sent?.msg_id as string;
    const takenIn = async (name: string) => {
      for (let i = 0; i < 2400 && !fs.existsSync(path.join(server.outbox, 'archive', name)); i++) await new Promise((r) => setTimeout(r, 25));
      expect(fs.existsSync(path.join(server.outbox, 'archive', name)), name).toBe(true);
    };
    const exceptions = () => t.ctx.db.query<{ code: string; reason: string }>("SELECT code, reason FROM bank_exceptions WHERE end_to_end_id = $1 AND code = 'message_mismatch' ORDER BY created_at", [endToEndIdOf(payout)]);

    // A message id Corridor never used.
    fs.writeFileSync(path.join(server.outbox, 'forged-1.xml'), pain002({ originalMessageId: 'F'.repeat(32), transactions: [{ endToEndId: payout, status: 'RJCT', reason: 'AC01' }] }));
    await takenIn('forged-1.xml');
    // The right message, another payment information block.
    const otherBlock = pain002({ originalMessageId: msgId, transactions: [{ endToEndId: payout, status: 'RJCT', reason: 'AC01' }] }).replace(`<OrgnlPmtInfId>${msgId}-1</OrgnlPmtInfId>`, `<OrgnlPmtInfId>${msgId}-9</OrgnlPmtInfId>`);
    expect(otherBlock).toContain(`${msgId}-9`);
    fs.writeFileSync(path.join(server.outbox, 'forged-2.xml'), otherBlock);
    await takenIn('forged-2.xml');
    expect((await c.request('GET', `/v1/payouts/${payout}`)).json<{ status: string }>().status).toBe('processing');
    const found = await exceptions();
    expect(found).toHaveLength(2);
    expect(found[0]?.reason).toContain(`message ${'F'.repeat(32)}`);
    expect(found[0]?.reason).toContain(`it went in message ${msgId}, payment information ${sent?.pmt_inf_id}`);
    expect(found[1]?.reason).toContain(`payment information ${msgId}-9`);

    // The bank's real answer, naming the message and block the payout went in, fails it.
    fs.writeFileSync(path.join(server.outbox, 'real.xml'), pain002({ originalMessageId: msgId, transactions: [{ endToEndId: payout, status: 'RJCT', reason: 'AC01' }] }));
    expect(await waitFor(c, payout, (p) => p.status === 'failed', 120_000)).toMatchObject({ returnReason: { code: 'AC01' } });
  });

  it('refuses a SWIFT payout whose beneficiary lacks a structured address field, with a 400 naming it', async () => {
    const { postcode: _postcode, ...withoutPostcode } = GRACE;
    const res = await c.request('POST', '/v1/payouts', { clientRef: ref('nopc'), amount: '10.00', currency: 'USD', route: 'swift', beneficiary: withoutPostcode });
    expect(res.statusCode, res.body).toBe(400);
    expect(res.body).toContain('beneficiary.postcode');
    const body = res.json<{ details?: { field: string; code?: string }[] }>();
    expect(body.details).toEqual([expect.objectContaining({ field: 'beneficiary.postcode', code: 'BENEFICIARY_INCOMPLETE' })]);
  });
});

describe('a SWIFT payout on a route the bank does not serve', () => {
  it('is not asked for a structured address beyond the corridor requirements', async () => {
    const t = await createTestApp();
    try {
      const c = await payingWorkspace(t);
      await fund(c, 'USD', '100');
      const { postcode: _postcode, ...withoutPostcode } = GRACE;
      const res = await c.request('POST', '/v1/payouts', { clientRef: ref('sim'), amount: '10.00', currency: 'USD', route: 'swift', beneficiary: withoutPostcode });
      expect(res.statusCode, res.body).toBe(201);
    } finally {
      await t.close();
    }
  }, 240_000);
});
