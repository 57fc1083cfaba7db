/**
 * What `/docs` teaches: the document's description (a getting-started path from a token to a verified
 * webhook), Corridor's branding for the Swagger UI page, and request examples per operation (curl and
 * the SDK) added to the generated OpenAPI document as `x-codeSamples` in one place.
 */
import { RESOURCES } from '../../../packages/sdk/src/client.js';
import { singularSegment } from './openapi.js';

type Json = Record<string, unknown>;
interface CodeSample {
  lang: string;
  label: string;
  source: string;
}

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;

/** The modules the description names, each with a route prefix that must exist for it to be named. */
export const DOCUMENTED_MODULES: readonly { name: string; prefix: string }[] = [
  { name: 'balances and ledger', prefix: '/v1/ledger/' },
  { name: 'payouts', prefix: '/v1/payouts' },
  { name: 'approvals (maker-checker rules and decisions)', prefix: '/v1/approval' },
  { name: 'beneficiaries', prefix: '/v1/beneficiaries' },
  { name: 'FX rates, quotes and conversions', prefix: '/v1/fx/' },
  { name: 'trade-desk orders', prefix: '/v1/orders' },
  { name: 'onboarding applications (KYB/KYC)', prefix: '/v2/applications' },
  { name: 'virtual accounts', prefix: '/v1/virtual-accounts' },
  { name: 'deposits', prefix: '/v1/deposits' },
  { name: 'capabilities', prefix: '/v1/capabilities' },
  { name: 'webhooks', prefix: '/v1/webhooks' },
  { name: 'events and the event stream', prefix: '/v1/events' },
];

export const DOCS_TITLE = 'Corridor API reference';

/** The document's description: what exists, then how to make a first payout. */
export function docsDescription(audience: string): string {
  return `Corridor is a self-hostable payments platform API. This reference is generated from the same schemas that validate requests.

Modules: ${DOCUMENTED_MODULES.map((m) => m.name).join(', ')}.

Machine-readable: the OpenAPI document at [/openapi.json](/openapi.json), the main flow (token, beneficiary, quote, payout) as an Arazzo workflow at [/arazzo.json](/arazzo.json), and every error code with what to do at [/docs/errors](/docs/errors) (each error's \`doc_url\` links to its entry).

A body field an operation does not take is refused (400, field code \`UNKNOWN_FIELD\`, naming the field and the one it is likely a typo of); until issue 38 it was dropped silently. What changed and when: \`docs/changelog.md\` in the repository.

Every operation below shows a request in curl and with the TypeScript SDK (\`packages/sdk\`). The curl samples read \`$CORRIDOR_BASE_URL\` and \`$TOKEN\` (the token request \`$CORRIDOR_CLIENT_ID\` and \`$CORRIDOR_CLIENT_SECRET\`) from the shell, and the ids earlier answers gave as variables named after them (\`$BENEFICIARY_ID\`, \`$PAYOUT_ID\`, \`$QUOTE_ID\`…); they need nothing but curl and coreutils (the Idempotency-Key comes from /dev/urandom), and the webhook samples name a receiver on your own machine (\`https://localhost:3000/…\`), never someone else's host; the SDK samples take the same credential as \`clientId\` and \`clientSecret\` and fetch and renew the token themselves. The operator API's samples (its tags come last) send the operator key, \`$CORRIDOR_OPERATOR_KEY\`, instead of a token. Every sample here, the operator API's included, is run as written against a live server by the test suite. Which rails, currencies and recipient fields each country takes: [the corridor table](/docs/corridors).

## Getting started

1. **Credentials.** \`npm start\` prints the sandbox's demo credential (Client ID and Client secret) and the audience (\`${audience}\`) on every start.
2. **A token.** \`POST /oauth/token\` with the client credentials grant: \`{"grant_type":"client_credentials","client_id":"…","client_secret":"…","audience":"${audience}"}\`. The token is valid 24 h: cache it.
3. **Authorize.** Press **Authorize** on this page and paste the \`access_token\` under *bearerAuth*; every *Try it out* then sends it.
4. **A beneficiary.** \`POST /v1/beneficiaries\` with the recipient's name, country, address and an account (for example an IBAN).
5. **A payout.** \`POST /v1/payouts\` with an \`Idempotency-Key\` header, a \`clientRef\`, the \`amount\` as a decimal string, the \`currency\` and \`{"beneficiary":{"id":"…"}}\`. Read it back with \`GET /v1/payouts/{id}\`.
6. **A webhook endpoint.** \`POST /v1/webhooks\` with your URL and the event types; keep the signing secret it returns and verify every delivery's signature and timestamp (the SDK's \`corridor.webhooks.verify(rawBody, headers, secret)\`). For local development, \`corridor listen --forward-to http://localhost:3000/hook\` forwards events signed the same way.

**Sandbox magic amounts.** The sandbox provider pays a payout after a few steps, except by the amount's decimals: \`.13\` fails at the provider (\`beneficiary_account_invalid\`), \`.14\` stays processing, \`.15\` is paid then reverted.

## Conventions

Amounts are decimal strings in major units. Every POST takes an \`Idempotency-Key\` (the operator API's too, scoped to the operator key): retry with the same key. Three error shapes exist: the legacy envelope, the validation envelope (legacy plus \`details\`), and RFC 9457 problem details; each may also carry \`doc_url\` (the code's catalogue entry), \`param\` (the first failing field) and, on a 403 \`METHOD_NOT_ENTITLED\`, \`scope\` (the scope the credential lacks; each operation lists its scope under its security).`;
}

