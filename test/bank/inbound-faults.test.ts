import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bankConnectorOf } from '../../src/connectors/bank/bank.connector.js';
import { runPoll } from '../../src/connectors/bank/bank.service.js';
import { ledgerInvariantViolations } from '../../src/domains/ledger/ledger.service.js';
import { createTestApp, OPERATOR_KEY, operator, type Caller, type TestApp } from '../helpers/app.js';
import { camt054, pacs004, type EntryAnswer } from '../helpers/bank-answers.js';
import { SftpBank } from '../helpers/sftp-bank.js';
import { bankSection, sshdMissing, startSftpServer, type SftpServer } from '../helpers/sftp-server.js';
import { WebClient } from '../helpers/web-client.js';
import { activeAccount, approveOnboarding } from '../virtual-accounts/helpers.js';
import { payingWorkspace } from '../payouts/helpers.js';
import { BANK_ROUTES, connectorsFile } from './helpers.js';

/**
 * The bank's answers that must not stop the others (issue 33, points 2, 3 and 6; issue 32's reused
 * references), taken in through the real SFTP server (OpenSSH) by the connector's own poll: files
 * that cannot be read and files above the size limit are quarantined with the reason and the rest
 * go through; a credit is posted once per booking, and one no bank reference identifies is held.
 */

const EUR_MAIN = { iban: 'DE02100100109307118603', currency: 'EUR' };
/** Low enough that a notification of a few dozen entries is above it. */
const MAX_FILE_BYTES = 6000;

