import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { creditLimitMinor, parseBankConfig } from '../../src/connectors/bank/bank.config.js';
import { pollInbound, type InboundOptions } from '../../src/connectors/bank/inbound/inbound.service.js';
import { LocalDirectorySource } from '../../src/connectors/bank/inbound/inbound.source.js';
import { createTestApp, type Caller, type TestApp } from '../helpers/app.js';
import { camt054, writeAnswer } from '../helpers/bank-answers.js';
import { balance, payingWorkspace } from '../payouts/helpers.js';
import { activeAccount, approveOnboarding } from '../virtual-accounts/helpers.js';

/**
 * Issue 33 point 13: a bank credit of 10^24 EUR was posted. A credit above what the account and the
 * currency make sense of is held as an exception for the operator; the bound is configurable per
 * account and per currency.
 */

const SETTLEMENT = { id: 'main-eur', iban: 'DE02100100100006820101', bic: 'PBNKDEFFXXX', name: 'Corridor Payments GmbH', currency: 'EUR' };
const config = parseBankConfig({ directory: '/tmp/corridor-bank-cap', accounts: [{ ...SETTLEMENT, maxCredit: '1000.00' }, { ...SETTLEMENT, id: 'usd-main', currency: 'USD' }], maxCredit: { USD: '50000' } }, 'sandbox');

let t: TestApp;
let c: Caller;
let dir: string;
let source: LocalDirectorySource;
let iban: string;

beforeAll(async () => {
  t = await createTestApp();
  c = await payingWorkspace(t);
  await approveOnboarding(t.app, c);
  const account = await activeAccount(c, 'EUR');
  iban = (await c.request('GET', '/v1/virtual-accounts')).json<{ data: { id: string; iban?: string }[] }>().data.find((v) => v.id === account.id)?.iban as string;
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'corridor-bank-cap-'));
  source = new LocalDirectorySource(dir);
}, 240_000);
afterAll(async () => {
  await t?.close();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

async function take(name: string, options: InboundOptions, amount: string, ref: string) {
  writeAnswer(dir, name, camt054({ account: SETTLEMENT, entries: [{ direction: 'credit', amount, creditorIban: iban, ref }] }));
  const [result] = await pollInbound(t.ctx, source, options);
  const exceptions = await t.ctx.db.query<{ code: string; reason: string }>('SELECT code, reason FROM bank_exceptions WHERE file_id = $1', [(result as { fileId: string }).fileId]);
  return { result, exceptions };
}

const total = async () => Number((await balance(c, 'EUR'))?.totalBalance ?? 0);

describe('the cap on a bank credit', () => {
  it('holds a credit of about 10^24 EUR as an exception for the operator and posts nothing (the default bound)', async () => {
    const before = await total();
    const { exceptions } = await take('huge.xml', { accounts: [SETTLEMENT] }, '999999999999999999999999.00', 'HUGE-1');
    expect(exceptions).toEqual([expect.objectContaining({ code: 'amount_over_limit', reason: expect.stringMatching(/above the 1000000000\.00 EUR .*operator/) })]);
    expect(await total()).toBe(before);
  });

  it("holds a credit above the account's configured maxCredit and posts one at it", async () => {
    const options: InboundOptions = { accounts: [SETTLEMENT], creditLimit: (account, currency) => creditLimitMinor(config, account, currency) };
    const before = await total();
    const over = await take('over.xml', options, '1000.01', 'CAP-1');
    expect(over.exceptions.map((e) => e.code)).toEqual(['amount_over_limit']);
    expect(over.exceptions[0]?.reason).toContain('1000.00 EUR');
    const at = await take('at.xml', options, '1000.00', 'CAP-2');
    expect(at.exceptions).toEqual([]);
    expect(await total()).toBeCloseTo(before + 1000, 2);
  });

  it('reads maxCredit per account and per currency from the connectors file, naming a bad setting', () => {
    expect(creditLimitMinor(config, 'main-eur', 'EUR')).toBe(100_000n);
    expect(creditLimitMinor(config, 'usd-main', 'USD')).toBe(5_000_000n);
    expect(creditLimitMinor(config, 'usd-main', 'GBP')).toBe(100_000_000_000n);
    expect(() => parseBankConfig({ directory: '/tmp/x', accounts: [{ ...SETTLEMENT, maxCredit: '-5' }] }, 'sandbox')).toThrow(/bank.accounts.0.maxCredit/);
    expect(() => parseBankConfig({ directory: '/tmp/x', accounts: [SETTLEMENT], maxCredit: { EUR: '1.001' } }, 'sandbox')).toThrow(/bank.maxCredit.EUR/);
  });
});
