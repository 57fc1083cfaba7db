import { buildApp } from '../app.js';
import type { Config } from '../config.js';
import { createRunner } from '../jobs/index.js';
import { openContext } from '../runtime.js';
import { bootstrap } from './bootstrap.js';

export type Role = 'all' | 'api' | 'worker';

/** Starts the API and/or the workers; stops gracefully on SIGTERM or SIGINT. */
export async function start(config: Config, role: Role): Promise<void> {
  const ctx = await openContext(config);
  const boot = await bootstrap(ctx);
  const app = role === 'worker' ? undefined : await buildApp(ctx);
  const runner = role === 'api' ? undefined : createRunner(ctx);

  if (app) await app.listen({ host: config.host, port: config.port });
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
    `  Operator key  ${boot.operatorKey}`,
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
