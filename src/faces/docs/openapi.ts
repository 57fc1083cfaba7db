/**
 * What the generated OpenAPI document needs besides the route schemas, derived in one place so that
 * every route (a new one included) gets it without saying so:
 *
 * - a stable `operationId` on every operation, from its method and path (operationIdOf), unless the
 *   route's schema names one;
 * - the `Idempotency-Key` header on every authenticated POST and `Service-Account-Id` on every
 *   workspace-credential operation;
 * - a request body that is not required where every field is optional (the server takes none:
 *   app.ts defaults such a body to `{}`), and binary bodies for routes that `consume` raw files;
 * - named schemas: every schema with a PascalCase `title` becomes `#/components/schemas/<title>`, and
 *   every other object body or 2xx answer is named after its operation (`CreatePayoutRequest`);
 * - the OAuth2 client-credentials flow beside the pasted bearer token;
 * - the error-code catalogue as the `code` enum of the error shapes;
 * - a `webhooks` entry per delivered event type: the event's own schema (the one GET /v1/events and
 *   the SDK's event types use) and the headers that sign each delivery.
 */
import { createHash } from 'node:crypto';
import { eventSchemaName } from '../../domains/events/event-union.js';
import { DELIVERED_EVENT_TYPES, EVENT_FIRES_WHEN } from '../../domains/webhooks/event-types.js';
import {
  SIGNATURE_HEADER,
  STANDARD_ID_HEADER,
  STANDARD_SIGNATURE_HEADER,
  STANDARD_TIMESTAMP_HEADER,
  TIMESTAMP_HEADER,
} from '../../domains/webhooks/signature.js';
import { ERROR_CODES } from '../../platform/http/error-catalogue.js';

type Json = Record<string, unknown>;

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;

/** The last segment of a POST that is an action on what precedes it (`POST /v1/payouts/{id}/cancel`: cancelPayout). */
const ACTIONS = new Set([
  'activate', 'deactivate', 'archive', 'restore', 'confirm', 'capture', 'refund', 'sign', 'send', 'start', 'stop', 'cancel', 'adjust', 'approve', 'cancel', 'complete', 'confirm', 'deactivate', 'execute', 'expire', 'fail', 'fund', 'pay', 'process',
  'refund', 'resend', 'reverse', 'revert', 'review', 'rotate', 'submit', 'test', 'verify', 'retry', 'replay', 'reject', 'release',
  'hold', 'screen', 'simulate', 'trigger', 'accept', 'decline', 'close', 'reopen', 'suspend', 'resume', 'enable', 'disable',
]);
/** Actions named by a participle (`POST …/refunded`). */
const PARTICIPLES: Record<string, string> = { refunded: 'markRefunded', paid: 'markPaid', failed: 'markFailed' };
/** Words whose plural is the word itself, or that read as singular though they end in s. */
const INVARIANT = new Set(['terms', 'settings', 'status', 'funds', 'details', 'news', 'kyc', 'kyb', 'fx', 'address', 'access', 'process']);

const words = (segment: string): string[] => segment.split(/[^A-Za-z0-9]+/).filter(Boolean);
const pascal = (text: string): string => words(text).map((w) => w.charAt(0).toUpperCase() + w.slice(1)).join('');

function singular(word: string): string {
  const lower = word.toLowerCase();
  if (INVARIANT.has(lower)) return word;
  if (/ies$/.test(lower)) return `${word.slice(0, -3)}y`;
  if (/(sses|shes|ches|xes)$/.test(lower)) return word.slice(0, -2);
  if (/[^su]s$/.test(lower)) return word.slice(0, -1);
  return word;
}
/** Singular of a segment's last word (`virtual-accounts`: VirtualAccount). */
export const singularSegment = (segment: string): string => {
  const w = words(segment);
  if (w.length === 0) return '';
  w[w.length - 1] = singular(w[w.length - 1] as string);
  return pascal(w.join('-'));
};
const isPlural = (segment: string): boolean => singularSegment(segment) !== pascal(segment);