/** `payouts.create` for POST /v1/payouts, read from the SDK's own method tables. */
export function sdkMethodIndex(): Map<string, string> {
  const index = new Map<string, string>();
  const walk = (table: object, prefix: string): void => {
    for (const [name, value] of Object.entries(table) as [string, Json][]) {
      if (value.kind === 'endpoint') index.set(`${String(value.method).toUpperCase()} ${String(value.path)}`, `${prefix}${name}`);
      else walk(value, `${prefix}${name}.`);
    }
  };
  walk(RESOURCES, '');
  return index;
}

function resolve(doc: Json, schema: unknown): Json {
  let s = (schema ?? {}) as Json;
  for (let i = 0; i < 8 && typeof s.$ref === 'string'; i += 1) {
    const parts = s.$ref.replace(/^#\//, '').split('/');
    let target: unknown = doc;
    for (const p of parts) target = (target as Json | undefined)?.[p];
    s = (target ?? {}) as Json;
  }
  return s;
}

/** An example value for a schema: its own example when it has one, else one built from its parts. */
export function exampleOf(doc: Json, schema: unknown, depth = 0, name = ''): unknown {
  const s = resolve(doc, schema);
  // A value the reader has from an earlier call (an upload's key, the terms version): a shell variable.
  if (typeof s['x-sample-variable'] === 'string') return `$${s['x-sample-variable']}`;
  if (Array.isArray(s.examples) && s.examples.length > 0) return s.examples[0];
  if (s.example !== undefined) return s.example;
  if (s.default !== undefined) return s.default;
  if (s.const !== undefined) return s.const;
  if (Array.isArray(s.enum) && s.enum.length > 0) return s.enum[0];
  if (depth > 6) return null;
  const alternatives = (s.anyOf ?? s.oneOf) as unknown[] | undefined;
  if (Array.isArray(alternatives) && alternatives.length > 0) return exampleOf(doc, alternatives[0], depth + 1);
  if (Array.isArray(s.allOf)) return Object.assign({}, ...s.allOf.map((part) => exampleOf(doc, part, depth + 1) as object));
  const type = Array.isArray(s.type) ? s.type[0] : s.type;
  if (type === 'object' || s.properties) {
    const out: Json = {};
    // `if {required: [id]} … else {required: […]}`: the example is the full object, not a reference.
    const otherwise = ((s.else as Json | undefined)?.required as string[] | undefined) ?? [];
    const required = new Set([...((s.required as string[] | undefined) ?? []), ...otherwise]);
    const properties = Object.entries((s.properties ?? {}) as Json);
    // Of fields described as "give exactly one of a and b" the example gives the first.
    let oneOfGiven = false;
    for (const [name, prop] of properties) {
      const exclusive = /exactly one of/i.test(String(resolve(doc, prop).description ?? ''));
      if (exclusive && oneOfGiven) continue;
      if (required.has(name) || hasExample(doc, prop)) {
        out[name] = exampleOf(doc, prop, depth + 1, name);
        if (exclusive) oneOfGiven = true;
      }
    }
    // A body that must change something (`minProperties`) names its first field at least.
    const least = typeof s.minProperties === 'number' ? s.minProperties : 0;
    for (const [name, prop] of properties) {
      if (Object.keys(out).length >= least) break;
      if (!(name in out)) out[name] = exampleOf(doc, prop, depth + 1, name);
    }
    return out;
  }
  if (type === 'array') return [exampleOf(doc, s.items, depth + 1)];
  if (type === 'integer' || type === 'number') return typeof s.minimum === 'number' ? s.minimum : 1;
  if (type === 'boolean') return true;
  if (type === 'string') return stringExample(s, name);
  return null;
}

function hasExample(doc: Json, schema: unknown): boolean {
  const s = resolve(doc, schema);
  return (Array.isArray(s.examples) && s.examples.length > 0) || s.example !== undefined;
}

/** Strings named for what they hold get a plausible value (the schema has no example of its own). */
const NAMED_STRINGS: [RegExp, string][] = [
  [/^toCurrency$/, 'USD'],
  [/currency$/i, 'EUR'],
  [/^country$/i, 'DE'],
  [/^clientRef$/, 'invoice-1042'],
  [/^name$/, 'Ada Lovelace'],
  [/^url$/, 'https://localhost:3000/webhooks/corridor'],
];

function stringExample(s: Json, name: string): string {
  for (const [pattern, value] of NAMED_STRINGS) if (pattern.test(name)) return value;
  switch (s.format) {
    case 'uuid':
      return '3f2b8c1e-7a4d-4e5f-9b6a-1c2d3e4f5a6b';
    case 'date-time':
      return '2026-01-31T12:00:00Z';
    case 'date':
      return '2026-01-31';
    case 'email':
      return 'ada.lovelace@corridor.test';
    case 'uri':
    case 'url':
      return 'https://localhost:3000/webhooks/corridor';
    default:
      return 'string';
  }
}


const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const snake = (text: string): string => text.replace(/([a-z0-9])([A-Z])/g, '$1_$2').replace(/[^A-Za-z0-9]+/g, '_').toUpperCase();

/**
 * The shell variable a path parameter reads: `{id}` after `payouts` is $PAYOUT_ID, `{personId}`
 * $PERSON_ID, `{version}` after `terms` $TERMS_VERSION. The samples say where each comes from.
 */
export function pathVariable(path: string, param: string): string {
  const segments = path.split('/').filter(Boolean);
  const at = segments.indexOf(`{${param}}`);
  const previous = segments.slice(0, Math.max(0, at)).reverse().find((seg) => !seg.startsWith('{')) ?? '';
  if (param === 'id') return `${snake(singularSegment(previous))}_ID`;
  if (/Id$/.test(param)) return snake(param);
  return `${snake(singularSegment(previous))}_${snake(param)}`;
}

/** Ids in an example (uuid strings under `xId` or `x.id`) as the shell variables that hold real ones. */
export function withVariables(value: unknown, key = '', parent = ''): unknown {
  if (Array.isArray(value)) return value.map((v) => withVariables(v, key, parent));
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, withVariables(v, k, key)]));
  if (typeof value === 'string' && UUID.test(value)) {
    if (/Id$/.test(key)) return `$${snake(key)}`;
    if (key === 'id' && parent) return `$${snake(singularSegment(parent))}_ID`;
  }
  return value;
}

