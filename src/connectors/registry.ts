import type { Config } from '../platform/config.js';
import { ANY_CURRENCY, type RouteServers } from '../platform/connectors-file.js';
import type { AppContext } from '../platform/context.js';
import type { Recurring, JobHandler } from '../platform/jobs/runner.js';
import type { Sql } from '../platform/db/db.js';
import { ROUTES } from '../domains/corridors/catalog.js';
import { conditionSources, type ConditionSource } from '../controls/alerts/alerts.port.js';
import type { Connector, ConnectorHealth, Connectors, RailReason, RouteConnector } from './connector.js';
import type { ConnectorDefinition, ConnectorDeps, ConnectorWorker } from './definition.js';
import { connectorHealth, type HealthRecorder } from './health.js';

export type { RouteConnector } from './connector.js';
export type { ConnectorDeps } from './definition.js';

/**
 * The connectors of this process, built once at start from the definitions of the connectors
 * present (runtime.ts lists them: this registry imports none) and the operator's configuration:
 * which one serves each route (per workspace where it differs), each by the name payouts store, and
 * what they add to a worker (their jobs and loops) and to the console (their reasons and health).
 */
export class ConnectorRegistry implements Connectors {
  private constructor(
    private readonly built: ReadonlyMap<string, { connector: Connector; definition: ConnectorDefinition }>,
    private readonly config: Config['connectors'],
    private readonly fallback: Connector,
  ) {}

  /**
   * Builds every connector without settings (the simulator, the manual queue) and every one the
   * configuration names, and refuses to start on an unknown route, an unknown connector, a connector
   * whose section is missing or wrong, or two connectors of one name or one job kind.
   */
  static build(deps: ConnectorDeps, definitions: readonly ConnectorDefinition[]): ConnectorRegistry {
    const { connectors } = deps.config;
    const known = new Map<string, ConnectorDefinition>();
    for (const d of definitions) {
      if (known.has(d.name)) throw new Error(`Two connectors are named "${d.name}"`);
      known.set(d.name, d);
    }
    const built = new Map<string, { connector: Connector; definition: ConnectorDefinition }>();
    for (const d of definitions) if (d.section === undefined) built.set(d.name, { connector: d.build(undefined, deps), definition: d });
    const servers = (map: Record<string, RouteServers>, where: string) =>
      Object.entries(map).flatMap(([route, served]) => Object.entries(served).map(([currency, name]) => ({ route, name, where: `${where}.${route}${currency === ANY_CURRENCY ? '' : `.${currency}`}` })));
    const named = [...servers(connectors.routes, 'routes'), ...Object.entries(connectors.workspaces).flatMap(([id, map]) => servers(map, `workspaces.${id}`))];
    for (const { route, name, where } of named) {
      if (!(ROUTES as readonly string[]).includes(route)) throw new Error(`CORRIDOR_CONNECTORS_FILE: ${where}: unknown route "${route}" (routes: ${ROUTES.join(', ')})`);
      if (built.has(name)) continue;
      const definition = known.get(name);
      if (!definition?.section) throw new Error(`CORRIDOR_CONNECTORS_FILE: ${where}: unknown connector "${name}" (connectors: ${[...known.keys()].join(', ')})`);
      const section = connectors.sections[definition.section];
      if (section === undefined) throw new Error(`CORRIDOR_CONNECTORS_FILE: ${where} names "${name}", which needs a "${definition.section}" section`);
      built.set(name, { connector: definition.build(section, deps), definition });
    }
    const kinds = [...built.values()].flatMap(({ definition }) => (definition.jobs ?? []).map((j) => j.kind));
    const twice = kinds.find((kind, i) => kinds.indexOf(kind) !== i);
    if (twice) throw new Error(`Two connectors run jobs of the kind "${twice}"`);
    const fallbackName = deps.config.env === 'sandbox' ? 'simulated' : 'manual';
    const fallback = built.get(fallbackName)?.connector;
    if (!fallback) throw new Error(`The "${fallbackName}" connector is not present: every process needs it for the routes no connector serves`);
    return new ConnectorRegistry(built, connectors, fallback);
  }