/**
 * The operation id a route gets from its method and path when its schema names none:
 * `[operator|sandbox|legacy]<verb><Nouns>`, e.g. GET /v1/payouts listPayouts, GET /v1/payouts/{id}
 * getPayout, POST /v1/payouts createPayout, POST /v1/payouts/{id}/cancel cancelPayout,
 * POST /v1/sandbox/payouts/{id}/pay sandboxPayPayout, GET /operator/v1/workspaces operatorListWorkspaces,
 * PATCH updateX, PUT setX (a static last segment) or updateX, DELETE deleteX. Deprecated unversioned
 * aliases get `legacy`. Deterministic: the same method and path always give the same id.
 */
export function operationIdOf(method: string, path: string, deprecated = false): string {
  let segments = path.split('/').filter(Boolean);
  const prefix: string[] = [];
  if (segments[0] === 'operator') {
    prefix.push('operator');
    segments = segments.slice(1);
  }
  const versioned = /^v\d+$/.test(segments[0] ?? '');
  if (versioned) segments = segments.slice(1);
  else if (deprecated) prefix.push('legacy');
  if (segments[0] === 'sandbox') {
    prefix.push('sandbox');
    segments = segments.slice(1);
  }
  const isParam = (s: string | undefined) => s !== undefined && /^\{.+\}$/.test(s);
  const last = segments[segments.length - 1];
  const lastIsParam = isParam(last);
  const m = method.toLowerCase();
  let verb: string;
  let statics = segments.map((s, i) => ({ s, i })).filter(({ s }) => !isParam(s));
  let tail = '';
  if (m === 'post' && !lastIsParam && last !== undefined && (ACTIONS.has(words(last)[0] ?? '') || PARTICIPLES[last])) {
    const actionWords = words(last);
    verb = PARTICIPLES[last] ?? (actionWords[0] as string);
    tail = PARTICIPLES[last] ? '' : pascal(actionWords.slice(1).join('-'));
    statics = statics.slice(0, -1);
  } else if (m === 'get') verb = !lastIsParam && last !== undefined && isPlural(last) ? 'list' : 'get';
  else if (m === 'post') verb = 'create';
  else if (m === 'put') verb = lastIsParam ? 'update' : 'set';
  else if (m === 'patch') verb = 'update';
  else if (m === 'delete') verb = 'delete';
  else verb = m;
  const keepLastPlural = verb === 'list' || ((verb === 'get' || verb === 'set') && !lastIsParam);
  const nouns = statics.map(({ s, i }) => {
    const isLast = i === segments.length - 1;
    if (isLast && keepLastPlural) return pascal(s);
    return singularSegment(s);
  });
  const head = [...prefix, verb].map((w, i) => (i === 0 ? w : w.charAt(0).toUpperCase() + w.slice(1))).join('');
  return `${head}${nouns.join('')}${tail}`;
}

/** Every operation of a document, in document order. */
export function operationsOf(doc: Json): { path: string; method: string; op: Json }[] {
  const out: { path: string; method: string; op: Json }[] = [];
  for (const [path, item] of Object.entries((doc.paths ?? {}) as Record<string, Json>)) {
    for (const method of HTTP_METHODS) {
      const op = item[method] as Json | undefined;
      if (op) out.push({ path, method, op });
    }
  }
  return out;
}

/** The committed list of operation ids (test/http/operation-ids.txt): one `operationId METHOD /path` a line, sorted. */
export function operationIdLines(doc: Json): string {
  return `${operationsOf(doc)
    .map((o) => `${String(o.op.operationId)} ${o.method.toUpperCase()} ${o.path}`)
    .sort()
    .join('\n')}\n`;
}

