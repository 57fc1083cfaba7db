import formbody from '@fastify/formbody';
import rateLimit from '@fastify/rate-limit';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { Ajv, type Options as AjvOptions } from 'ajv';
import { closedBodySchema } from './platform/http/closed-bodies.js';
import addFormatsModule from 'ajv-formats';
import Fastify, { type FastifyInstance, type FastifyRequest, type RouteOptions } from 'fastify';
import { Type } from 'typebox';
import { Redis } from 'ioredis';
import type { AppContext } from './platform/context.js';
import { authPlugin } from './platform/http/auth.js';
import type { TypeBoxRequestTypeProvider } from './platform/http/routes.js';
import { AppError, linkErrorsToCatalogue, renderError, sendError, toAppError, usesProblemDetails } from './platform/http/errors.js';
import { sendAnswer, storeRefusal } from './platform/http/idempotency.js';
import { assertJsonShape, assertStorableInput, assertUtf8Charset, utf8Text } from './platform/http/input-rules.js';
import { addCodeSamples, docsDescription, swaggerUiBranding } from './faces/docs/docs.js';
import { arazzoDocument } from './faces/docs/arazzo.js';
import { ERROR_CODES, errorCataloguePage } from './platform/http/error-catalogue.js';
import { addRecordedExamples } from './faces/docs/examples.js';
import { acceptsEmptyObject, finishDocument } from './faces/docs/openapi.js';
import { ALL_SCOPES } from './domains/auth/scopes.js';
import { compileRequestValidator } from './platform/http/validation.js';
import { LegacyErrorSchema, ProblemSchema, UnauthorizedSchema, ValidationErrorSchema } from './platform/lib/schemas.js';
import { isDateTime, isDay } from './platform/lib/dates.js';
import { newRequestId } from './platform/lib/ids.js';
import { metrics } from './platform/observability/metrics.js';
import { registryOf } from './connectors/registry.js';
import { alertRoutes } from './controls/alerts/alerts.routes.js';
import { accountRoutes } from './domains/accounts/accounts.routes.js';
import { approvalRoutes } from './controls/approvals/approvals.routes.js';
import { recipientCheckRoutes } from './controls/recipient-checks/recipient-checks.routes.js';
import { applicationRoutes } from './domains/applications/applications.routes.js';
import { authRoutes } from './domains/auth/auth.routes.js';
import { beneficiaryRoutes } from './domains/beneficiaries/beneficiaries.routes.js';
import { corridorRoutes } from './domains/corridors/corridors.routes.js';
import { eventRoutes } from './domains/events/events.routes.js';
import { fxRoutes } from './domains/fx/fx.routes.js';
import { ledgerRoutes } from './domains/ledger/ledger.routes.js';
import { operatorLedgerRoutes } from './controls/operator/operator-ledger.routes.js';
import { auditOperatorCalls, operatorRoutes } from './controls/operator/operator.routes.js';
import { orderRoutes } from './domains/orders/orders.routes.js';
import { bankRoutes } from './connectors/bank/bank.routes.js';
import { clearBankRoutes } from './connectors/clearbank/clearbank.routes.js';
import { chainRoutes } from './connectors/chain/chain.routes.js';
import { mobileMoneyRoutes } from './connectors/mobile-money/mobile-money.routes.js';
import { paystackRoutes } from './connectors/paystack/paystack.routes.js';
import { sandboxRoutes } from './domains/sandbox/sandbox.routes.js';
import { payoutRoutes } from './domains/payouts/payouts.routes.js';
import { serviceRoutes } from './faces/service/service.routes.js';
import { webhookRoutes } from './domains/webhooks/webhooks.routes.js';
import { recordRequests, requestLogRoutes } from './controls/request-logs/request-logs.routes.js';
import { RequestLogRecorder } from './controls/request-logs/request-logs.service.js';
import { createStorage } from './platform/storage/storage.js';
import { uploadRoutes } from './platform/storage/uploads.routes.js';
import { virtualAccountRoutes } from './domains/virtual-accounts/virtual-accounts.routes.js';
import { depositRoutes } from './domains/deposits/deposits.routes.js';
import { reconciliationRoutes } from './controls/reconciliation/reconciliation.routes.js';
import { capabilityRoutes } from './domains/capabilities/capabilities.routes.js';
import { consolePages } from './faces/console/console.routes.js';
import { dashboardPages } from './faces/dashboard/dashboard.routes.js';
import { userRoutes } from './domains/users/users.routes.js';
import { screeningRoutes } from './controls/screening/screening.routes.js';
import { registerWeb, webOptions } from './faces/web/web.js';

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

/**
 * Bodies are never coerced (a JSON number is not an amount string); query and params are. A body's
 * unknown fields are refused (its schema is closed: closedBodySchema), never removed.
 */
