import os from 'node:os';
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
  /** Failed operator-key and token-endpoint authentications per client IP per minute, before 429. */
  authFailureLimitPerMinute: number;
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
  /** How long the desk has to execute a funded order before it fails with `review_expired`. */
  orderExecutionWindowMs: number;
  /**
   * The desk's collection details per source currency (bank details or a deposit address), from
   * ORDER_SETTLEMENT_INSTRUCTIONS (JSON). Unset: the sandbox's built-in details; none in production,
   * where settlement funding is then unavailable.
   */
  orderSettlementInstructions: Record<string, Record<string, string>> | undefined;
  /** Dashboard and console sessions, invitations and sign-in attempts (src/web). */
  web: {
    /** A session ends after this long without a request. */
    sessionIdleMs: number;
    /** A session ends this long after sign-in, however active. */
    sessionAbsoluteMs: number;
    /** An invitation link works this long. */
    invitationTtlMs: number;
    /** Failed sign-ins per account, and per address, in 15 minutes before further attempts are refused. */
    signInFailuresMax: number;
  };
  termsVersion: string;
  /** Where the current terms are published (GET /v2/terms). */
  termsUrl: string;
  /** Local uploads (encrypted at rest): `<CORRIDOR_DATA_DIR>/uploads`, or UPLOAD_DIR. */
  uploadDir: string;
  /** Lifetime of a signed upload URL. */
  uploadUrlTtlMs: number;
  /** S3-compatible storage for uploads when S3_BUCKET is set; local files otherwise. */
  s3: { endpoint: string | undefined; bucket: string; region: string; accessKeyId: string | undefined; secretAccessKey: string | undefined; forcePathStyle: boolean } | undefined;
  /** FX: mid-rate overrides (`USD:0.92,...`, EUR per unit), the spread in basis points, quote lifetime. */
  fxRates: string | undefined;
  fxSpreadBps: number;
  fxQuoteLifetimeMs: number;
  /**
   * How long rows of the append-only tables are kept, in days (0: for ever), and how the recurring
   * `retention.sweep` job deletes older ones: at most `batchRows` rows per statement and
   * `statementsPerRunMax` statements per table per run (src/jobs/retention.ts).
   */
  retention: {
    /** Events (GET /v1/events, the webhook outbox); at least 30. An event is kept while a delivery of it is. */
    eventsDays: number;
    /** Finished webhook deliveries and their attempts; a pending one is never deleted. */
    webhookDeliveriesDays: number;
    /** FX quotes used or expired that no conversion references (a conversion keeps its quote). */
    fxQuotesDays: number;
    /** Jobs that failed for good (finished jobs are deleted when they finish). */
    failedJobsDays: number;
    /** The operator audit log: kept unless set. */
    auditLogDays: number;
    batchRows: number;
    statementsPerRunMax: number;
  };
  /** Named limits. A loop, list or queue without a bound is a bug. */
  limits: {
    pageLimitDefault: number;
    pageLimitMax: number;
    /** The events about one object shown on its timeline (a payout's page), oldest first. */
    timelineEventsMax: number;
    /** The webhook deliveries of the events of one page (an event's, or a payout's timeline). */
    eventDeliveriesMax: number;
    bodyBytesMax: number;
    idempotencyKeyLengthMax: number;
    idempotencyTtlMs: number;
    /** Lifetime of an access token (TOKEN_LIFETIME_SEC); an open event stream ends at its token's expiry. */
    tokenLifetimeSec: number;
    /** Client addresses whose failed authentications are remembered at once (oldest forgotten first). */
    authFailureAddressesMax: number;
    /** Operator keys still stored as scrypt (earlier releases) tried per presented key. */
    legacyOperatorKeysMax: number;
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
    /** Payout requests waiting for a group commit, in all lanes; past it 503 with Retry-After. */
    payoutQueueMax: number;
    /** Payout rows one group commit takes at most (a batch request counts its rows). */
    payoutCommitRowsMax: number;
    /** Group-commit lanes of payout creation per API process (requests of one workspace share a lane). */
    payoutLanes: number;
    jobAttemptsMax: number;
    jobLeaseMs: number;
    jobPollMs: number;
    dbPoolMax: number;
    /** How long a request waits for a PostgreSQL connection before it is answered 503. */
    dbConnectTimeoutMs: number;
    /** Retry-After of a 503 answered while the database cannot be reached. */
    unavailableRetryAfterSec: number;
    webhookAttemptsMax: number;
    webhookEndpointsMax: number;
    webhookUrlLengthMax: number;
    webhookResponseExcerptBytesMax: number;
    webhookDispatchBatchMax: number;
    /** The outbox is polled at least this often (an empty poll reads an empty partial index). */
    webhookDispatchPollMs: number;
    webhookClaimEndpointsMax: number;
    /** Field errors listed in one error body (`details` / `errors`); the rest are counted, not listed. */
    errorDetailsMax: number;
    /** JSON bodies nested deeper than this are refused before validation. */
    jsonDepthMax: number;
    /**
     * An invalid body is validated again to list every failing field only when it holds at most
     * this many values; a larger one is answered with the first failure (validation stops early).
     */
    validationReportValuesMax: number;
    /** The largest upload (KYB documents, proofs of payment). */
    uploadBytesMax: number;
    /** A repeat virtual account request within this long of the issuer's last refusal is answered from it (spec §Limits: 10 minutes). */
    virtualAccountRefusalMemoMs: number;
    /** Open GET /v1/events/stream connections per workspace in one API process; 429 past it. */
    eventStreamsPerWorkspaceMax: number;
    /** A comment line on every idle event stream this often, so proxies and clients see it alive. */
    eventStreamHeartbeatMs: number;
    /** Streams catch up by query this often: the only wake-up on PGlite or while LISTEN is down, a safety net beside it. */
    eventStreamPollMs: number;
    /** Events read per catch-up query of one stream. */
    eventStreamBatchMax: number;
  };
}

