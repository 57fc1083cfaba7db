import type { Config } from '../platform/config.js';
import type { AppContext } from '../platform/context.js';
import type { JobHandler } from '../platform/jobs/runner.js';
import type { CryptoBox } from '../platform/lib/crypto-box.js';
import type { PayoutStatus } from '../domains/payouts/payouts.transitions.js';
import type { ConditionSource } from '../controls/alerts/alerts.port.js';
import type { Connector, RailReason } from './connector.js';

/** What a connector is built with besides its own section of the connectors file. */
export interface ConnectorDeps {
  config: Config;
  box: CryptoBox;
}

/**
 * A job a connector runs on the worker's job runner. The registry wraps its handler so that a run
 * that ends well counts as the connector's last successful call (and, with `delivers: 'file'`, as its
 * last file), and one that throws as its last error (src/connectors/health.ts).
 */
export interface ConnectorJob {
  kind: string;
  handler: JobHandler;
  /** Kept scheduled every this many ms while the worker runs (a poll of the bank's outbox). */
  everyMs?: number;
  /** A run that ends well delivered a file to the rail. */
  delivers?: 'file';
}

/** A loop a connector runs in every worker process beside the job runner (a chain's looks at its node), one `tick` every `everyMs`. */
export interface ConnectorWorker {
  name: string;
  everyMs: number;
  tick(): Promise<void>;
}

/**
 * Everything of one connector the platform needs to know, in one value the connector's folder
 * exports and runtime.ts lists (one line per connector present): its name and section of the
 * connectors file, how it is built (validating the section), the reason codes its rail sends as data,
 * its jobs and worker loops, and which of its payouts count as its backlog for its health.
 */
export interface ConnectorDefinition<C extends Connector = Connector> {
  name: string;
  /** The section of CORRIDOR_CONNECTORS_FILE it is built from; none for a connector without settings (built in every process). */
  section?: string;
  build(section: unknown, deps: ConnectorDeps): C;
  /** The codes its rail gives for a reject or a return, with their words and who must act. */
  reasons: readonly RailReason[];
  jobs?: readonly ConnectorJob[];
  workers?(ctx: AppContext, connector: C): ConnectorWorker[];
  /** The statuses of its payouts that are its backlog: handed to it and not yet on the rail (or, for the manual queue, not yet settled). */
  backlog: readonly PayoutStatus[];
  /**
   * What of its rail needs the operator, as alert condition sources (a chain's treasury, a bank
   * file without acknowledgement): evaluated with the platform's own while the connector is present.
   */
  conditions?: readonly ConditionSource[];
}

/** Declares a connector: the identity function, typed, so a definition is checked where it is written. */
export function defineConnector<C extends Connector>(definition: ConnectorDefinition<C>): ConnectorDefinition<C> {
  return definition;
}
