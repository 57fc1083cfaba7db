import type { Sql, Tx } from '../platform/db/db.js';
import type { FieldError } from '../platform/lib/errors.js';
import type { PayoutStatus } from '../domains/payouts/payouts.transitions.js';

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
  /**
   * Recall: asks the rail to bring back a payout already on its way or paid (a SEPA recall, a
   * Fedwire request for return), where the rail allows it. The answer says whether the request left;
   * the money comes back, if it does, as a `returned` outcome through `reportPayoutOutcomes`.
   */
  recall?(tx: Tx, payoutId: string, reason: string): Promise<RecallAnswer>;
  /**
   * Verify the recipient (account and name) before paying, where the rail offers it (Confirmation of
   * Payee, Verification of Payee, a mobile-money account-name lookup, a NIP name enquiry). Called
   * outside any transaction; the recipient-check control records the answer and holds the payout on
   * anything but a match. Throws only for a fault of Corridor's own; a rail that cannot answer
   * answers `unavailable`.
   */
  verifyRecipient?(request: RecipientCheckRequest): Promise<RecipientCheck>;
  /**
   * Where a payout this connector has taken stands on its rail when its status alone would not say
   * (queued, yet held by the connector or waiting for a file): why, and what happens next, in words
   * the workspace reads on the payout's page; undefined when there is nothing beyond its status.
   */
  progress?(sql: Sql, payoutId: string): Promise<RailProgress | undefined>;
  /** Checks the connector's rail at start (a chain's node and token decimals); throws, and the process refuses to start, on a mismatch. */
  checkAtStart?(): Promise<void>;
  /**
   * The crypto networks this connector pays on `rail`, per currency (the chain connector: the networks
   * of its configured chains with a hot wallet and that token). The catalog advertises only these for
   * the rail; undefined: the catalog's networks as they are.
   */
  servedNetworks?(rail: string): Readonly<Record<string, readonly string[]>> | undefined;
}

export interface RecallAnswer {
  /** False when the rail refused to ask (already recalled, past the rail's recall window). */
  requested: boolean;
  reason?: string;
}

/** What a recipient check asks the rail. */
export interface RecipientCheckRequest {
  /** The catalog rail the payout (or the beneficiary) goes by. */
  rail: string;
  currency: string;
  /** The recipient as validated at submit (name, country, `account`…), opened. */
  beneficiary: Record<string, unknown>;
  /** The name to check: the beneficiary's name as the workspace gave it. */
  name: string;
  /** A stable id of this check (a payout's or a beneficiary check's id), for the rail's idempotency or correlation id. */
  reference: string;
}

/**
 * A rail's answer to a recipient check: either the name the rail holds for the account (a
 * mobile-money account-name lookup, a NIP name enquiry), which Corridor compares with the
 * beneficiary's, or the rail's own verdict (Confirmation of Payee: `close_match` with the name it
 * suggests), or that the account does not exist, or that the rail could not answer. `reason` keeps
 * the rail's code or words.
 */
export type RecipientCheck =
  | { kind: 'account_name'; accountName: string }
  | { kind: 'verdict'; result: 'match' | 'close_match' | 'no_match'; suggestedName?: string; reason?: string }
  | { kind: 'account_not_found'; reason?: string }
  | { kind: 'unavailable'; reason?: string };

/**
 * The lifecycle capabilities a connector has, for the console and the guide. Check, release, recall
 * and verify are optional methods: a rail without recall or name checks simply lacks them.
 */
export type Capability = 'check' | 'accept' | 'step' | 'release' | 'recall' | 'verify_recipient' | 'check_at_start';

export function capabilitiesOf(connector: Connector): Capability[] {
  const has: [Capability, boolean][] = [
    ['check', connector.submitErrors !== undefined],
    ['accept', isAsyncConnector(connector)],
    ['step', !isAsyncConnector(connector)],
    ['release', connector.release !== undefined || connector.canCancelProcessing()],
    ['recall', connector.recall !== undefined],
    ['verify_recipient', connector.verifyRecipient !== undefined],
    ['check_at_start', connector.checkAtStart !== undefined],
  ];
  return has.flatMap(([capability, present]) => (present ? [capability] : []));
}

/**
 * Who must act on a reason a rail gives: the beneficiary's details are wrong (the workspace corrects
 * the beneficiary), the workspace itself (its sender data, its request), or the operator (a file-level
 * reject, the operator's own account, a technical fault): never the customer for the operator's problem.
 */
export type ReasonActor = 'beneficiary' | 'workspace' | 'operator';

/** A rail's reason code as data: the code as the rail sends it, its words, and who must act. */
export interface RailReason {
  code: string;
  words: string;
  actor: ReasonActor;
}

/** A payout's standing at its connector, for the workspace: held or waiting, why, what happens next, and who acts. */
export interface RailProgress {
  stage: 'held' | 'waiting';
  why: string;
  next: string;
  actor: ReasonActor;
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
  /** The connector of the route's other currencies. */
  connector: string;
  /** The currencies served by a connector of their own on this route. */
  currencies: { currency: string; connector: string }[];
  /** Workspaces served by another connector on this route: for every currency (`connector`), or for some. */
  overrides: { workspaceId: string; connector: string | null; currencies: { currency: string; connector: string }[] }[];
}

/**
 * The connectors of a process as the app context holds them (built by `ConnectorRegistry`,
 * registry.ts). Declared here, apart from the registry, so that the context does not import the
 * registry, which imports every connector module (those import the payouts module, which imports the
 * context): no import cycle.
 */
export interface Connectors {
  get(name: string): Connector;
  forRoute(route: string, workspaceId: string, currency: string | undefined): Connector;
  all(): Connector[];
  routes(): RouteConnector[];
  /** The reason codes a connector's rail gives, as data. */
  reasons(name: string): readonly RailReason[];
  /** The health of every connector present (src/connectors/health.ts), for the console and metrics. */
  health(sql: Sql): Promise<ConnectorHealth[]>;
}

/** A connector's health as the console shows it. */
export interface ConnectorHealth {
  connector: string;
  capabilities: Capability[];
  /** The last call, poll or loop of the connector that ended well. */
  lastSuccessAt: Date | null;
  /** The last file it delivered to its rail (file rails only). */
  lastFileAt: Date | null;
  lastError: { message: string; at: Date } | null;
  /** Its payouts handed over and not yet on the rail (or, for the manual queue, not yet settled), and since when the oldest waits. */
  backlog: { count: number; oldestSince: Date | null };
}
