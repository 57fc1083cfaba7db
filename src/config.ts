import path from 'node:path';

/** Every setting and every named limit, typed, read once from the environment. */
export interface Config {
  env: 'sandbox' | 'production';
  host: string;
  port: number;
  publicBaseUrl: string;
  dataDir: string;
  databaseUrl: string | undefined;
  redisUrl: string | undefined;
  audience: string;
  encryptionKey: string | undefined;
  bootstrap: {
    clientId: string | undefined;
    clientSecret: string | undefined;
    operatorKey: string | undefined;
  };
  sandboxFunding: string;
  logLevel: string;
  rateLimitPerSecond: number;
  tokenRateLimitPerMinute: number;
  sandboxStepMs: number;
  webhookRetryDelaysMs: number[];
  webhookTimeoutMs: number;
  webhookAllowPrivateNetworks: boolean;
  /** PEM file of extra CAs trusted for webhook endpoints (beside the system store and NODE_EXTRA_CA_CERTS). */
  webhookCaFile: string | undefined;
  /** Concurrent delivery attempts per endpoint, and in total, per worker process. */
  webhookEndpointConcurrency: number;
  webhookInFlightMax: number;
  orderFundingWindowMs: number;
  termsVersion: string;
  /** FX: mid-rate overrides (`USD:0.92,...`, EUR per unit), the spread in basis points, quote lifetime. */
  fxRates: string | undefined;
  fxSpreadBps: number;
  fxQuoteLifetimeMs: number;
  /** Named limits. A loop, list or queue without a bound is a bug. */
  limits: {
    pageLimitDefault: number;
    pageLimitMax: number;
    bodyBytesMax: number;
    idempotencyKeyLengthMax: number;
    idempotencyTtlMs: number;
    tokenLifetimeSec: number;
    requestTimeoutMs: number;
    headersTimeoutMs: number;
    keepAliveTimeoutMs: number;
    connectionTimeoutMs: number;
    shutdownGraceMs: number;
    /** Jobs one worker claims at once and holds at most. */
    jobBatchMax: number;
    /** Jobs of one kind a batch handler gets in one call (one transaction); a claim's worth is split into calls of this size, run side by side. */
    jobHandlerBatchMax: number;
    /** Credentials and sub-accounts each API process remembers between announced changes. */
    authCacheEntriesMax: number;
    /** Rows of one batch POST /v1/payouts. */
    payoutBatchRowsMax: number;
    jobAttemptsMax: number;
    jobLeaseMs: number;
    jobPollMs: number;
    dbPoolMax: number;
    webhookAttemptsMax: number;
    webhookEndpointsMax: number;
    webhookUrlLengthMax: number;
    webhookResponseExcerptBytesMax: number;
    webhookDispatchBatchMax: number;
    /** The outbox is polled at least this often (an empty poll reads an empty partial index). */
    webhookDispatchPollMs: number;
    webhookClaimEndpointsMax: number;
  };
}

function int(value: string | undefined, fallback: number, name: string): number {
  if (value === undefined || value === '') return fallback;
  const n = Number(value);
  if (!Number.isSafeInteger(n) || n < 0) throw new Error(`${name} must be a non-negative integer, got "${value}"`);
  return n;
}

function bool(value: string | undefined, fallback: boolean, name: string): boolean {
  if (value === undefined || value === '') return fallback;
  if (/^(1|true|yes|on)$/i.test(value)) return true;
  if (/^(0|false|no|off)$/i.test(value)) return false;
  throw new Error(`${name} must be true or false, got "${value}"`);
}

