import { allForYear } from '@18f/us-federal-holidays';

/**
 * The Federal Reserve's calendar, one for every US rail (ACH and Fedwire): its business days are
 * Monday to Friday except the Federal Reserve holidays (the Reserve Banks' holiday schedule: New
 * Year's Day, Birthday of Martin Luther King Jr., Washington's Birthday, Memorial Day, Juneteenth,
 * Independence Day, Labor Day, Columbus Day, Veterans Day, Thanksgiving Day, Christmas Day). A
 * holiday on a Sunday is observed the Monday after; one on a Saturday is not moved (the Reserve Banks
 * are open the Friday before), so it is no holiday of theirs. The dates come from the federal holiday
 * list (@18f/us-federal-holidays, the OPM list) with Saturday holidays left where they fall.
 */

const cache = new Map<number, { date: string; name: string }[]>();

/** The date `days` calendar days after a YYYY-MM-DD date. */
export function addDays(date: string, days: number): string {
  const d = new Date(`${date}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + days);
  return d.toISOString().slice(0, 10);
}

/** The Federal Reserve holidays of a year as observed (YYYY-MM-DD), with their names; none on a Saturday. */
export function federalReserveHolidays(year: number): { date: string; name: string }[] {
  let days = cache.get(year);
  if (!days) {
    days = allForYear(year, { shiftSaturdayHolidays: false, shiftSundayHolidays: true })
      .map((h) => ({ date: h.date.toISOString().slice(0, 10), name: h.name }))
      .filter((h) => new Date(`${h.date}T00:00:00Z`).getUTCDay() !== 6);
    cache.set(year, days);
  }
  return days;
}

/** Whether the Federal Reserve settles on a date (YYYY-MM-DD): a weekday that is none of its holidays. */
export function isFedBusinessDay(date: string): boolean {
  const day = new Date(`${date}T00:00:00Z`).getUTCDay();
  return day !== 0 && day !== 6 && !federalReserveHolidays(Number(date.slice(0, 4))).some((h) => h.date === date);
}

/** The first Federal Reserve business day after a date. */
export function nextFedBusinessDay(date: string): string {
  let d = addDays(date, 1);
  while (!isFedBusinessDay(d)) d = addDays(d, 1);
  return d;
}

/** `n` Federal Reserve business days after `date`. */
export function addFedBusinessDays(date: string, n: number): string {
  let d = date;
  for (let i = 0; i < n; i++) d = nextFedBusinessDay(d);
  return d;
}

/** One day of a US rail's calendar: whether the Federal Reserve settles on it, and which holiday closes it. */
export interface FedCalendarDay {
  date: string;
  weekday: string;
  bankingDay: boolean;
  /** The Federal Reserve holiday's name, when it is one. */
  holiday: string | null;
}

const WEEKDAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];

/** The `n` calendar days from a date (YYYY-MM-DD), each a business day of the Fed or closed (a weekend, or a holiday named): what the consoles' cut-off calendars show. */
export function fedCalendarDays(from: string, n: number): FedCalendarDay[] {
  return Array.from({ length: n }, (_, i) => {
    const date = addDays(from, i);
    const holiday = federalReserveHolidays(Number(date.slice(0, 4))).find((h) => h.date === date)?.name ?? null;
    return { date, weekday: WEEKDAYS[new Date(`${date}T00:00:00Z`).getUTCDay()] as string, bankingDay: isFedBusinessDay(date), holiday };
  });
}
