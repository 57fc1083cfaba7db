import { RETURN_REASONS, STATUS_REASONS } from '../bank/bank.port.js';
import type { RailReason, ReasonActor } from '../connector.js';

/*
 * Why a wire was rejected (pacs.002 or pain.002 RJCT) or came back (pacs.004), as data: the code as
 * the rail sends it, its words and who must act. The Fedwire Funds Service rejects with its own
 * proprietary codes (`Rsn/Prtry`, E433 in the Fed's samples); banks and returns use the ISO 20022
 * external codes, whose words are the ISO definitions the bank connector keeps (inbound/reason-codes.ts).
 * A code not in this table is shown with the text that came with it, and the operator must act (ask
 * the bank).
 */

/** The Fed's own reject codes in its published samples, in the Fed's words. */
const FEDWIRE_CODES: RailReason[] = [
  { code: 'E433', words: 'The routing number of the Instructed Agent is not permissible to receive Fedwire Funds transaction', actor: 'beneficiary' },
];

/** Who must act on each ISO code a wire's reject or return carries. */
const ISO_ACTORS: Record<string, ReasonActor> = {
  AC01: 'beneficiary',
  AC03: 'beneficiary',
  AC04: 'beneficiary',
  AC06: 'beneficiary',
  AG01: 'beneficiary',
  BE04: 'beneficiary',
  CNOR: 'beneficiary',
  MD07: 'beneficiary',
  RC01: 'beneficiary',
  RR03: 'beneficiary',
  AM02: 'workspace',
  AM05: 'workspace',
  AM09: 'workspace',
  CUST: 'workspace',
  DUPL: 'workspace',
  FRAD: 'workspace',
  MD06: 'workspace',
  MS02: 'workspace',
  NOAS: 'workspace',
  RR01: 'workspace',
  RR02: 'workspace',
  UPAY: 'workspace',
  AG02: 'operator',
  AM04: 'operator',
  DNOR: 'operator',
  DT01: 'operator',
  ED05: 'operator',
  FF01: 'operator',
  FOCR: 'operator',
  MS03: 'operator',
  NARR: 'operator',
  RR04: 'operator',
  TECH: 'operator',
  TM01: 'operator',
};

const words = (code: string): string => (RETURN_REASONS[code] ?? STATUS_REASONS[code])?.description ?? code;

export const FEDWIRE_REASONS: readonly RailReason[] = [...FEDWIRE_CODES, ...Object.entries(ISO_ACTORS).map(([code, actor]) => ({ code, words: words(code), actor }))];

const ACTOR_WORDS: Record<ReasonActor, string> = {
  beneficiary: "the workspace corrects the beneficiary's bank details",
  workspace: 'the workspace',
  operator: "the operator (with the operator's bank)",
};

/** A reason as a payout carries it (code and words) and who must act, the bank's own text standing in for a code not in the table. */
export function describeWireReason(code: string | undefined, bankText: string | undefined): { code: string; description: string; actor: ReasonActor; actorWords: string } {
  const known = code ? FEDWIRE_REASONS.find((r) => r.code === code) : undefined;
  const actor = known?.actor ?? 'operator';
  const description = known ? (code === 'NARR' && bankText ? bankText : known.words) : (bankText ?? (code ? `Reason code ${code} (not in Corridor's table; ask the bank)` : 'No reason given'));
  return { code: code ?? 'NARR', description, actor, actorWords: ACTOR_WORDS[actor] };
}
