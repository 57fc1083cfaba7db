import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.js';

interface Operation {
  security?: Record<string, string[]>[];
  responses: Record<string, { description?: string; content?: Record<string, { schema?: unknown }> }>;
}
interface OpenApiDoc {
  openapi: string;
  info: { title: string; version: string };
  servers?: { url: string }[];
  security?: Record<string, string[]>[];
  components: { securitySchemes: Record<string, { type: string; scheme?: string }> };
  paths: Record<string, Record<string, Operation>>;
}

const HTTP_METHODS = new Set(['get', 'put', 'post', 'delete', 'patch', 'options', 'head', 'trace']);
// Public: no credential, or (signed upload URLs) the URL itself is the credential.
const PUBLIC_PATHS = /^\/(oauth\/token|\.well-known\/.*|healthz|readyz|v2\/uploads\/\{key\}|terms\/\{version\})$/;

let t: TestApp;
let doc: OpenApiDoc;
let operations: { path: string; method: string; op: Operation }[];

beforeAll(async () => {
  t = await createTestApp();
  const res = await t.app.inject({ method: 'GET', url: '/openapi.json' });
  expect(res.statusCode).toBe(200);
  expect(res.headers['content-type']).toMatch(/^application\/json/);
  doc = res.json<OpenApiDoc>();
  operations = Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([method]) => HTTP_METHODS.has(method))
      .map(([method, op]) => ({ path, method, op })),
  );
});
afterAll(async () => t.close());

/**
 * Every route the server answers, as `METHOD /path/{param}`, read from Fastify's route tree
 * (`printRoutes` prints a radix tree: a child's text continues its parent's path).
 */
function servedRoutes(): { method: string; path: string }[] {
  const out: { method: string; path: string }[] = [];
  const stack: string[] = [];
  for (const line of t.app.printRoutes({ commonPrefix: false }).split('\n')) {
    const match = /^([│├└─\s]*?)(?:[├└]── )(.+?)(?: \(([A-Z, ]+)\))?$/.exec(line);
    if (!match) continue;
    const depth = Math.round(match[1]!.length / 4);
    const full = (depth > 0 ? stack[depth - 1] ?? '' : '') + match[2]!;
    stack[depth] = full;
    stack.length = depth + 1;
    for (const method of (match[3] ?? '').split(',').map((m) => m.trim()).filter(Boolean)) {
      if (method === 'HEAD' || method === 'OPTIONS') continue;
      out.push({ method, path: full.replace(/:([A-Za-z0-9_]+)/g, '{$1}') });
    }
  }
  return out;
}