/** The value a path parameter takes in a sample: one of its fixed values as is, else the shell variable that holds it. */
function pathValue(doc: Json, path: string, op: Json, param: string, variable: (name: string) => string): string {
  const declared = ((op.parameters ?? []) as Json[]).find((p) => p.in === 'path' && p.name === param);
  const schema = resolve(doc, declared?.schema);
  const fixed = Array.isArray(schema.enum) || Array.isArray(schema.anyOf) ? exampleOf(doc, schema) : undefined;
  return typeof fixed === 'string' && /^[\w.-]+$/.test(fixed) ? fixed : variable(pathVariable(path, param));
}

function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/** JSON in single quotes, each `"$VAR"` string spliced in from the shell: `'{"quoteId":"'"$QUOTE_ID"'"}'`. */
function shellJson(value: unknown): string {
  return shellQuote(JSON.stringify(value)).replace(/"\$([A-Z][A-Z0-9_]*)"/g, `"'"$$$1"'"`);
}

/** A random Idempotency-Key from coreutils (no uuidgen needed). */
const NEW_KEY = `$(od -An -N16 -tx1 /dev/urandom | tr -d ' \\n')`;

/** The token request: client credentials, no token and no Idempotency-Key. */
const TOKEN_SAMPLE = `curl -X POST "$CORRIDOR_BASE_URL/oauth/token" \\
  -H "Content-Type: application/json" \\
  -d "{\\"grant_type\\":\\"client_credentials\\",\\"client_id\\":\\"$CORRIDOR_CLIENT_ID\\",\\"client_secret\\":\\"$CORRIDOR_CLIENT_SECRET\\",\\"audience\\":\\"corridor-api\\"}"`;

