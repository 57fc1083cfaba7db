import type { Sql } from '../../platform/db/db.js';
import { addressKey } from './lists/addresses.js';
import type { Hit } from './matching.js';
import * as repo from './screening.repository.js';

/**
 * Address screening: a chain payout's destination and a chain deposit's sender, checked against the
 * digital-currency addresses the loaded lists carry (OFAC's "Digital Currency Address - ETH …"), and
 * through the same hook against an address-screening provider where one is plugged in.
 *
 * The hook (`AddressScreeningProvider`), one call per batch, answers in the requests' order:
 *  - request  `{ address, network, currency, direction }`: the address as the chain writes it
 *    (`0x…` on EVM chains), the network (`ethereum`, `bnb`…), the currency moved (`USDC`, `USDT`,
 *    null when the token is not one Corridor takes), and `outgoing` (a payout's destination) or
 *    `incoming` (a deposit's sender);
 *  - answer   `{ hits }`: empty when clear, else each hit's evidence: the list (`ofac-sdn`, `un`,
 *    `eu`, `uk-ofsi`), the entry's id and primary name, the address as the list writes it
 *    (`address`, `matchedName`), the currency the list names for it (`XBT`, `ETH`, `USDT`…), the
 *    address screened (`subjectName`) and a score (1 for an exact address match).
 * A provider that throws fails the look that asked (the payout is not submitted, the deposit is not
 * taken, and the watcher tries again), never a clear answer. The sandbox provider is `local`: the
 * loaded lists' addresses, in Corridor's own database.
 */

/** A hit on an address: a name hit's evidence, with the address and currency the list names. */
export type AddressHit = Hit & { address: string; currency: string };

/** The evidence of a hit as stored and shown (a name hit, or an address hit with its address). */
export type ScreeningEvidence = Hit | AddressHit;

export interface AddressScreeningRequest {
  address: string;
  network: string;
  currency: string | null;
  direction: 'outgoing' | 'incoming';
}

export interface AddressScreeningAnswer {
  hits: AddressHit[];
}

export interface AddressScreeningProvider {
  readonly name: string;
  screen(sql: Sql, requests: readonly AddressScreeningRequest[]): Promise<AddressScreeningAnswer[]>;
}

/** The sandbox provider: the addresses of the active version of each loaded list. */
export const localAddressScreening: AddressScreeningProvider = {
  name: 'local',
  async screen(sql, requests) {
    if (requests.length === 0) return [];
    const listed = await repo.activeListedAddresses(sql, [...new Set(requests.map((r) => addressKey(r.address)))]);
    return requests.map((r) => {
      const key = addressKey(r.address);
      return {
        hits: listed
          .filter((l) => l.address_key === key)
          .map((l) => ({ list: l.list, entryId: l.entry_id, entryName: l.entry_name, matchedName: l.address, subjectName: r.address, score: 1, address: l.address, currency: l.currency })),
      };
    });
  },
};

let provider: AddressScreeningProvider = localAddressScreening;

/** Plugs in an address-screening provider in place of the local one (for every screening of this process). */
export function useAddressScreeningProvider(p: AddressScreeningProvider): void {
  provider = p;
}

/** Screens addresses through the provider in use: each request's hits (empty: clear). */
export async function screenAddresses(sql: Sql, requests: readonly AddressScreeningRequest[]): Promise<AddressHit[][]> {
  if (requests.length === 0) return [];
  const answers = await provider.screen(sql, requests);
  if (answers.length !== requests.length) throw new Error(`address screening provider ${provider.name} answered ${answers.length} of ${requests.length} requests`);
  return answers.map((a) => a.hits);
}
