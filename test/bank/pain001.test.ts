import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseBankConfig } from '../../src/connectors/bank/bank.config.js';
import { easterSunday, executionDate, isBusinessDay } from '../../src/connectors/bank/bank.calendar.js';
import { creditTransferOf, endToEndIdOf, payoutIdOfEndToEndId, sepaAddressErrors, structuredAddressErrors, textErrors } from '../../src/connectors/bank/bank.instructions.js';
import { toEpcLatin } from '../../src/connectors/bank/epc-latin.js';
import { buildPain001, decimalSum, type CreditTransfer, type PaymentFile } from '../../src/connectors/bank/pain001.js';
import { validatePain001 } from '../../src/connectors/bank/pain001.validate.js';

const debtor = { name: 'Corridor Payments GmbH', iban: 'DE02100100109307118603', bic: 'PBNKDEFFXXX', currency: 'EUR' };

function file(scheme: 'sepa' | 'swift', batches: PaymentFile['batches']): PaymentFile {
  return { scheme, msgId: '0123456789abcdef0123456789abcdef', createdAt: new Date('2026-11-24T10:00:00Z'), executionDate: '2026-11-24', debtor, batches };
}

const sepaTransfer = (i: number, extra: Partial<CreditTransfer> = {}): CreditTransfer => ({
  endToEndId: endToEndIdOf(`00000000-0000-4000-8000-${String(i).padStart(12, '0')}`),
  amount: `${i}.0${i % 10}`,
  currency: 'EUR',
  creditor: { name: `Beneficiary ${i} & Söhne <GmbH>`, address: { street: 'Hauptstrasse 1', postcode: '10115', town: 'Berlin', country: 'DE' } },
  account: { iban: 'DE89370400440532013000' },
  ...extra,
});

describe('pain.001 files', () => {
  it('SEPA files (credit and instant blocks, with and without BIC, address, remittance) validate against the EPC schema, with NbOfTxs and CtrlSum right', async () => {
    const built = buildPain001(
      file('sepa', [
        { id: 'b-1', instant: false, transfers: [sepaTransfer(1, { remittance: 'Invoice 2026/11' }), sepaTransfer(2, { agentBic: 'COBADEFFXXX' })] },
        { id: 'b-2', instant: true, transfers: [sepaTransfer(3, { creditor: { name: 'No Address' } })] },
      ]),
    );
    expect(await validatePain001(built.xml, 'sepa')).toMatchObject({ valid: true, errors: [] });
    expect(built).toMatchObject({ message: 'pain.001.001.09', nbOfTxs: 3, ctrlSum: '6.06' });
    expect(built.xml).toContain('<CtrlSum>6.06</CtrlSum>');
    expect(built.xml).toContain('Beneficiary 1 &amp; Söhne &lt;GmbH&gt;');
    expect(built.xml).toMatch(/<PmtInfId>b-2<\/PmtInfId>[\s\S]*<LclInstrm>\s*<Cd>INST<\/Cd>/);
  });

  it('SWIFT files (UETR, creditor agent, IBAN or account number, several currencies and scales) validate against the ISO schema', async () => {
    const swift = (i: number, currency: string, amount: string, account: CreditTransfer['account']): CreditTransfer => ({
      endToEndId: endToEndIdOf(`00000000-0000-4000-8000-${String(i).padStart(12, '0')}`),
      uetr: `9d2b8f0a-4c1e-4f7a-8b3d-${String(i).padStart(12, '0')}`,
      amount,
      currency,
      creditor: { name: 'Grace Hopper', address: { street: '1 Main Street', postcode: '10001', town: 'New York', subdivision: 'NY', country: 'US' } },
      account,
      agentBic: 'CHASUS33',
      ultimateDebtor: 'Acme Payments Ltd',
    });
    const built = buildPain001(file('swift', [{ id: 'b-1', instant: false, transfers: [swift(1, 'USD', '1250.50', { other: '000123456789' }), swift(2, 'JPY', '1000', { iban: 'GB29NWBK60161331926819' })] }]));
    expect(await validatePain001(built.xml, 'swift')).toMatchObject({ valid: true, errors: [] });
    expect(built).toMatchObject({ message: 'pain.001.001.10', nbOfTxs: 2, ctrlSum: '2250.50' });
    expect(built.xml.match(/<UETR>/g)).toHaveLength(2);
    expect(built.xml).toContain('<ChrgBr>SHAR</ChrgBr>');
  });

  it('a file the schema refuses is reported with the validator message', async () => {
    const built = buildPain001(file('sepa', [{ id: 'b', instant: false, transfers: [sepaTransfer(1, { amount: '1000000000.00' })] }]));
    const result = await validatePain001(built.xml, 'sepa');
    expect(result.valid).toBe(false);
    expect(result.errors.join('\n')).toMatch(/InstdAmt.*maxInclusive/);
  });

  it('control sums add decimals exactly', () => {
    expect(decimalSum(['0.10', '0.20'])).toBe('0.30');
    expect(decimalSum(['1000', '0.005', '2.5'])).toBe('1002.505');
    expect(decimalSum(['999999999.99', '0.01'])).toBe('1000000000.00');
  });

  it('EndToEndId is the payout id without dashes (35-character limit), and maps back', () => {
    const id = '3f2504e0-4f89-41d3-9a0c-0305e82c3301';
    expect(endToEndIdOf(id)).toBe('3f2504e04f8941d39a0c0305e82c3301');
    expect(endToEndIdOf(id).length).toBeLessThanOrEqual(35);
    expect(payoutIdOfEndToEndId(endToEndIdOf(id))).toBe(id);
    expect(payoutIdOfEndToEndId('NOTPROVIDED')).toBeUndefined();
  });

  it('a beneficiary becomes a transfer; SWIFT asks for each structured address field by name', () => {
    const t = creditTransferOf({
      id: '3f2504e0-4f89-41d3-9a0c-0305e82c3301',
      amount: '10.00',
      currency: 'EUR',
      beneficiary: { name: 'Ada', country: 'de', address: 'Hauptstrasse 1', addressLine2: 'Hinterhaus', city: 'Berlin', postcode: '10115', accounts: [{ type: 'iban', currency: 'EUR', data: { iban: 'DE89 3704 0044 0532 0130 00', bic: 'cobadeff' } }] },
      sender: { firstName: 'Bob', lastName: 'Smith' },
      reference: 'ref',
    });
    expect(t).toMatchObject({ account: { iban: 'DE89370400440532013000' }, agentBic: 'COBADEFF', ultimateDebtor: 'Bob Smith', creditor: { address: { street: 'Hauptstrasse 1, Hinterhaus', town: 'Berlin', postcode: '10115', country: 'DE' } } });
    expect(structuredAddressErrors({ name: 'x', country: 'CH', address: 'a', city: '' }).map((e) => e.field)).toEqual(['beneficiary.city', 'beneficiary.postcode']);
  });
});

