import type { Tx } from '../db/db.js';
import type { FieldError } from '../lib/errors.js';
import type { PayoutStatus } from '../modules/payouts/payouts.transitions.js';

/** What a stepping connector decides next for a payout: a move (or none) and when to look again. */
export interface ConnectorStep {
  move: 'process' | 'pay' | 'fail' | 'revert' | 'none';
  failureReason?: string;
  /** Look again after this many ms; null when the connector has nothing more to do by itself. */
  nextInMs: number | null;
}

export interface ConnectorPayoutView {
  status: PayoutStatus;
  /** The amount as formatted on the wire, at the currency's scale. */
  amount: string;
  currency: string;
  reverted: boolean;
}

/**
 * A connector: what processes payouts on a route (the sandbox simulator, the operator's manual
 * queue, a bank over ISO 20022 files, a chain). "Provider" names only the corridor catalog's rail
 * offerings (`corridors/catalog.ts`) and the wire and column name `provider`, which hold a
 * connector's name.
 *
 * A stepping connector decides each move in `nextStep`, which is pure: it decides from the payout as
 * stored, and the payouts module applies the move (compare-and-set, ledger, event) and schedules the
 * next look as a durable job, so a restart resumes every payout where it was.
 */
export interface Connector {
  readonly name: string;
  /** The first look after submit, in ms. */
  firstStepMs(): number;
  nextStep(payout: ConnectorPayoutView): ConnectorStep;
  /** Whether a payout already in processing can still be cancelled at this connector. */
  canCancelProcessing(): boolean;
  /**
   * What this connector refuses at submit of a payout it will serve on `rail` (beyond the catalog's
   * checks), one entry naming each field: e.g. the bank's SWIFT files need a structured address, and
   * its files carry only text the EPC Latin set can hold (the beneficiary, the reference, the sender).
   */
  submitErrors?(rail: string, beneficiary: Record<string, unknown>, payout: SubmittedTexts): FieldError[];
  /**
   * A queued payout handed to this connector is about to end before its rail has it (cancelled by its
   * workspace, failed by the operator), in the caller's transaction: let go of it and answer true, or
   * answer false when it is already on its way (in a file) and can no longer be stopped here.
   */
  release?(tx: Tx, payoutId: string): Promise<boolean>;
  /** Checks the connector's rail at start (a chain's node and token decimals); throws, and the process refuses to start, on a mismatch. */
  checkAtStart?(): Promise<void>;
}

/** What a payout request says beside its beneficiary that a connector may have to carry. */
export interface SubmittedTexts {
  reference: string | null;
  /** The request's senderInfo (null when the workspace's business identity stands for it). */
  sender: Record<string, unknown> | null;
}

/** A queued payout as handed over to an async connector, its beneficiary and sender opened. */
export interface HandedOverPayout {
  id: string;
  workspaceId: string;
  accountId: string;
  clientRef: string;
  amountMinor: bigint;
  currency: string;
  /** The route as reported on the payout (`international` when auto-routed). */
  route: string;
  /** The catalog rail that pays it (`sepa_credit`, `swift`, `crypto`…). */
  rail: string;
  /** The recipient as validated at submit (name, country, address fields, `account`, catalog `provider` id). */
  beneficiary: Record<string, unknown>;
  sender: Record<string, unknown> | null;
  /** The currency the payout is funded in (its own, or a quote's source currency). */
  fundingCurrency: string;
  /** The payer's reference for the beneficiary, if any. */
  reference: string | null;
}

/**
 * A connector that takes payouts into its own pipeline (a file to a bank, a transaction on a
 * chain). Its `nextStep` answers `none` for a queued payout; the payouts step hands the payout over
 * with `accept`, in the step's transaction, and the connector records it in its own tables. What the
 * rail says later comes back through `reportPayoutOutcomes` (payouts/payouts.outcomes.ts).
 */
export interface AsyncConnector extends Connector {
  readonly async: true;
  accept(tx: Tx, payouts: readonly HandedOverPayout[]): Promise<void>;
}

export function isAsyncConnector(connector: Connector): connector is AsyncConnector {
  return (connector as Partial<AsyncConnector>).async === true;
}

/** One route's connector as configured, for the console and the start-up log. */
export interface RouteConnector {
  route: string;
  connector: string;
  /** Workspaces served by another connector on this route. */
  overrides: { workspaceId: string; connector: string }[];
}

/**
 * The connectors of a process as the app context holds them (built by `ConnectorRegistry`,
 * registry.ts). Declared here, apart from the registry, so that the context does not import the
 * registry, which imports every connector module (those import the payouts module, which imports the
 * context): no import cycle.
 */
export interface Connectors {
  get(name: string): Connector;
  forRoute(route: string, workspaceId: string): Connector;
  all(): Connector[];
  routes(): RouteConnector[];
}
