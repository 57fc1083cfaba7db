import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HandedOverPayout } from '../../src/connectors/connector.js';
import type { BankConnector } from '../../src/connectors/bank/bank.connector.js';
import { endToEndIdOf } from '../../src/connectors/bank/bank.instructions.js';
import { validatePain001 } from '../../src/connectors/bank/pain001.validate.js';
import { operator, type Caller, type TestApp } from '../helpers/app.js';
import { inboxFiles, sshdMissing, type SftpServer } from '../helpers/sftp-server.js';
import { ADA, fund, payingWorkspace, ref, waitFor } from '../payouts/helpers.js';
import { GRACE, startBankApp, type BankApp } from './helpers.js';

/**
 * Issue 33, point 1: a pain.001 file carries the payouts of every workspace paying from the same bank
 * account, so one payout's text must never make the file fail. Texts a file cannot carry are refused
 * at submit, naming the field; the others are written in the EPC Latin set; and a payout that still
 * makes a file fail its schema holds only itself.
 */

const VICTIMS = 4;
/** Two poisoned payouts (as recorded before the submit checks existed) and the victims': the window is cut when all are in. */
const IN_FILE = VICTIMS + 2;

const EMOJI_AT_140 = `${'Invoice 2026-11 '.repeat(9).slice(0, 139)}😀`;

