import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, onPostgres, type TestApp } from '../helpers/app.js';

// Production runs on PostgreSQL only (the embedded database is refused there).
describe.skipIf(!onPostgres)('dashboard sandbox tools outside the sandbox', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ env: { CORRIDOR_ENV: 'production' } });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('are not there: no page, and every tool answers 404, as the /v1/sandbox routes do', async () => {
    const id = '00000000-0000-4000-8000-000000000000';
    // No page: an address the dashboard does not have sends a visitor without a session to sign in, as any unknown dashboard address does.
    const page = await t.app.inject({ method: 'GET', url: '/dashboard/sandbox' });
    expect(page.statusCode).toBe(303);
    expect(page.headers.location).toMatch(/^\/dashboard\/sign-in/);
    for (const url of ['/dashboard/sandbox/fund', '/dashboard/sandbox/deposits', `/dashboard/sandbox/payouts/${id}/pay`, `/dashboard/sandbox/orders/${id}/execute`, `/dashboard/sandbox/applications/${id}/review`]) {
      expect((await t.app.inject({ method: 'POST', url, payload: {} })).statusCode, url).toBe(404);
    }
  });
});
