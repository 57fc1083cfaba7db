import type { AppContext } from '../../platform/context.js';
import type { CryptoBox } from '../../platform/lib/crypto-box.js';
import { releaseBankPayout, textErrors, transportOf } from '../bank/bank.port.js';
import { connectorOf, HandOverConnector } from '../hand-over.js';
import { parseFedwireConfig, type FedwireConfig } from './config.js';
import { acceptWires, type FedwireRuntime } from './outbound.js';

/**
 * The fedwire connector: USD payouts to a US bank account (ABA routing number and account number)
 * leave as wires through the operator's US bank's ISO 20022 channel: pain.001 files over the bank
 * connector's SFTP transport, each wire with its UETR; the bank's pacs.002, pain.002, pacs.004 and
 * admi.007 come back from its outbox (inbound.ts). A hand-over connector: the payouts step hands queued
 * payouts over (`accept`); they move to processing when their file is delivered.
 */
export class FedwireConnector extends HandOverConnector<FedwireRuntime> {
  readonly name = 'fedwire';

  constructor(config: FedwireConfig, box: CryptoBox) {
    super(
      { config, box, transport: transportOf(config) },
      {
        accept: acceptWires,
        // Let go of a queued payout before its file, unless it is in a file already (a recall would be a camt.056, not offered).
        release: async (tx, payoutId) => (await releaseBankPayout(tx, payoutId)) !== 'in_file',
        // Every text the wire file writes converts to the EPC Latin set and fits its field (names, address, reference, sender).
        submitErrors: (beneficiary, _rail, payout) => textErrors({ beneficiary, ...payout }),
      },
    );
  }
}

/** The connector of this process, when the connectors file configures one. */
export const fedwireConnectorOf = (ctx: Pick<AppContext, 'connectors'>) => connectorOf(ctx, FedwireConnector);

export function fedwireConnectorFactory(section: unknown, deps: { box: CryptoBox; config: { env: string } }): FedwireConnector {
  return new FedwireConnector(parseFedwireConfig(section, deps.config.env), deps.box);
}