function intList(value: string | undefined, fallback: number[], name: string): number[] {
  if (value === undefined || value === '') return fallback;
  return value.split(',').map((part) => int(part.trim(), 0, name));
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const corridorEnv = env.CORRIDOR_ENV ?? 'sandbox';
  if (corridorEnv !== 'sandbox' && corridorEnv !== 'production') {
    throw new Error(`CORRIDOR_ENV must be sandbox or production, got "${corridorEnv}"`);
  }
  const host = env.HOST || '127.0.0.1';
  const port = int(env.PORT, 8080, 'PORT');
  const sandbox = corridorEnv === 'sandbox';
  return {
    env: corridorEnv,
    host,
    port,
    publicBaseUrl: (env.PUBLIC_BASE_URL || `http://${host.includes(':') ? `[${host}]` : host}:${port}`).replace(/\/+$/, ''),
    dataDir: env.CORRIDOR_DATA_DIR === 'memory://' ? 'memory://' : path.resolve(env.CORRIDOR_DATA_DIR || './.corridor'),
    databaseUrl: env.DATABASE_URL || undefined,
    redisUrl: env.REDIS_URL || undefined,
    audience: env.CORRIDOR_AUDIENCE || 'corridor-api',
    encryptionKey: env.CORRIDOR_ENCRYPTION_KEY || undefined,
    bootstrap: {
      clientId: env.CORRIDOR_BOOTSTRAP_CLIENT_ID || undefined,
      clientSecret: env.CORRIDOR_BOOTSTRAP_CLIENT_SECRET || undefined,
      operatorKey: env.CORRIDOR_BOOTSTRAP_OPERATOR_KEY || undefined,
    },
    sandboxFunding: env.CORRIDOR_SANDBOX_FUNDING ?? 'EUR:100000,USD:100000,GBP:100000,NGN:50000000,USDC:100000',
    logLevel: env.LOG_LEVEL || 'info',
    rateLimitPerSecond: int(env.RATE_LIMIT_PER_SECOND, 100, 'RATE_LIMIT_PER_SECOND'),
    tokenRateLimitPerMinute: int(env.TOKEN_RATE_LIMIT_PER_MINUTE, 60, 'TOKEN_RATE_LIMIT_PER_MINUTE'),
    sandboxStepMs: int(env.SANDBOX_STEP_MS, 1000, 'SANDBOX_STEP_MS'),
    webhookRetryDelaysMs: intList(env.WEBHOOK_RETRY_DELAYS_MS, [60000, 120000, 240000, 480000, 960000], 'WEBHOOK_RETRY_DELAYS_MS'),
    webhookTimeoutMs: int(env.WEBHOOK_TIMEOUT_MS, 30000, 'WEBHOOK_TIMEOUT_MS'),
    webhookAllowPrivateNetworks: bool(env.WEBHOOK_ALLOW_PRIVATE_NETWORKS, sandbox, 'WEBHOOK_ALLOW_PRIVATE_NETWORKS'),
    webhookCaFile: env.WEBHOOK_CA_FILE || undefined,
    webhookEndpointConcurrency: Math.max(1, int(env.WEBHOOK_ENDPOINT_CONCURRENCY, 16, 'WEBHOOK_ENDPOINT_CONCURRENCY')),
    webhookInFlightMax: Math.max(1, int(env.WEBHOOK_IN_FLIGHT_MAX, 256, 'WEBHOOK_IN_FLIGHT_MAX')),
    orderFundingWindowMs: int(env.ORDER_FUNDING_WINDOW_MS, 86_400_000, 'ORDER_FUNDING_WINDOW_MS'),
    termsVersion: env.CORRIDOR_TERMS_VERSION || '1',
    fxRates: env.FX_RATES || undefined,
    fxSpreadBps: int(env.FX_SPREAD_BPS, 50, 'FX_SPREAD_BPS'),
    fxQuoteLifetimeMs: int(env.FX_QUOTE_LIFETIME_MS, 30_000, 'FX_QUOTE_LIFETIME_MS'),
    limits: {
      pageLimitDefault: 20,
      pageLimitMax: 100,
      bodyBytesMax: 1024 * 1024,
      idempotencyKeyLengthMax: 255,
      idempotencyTtlMs: int(env.IDEMPOTENCY_TTL_MS, 24 * 3600 * 1000, 'IDEMPOTENCY_TTL_MS'),
      tokenLifetimeSec: 86400,
      requestTimeoutMs: int(env.REQUEST_TIMEOUT_MS, 30_000, 'REQUEST_TIMEOUT_MS'),
      headersTimeoutMs: int(env.HEADERS_TIMEOUT_MS, 10_000, 'HEADERS_TIMEOUT_MS'),
      keepAliveTimeoutMs: int(env.KEEP_ALIVE_TIMEOUT_MS, 5_000, 'KEEP_ALIVE_TIMEOUT_MS'),
      connectionTimeoutMs: int(env.CONNECTION_TIMEOUT_MS, 60_000, 'CONNECTION_TIMEOUT_MS'),
      shutdownGraceMs: int(env.SHUTDOWN_GRACE_MS, 10_000, 'SHUTDOWN_GRACE_MS'),
      jobBatchMax: int(env.JOB_BATCH_MAX, 100, 'JOB_BATCH_MAX'),
      jobHandlerBatchMax: int(env.JOB_HANDLER_BATCH_MAX, 25, 'JOB_HANDLER_BATCH_MAX'),
      authCacheEntriesMax: 10_000,
      payoutBatchRowsMax: 100,
      jobAttemptsMax: 10,
      jobLeaseMs: int(env.JOB_LEASE_MS, 60_000, 'JOB_LEASE_MS'),
      jobPollMs: int(env.JOB_POLL_MS, 250, 'JOB_POLL_MS'),
      dbPoolMax: int(env.DB_POOL_MAX, 20, 'DB_POOL_MAX'),
      webhookAttemptsMax: 6,
      webhookEndpointsMax: 20,
      webhookUrlLengthMax: 2048,
      webhookResponseExcerptBytesMax: 4096,
      webhookDispatchBatchMax: 500,
      webhookDispatchPollMs: 50,
      webhookClaimEndpointsMax: 1000,
    },
  };
}