function assignOperationIds(doc: Json): void {
  const used = new Set<string>();
  const ops = operationsOf(doc);
  for (const { op } of ops) if (typeof op.operationId === 'string') used.add(op.operationId);
  for (const { path, method, op } of ops) {
    if (typeof op.operationId === 'string') continue;
    const base = operationIdOf(method, path, op.deprecated === true);
    const version = /^\/(?:operator\/)?(v\d+)\//.exec(path)?.[1];
    let id = base;
    if (used.has(id) && version) id = `${base}${version.toUpperCase()}`;
    for (let n = 2; used.has(id); n++) id = `${base}${n}`;
    used.add(id);
    op.operationId = id;
  }
}

const IDEMPOTENCY_KEY = {
  name: 'Idempotency-Key',
  in: 'header',
  required: false,
  description:
    'Makes the POST safe to retry: the first answer (2xx or 4xx) is stored for 24 h and replayed to a retry with the same key and body (Idempotent-Replayed: true); the same key with another body is 422 IDEMPOTENCY_KEY_REUSED. 1 to 255 printable ASCII characters, e.g. a UUID. Without it a failed POST is not retryable.',
  schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x21-\\x7e]{1,255}$', examples: ['5f0c8a52-6a0e-4b8e-9d3f-2f1c3b7a9e10'] },
};
const SERVICE_ACCOUNT_ID = {
  name: 'Service-Account-Id',
  in: 'header',
  required: false,
  description: 'Acts on this sub-account of the workspace instead of the workspace itself (403 not_account_owner if it is not one of its sub-accounts).',
  schema: { type: 'string', format: 'uuid' },
};

const securitySchemesOf = (op: Json, doc: Json): string[] =>
  ((op.security ?? doc.security ?? []) as Record<string, unknown>[]).flatMap((requirement) => Object.keys(requirement));

/** The headers an operation takes by its credential: Service-Account-Id (workspace token), Idempotency-Key (every authenticated POST). */
function addHeaders(doc: Json): void {
  for (const { method, op } of operationsOf(doc)) {
    const schemes = securitySchemesOf(op, doc);
    const parameters = ((op.parameters as Json[] | undefined) ?? []).slice();
    const has = (name: string) => parameters.some((p) => p.in === 'header' && String(p.name).toLowerCase() === name.toLowerCase());
    if (method === 'post' && schemes.length > 0 && !has(IDEMPOTENCY_KEY.name)) parameters.push({ ...IDEMPOTENCY_KEY });
    if ((schemes.includes('bearerAuth') || schemes.includes('oauth2')) && !has(SERVICE_ACCOUNT_ID.name)) parameters.push({ ...SERVICE_ACCOUNT_ID });
    if (parameters.length) op.parameters = parameters;
  }
}

/** True when a body schema accepts `{}`: an object whose properties are all optional. */
export function acceptsEmptyObject(schema: unknown): boolean {
  const s = schema as Json | undefined;
  if (!s || typeof s !== 'object') return false;
  if (s.type !== 'object' && !s.properties) return false;
  if (Array.isArray(s.required) && s.required.length > 0) return false;
  if (s.minProperties !== undefined && Number(s.minProperties) > 0) return false;
  return !s.anyOf && !s.oneOf && !s.allOf && !s.if;
}

/** Bodies: optional where the server takes none; raw files where a route `consumes` them without a JSON schema. */
function fixRequestBodies(doc: Json, consumes: Map<string, string[]>): void {
  for (const { path, method, op } of operationsOf(doc)) {
    const body = op.requestBody as Json | undefined;
    const json = (body?.content as Record<string, Json> | undefined)?.['application/json'];
    if (body && json && acceptsEmptyObject(json.schema)) body.required = false;
    const types = consumes.get(`${method.toUpperCase()} ${path}`);
    if (!body && types?.length) {
      op.requestBody = {
        required: true,
        description: 'The file\'s raw bytes',
        content: Object.fromEntries(types.map((t) => [t, { schema: { type: 'string', format: 'binary', contentMediaType: t } }])),
      };
    }
  }
}

