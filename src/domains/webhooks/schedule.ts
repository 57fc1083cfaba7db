/** What an attempt's result means for its delivery: pure, so the retry rules are testable on their own. */
export interface AttemptOutcome {
  status: 'pending' | 'succeeded' | 'failed';
  /** When the next attempt may start; null once the delivery is final. */
  nextAttemptAt: Date | null;
}

/**
 * The delay before attempt `attemptNumber + 1`: the base delay (WEBHOOK_RETRY_DELAYS_MS, the last one
 * repeated if the list is short) plus a random jitter of 0 to 100 % of it, so a delay is at least
 * its base and less than twice it.
 */
export function retryDelayMs(attemptNumber: number, baseDelaysMs: readonly number[], random: () => number = Math.random): number {
  const base = baseDelaysMs[Math.min(attemptNumber - 1, baseDelaysMs.length - 1)] ?? 0;
  return Math.floor(base * (1 + Math.min(Math.max(random(), 0), 0.999999)));
}

/** Success on a 2xx; otherwise another attempt later, counted from the end of this one, until attemptsMax. */
export function decideOutcome(
  attemptNumber: number,
  succeeded: boolean,
  attemptEndedAt: Date,
  rules: { attemptsMax: number; retryDelaysMs: readonly number[] },
  random: () => number = Math.random,
): AttemptOutcome {
  if (succeeded) return { status: 'succeeded', nextAttemptAt: null };
  if (attemptNumber >= rules.attemptsMax) return { status: 'failed', nextAttemptAt: null };
  return { status: 'pending', nextAttemptAt: new Date(attemptEndedAt.getTime() + retryDelayMs(attemptNumber, rules.retryDelaysMs, random)) };
}
