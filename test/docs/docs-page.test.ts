import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DOCUMENTED_MODULES } from '../../src/faces/docs/docs.js';
import { createTestApp, type TestApp } from '../helpers/app.js';

interface CodeSample {
  lang: string;
  label: string;
  source: string;
}
type Operation = { 'x-codeSamples'?: CodeSample[]; description?: string } & Record<string, unknown>;
interface Doc {
  info: { title: string; description: string };
  paths: Record<string, Record<string, Operation>>;
}

let t: TestApp;
let doc: Doc;

beforeAll(async () => {
  t = await createTestApp();
  doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json<Doc>();
});
afterAll(async () => t.close());

describe('/docs', () => {
  it('is Corridor-branded HTML served under the strict CSP, with no framework logo', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/docs/' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.body).toContain('<title>Corridor API reference</title>');
    expect(res.body).toContain('theme/corridor.css');
    expect(res.body).not.toMatch(/<script>|https?:\/\/(cdn|unpkg)/);
    expect(String(res.headers['content-security-policy'])).toMatch(/script-src 'self'/);
    const init = await t.app.inject({ method: 'GET', url: '/docs/static/swagger-initializer.js' });
    expect(init.statusCode).toBe(200);
    expect(init.body).toContain('data:image/svg+xml;base64,');
    const css = await t.app.inject({ method: 'GET', url: '/docs/static/theme/corridor.css' });
    expect(css.statusCode).toBe(200);
  });

  it("the page's document opens with the getting-started section and shows the samples", async () => {
    const res = await t.app.inject({ method: 'GET', url: '/docs/json' });
    expect(res.statusCode).toBe(200);
    const pageDoc = res.json<Doc>();
    const description = pageDoc.info.description;
    expect(description).toContain('## Getting started');
    for (const step of ['POST /oauth/token', 'Authorize', 'POST /v1/beneficiaries', 'POST /v1/payouts', 'POST /v1/webhooks', '(/docs/corridors)']) {
      expect(description).toContain(step);
    }
    expect(description).toMatch(/`\.13` fails at the provider.*`\.14` stays processing.*`\.15` is paid then reverted/s);
    expect(description).toContain('npm start');
    expect(pageDoc.paths['/v1/payouts']!.post!.description).toContain('corridor.payouts.create(');
  });

  it('/openapi.json has curl and SDK samples on POST /v1/payouts, built from the schema', () => {
    const samples = doc.paths['/v1/payouts']!.post!['x-codeSamples']!;
    const curl = samples.find((s) => s.label === 'curl')!;
    expect(curl.lang).toBe('Shell');
    expect(curl.source).toContain('curl -X POST "$CORRIDOR_BASE_URL/v1/payouts"');
    expect(curl.source).toContain('-H "Authorization: Bearer $TOKEN"');
    expect(curl.source).toContain('-H "Idempotency-Key: ');
    expect(curl.source).toContain('"amount":"25.00"'); // the schema's own example
    expect(curl.source).toContain('"clientRef":"invoice-1042"');
    const sdk = samples.find((s) => s.label === 'SDK')!;
    expect(sdk.lang).toBe('TypeScript');
    expect(sdk.source).toContain("new Corridor({ baseUrl: 'http://127.0.0.1:8080', clientId, clientSecret, audience: 'corridor-api' })");
    expect(sdk.source).toContain('corridor.payouts.create({');
    // The description's copies of the samples are for the Swagger UI page only.
    expect(doc.paths['/v1/payouts']!.post!.description ?? '').not.toContain('curl -X');
  });

  it('every operation has a curl sample; only POSTs (not the token request) send an Idempotency-Key; path parameters go in the SDK call', () => {
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(item)) {
        const curl = op['x-codeSamples']?.find((s) => s.label === 'curl');
        expect(curl, `${method} ${path}`).toBeDefined();
        expect(curl!.source.includes('Idempotency-Key'), `${method} ${path}`).toBe(method === 'post' && path !== '/oauth/token');
      }
    }
    const get = doc.paths['/v1/payouts/{id}']!.get!['x-codeSamples']!.find((s) => s.label === 'SDK')!;
    expect(get.source).toContain("corridor.payouts.get({ id: process.env.PAYOUT_ID! })");
    const token = doc.paths['/oauth/token']!.post!['x-codeSamples']![0]!.source;
    expect(token).toContain('client_credentials');
    expect(token).not.toContain('Authorization');
    expect(doc.paths['/v1/fx/quotes']!.post!['x-codeSamples']!.find((s) => s.label === 'SDK')!.source).toContain('corridor.fx.quotes.create(');
    const quoteCurl = doc.paths['/v1/fx/quotes']!.post!['x-codeSamples']![0]!.source;
    expect(quoteCurl).toContain('"fromAmount"'); // exactly one of fromAmount and toAmount
    expect(quoteCurl).not.toContain('"toAmount"');
  });

  it('the description names only modules that have routes', () => {
    const description = doc.info.description;
    const paths = Object.keys(doc.paths);
    const modulesLine = /^Modules: (.*)\.$/m.exec(description)![1]!;
    expect(modulesLine).toBe(DOCUMENTED_MODULES.map((m) => m.name).join(', '));
    for (const m of DOCUMENTED_MODULES) {
      expect(paths.some((p) => p.startsWith(m.prefix)), `${m.name} (${m.prefix})`).toBe(true);
    }
    expect(description).toMatch(/trade-desk orders/);
    expect(description).toMatch(/virtual accounts/);
  });

  it('links a corridor table that is served', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/docs/corridors' });
    expect(res.statusCode).toBe(200);
  });
});