describe('GET /openapi.json', () => {
  it('is a valid OpenAPI 3.1 document', async () => {
    const validator = new Validator();
    const result = await validator.validate(structuredClone(doc) as unknown as Record<string, unknown>);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
    expect(doc.openapi).toMatch(/^3\.1\./);
  });

  it('names the API, its server and both security schemes', () => {
    expect(doc.info.title).toBe('Corridor API');
    expect(doc.servers?.[0]?.url).toBe(t.config.publicBaseUrl);
    expect(doc.components.securitySchemes.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(doc.components.securitySchemes.operatorKey).toMatchObject({ type: 'http', scheme: 'bearer' });
  });

  it('documents the core endpoints', () => {
    for (const [path, method] of [
      ['/oauth/token', 'post'],
      ['/v1/account', 'get'],
      ['/v1/accounts', 'post'],
      ['/v1/accounts/{id}', 'get'],
      ['/healthz', 'get'],
      ['/operator/v1/workspaces', 'post'],
    ] as const) {
      expect(doc.paths[path]?.[method], `${method.toUpperCase()} ${path}`).toBeDefined();
    }
  });

  it('gives every operation a 2xx response with a schema', () => {
    const missing = operations
      .filter(({ op }) => {
        const success = Object.entries(op.responses ?? {}).filter(([code]) => /^2(\d\d|XX)$/.test(code));
        if (success.length === 0) return true;
        return success.some(([code, r]) => code !== '204' && !Object.values(r.content ?? {}).some((media) => media.schema !== undefined));
      })
      .map(({ method, path }) => `${method.toUpperCase()} ${path}`);
    expect(missing).toEqual([]);
  });

  it('documents client errors (4xx) on every operation', () => {
    const missing = operations
      .filter(({ op }) => !Object.keys(op.responses ?? {}).some((code) => /^4(\d\d|XX)$/.test(code)))
      .map(({ method, path }) => `${method.toUpperCase()} ${path}`);
    expect(missing).toEqual([]);
  });

  it('declares security on every operation but the public ones, which declare none', () => {
    const problems: string[] = [];
    for (const { path, method, op } of operations) {
      const name = `${method.toUpperCase()} ${path}`;
      const effective = op.security ?? doc.security ?? [];
      const schemes = effective.flatMap((requirement) => Object.keys(requirement));
      if (PUBLIC_PATHS.test(path)) {
        if (effective.length !== 0) problems.push(`${name} is public but declares ${JSON.stringify(effective)}`);
      } else if (path.startsWith('/operator/')) {
        if (!schemes.includes('operatorKey')) problems.push(`${name} does not declare operatorKey`);
      } else if (!schemes.includes('bearerAuth')) {
        problems.push(`${name} does not declare bearerAuth`);
      }
      for (const scheme of schemes) if (!doc.components.securitySchemes[scheme]) problems.push(`${name} names unknown scheme ${scheme}`);
    }
    expect(problems).toEqual([]);
  });

  it('documents a 401 on every operation that needs a credential', () => {
    const missing = operations
      .filter(({ path }) => !PUBLIC_PATHS.test(path))
      .filter(({ op }) => !op.responses['401'])
      .map(({ method, path }) => `${method.toUpperCase()} ${path}`);
    expect(missing).toEqual([]);
  });

  it('lists every path served under /v1', () => {
    const served = servedRoutes();
    expect(served).toContainEqual({ method: 'GET', path: '/v1/account' });
    expect(served).toContainEqual({ method: 'GET', path: '/v1/accounts/{id}' });
    const undocumented = served
      .filter((r) => r.path.startsWith('/v1/'))
      .filter((r) => !doc.paths[r.path]?.[r.method.toLowerCase()])
      .map((r) => `${r.method} ${r.path}`);
    expect(undocumented).toEqual([]);
  });

  it('lists every other API route too (all but the docs themselves and the web pages)', () => {
    // The dashboard, the console and their assets are HTML pages, not API (docs/guides/dashboard.md); a
    // provider's callbacks (/connectors/…, /callbacks/…) are called by the provider, signed as it
    // signs, and documented in the connector's guide, not in the API reference.
    const undocumented = servedRoutes()
      .filter((r) => !/^\/(docs|openapi\.json|arazzo\.json)|^\/(dashboard|console|assets)(\/|\*|$)|^\/(connectors|callbacks)\//.test(r.path))
      .filter((r) => !doc.paths[r.path]?.[r.method.toLowerCase()])
      .map((r) => `${r.method} ${r.path}`);
    expect(undocumented).toEqual([]);
  });

  it('documents only routes the server answers', () => {
    const served = new Set(servedRoutes().map((r) => `${r.method} ${r.path}`));
    const phantom = operations.map(({ method, path }) => `${method.toUpperCase()} ${path}`).filter((op) => !served.has(op));
    expect(phantom).toEqual([]);
  });

  it('serves the public discovery documents in full under their documented schemas', async () => {
    const jwks = await t.app.inject({ method: 'GET', url: '/.well-known/jwks.json' });
    expect(jwks.statusCode).toBe(200);
    const keys = jwks.json<{ keys: Record<string, string>[] }>().keys;
    expect(keys.length).toBeGreaterThan(0);
    for (const key of keys) expect(key).toMatchObject({ kty: 'OKP', crv: 'Ed25519', alg: 'EdDSA', use: 'sig', kid: expect.any(String), x: expect.any(String) });
    expect(keys).toEqual(t.ctx.keys.jwks().keys);

    const meta = await t.app.inject({ method: 'GET', url: '/.well-known/oauth-authorization-server' });
    expect(meta.statusCode).toBe(200);
    expect(meta.json()).toMatchObject({
      issuer: t.config.publicBaseUrl,
      token_endpoint: `${t.config.publicBaseUrl}/oauth/token`,
      jwks_uri: `${t.config.publicBaseUrl}/.well-known/jwks.json`,
      grant_types_supported: ['client_credentials'],
      scopes_supported: expect.arrayContaining(['read:accounts']),
    });
  });

  it("describes a payout's recipient check, field by field, with what each result means on NIP name enquiry and Confirmation of Payee, and the confirmation's 409 codes", () => {
    type Schema = { $ref?: string; description?: string; properties?: Record<string, Schema>; anyOf?: Schema[]; required?: string[] };
    const schemas = (doc.components as unknown as { schemas: Record<string, Schema> }).schemas;
    const resolve = (s: Schema | undefined): Schema | undefined => (s?.$ref ? schemas[s.$ref.replace('#/components/schemas/', '')] : s);
    const check = resolve(schemas.Payout?.properties?.recipientCheck);
    const fields = ['status', 'result', 'name', 'railName', 'reason', 'connector', 'checkedAt', 'decidedBy', 'decidedAt'];
    expect(check?.required).toEqual(fields);
    // Every field says what it is (on the field, or on its non-null branch).
    const described = (f: string) => check?.properties?.[f]?.description ?? check?.properties?.[f]?.anyOf?.find((b) => b.description)?.description;
    expect(fields.filter((f) => !described(f))).toEqual([]);
    const result = described('result') ?? '';
    for (const value of ['match', 'close_match', 'no_match', 'account_not_found', 'unavailable']) expect(result).toContain(`\`${value}\`:`);
    expect(result).toContain('NIP name enquiry (Paystack');
    expect(result).toContain('Confirmation of Payee (ClearBank');
    for (const code of ['MBAM', 'BANM', 'ANNM', 'AC01', 'OPTO']) expect(result).toContain(code);
    expect(described('reason')).toMatch(/CoP \(ClearBank\)[\s\S]*NIP name enquiry \(Paystack\)/);

    const confirm = doc.paths['/v1/payouts/{id}/recipient-check/confirm']?.post;
    expect(JSON.stringify(confirm?.responses['200']?.content)).toContain('#/components/schemas/Payout');
    expect(confirm?.responses['409']?.description).toContain('RECIPIENT_CHECK_NOT_HELD');
    expect(confirm?.responses['409']?.description).toContain('RECIPIENT_ACCOUNT_NOT_FOUND');
    expect((confirm as { description?: string } | undefined)?.description).toMatch(/409 RECIPIENT_CHECK_NOT_HELD when[\s\S]*409 RECIPIENT_ACCOUNT_NOT_FOUND when/);
  });

  it('is public: no credential is needed to read it', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/openapi.json', headers: { authorization: 'Bearer not-a-token' } });
    expect(res.statusCode).toBe(200);
  });
});

describe('GET /docs', () => {
  it('serves the interactive documentation as HTML', async () => {
    let res = await t.app.inject({ method: 'GET', url: '/docs' });
    for (let hops = 0; hops < 3 && res.statusCode >= 300 && res.statusCode < 400; hops++) {
      const location = new URL(String(res.headers.location), 'http://127.0.0.1').pathname;
      res = await t.app.inject({ method: 'GET', url: location });
    }
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.body).toMatch(/<html/i);
  });

  it('serves the document the UI loads', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/docs/json' });
    expect(res.statusCode).toBe(200);
    expect(res.json<OpenApiDoc>().openapi).toMatch(/^3\.1\./);
  });
});
