import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type Caller, type TestApp } from '../helpers/app.js';
import { dashboardUser, type WebClient } from '../helpers/web-client.js';
import { ADA, fund, payingWorkspace, payoutCount, saveBeneficiary } from '../payouts/helpers.js';

/**
 * A CSV batch from the dashboard (issue 37, point 1), on both databases: the check shows the totals
 * per currency, the fees and the balance after, and names saved beneficiaries; a file the balance
 * cannot cover is refused whole, at the check and again at the send, so it is never half sent.
 */

let t: TestApp;
let c: Caller;
let admin: WebClient;
let saved: string;

const HEADER = 'clientRef,amount,currency,beneficiaryId\n';
const fileOf = (text: string) => ({ file: { filename: 'batch.csv', contentType: 'text/csv', bytes: Buffer.from(text) } });
const plain = (body: string) => body.replace(/<[^>]+>/g, ' ').replace(/&nbsp;/g, ' ').replace(/\s+/g, ' ');

beforeAll(async () => {
  t = await createTestApp({ env: { SANDBOX_STEP_MS: '600000' } });
  c = await payingWorkspace(t);
  await fund(c, 'EUR', '100');
  saved = await saveBeneficiary(c, { ...ADA, name: 'Hedy Lamarr' });
  admin = await dashboardUser(t.app, c.workspaceId, 'batch-admin@example.com');
}, 300_000);
afterAll(async () => t?.close());

const payouts = () => payoutCount(t, c.workspaceId);

describe('a CSV batch', () => {
  it('shows the totals, fees and balance after per currency, and the saved beneficiary by name', async () => {
    await admin.get('/dashboard/payouts/import');
    const checked = await admin.postMultipart('/dashboard/payouts/import', {}, fileOf(`${HEADER}fund-a,10.00,EUR,${saved}\nfund-b,15.50,EUR,${saved}\n`));
    expect(checked.statusCode, checked.body).toBe(200);
    const text = plain(checked.body);
    expect(text).toContain('Totals per currency, and the balance after the file');
    expect(text).toMatch(/EUR 2 25\.50 EUR [\d.,]+ EUR [\d.,]+ EUR 100\.00 EUR [\d.,]+ EUR/);
    expect(text).toContain('Hedy Lamarr');
    expect(text).not.toContain(saved);
  });

  it('refuses a file the balance cannot cover, whole, and sends nothing; at the send too, when the balance moved after the check', async () => {
    const before = await payouts();
    await admin.get('/dashboard/payouts/import');
    const tooMuch = await admin.postMultipart('/dashboard/payouts/import', {}, fileOf(`${HEADER}short-a,60.00,EUR,${saved}\nshort-b,60.00,EUR,${saved}\n`));
    expect(tooMuch.statusCode).toBe(409);
    expect(plain(tooMuch.body)).toMatch(/The balance cannot cover the file: [\d.,]+ EUR short\. Nothing was sent\./);
    expect(tooMuch.body).not.toContain('id="send-payouts"');
    expect(await payouts()).toBe(before);

    // Covered at the check; then the balance is spent elsewhere before the person confirms.
    const file = `${HEADER}later-a,30.00,EUR,${saved}\nlater-b,30.00,EUR,${saved}\n`;
    const ok = await admin.postMultipart('/dashboard/payouts/import', {}, fileOf(file));
    expect(ok.statusCode, ok.body).toBe(200);
    const spent = await c.request('POST', '/v1/payouts', { clientRef: 'elsewhere', amount: '50.00', currency: 'EUR', beneficiary: { id: saved } });
    expect(spent.statusCode, spent.body).toBe(201);
    const sent = await admin.post('/dashboard/payouts/import/send', { file64: Buffer.from(file).toString('base64') });
    expect(sent.statusCode).toBe(409);
    expect(plain(sent.body)).toContain('Nothing was sent');
    expect(await payouts()).toBe(before + 1);
  });
});