/** Field errors listed in one error body; the rest are counted (`detailsOmitted` / `errorsOmitted`). */
export const ERROR_DETAILS_MAX = 50;

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

/** Events are kept at least this long (0, for ever, is allowed): clients catch up from GET /v1/events. */
const EVENTS_RETENTION_DAYS_MIN = 30;

function retentionDays(value: string | undefined, fallback: number, name: string, min = 1): number {
  const days = int(value, fallback, name);
  if (days !== 0 && days < min) throw new Error(`${name} must be 0 (keep for ever) or at least ${min} days, got "${value}"`);
  return days;
}

/** ORDER_SETTLEMENT_INSTRUCTIONS: `{"EUR": {"iban": "...", "bic": "..."}, "USDC": {"network": "...", "address": "..."}}`. */
function settlementInstructions(value: string | undefined): Record<string, Record<string, string>> | undefined {
  if (value === undefined || value === '') return undefined;
  const fail = (why: string): never => {
    throw new Error(`ORDER_SETTLEMENT_INSTRUCTIONS must be a JSON object of currency codes to objects of strings: ${why}`);
  };
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    return fail('not JSON');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return fail('not an object');
  for (const [currency, details] of Object.entries(parsed)) {
    if (!/^[A-Z]{3,10}$/.test(currency)) fail(`"${currency}" is not a currency code`);
    if (typeof details !== 'object' || details === null || Array.isArray(details) || Object.keys(details).length === 0) fail(`${currency} has no details`);
    for (const [key, text] of Object.entries(details as object)) if (typeof text !== 'string') fail(`${currency}.${key} is not a string`);
  }
  return parsed as Record<string, Record<string, string>>;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const corridorEnv = env.CORRIDOR_ENV ?? 'sandbox';
  if (corridorEnv !== 'sandbox' && corridorEnv !== 'production') {
    throw new Error(`CORRIDOR_ENV must be sandbox or production, got "${corridorEnv}"`);
  }
  const host = env.HOST || '127.0.0.1';
  const port = int(env.PORT, 8080, 'PORT');
  const sandbox = corridorEnv === 'sandbox';
  const publicBaseUrl = (env.PUBLIC_BASE_URL || `http://${host.includes(':') ? `[${host}]` : host}:${port}`).replace(/\/+$/, '');
  const termsVersion = env.CORRIDOR_TERMS_VERSION || '1';
  return {
    env: corridorEnv,
    host,
    port,
    publicBaseUrl,
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
    authFailureLimitPerMinute: int(env.AUTH_FAILURE_LIMIT_PER_MINUTE, 10, 'AUTH_FAILURE_LIMIT_PER_MINUTE'),
    sandboxStepMs: int(env.SANDBOX_STEP_MS, 1000, 'SANDBOX_STEP_MS'),
    webhookRetryDelaysMs: intList(env.WEBHOOK_RETRY_DELAYS_MS, [60000, 120000, 240000, 480000, 960000], 'WEBHOOK_RETRY_DELAYS_MS'),
    webhookTimeoutMs: int(env.WEBHOOK_TIMEOUT_MS, 30000, 'WEBHOOK_TIMEOUT_MS'),
    webhookAllowPrivateNetworks: bool(env.WEBHOOK_ALLOW_PRIVATE_NETWORKS, sandbox, 'WEBHOOK_ALLOW_PRIVATE_NETWORKS'),
    webhookCaFile: env.WEBHOOK_CA_FILE || undefined,
    webhookEndpointConcurrency: Math.max(1, int(env.WEBHOOK_ENDPOINT_CONCURRENCY, 16, 'WEBHOOK_ENDPOINT_CONCURRENCY')),
    webhookInFlightMax: Math.max(1, int(env.WEBHOOK_IN_FLIGHT_MAX, 256, 'WEBHOOK_IN_FLIGHT_MAX')),
    orderFundingWindowMs: int(env.ORDER_FUNDING_WINDOW_MS, 86_400_000, 'ORDER_FUNDING_WINDOW_MS'),
    orderExecutionWindowMs: int(env.ORDER_EXECUTION_WINDOW_MS, 3 * 86_400_000, 'ORDER_EXECUTION_WINDOW_MS'),
    orderSettlementInstructions: settlementInstructions(env.ORDER_SETTLEMENT_INSTRUCTIONS),
    web: {
      sessionIdleMs: int(env.DASHBOARD_SESSION_IDLE_MS, 30 * 60_000, 'DASHBOARD_SESSION_IDLE_MS'),
      sessionAbsoluteMs: int(env.DASHBOARD_SESSION_ABSOLUTE_MS, 12 * 3_600_000, 'DASHBOARD_SESSION_ABSOLUTE_MS'),
      invitationTtlMs: int(env.DASHBOARD_INVITATION_TTL_MS, 7 * 86_400_000, 'DASHBOARD_INVITATION_TTL_MS'),
      signInFailuresMax: Math.max(1, int(env.SIGN_IN_FAILURES_PER_15_MIN, 5, 'SIGN_IN_FAILURES_PER_15_MIN')),
    },
    termsVersion,
    termsUrl: env.CORRIDOR_TERMS_URL || `${publicBaseUrl}/terms/${termsVersion}`,
    uploadDir: path.resolve(env.UPLOAD_DIR || path.join(env.CORRIDOR_DATA_DIR === 'memory://' ? path.join(os.tmpdir(), 'corridor-memory') : env.CORRIDOR_DATA_DIR || './.corridor', 'uploads')),
    uploadUrlTtlMs: int(env.UPLOAD_URL_TTL_MS, 900_000, 'UPLOAD_URL_TTL_MS'),
    s3: env.S3_BUCKET
      ? {
          endpoint: env.S3_ENDPOINT || undefined,
          bucket: env.S3_BUCKET,
          region: env.S3_REGION || 'us-east-1',
          accessKeyId: env.S3_ACCESS_KEY_ID || undefined,
          secretAccessKey: env.S3_SECRET_ACCESS_KEY || undefined,
          forcePathStyle: bool(env.S3_FORCE_PATH_STYLE, false, 'S3_FORCE_PATH_STYLE'),
        }
      : undefined,
    fxRates: env.FX_RATES || undefined,
    fxSpreadBps: int(env.FX_SPREAD_BPS, 50, 'FX_SPREAD_BPS'),
    fxQuoteLifetimeMs: int(env.FX_QUOTE_LIFETIME_MS, 30_000, 'FX_QUOTE_LIFETIME_MS'),
    retention: {
      eventsDays: retentionDays(env.RETENTION_EVENTS_DAYS, 90, 'RETENTION_EVENTS_DAYS', EVENTS_RETENTION_DAYS_MIN),
      webhookDeliveriesDays: retentionDays(env.RETENTION_WEBHOOK_DELIVERIES_DAYS, 30, 'RETENTION_WEBHOOK_DELIVERIES_DAYS'),
      fxQuotesDays: retentionDays(env.RETENTION_FX_QUOTES_DAYS, 7, 'RETENTION_FX_QUOTES_DAYS'),
      failedJobsDays: retentionDays(env.RETENTION_FAILED_JOBS_DAYS, 30, 'RETENTION_FAILED_JOBS_DAYS'),
      auditLogDays: retentionDays(env.RETENTION_AUDIT_LOG_DAYS, 0, 'RETENTION_AUDIT_LOG_DAYS'),
      batchRows: Math.max(1, int(env.RETENTION_BATCH_ROWS, 1000, 'RETENTION_BATCH_ROWS')),
      statementsPerRunMax: 20,
    },
    limits: {
      pageLimitDefault: 20,
      pageLimitMax: 100,
      timelineEventsMax: 100,
      eventDeliveriesMax: 200,
      bodyBytesMax: 1024 * 1024,
      idempotencyKeyLengthMax: 255,
      idempotencyTtlMs: int(env.IDEMPOTENCY_TTL_MS, 24 * 3600 * 1000, 'IDEMPOTENCY_TTL_MS'),
      tokenLifetimeSec: Math.max(1, int(env.TOKEN_LIFETIME_SEC, 86400, 'TOKEN_LIFETIME_SEC')),
      authFailureAddressesMax: 100_000,
      legacyOperatorKeysMax: 20,
      requestTimeoutMs: int(env.REQUEST_TIMEOUT_MS, 30_000, 'REQUEST_TIMEOUT_MS'),
      headersTimeoutMs: int(env.HEADERS_TIMEOUT_MS, 10_000, 'HEADERS_TIMEOUT_MS'),
      keepAliveTimeoutMs: int(env.KEEP_ALIVE_TIMEOUT_MS, 5_000, 'KEEP_ALIVE_TIMEOUT_MS'),
      connectionTimeoutMs: int(env.CONNECTION_TIMEOUT_MS, 60_000, 'CONNECTION_TIMEOUT_MS'),
      shutdownGraceMs: int(env.SHUTDOWN_GRACE_MS, 10_000, 'SHUTDOWN_GRACE_MS'),
      jobBatchMax: int(env.JOB_BATCH_MAX, 100, 'JOB_BATCH_MAX'),
      jobHandlerBatchMax: int(env.JOB_HANDLER_BATCH_MAX, 25, 'JOB_HANDLER_BATCH_MAX'),
      authCacheEntriesMax: 10_000,
      payoutBatchRowsMax: 100,
      payoutQueueMax: int(env.PAYOUT_QUEUE_MAX, 5_000, 'PAYOUT_QUEUE_MAX'),
      payoutCommitRowsMax: 400,
      payoutLanes: Math.max(1, int(env.PAYOUT_LANES, 4, 'PAYOUT_LANES')),
      jobAttemptsMax: 10,
      jobLeaseMs: int(env.JOB_LEASE_MS, 60_000, 'JOB_LEASE_MS'),
      jobPollMs: int(env.JOB_POLL_MS, 250, 'JOB_POLL_MS'),
      dbPoolMax: int(env.DB_POOL_MAX, 20, 'DB_POOL_MAX'),
      dbConnectTimeoutMs: int(env.DB_CONNECT_TIMEOUT_MS, 5000, 'DB_CONNECT_TIMEOUT_MS'),
      unavailableRetryAfterSec: 2,
      webhookAttemptsMax: 6,
      webhookEndpointsMax: 20,
      webhookUrlLengthMax: 2048,
      webhookResponseExcerptBytesMax: 4096,
      webhookDispatchBatchMax: 500,
      webhookDispatchPollMs: 50,
      webhookClaimEndpointsMax: 1000,
      errorDetailsMax: ERROR_DETAILS_MAX,
      jsonDepthMax: 32,
      validationReportValuesMax: 10_000,
      uploadBytesMax: int(env.UPLOAD_BYTES_MAX, 10 * 1024 * 1024, 'UPLOAD_BYTES_MAX'),
      virtualAccountRefusalMemoMs: 600_000,
      eventStreamsPerWorkspaceMax: int(env.EVENT_STREAMS_PER_WORKSPACE_MAX, 10, 'EVENT_STREAMS_PER_WORKSPACE_MAX'),
      eventStreamHeartbeatMs: Math.max(100, int(env.EVENT_STREAM_HEARTBEAT_MS, 15_000, 'EVENT_STREAM_HEARTBEAT_MS')),
      eventStreamPollMs: Math.max(10, int(env.EVENT_STREAM_POLL_MS, 500, 'EVENT_STREAM_POLL_MS')),
      eventStreamBatchMax: 100,
    },
  };
}