describe('files a bank accepts after 15 November 2026', () => {
  it("writes BtchBookg as the account says (false by default) and the payer's address with its town and country, valid against both schemas", async () => {
    const address = { street: 'Friedrichstrasse', buildingNumber: '68', postcode: '10117', town: 'Berlin', country: 'DE' };
    const sepa = buildPain001({ ...file('sepa', [{ id: 'b-1', instant: false, transfers: [sepaTransfer(1)] }]), debtor: { ...debtor, address } });
    expect(await validatePain001(sepa.xml, 'sepa')).toMatchObject({ valid: true, errors: [] });
    expect(sepa.xml).toMatch(/<PmtMtd>TRF<\/PmtMtd>\s*<BtchBookg>false<\/BtchBookg>/);
    expect(sepa.xml).toMatch(/<Dbtr>\s*<Nm>Corridor Payments GmbH<\/Nm>\s*<PstlAdr>\s*<StrtNm>Friedrichstrasse<\/StrtNm>\s*<BldgNb>68<\/BldgNb>\s*<PstCd>10117<\/PstCd>\s*<TwnNm>Berlin<\/TwnNm>\s*<Ctry>DE<\/Ctry>/);
    const swift = buildPain001({ ...file('swift', [{ id: 'b-1', instant: false, transfers: [{ ...sepaTransfer(2), agentBic: 'COBADEFFXXX' }] }]), debtor: { ...debtor, address }, batchBooking: true });
    expect(await validatePain001(swift.xml, 'swift')).toMatchObject({ valid: true, errors: [] });
    expect(swift.xml).toContain('<BtchBookg>true</BtchBookg>');
  });

  it('asks for a business day of the bank: weekends, TARGET2 closing days and after the cut-off time in its time zone roll forward', () => {
    expect(easterSunday(2026)).toBe('2026-04-05');
    expect(easterSunday(2027)).toBe('2027-03-28');
    for (const closed of ['2026-01-01', '2026-04-03', '2026-04-06', '2026-05-01', '2026-12-25', '2026-12-26', '2026-11-28', '2026-11-29']) expect(isBusinessDay(closed), closed).toBe(false);
    expect(isBusinessDay('2026-11-27')).toBe(true);
    const berlin = { timeZone: 'Europe/Berlin', cutoffTime: '15:00' };
    // 13:59 UTC is 14:59 in Berlin in winter: before the cut-off, today.
    expect(executionDate(new Date('2026-11-26T13:59:00Z'), berlin)).toBe('2026-11-26');
    expect(executionDate(new Date('2026-11-26T14:00:00Z'), berlin)).toBe('2026-11-27');
    // Friday after the cut-off, and a Saturday: Monday.
    expect(executionDate(new Date('2026-11-27T15:00:00Z'), berlin)).toBe('2026-11-30');
    expect(executionDate(new Date('2026-11-28T09:00:00Z'), berlin)).toBe('2026-11-30');
    // Maundy Thursday after the cut-off: Good Friday and Easter Monday are closed, then the weekend between.
    expect(executionDate(new Date('2026-04-02T16:00:00Z'), berlin)).toBe('2026-04-07');
    // 23:30 UTC on 24 December is Christmas Day in Berlin: the 28th (the 26th and 27th are closed too).
    expect(executionDate(new Date('2026-12-24T23:30:00Z'), berlin)).toBe('2026-12-28');
    expect(executionDate(new Date('2026-11-26T23:30:00Z'), { timeZone: 'UTC', cutoffTime: '24:00' })).toBe('2026-11-26');
  });

  it('refuses a SEPA beneficiary with part of an address but no town, or outside the EEA without town and country', () => {
    const iban = (v: string) => [{ type: 'iban', data: { iban: v } }];
    expect(sepaAddressErrors({ name: 'Ada', country: 'DE', accounts: iban('DE89370400440532013000') })).toEqual([]);
    expect(sepaAddressErrors({ name: 'Ada', country: 'DE', address: 'Hauptstrasse 1', accounts: iban('DE89370400440532013000') }).map((e) => e.field)).toEqual(['beneficiary.city']);
    expect(sepaAddressErrors({ name: 'Heidi', accounts: iban('CH9300762011623852957') }).map((e) => [e.field, e.code])).toEqual([['beneficiary.city', 'BENEFICIARY_INCOMPLETE'], ['beneficiary.country', 'BENEFICIARY_INCOMPLETE']]);
    // An address without its town is never written.
    const t = creditTransferOf({ id: '3f2504e0-4f89-41d3-9a0c-0305e82c3301', amount: '1.00', currency: 'EUR', beneficiary: { name: 'Ada', country: 'DE', address: 'Hauptstrasse 1', accounts: iban('DE89370400440532013000') } });
    expect(t.creditor.address).toBeUndefined();
  });
});

