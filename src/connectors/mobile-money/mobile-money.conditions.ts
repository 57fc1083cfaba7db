import type { ConditionSource, Finding } from '../../controls/alerts/alerts.port.js';
import * as repo from './mobile-money.repository.js';

/**
 * A correlation id as an alert may show it: it comes from the URL of a callback anyone can send, so
 * at most 64 characters of the ones an id is made of, any other replaced by `?` (never a payload).
 */
export const shownCorrelationId = (id: string): string => id.slice(0, 64).replace(/[^A-Za-z0-9._:-]/g, '?');

/** The one finding (subject the outcome) when callbacks of `outcome` were received in the last `threshold` minutes (at least one). */
async function recentCallbacks(ctx: Parameters<ConditionSource['check']>[0], outcome: 'unknown' | 'refused', threshold: number, words: (count: number, latest: string, minutes: number) => string): Promise<Finding[]> {
  const minutes = Math.max(1, threshold);
  const { count, latest } = await repo.callbacksSince(ctx.db, outcome, new Date(Date.now() - minutes * 60_000));
  if (!latest) return [];
  const correlationId = shownCorrelationId(latest.correlation_id);
  return [{ subject: outcome, summary: words(count, correlationId, minutes), details: { outcome, count, windowMinutes: minutes, latest: { correlationId, receivedAt: latest.received_at.toISOString() } } }];
}

/**
 * Callbacks for a correlation id Corridor never sent (recorded `unknown`, answered 404) received in
 * the last `threshold` minutes: the operator's platform reports a transaction Corridor has no payout
 * for (another client's callback URL set to ours, a payout sent outside Corridor, or a probe). The
 * operator asks the provider what that transaction is; nothing was applied.
 */
export const unknownCallback: ConditionSource = {
  name: 'mobile_money.unknown_callback',
  unit: 'minutes',
  defaultThreshold: 60,
  filterKeys: [],
  description: 'Mobile-money callbacks for a correlation id Corridor never sent, received in the last N minutes',
  check: (ctx, { threshold }) =>
    recentCallbacks(ctx, 'unknown', threshold, (count, latest, minutes) => `${count} mobile-money callback(s) for a correlation id Corridor never sent in the last ${minutes} min, the latest for ${latest}`),
};

/**
 * Callbacks refused (wrong X-API-Key, content hash or X-Date; recorded `refused` without their body)
 * received in the last `threshold` minutes: a forged or replayed callback, or an operator whose
 * callback secret is no longer the one configured (then every payout waits for the poll).
 */
export const callbackRefused: ConditionSource = {
  name: 'mobile_money.callback_refused',
  unit: 'minutes',
  defaultThreshold: 60,
  filterKeys: [],
  description: 'Mobile-money callbacks refused (secret, content hash or date wrong: forged, replayed or misconfigured) in the last N minutes',
  check: (ctx, { threshold }) => recentCallbacks(ctx, 'refused', threshold, (count, latest, minutes) => `${count} mobile-money callback(s) refused in the last ${minutes} min, the latest for correlation id ${latest}`),
};
