import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { windowAt, type AchCalendar } from '../../src/connectors/ach/calendar.js';
import { isFedBusinessDay as isBankingDay, nextFedBusinessDay as nextBankingDay } from '../../src/platform/lib/federal-reserve-calendar.js';
import { changeCode, correctedFields, RETURN_CODES, returnCode } from '../../src/connectors/ach/codes.js';
import { NachaError, readNacha, TX, writeNacha, type FileToWrite } from '../../src/connectors/ach/nacha.js';
import { answerFile, type SandboxRule } from '../../src/connectors/ach/sandbox.js';

/** An independent NACHA parser from npm (@midlandsbank/node-nacha): every file Corridor writes must read the same there. */
const nacha = createRequire(import.meta.url)('@midlandsbank/node-nacha') as { from(text: string): { data: LibFile } };
interface LibEntry { transactionCode: string; receivingDFIIdentification: number; checkDigit: number; dfiAccount: string; amount: number; traceNumber: number; receivingCompanyName: string }
interface LibBatch { entryClassCode: string; serviceClassCode: number; effectiveDate: string; entries: LibEntry[]; footer: { entryAndAddendaCount: number; entryHash: number; totalDebit: number; totalCredit: number } }
interface LibFile { file: { destination: string; footer: { batchCount: number; blockCount: number; entryAndAddendaCount: number; entryHash: number; totalDebit: number; totalCredit: number } }; batches: LibBatch[] }

const REAL = path.resolve(import.meta.dirname, '../../../shared/real-world/ach');
const real = (name: string) => fs.readFileSync(path.join(REAL, name), 'utf8');

function sample(options: { balanced?: boolean; entries?: number } = {}): FileToWrite {
  const n = options.entries ?? 23;
  const entries = Array.from({ length: n }, (_, i) => ({
    transactionCode: i % 5 === 0 ? TX.savingsCredit : TX.checkingCredit,
    routingNumber: i % 2 === 0 ? '021000021' : '091000019',
    accountNumber: `${100000 + i}`,
    amountCents: BigInt(1000 + i * 137),
    identification: `ref-${i}`,
    name: `Receiver ${i}`,
    traceNumber: `12104288${String(i + 1).padStart(7, '0')}`,
    addenda: i % 4 === 0 ? `invoice ${i}` : undefined,
  }));
  const batch = (sec: 'PPD' | 'CCD', list: typeof entries) => ({
    sec,
    companyName: 'CORRIDOR',
    companyId: '1234567890',
    description: 'PAYOUT',
    descriptiveDate: 'SD1030',
    effectiveDate: '261127',
    entries: list,
    offset: options.balanced ? { routingNumber: '121042882', accountNumber: '987654321', transactionCode: TX.checkingDebit, name: 'CORRIDOR', traceNumber: '121042880000000' } : undefined,
  });
  return {
    destination: '121042882',
    destinationName: 'MY BANK',
    origin: ' 121042882',
    originName: 'CORRIDOR',
    createdAt: new Date('2026-11-27T14:05:00Z'),
    idModifier: 'A',
    referenceCode: 'ref',
    odfi8: '12104288',
    batches: [batch('PPD', entries.slice(0, Math.ceil(n / 2))), batch('CCD', entries.slice(Math.ceil(n / 2)))],
  };
}

/** The controls recomputed from what the independent library parsed of the entries. */
function recomputed(lib: LibFile) {
  const entries = lib.batches.flatMap((b) => b.entries);
  const debit = (e: LibEntry) => ['6', '7', '8', '9'].includes(String(e.transactionCode)[1] ?? '');
  return {
    hash: entries.reduce((s, e) => s + BigInt(e.receivingDFIIdentification), 0n) % 10_000_000_000n,
    debit: entries.filter(debit).reduce((s, e) => s + BigInt(e.amount), 0n),
    credit: entries.filter((e) => !debit(e)).reduce((s, e) => s + BigInt(e.amount), 0n),
    traces: entries.map((e) => String(e.traceNumber)),
  };
}