describe('the EPC Latin character set', () => {
  it('converts letters of other scripts, spaces and punctuation as the EPC conversion table does', () => {
    const converted = (s: string) => {
      const r = toEpcLatin(s);
      return r.ok ? r.text : r.reason;
    };
    expect(converted('Jürgen Groß')).toBe('Jurgen Gross');
    expect(converted('Łódź, Wrocław')).toBe('Lodz, Wroclaw');
    expect(converted('Ελληνικά')).toBe('Ellinika');
    expect(converted('„Rechnung“ ‘7’ & Co – 50%')).toBe("'Rechnung' '7' + Co - 50.");
    expect(converted('a\u00a0b e\u0301')).toBe('a b e');
    expect(converted("a-z A-Z 0-9 / - ? : ( ) . , ' +")).toBe("a-z A-Z 0-9 / - ? : ( ) . , ' +");
  });

  it('refuses what has no Latin equivalent: control characters, U+FFFF, emoji, invisible format characters', () => {
    const reason = (s: string) => {
      const r = toEpcLatin(s);
      return r.ok ? `converted: ${r.text}` : r.reason;
    };
    expect(reason('Mallory\u0001')).toBe('contains a control character (U+0001)');
    expect(reason('\u001b[2J')).toBe('contains a control character (U+001B)');
    expect(reason('a\u000bb')).toBe('contains a control character (U+000B)');
    expect(reason('a\tb')).toBe('contains a control character (U+0009)');
    expect(reason('x\uffff')).toBe('contains U+FFFF, which is not a character');
    expect(reason('ok 😀')).toBe('contains an emoji (U+1F600)');
    expect(reason('a\u200db')).toBe('contains an invisible format character (U+200D)');
    // A lone half of a surrogate pair (what cutting inside an emoji leaves) is not a character either.
    expect(reason('x\ud83d')).toMatch(/cannot carry \(U\+D83D\)/);
  });

  it('a payout text is refused naming its field, and measured after conversion: a name of 70 is taken, 71 is not, never cut', () => {
    const ada = { name: 'Ada Lovelace', country: 'DE', city: 'Berlin' };
    expect(textErrors({ beneficiary: { ...ada, name: 'A'.repeat(70) } })).toEqual([]);
    expect(textErrors({ beneficiary: { ...ada, name: 'A'.repeat(70) + 'ß' } }).map((e) => e.field)).toEqual(['beneficiary.name']);
    const emoji = `${'r'.repeat(139)}😀`;
    expect(textErrors({ beneficiary: ada, reference: emoji })).toEqual([expect.objectContaining({ field: 'reference', message: expect.stringContaining('emoji') })]);
    expect(textErrors({ beneficiary: { ...ada, city: 'Zu\u000brich' }, sender: { companyName: 'Acme\uffff' } }).map((e) => e.field)).toEqual(['beneficiary.city', 'senderInfo.companyName']);
    expect(textErrors({ beneficiary: ada, sender: { firstName: 'F'.repeat(40), lastName: 'L'.repeat(40) } }).map((e) => e.field)).toEqual(['senderInfo.lastName']);
    const t = creditTransferOf({ id: '3f2504e0-4f89-41d3-9a0c-0305e82c3301', amount: '1.00', currency: 'EUR', beneficiary: { ...ada, name: 'Jürgen Groß', accounts: [{ type: 'iban', data: { iban: 'DE89370400440532013000' } }] }, reference: '„x“' });
    expect(t).toMatchObject({ creditor: { name: 'Jurgen Gross' }, remittance: "'x'" });
    expect(() => creditTransferOf({ id: '3f2504e0-4f89-41d3-9a0c-0305e82c3301', amount: '1.00', currency: 'EUR', beneficiary: { ...ada, accounts: [{ type: 'iban', data: { iban: 'DE89370400440532013000' } }] }, reference: emoji })).toThrow(/reference contains an emoji/);
  });
});

