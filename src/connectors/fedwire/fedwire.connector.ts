import type { AppContext } from '../../platform/context.js';
import type { Tx } from '../../platform/db/db.js';
import type { CryptoBox } from '../../platform/lib/crypto-box.js';
import type { FieldError } from '../../platform/lib/errors.js';
import { releaseBankPayout, textErrors, transportOf } from '../bank/bank.port.js';
import type { AsyncConnector, ConnectorStep, HandedOverPayout, SubmittedTexts } from '../connector.js';
import { parseFedwireConfig, type FedwireConfig } from './config.js';
import { acceptWires, type FedwireRuntime } from './outbound.js';

/**
 * The fedwire connector: USD payouts to a US bank account (ABA routing number and account number)
 * leave as wires through the operator's US bank's ISO 20022 channel: pain.001 files over the bank
 * connector's SFTP transport, each wire with its UETR; the bank's pacs.002, pain.002, pacs.004 and
 * admi.007 come back from its outbox (inbound.ts). An async connector: the payouts step hands queued
 * payouts over (`accept`); they move to processing when their file is delivered.
 */
export class FedwireConnector implements AsyncConnector {
  readonly name = 'fedwire';
  readonly async = true as const;
  readonly runtime: FedwireRuntime;

  constructor(config: FedwireConfig, box: CryptoBox) {
    this.runtime = { config, box, transport: transportOf(config) };
  }

  firstStepMs(): number {
    return 0;
  }

  /** Once in a recorded file a wire is the bank's: it cannot be cancelled in processing (a recall would be a camt.056, not offered). */
  canCancelProcessing(): boolean {
    return false;
  }

  nextStep(): ConnectorStep {
    return { move: 'none', nextInMs: null };
  }

  accept(tx: Tx, payouts: readonly HandedOverPayout[]): Promise<void> {
    return acceptWires(this.runtime, tx, payouts);
  }

  /** A queued payout cancelled or failed before its file: let go of it, unless it is in a file already. */
  async release(tx: Tx, payoutId: string): Promise<boolean> {
    return (await releaseBankPayout(tx, payoutId)) !== 'in_file';
  }

  /** Every text the wire file writes converts to the EPC Latin set and fits its field (names, address, reference, sender). */
  submitErrors(_rail: string, beneficiary: Record<string, unknown>, payout: SubmittedTexts): FieldError[] {
    return textErrors({ beneficiary, ...payout });
  }
}

/** The connector of this process, when the connectors file configures one. */
export function fedwireConnectorOf(ctx: Pick<AppContext, 'connectors'>): FedwireConnector | undefined {
  return ctx.connectors.all().find((c): c is FedwireConnector => c instanceof FedwireConnector);
}

export function fedwireConnectorFactory(section: unknown, deps: { box: CryptoBox; config: { env: string } }): FedwireConnector {
  return new FedwireConnector(parseFedwireConfig(section, deps.config.env), deps.box);
}
