import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, newWorkspace, type Caller, type TestApp } from '../helpers/app.js';
import { BUSINESS, createApplication } from './helpers.js';

let t: TestApp;
let acme: Caller;

beforeAll(async () => {
  t = await createTestApp();
  acme = await newWorkspace(t.app);
});
afterAll(async () => t.close());

const withWebsite = (website: string) => ({ ...BUSINESS, businessInfo: { ...BUSINESS.businessInfo, website } });

describe('businessInfo.website', () => {
  it('refuses a URL that is not http(s) (javascript:, data:, ftp:), on create and on PATCH, naming the field', async () => {
    const a = await createApplication(acme);
    for (const website of ['javascript:alert(1)', 'JavaScript:alert(document.cookie)', 'data:text/html,<script>alert(1)</script>', 'ftp://example.com/', 'mailto:a@example.com']) {
      const created = await acme.request('POST', '/v2/applications', withWebsite(website));
      expect(created.statusCode, website).toBe(400);
      expect(created.json<{ errors: { field: string; message: string }[] }>().errors).toEqual([{ field: 'businessInfo.website', message: expect.stringContaining('http') }]);
      const patched = await acme.request('PATCH', `/v2/applications/${a.id}`, { businessInfo: { website } });
      expect(patched.statusCode, website).toBe(400);
      expect(patched.json<{ errors: { field: string }[] }>().errors.map((e) => e.field), patched.body).toContain('businessInfo.website');
    }
  });

  it('takes http and https URLs', async () => {
    for (const website of ['https://acme.example/', 'http://acme.example/about', 'HTTPS://ACME.EXAMPLE']) {
      const a = await createApplication(acme, withWebsite(website));
      expect((a.businessInfo as { website: string }).website).toBe(website);
    }
  });
});