/** The required query parameters of an operation, with example values (ids as shell variables). */
function requiredQuery(doc: Json, op: Json): string {
  const params = ((op.parameters ?? []) as Json[]).filter((p) => p.in === 'query' && p.required === true);
  if (params.length === 0) return '';
  const pairs = params.map((p) => {
    const value = withVariables(exampleOf(doc, p.schema, 0, String(p.name)), String(p.name));
    const text = String(value);
    return `${String(p.name)}=${text.startsWith('$') ? text : encodeURIComponent(text)}`;
  });
  return `?${pairs.join('&')}`;
}

function curlSample(doc: Json, method: string, path: string, op: Json, body: unknown, audience: string): string {
  if (path === '/oauth/token') return TOKEN_SAMPLE.replace('corridor-api', audience);
  const content = ((op.requestBody as Json | undefined)?.content ?? {}) as Record<string, Json>;
  const fileTypes = Object.keys(content).filter((t) => t !== 'application/json');
  const fileBody = fileTypes.length > 0 && !content['application/json'];
  // A signed upload URL is its own credential: PUT the file's bytes to it as issued.
  if (fileBody && method === 'put') {
    return [`curl -X ${method.toUpperCase()} "$UPLOAD_URL"`, `  -H "Content-Type: ${fileTypes[0]}"`, `  --data-binary @document.pdf`].join(' \\\n');
  }
  const url = `$CORRIDOR_BASE_URL${path.replace(/\{([^}]+)\}/g, (_m, p: string) => pathValue(doc, path, op, p, (v) => `$${v}`))}${requiredQuery(doc, op)}`;
  const lines = [`curl -X ${method.toUpperCase()} "${url}"`];
  const security = op.security as unknown[] | undefined;
  const isPublic = Array.isArray(security) && security.length === 0;
  if (path.startsWith('/operator/') || path.startsWith('/v1/operator') || path.startsWith('/v1/admin')) lines.push(`  -H "Authorization: Bearer $CORRIDOR_OPERATOR_KEY"`);
  else if (!isPublic) lines.push(`  -H "Authorization: Bearer $TOKEN"`);
  if (method === 'post' && !isPublic) lines.push(`  -H "Idempotency-Key: ${NEW_KEY}"`);
  // A file as the body (a sanctions list to load): its bytes, as read from disk.
  if (fileBody) lines.push(`  -H "Content-Type: ${fileTypes[0]}"`, `  --data-binary @${fileTypes[0]?.includes('xml') ? 'list.xml' : 'list.csv'}`);
  else if (body !== undefined) {
    lines.push(`  -H "Content-Type: application/json"`);
    lines.push(`  -d ${shellJson(body)}`);
  }
  return lines.join(' \\\n');
}

interface SampleContext {
  baseUrl: string;
  audience: string;
}

function sdkSample(doc: Json, op: Json, method: string, path: string, sdkName: string, body: unknown, context: SampleContext): string {
  const pathParams = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1] as string);
  const args: string[] = [];
  if (pathParams.length > 0) args.push(`{ ${pathParams.map((p) => `${p}: ${pathValue(doc, path, op, p, (v) => `process.env.${v}!`).replace(/^[\w.-]+$/, (fixed) => `'${fixed}'`)}`).join(', ')} }`);
  if (body !== undefined) args.push(JSON.stringify(body, null, 2).replace(/"\$([A-Z][A-Z0-9_]*)"/g, 'process.env.$1!'));
  return [
    `import { Corridor } from '@corridor/sdk';`,
    ``,
    `const corridor = new Corridor({ baseUrl: '${context.baseUrl}', clientId, clientSecret, audience: '${context.audience}' });`,
    `const result = await corridor.${sdkName}(${args.join(', ')});${method === 'post' ? ' // an Idempotency-Key is generated and reused on retries' : ''}`,
  ].join('\n');
}