const SCHEMA_NAME = /^[A-Z][A-Za-z0-9]*$/;
const REF = '#/components/schemas/';

/**
 * Moves named schemas into components.schemas. Children first, so a named schema's own named parts are
 * references in it. Two different schemas may not share a name: the second gets a numbered name (a
 * test fails on any, so the titles are fixed at the source).
 */
class SchemaNamer {
  readonly schemas: Record<string, Json> = {};
  private readonly texts = new Map<string, string>();
  readonly collisions: string[] = [];

  constructor(existing: Record<string, Json>) {
    for (const [name, schema] of Object.entries(existing)) {
      const { examples: _examples, example: _example, ...shape } = schema;
      this.schemas[name] = schema;
      this.texts.set(name, JSON.stringify(shape));
    }
  }

  lift(node: unknown): unknown {
    if (Array.isArray(node)) return node.map((n) => this.lift(n));
    if (!node || typeof node !== 'object') return node;
    const out: Json = {};
    for (const [k, v] of Object.entries(node as Json)) {
      // `examples`, `enum`, `const` and `default` hold values, not schemas.
      out[k] = k === 'examples' || k === 'enum' || k === 'const' || k === 'default' || k === 'example' ? v : this.lift(v);
    }
    const title = out.title;
    if (typeof title === 'string' && SCHEMA_NAME.test(title) && this.isSchema(out)) return this.register(title, out);
    return out;
  }

  /** Names `schema` (already lifted) `name`, or a numbered name when another schema has it (its examples aside: a body's are moved out). */
  register(name: string, schema: Json): Json {
    const { examples: _examples, example: _example, ...shape } = schema;
    const text = JSON.stringify(shape);
    let candidate = name;
    for (let n = 2; this.texts.has(candidate) && this.texts.get(candidate) !== text; n++) candidate = `${name}${n}`;
    if (candidate !== name && !this.collisions.includes(name)) this.collisions.push(name);
    if (!this.texts.has(candidate)) {
      this.texts.set(candidate, text);
      this.schemas[candidate] = schema;
    }
    return { $ref: `${REF}${candidate}` };
  }

  private isSchema(node: Json): boolean {
    return ['type', 'properties', 'anyOf', 'oneOf', 'allOf', 'enum', 'const', 'items'].some((k) => k in node);
  }
}

const isObjectSchema = (s: Json): boolean => s.type === 'object' || 'properties' in s || 'anyOf' in s || 'oneOf' in s || s.type === 'array';

/** Named schemas for every titled schema, and for every untitled body and 2xx answer by its operation. */
function nameSchemas(doc: Json): string[] {
  const components = (doc.components ??= {}) as Json;
  const namer = new SchemaNamer((components.schemas ?? {}) as Record<string, Json>);
  for (const { op } of operationsOf(doc)) {
    const opName = pascal(String(op.operationId));
    const content = ((op.requestBody as Json | undefined)?.content ?? {}) as Record<string, Json>;
    for (const media of Object.values(content)) {
      if (!media.schema) continue;
      const lifted = namer.lift(media.schema) as Json;
      media.schema = !('$ref' in lifted) && isObjectSchema(lifted) ? namer.register(`${opName}Request`, lifted) : lifted;
    }
    for (const [status, response] of Object.entries((op.responses ?? {}) as Record<string, Json>)) {
      for (const media of Object.values((response.content ?? {}) as Record<string, Json>)) {
        if (!media.schema) continue;
        const lifted = namer.lift(media.schema) as Json;
        const success = /^2/.test(status);
        media.schema = success && !('$ref' in lifted) && isObjectSchema(lifted) ? namer.register(`${opName}Response`, lifted) : lifted;
      }
    }
    for (const parameter of (op.parameters ?? []) as Json[]) if (parameter.schema) parameter.schema = namer.lift(parameter.schema);
  }
  components.schemas = Object.fromEntries(Object.entries(namer.schemas).sort(([a], [b]) => a.localeCompare(b)));
  return namer.collisions;
}

