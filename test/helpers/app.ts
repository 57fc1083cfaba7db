import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildApp } from '../../src/app.js';
import { bootstrap } from '../../src/cli/bootstrap.js';
import { loadConfig, type Config } from '../../src/platform/config.js';
import type { AppContext } from '../../src/platform/context.js';
import { connect, type Db } from '../../src/platform/db/db.js';
import type { Migration } from '../../src/platform/db/migrate.js';
import { CONNECTORS_PRESENT, createLogger, openContext } from '../../src/runtime.js';
import type { ConnectorDefinition } from '../../src/connectors/definition.js';
import { ledgerInvariantViolations } from '../../src/domains/ledger/ledger.service.js';
import { freePort } from './processes.js';
import { freshPostgresDatabase as freshDatabase } from '../../support/postgres.js';

/** The PostgreSQL server tests run against when set; otherwise the embedded database. */
export const postgresUrl = process.env.TEST_DATABASE_URL || process.env.DATABASE_URL || undefined;
export const onPostgres = postgresUrl !== undefined;

export const OPERATOR_KEY = 'op_test_key_0123456789';

/** A fresh, empty PostgreSQL database beside the one `adminUrl` names (default: the test server); dropped by the returned function. */
export function freshPostgresDatabase(adminUrl = postgresUrl, prefix = 'corridor_t'): Promise<{ url: string; drop: () => Promise<void> }> {
  return freshDatabase(adminUrl, prefix);
}

/** A database of its own, not migrated: PGlite in memory, or a fresh PostgreSQL database (dropped by `close`). */
export async function blankDatabase(poolMax = 4): Promise<{ db: Db; url: string | undefined; close: () => Promise<void> }> {
  const pgdb = onPostgres ? await freshPostgresDatabase() : undefined;
  const db = await connect({ databaseUrl: pgdb?.url, dataDir: 'memory://', poolMax });
  return {
    db,
    url: pgdb?.url,
    close: async () => {
      await db.close();
      await pgdb?.drop();
    },
  };
}

export interface TestApp {
  app: FastifyInstance;
  ctx: AppContext;
  config: Config;
  /** The env the app was built from (to build a second process on the same database). */
  env: Record<string, string>;
  close: () => Promise<void>;
}

export interface TestAppOptions {
  env?: Record<string, string>;
  /** Register extra routes before the app is ready (to exercise cross-cutting machinery). */
  beforeReady?: (app: FastifyInstance, ctx: AppContext) => void;
  /** Reuse the database of another test app. */
  databaseUrl?: string;
  logStream?: NodeJS.WritableStream;
  /** Connectors present besides those of the build (runtime.ts CONNECTORS_PRESENT), for a connector of the test's own. */
  connectors?: readonly ConnectorDefinition[];
  /** The migrations applied at start (default: all of this release's): an earlier release's schema, for a rolling upgrade. */
  migrations?: Migration[];
}

/** The migrated embedded database test/global-setup.ts dumped, read once per worker (a Blob is read again by each app). */
let pgliteTemplateBlob: Blob | undefined;
function pgliteTemplate(): Blob | undefined {
  const file = process.env.CORRIDOR_TEST_PGLITE_TEMPLATE;
  if (file && !pgliteTemplateBlob) pgliteTemplateBlob = new Blob([fs.readFileSync(file)]);
  return pgliteTemplateBlob;
}

/** Builds the whole application on a database of its own (PGlite in memory, or a fresh PostgreSQL database). */
export async function createTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  // On PostgreSQL, a copy of the migrated database test/global-setup.ts made (CREATE DATABASE … TEMPLATE: migrating takes seconds, copying a tenth of one).
  const pgdb = options.databaseUrl ? undefined : onPostgres ? await freshDatabase(postgresUrl, 'corridor_t', process.env.CORRIDOR_TEST_PG_TEMPLATE) : undefined;
  const databaseUrl = options.databaseUrl ?? pgdb?.url;
  const env: Record<string, string> = {
    CORRIDOR_ENV: 'sandbox',
    CORRIDOR_DATA_DIR: 'memory://',
    CORRIDOR_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    CORRIDOR_BOOTSTRAP_OPERATOR_KEY: OPERATOR_KEY,
    RATE_LIMIT_PER_SECOND: '1000000',
    TOKEN_RATE_LIMIT_PER_MINUTE: '1000000',
    AUTH_FAILURE_LIMIT_PER_MINUTE: '1000000',
    LOG_LEVEL: 'silent',
    PUBLIC_BASE_URL: 'http://127.0.0.1:8080',
    ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
    ...options.env,
  };
  const config = loadConfig(env);
  // The process's own logger (its serializers and redaction), written where the test wants it.
  const log = createLogger(config.logLevel, options.logStream ?? process.stdout);
  // On PGlite, a copy of the migrated database test/global-setup.ts made (initdb once, not per app).
  const template = databaseUrl ? undefined : pgliteTemplate();
  const ctx = await openContext(config, log, { ...(template ? { memoryTemplate: template } : {}), connectors: [...CONNECTORS_PRESENT, ...(options.connectors ?? [])], ...(options.migrations ? { migrations: options.migrations } : {}) });
  await bootstrap(ctx);
  const app = await buildApp(ctx);
  options.beforeReady?.(app, ctx);
  await app.ready();
  return {
    app,
    ctx,
    config,
    env,
    close: async () => {
      // After every test file: the whole ledger still balances.
      const violations = await ledgerInvariantViolations(ctx.db);
      if (violations.length) throw new Error(`ledger invariants broken: ${JSON.stringify(violations)}`);
      await app.close();
      await ctx.db.close();
      await pgdb?.drop();
    },
  };
}