describe.skipIf(sshdMissing)(`inbound bank files that must not stop the others${sshdMissing ? ` (${sshdMissing})` : ''}`, () => {
  let server: SftpServer;
  let t: TestApp;
  let bank: SftpBank;
  let c: Caller;
  let vaIban: string;
  let vaId: string;

  beforeAll(async () => {
    server = await startSftpServer();
    const file = connectorsFile({ routes: BANK_ROUTES, bank: { ...bankSection(server), inbound: { maxFileBytes: MAX_FILE_BYTES, chunkEntries: 3 } } });
    t = await createTestApp({ env: { CORRIDOR_CONNECTORS_FILE: file } });
    bank = await SftpBank.connect(server);
    c = await payingWorkspace(t);
    await approveOnboarding(t.app, c);
    const account = await activeAccount(c, 'EUR');
    const listed = (await c.request('GET', '/v1/virtual-accounts')).json<{ data: { id: string; iban?: string }[] }>().data.find((v) => v.id === account.id);
    vaId = account.id;
    vaIban = listed?.iban as string;
    expect(vaIban).toBeTruthy();
  }, 300_000);
  afterAll(async () => {
    await bank?.end();
    await t?.close();
    await server?.stop();
  }, 120_000);

  /** One look at the bank's outbox over SFTP, as the bank.poll job takes it. */
  const poll = async () => {
    const connector = bankConnectorOf(t.ctx);
    if (!connector) throw new Error('no bank connector configured');
    await runPoll(t.ctx, connector.runtime, connector.name);
  };
  const credit = (amount: string, more: Partial<EntryAnswer> = {}): EntryAnswer => ({ direction: 'credit', amount, creditorIban: vaIban, ...more });
  const deposits = async () => (await c.request('GET', `/v1/deposits?virtualAccountId=${vaId}&limit=100`)).json<{ data: { amount: string }[] }>().data.map((d) => d.amount).sort();
  const inboundFiles = async () => (await operator(t.app, 'GET', '/operator/v1/bank/inbound-files?limit=100')).json<{ data: { id: string; name: string; status: string; reason: string | null; sha256: string | null; bytes: number | null; entries: number; exceptions: number }[] }>().data;
  const fileNamed = async (name: string) => (await inboundFiles()).find((f) => f.name === name);
  const exceptionsOf = async (fileId: string) => t.ctx.db.query<{ code: string; reason: string }>('SELECT code, reason FROM bank_exceptions WHERE file_id = $1 ORDER BY created_at', [fileId]);

  it('an empty file and impossible dates are quarantined with the reason, in the API and the console; the good file after them is taken in', async () => {
    await bank.answer('a-empty.xml', '');
    await bank.answer('b-booking-date.xml', camt054({ account: EUR_MAIN, entries: [credit('11.00', { bookingDate: '2026-13-45' })] }));
    await bank.answer('c-settlement-date.xml', pacs004({ settlementDate: '2026-02-30', returns: [{ endToEndId: '00000000-0000-4000-8000-000000000001', amount: '5.00', reason: 'AC04' }] }));
    await bank.answer('d-good.xml', camt054({ account: EUR_MAIN, entries: [credit('75.50', { ref: 'GOOD-7550' })] }));
    await poll();

    for (const name of ['a-empty.xml', 'b-booking-date.xml', 'c-settlement-date.xml']) expect(await bank.takenIn(name), name).toBe('quarantine');
    expect(await bank.takenIn('d-good.xml')).toBe('archive');
    expect(await fileNamed('a-empty.xml')).toMatchObject({ status: 'quarantined', reason: 'the file is empty (0 bytes)', bytes: 0 });
    expect((await fileNamed('b-booking-date.xml'))?.reason).toBe('the booking date of an entry (BookgDt): 2026-13-45 is not a calendar date');
    expect((await fileNamed('c-settlement-date.xml'))?.reason).toBe('the settlement date of a return (IntrBkSttlmDt): 2026-02-30 is not a calendar date');
    expect(await fileNamed('d-good.xml')).toMatchObject({ status: 'processed', entries: 1, exceptions: 0 });
    expect(await deposits()).toEqual(['75.50']);

    const quarantined = (await operator(t.app, 'GET', '/operator/v1/bank/inbound-files?status=quarantined')).json<{ data: { name: string }[] }>().data.map((f) => f.name);
    expect(quarantined).toEqual(expect.arrayContaining(['a-empty.xml', 'b-booking-date.xml', 'c-settlement-date.xml']));
    const client = new WebClient(t.app);
    await client.get('/console/sign-in');
    expect((await client.post('/console/sign-in/key', { operatorKey: OPERATOR_KEY })).statusCode).toBe(303);
    const page = await client.get('/console/reconciliation');
    expect(page.statusCode, page.body).toBe(200);
    expect(page.body).toContain('b-booking-date.xml');
    expect(page.body).toContain('2026-13-45 is not a calendar date');
    expect(page.body).toContain('the file is empty (0 bytes)');
  });

  it('a file above the configured size is quarantined from the listing, never downloaded; a smaller one after it is taken in', async () => {
    const big = camt054({ account: EUR_MAIN, entries: Array.from({ length: 40 }, (_, i) => credit('1.00', { ref: `BIG-${i}` })) });
    expect(Buffer.byteLength(big)).toBeGreaterThan(MAX_FILE_BYTES);
    await bank.answer('e-big.xml', big);
    await bank.answer('f-small.xml', camt054({ account: EUR_MAIN, entries: [credit('2.25', { ref: 'SMALL-225' })] }));
    await poll();
    expect(await bank.takenIn('e-big.xml')).toBe('quarantine');
    expect(await bank.takenIn('f-small.xml')).toBe('archive');
    const bigFile = await fileNamed('e-big.xml');
    // No hash: not one byte of it was read.
    expect(bigFile).toMatchObject({ status: 'quarantined', sha256: null, bytes: Buffer.byteLength(big) });
    expect(bigFile?.reason).toContain(`above the limit of ${MAX_FILE_BYTES} bytes`);
    expect(await fileNamed('f-small.xml')).toMatchObject({ status: 'processed', entries: 1 });
    expect(await deposits()).toEqual(['2.25', '75.50']);
  });

  it('a booking notified again with a transaction reference added, or resent, is credited once; a credit no reference identifies is held, never posted', async () => {
    await bank.answer('g-booking.xml', camt054({ account: EUR_MAIN, entries: [credit('103.00', { ref: 'BOOK-103' })] }));
    await bank.answer('h-booking-again.xml', camt054({ account: EUR_MAIN, entries: [credit('103.00', { ref: 'BOOK-103', txRef: 'TX-103' })] }));
    await bank.answer('i-no-reference.xml', camt054({ account: EUR_MAIN, entries: [credit('102.00', { ref: null })] }));
    await bank.answer('j-no-reference-again.xml', camt054({ account: EUR_MAIN, entries: [credit('102.00', { ref: null })] }));
    await poll();
    expect(await deposits()).toEqual(['103.00', '2.25', '75.50']);
    const again = await fileNamed('h-booking-again.xml');
    expect(await exceptionsOf(again?.id as string)).toEqual([{ code: 'duplicate_entry', reason: expect.stringContaining('103.00 EUR) was credited before: nothing posted again') }]);
    for (const name of ['i-no-reference.xml', 'j-no-reference-again.xml']) {
      const file = await fileNamed(name);
      expect((await exceptionsOf(file?.id as string)).map((e) => e.code), name).toEqual(['unidentified_credit']);
    }
    const open = (await operator(t.app, 'GET', '/operator/v1/reconciliation/exceptions?status=open&limit=100')).json<{ data: { code: string; amount: string | null }[] }>().data;
    expect(open.filter((e) => e.code === 'unidentified_credit').map((e) => e.amount)).toEqual(['102.00', '102.00']);
  });

  it('one bank reference reused across different transactions (as PostFinance does) credits each of them', async () => {
    await bank.answer('k-reused-reference.xml', camt054({ account: EUR_MAIN, entries: [
      credit('1296.00', { ref: '07582000303KBMSU', entryRef: '014295803', txRef: '07582000303KBMSU' }),
      credit('1537.00', { ref: '07582000303KBMSU', entryRef: 'CH7730000001250094239', txRef: '07582000303KBMSU' }),
    ] }));
    await poll();
    expect(await fileNamed('k-reused-reference.xml')).toMatchObject({ status: 'processed', entries: 2, exceptions: 0 });
    expect(await deposits()).toEqual(['103.00', '1296.00', '1537.00', '2.25', '75.50']);
    expect(await ledgerInvariantViolations(t.ctx.db)).toEqual([]);
  });
});
