import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { validateXML } from 'xmllint-wasm';
import { payoutIdOfEndToEndId } from '../../src/connectors/bank/inbound/end-to-end.js';
import { openingAndClosing } from '../../src/connectors/bank/inbound/inbound.service.js';
import { InboundParseError, parseInbound, type Balance, type Notification, type PaymentReturn, type StatementMessage, type StatusReport } from '../../src/connectors/bank/inbound/iso20022.parse.js';
import { describeReason, RETURN_REASONS, STATUS_REASONS } from '../../src/connectors/bank/inbound/reason-codes.js';
import { camt053, camt054, pacs004, pain002 } from '../helpers/bank-answers.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const XSD = path.join(here, '../../src/connectors/bank/inbound/xsd');
const fixture = (name: string) => fs.readFileSync(path.join(here, 'fixtures', name));

async function validates(xml: string, xsd: string): Promise<void> {
  const result = await validateXML({ xml: [{ fileName: 'answer.xml', contents: xml }], schema: [{ fileName: xsd, contents: fs.readFileSync(path.join(XSD, xsd), 'utf8') }] });
  expect(result.errors.map((e) => e.message)).toEqual([]);
}

const E2E = '6f1c2b7e-3d4a-4c5b-9e8f-0a1b2c3d4e5f';
const ACCOUNT = { iban: 'DE02100100100006820101' };