function makeAjv(coerceTypes: AjvOptions['coerceTypes'], allErrors: boolean, removeAdditional: boolean): Ajv {
  const ajv = new Ajv({ allErrors, coerceTypes, useDefaults: true, removeAdditional, strict: false, verbose: true });
  addFormats(ajv);
  // Dates the database can hold (no year 0): refused at validation with the field named, not a 500 from the query.
  ajv.addFormat('date-time', isDateTime);
  ajv.addFormat('date', isDay);
  ajv.addKeyword({ keyword: 'x-message', schemaType: 'string' });
  return ajv;
}


/** A route anyone may call, signed in or not: the token endpoint, the sign-in, second-factor and invitation pages. */
function takesAnyone(route: RouteOptions): boolean {
  const web = route.config?.web;
  if (web) return web.access === 'public' || web.access === 'second-factor';
  return (route.config?.auth ?? 'none') === 'none';
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Builds the HTTP application: cross-cutting plugins, then every module's routes, then one error handler. */
export async function buildApp(ctx: AppContext): Promise<FastifyInstance> {
  const { config } = ctx;
  const app = Fastify({
    loggerInstance: ctx.log,
    bodyLimit: config.limits.bodyBytesMax,
    requestTimeout: config.limits.requestTimeoutMs,
    keepAliveTimeout: config.limits.keepAliveTimeoutMs,
    connectionTimeout: config.limits.connectionTimeoutMs,
    // Node checks the headers and request timeouts only every connectionsCheckingInterval (default 30 s).
    http: { headersTimeout: config.limits.headersTimeoutMs, connectionsCheckingInterval: 1000 },
    return503OnClosing: true,
    requestIdHeader: 'x-request-id',
    genReqId: () => newRequestId(),
    trustProxy: false,
    routerOptions: { ignoreTrailingSlash: true },
  });
  // Errors with a catalogued code carry doc_url, the link to their entry at /docs/errors.
  linkErrorsToCatalogue(app, config.publicBaseUrl, ERROR_CODES.map((e) => e.code));
  // A caller-supplied x-request-id is kept only when it is short and plain.
  app.addHook('onRequest', async (req, reply) => {
    if (!REQUEST_ID.test(String(req.id))) (req as { id: string }).id = newRequestId();
    reply.header('x-request-id', req.id);
  });
  // Requests by method, route pattern and status, with their latency (src/platform/observability/metrics.ts).
  app.addHook('onResponse', async (req, reply) => {
    metrics.httpRequests.observe({ method: req.method, route: req.routeOptions.url ?? 'unmatched', status: String(reply.statusCode) }, reply.elapsedTime / 1000);
  });
  // Form bodies are for the token endpoint (RFC 6749 client authentication) and the web pages' forms; every API route takes JSON.
  app.addHook('preValidation', async (req) => {
    if (req.routeOptions.url !== '/oauth/token' && !req.routeOptions.config.web && /^application\/x-www-form-urlencoded/i.test(req.headers['content-type'] ?? '')) {
      throw new AppError({ status: 415, code: 'UNSUPPORTED_MEDIA_TYPE', message: 'Content-Type must be application/json' });
    }
  });

  // Validation stops at the first failure; a small invalid input is validated again to list every failing field.
  const ajvBody = { fast: makeAjv(false, false, false), full: makeAjv(false, true, false) };
  const ajvQuery = { fast: makeAjv('array', false, true), full: makeAjv('array', true, true) };
  app.setValidatorCompiler(({ schema, httpPart }) => {
    const body = httpPart === 'body';
    const ajv = body ? ajvBody : ajvQuery;
    const validated = body ? closedBodySchema(schema as Record<string, unknown>) : (schema as Record<string, unknown>);
    return compileRequestValidator(ajv.fast, ajv.full, validated, config.limits.validationReportValuesMax);
  });

  // Keep the raw JSON text: the Idempotency-Key fingerprint is taken over the exact bytes sent.
  // UTF-8 only, no key twice in one object, bounded depth (src/platform/http/input-rules.ts).
  const jsonParser = app.getDefaultJsonParser('error', 'error');
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (req, body, done) => {
    let text: string;
    try {
      assertUtf8Charset(req.headers['content-type']);
      text = utf8Text(body as Buffer);
      // Depth and duplicate keys are checked before parsing: a deep body is refused at its 33rd level.
      assertJsonShape(text, config.limits.jsonDepthMax);
    } catch (err) {
      return done(err as Error, undefined);
    }
    req.rawBody = text;
    jsonParser(req, text, done);
  });
  // No string a request carries (body, query, path) may hold a NUL or an unpaired surrogate.
  app.addHook('preValidation', assertStorableInput);
  app.decorateRequest('rawBody', undefined);
  // Fastify parses text/plain by default; the API takes JSON (and form bodies at the token endpoint) only.
  app.removeContentTypeParser('text/plain');
  await app.register(formbody, { bodyLimit: config.limits.bodyBytesMax });

  /** Routes that take raw bytes (`schema.consumes` without a JSON body), for the document's request bodies. */
  const consumes = new Map<string, string[]>();
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Corridor API',
        version: '1.0.0',
        description: docsDescription(config.audience),
      },
      servers: [{ url: config.publicBaseUrl }],
      components: {
        securitySchemes: {
          bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'Access token from POST /oauth/token' },
          operatorKey: { type: 'http', scheme: 'bearer', description: 'Operator key (operator API only)' },
          // Named by the operations' scopes; completed (its flow's scopes) by finishDocument.
          oauth2: { type: 'oauth2', flows: { clientCredentials: { tokenUrl: `${config.publicBaseUrl}/oauth/token`, scopes: {} } } },
        },
      },
      security: [{ bearerAuth: [] }],
    },
    // Operation ids, headers, named schemas, OAuth2 and the error codes (src/faces/docs/openapi.ts), then request
    // examples per operation (curl and the SDK) from the route schemas (src/faces/docs/docs.ts), then the real exchanges
    // the samples had as the bodies' and answers' examples (src/faces/docs/examples.ts).
    transformObject: (documentObject) =>
      'openapiObject' in documentObject
        ? addRecordedExamples(addCodeSamples(finishDocument(documentObject.openapiObject, { consumes, tokenUrl: `${config.publicBaseUrl}/oauth/token`, scopes: ALL_SCOPES }), config.audience))
        : documentObject.swaggerObject,
  });
  await app.register(swaggerUi, { routePrefix: '/docs', staticCSP: true, ...swaggerUiBranding() });

  const redis = config.redisUrl ? new Redis(config.redisUrl, { maxRetriesPerRequest: 1, enableOfflineQueue: false, lazyConnect: false }) : undefined;
  // The shared rate-limit store's connection ends with the app (else it keeps the process alive).
  if (redis) app.addHook('onClose', async () => void redis.disconnect());
  await app.register(rateLimit, {
    global: true,
    max: config.rateLimitPerSecond,
    timeWindow: 1000,
    enableDraftSpec: true,
    keyGenerator: (req) => req.ip,
    ...(redis ? { redis, nameSpace: 'corridor-rl:', skipOnError: true } : {}),
    errorResponseBuilder: (_req, context) =>
      new AppError({
        status: 429,
        code: 'RATE_LIMITED',
        message: `Rate limit exceeded: retry in ${Math.ceil(context.ttl / 1000)} s`,
        retryable: true,
      }),
  });

  // Document every route's error shapes from the same place that renders them.
  app.addHook('onRoute', (route: RouteOptions) => {
    const auth = route.config?.auth ?? 'none';
    // Anyone may send to an unauthenticated endpoint: a small body limit there (a route may set its own).
    if (takesAnyone(route) && route.bodyLimit === undefined) route.bodyLimit = config.limits.unauthenticatedBodyBytesMax;
    const schema = (route.schema ??= {}) as Record<string, unknown>;
    if (auth === 'none' && !schema.security) schema.security = [];
    // Each operation declares the scope it needs: OAuth2 first (the flow a client uses), the pasted token beside it.
    const scope = route.config?.scope;
    if (auth === 'workspace' && scope && !schema.security) schema.security = [{ oauth2: [scope] }, { bearerAuth: [] }];
    const response = (schema.response ??= {}) as Record<string, unknown>;
    const url = route.url;
    const shape = usesProblemDetails(url)
      ? { content: { 'application/problem+json': { schema: ProblemSchema } }, description: 'Problem details (RFC 9457)' }
      : { content: { 'application/json': { schema: Type.Union([ValidationErrorSchema, LegacyErrorSchema]) } }, description: 'Validation envelope (with details) or legacy envelope' };
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    const openapiPath = url.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
    if (Array.isArray(schema.consumes) && !schema.body) for (const m of methods) consumes.set(`${m} ${openapiPath}`, schema.consumes as string[]);
    // A body whose fields are all optional may be left out: it is then `{}` (and the document says it is not required).
    if (schema.body && acceptsEmptyObject(schema.body)) {
      const defaultBody = async (req: FastifyRequest) => {
        req.body ??= {};
      };
      route.preValidation = [...(route.preValidation ? [route.preValidation].flat() : []), defaultBody] as RouteOptions['preValidation'];
    }
    if (!response['4xx'] && url !== '/oauth/token') response['4xx'] = shape;
    if (auth !== 'none' && !response[401]) response[401] = { description: 'Missing, invalid or expired token', content: { 'application/json': { schema: UnauthorizedSchema } } };
    if (!response['5xx']) response['5xx'] = { content: { 'application/problem+json': { schema: ProblemSchema } }, description: 'Problem details' };
  });

  await app.register(authPlugin, { ctx, redis });
  // Request logs: buffered as answers leave, written in batches (src/controls/request-logs).
  const requestLogRecorder = new RequestLogRecorder(ctx.db, ctx.log, { flushMs: config.requestLogFlushMs, batchMax: 500, bufferMax: 20_000 });
  requestLogRecorder.start();
  recordRequests(app, requestLogRecorder);
  app.addHook('onClose', async () => requestLogRecorder.close());
  // Before any route is added: operator routes are audited wherever they are defined.
  auditOperatorCalls(app, ctx);

  app.setErrorHandler(async (err, req, reply) => {
    const appError = toAppError(err, { ...config.limits, bodyLimit: req.routeOptions.bodyLimit });
    if (appError.status === 503) req.log.warn({ err }, 'database unavailable');
    else if (appError.status >= 500) req.log.error({ err }, 'request failed');
    // A refusal of a keyed POST is an answer to its key too (DESIGN: completed 4xx answers are stored and replayed).
    const stored = await storeRefusal(ctx, req, appError).catch((storeErr: unknown) => {
      req.log.warn({ err: storeErr }, 'refusal not stored under its Idempotency-Key');
      return undefined;
    });
    if (stored) return sendAnswer(reply, stored.answer, stored.replayed);
    return sendError(reply, renderError(appError, req));
  });
  app.setNotFoundHandler({ preHandler: app.rateLimit() }, async (req, reply) =>
    sendError(reply, renderError(new AppError({ status: 404, code: 'NOT_FOUND', message: `Route ${req.method} ${req.url.split('?')[0]} not found` }), req)),
  );

  // Module routes see request types inferred from their TypeBox schemas (types only: validation stays with the Ajv compilers above).
  const routes = app.withTypeProvider<TypeBoxRequestTypeProvider>();
  serviceRoutes(routes, ctx);
  authRoutes(routes, ctx);
  accountRoutes(routes, ctx);
  operatorRoutes(routes, ctx);
  ledgerRoutes(routes, ctx);
  fxRoutes(routes, ctx);
  operatorLedgerRoutes(routes, ctx);
  sandboxRoutes(routes, ctx);
  payoutRoutes(routes, ctx);
  approvalRoutes(routes, ctx);
  recipientCheckRoutes(routes, ctx);
  beneficiaryRoutes(routes, ctx);
  corridorRoutes(routes, ctx);
  webhookRoutes(routes, ctx);
  requestLogRoutes(routes, ctx);
  eventRoutes(routes, ctx);
  const storage = createStorage(ctx.config, ctx.box);
  uploadRoutes(routes, ctx, storage);
  applicationRoutes(routes, ctx, storage);
  virtualAccountRoutes(routes, ctx);
  depositRoutes(routes, ctx);
  reconciliationRoutes(routes, ctx);
  capabilityRoutes(routes, ctx);
  orderRoutes(routes, ctx, storage);
  bankRoutes(routes, ctx);
  clearBankRoutes(routes, ctx);
  chainRoutes(routes, ctx);
  mobileMoneyRoutes(routes, ctx);
  paystackRoutes(routes, ctx);
  userRoutes(routes, ctx);
  screeningRoutes(routes, ctx);
  alertRoutes(routes, ctx, registryOf(ctx.connectors).alertSources());

  await registerWeb(app, webOptions(ctx, redis), (scope, web) => {
    dashboardPages(scope, web, storage);
    consolePages(scope, web, storage);
  });

  app.get('/openapi.json', { config: { auth: 'none' }, schema: { hide: true } }, async () => app.swagger());
  // The main flow as an Arazzo 1.0 workflow, beside the OpenAPI document it names operations of.
  app.get('/arazzo.json', { config: { auth: 'none' }, schema: { hide: true } }, async () => arazzoDocument(config.publicBaseUrl, config.audience));
  // The error-code catalogue (src/platform/http/error-catalogue.ts), for people and for tools.
  app.get('/docs/errors', { config: { auth: 'none' }, schema: { hide: true } }, async (_req, reply) =>
    reply.type('text/html; charset=utf-8').header('content-security-policy', "default-src 'none'; frame-ancestors 'none'").send(errorCataloguePage()),
  );
  app.get('/docs/errors.json', { config: { auth: 'none' }, schema: { hide: true } }, async () => ({ object: 'error_code.list', data: ERROR_CODES }));
  return app;
}
