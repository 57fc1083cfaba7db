import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sshdMissing } from '../helpers/sftp-server.js';
import { dashboardUser, type WebClient } from '../helpers/web-client.js';
import { ADA, ref } from '../payouts/helpers.js';
import { GRACE, startBankApp, type BankApp } from './helpers.js';
import { until } from '../helpers/until.js';

/**
 * A payout the bank connector holds, or that waits for the next file, is "queued" by its status; its
 * page in the dashboard says why and what happens next (issue 37, point 1), in words, without the
 * operator's technical detail.
 */

const plain = (body: string) => body.replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ');

describe.skipIf(sshdMissing)(`the dashboard's word on a payout at the bank connector${sshdMissing ? ` (${sshdMissing})` : ''}`, () => {
  let app: BankApp | undefined;
  let admin: WebClient;

  beforeAll(async () => {
    // Only a EUR account at the bank, and files cut once an hour: a USD payout is held, a EUR one waits.
    app = await startBankApp(
      { cutoff: { maxPayouts: 500, maxSeconds: 3600 }, accounts: [{ id: 'eur-main', iban: 'DE02100100109307118603', bic: 'PBNKDEFFXXX', name: 'Corridor Payments GmbH', currency: 'EUR' }] },
      { EUR: '100', USD: '100' },
    );
    admin = await dashboardUser(app.t.app, app.c.workspaceId, 'held-admin@example.com');
  }, 240_000);
  afterAll(() => app?.stop());

  const handedOver = (id: string) =>
    until('the hand-over to the bank connector', async () => (await app!.t.ctx.db.query<{ status: string }>('SELECT status FROM bank_payouts WHERE payout_id = $1', [id]))[0]?.status, (s) => s !== undefined);

  it('says a held payout is held before reaching the bank, why in words, and what happens next', async () => {
    const res = await app!.c.request('POST', '/v1/payouts', { clientRef: ref('held'), amount: '5.00', currency: 'USD', route: 'swift', beneficiary: GRACE });
    expect(res.statusCode, res.body).toBe(201);
    const id = res.json<{ id: string }>().id;
    expect(await handedOver(id)).toBe('held');
    const page = await admin.get(`/dashboard/payouts/${id}`);
    expect(page.statusCode, page.body).toBe(200);
    const text = plain(page.body);
    expect(text).toContain('Held at the bank connection');
    expect(text).toContain('Held before it reached the bank: the bank connection is not yet set up to send this kind of payment. Nothing has been sent to the bank.');
    expect(text).toContain('What happens next: Our operations team has been told and acts on it');
    expect(text).toContain('the amount and fee come back to your balance');
    // The operator's detail stays on the console.
    expect(text).not.toContain('no bank account in USD is configured');
  });

  it('says a payout waiting for the next file is waiting, and when files are made', async () => {
    const res = await app!.c.request('POST', '/v1/payouts', { clientRef: ref('wait'), amount: '6.00', currency: 'EUR', route: 'sepa_credit', beneficiary: ADA });
    expect(res.statusCode, res.body).toBe(201);
    const id = res.json<{ id: string }>().id;
    expect(await handedOver(id)).toBe('pending');
    const text = plain((await admin.get(`/dashboard/payouts/${id}`)).body);
    expect(text).toContain('Waiting for the bank file');
    expect(text).toContain('a file is made at least every 60 minutes and sent on the bank’s business days');
    expect(text).toContain('When the file is sent the payout moves to processing');
  });
});