/** Adds `x-codeSamples` (curl, and the SDK where it has a method) to every operation of the document. */
export function addCodeSamples<T extends object>(document: T, audience: string): T {
  const doc = document as unknown as Json;
  const sdk = sdkMethodIndex();
  const servers = (doc.servers ?? []) as { url?: string }[];
  const context: SampleContext = { baseUrl: servers[0]?.url ?? 'http://127.0.0.1:8080', audience };
  for (const [path, item] of Object.entries((doc.paths ?? {}) as Record<string, Json>)) {
    for (const method of HTTP_METHODS) {
      const op = item[method] as Json | undefined;
      if (!op) continue;
      const content = ((op.requestBody as Json | undefined)?.content ?? {}) as Record<string, Json>;
      const bodySchema = content['application/json']?.schema;
      // A body every field of which is optional is left out (the server takes none).
      const optionalBody = (op.requestBody as Json | undefined)?.required === false;
      // The body's own example (the schema's `examples`, moved onto the media type), else one built from its fields.
      const media = content['application/json'];
      const given = media?.example ?? Object.values((media?.examples ?? {}) as Record<string, { value?: unknown }>)[0]?.value;
      const example = bodySchema === undefined ? undefined : withVariables(given ?? exampleOf(doc, bodySchema));
      const body = optionalBody && example && typeof example === 'object' && Object.keys(example).length === 0 ? undefined : example;
      const samples: CodeSample[] = [{ lang: 'Shell', label: 'curl', source: curlSample(doc, method, path, op, body, context.audience) }];
      const sdkName = sdk.get(`${method.toUpperCase()} ${path}`);
      if (sdkName) samples.push({ lang: 'TypeScript', label: 'SDK', source: sdkSample(doc, op, method, path, sdkName, body, context) });
      op['x-codeSamples'] = samples;
    }
  }
  return document;
}

/**
 * Swagger UI does not render `x-codeSamples`: the page's copy of the document (not /openapi.json)
 * shows them in each operation's description.
 */
export function samplesInDescriptions<T extends object>(document: T): T {
  const doc = document as unknown as Json;
  for (const item of Object.values((doc.paths ?? {}) as Record<string, Json>)) {
    for (const method of HTTP_METHODS) {
      const op = item[method] as Json | undefined;
      const samples = op?.['x-codeSamples'] as CodeSample[] | undefined;
      if (!op || !samples) continue;
      const blocks = samples.map((s) => `**${s.label}**\n\n\`\`\`${s.lang === 'Shell' ? 'sh' : 'ts'}\n${s.source}\n\`\`\``).join('\n\n');
      op.description = `${typeof op.description === 'string' ? `${op.description}\n\n` : ''}${blocks}`;
    }
  }
  return document;
}

const LOGO_SVG = `<svg xmlns="http://www.w3.org/2000/svg" width="180" height="32" viewBox="0 0 180 32"><rect x="0" y="4" width="24" height="24" rx="6" fill="#14b8a6"/><path d="M7 16h10M13 11l5 5-5 5" stroke="#fff" stroke-width="2.5" fill="none" stroke-linecap="round" stroke-linejoin="round"/><text x="32" y="23" font-family="system-ui,sans-serif" font-size="20" font-weight="700" fill="#ffffff">Corridor</text></svg>`;
const FAVICON_SVG = `<svg xmlns="http://www.w3.org/2000/svg" width="32" height="32" viewBox="0 0 24 24"><rect width="24" height="24" rx="6" fill="#14b8a6"/><path d="M6 12h10M12 7l5 5-5 5" stroke="#fff" stroke-width="2.5" fill="none" stroke-linecap="round" stroke-linejoin="round"/></svg>`;
const THEME_CSS = `
.swagger-ui .topbar { background: #0f172a; padding: 8px 0; }
.swagger-ui .topbar .download-url-wrapper { display: none; }
.swagger-ui .info .title { color: #0f172a; }
.swagger-ui .info .description h2 { border-bottom: 1px solid #e2e8f0; padding-bottom: 4px; margin-top: 24px; }
.swagger-ui .btn.authorize { border-color: #14b8a6; color: #0f766e; }
.swagger-ui .btn.authorize svg { fill: #0f766e; }
.swagger-ui .opblock-description-wrapper pre { white-space: pre-wrap; }
`;

/** Options for @fastify/swagger-ui: Corridor's title, logo, favicon and colours, and the samples shown. */
export function swaggerUiBranding(): Json {
  return {
    logo: { type: 'image/svg+xml', content: Buffer.from(LOGO_SVG), href: '/docs', target: '_self' },
    theme: {
      title: DOCS_TITLE,
      css: [{ filename: 'corridor.css', content: THEME_CSS }],
      favicon: [{ filename: 'favicon.svg', rel: 'icon', sizes: 'any', type: 'image/svg+xml', content: Buffer.from(FAVICON_SVG) }],
    },
    // Tags start collapsed: with every one of 130-odd operations listed at once, Swagger UI stopped
    // rendering after the second tag (measured in Chromium); a reader opens the section they need.
    uiConfig: { docExpansion: 'none', deepLinking: true },
    transformSpecification: (swaggerObject: Readonly<Record<string, unknown>>) => samplesInDescriptions({ ...swaggerObject }),
  };
}
