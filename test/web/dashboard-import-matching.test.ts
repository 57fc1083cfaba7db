import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type Caller, type TestApp } from '../helpers/app.js';
import { dashboardUser, type WebClient } from '../helpers/web-client.js';
import { ADA, fund, payingWorkspace, saveBeneficiary, type PayoutView } from '../payouts/helpers.js';

/**
 * A CSV import pays the beneficiaries already saved (issue 37, point 1): a row describing a person
 * already saved, by name and account, pays that beneficiary instead of saving them again (and two
 * rows of one new person save them once); a file sent again replays; and a batch starts from the
 * saved beneficiaries as a file.
 */

let t: TestApp;
let c: Caller;
let admin: WebClient;
let ada: string;

const HEADER = 'clientRef,amount,currency,beneficiaryType,beneficiaryName,beneficiaryCountry,address,city,postcode,iban\n';
const GRACE_IBAN = 'DE02100100100006820101';
const OTHER_IBAN = 'DE75512108001245126199';
const FILE = `${HEADER}m-1,10.00,EUR,individual,"ada   LOVELACE",DE,1 Hauptstrasse,Berlin,10115,DE89 3704 0044 0532 0130 00
m-2,11.00,EUR,individual,Grace Hopper,DE,2 Hauptstrasse,Berlin,10115,${GRACE_IBAN}
m-3,12.00,EUR,individual,Grace Hopper,DE,2 Hauptstrasse,Berlin,10115,${GRACE_IBAN}
m-4,13.00,EUR,individual,Ada Lovelace,DE,1 Hauptstrasse,Berlin,10115,${OTHER_IBAN}
`;
const fileOf = (text: string) => ({ file: { filename: 'batch.csv', contentType: 'text/csv', bytes: Buffer.from(text) } });
const plain = (body: string) => body.replace(/<[^>]+>/g, ' ').replace(/&nbsp;/g, ' ').replace(/\s+/g, ' ');
const beneficiaries = async () => (await c.request('GET', '/v1/beneficiaries?limit=100')).json<{ data: { id: string; name: string }[] }>().data;
const payoutOf = async (clientRef: string) => (await c.request('GET', `/v1/payouts?clientRef=${clientRef}`)).json<{ data: PayoutView[] }>().data[0];

beforeAll(async () => {
  t = await createTestApp({ env: { SANDBOX_STEP_MS: '600000' } });
  c = await payingWorkspace(t);
  await fund(c, 'EUR', '500');
  ada = await saveBeneficiary(c, ADA);
  admin = await dashboardUser(t.app, c.workspaceId, 'match-admin@example.com');
}, 300_000);
afterAll(async () => t?.close());

describe('a CSV import and the saved beneficiaries', () => {
  it('pays the saved beneficiary of the same name and account instead of saving them again, and saves a new person once', async () => {
    await admin.get('/dashboard/payouts/import');
    const checked = await admin.postMultipart('/dashboard/payouts/import', {}, fileOf(FILE));
    expect(checked.statusCode, checked.body).toBe(200);
    const text = plain(checked.body);
    expect(text).toContain('Ada Lovelace (saved: same name and account)');
    expect(checked.body).toContain(`/dashboard/beneficiaries/${ada}`);
    expect(text).toContain('Grace Hopper (new: saved with the payout)');
    const before = (await beneficiaries()).length;
    const sent = await admin.post('/dashboard/payouts/import/send', { file64: Buffer.from(FILE).toString('base64') });
    expect(sent.statusCode, sent.body).toBe(200);
    expect(plain(sent.body)).toContain('4 payouts sent');
    // Grace saved once (row 3 pays the beneficiary row 2 saved); the Ada of another account is another person.
    const after = await beneficiaries();
    expect(after.length).toBe(before + 2);
    expect(after.filter((b) => b.name === 'Grace Hopper')).toHaveLength(1);
    expect((await payoutOf('m-1'))?.beneficiaryId).toBe(ada);
    const grace = (await payoutOf('m-2'))?.beneficiaryId;
    expect(grace).toBeTruthy();
    expect((await payoutOf('m-3'))?.beneficiaryId).toBe(grace);
    expect((await payoutOf('m-4'))?.beneficiaryId).not.toBe(ada);

    // The same file again: every row answers its payout, nobody is paid or saved twice.
    const again = await admin.post('/dashboard/payouts/import/send', { file64: Buffer.from(FILE).toString('base64') });
    expect(again.statusCode, again.body).toBe(200);
    expect(plain(again.body)).toContain('0 payouts sent, 4 already sent before (not sent again), of 4');
    expect((await beneficiaries()).length).toBe(before + 2);
  });

  it('starts a batch from the saved beneficiaries: one line each, amounts filled in, each paid to its saved beneficiary', async () => {
    const saved = await admin.get('/dashboard/payouts/import/saved.csv');
    expect(saved.statusCode).toBe(200);
    expect(saved.headers['content-type']).toContain('text/csv');
    const lines = saved.body.trim().split(/\r?\n/);
    expect(lines[0]).toBe('clientRef,amount,currency,beneficiaryId,beneficiaryName,reference');
    expect(lines).toHaveLength(1 + (await beneficiaries()).length);
    const adaLine = lines.find((l) => l.includes(ada)) as string;
    expect(adaLine).toContain(',EUR,');
    expect(adaLine).toContain('Ada Lovelace');
    const filled = `${lines[0]}\n${adaLine.replace(',,EUR,', ',7.00,EUR,')}\n`;
    await admin.get('/dashboard/payouts/import');
    const checked = await admin.postMultipart('/dashboard/payouts/import', {}, fileOf(filled));
    expect(checked.statusCode, checked.body).toBe(200);
    expect(plain(checked.body)).toContain('Ada Lovelace (saved)');
    const sent = await admin.post('/dashboard/payouts/import/send', { file64: Buffer.from(filled).toString('base64') });
    expect(plain(sent.body)).toContain('1 payouts sent');
    const clientRef = adaLine.split(',')[0] as string;
    expect(await payoutOf(clientRef)).toMatchObject({ amount: '7.00', beneficiaryId: ada });
  });
});
