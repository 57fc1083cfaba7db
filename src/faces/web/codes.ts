import { invertRate, toRate, type Rate } from '../../platform/lib/money.js';
import { RETURN_REASONS, STATUS_REASONS } from '../../connectors/bank/inbound/reason-codes.js';
import { html, type Html } from '../../platform/lib/html.js';

/**
 * The one mapping of the codes pages show to words: states (with the family that colours them),
 * failure reasons, the bank's ISO 20022 reject and return reasons (their names from the code sets
 * in bank/inbound/reason-codes.ts, the same table the bank files are read with), and the one
 * formatter of an exchange rate. Every page shows a code in words with the code beside it.
 */

/** The family a state belongs to, for its colour: done, stopped, moving, or neutral (every state of every list). */
const FAMILIES: Record<'done' | 'stopped' | 'moving', readonly string[]> = {
  done: ['paid', 'posted', 'completed', 'active', 'approved', 'succeeded', 'delivered', 'enabled', 'funds_received', 'received', 'credited', 'clear', 'refunded'],
  stopped: ['failed', 'voided', 'rejected', 'cancelled', 'revoked', 'disabled', 'expired', 'refused', 'deactivated', 'returned', 'reverted', 'suspended', 'inactive', 'withdrawn', 'flagged', 'timed_out', 'invalid'],
  moving: [
    'created', 'processing', 'pending', 'submitted', 'in_review', 'under_review', 'awaiting_funds', 'queued', 'invited', 'pending_review',
    'funded', 'needs_information', 'more_info_requested', 'proof_submitted', 'draft', 'executing', 'in_progress', 'refunding', 'recorded', 'held',
  ],
};
const FAMILY_OF = new Map(Object.entries(FAMILIES).flatMap(([family, states]) => states.map((s) => [s, family] as const)));

/** States whose words are not just the code's words. */
const STATE_WORDS: Record<string, string> = {
  more_info_requested: 'more information requested',
  funds_received: 'funds received',
  proof_submitted: 'proof of payment sent',
  timed_out: 'timed out',
  in_review: 'in review',
};

export type StatusFamily = 'done' | 'stopped' | 'moving' | 'neutral';

export function statusFamily(state: string): StatusFamily {
  return (FAMILY_OF.get(state) as StatusFamily | undefined) ?? 'neutral';
}

/** A state in words: `awaiting_funds` → "awaiting funds". */
export function statusWords(state: string): string {
  return STATE_WORDS[state] ?? state.replace(/_/g, ' ');
}

/** A code beside its words, when the words are not the code itself ("paid" needs no "paid" beside it). */
function codeBeside(code: string, words: string): Html | string {
  return words.toLowerCase() === code.toLowerCase() ? '' : html` <code class="code">${code}</code>`;
}

/** A state in words with its code beside it, coloured by its family (one colour per family on every page). */
export function status(state: string): Html {
  const words = statusWords(state);
  return html`<span class="status family-${statusFamily(state)}" title="state: ${state}">${words}${codeBeside(state, words)}</span>`;
}

/** Failure reasons the platform writes itself (payouts, orders, deposits, virtual accounts), in words. */
const REASON_WORDS: Record<string, string> = {
  failed: 'failed (no reason given)',
  insufficient_balance: 'the balance could not cover the amount and its fee',
  beneficiary_account_invalid: 'the beneficiary\'s account was refused as invalid',
  returned_by_beneficiary_bank: 'returned by the beneficiary\'s bank',
  crypto_network_not_served: 'the crypto network is not served',
  chain_transfer_reverted: 'the transfer was reverted on the chain',
  execution_failed: 'the desk could not execute the order',
  review_expired: 'the review was not completed in time',
  reversed: 'reversed after it was credited',
  payer_declined: 'the payer declined',
  refused_by_issuer: 'refused by the issuing bank',
  compliance_rejected: 'rejected by compliance',
};

/** An ISO 20022 code set's name in words: `ClosedAccountNumber` → "closed account number". */
const isoWords = (name: string): string => name.replace(/([a-z0-9])([A-Z])/g, '$1 $2').toLowerCase();

/** A bank's ISO 20022 reason in words, with its code beside it and the code set's definition on hover. */
export function bankReason(reason: { code: string; description: string } | null | undefined): Html | null {
  if (!reason) return null;
  const known = RETURN_REASONS[reason.code] ?? STATUS_REASONS[reason.code];
  const words = known ? isoWords(known.name) : reason.description;
  return html`<span class="reason" title="${reason.description}">${words} <code class="code">${reason.code}</code></span>`;
}

/** A failure reason in words with its code beside it ("Rejected by the bank: AC04 …" shows the bank's code). */
export function failureReason(reason: string | null | undefined): Html | null {
  if (!reason) return null;
  const words = REASON_WORDS[reason];
  if (words) return html`<span class="reason">${words} <code class="code">${reason}</code></span>`;
  // The bank's reject or return, as inbound.service.ts writes it: "<what happened>: <ISO code> <definition>[. Who acts: …]".
  const [told, whoActs] = reason.split(/\.\s+(?=Who acts: )/);
  const bank = /^(.*?):\s+([A-Z0-9]{4})\s+(.*)$/.exec(told ?? reason);
  if (bank) return html`<span class="reason" title="${reason}">${bank[1]}: ${bankReason({ code: bank[2]!, description: bank[3]! })}${whoActs ? html`. ${whoActs}` : ''}</span>`;
  // A reason typed by an operator: shown as written.
  return html`<span class="reason">${reason}</span>`;
}

const RATE_DECIMALS = 4;
const RATE_SIGNIFICANT = 4;

/** `value` rounded half up at `decimals` places, as text. */
function roundedRate(rate: Rate, decimals: number): string {
  const scale = 10n ** BigInt(decimals);
  const scaled = (rate.numerator * scale * 2n + rate.denominator) / (rate.denominator * 2n);
  const units = (scaled / scale).toString();
  const fraction = (scaled % scale).toString().padStart(decimals, '0');
  return decimals === 0 ? units : `${units}.${fraction}`;
}

/** A rate to a sensible precision: four decimals, or four significant digits below 0.1 (1 JPY = 0.006159 EUR). */
export function rateFigure(rate: string | Rate): string {
  const r = toRate(rate);
  let decimals = RATE_DECIMALS;
  if (r.numerator * 10n < r.denominator) {
    // Below 0.1: k is where the first significant digit sits (0.006159: k = 3), then three more digits.
    let k = 1;
    while (r.numerator * 10n ** BigInt(k) < r.denominator && k < 12) k += 1;
    decimals = Math.min(12, k - 1 + RATE_SIGNIFICANT);
  }
  return roundedRate(r, decimals);
}

/**
 * The one formatter of an exchange rate, both ways: "1 EUR = 1.0843 USD · 1 USD = 0.9222 EUR".
 * `rate` is how many `to` one `from` buys; the exact figure stays on hover.
 */
export function rate(o: { from: string; to: string; rate: string }): Html {
  const inverse = invertRate(o.rate);
  return html`<span class="rate" title="exact: 1 ${o.from} = ${o.rate} ${o.to}">1 ${o.from} = ${rateFigure(o.rate)} ${o.to} · 1 ${o.to} = ${rateFigure(inverse)} ${o.from}</span>`;
}
