import os from 'node:os';
import path from 'node:path';
import { loadConnectorsConfig, type ConnectorsConfig } from './connectors-file.js';

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
  /** How often a worker looks at each configured chain. */
  chainPollMs: number;
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
  /** How long a payout waits for its approval before it expires (cancelled, held funds returned). */
  approvalWindowMs: number;
  /** A recipient check asked of a rail (controls/recipient-checks): how long one call may take, and how many calls before it is `unavailable`. */
  recipientCheckTimeoutMs: number;
  recipientCheckAttemptsMax: number;
  /**
   * The desk's collection details per source currency (bank details or a deposit address), from
   * ORDER_SETTLEMENT_INSTRUCTIONS (JSON). Unset: the sandbox's built-in details; none in production,
   * where settlement funding is then unavailable.
   */
  orderSettlementInstructions: Record<string, Record<string, string>> | undefined;
  /** Which connector serves which route, and each connector's own section (CORRIDOR_CONNECTORS_FILE; src/platform/connectors-file.ts). */
  connectors: ConnectorsConfig;
  /** Dashboard and console sessions, invitations and sign-in attempts (src/faces/web). */
  web: {
    /** A session ends after this long without a request. */
    sessionIdleMs: number;
    /** A session ends this long after sign-in, however active. */
    sessionAbsoluteMs: number;
    /** An invitation link works this long. */
    invitationTtlMs: number;
    /** Failed sign-ins per account, and per address, in 15 minutes before further attempts are refused. */
    signInFailuresMax: number;
    /**
     * The operator's company identity provider for the console (OpenID Connect; CONSOLE_OIDC_*), or
     * undefined: operator users then sign in with their password only. The role map is `value=role`
     * entries, parsed where it is used (src/domains/users/company-sign-in.service.ts).
     */
    consoleOidc: { issuer: string; clientId: string; clientSecret: string; roleClaim: string; roleMap: string } | undefined;
  };
  termsVersion: string;
  /** The operator's name as its documents (statements, payment confirmations) print it. */
  operatorName: string;
  /** Where the current terms are published (GET /v2/terms); by default /terms/{version}, served here. */
  termsUrl: string;
  /** The operator's terms (an HTML file) served at /terms/{version}; unset, Corridor's shipped default. */
  termsFile: string | undefined;
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
  /** How often an API process writes its buffered request logs (src/controls/request-logs). */
  requestLogFlushMs: number;
  /**
   * How long rows of the append-only tables are kept, in days (0: for ever), and how the recurring
   * `retention.sweep` job deletes older ones: at most `batchRows` rows per statement and
   * `statementsPerRunMax` statements per table per run (src/retention.ts).
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
    /** Request logs (GET /v1/request-logs): always bounded, 1 to 90 days. */
    requestLogsDays: number;
    /** Mobile-money callbacks that moved nothing (refused, or for an unknown correlation id). */
    unappliedCallbacksDays: number;
    batchRows: number;
    statementsPerRunMax: number;
  };
  /** Sanctions screening (src/controls/screening): the match threshold (0..1) and the largest list file a load takes. */
  screening: { matchThreshold: number; fileBytesMax: number };
  /** Alerts (src/controls/alerts) and the notifications that carry them to the operator (src/controls/notifications). */
  alerts: {
    /** How often a worker evaluates the alert conditions. */
    evaluateMs: number;
    /** Where alerts are mailed (none: no e-mail), from whom, through which SMTP server (smtp[s]://user:pass@host:port). */
    emailTo: string[];
    emailFrom: string;
    smtpUrl: string | undefined;
    /** The operator's URL that gets each alert as a signed POST, and the whsec_ secret it is signed with. */
    webhookUrl: string | undefined;
    webhookSecret: string | undefined;
    /** Alerts one condition may hold open at once (the rest are counted in the last one's details). */
    findingsPerConditionMax: number;
    /** Attempts at a notification before it is marked failed; notifications sent per pass. */
    notificationAttemptsMax: number;
    notificationBatchMax: number;
  };
  /** Metrics and traces (src/platform/observability). */
  observability: {
    /** How long the database-derived metrics (payout ages, queue depth, list ages) are reused between scrapes. */
    metricsSampleMs: number;
    /** OTLP HTTP endpoint traces are exported to (OTEL_EXPORTER_OTLP_ENDPOINT); unset: no tracing. */
    otlpEndpoint: string | undefined;
    serviceName: string;
    /** A port of its own serving /metrics without a key (a worker's, which serves no API); unset: none. */
    metricsPort: number | undefined;
    metricsHost: string;
  };
  /** Named limits. A loop, list or queue without a bound is a bug. */
  limits: {
    pageLimitMax: number;
    /** The events about one object shown on its timeline (a payout's page), oldest first. */
    timelineEventsMax: number;
    /** The webhook deliveries of the events of one page (an event's, or a payout's timeline). */
    eventDeliveriesMax: number;
    bodyBytesMax: number;
    /** Body limit of the routes anyone may call (token endpoint, sign-in, second factor, invitation). */
    unauthenticatedBodyBytesMax: number;
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

/**
 * One environment setting: its loader default (when it is a plain value) and what the
 * configuration reference says of it. `shown` is the default as documented when it is computed
 * (from another setting, the environment, or generated at start) rather than a plain value.
 */
export interface EnvSetting {
  readonly default?: string | number | boolean | readonly number[];
  readonly shown?: string;
  readonly description: string;
}

/**
 * Every environment variable Corridor reads, in the order docs/configuration.md lists them. The
 * loader below reads the environment only through these names and takes its defaults from here,
 * and `npm run docs:config` writes docs/configuration.md from this list (a test fails when it is
 * out of date), so the code and its reference cannot differ.
 */
export const ENV_SETTINGS = {
  PORT: { default: 8080, description: 'listen port' },
  HOST: { default: '127.0.0.1', description: 'listen address' },
  CORRIDOR_ENV: { default: 'sandbox', description: '`sandbox` or `production` (production refuses to start without `DATABASE_URL`)' },
  CORRIDOR_DATA_DIR: {
    default: './.corridor',
    description:
      'embedded database, generated encryption key, local uploads. The embedded database takes one process at a time: a second process on the same directory (e.g. `corridor workspaces create` while `npm start` serves it) exits 1 naming the process that holds `corridor.lock`; a lock whose process has died is taken over. On PostgreSQL (`DATABASE_URL`) any number of processes share the database',
  },
  DATABASE_URL: {
    description:
      'PostgreSQL; unset means the embedded database. On the database\'s own host, a Unix socket: `postgres://postgres@/corridor?host=/var/run/postgresql` (see [benchmarks](benchmarks.md)). Several servers, as libpq reads them: `postgres://corridor@db1:5432,db2:5432/corridor?target_session_attrs=read-write` connects to the first that takes writes, and after a failover to the promoted standby (see [operations](operations.md#failover))',
  },
  REDIS_URL: { description: 'shared rate-limit store for several API processes' },
  PUBLIC_BASE_URL: { shown: 'http://HOST:PORT', description: 'base of printed URLs, token issuer, upload URLs' },
  CORRIDOR_AUDIENCE: { default: 'corridor-api', description: 'the `audience` a token request must name' },
  CORRIDOR_ENCRYPTION_KEY: {
    shown: 'generated into the data dir',
    description:
      'base64 of 32 bytes; encrypts signing keys, secrets and personal data (applicants, beneficiaries, payout senders) at rest. Set it when several hosts share one database. Unset, it is read from `encryption.key` in the data dir, generated there on first start (mode 0600)',
  },
  CORRIDOR_BOOTSTRAP_CLIENT_ID: { shown: 'generated on first sandbox start', description: 'the demo workspace\'s credential id (all scopes)' },
  CORRIDOR_BOOTSTRAP_CLIENT_SECRET: { shown: 'generated on first sandbox start', description: 'the demo workspace\'s credential secret' },
  CORRIDOR_BOOTSTRAP_OPERATOR_KEY: {
    shown: 'generated on first start',
    description:
      'bearer key of the operator API. The sandbox prints it at every start; production never prints it (only whether it is configured or generated): set it to choose the key, set a new value and restart to rotate it (the previous key is revoked)',
  },
  CORRIDOR_SANDBOX_FUNDING: { default: 'EUR:100000,USD:100000,GBP:100000,NGN:50000000,USDC:100000', description: 'opening balances of the demo workspace (set but empty: none)' },
  RATE_LIMIT_PER_SECOND: { default: 100, description: 'requests per client IP per second' },
  TOKEN_RATE_LIMIT_PER_MINUTE: { default: 60, description: 'token requests per client IP per minute' },
  AUTH_FAILURE_LIMIT_PER_MINUTE: {
    default: 10,
    description:
      'failed operator-key authentications per client IP, and token-endpoint ones per client IP and `client_id`, per minute; that caller\'s further failures get 429 with `Retry-After` until the minute ends; a right key is never refused (see [security](security.md))',
  },
  SANDBOX_STEP_MS: { default: 1000, description: 'delay between simulated provider steps' },
  CHAIN_POLL_MS: {
    default: 2000,
    description: 'how often a worker looks at each configured chain (the `chains` section of the connectors file): signs and broadcasts, follows confirmations, watches deposits (see [crypto rail](guides/crypto-rail.md))',
  },
  WEBHOOK_RETRY_DELAYS_MS: { default: [60000, 120000, 240000, 480000, 960000], description: 'base delays before webhook attempts 2..6' },
  WEBHOOK_TIMEOUT_MS: { default: 30000, description: 'webhook delivery deadline' },
  WEBHOOK_ALLOW_PRIVATE_NETWORKS: { shown: 'true in sandbox, false in production', description: 'may webhook endpoints resolve to private addresses' },
  WEBHOOK_ENDPOINT_CONCURRENCY: { default: 16, description: 'webhook attempts at once per endpoint, per worker process (at least 1)' },
  WEBHOOK_IN_FLIGHT_MAX: { default: 256, description: 'webhook attempts at once in all, per worker process (at least 1)' },
  WEBHOOK_CA_FILE: { description: 'PEM of extra CAs trusted for webhook endpoints (besides the system store and `NODE_EXTRA_CA_CERTS`)' },
  ORDER_FUNDING_WINDOW_MS: { default: 86_400_000, description: 'settlement funding window of orders' },
  CORRIDOR_CONNECTORS_FILE: {
    shown: 'unset: every route on the simulator in sandbox, on the manual queue in production',
    description:
      'a JSON file naming the connector of each route (`routes`, overridden per workspace by `workspaces`) and each connector\'s own section (`bank`, `chains`, `fedwire`); checked at start (docs/guides/connectors.md)',
  },
  ORDER_SETTLEMENT_INSTRUCTIONS: {
    shown: 'built-in test details in sandbox, none in production',
    description:
      'the desk\'s collection details per source currency (JSON object of currency → bank details or `network`/`address`); a currency without them cannot be settlement-funded',
  },
  ORDER_EXECUTION_WINDOW_MS: { default: 259_200_000, description: 'how long the desk has to execute a funded order before it fails with `review_expired`' },
  APPROVAL_WINDOW_MS: { default: 259_200_000, description: 'how long a payout an approval rule holds waits for its approval before it expires: cancelled, held funds returned (at least 1000)' },
  RECIPIENT_CHECK_TIMEOUT_MS: { default: 15_000, description: 'how long a rail may take to answer a recipient (name) check before the call counts as failed and is tried again (at least 100)' },
  RECIPIENT_CHECK_ATTEMPTS_MAX: { default: 6, description: 'calls to a rail for one recipient check, with backoff, before it is recorded `unavailable` and the payout is held for its workspace to decide (at least 1)' },
  CORRIDOR_TERMS_VERSION: { default: '1', description: 'current terms version' },
  CORRIDOR_OPERATOR_NAME: { default: 'Corridor', description: 'the operator\'s name (its legal name, as a payee or an auditor should read it) printed on the documents Corridor issues: PDF statements and payment confirmations' },
  CORRIDOR_TERMS_URL: { shown: 'PUBLIC_BASE_URL/terms/<version>', description: 'where the current terms are published (`GET /v2/terms`); the default URL is served by Corridor itself' },
  CORRIDOR_TERMS_FILE: { description: 'an HTML file with the operator\'s terms, served at `/terms/<version>` (read at start); unset, a default terms page shipped with Corridor' },
  UPLOAD_DIR: { shown: 'CORRIDOR_DATA_DIR/uploads', description: 'local uploads (KYB documents), each file encrypted at rest with the encryption key' },
  UPLOAD_BYTES_MAX: { default: 10_485_760, description: 'largest upload' },
  UPLOAD_URL_TTL_MS: { default: 900_000, description: 'lifetime of a signed upload URL' },
  S3_BUCKET: { description: 'keep uploads in an S3-compatible bucket instead of local files (the other `S3_*` settings apply only when this is set)' },
  S3_ENDPOINT: { description: 'the bucket\'s endpoint, for MinIO and the like (with `S3_FORCE_PATH_STYLE=true`)' },
  S3_REGION: { default: 'us-east-1', description: 'the bucket\'s region' },
  S3_ACCESS_KEY_ID: { description: 'access key of the bucket' },
  S3_SECRET_ACCESS_KEY: { description: 'secret key of the bucket' },
  S3_FORCE_PATH_STYLE: { default: false, description: 'path-style bucket URLs (MinIO and the like)' },
  PAYOUT_QUEUE_MAX: { default: 5000, description: 'payout requests waiting for a group commit before 503 `retryable`' },
  PAYOUT_LANES: { default: 1, description: 'group-commit lanes per API process (at least 1); each lane has at most one group in flight, and more lanes split the same requests into smaller groups (more statements and commits per payout)' },
  IDEMPOTENCY_TTL_MS: { default: 86_400_000, description: 'how long a completed Idempotency-Key is remembered' },
  TOKEN_LIFETIME_SEC: { default: 86_400, description: 'lifetime of an access token from POST /oauth/token (at least 1); an open event stream ends at its token\'s expiry' },
  REQUEST_TIMEOUT_MS: { default: 30_000, description: 'slow clients cannot hold connections: deadline of a whole request' },
  HEADERS_TIMEOUT_MS: { default: 10_000, description: 'deadline for a request\'s headers' },
  KEEP_ALIVE_TIMEOUT_MS: { default: 5_000, description: 'how long an idle kept-alive connection stays open' },
  CONNECTION_TIMEOUT_MS: { default: 60_000, description: 'deadline of a connection without activity' },
  SHUTDOWN_GRACE_MS: { default: 10_000, description: 'after SIGTERM or SIGINT, how long draining may take before the process exits 1' },
  DB_POOL_MAX: { default: 20, description: 'PostgreSQL connections per process' },
  DB_CONNECT_TIMEOUT_MS: {
    default: 5000,
    description: 'how long a request waits for a PostgreSQL connection (retried with backoff while the database cannot be reached, as during a failover) before it is answered 503',
  },
  JOB_POLL_MS: { default: 250, description: 'worker polling interval' },
  JOB_LEASE_MS: { default: 60_000, description: 'how long a claimed job is leased' },
  JOB_BATCH_MAX: { default: 100, description: 'jobs a worker claims at once and holds at most' },
  JOB_HANDLER_BATCH_MAX: {
    // 100, not 25 (issue 26): one step transaction of ~100 payouts at a time waits far less on the
    // customers' balance rows than four of 25 side by side (docs/benchmarks.md, the sustained case).
    default: 100,
    description:
      'jobs of one kind a batch handler takes in one transaction, several such transactions running side by side; payout steps: the payouts a step transaction takes (a step job names at most this many)',
  },
  FX_RATES: { shown: 'built-in sandbox table', description: 'mid-rate overrides, EUR per unit: `USD:0.92,GBP:1.17`' },
  FX_SPREAD_BPS: { default: 50, description: 'spread applied to mid rates (against the customer)' },
  FX_QUOTE_LIFETIME_MS: { default: 30_000, description: 'how long a quote stays usable' },
  EVENT_STREAMS_PER_WORKSPACE_MAX: { default: 10, description: 'open `GET /v1/events/stream` connections per workspace per API process; 429 past it' },
  EVENT_STREAM_HEARTBEAT_MS: { default: 15_000, description: 'heartbeat comment on idle event streams (at least 100)' },
  EVENT_STREAM_POLL_MS: { default: 500, description: 'catch-up query interval (beside PostgreSQL LISTEN and NOTIFY; at least 10)' },
  LOG_LEVEL: { default: 'info', description: 'pino level (`silent` to mute)' },
  RETENTION_EVENTS_DAYS: { default: 90, description: 'days an event is kept (0: for ever; otherwise at least 30); kept longer while a delivery of it is' },
  RETENTION_WEBHOOK_DELIVERIES_DAYS: { default: 30, description: 'days a finished webhook delivery (and its attempts) is kept; a pending one is never deleted' },
  RETENTION_FX_QUOTES_DAYS: { default: 7, description: 'days a used or expired FX quote is kept; a quote a conversion references is kept with it' },
  RETENTION_FAILED_JOBS_DAYS: { default: 30, description: 'days a job that failed for good is kept (finished jobs are deleted when they finish)' },
  RETENTION_AUDIT_LOG_DAYS: { default: 0, description: 'days an operator audit entry is kept; 0 keeps the audit log for ever' },
  RETENTION_REQUEST_LOGS_DAYS: { default: 7, description: 'days a logged API request (the dashboard\'s Request logs, `corridor logs tail`) is kept: 1 to 90' },
  RETENTION_UNAPPLIED_CALLBACKS_DAYS: { default: 30, description: 'days a mobile-money callback that moved nothing (refused as unauthenticated, or naming a correlation id Corridor never sent) is kept; 0 keeps them for ever. Callbacks that were applied are always kept' },
  REQUEST_LOG_FLUSH_MS: { default: 1000, description: 'how often an API process writes the requests it logged, in one batch (they are never written one by one on the request\'s path)' },
  RETENTION_BATCH_ROWS: { default: 1000, description: 'rows deleted per statement by the retention job (at least 1)' },
  DASHBOARD_SESSION_IDLE_MS: { default: 1_800_000, description: 'a dashboard or console session ends after 30 minutes without a request' },
  DASHBOARD_SESSION_ABSOLUTE_MS: { default: 43_200_000, description: 'a dashboard or console session ends 12 hours after sign-in whatever happens' },
  DASHBOARD_INVITATION_TTL_MS: { default: 604_800_000, description: 'how long a dashboard invitation link works (once)' },
  CONSOLE_OIDC_ISSUER: {
    description:
      'the issuer URL of the operator\'s OpenID Connect provider: set, the console offers "Sign in with your company" (see [company sign-in](guides/company-sign-in.md)); unset, operator users sign in with their password',
  },
  CONSOLE_OIDC_CLIENT_ID: { description: 'the console\'s client id at that provider (needed with `CONSOLE_OIDC_ISSUER`)' },
  CONSOLE_OIDC_CLIENT_SECRET: { description: 'the console\'s client secret at that provider (needed with `CONSOLE_OIDC_ISSUER`)' },
  CONSOLE_OIDC_ROLE_CLAIM: { default: 'groups', description: 'the claim (a dotted path for a nested one) whose values `CONSOLE_OIDC_ROLE_MAP` maps' },
  CONSOLE_OIDC_ROLE_MAP: {
    description:
      'which values of the role claim open the console, and with which operator role: `value=role` entries (role: administrator, compliance, finance or support), comma-separated, the first that matches winning (needed with `CONSOLE_OIDC_ISSUER`); a person with none of them is refused',
  },
  SCREENING_MATCH_THRESHOLD: {
    default: 90,
    description:
      'sanctions screening: the score (in percent, 50..100) at or above which a name matches a list entry and holds the payout; see [screening](guides/screening.md)',
  },
  SCREENING_FILE_BYTES_MAX: { default: 67_108_864, description: 'the largest sanctions list file `corridor screening load` and the operator API take' },
  ALERT_EVALUATE_MS: { default: 60_000, description: 'how often a worker evaluates the alert conditions (see [operations](operations.md#alerts))' },
  ALERT_EMAIL_TO: { description: 'comma-separated addresses every alert is mailed to when it opens and when it closes (unset: no e-mail)' },
  ALERT_EMAIL_FROM: { default: 'Corridor alerts <corridor@localhost>', description: 'the sender of alert e-mails' },
  SMTP_URL: { description: 'the SMTP server alert e-mails go through: `smtp://user:pass@host:587` (STARTTLS when offered) or `smtps://…:465`' },
  ALERT_WEBHOOK_URL: { description: 'the operator\'s URL every alert is POSTed to when it opens and when it closes, signed like a workspace webhook (unset: none)' },
  ALERT_WEBHOOK_SECRET: { description: 'the `whsec_` secret alert webhooks are signed with (needed with `ALERT_WEBHOOK_URL`)' },
  METRICS_SAMPLE_MS: { default: 15_000, description: 'how long the metrics read from the database (payout ages, job queue, list ages) are reused between scrapes of `/operator/v1/metrics`' },
  OTEL_EXPORTER_OTLP_ENDPOINT: { description: 'OTLP/HTTP endpoint (e.g. `http://collector:4318`) traces are exported to; unset: no tracing. The other `OTEL_*` variables of the OpenTelemetry SDK apply' },
  OTEL_SERVICE_NAME: { default: 'corridor', description: 'the service name traces carry' },
  METRICS_PORT: { description: 'a port serving this process\'s metrics at `/metrics` without a key (how Prometheus scrapes a worker); bind it with `METRICS_HOST` to an address only monitoring reaches' },
  METRICS_HOST: { default: '127.0.0.1', description: 'the address `METRICS_PORT` listens on' },
  SIGN_IN_FAILURES_PER_15_MIN: {
    default: 5,
    description:
      'dashboard and console sign-in attempts per account and per client address, and second-factor codes per user, in 15 minutes, counted before the password or code is checked (a success is given back); further attempts are refused until the window ends; wrong console operator keys per address (a right key is never refused) (shared through `REDIS_URL`)',
  },
} as const satisfies Record<string, EnvSetting>;

export type EnvName = keyof typeof ENV_SETTINGS;
type Settings = typeof ENV_SETTINGS;
/** The settings whose default is a value of type T. */
type NamesWith<T> = { [K in EnvName]: Settings[K] extends { default: T } ? K : never }[EnvName];

/** The raw value of a declared setting (undefined when unset). */
function raw(env: NodeJS.ProcessEnv, name: EnvName): string | undefined {
  return env[name];
}

/** A number setting: its value, or its declared default when unset or empty. */
function intSetting(env: NodeJS.ProcessEnv, name: NamesWith<number>): number {
  return int(raw(env, name), ENV_SETTINGS[name].default, name);
}

/** A text setting: its value, or its declared default when unset or empty. */
function textSetting(env: NodeJS.ProcessEnv, name: NamesWith<string>): string {
  return raw(env, name) || ENV_SETTINGS[name].default;
}

/** An optional setting: its value, undefined when unset or empty. */
function optional(env: NodeJS.ProcessEnv, name: EnvName): string | undefined {
  return raw(env, name) || undefined;
}

function consoleOidcSettings(env: NodeJS.ProcessEnv): Config['web']['consoleOidc'] {
  const issuer = optional(env, 'CONSOLE_OIDC_ISSUER');
  if (!issuer) return undefined;
  const clientId = optional(env, 'CONSOLE_OIDC_CLIENT_ID');
  const clientSecret = optional(env, 'CONSOLE_OIDC_CLIENT_SECRET');
  const roleMap = optional(env, 'CONSOLE_OIDC_ROLE_MAP');
  if (!clientId || !clientSecret || !roleMap) throw new Error('CONSOLE_OIDC_ISSUER needs CONSOLE_OIDC_CLIENT_ID, CONSOLE_OIDC_CLIENT_SECRET and CONSOLE_OIDC_ROLE_MAP');
  return { issuer, clientId, clientSecret, roleClaim: textSetting(env, 'CONSOLE_OIDC_ROLE_CLAIM'), roleMap };
}

function alertSettings(env: NodeJS.ProcessEnv): Config['alerts'] {
  const webhookUrl = optional(env, 'ALERT_WEBHOOK_URL');
  const webhookSecret = optional(env, 'ALERT_WEBHOOK_SECRET');
  if (webhookUrl && !webhookSecret?.startsWith('whsec_')) throw new Error('ALERT_WEBHOOK_URL needs ALERT_WEBHOOK_SECRET, a whsec_ secret');
  const emailTo = (raw(env, 'ALERT_EMAIL_TO') ?? '').split(',').map((a) => a.trim()).filter(Boolean);
  const smtpUrl = optional(env, 'SMTP_URL');
  if (emailTo.length > 0 && !smtpUrl) throw new Error('ALERT_EMAIL_TO needs SMTP_URL');
  return {
    evaluateMs: Math.max(1000, intSetting(env, 'ALERT_EVALUATE_MS')),
    emailTo,
    emailFrom: textSetting(env, 'ALERT_EMAIL_FROM'),
    smtpUrl,
    webhookUrl,
    webhookSecret,
    findingsPerConditionMax: 100,
    notificationAttemptsMax: 10,
    notificationBatchMax: 50,
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

function intList(value: string | undefined, fallback: readonly number[], name: string): number[] {
  if (value === undefined || value === '') return [...fallback];
  return value.split(',').map((part) => int(part.trim(), 0, name));
}

/** Events are kept at least this long (0, for ever, is allowed): clients catch up from GET /v1/events. */
const EVENTS_RETENTION_DAYS_MIN = 30;

function retentionDays(env: NodeJS.ProcessEnv, name: NamesWith<number>, min = 1): number {
  const days = intSetting(env, name);
  if (days !== 0 && days < min) throw new Error(`${name} must be 0 (keep for ever) or at least ${min} days, got "${raw(env, name)}"`);
  return days;
}

/** A number of days that is always bounded (no 0 for ever). */
function boundedDays(env: NodeJS.ProcessEnv, name: NamesWith<number>, min: number, max: number): number {
  const days = intSetting(env, name);
  if (days < min || days > max) throw new Error(`${name} must be from ${min} to ${max} days, got "${raw(env, name)}"`);
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

function termsFile(value: string | undefined): string | undefined {
  return value ? path.resolve(value) : undefined;
}

/** S3-compatible storage for uploads when S3_BUCKET is set; local files otherwise. */
function s3Settings(env: NodeJS.ProcessEnv): Config['s3'] {
  const bucket = raw(env, 'S3_BUCKET');
  if (!bucket) return undefined;
  return {
    endpoint: optional(env, 'S3_ENDPOINT'),
    bucket,
    region: textSetting(env, 'S3_REGION'),
    accessKeyId: optional(env, 'S3_ACCESS_KEY_ID'),
    secretAccessKey: optional(env, 'S3_SECRET_ACCESS_KEY'),
    forcePathStyle: bool(raw(env, 'S3_FORCE_PATH_STYLE'), ENV_SETTINGS.S3_FORCE_PATH_STYLE.default, 'S3_FORCE_PATH_STYLE'),
  };
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const corridorEnv = raw(env, 'CORRIDOR_ENV') ?? ENV_SETTINGS.CORRIDOR_ENV.default;
  if (corridorEnv !== 'sandbox' && corridorEnv !== 'production') {
    throw new Error(`CORRIDOR_ENV must be sandbox or production, got "${corridorEnv}"`);
  }
  const host = textSetting(env, 'HOST');
  const port = intSetting(env, 'PORT');
  const sandbox = corridorEnv === 'sandbox';
  const publicBaseUrl = (raw(env, 'PUBLIC_BASE_URL') || `http://${host.includes(':') ? `[${host}]` : host}:${port}`).replace(/\/+$/, '');
  const termsVersion = textSetting(env, 'CORRIDOR_TERMS_VERSION');
  const dataDir = raw(env, 'CORRIDOR_DATA_DIR');
  return {
    env: corridorEnv,
    host,
    port,
    publicBaseUrl,
    dataDir: dataDir === 'memory://' ? 'memory://' : path.resolve(dataDir || ENV_SETTINGS.CORRIDOR_DATA_DIR.default),
    databaseUrl: optional(env, 'DATABASE_URL'),
    redisUrl: optional(env, 'REDIS_URL'),
    audience: textSetting(env, 'CORRIDOR_AUDIENCE'),
    encryptionKey: optional(env, 'CORRIDOR_ENCRYPTION_KEY'),
    bootstrap: {
      clientId: optional(env, 'CORRIDOR_BOOTSTRAP_CLIENT_ID'),
      clientSecret: optional(env, 'CORRIDOR_BOOTSTRAP_CLIENT_SECRET'),
      operatorKey: optional(env, 'CORRIDOR_BOOTSTRAP_OPERATOR_KEY'),
    },
    sandboxFunding: raw(env, 'CORRIDOR_SANDBOX_FUNDING') ?? ENV_SETTINGS.CORRIDOR_SANDBOX_FUNDING.default,
    logLevel: textSetting(env, 'LOG_LEVEL'),
    rateLimitPerSecond: intSetting(env, 'RATE_LIMIT_PER_SECOND'),
    tokenRateLimitPerMinute: intSetting(env, 'TOKEN_RATE_LIMIT_PER_MINUTE'),
    authFailureLimitPerMinute: intSetting(env, 'AUTH_FAILURE_LIMIT_PER_MINUTE'),
    sandboxStepMs: intSetting(env, 'SANDBOX_STEP_MS'),
    chainPollMs: Math.max(10, intSetting(env, 'CHAIN_POLL_MS')),
    webhookRetryDelaysMs: intList(raw(env, 'WEBHOOK_RETRY_DELAYS_MS'), ENV_SETTINGS.WEBHOOK_RETRY_DELAYS_MS.default, 'WEBHOOK_RETRY_DELAYS_MS'),
    webhookTimeoutMs: intSetting(env, 'WEBHOOK_TIMEOUT_MS'),
    webhookAllowPrivateNetworks: bool(raw(env, 'WEBHOOK_ALLOW_PRIVATE_NETWORKS'), sandbox, 'WEBHOOK_ALLOW_PRIVATE_NETWORKS'),
    webhookCaFile: optional(env, 'WEBHOOK_CA_FILE'),
    webhookEndpointConcurrency: Math.max(1, intSetting(env, 'WEBHOOK_ENDPOINT_CONCURRENCY')),
    webhookInFlightMax: Math.max(1, intSetting(env, 'WEBHOOK_IN_FLIGHT_MAX')),
    orderFundingWindowMs: intSetting(env, 'ORDER_FUNDING_WINDOW_MS'),
    orderExecutionWindowMs: intSetting(env, 'ORDER_EXECUTION_WINDOW_MS'),
    approvalWindowMs: Math.max(1000, intSetting(env, 'APPROVAL_WINDOW_MS')),
    recipientCheckTimeoutMs: Math.max(100, intSetting(env, 'RECIPIENT_CHECK_TIMEOUT_MS')),
    recipientCheckAttemptsMax: Math.max(1, intSetting(env, 'RECIPIENT_CHECK_ATTEMPTS_MAX')),
    orderSettlementInstructions: settlementInstructions(raw(env, 'ORDER_SETTLEMENT_INSTRUCTIONS')),
    connectors: loadConnectorsConfig(optional(env, 'CORRIDOR_CONNECTORS_FILE')),
    web: {
      sessionIdleMs: intSetting(env, 'DASHBOARD_SESSION_IDLE_MS'),
      sessionAbsoluteMs: intSetting(env, 'DASHBOARD_SESSION_ABSOLUTE_MS'),
      invitationTtlMs: intSetting(env, 'DASHBOARD_INVITATION_TTL_MS'),
      signInFailuresMax: Math.max(1, intSetting(env, 'SIGN_IN_FAILURES_PER_15_MIN')),
      consoleOidc: consoleOidcSettings(env),
    },
    termsVersion,
    operatorName: textSetting(env, 'CORRIDOR_OPERATOR_NAME'),
    termsUrl: raw(env, 'CORRIDOR_TERMS_URL') || `${publicBaseUrl}/terms/${encodeURIComponent(termsVersion)}`,
    termsFile: termsFile(raw(env, 'CORRIDOR_TERMS_FILE')),
    uploadDir: path.resolve(raw(env, 'UPLOAD_DIR') || path.join(dataDir === 'memory://' ? path.join(os.tmpdir(), 'corridor-memory') : dataDir || ENV_SETTINGS.CORRIDOR_DATA_DIR.default, 'uploads')),
    uploadUrlTtlMs: intSetting(env, 'UPLOAD_URL_TTL_MS'),
    s3: s3Settings(env),
    fxRates: optional(env, 'FX_RATES'),
    fxSpreadBps: intSetting(env, 'FX_SPREAD_BPS'),
    fxQuoteLifetimeMs: intSetting(env, 'FX_QUOTE_LIFETIME_MS'),
    requestLogFlushMs: Math.max(10, intSetting(env, 'REQUEST_LOG_FLUSH_MS')),
    retention: {
      eventsDays: retentionDays(env, 'RETENTION_EVENTS_DAYS', EVENTS_RETENTION_DAYS_MIN),
      webhookDeliveriesDays: retentionDays(env, 'RETENTION_WEBHOOK_DELIVERIES_DAYS'),
      fxQuotesDays: retentionDays(env, 'RETENTION_FX_QUOTES_DAYS'),
      failedJobsDays: retentionDays(env, 'RETENTION_FAILED_JOBS_DAYS'),
      auditLogDays: retentionDays(env, 'RETENTION_AUDIT_LOG_DAYS'),
      requestLogsDays: boundedDays(env, 'RETENTION_REQUEST_LOGS_DAYS', 1, 90),
      unappliedCallbacksDays: retentionDays(env, 'RETENTION_UNAPPLIED_CALLBACKS_DAYS'),
      batchRows: Math.max(1, intSetting(env, 'RETENTION_BATCH_ROWS')),
      statementsPerRunMax: 20,
    },
    screening: {
      matchThreshold: Math.min(100, Math.max(50, intSetting(env, 'SCREENING_MATCH_THRESHOLD'))) / 100,
      fileBytesMax: Math.max(1, intSetting(env, 'SCREENING_FILE_BYTES_MAX')),
    },
    alerts: alertSettings(env),
    observability: {
      metricsSampleMs: Math.max(0, intSetting(env, 'METRICS_SAMPLE_MS')),
      otlpEndpoint: optional(env, 'OTEL_EXPORTER_OTLP_ENDPOINT'),
      serviceName: textSetting(env, 'OTEL_SERVICE_NAME'),
      metricsPort: optional(env, 'METRICS_PORT') === undefined ? undefined : int(raw(env, 'METRICS_PORT'), 0, 'METRICS_PORT'),
      metricsHost: textSetting(env, 'METRICS_HOST'),
    },
    limits: {
      pageLimitMax: 100,
      timelineEventsMax: 100,
      eventDeliveriesMax: 200,
      bodyBytesMax: 1024 * 1024,
      unauthenticatedBodyBytesMax: 8 * 1024,
      idempotencyTtlMs: intSetting(env, 'IDEMPOTENCY_TTL_MS'),
      tokenLifetimeSec: Math.max(1, intSetting(env, 'TOKEN_LIFETIME_SEC')),
      authFailureAddressesMax: 100_000,
      legacyOperatorKeysMax: 20,
      requestTimeoutMs: intSetting(env, 'REQUEST_TIMEOUT_MS'),
      headersTimeoutMs: intSetting(env, 'HEADERS_TIMEOUT_MS'),
      keepAliveTimeoutMs: intSetting(env, 'KEEP_ALIVE_TIMEOUT_MS'),
      connectionTimeoutMs: intSetting(env, 'CONNECTION_TIMEOUT_MS'),
      shutdownGraceMs: intSetting(env, 'SHUTDOWN_GRACE_MS'),
      jobBatchMax: intSetting(env, 'JOB_BATCH_MAX'),
      jobHandlerBatchMax: intSetting(env, 'JOB_HANDLER_BATCH_MAX'),
      authCacheEntriesMax: 10_000,
      payoutBatchRowsMax: 100,
      payoutQueueMax: intSetting(env, 'PAYOUT_QUEUE_MAX'),
      payoutCommitRowsMax: 400,
      payoutLanes: Math.max(1, intSetting(env, 'PAYOUT_LANES')),
      jobLeaseMs: intSetting(env, 'JOB_LEASE_MS'),
      jobPollMs: intSetting(env, 'JOB_POLL_MS'),
      dbPoolMax: intSetting(env, 'DB_POOL_MAX'),
      dbConnectTimeoutMs: intSetting(env, 'DB_CONNECT_TIMEOUT_MS'),
      unavailableRetryAfterSec: 2,
      webhookAttemptsMax: 6,
      webhookEndpointsMax: 20,
      webhookUrlLengthMax: 2048,
      webhookResponseExcerptBytesMax: 4096,
      webhookDispatchBatchMax: 500,
      webhookDispatchPollMs: 50,
      webhookClaimEndpointsMax: 1000,
      jsonDepthMax: 32,
      validationReportValuesMax: 10_000,
      uploadBytesMax: intSetting(env, 'UPLOAD_BYTES_MAX'),
      virtualAccountRefusalMemoMs: 600_000,
      eventStreamsPerWorkspaceMax: intSetting(env, 'EVENT_STREAMS_PER_WORKSPACE_MAX'),
      eventStreamHeartbeatMs: Math.max(100, intSetting(env, 'EVENT_STREAM_HEARTBEAT_MS')),
      eventStreamPollMs: Math.max(10, intSetting(env, 'EVENT_STREAM_POLL_MS')),
      eventStreamBatchMax: 100,
    },
  };
}