/** The `code` of every error shape is one of the catalogue's codes (GET /docs/errors). */
function addErrorCodeEnum(doc: Json): void {
  const schemas = ((doc.components as Json).schemas ??= {}) as Record<string, Json>;
  schemas.ErrorCode = {
    type: 'string',
    title: 'ErrorCode',
    description: 'Every code the API answers with; what each means, where, and what to do: GET /docs/errors',
    // The token endpoint's OAuth errors come in its own body (`error`), not as a `code`.
    enum: ERROR_CODES.filter((e) => e.shape !== 'oauth').map((e) => e.code),
  };
  for (const name of ['Problem', 'LegacyError', 'ValidationError']) {
    const properties = schemas[name]?.properties as Json | undefined;
    if (properties?.code) properties.code = { $ref: `${REF}ErrorCode` };
  }
}

/** The OAuth2 client-credentials flow beside the pasted token: wherever bearerAuth is accepted, oauth2 is too. */
function addOAuth2(doc: Json, tokenUrl: string, scopes: readonly string[]): void {
  const components = (doc.components ??= {}) as Json;
  const schemes = (components.securitySchemes ??= {}) as Json;
  schemes.oauth2 = {
    type: 'oauth2',
    description: 'Client credentials: a client id and secret (printed by `npm start` in the sandbox) are exchanged at the token endpoint for a bearer token',
    flows: { clientCredentials: { tokenUrl, scopes: Object.fromEntries(scopes.map((s) => [s, `${s.split(':')[0] === 'write' ? 'Change' : 'Read'} ${s.split(':')[1]?.replace(/_/g, ' ')}`])) } },
  };
  const widen = (requirements: Record<string, unknown>[] | undefined) => {
    if (!Array.isArray(requirements) || !requirements.some((r) => 'bearerAuth' in r) || requirements.some((r) => 'oauth2' in r)) return requirements;
    return [...requirements, { oauth2: [] }];
  };
  doc.security = widen(doc.security as Record<string, unknown>[] | undefined);
  for (const { op } of operationsOf(doc)) if (op.security) op.security = widen(op.security as Record<string, unknown>[]);
}

/**
 * The tags in the order a newcomer meets them (the getting-started path), then the rest alphabetically;
 * the tags of operator endpoints only (the operator key's API, /operator/…) after every other, `Operator` last.
 */
export const TAG_ORDER = [
  'Authentication', 'Beneficiaries', 'Payouts', 'Webhooks', 'Events', 'Ledger', 'FX', 'Sandbox', 'Approvals', 'Accounts', 'Applications', 'Uploads',
  'Virtual accounts', 'Deposits', 'Orders', 'Capabilities', 'API keys', 'Request logs', 'Service',
];
const LAST_TAG = 'Operator';

function orderTags(doc: Json): void {
  const seen = new Set<string>();
  const integrator = new Set<string>();
  for (const { path, op } of operationsOf(doc)) {
    for (const t of (op.tags ?? []) as string[]) {
      seen.add(t);
      if (!path.startsWith('/operator/')) integrator.add(t);
    }
  }
  const known = new Map(((doc.tags ?? []) as Json[]).map((t) => [String(t.name), t]));
  const rank = (name: string) => {
    if (name === LAST_TAG) return 20_000;
    if (seen.has(name) && !integrator.has(name)) return 10_000;
    const i = TAG_ORDER.indexOf(name);
    return i === -1 ? 1_000 : i;
  };
  const names = [...new Set([...seen, ...known.keys()])].sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
  doc.tags = names.map((name) => known.get(name) ?? { name });
}

