import { isFedBusinessDay, nextFedBusinessDay } from '../../platform/lib/federal-reserve-calendar.js';

/*
 * When Fedwire moves money. The Fedwire Funds Service business day opens at 21:00 Eastern Time on the
 * previous calendar day and closes at 19:00 ET; third-party customer transfers (CTR, what a payout
 * is) are accepted until 18:00 ET. It runs Monday to Friday except the Federal Reserve's holidays.
 * The operator's bank takes its customers' wire files until its own cut-off (`bankCutoff`, at the
 * latest 18:00 ET): a file after it, or on a day Fedwire is closed, is executed on the next
 * Fedwire business day. Times are Eastern (America/New_York, daylight saving included).
 *
 * Its business days are the Federal Reserve's (src/platform/lib/federal-reserve-calendar.ts, the one
 * calendar of the US rails, ACH's too).
 */

export const EASTERN = 'America/New_York';

/** The funds service's hours, Eastern Time, as minutes after midnight. */
export const FUNDS_SERVICE = {
  /** The business day opens the calendar day before, at 21:00. */
  opensPreviousDayAt: 21 * 60,
  /** Customer transfers (CTR) are taken until 18:00. */
  customerTransferCutoff: 18 * 60,
  /** The funds service closes at 19:00. */
  closesAt: 19 * 60,
} as const;

/** The Eastern date (YYYY-MM-DD) and minutes after midnight of an instant. */
export function easternTime(now: Date): { date: string; minutes: number } {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-US', { timeZone: EASTERN, year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' })
      .formatToParts(now)
      .map((p) => [p.type, p.value]),
  );
  return { date: `${parts.year}-${parts.month}-${parts.day}`, minutes: Number(parts.hour) * 60 + Number(parts.minute) };
}

/** "HH:MM" as minutes after midnight. */
export const minutesOf = (time: string): number => Number(time.slice(0, 2)) * 60 + Number(time.slice(3, 5));

/**
 * The Fedwire business day a customer transfer handed to the bank at `now` is executed on: today
 * (Eastern) when today is a business day and the bank's cut-off (`bankCutoff`, "HH:MM" ET, never
 * after the Fed's 18:00) has not passed; otherwise the next business day. From 21:00 ET the funds
 * service is already in the next business day, which this also gives.
 */
export function fedwireExecutionDate(now: Date, bankCutoff: string): string {
  const { date, minutes } = easternTime(now);
  const cutoff = Math.min(minutesOf(bankCutoff), FUNDS_SERVICE.customerTransferCutoff);
  if (isFedBusinessDay(date) && minutes < cutoff) return date;
  return nextFedBusinessDay(date);
}
