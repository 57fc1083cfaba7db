import { createHash } from 'node:crypto';
import type { RecipientCheck, RecipientCheckRequest } from '../connector.js';
import { passesModulusCheck, ukAccountOf } from './account.js';
import { BankUnreachable, postSigned } from './client.js';
import { COP_REASONS, reasonOf } from './codes.js';
import type { ClearBankConfig } from './config.js';

export const COP_PATH = '/open-banking/outbound/v1/name-verification';

interface VerificationReport {
  Matched?: unknown;
  Name?: unknown;
  ReasonCode?: unknown;
  ReasonCodeDescription?: unknown;
}

/** Close: the name nearly matches (MBAM), or matches but the account type differs (BANM, PANM), or both (BAMM, PAMM). */
const CLOSE = new Set(['MBAM', 'BANM', 'PANM', 'BAMM', 'PAMM']);
/** The check could not be made for this account: the payee's bank answers no CoP for it. */
const NOT_CHECKABLE = new Set(['IVCR', 'ACNS', 'OPTO', 'CASS', 'SCNS']);

/** The words of a CoP reason, with its code. */
function because(code: string, description: unknown): string {
  const r = reasonOf(code, COP_REASONS, typeof description === 'string' ? description : undefined);
  return `${r.code}: ${r.words}`;
}

/**
 * Confirmation of Payee before paying (`POST /open-banking/outbound/v1/name-verification`): the
 * payee's sort code and account number with the beneficiary's name, in ClearBank's unstructured
 * form (",,<name>"), as a personal or business account. The answer as the connector contract wants
 * it: a match, a close match with the name the payee's bank holds, no match, the account not found
 * (AC01, or a modulus check that fails before asking), or unavailable (the payee's bank is no CoP
 * participant: 422; it failed: 424; ClearBank did not answer; the account opted out or is not
 * checkable). X-Request-Id is the check's reference with a hash of what is asked, so a retry of the
 * same check is the same request.
 */
export async function confirmPayee(config: ClearBankConfig, request: RecipientCheckRequest): Promise<RecipientCheck> {
  const found = ukAccountOf(request.beneficiary);
  if ('error' in found) return { kind: 'account_not_found', reason: found.error.message };
  if (!passesModulusCheck(found.account)) return { kind: 'account_not_found', reason: 'the sort code and account number fail the UK modulus check' };
  const identification = `${found.account.sortCode}${found.account.accountNumber}`;
  const body = JSON.stringify({
    SchemeName: 'SortCodeAccountNumber',
    LegalOwnerType: request.beneficiary.type === 'business' ? 'Business' : 'Personal',
    Identification: identification,
    OwnerName: `,,${request.name}`.slice(0, 140),
    EndToEndIdentification: request.reference.slice(0, 140),
  });
  const requestId = `${request.reference.slice(0, 48)}:${createHash('sha256').update(body).digest('hex').slice(0, 32)}`;
  let answer;
  try {
    answer = await postSigned(config, config.copBaseUrl, COP_PATH, body, requestId);
  } catch (err) {
    if (err instanceof BankUnreachable) return { kind: 'unavailable', reason: err.message };
    throw err;
  }
  if (answer.status === 422) return { kind: 'unavailable', reason: "the payee's bank does not take part in Confirmation of Payee" };
  if (answer.status === 424) return { kind: 'unavailable', reason: "the payee's bank failed to answer the Confirmation of Payee check" };
  if (answer.status >= 500 || answer.status === 429) return { kind: 'unavailable', reason: `ClearBank answered ${answer.status}` };
  if (answer.status !== 200) throw new Error(`ClearBank refused the Confirmation of Payee request (${answer.status}): ${JSON.stringify(answer.body ?? null).slice(0, 300)}`);
  const report = ((answer.body as { Data?: { VerificationReport?: VerificationReport } } | undefined)?.Data?.VerificationReport ?? {}) as VerificationReport;
  if (report.Matched === true) return { kind: 'verdict', result: 'match' };
  const code = typeof report.ReasonCode === 'string' ? report.ReasonCode : '';
  const name = typeof report.Name === 'string' && report.Name.trim() !== '' ? report.Name : undefined;
  if (CLOSE.has(code)) return { kind: 'verdict', result: 'close_match', ...(name ? { suggestedName: name } : {}), reason: because(code, report.ReasonCodeDescription) };
  if (code === 'AC01') return { kind: 'account_not_found', reason: because(code, report.ReasonCodeDescription) };
  if (NOT_CHECKABLE.has(code)) return { kind: 'unavailable', reason: because(code, report.ReasonCodeDescription) };
  return { kind: 'verdict', result: 'no_match', reason: because(code || 'ANNM', report.ReasonCodeDescription) };
}
