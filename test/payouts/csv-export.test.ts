import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type Caller, type TestApp } from '../helpers/app.js';
import { dashboardUser, type WebClient } from '../helpers/web-client.js';
import { ADA, fund, payingWorkspace } from './helpers.js';

/**
 * Issue 33 point 10, end to end: the dashboard's payouts CSV export left cells starting with -, +, @,
 * a tab or a carriage return live (16 in one export). Payouts whose client reference and reference
 * start so are exported with those cells defused; amounts stay numbers.
 */

let t: TestApp;
let c: Caller;
let admin: WebClient;

beforeAll(async () => {
  t = await createTestApp();
  c = await payingWorkspace(t);
  await fund(c, 'EUR', '100.00');
  admin = await dashboardUser(t.app, c.workspaceId, 'export@corridor.test');
}, 120_000);
afterAll(async () => {
  await t?.close();
});

describe('the payouts CSV export', () => {
  it('defuses client references and references starting with -, +, @, a tab or a carriage return; amounts stay plain numbers', async () => {
    const live = ['-2+3', '+cmd|calc', '@SUM(A1)', '\t=1+1', '\r=1+1'];
    for (const [i, text] of live.entries()) {
      const made = await c.request('POST', '/v1/payouts', { clientRef: `${text}${i}`, amount: '1.00', currency: 'EUR', beneficiary: ADA, reference: `${text}ref` }, { 'idempotency-key': `csv-export-${i}` });
      expect(made.statusCode, made.body).toBe(201);
    }
    const res = await admin.get('/dashboard/payouts/export.csv');
    expect(res.statusCode, res.body).toBe(200);
    const body = res.body;
    for (const [i, text] of live.entries()) {
      // Each cell that began with one of them begins with an apostrophe instead (quoted when it holds a tab or a line break).
      for (const cell of [`${text}ref`, `${text}${i}`]) {
        expect(body, JSON.stringify(cell)).toContain(`'${cell}`);
        expect(body, JSON.stringify(cell)).not.toContain(`,${cell}`);
        expect(body, JSON.stringify(cell)).not.toContain(`"${cell}`);
      }
    }
    expect(body.split('\r\n').filter((line) => line.includes(',1.00,EUR,')).length).toBe(live.length);
  });
});