describe('the bank section of the connectors file', () => {
  const key = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'corridor-bank-key-')), 'id');
  fs.writeFileSync(key, 'not really a key');
  const valid = {
    sftp: { host: 'sftp.bank.example', port: 22, username: 'corridor', privateKeyFile: key, hostKeySha256: 'SHA256:' + 'A'.repeat(43), inbox: '/in', outbox: '/out' },
    accounts: [{ id: 'eur-main', iban: 'DE02100100109307118603', bic: 'PBNKDEFFXXX', name: 'Corridor', currency: 'EUR' }],
    cutoff: { maxPayouts: 500, maxSeconds: 60 },
    pollSeconds: 30,
  };

  it('is checked at start, naming the first bad setting', () => {
    expect(parseBankConfig(valid)).toMatchObject({ sftp: { hostKeySha256: 'A'.repeat(43) }, cutoff: { maxPayouts: 500 } });
    expect(() => parseBankConfig({ ...valid, sftp: { ...valid.sftp, hostKeySha256: 'abc' } })).toThrow(/bank.sftp.hostKeySha256/);
    expect(() => parseBankConfig({ ...valid, sftp: { ...valid.sftp, privateKeyFile: '/nonexistent/key' } })).toThrow(/bank.sftp.privateKeyFile/);
    expect(() => parseBankConfig({ ...valid, accounts: [] })).toThrow(/bank.accounts must be a non-empty array/);
    expect(() => parseBankConfig({ ...valid, accounts: [{ ...valid.accounts[0], iban: 'nope' }] })).toThrow(/bank.accounts.0.iban/);
    expect(() => parseBankConfig({ ...valid, cutoff: { maxPayouts: 0, maxSeconds: 60 } })).toThrow(/bank.cutoff.maxPayouts/);
    expect(parseBankConfig(valid)).toMatchObject({ calendar: { timeZone: 'UTC', cutoffTime: '24:00' }, accounts: [{ batchBooking: false, address: undefined }] });
    expect(parseBankConfig({ ...valid, accounts: [{ ...valid.accounts[0], name: 'Corridor Zahlungen Köln', address: { town: 'Köln', country: 'de' }, batchBooking: true }] })).toMatchObject({ accounts: [{ name: 'Corridor Zahlungen Koln', address: { town: 'Koln', country: 'DE' }, batchBooking: true }] });
    expect(() => parseBankConfig({ ...valid, accounts: [{ ...valid.accounts[0], address: { street: 'Hauptstrasse 1', country: 'DE' } }] })).toThrow(/bank.accounts.0.address.town/);
    expect(() => parseBankConfig({ ...valid, accounts: [{ ...valid.accounts[0], batchBooking: 'yes' }] })).toThrow(/bank.accounts.0.batchBooking/);
    expect(() => parseBankConfig({ ...valid, calendar: { timeZone: 'Mars/Olympus' } })).toThrow(/bank.calendar.timeZone/);
    expect(() => parseBankConfig({ ...valid, calendar: { cutoffTime: '3pm' } })).toThrow(/bank.calendar.cutoffTime/);
  });
});
