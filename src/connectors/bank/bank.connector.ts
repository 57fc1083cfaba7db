import type { Config } from '../../platform/config.js';
import type { AppContext } from '../../platform/context.js';
import type { RailProgress, SubmittedTexts } from '../connector.js';
import { connectorOf, HandOverConnector } from '../hand-over.js';
import type { Sql } from '../../platform/db/db.js';
import type { CryptoBox } from '../../platform/lib/crypto-box.js';
import type { FieldError } from '../../platform/lib/errors.js';
import { parseBankConfig, type BankConfig } from './bank.config.js';
import { sepaAddressErrors, structuredAddressErrors, textErrors, type BeneficiarySnapshot } from './bank.instructions.js';
import { transportOf } from './bank.transport.js';
import { BankPgp } from './bank.pgp.js';
import { acceptPayouts, payoutProgress, releasePayout, type BankHandOver, type BankRuntime } from './bank.service.js';

/**
 * The bank connector: SEPA credit, SEPA instant and SWIFT payouts leave as ISO 20022 pain.001 files
 * over SFTP host-to-host (bank.service.ts). A hand-over connector: the payouts step hands queued payouts
 * over (`accept`); the connector moves them to processing when their file is delivered.
 */
export class BankConnector extends HandOverConnector<BankRuntime> {
  readonly name = 'bank';

  constructor(config: BankConfig, box: CryptoBox) {
    super(
      { config, box, transport: transportOf(config, config.fileNames.inbound), pgp: config.pgp && new BankPgp(config.pgp, box) },
      {
        // Recorded in their cut-off windows (the catalog rail decides SEPA or SWIFT); a payout handed over twice is recorded once.
        accept: (rt, tx, payouts) => acceptPayouts(rt, tx, payouts.map((p): BankHandOver => ({ ...p, route: p.rail }))),
        release: releasePayout,
        submitErrors: bankSubmitErrors,
      },
    );
  }

  get config(): BankConfig {
    return this.runtime.config;
  }

  /** A payout held before any file, or waiting for the next file: why and what happens next. */
  progress(sql: Sql, payoutId: string): Promise<RailProgress | undefined> {
    return payoutProgress(this.runtime, sql, payoutId);
  }
}

/**
 * Checks at submit of a payout the bank connector will serve: SWIFT needs a structured postal address,
 * SEPA an address's town and country when it gives one or pays outside the EEA; every text the file
 * writes must convert to the EPC Latin set and fit its field (a name at most 70 characters), so that
 * no payout reaches a file it would make invalid.
 */
function bankSubmitErrors(beneficiary: Record<string, unknown>, route: string, payout: SubmittedTexts): FieldError[] {
  const snapshot = beneficiary as BeneficiarySnapshot;
  return [...(route === 'swift' ? structuredAddressErrors(snapshot) : sepaAddressErrors(snapshot)), ...textErrors({ beneficiary: snapshot, ...payout })];
}

/** The connector factory of the "bank" section (src/connectors/registry.ts): validates the section at start. */
export function bankConnectorFactory(section: unknown, deps: { box: CryptoBox; config: Pick<Config, 'env'> }): BankConnector {
  return new BankConnector(parseBankConfig(section, deps.config.env), deps.box);
}

/** The bank connector of this process, when the connectors file configures one (the inbound side reads its `config` too). */
export const bankConnectorOf = (ctx: Pick<AppContext, 'connectors'>) => connectorOf(ctx, BankConnector);
