import type { FastifyBaseLogger } from 'fastify';
import { trace } from '@opentelemetry/api';
import { pino, type DestinationStream } from 'pino';
import { logSerializers, REDACTED } from './platform/lib/log-safety.js';
import type { Config } from './platform/config.js';
import type { AppContext } from './platform/context.js';
import { ach } from './connectors/ach/index.js';
import { bank } from './connectors/bank/index.js';
import { chain } from './connectors/chain/index.js';
import { clearbank } from './connectors/clearbank/index.js';
import type { ConnectorDefinition } from './connectors/definition.js';
import { fedwire } from './connectors/fedwire/index.js';
import { manual } from './connectors/manual/index.js';
import { mobileMoney } from './connectors/mobile-money/index.js';
import { paystack } from './connectors/paystack/index.js';
import { ConnectorRegistry } from './connectors/registry.js';
import { simulated } from './connectors/simulated/index.js';
import { connect } from './platform/db/db.js';
import { migrate, type Migration } from './platform/db/migrate.js';
import { CryptoBox } from './platform/lib/crypto-box.js';
import { SigningKeys } from './domains/auth/signing-keys.js';
import { StaticRateSource } from './domains/fx/rates.js';
import { payoutRails } from './domains/corridors/index.js';
import { ensureSystemAccounts } from './domains/ledger/ledger.service.js';

/** The process's logger: errors without SQL parameters, URLs without credentials (src/platform/lib/log-safety.ts). */
export function createLogger(level: string, destination?: NodeJS.WritableStream): FastifyBaseLogger {
  const options = {
    level,
    // The trace id beside the request id (reqId) in every line written inside a traced request or job.
    mixin: () => {
      const span = trace.getActiveSpan()?.spanContext();
      return span ? { traceId: span.traceId, spanId: span.spanId } : {};
    },
    serializers: logSerializers,
    redact: {
      paths: ['req.headers.authorization', 'req.headers.cookie', '*.clientSecret', '*.client_secret', '*.secret', '*.password'],
      censor: REDACTED,
    },
  };
  return destination ? pino(options, destination as DestinationStream) : pino(options);
}

/**
 * The connectors present in this build, one line each: the registry builds the ones without settings
 * and those the connectors file names, and takes their jobs, loops, reasons and health from these
 * definitions. A new connector adds its line here (docs/guides/connectors.md).
 */

export const CONNECTORS_PRESENT: readonly ConnectorDefinition[] = [simulated, manual, bank, chain, fedwire, ach, mobileMoney, paystack, clearbank];

/**
 * Opens the database (PGlite in the data directory, or PostgreSQL when DATABASE_URL is set),
 * applies migrations, and loads the keys: everything a process of any role needs. `migrations`: the
 * ones to apply (default: all of this release's); a test of a rolling upgrade passes the earlier
 * release's, to run its schema beside the new release's migration.
 */
export async function openContext(config: Config, log = createLogger(config.logLevel), options: { memoryTemplate?: Blob; connectors?: readonly ConnectorDefinition[]; migrations?: Migration[] } = {}): Promise<AppContext> {
  if (config.env === 'production' && !config.databaseUrl) {
    throw new Error(
      'CORRIDOR_ENV=production needs DATABASE_URL: the embedded database does not flush to disk on commit, so it could lose acknowledged payments.',
    );
  }
  const box = CryptoBox.load(config.encryptionKey, config.dataDir);
  // Before the database opens: a connectors file that names what does not exist refuses to start.
  const connectors = ConnectorRegistry.build({ config, box }, options.connectors ?? CONNECTORS_PRESENT);
  for (const connector of connectors.all()) await connector.checkAtStart?.();
  const db = await connect({
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    poolMax: config.limits.dbPoolMax,
    connectTimeoutMs: config.limits.dbConnectTimeoutMs,
    ...(options.memoryTemplate ? { memoryTemplate: options.memoryTemplate } : {}),
  });
  try {
    await migrate(db, box, options.migrations);
    await ensureSystemAccounts(db, payoutRails());
    const keys = await SigningKeys.init(db, box);
    return { config, db, box, keys, log, rates: new StaticRateSource(config.fxRates), connectors };
  } catch (err) {
    await db.close();
    throw err;
  }
}
