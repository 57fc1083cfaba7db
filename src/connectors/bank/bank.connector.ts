import type { Config } from '../../platform/config.js';
import type { AppContext } from '../../platform/context.js';
import type { AsyncConnector, ConnectorStep, HandedOverPayout, RailProgress, SubmittedTexts } from '../connector.js';
import type { Sql, Tx } from '../../platform/db/db.js';
import type { CryptoBox } from '../../platform/lib/crypto-box.js';
import type { FieldError } from '../../platform/lib/errors.js';
import { parseBankConfig, type BankConfig } from './bank.config.js';
import { sepaAddressErrors, structuredAddressErrors, textErrors, type BeneficiarySnapshot } from './bank.instructions.js';
import { transportOf } from './bank.transport.js';
import { acceptPayouts, payoutProgress, releasePayout, type BankHandOver, type BankRuntime } from './bank.service.js';

/**
 * The bank connector: SEPA credit, SEPA instant and SWIFT payouts leave as ISO 20022 pain.001 files
 * over SFTP host-to-host (bank.service.ts). An async connector: the payouts step hands queued payouts
 * over (`accept`); the connector moves them to processing when their file is delivered.
 */
export class BankConnector implements AsyncConnector {
  readonly name = 'bank';
  readonly async = true as const;
  readonly runtime: BankRuntime;

  constructor(config: BankConfig, box: CryptoBox) {
    this.runtime = { config, box, transport: transportOf(config) };
  }

  get config(): BankConfig {
    return this.runtime.config;
  }

  firstStepMs(): number {
    return 0;
  }

  /** Once its file is recorded a payout is the bank's: it cannot be cancelled in processing. */
  canCancelProcessing(): boolean {
    return false;
  }

  /** The payouts step calls `accept` instead for queued payouts; the bank moves them itself afterwards. */
  nextStep(): ConnectorStep {
    return { move: 'none', nextInMs: null };
  }

  /** Records the payouts in their cut-off windows (the catalog rail decides SEPA or SWIFT); a payout handed over twice is recorded once. */
  accept(tx: Tx, payouts: readonly HandedOverPayout[]): Promise<void> {
    const handOver: BankHandOver[] = payouts.map((p) => ({ ...p, route: p.rail }));
    return acceptPayouts(this.runtime, tx, handOver);
  }

  /** A queued payout cancelled or failed before it leaves: let go of it unless it is in a file already. */
  release(tx: Tx, payoutId: string): Promise<boolean> {
    return releasePayout(tx, payoutId);
  }

  /** A payout held before any file, or waiting for the next file: why and what happens next. */
  progress(sql: Sql, payoutId: string): Promise<RailProgress | undefined> {
    return payoutProgress(this.runtime, sql, payoutId);
  }

  /**
   * Checks at submit of a payout this connector will serve: SWIFT needs a structured postal address,
   * SEPA an address's town and country when it gives one or pays outside the EEA;
   * every text the file writes must convert to the EPC Latin set and fit its field (a name at most 70
   * characters), so that no payout reaches a file it would make invalid.
   */
  submitErrors(route: string, beneficiary: Record<string, unknown>, payout: SubmittedTexts): FieldError[] {
    const snapshot = beneficiary as BeneficiarySnapshot;
    return [...(route === 'swift' ? structuredAddressErrors(snapshot) : sepaAddressErrors(snapshot)), ...textErrors({ beneficiary: snapshot, ...payout })];
  }
}

/** The connector factory of the "bank" section (src/connectors/registry.ts): validates the section at start. */
export function bankConnectorFactory(section: unknown, deps: { box: CryptoBox; config: Pick<Config, 'env'> }): BankConnector {
  return new BankConnector(parseBankConfig(section, deps.config.env), deps.box);
}

/** The bank connector of this process, when the connectors file configures one (the inbound side reads its `config` too). */
export function bankConnectorOf(ctx: Pick<AppContext, 'connectors'>): BankConnector | undefined {
  return ctx.connectors.all().find((c): c is BankConnector => c instanceof BankConnector);
}
