import { buildApp } from '../app.js';
import type { Config } from '../platform/config.js';
import { createRunner } from '../jobs.js';
import { openContext } from '../runtime.js';
import { serveMetrics } from '../faces/metrics/metrics-server.js';
import { bootstrap, type BootstrapResult } from './bootstrap.js';

export type Role = 'all' | 'api' | 'worker';

/**
 * The operator key's lines of the start-up block. The sandbox prints the key; production never does
 * (stdout ends up in log collectors): it says where the key comes from and how to rotate it.
 */
function operatorKeyLines(config: Config, boot: BootstrapResult): string[] {
  if (config.env === 'sandbox') return [`  Operator key  ${boot.operatorKey}`];
  const indent = '                ';
  return boot.operatorKeySource === 'configured'
    ? [
        `  Operator key  set by CORRIDOR_BOOTSTRAP_OPERATOR_KEY, not printed in production`,
        `${indent}to rotate it: set a new CORRIDOR_BOOTSTRAP_OPERATOR_KEY and restart (the previous key stops working)`,
      ]
    : [
        `  Operator key  generated at first start, not printed in production`,
        `${indent}to choose one (and to rotate it): set CORRIDOR_BOOTSTRAP_OPERATOR_KEY and restart (the previous key stops working)`,
      ];
}

/** Starts the API and/or the workers; stops gracefully on SIGTERM or SIGINT. */
export async function start(config: Config, role: Role): Promise<void> {
  const ctx = await openContext(config);
  const boot = await bootstrap(ctx);
  const app = role === 'worker' ? undefined : await buildApp(ctx);
  const runner = role === 'api' ? undefined : createRunner(ctx);

  if (app) await app.listen({ host: config.host, port: config.port });
  const { metricsPort, metricsHost } = config.observability;
  const metricsServer = metricsPort === undefined ? undefined : await serveMetrics(ctx, metricsHost, metricsPort);
  runner?.start();

  const base = config.publicBaseUrl;
  const lines = [
    '',
    `Corridor ${config.env} is running (role: ${role}, database: ${ctx.db.kind === 'pglite' ? `embedded in ${config.dataDir}` : 'PostgreSQL'})`,
    ...(app
      ? [
          `  Base URL      ${base}`,
          `  Docs          ${base}/docs`,
          `  OpenAPI       ${base}/openapi.json`,
          `  Token URL     ${base}/oauth/token`,
          `  Audience      ${config.audience}`,
        ]
      : []),
    ...(boot.demo ? [`  Client ID     ${boot.demo.clientId}`, `  Client secret ${boot.demo.clientSecret}`] : []),
    ...operatorKeyLines(config, boot),
    ...(app ? [`  Console       ${base}/console (sign in with the operator key, then invite your staff)`] : []),
    ...(app && boot.demoUser
      ? boot.demoUser.invitationUrl
        ? [`  Dashboard     ${boot.demoUser.invitationUrl}`, `                (open it to set a password for ${boot.demoUser.email}; works once)`]
        : [`  Dashboard     ${base}/dashboard (sign in as ${boot.demoUser.email})`]
      : []),
    '',
  ];
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) {
      process.exit(1); // a second signal: stop now
    }
    stopping = true;
    ctx.log.info({ signal }, 'shutting down: no new requests, draining');
    const force = setTimeout(() => {
      ctx.log.error('shutdown grace period elapsed; exiting');
      process.exit(1);
    }, config.limits.shutdownGraceMs).unref();
    try {
      await app?.close();
      metricsServer?.close();
      await runner?.stop();
      await ctx.db.close();
    } finally {
      clearTimeout(force);
    }
    process.exit(0);
  };
  process.once('SIGTERM', () => void stop('SIGTERM'));
  process.once('SIGINT', () => void stop('SIGINT'));
  // Announced only once a signal can stop it gracefully.
  process.stdout.write(lines.join('\n') + '\n');
}