/** What each tag is about, shown above its operations (Redocly's tag-description; a new tag fails test/docs/reference-tools.test.ts until it has one). */
export const TAG_DESCRIPTIONS: Record<string, string> = {
  Authentication: 'Exchange a client id and secret for a bearer token (OAuth 2.0 client credentials); cache it until it expires.',
  Beneficiaries: 'The people and businesses you pay, with their bank accounts or wallets, checked against the rail\'s rules when saved.',
  Payouts: 'Money sent from your balance to a beneficiary: created once per clientRef, moved through its states by the rail, with events at each step.',
  Webhooks: 'Endpoints that receive your events, signed (the spec\'s X-Service-Signature and Standard Webhooks), with their deliveries, retries, resends and secret rotation.',
  Events: 'Everything that happened in the workspace, in order: listed, read one by one, or followed live as a server-sent event stream.',
  Ledger: 'Balances per currency and the double-entry ledger behind them.',
  FX: 'Rates, quotes locked for a short time, and conversions between the balances of a workspace.',
  Sandbox: 'Sandbox-only moves: fund a balance, walk a payout to a state, simulate what a rail or a counterparty would do.',
  Approvals: 'Maker-checker rules per workspace, and the payouts waiting for a second person\'s decision.',
  Accounts: 'The workspace and its sub-accounts (act on one with the Service-Account-Id header).',
  Applications: 'Onboarding (KYB/KYC): a business or an individual, its persons and documents, submitted for review.',
  Uploads: 'Signed upload URLs for documents too large for a JSON body.',
  'Virtual accounts': 'Account details of your own to receive money on, per currency.',
  Deposits: 'Money received on a virtual account or a chain address, credited once to the balance.',
  Orders: 'Trade-desk orders: buy or sell a currency, fund them, and follow them to settlement.',
  Capabilities: 'What the workspace may do (payouts, orders, FX…), as the operator has set it.',
  'API keys': 'The workspace\'s credentials and their scopes.',
  'Request logs': 'The workspace\'s recent API requests, bodies redacted, for a bounded time.',
  Service: 'Health and readiness of the service.',
  Alerts: 'Operator alerts: conditions with thresholds, and the alerts they open and close.',
  Screening: 'Operator sanctions screening: lists loaded, matches held for review, releases and rejections.',
  Operator: 'The operator API (operator key): workspaces, credentials, capabilities, currencies, settings and the rails.',
};

function describeTags(doc: Json): void {
  for (const tag of (doc.tags ?? []) as Json[]) {
    const description = TAG_DESCRIPTIONS[String(tag.name)];
    if (description && !tag.description) tag.description = description;
  }
}

/** Statuses an error range stands for, concretely (orval and other generators read no ranges). */
const CLIENT_ERRORS = [400, 403, 404, 409, 422, 429] as const;
const SERVER_ERRORS = [500, 503] as const;
const STATUS_WORDS: Record<number, string> = {
  400: 'The request is not valid',
  401: 'Missing, invalid or expired credential',
  403: 'The credential may not do this',
  404: 'Not found in this workspace',
  409: 'Not possible in the resource\'s current state',
  422: 'Well-formed, but refused by the rules now',
  429: 'Too many requests: retry after Retry-After',
  500: 'An unexpected failure; nothing is half done',
  503: 'Unavailable now: retry after Retry-After with the same Idempotency-Key',
};

/** The catalogue's codes an operation may answer with `status`: those of any endpoint (any POST for a POST) and those naming it. */
function codesFor(status: number, method: string, path: string): string[] {
  const self = `${method.toUpperCase()} ${path}`;
  return ERROR_CODES.filter((e) => {
    if (!e.status.includes(status) || e.shape === 'oauth') return false;
    const where = e.endpoints;
    return where.startsWith('any endpoint') || (method === 'post' && where === 'any POST') || where.split(/[,;] ?/).some((w) => w.trim() === self || w.trim().startsWith(`${self} `));
  }).map((e) => e.code);
}

