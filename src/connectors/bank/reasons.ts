import type { RailReason, ReasonActor } from '../connector.js';
import { RETURN_REASONS, STATUS_REASONS } from './inbound/reason-codes.js';

/**
 * Who must act on each ISO 20022 reason a bank gives (pain.002 rejects, pacs.004 and camt.054
 * returns). The beneficiary's details: the creditor's account, name, address or bank is wrong or
 * closed, or the beneficiary sent it back. The workspace: the debtor's (sender's) data it gave, or its
 * own request. Everything else is the operator's: a file-level or technical reject, the operator's
 * own account, a cut-off, fraud; and so is a code not in this table.
 */
const ACTORS: Readonly<Record<string, ReasonActor>> = {
  AC01: 'beneficiary', AC03: 'beneficiary', AC04: 'beneficiary', AC06: 'beneficiary', AG01: 'beneficiary', BE04: 'beneficiary',
  CNOR: 'beneficiary', MD07: 'beneficiary', RC01: 'beneficiary', RR03: 'beneficiary', MS02: 'beneficiary', NOAS: 'beneficiary',
  MD06: 'beneficiary', RUTA: 'beneficiary', UPAY: 'beneficiary',
  RR01: 'workspace', RR02: 'workspace', CUST: 'workspace', FOCR: 'workspace', AM02: 'workspace', DUPL: 'workspace', AM05: 'workspace',
};

/** A code set's name in words: `ClosedAccountNumber` → "closed account number". */
const words = (name: string): string => name.replace(/([a-z0-9])([A-Z])/g, '$1 $2').toLowerCase();

/** The bank's reject and return reasons as data, each once (a code in both sets has one meaning). */
export const BANK_REASONS: readonly RailReason[] = Object.entries({ ...STATUS_REASONS, ...RETURN_REASONS }).map(([code, reason]) => ({
  code,
  words: words(reason.name),
  actor: ACTORS[code] ?? 'operator',
}));