describe('NACHA files Corridor writes', () => {
  it.each([false, true])('are read by an independent NACHA library with the same batches, entries and control totals (balanced: %s)', (balanced) => {
    const written = writeNacha(sample({ balanced }));
    const lines = written.text.trimEnd().split('\n');
    expect(lines.every((l) => l.length === 94)).toBe(true);
    expect(lines.length % 10).toBe(0);
    const lib = nacha.from(written.text).data;
    expect(lib.batches.map((b) => b.entryClassCode)).toEqual(['PPD', 'CCD']);
    expect(lib.batches.map((b) => b.serviceClassCode)).toEqual(balanced ? [200, 200] : [220, 220]);
    const r = recomputed(lib);
    expect(BigInt(lib.file.footer.entryHash)).toBe(r.hash);
    expect(BigInt(lib.file.footer.totalCredit)).toBe(r.credit);
    expect(BigInt(lib.file.footer.totalDebit)).toBe(r.debit);
    expect(r.debit).toBe(balanced ? r.credit : 0n);
    expect(lib.file.footer.batchCount).toBe(2);
    expect(lib.file.footer.blockCount).toBe(lines.length / 10);
    for (const b of lib.batches) {
      const own = recomputed({ ...lib, batches: [b] });
      expect([BigInt(b.footer.entryHash), BigInt(b.footer.totalCredit), BigInt(b.footer.totalDebit)]).toEqual([own.hash, own.credit, own.debit]);
    }
    const customer = r.traces.filter((t) => t !== '121042880000000');
    expect(new Set(customer).size).toBe(23);
    // And Corridor's own reader agrees with it.
    const own = readNacha(written.text);
    expect(own.totalCreditCents).toBe(r.credit);
    expect(own.batches.flatMap((b) => b.entries).filter((e) => e.remittance.length > 0).map((e) => e.remittance[0])).toEqual(['INVOICE 0', 'INVOICE 4', 'INVOICE 8', 'INVOICE 12', 'INVOICE 16', 'INVOICE 20']);
  });

  it('refuses a file whose controls do not add up, naming the line', () => {
    const text = writeNacha(sample({ entries: 3 })).text.replace(/^(622091000019.{17})0000001137/m, '$10000001138');
    expect(() => readNacha(text)).toThrow(NachaError);
    expect(() => readNacha(text)).toThrow(/line 6: batch 0000001: the control totals debit 0 and credit 2137 cents, the entries add up to 0 and 2138/);
  });
});

describe('the real NACHA files', () => {
  it('return-WEB.ach: two returns, R01 and R03, each naming its original trace', () => {
    const f = readNacha(real('return-WEB.ach'));
    const returns = f.batches.flatMap((b) => b.entries.flatMap((e) => e.returns));
    expect(returns.map((r) => [r.kind, r.code, r.originalTrace])).toEqual([
      ['return', 'R01', '091400600000001'],
      ['return', 'R03', '091400600000003'],
    ]);
    expect(returnCode('R03')).toMatchObject({ actor: 'beneficiary', words: expect.stringContaining('no account') });
  });

  it('cor-example.ach: a C01 notification of change with the corrected account number', () => {
    const [entry] = readNacha(real('cor-example.ach')).batches.flatMap((b) => b.entries);
    expect(entry?.change).toMatchObject({ code: 'C01', originalTrace: '121042880000001', correctedData: '1918171614' });
    expect(correctedFields(changeCode('C01')!, entry!.change!.correctedData)).toEqual({ accountNumber: '1918171614' });
  });

  it('dishonored-return.ach: two dishonored returns R68 (untimely), for the operator', () => {
    const returns = readNacha(real('dishonored-return.ach')).batches.flatMap((b) => b.entries.flatMap((e) => e.returns));
    expect(returns.map((r) => [r.kind, r.code])).toEqual([
      ['dishonored', 'R68'],
      ['dishonored', 'R68'],
    ]);
    expect(returnCode('R68').actor).toBe('operator');
  });

  it('contested-return.ach: a return R07, its dishonor R68 and the contest R71 on one entry', () => {
    const [entry] = readNacha(real('contested-return.ach')).batches.flatMap((b) => b.entries);
    expect(entry?.returns.map((r) => [r.kind, r.code])).toEqual([
      ['return', 'R07'],
      ['dishonored', 'R68'],
      ['contested', 'R71'],
    ]);
  });

  it('prenote.ach and the payroll file: prenotes are zero-amount entries with codes 23, 28, 33, 38', () => {
    expect(readNacha(real('prenote.ach')).batches[0]?.entries.map((e) => [e.transactionCode, e.prenote])).toEqual([['28', true]]);
    const payroll = readNacha(real('ppd-payroll-with-prenotes-issue1378.txt'));
    expect(payroll.batches.flatMap((b) => b.entries).filter((e) => e.prenote)).toHaveLength(3);
    expect(payroll.batches).toHaveLength(5);
  });

  it.each([
    ['ppd-debit.ach', 'PPD', 1, 100000000n],
    ['ccd-debit.ach', 'CCD', 2, 0n],
    ['NACHA_SAMPLE_TEL_REVERSAL.ach', 'TEL', 2, 0n],
    ['ach-test-harness-ppd-debit.ach', 'PPD', 1, 0n],
    ['ach-test-harness-utility-bill.ach', 'WEB', 1, 0n],
  ])('%s reads as a %s batch of %i entries', (name, sec, entries, debit) => {
    const f = readNacha(real(name));
    expect(f.batches[0]?.sec).toBe(sec);
    expect(f.batches[0]?.entries).toHaveLength(entries);
    if (debit > 0n) expect(f.totalDebitCents).toBe(debit);
  });

  it('20110805A.ach is refused with its reason: it holds IAT batches', () => {
    expect(() => readNacha(real('20110805A.ach'))).toThrow(/line 49: an IAT \(international ACH\) batch/);
  });
});