/** `4XX` and `5XX` become the statuses they stand for, each described with the catalogue's codes it may carry; every response has its own description. */
function concreteResponses(doc: Json): void {
  for (const { path, method, op } of operationsOf(doc)) {
    const responses = (op.responses ?? {}) as Record<string, Json>;
    const out: Record<string, Json> = {};
    for (const [status, response] of Object.entries(responses)) {
      const range = /^([45])XX$/i.exec(status);
      if (!range) {
        out[status] = response;
        continue;
      }
      for (const code of range[1] === '4' ? CLIENT_ERRORS : SERVER_ERRORS) {
        if (responses[String(code)]) continue;
        // A read takes no body to conflict with: 409 and 422 only where something is written.
        if ((code === 409 || code === 422) && method === 'get') continue;
        const codes = codesFor(code, method, path);
        out[String(code)] = { ...response, description: `${STATUS_WORDS[code]}${codes.length ? ` (${codes.join(', ')})` : ''}` };
      }
    }
    for (const [status, response] of Object.entries(out)) {
      if (response.description === 'Default Response' || !response.description) {
        const n = Number(status);
        response.description = n === 204 ? 'Done; no content' : n >= 200 && n < 300 ? successWords(method, n, op) : (STATUS_WORDS[n] ?? 'Error');
      }
    }
    op.responses = Object.fromEntries(Object.entries(out).sort(([a], [b]) => a.localeCompare(b)));
  }
}

/** A 2xx's description from what the operation does: its summary when it has one. */
function successWords(method: string, status: number, op: Json): string {
  const what = typeof op.summary === 'string' && op.summary ? op.summary.replace(/\.$/, '') : String(op.operationId);
  if (status === 201) return `Created: ${what}`;
  if (status === 202) return `Accepted: ${what}`;
  return method === 'get' ? `The answer: ${what}` : `Done: ${what}`;
}