describe.skipIf(sshdMissing)(`bank payout texts${sshdMissing ? ` (${sshdMissing})` : ''}`, () => {
  let app: BankApp | undefined;
  let server: SftpServer;
  let t: TestApp;
  let c: Caller;

  beforeAll(async () => {
    // A window cut only when full: the poisoned payouts and the victims' share one file, deterministically.
    app = await startBankApp({ cutoff: { maxPayouts: IN_FILE, maxSeconds: 3600 } }, { EUR: '1000', USD: '1000' });
    ({ server, t, c } = app);
  }, 240_000);
  afterAll(() => app?.stop());

  const attacks: { what: string; route: 'sepa_credit' | 'swift'; body: Record<string, unknown>; field: string; says: RegExp }[] = [
    { what: 'a control character (U+0001) in the name', route: 'sepa_credit', body: { beneficiary: { ...ADA, name: 'Mallory\u0001 Evil' } }, field: 'beneficiary.name', says: /control character \(U\+0001\)/ },
    { what: 'ESC in the address', route: 'sepa_credit', body: { beneficiary: { ...ADA, address: '1 Haupt\u001bstrasse' } }, field: 'beneficiary.address', says: /control character \(U\+001B\)/ },
    { what: 'a vertical tab in the town', route: 'swift', body: { beneficiary: { ...GRACE, city: 'Zu\u000brich' } }, field: 'beneficiary.city', says: /control character \(U\+000B\)/ },
    { what: 'U+FFFF in the reference', route: 'sepa_credit', body: { beneficiary: ADA, reference: 'Invoice \uffff 7' }, field: 'reference', says: /U\+FFFF, which is not a character/ },
    { what: 'a 140-character reference ending in an emoji', route: 'sepa_credit', body: { beneficiary: ADA, reference: EMOJI_AT_140 }, field: 'reference', says: /emoji \(U\+1F600\)/ },
    { what: 'a name of 71 characters', route: 'sepa_credit', body: { beneficiary: { ...ADA, name: `Ada ${'L'.repeat(67)}` } }, field: 'beneficiary.name', says: /71 characters .* at most 70/ },
    { what: 'an emoji in a SWIFT reference', route: 'swift', body: { beneficiary: GRACE, reference: 'Thanks ❤️' }, field: 'reference', says: /emoji \(U\+2764\)/ },
    {
      what: "a control character in the sender's company name",
      route: 'sepa_credit',
      body: { beneficiary: ADA, senderInfo: { type: 'business', companyName: 'Acme\u0007 Ltd', country: 'DE' } },
      field: 'senderInfo.companyName',
      says: /control character \(U\+0007\)/,
    },
  ];

  for (const a of attacks) {
    it(`refuses at submit, naming the field, ${a.what}`, async () => {
      const currency = a.route === 'swift' ? 'USD' : 'EUR';
      const res = await c.request('POST', '/v1/payouts', { clientRef: ref('bad'), amount: '2.00', currency, route: a.route, ...a.body });
      expect(res.statusCode, res.body).toBe(400);
      const details = res.json<{ details?: { field: string; message: string; code?: string }[] }>().details ?? [];
      expect(details).toEqual([expect.objectContaining({ field: a.field, message: expect.stringMatching(a.says) })]);
    });
  }

  it("holds only the poisoned payouts of a file shared by several workspaces; the others' leave in a valid file", async () => {
    // Three workspaces pay from the bank's one EUR account.
    const victims = await Promise.all([0, 1, 2].map(async () => {
      const w = await payingWorkspace(t);
      await fund(w, 'EUR', '100');
      return w;
    }));
    // The attacker's payouts as they were recorded before the submit checks (a name with a control
    // character, an amount beyond the EPC schema): handed to the bank as the payouts step does.
    const attacker = await payingWorkspace(t);
    await fund(attacker, 'GBP', '10');
    const alan = { type: 'individual', name: 'Alan Turing', country: 'GB', accounts: [{ type: 'bank_account', currency: 'GBP', data: { accountNumber: '12345678', sortCode: '112233' } }] };
    const poisoned: HandedOverPayout[] = [];
    for (const [beneficiary, amountMinor] of [[{ ...ADA, name: 'Mallory\u001b[2J' }, 200n], [ADA, 100_000_000_000n]] as const) {
      const res = await attacker.request('POST', '/v1/payouts', { clientRef: ref('atk'), amount: '1.00', currency: 'GBP', route: 'bank_transfer', beneficiary: alan });
      expect(res.statusCode, res.body).toBe(201);
      const p = res.json<{ id: string; clientRef: string }>();
      poisoned.push({ id: p.id, workspaceId: attacker.workspaceId, accountId: attacker.workspaceId, clientRef: p.clientRef, amountMinor, currency: 'EUR', route: 'sepa_credit', rail: 'sepa_credit', beneficiary, sender: null, fundingCurrency: 'EUR', reference: null });
    }
    const bank = t.ctx.connectors.get('bank') as BankConnector;
    await t.ctx.db.tx((tx) => bank.accept(tx, poisoned));

    const sent: { c: Caller; id: string }[] = [];
    for (let i = 0; i < VICTIMS; i++) {
      const w = victims[i % victims.length] as Caller;
      const res = await w.request('POST', '/v1/payouts', { clientRef: ref('v'), amount: `${i + 1}.00`, currency: 'EUR', route: 'sepa_credit', beneficiary: { ...ADA, name: 'Jürgen Groß' }, reference: '„Rechnung“ № 5 & Co' });
      expect(res.statusCode, res.body).toBe(201);
      sent.push({ c: w, id: res.json<{ id: string }>().id });
    }
    for (const s of sent) await waitFor(s.c, s.id, (p) => p.status === 'processing', 120_000);

    // One file left, valid, with every victim's payout and neither of the attacker's.
    const files = inboxFiles(server).filter((f) => sent.some((s) => f.xml.includes(endToEndIdOf(s.id))));
    expect(files).toHaveLength(1);
    const xml = files[0]?.xml ?? '';
    expect(await validatePain001(xml, 'sepa')).toMatchObject({ valid: true, errors: [] });
    for (const s of sent) expect(xml).toContain(endToEndIdOf(s.id));
    for (const p of poisoned) expect(xml).not.toContain(endToEndIdOf(p.id));
    // Written in the EPC Latin set, as the conversion table says.
    expect(xml).toContain('<Nm>Jurgen Gross</Nm>');
    expect(xml).toContain("<Ustrd>'Rechnung' No 5 + Co</Ustrd>");

    // The attacker's two are held for the operator, each with its own reason.
    const held = (await operator(t.app, 'GET', '/operator/v1/bank/held-payouts')).json<{ data: { payoutId: string; workspaceId: string; reason: string }[] }>().data;
    expect(held.map((h) => h.workspaceId)).toEqual([attacker.workspaceId, attacker.workspaceId]);
    expect(held.find((h) => h.payoutId === poisoned[0]?.id)?.reason).toMatch(/beneficiary\.name contains a control character \(U\+001B\)/);
    expect(held.find((h) => h.payoutId === poisoned[1]?.id)?.reason).toMatch(/failed pain\.001\.001\.09 validation: .*InstdAmt.*maxInclusive/);
    expect(held.find((h) => h.payoutId === poisoned[1]?.id)?.reason).not.toMatch(/Jurgen|EndToEndId/);
  }, 240_000);
});