describe('the return and change codes', () => {
  it('cover R01 to R85 with words, who must act and a return window, and C01 to C13', () => {
    expect(RETURN_CODES.map((c) => c.code)).toContain('R85');
    expect(RETURN_CODES.every((c) => c.words.length > 0 && ['beneficiary', 'workspace', 'operator'].includes(c.actor))).toBe(true);
    expect(returnCode('R10').window).toEqual({ calendarDays: 60 });
    expect(returnCode('R03').window).toEqual({ bankingDays: 2 });
    expect(Array.from({ length: 13 }, (_, i) => changeCode(`C${String(i + 1).padStart(2, '0')}`)?.words).every(Boolean)).toBe(true);
    expect(correctedFields(changeCode('C07')!, `021000021${'123456789'.padEnd(17)}32`)).toEqual({ routingNumber: '021000021', accountNumber: '123456789', accountType: 'savings' });
  });
});

describe('the Federal Reserve calendar and the windows', () => {
  const calendar: AchCalendar = { timeZone: 'America/New_York', sameDayCutoffs: ['10:30', '14:45'], nextDayCutoff: '20:00' };

  it('skips weekends and Fed holidays, and keeps the Fed open on the Friday before a Saturday holiday', () => {
    expect(isBankingDay('2026-11-26')).toBe(false); // Thanksgiving
    expect(isBankingDay('2026-07-03')).toBe(true); // Independence Day falls on Saturday 4 July 2026
    expect(isBankingDay('2027-07-05')).toBe(false); // 4 July 2027 is a Sunday: observed on the Monday
    expect(nextBankingDay('2026-11-25')).toBe('2026-11-27');
    expect(nextBankingDay('2026-12-24')).toBe('2026-12-28');
  });

  it('puts a file in Same Day before the last Same Day cut-off, next day after it, and on the next banking day after the next-day cut-off', () => {
    expect(windowAt(new Date('2026-11-27T15:00:00Z'), calendar)).toEqual({ effectiveDate: '2026-11-27', sameDay: true, cutoff: '10:30' });
    expect(windowAt(new Date('2026-11-27T19:50:00Z'), calendar)).toEqual({ effectiveDate: '2026-11-30', sameDay: false, cutoff: '20:00' });
    expect(windowAt(new Date('2026-11-28T02:00:00Z'), calendar)).toEqual({ effectiveDate: '2026-11-30', sameDay: true, cutoff: null });
    expect(windowAt(new Date('2026-11-26T15:00:00Z'), { ...calendar, sameDayCutoffs: [] })).toEqual({ effectiveDate: '2026-11-30', sameDay: false, cutoff: null });
  });
});

describe('the sandbox ACH bank', () => {
  it('answers the harness example: account 744-5678-99 gets a C01 correction, a return rule an R03, each naming the original trace', () => {
    const rules: SandboxRule[] = [
      { match: { accountNumber: '744-5678-99' }, action: { delay: '12h', correction: { code: 'C01', data: '744567899' } } },
      { match: { amount: { min: 0, max: 100 } }, action: { return: { code: 'R03' } } },
    ];
    const [answer] = answerFile(real('ach-test-harness-utility-bill.ach'), rules);
    expect(answer?.delayMs).toBe(12 * 3_600_000);
    const [entry] = readNacha(answer!.text).batches.flatMap((b) => b.entries);
    const original = readNacha(real('ach-test-harness-utility-bill.ach')).batches[0]!.entries[0]!;
    expect(entry?.change).toMatchObject({ code: 'C01', correctedData: '744567899', originalTrace: original.traceNumber });
    const written = writeNacha(sample({ entries: 2 }));
    const [ret] = answerFile(written.text, [{ match: { traceNumber: '121042880000002' }, action: { return: { code: 'R03' } } }]);
    const returned = readNacha(ret!.text).batches.flatMap((b) => b.entries);
    expect(returned.map((e) => [e.transactionCode, e.amountCents, e.returns[0]?.code, e.returns[0]?.originalTrace])).toEqual([['21', 1137n, 'R03', '121042880000002']]);
  });
});
