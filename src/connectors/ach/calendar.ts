import { isFedBusinessDay as isBankingDay, nextFedBusinessDay as nextBankingDay } from '../../platform/lib/federal-reserve-calendar.js';

/**
 * When ACH moves: banking days are the Federal Reserve's business days (the one calendar of the US
 * rails, src/platform/lib/federal-reserve-calendar.ts).
 *
 * The ODFI takes files until its cut-off times, in its own time zone: Same Day ACH windows (the
 * Federal Reserve's are 10:30, 14:45 and 16:45 Eastern; an ODFI's are earlier) and the next-day
 * cut-off. A file cut before the last Same Day cut-off of a banking day settles that day; one cut
 * before the next-day cut-off settles on the next banking day; one cut later, or on a day the Fed is
 * closed, is processed on the next banking day (in its first Same Day window when Same Day is on).
 */

export interface AchCalendar {
  timeZone: string;
  /** Same Day cut-offs, HH:MM in `timeZone`, ascending; none: Same Day ACH is not used. */
  sameDayCutoffs: readonly string[];
  /** The last time a file is taken for next-day settlement, HH:MM. */
  nextDayCutoff: string;
}

/** Same Day ACH's per-entry limit (NACHA, since March 2022): larger entries settle next day. */
export const SAME_DAY_LIMIT_CENTS = 100_000_000n;

/** The date and time (HH:MM) at `now` in the time zone. */
export function localNow(now: Date, timeZone: string): { date: string; time: string } {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' })
      .formatToParts(now)
      .map((p) => [p.type, p.value]),
  );
  return { date: `${parts.year}-${parts.month}-${parts.day}`, time: `${parts.hour}:${parts.minute}` };
}

/** The window a file cut at `now` goes in: its effective entry date, whether it is Same Day, and the cut-off it makes (its descriptive date says which). */
export interface AchWindow {
  /** YYYY-MM-DD, the date the entries settle. */
  effectiveDate: string;
  sameDay: boolean;
  /** The cut-off time it makes, HH:MM, or null for the next banking day's first window. */
  cutoff: string | null;
}

/**
 * The window a file cut at `now` makes. Same Day when the ODFI has Same Day cut-offs and one of
 * today's is still ahead on a banking day; else next day when the next-day cut-off is still ahead;
 * else the next banking day is the processing day (Same Day on it when Same Day is on).
 */
export function windowAt(now: Date, calendar: AchCalendar): AchWindow {
  const { date, time } = localNow(now, calendar.timeZone);
  if (isBankingDay(date)) {
    const sameDay = calendar.sameDayCutoffs.find((c) => time < c);
    if (sameDay) return { effectiveDate: date, sameDay: true, cutoff: sameDay };
    if (time < calendar.nextDayCutoff) return { effectiveDate: nextBankingDay(date), sameDay: false, cutoff: calendar.nextDayCutoff };
  }
  const processing = nextBankingDay(date);
  return calendar.sameDayCutoffs.length > 0 ? { effectiveDate: processing, sameDay: true, cutoff: null } : { effectiveDate: nextBankingDay(processing), sameDay: false, cutoff: null };
}

/** The descriptive date of a Same Day batch: "SD" and the cut-off's HHMM (a common ODFI convention), blank for next day. */
export const descriptiveDateOf = (w: AchWindow): string => (w.sameDay ? `SD${(w.cutoff ?? '0000').replace(':', '')}` : '');