export interface Caller {
  workspaceId: string;
  clientId: string;
  clientSecret: string;
  token: string;
  request: (method: InjectOptions['method'], url: string, body?: unknown, headers?: Record<string, string>) => Promise<LightMyRequestResponse>;
}

export async function operator(app: FastifyInstance, method: InjectOptions['method'], url: string, body?: unknown): Promise<LightMyRequestResponse> {
  return app.inject({ method, url, headers: { authorization: `Bearer ${OPERATOR_KEY}` }, ...(body === undefined ? {} : { payload: body as object }) });
}

export async function getToken(app: FastifyInstance, clientId: string, clientSecret: string): Promise<string> {
  const res = await app.inject({
    method: 'POST',
    url: '/oauth/token',
    payload: { client_id: clientId, client_secret: clientSecret, audience: 'corridor-api', grant_type: 'client_credentials' },
  });
  if (res.statusCode !== 200) throw new Error(`token exchange failed: ${res.statusCode} ${res.body}`);
  return res.json<{ access_token: string }>().access_token;
}

/** A new workspace made through the operator API, with a credential (all scopes unless given) and a token. */
export async function newWorkspace(app: FastifyInstance, options: { name?: string; country?: string; scopes?: string[] } = {}): Promise<Caller> {
  const ws = await operator(app, 'POST', '/operator/v1/workspaces', { name: options.name ?? 'Acme Ltd', country: options.country ?? 'GB' });
  if (ws.statusCode !== 201) throw new Error(`workspace create failed: ${ws.body}`);
  return newCredential(app, ws.json<{ id: string }>().id, options.scopes);
}

/** Another credential of a workspace, made through the operator API (all scopes unless given), with a token. */
export async function newCredential(app: FastifyInstance, workspaceId: string, scopes?: string[]): Promise<Caller> {
  const cred = await operator(app, 'POST', `/operator/v1/workspaces/${workspaceId}/credentials`, scopes ? { scopes } : {});
  if (cred.statusCode !== 201) throw new Error(`credential create failed: ${cred.body}`);
  const { clientId, clientSecret } = cred.json<{ clientId: string; clientSecret: string }>();
  const token = await getToken(app, clientId, clientSecret);
  return {
    workspaceId,
    clientId,
    clientSecret,
    token,
    request: (method, url, body, headers = {}) =>
      app.inject({
        method,
        url,
        headers: { authorization: `Bearer ${token}`, ...headers },
        ...(body === undefined ? {} : { payload: body as object }),
      }),
  };
}

/**
 * A test app listening on a free port that is also its PUBLIC_BASE_URL, so the upload URLs it issues
 * can be PUT to for real over HTTP.
 */
export async function listeningTestApp(env: Record<string, string> = {}, options: Pick<TestAppOptions, 'connectors'> = {}): Promise<TestApp> {
  const port = await freePort();
  const app = await createTestApp({ env: { PUBLIC_BASE_URL: `http://127.0.0.1:${port}`, ...env }, ...options });
  await app.app.listen({ host: '127.0.0.1', port });
  return app;
}

/** A production test app (PostgreSQL only) with local uploads in a directory of its own, removed at close. */
export async function productionTestApp(): Promise<TestApp> {
  const uploadDir = fs.mkdtempSync(path.join(os.tmpdir(), 'corridor-uploads-'));
  const t = await createTestApp({ env: { CORRIDOR_ENV: 'production', UPLOAD_DIR: uploadDir } });
  return {
    ...t,
    close: async () => {
      await t.close();
      fs.rmSync(uploadDir, { recursive: true, force: true });
    },
  };
}
