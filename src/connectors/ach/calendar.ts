import { allForYear } from '@18f/us-federal-holidays';

/**
 * When ACH moves: banking days are Monday to Friday except the Federal Reserve's holidays. The Fed
 * observes a holiday that falls on a Sunday on the Monday after, but one that falls on a Saturday is
 * not moved (the Fed is open on the Friday before), so the federal holiday list is taken with
 * Saturday holidays unshifted (@18f/us-federal-holidays, the OPM list).
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

const holidayCache = new Map<number, Set<string>>();

/** The Federal Reserve's holidays of a year, as YYYY-MM-DD (a Saturday holiday stays on its Saturday). */
export function fedHolidays(year: number): Set<string> {
  let days = holidayCache.get(year);
  if (!days) {
    days = new Set(allForYear(year, { shiftSaturdayHolidays: false, shiftSundayHolidays: true }).map((h) => h.date.toISOString().slice(0, 10)));
    holidayCache.set(year, days);
  }
  return days;
}

export function addDays(date: string, days: number): string {
  const d = new Date(`${date}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + days);
  return d.toISOString().slice(0, 10);
}

export function isBankingDay(date: string): boolean {
  const day = new Date(`${date}T00:00:00Z`).getUTCDay();
  return day !== 0 && day !== 6 && !fedHolidays(Number(date.slice(0, 4))).has(date);
}

export function nextBankingDay(date: string): string {
  let d = addDays(date, 1);
  while (!isBankingDay(d)) d = addDays(d, 1);
  return d;
}

/** `n` banking days after `date`. */
export function addBankingDays(date: string, n: number): string {
  let d = date;
  for (let i = 0; i < n; i++) d = nextBankingDay(d);
  return d;
}

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
