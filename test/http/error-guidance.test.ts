/**
 * Errors that say what to do (issue 38, point 2): a catalogued code links to its entry (`doc_url`,
 * `error_uri` on the token endpoint), a field error names its parameter (`param`), a missing scope
 * names the scope (`scope`) on both route families, each operation declares its scope, and the
 * OAuth errors are in the catalogue with the status the server answers.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, newWorkspace, type TestApp } from '../helpers/app.js';

interface CatalogueEntry {
  code: string;
  status: number[];
  shape: string;
}

let t: TestApp;
let catalogue: Map<string, CatalogueEntry>;
let cataloguePage: string;

beforeAll(async () => {
  t = await createTestApp();
  catalogue = new Map((await t.app.inject({ method: 'GET', url: '/docs/errors.json' })).json<{ data: CatalogueEntry[] }>().data.map((e) => [e.code, e]));
  cataloguePage = (await t.app.inject({ method: 'GET', url: '/docs/errors' })).body;
}, 300_000);
afterAll(async () => {
  await t.close();
});

/** The answer's code is catalogued with the status answered, and its doc_url is its entry on the catalogue page. */
function expectCatalogued(status: number, body: Record<string, unknown>, code: string, link = body.doc_url): void {
  const entry = catalogue.get(code);
  expect(entry, code).toBeDefined();
  expect(entry?.status, code).toContain(status);
  expect(link).toBe(`${t.ctx.config.publicBaseUrl}/docs/errors#${code}`);
  expect(cataloguePage).toContain(`id="${code}"`);
}

describe('error guidance', () => {
  it('a field error names its parameter and links to its entry (problem details); the pinned validation envelope is unchanged', async () => {
    const c = await newWorkspace(t.app);
    const problem = await c.request('POST', '/v1/webhooks', { url: 42 }, { 'idempotency-key': 'g-2' });
    expect(problem.statusCode).toBe(400);
    expect(problem.headers['content-type']).toMatch(/^application\/problem\+json/);
    const pb = problem.json<{ code: string; errors: { field: string }[]; param: string }>();
    expect(pb.errors[0]?.field).toBe('url');
    expect(pb.param).toBe('url');
    expectCatalogued(400, pb, pb.code);

    // The spec's validation envelope (legacy routes, no code) keeps exactly its fields.
    const legacy = await c.request('POST', '/v1/accounts', { name: 'A', country: 'gbr' }, { 'idempotency-key': 'g-1' });
    expect(legacy.statusCode).toBe(400);
    expect(Object.keys(legacy.json()).sort()).toEqual(['details', 'error', 'message', 'path', 'statusCode', 'timestamp']);
  });

  it('a missing scope names the scope on legacy and problem routes, and the operation declares it', async () => {
    const narrow = await newWorkspace(t.app, { scopes: ['read:payouts'] });
    const legacy = await narrow.request('GET', '/v1/beneficiaries');
    expect(legacy.statusCode).toBe(403);
    expect(legacy.json()).toMatchObject({ message: 'METHOD_NOT_ENTITLED', code: 'METHOD_NOT_ENTITLED', scope: 'read:beneficiaries' });
    expectCatalogued(403, legacy.json(), 'METHOD_NOT_ENTITLED');
    const problem = await narrow.request('GET', '/v1/webhooks');
    expect(problem.statusCode).toBe(403);
    expect(problem.json()).toMatchObject({ code: 'METHOD_NOT_ENTITLED', scope: 'read:webhooks' });

    const served = await t.app.inject({ method: 'GET', url: '/openapi.json' });
    expect(served.statusCode, served.body.slice(0, 500)).toBe(200);
    const doc = served.json<{ paths: Record<string, Record<string, { security?: Record<string, string[]>[] }>> }>();
    expect(doc.paths['/v1/beneficiaries']?.get?.security?.[0]).toEqual({ oauth2: ['read:beneficiaries'] });
    expect(doc.paths['/v1/webhooks']?.post?.security?.[0]).toEqual({ oauth2: ['write:webhooks'] });
    expect(doc.paths['/v1/request-logs']?.get?.security?.[0]).toEqual({ oauth2: ['read:request_logs'] });
    // Every authenticated /v1 and /v2 operation says which scope it needs (public ones have `security: []`).
    const undeclared = Object.entries(doc.paths).flatMap(([path, ops]) =>
      Object.entries(ops)
        .filter(([, op]) => (path.startsWith('/v1/') || path.startsWith('/v2/')) && op.security?.length !== 0 && !op.security?.some((r) => (r.oauth2 ?? []).length > 0))
        .map(([method]) => `${method.toUpperCase()} ${path}`),
    );
    expect(undeclared).toEqual([]);
  });

  it('the token endpoint\'s errors are in the catalogue with the status it answers, and link to their entry', async () => {
    const c = await newWorkspace(t.app);
    const cases = [
      [{ client_id: 'nobody', client_secret: 'wrong', grant_type: 'client_credentials', audience: 'corridor-api' }, 401, 'access_denied'],
      [{ client_id: c.clientId, client_secret: c.clientSecret, grant_type: 'password', audience: 'corridor-api' }, 400, 'invalid_grant'],
    ] as const;
    for (const [payload, status, error] of cases) {
      const res = await t.app.inject({ method: 'POST', url: '/oauth/token', payload });
      expect(res.statusCode, error).toBe(status);
      const body = res.json<{ error: string; error_uri: string }>();
      expect(body.error).toBe(error);
      expect(catalogue.get(error)?.shape).toBe('oauth');
      expectCatalogued(status, body, error, body.error_uri);
    }
    const audience = await t.app.inject({ method: 'POST', url: '/oauth/token', payload: { client_id: c.clientId, client_secret: c.clientSecret, grant_type: 'client_credentials', audience: 'someone-else' } });
    expect(audience.statusCode).toBe(400);
    expectCatalogued(400, audience.json(), 'invalid_audience', audience.json<{ error_uri: string }>().error_uri);
  });
});