  /** The connector a payout names (`payouts.provider`). One no longer configured is an error, not a guess. */
  get(name: string): Connector {
    const connector = this.built.get(name)?.connector;
    if (!connector) throw new Error(`Connector "${name}" is not configured in this process (CORRIDOR_CONNECTORS_FILE)`);
    return connector;
  }

  /**
   * The connector that serves a new payout on a route for a workspace, in a currency: the workspace's
   * override, then the route's (each for that currency, else for `"*"`), else the environment's default.
   */
  forRoute(route: string, workspaceId: string, currency: string | undefined): Connector {
    const serving = (served: RouteServers | undefined) => served && ((currency !== undefined ? served[currency] : undefined) ?? served[ANY_CURRENCY]);
    const name = serving(this.config.workspaces[workspaceId]?.[route]) ?? serving(this.config.routes[route]);
    return name ? this.get(name) : this.fallback;
  }

  /** Every connector built in this process. */
  all(): Connector[] {
    return [...this.built.values()].map((b) => b.connector);
  }

  /** Every route with its connector (and those of its currencies served otherwise), for the console. */
  routes(): RouteConnector[] {
    const byCurrency = (served: RouteServers | undefined) => Object.entries(served ?? {}).flatMap(([currency, connector]) => (currency === ANY_CURRENCY ? [] : [{ currency, connector }]));
    return ROUTES.map((route) => ({
      route,
      connector: this.config.routes[route]?.[ANY_CURRENCY] ?? this.fallback.name,
      currencies: byCurrency(this.config.routes[route]),
      overrides: Object.entries(this.config.workspaces).flatMap(([workspaceId, map]) => {
        const served = map[route];
        if (!served) return [];
        return [{ workspaceId, connector: served[ANY_CURRENCY] ?? null, currencies: byCurrency(served) }];
      }),
    }));
  }

  /** The job handlers of the connectors present, each recording its outcome in its connector's health. */
  jobHandlers(health: HealthRecorder): Map<string, JobHandler> {
    return new Map([...this.built.values()].flatMap(({ connector, definition }) => (definition.jobs ?? []).map((job) => [job.kind, health.job(connector.name, job)] as const)));
  }

  /** The recurring schedules of the connectors present (a bank's outbox poll). */
  recurring(): Recurring[] {
    return [...this.built.values()].flatMap(({ definition }) => (definition.jobs ?? []).flatMap((job) => (job.everyMs === undefined ? [] : [{ kind: job.kind, everyMs: job.everyMs }])));
  }

  /** The loops of the connectors present, for a worker process, each recording its ticks in its connector's health. */
  workers(ctx: AppContext, health: HealthRecorder): ConnectorWorker[] {
    return [...this.built.values()].flatMap(({ connector, definition }) => (definition.workers?.(ctx, connector) ?? []).map((w) => health.worker(connector.name, w)));
  }

  /** The reason codes a connector's rail gives, as data (none for a connector not present). */
  reasons(name: string): readonly RailReason[] {
    return this.built.get(name)?.definition.reasons ?? [];
  }

  /** The alert condition sources: the platform's own, and those the connectors present declare (a connector not configured here alerts nothing). */
  alertSources(): readonly ConditionSource[] {
    return [...conditionSources, ...[...this.built.values()].flatMap(({ definition }) => definition.conditions ?? [])];
  }

  /** The health of every connector present: last success, last file, last error, backlog. */
  health(sql: Sql): Promise<ConnectorHealth[]> {
    return connectorHealth(sql, [...this.built.values()]);
  }
}

/** The registry behind a context's connectors (runtime.ts builds it; a test may give the context another `Connectors`). */
export function registryOf(connectors: Connectors): ConnectorRegistry {
  if (!(connectors instanceof ConnectorRegistry)) throw new Error('these connectors were not built by the ConnectorRegistry (runtime.ts)');
  return connectors;
}