describe('reading ISO 20022 answers', () => {
  it('every answer the test bank writes validates against the shipped XSD and reads back', async () => {
    const answers = [
      { xsd: 'pain.002.001.11.xsd', xml: pain002({ originalMessageId: 'M1', transactions: [{ endToEndId: E2E, status: 'RJCT', reason: 'AC01', info: 'bad IBAN', amount: '10.00' }] }), kind: 'pain.002' },
      { xsd: 'camt.054.001.08.xsd', xml: camt054({ account: ACCOUNT, entries: [{ direction: 'debit', amount: '10.00', endToEndId: E2E }, { direction: 'credit', amount: '3.00', creditorIban: 'DE89370400440532013000', debtorName: 'Grace', reference: 'INV-1', returnReason: 'AC04' }] }), kind: 'camt.054' },
      { xsd: 'camt.053.001.08.xsd', xml: camt053({ account: ACCOUNT, date: '2026-03-03', opening: '100.00', entries: [{ direction: 'debit', amount: '10.00', endToEndId: E2E }] }), kind: 'camt.053' },
      { xsd: 'pacs.004.001.10.xsd', xml: pacs004({ returns: [{ endToEndId: E2E, amount: '10.00', reason: 'MD07', info: 'deceased' }] }), kind: 'pacs.004' },
    ];
    for (const a of answers) {
      await validates(a.xml, a.xsd);
      expect(parseInbound(a.xml).kind).toBe(a.kind);
    }
  });

  it('reads a camt.054.001.04 return notification (the older version many banks send): the entry, its EndToEndId and return reason', () => {
    const m = parseInbound(fixture('camt054-return-v04.xml')) as Notification;
    expect(m).toMatchObject({ kind: 'camt.054', version: 'camt.054.001.04', messageId: '20260303-RTN-000017' });
    const [n] = m.notifications;
    expect(n?.account.iban).toBe('DE02100100100006820101');
    const entry = n?.entries[0];
    expect(entry).toMatchObject({ direction: 'credit', status: 'BOOK', reversal: true, ref: '0758200RTN17', bookingDate: '2026-03-03', bankTransactionCode: 'PMNT/ICDT/RRTN' });
    expect(entry?.amount).toMatchObject({ minor: 25000n, currency: 'EUR' });
    expect(entry?.transactions[0]).toMatchObject({ endToEndId: E2E.replace(/-/g, ''), returnReason: { code: 'AC04', proprietary: false, additionalInfo: 'Konto aufgeloest' }, debtorIban: 'DE89370400440532013000', reference: 'Invoice 2026-114' });
    expect(entry?.transactions[0]?.amount?.minor).toBe(25000n);
  });

  it('reads a pain.002.001.10 partial acceptance: the rejected transaction with its reason code, the accepted one', () => {
    const m = parseInbound(fixture('pain002-rjct-v10.xml')) as StatusReport;
    expect(m).toMatchObject({ kind: 'pain.002', version: 'pain.002.001.10', originalMessageId: 'CORRIDOR-20260303-0007', groupStatus: 'PART' });
    expect(m.transactions.map((t) => [t.status, t.reason?.code])).toEqual([['RJCT', 'AC01'], ['ACCP', undefined]]);
    expect(m.transactions[0]?.amount?.minor).toBe(10000n);
  });

  it('refuses what is not a message it reads, with the reason; never a guess', () => {
    const refused = (xml: string) => {
      try {
        parseInbound(xml);
      } catch (err) {
        expect(err).toBeInstanceOf(InboundParseError);
        return (err as Error).message;
      }
      throw new Error('parsed');
    };
    expect(refused('not xml <')).toMatch(/Document|well-formed/);
    expect(refused('<Document xmlns="urn:iso:std:iso:20022:tech:xsd:pain.001.001.09"><CstmrCdtTrfInitn/></Document>')).toMatch(/Corridor reads/);
    expect(refused('<!DOCTYPE x [<!ENTITY a "b">]><Document/>')).toMatch(/DOCTYPE/);
    expect(refused(pacs004({ returns: [{ endToEndId: E2E, amount: '10.001', reason: 'AC04' }] }))).toMatch(/more decimals/);
    // Within a notification the reason holds that notification only.
    const notification = parseInbound(camt054({ account: ACCOUNT, entries: [{ direction: 'debit', amount: '10.001', endToEndId: E2E }] })) as Notification;
    expect(notification.notifications[0]?.unreadable).toMatch(/more decimals/);
  });

  it('entities and DTDs (six variants, external ones included), 100,000-deep nesting, UTF-16 and non-XML are refused with the reason, nothing fetched and nothing leaked', async () => {
    const requests: string[] = [];
    const server = http.createServer((req, res) => {
      requests.push(req.url ?? '');
      res.end('<!ENTITY leak "LEAKED">');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const body = (inner: string) => `<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.054.001.08"><BkToCstmrDbtCdtNtfctn><GrpHdr><MsgId>${inner}</MsgId></GrpHdr></BkToCstmrDbtCdtNtfctn></Document>`;
    const refused = (xml: string | Buffer) => {
      try {
        parseInbound(xml);
      } catch (err) {
        expect(err).toBeInstanceOf(InboundParseError);
        return (err as Error).message;
      }
      throw new Error('parsed');
    };
    try {
      const variants = [
        `<!DOCTYPE Document [<!ENTITY x "internal">]>${body('&x;')}`,
        `<!DOCTYPE Document [<!ENTITY x SYSTEM "file:///etc/passwd">]>${body('&x;')}`,
        `<!DOCTYPE Document [<!ENTITY x SYSTEM "${base}/xxe">]>${body('&x;')}`,
        `<!DOCTYPE Document [<!ENTITY % p SYSTEM "${base}/parameter"> %p;]>${body('&leak;')}`,
        `<!DOCTYPE Document SYSTEM "${base}/dtd">${body('&leak;')}`,
        `<!DOCTYPE Document [<!ENTITY a "ha"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;"><!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;">]>${body('&c;')}`,
      ];
      for (const xml of variants) expect(refused(xml), xml).toMatch(/DOCTYPE/);
      // An entity used without a declaration is no entity either.
      expect(refused(body('&passwd;'))).toMatch(/not well-formed/);
      expect(refused('<a>'.repeat(100_000) + '</a>'.repeat(100_000))).toMatch(/nest deeper than 100 levels/);
      expect(refused(Buffer.from(`\ufeff<?xml version="1.0" encoding="UTF-16"?>${body('M1')}`, 'utf16le'))).toMatch(/UTF-16/);
      expect(refused(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d]))).toMatch(/not well-formed|UTF-16/);
      expect(refused('{"not": "xml"}')).toMatch(/not well-formed/);
      expect(requests).toEqual([]);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('an EndToEndId names a payout by its id without dashes (or with them); anything else names none', () => {
    expect(payoutIdOfEndToEndId('6f1c2b7e3d4a4c5b9e8f0a1b2c3d4e5f')).toBe(E2E);
    expect(payoutIdOfEndToEndId(E2E)).toBe(E2E);
    expect(payoutIdOfEndToEndId('NOTPROVIDED')).toBeUndefined();
  });

  it('describes reason codes in words from the ISO code tables, keeping a code it does not know with the bank\'s text', () => {
    expect(describeReason(STATUS_REASONS, 'AC01')).toEqual({ code: 'AC01', description: 'Format of the account number specified is not correct' });
    expect(describeReason(RETURN_REASONS, 'MD07')).toEqual({ code: 'MD07', description: 'End customer is deceased' });
    expect(describeReason(RETURN_REASONS, 'ZZ99', 'Bank-specific')).toEqual({ code: 'ZZ99', description: 'Bank-specific' });
  });

  it('a statement that cannot be read carries its reason and the other statements of the message read all the same', () => {
    const good = camt053({ account: ACCOUNT, date: '2026-03-04', opening: '100.00', statementId: 'GOOD', entries: [{ direction: 'debit', amount: '1.00' }] });
    const bad = camt053({ account: { iban: 'CH9300762011623852957', currency: 'CHF' }, date: '2026-03-04', opening: '5.00', statementId: 'BAD', entries: [{ direction: 'credit', amount: '1.00', currency: 'CHF', bookingDate: '2026-02-30' }] });
    const stmt = (xml: string) => /<Stmt>[\s\S]*<\/Stmt>/.exec(xml)?.[0] ?? '';
    const both = good.replace('</Stmt>', `</Stmt>${stmt(bad)}`);
    const m = parseInbound(both) as StatementMessage;
    expect(m.statements.map((s) => [s.id, s.unreadable])).toEqual([
      ['GOOD', undefined],
      ['BAD', 'the booking date of an entry (BookgDt): 2026-02-30 is not a calendar date'],
    ]);
    expect(m.statements[0]?.entries).toHaveLength(1);
  });

  it('opening and closing balances: booked first, interim booked ones on the pages of a paginated statement, available ones when they are all there is', () => {
    const b = (type: string): Balance => ({ type, amount: { minor: 1n, currency: 'EUR', text: '0.01' }, signedMinor: 1n, date: '2026-03-04' });
    const types = (balances: Balance[]) => {
      const { opening, closing } = openingAndClosing(balances);
      return [opening?.type, closing?.type];
    };
    expect(types([b('OPBD'), b('CLBD'), b('CLAV'), b('FWAV')])).toEqual(['OPBD', 'CLBD']);
    expect(types([b('PRCD'), b('CLBD')])).toEqual(['PRCD', 'CLBD']);
    // First, middle and last page.
    expect(types([b('OPBD'), b('ITBD')])).toEqual(['OPBD', 'ITBD']);
    expect(types([b('ITBD'), b('ITBD')])).toEqual(['ITBD', 'ITBD']);
    expect(types([b('ITBD'), b('CLBD')])).toEqual(['ITBD', 'CLBD']);
    expect(types([b('OPAV'), b('CLAV')])).toEqual(['OPAV', 'CLAV']);
    expect(types([b('FWAV'), b('ITAV')])).toEqual([undefined, undefined]);
  });
});

describe('what a return or a converted payment says besides its amount (issue 32 point 2)', () => {
  const real = (name: string) => fs.readFileSync(path.join(here, '../../../shared/real-world/iso20022', name));

  it('reads the UETR, the original amount and the charges of the published CBPR+ return net of 20 USD', () => {
    const m = parseInbound(real('27-cbprplus-pacs004-p212-envelope.xml')) as PaymentReturn;
    expect(m.returns).toHaveLength(1);
    expect(m.returns[0]).toMatchObject({
      endToEndId: 'E2E04044506271305',
      uetr: '174c245f-2682-4291-ad67-2a41e530cd27',
      amount: { minor: 13648000n, currency: 'USD' },
      originalAmount: { minor: 13650000n, currency: 'USD' },
      charges: undefined,
    });
  });

  it('reads a return named by its UETR alone, with its charges summed (ChrgsInf); one naming neither is unreadable', () => {
    const uetr = '3f2504e0-4f89-41d3-9a0c-0305e82c3301';
    const xml = pacs004({ returns: [{ endToEndId: E2E, amount: '980.00', currency: 'USD', reason: 'AC04' }] })
      .replace(/<OrgnlEndToEndId>[^<]*<\/OrgnlEndToEndId>/, `<OrgnlUETR>${uetr}</OrgnlUETR>`)
      .replace(/(<IntrBkSttlmDt>[^<]*<\/IntrBkSttlmDt>)/, '$1<ChrgsInf><Amt Ccy="USD">15.00</Amt><Agt><FinInstnId><BICFI>CHASUS33XXX</BICFI></FinInstnId></Agt></ChrgsInf><ChrgsInf><Amt Ccy="USD">5.00</Amt><Agt><FinInstnId><BICFI>UBSWCHZH80A</BICFI></FinInstnId></Agt></ChrgsInf>');
    const m = parseInbound(xml) as PaymentReturn;
    expect(m.returns[0]).toMatchObject({ endToEndId: undefined, uetr, amount: { minor: 98000n }, charges: { minor: 2000n, currency: 'USD', text: '20.00' } });
    expect(() => parseInbound(xml.replace(/<OrgnlUETR>[^<]*<\/OrgnlUETR>/, ''))).toThrow('a return without OrgnlEndToEndId or OrgnlUETR is missing');
  });

  it('reads the instructed amount of an entry booked in the account currency, and its charges (records or total)', () => {
    const xml = camt054({ account: ACCOUNT, entries: [{ direction: 'debit', amount: '92.59', endToEndId: E2E, instructed: { amount: '100.00', currency: 'USD', rate: '1.080000' } }] });
    const entry = (parseInbound(xml) as Notification).notifications[0]?.entries[0];
    expect(entry?.amount).toMatchObject({ minor: 9259n, currency: 'EUR' });
    expect(entry?.transactions[0]).toMatchObject({ instructedAmount: { minor: 10000n, currency: 'USD' }, charges: undefined });
    const charged = xml.replace(/(<\/AmtDtls>)/, '$1<Chrgs><Rcrd><Amt Ccy="EUR">1.50</Amt></Rcrd><Rcrd><Amt Ccy="EUR">0.25</Amt></Rcrd></Chrgs>');
    expect((parseInbound(charged) as Notification).notifications[0]?.entries[0]?.transactions[0]?.charges).toMatchObject({ minor: 175n, currency: 'EUR', text: '1.75' });
    const total = xml.replace(/(<\/AmtDtls>)/, '$1<Chrgs><TtlChrgsAndTaxAmt Ccy="EUR">2.00</TtlChrgsAndTaxAmt><Rcrd><Amt Ccy="EUR">1.50</Amt></Rcrd></Chrgs>');
    expect((parseInbound(total) as Notification).notifications[0]?.entries[0]?.transactions[0]?.charges).toMatchObject({ minor: 200n, text: '2.00' });
  });
});