/** A stable example key per operation (a UUID made from its id), so that tools that copy examples (Postman) send a different key on each POST. */
function idempotencyExamples(doc: Json): void {
  for (const { op } of operationsOf(doc)) {
    const parameters = (op.parameters ?? []) as Json[];
    op.parameters = parameters.map((p) => {
      if (p.in !== 'header' || String(p.name).toLowerCase() !== 'idempotency-key') return p;
      const hex = createHash('sha256').update(String(op.operationId)).digest('hex');
      const uuid = `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-8${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
      return { ...p, example: uuid, schema: { ...(p.schema as Json), examples: [uuid] } };
    });
  }
}

/** A one-value `enum` is a `const` (what it means, and what generators make a literal of). */
function oneValueEnumsAsConst(node: unknown): void {
  if (Array.isArray(node)) {
    for (const n of node) oneValueEnumsAsConst(n);
    return;
  }
  if (!node || typeof node !== 'object') return;
  const s = node as Json;
  if (Array.isArray(s.enum) && s.enum.length === 1 && s.const === undefined) {
    s.const = s.enum[0];
    delete s.enum;
  }
  for (const [k, v] of Object.entries(s)) if (k !== 'examples' && k !== 'example' && k !== 'default' && k !== 'const') oneValueEnumsAsConst(v);
}

/** OAuth2 (the client-credentials flow every tool can run) before the pasted bearer token, in the document and in each operation. */
function oauth2First(doc: Json): void {
  const order = (requirements: unknown) =>
    Array.isArray(requirements) ? [...(requirements as Json[])].sort((a, b) => Number('oauth2' in b) - Number('oauth2' in a)) : requirements;
  doc.security = order(doc.security);
  for (const { op } of operationsOf(doc)) if (op.security) op.security = order(op.security);
}

/** The headers every delivery carries (src/domains/webhooks/signature.ts signs them), as a receiver reads them. */
const DELIVERY_HEADERS: Json[] = [
  {
    name: SIGNATURE_HEADER,
    description: 'The spec\'s signature: hex(HMAC-SHA256(key = the whole whsec_ secret as UTF-8, message = `<X-Service-Timestamp>.<raw body>`)), 64 characters',
    schema: { type: 'string', pattern: '^[0-9a-f]{64}$' },
  },
  { name: TIMESTAMP_HEADER, description: 'Unix seconds of this attempt (fresh per attempt): refuse one too old', schema: { type: 'string', pattern: '^[0-9]{1,12}$' } },
  { name: STANDARD_ID_HEADER, description: 'Standard Webhooks: the event id, the same on every attempt (deduplicate by it)', schema: { type: 'string', pattern: '^evt_[A-Za-z0-9_-]{1,64}$' } },
  { name: STANDARD_TIMESTAMP_HEADER, description: 'Standard Webhooks: Unix seconds of this attempt', schema: { type: 'string', pattern: '^[0-9]{1,12}$' } },
  {
    name: STANDARD_SIGNATURE_HEADER,
    description:
      'Standard Webhooks: space-separated `v1,<base64 HMAC-SHA256(key = the base64 after whsec_, decoded; message = `<webhook-id>.<webhook-timestamp>.<raw body>`)>` per signing secret (two during a rotation\'s overlap), and `v1a,<base64 Ed25519 signature>` when the endpoint has `ed25519: true`',
    schema: { type: 'string', pattern: '^v1a?,[A-Za-z0-9+/=]+( v1a?,[A-Za-z0-9+/=]+)*$' },
  },
].map((h) => ({ ...h, in: 'header', required: true }));

/**
 * `webhooks`: one entry per event type an endpoint receives (payout.reverted is recorded, not
 * delivered), its body the event's schema from components (the one source of GET /v1/events, the
 * event union and the SDK's types), with the headers that sign it.
 */
function addWebhooks(doc: Json): void {
  doc.webhooks = Object.fromEntries(
    DELIVERED_EVENT_TYPES.map((type) => [
      type,
      {
        post: {
          operationId: `${type.replace(/[._]([a-z])/g, (_m, c: string) => c.toUpperCase())}Webhook`,
          summary: type,
          description: `${EVENT_FIRES_WHEN[type]}. Corridor POSTs the event to each enabled endpoint subscribed to \`${type}\`, signed with both the spec's X-Service-Signature and the Standard Webhooks headers; answer 2xx within the deadline, else it is retried (up to 6 attempts). Deduplicate by the event id.`,
          tags: ['Webhooks'],
          security: [],
          parameters: DELIVERY_HEADERS,
          requestBody: { required: true, description: `The ${type} event`, content: { 'application/json': { schema: { $ref: `${REF}${eventSchemaName(type)}` } } } },
          responses: {
            '200': { description: 'Received: any 2xx within the deadline ends the retries (the body is ignored)' },
            '400': { description: 'Not accepted (a signature that does not verify, say): retried up to the last attempt' },
          },
        },
      },
    ]),
  );
}

export interface DocumentFacts {
  /** `METHOD /path/{param}` of routes that take raw bytes, with their media types. */
  consumes: Map<string, string[]>;
  tokenUrl: string;
  scopes: readonly string[];
}

/** Everything above, in order; returns the names given to two different schemas (expected: none). */
export function finishDocument<T extends object>(document: T, facts: DocumentFacts): T {
  const doc = document as unknown as Json;
  assignOperationIds(doc);
  addOAuth2(doc, facts.tokenUrl, facts.scopes);
  addHeaders(doc);
  fixRequestBodies(doc, facts.consumes);
  const collisions = nameSchemas(doc);
  if (collisions.length) doc['x-schema-name-collisions'] = collisions;
  addErrorCodeEnum(doc);
  orderTags(doc);
  describeTags(doc);
  concreteResponses(doc);
  idempotencyExamples(doc);
  oauth2First(doc);
  oneValueEnumsAsConst(doc.paths);
  oneValueEnumsAsConst(doc.components);
  addWebhooks(doc);
  (doc.info as Json).license = { name: 'Apache-2.0', identifier: 'Apache-2.0' };
  return document;
}
