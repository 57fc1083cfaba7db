import type { Config } from '../config.js';
import type { CryptoBox } from '../lib/crypto-box.js';
import { bankConnectorFactory } from '../modules/bank/bank.connector.js';
import { chainConnectorFactory } from '../modules/chain/chain.connector.js';
import { ROUTES } from '../modules/corridors/catalog.js';
import type { Connector, Connectors, RouteConnector } from './connector.js';
import { ManualConnector } from './manual.js';
import { SimulatedConnector } from './simulated.js';

/** What a connector is built with besides its own section of the connectors file. */
export interface ConnectorDeps {
  config: Config;
  box: CryptoBox;
}

/** A connector configured by a section of CORRIDOR_CONNECTORS_FILE: the section it reads, and how it is built from it (validating it). */
export interface ConnectorFactory {
  section: string;
  build(section: unknown, deps: ConnectorDeps): Connector;
}

/** The connectors beyond the two built in, by name. Each real rail adds its line here. */
export const connectorFactories: Record<string, ConnectorFactory> = {
  bank: { section: 'bank', build: (section, deps) => bankConnectorFactory(section, deps) },
  chain: { section: 'chains', build: (section, deps) => chainConnectorFactory(section, deps) },
};

export type { RouteConnector } from './connector.js';

/**
 * The connectors of this process, built once at start from the operator's configuration: which one
 * serves each route (per workspace where it differs), and each by the name payouts store.
 */
export class ConnectorRegistry implements Connectors {
  private constructor(
    private readonly byName: ReadonlyMap<string, Connector>,
    private readonly config: Config['connectors'],
    private readonly fallback: Connector,
  ) {}

  /**
   * Builds every connector the configuration names, and refuses to start on an unknown route, an
   * unknown connector, or a connector whose section is missing or wrong.
   */
  static build(deps: ConnectorDeps, factories: Record<string, ConnectorFactory> = connectorFactories): ConnectorRegistry {
    const { connectors } = deps.config;
    const byName = new Map<string, Connector>([
      ['simulated', new SimulatedConnector(deps.config.sandboxStepMs)],
      ['manual', new ManualConnector()],
    ]);
    const named = [
      ...Object.entries(connectors.routes).map(([route, name]) => ({ route, name, where: `routes.${route}` })),
      ...Object.entries(connectors.workspaces).flatMap(([id, map]) => Object.entries(map).map(([route, name]) => ({ route, name, where: `workspaces.${id}.${route}` }))),
    ];
    for (const { route, name, where } of named) {
      if (!(ROUTES as readonly string[]).includes(route)) throw new Error(`CORRIDOR_CONNECTORS_FILE: ${where}: unknown route "${route}" (routes: ${ROUTES.join(', ')})`);
      if (byName.has(name)) continue;
      const factory = factories[name];
      if (!factory) throw new Error(`CORRIDOR_CONNECTORS_FILE: ${where}: unknown connector "${name}" (connectors: ${['simulated', 'manual', ...Object.keys(factories)].join(', ')})`);
      const section = connectors.sections[factory.section];
      if (section === undefined) throw new Error(`CORRIDOR_CONNECTORS_FILE: ${where} names "${name}", which needs a "${factory.section}" section`);
      byName.set(name, factory.build(section, deps));
    }
    const fallback = byName.get(deps.config.env === 'sandbox' ? 'simulated' : 'manual') as Connector;
    return new ConnectorRegistry(byName, connectors, fallback);
  }

  /** The connector a payout names (`payouts.provider`). One no longer configured is an error, not a guess. */
  get(name: string): Connector {
    const connector = this.byName.get(name);
    if (!connector) throw new Error(`Connector "${name}" is not configured in this process (CORRIDOR_CONNECTORS_FILE)`);
    return connector;
  }

  /** The connector that serves a new payout on a route for a workspace: the workspace's override, the route's, else the environment's default. */
  forRoute(route: string, workspaceId: string): Connector {
    const name = this.config.workspaces[workspaceId]?.[route] ?? this.config.routes[route];
    return name ? this.get(name) : this.fallback;
  }

  /** Every connector built in this process. */
  all(): Connector[] {
    return [...this.byName.values()];
  }

  /** Every route with its connector, for the console. */
  routes(): RouteConnector[] {
    return ROUTES.map((route) => ({
      route,
      connector: this.config.routes[route] ?? this.fallback.name,
      overrides: Object.entries(this.config.workspaces).flatMap(([workspaceId, map]) => (map[route] ? [{ workspaceId, connector: map[route] }] : [])),
    }));
  }
}
