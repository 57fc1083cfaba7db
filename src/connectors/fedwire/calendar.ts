/*
 * When Fedwire moves money. The Fedwire Funds Service business day opens at 21:00 Eastern Time on the
 * previous calendar day and closes at 19:00 ET; third-party customer transfers (CTR, what a payout
 * is) are accepted until 18:00 ET. It runs Monday to Friday except the Federal Reserve's holidays.
 * The operator's bank takes its customers' wire files until its own cut-off (`bankCutoff`, at the
 * latest 18:00 ET): a file after it, or on a day Fedwire is closed, is executed on the next
 * Fedwire business day. Times are Eastern (America/New_York, daylight saving included).
 *
 * Federal Reserve holidays (Federal Reserve Banks' holiday schedule): New Year's Day (1 January),
 * Birthday of Martin Luther King Jr. (third Monday of January), Washington's Birthday (third Monday of
 * February), Memorial Day (last Monday of May), Juneteenth (19 June), Independence Day (4 July),
 * Labor Day (first Monday of September), Columbus Day (second Monday of October), Veterans Day
 * (11 November), Thanksgiving Day (fourth Thursday of November), Christmas Day (25 December). A fixed
 * holiday on a Sunday is observed the Monday after; one on a Saturday is not moved (the Reserve Banks
 * are open the Friday before).
 *
 * The ACH connector may keep its own copy of this calendar (issue 31 built both at once); the two
 * are to become one.
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

/** YYYY-MM-DD of a UTC date. */
const ymd = (d: Date): string => d.toISOString().slice(0, 10);

/** The date `days` calendar days after a YYYY-MM-DD date. */
export function addDays(date: string, days: number): string {
  const d = new Date(`${date}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + days);
  return ymd(d);
}

/** The `n`th (1-based) weekday (0 Sunday … 6 Saturday) of a month; n = -1: the last. */
function nthWeekday(year: number, month: number, weekday: number, n: number): string {
  if (n === -1) {
    const last = new Date(Date.UTC(year, month, 0));
    last.setUTCDate(last.getUTCDate() - ((last.getUTCDay() - weekday + 7) % 7));
    return ymd(last);
  }
  const first = new Date(Date.UTC(year, month - 1, 1));
  first.setUTCDate(1 + ((weekday - first.getUTCDay() + 7) % 7) + (n - 1) * 7);
  return ymd(first);
}

/** A fixed-date holiday as the Federal Reserve observes it: Sunday → Monday; Saturday → not observed. */
function observed(year: number, month: number, day: number): string | undefined {
  const d = new Date(Date.UTC(year, month - 1, day));
  if (d.getUTCDay() === 6) return undefined;
  if (d.getUTCDay() === 0) d.setUTCDate(d.getUTCDate() + 1);
  return ymd(d);
}

/** The Federal Reserve holidays of a year (observed dates), with their names. */
export function federalReserveHolidays(year: number): { date: string; name: string }[] {
  const list: { date: string | undefined; name: string }[] = [
    { date: observed(year, 1, 1), name: "New Year's Day" },
    { date: nthWeekday(year, 1, 1, 3), name: 'Birthday of Martin Luther King, Jr.' },
    { date: nthWeekday(year, 2, 1, 3), name: "Washington's Birthday" },
    { date: nthWeekday(year, 5, 1, -1), name: 'Memorial Day' },
    { date: observed(year, 6, 19), name: 'Juneteenth National Independence Day' },
    { date: observed(year, 7, 4), name: 'Independence Day' },
    { date: nthWeekday(year, 9, 1, 1), name: 'Labor Day' },
    { date: nthWeekday(year, 10, 1, 2), name: 'Columbus Day' },
    { date: observed(year, 11, 11), name: 'Veterans Day' },
    { date: nthWeekday(year, 11, 4, 4), name: 'Thanksgiving Day' },
    { date: observed(year, 12, 25), name: 'Christmas Day' },
  ];
  return list.filter((h): h is { date: string; name: string } => h.date !== undefined);
}

/** Whether Fedwire settles on a date (YYYY-MM-DD): a weekday that is no Federal Reserve holiday. */
export function isFedwireBusinessDay(date: string): boolean {
  const day = new Date(`${date}T00:00:00Z`).getUTCDay();
  if (day === 0 || day === 6) return false;
  return !federalReserveHolidays(Number(date.slice(0, 4))).some((h) => h.date === date);
}

/** The first Fedwire business day after a date. */
export function nextFedwireBusinessDay(date: string): string {
  let d = addDays(date, 1);
  while (!isFedwireBusinessDay(d)) d = addDays(d, 1);
  return d;
}

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
  if (isFedwireBusinessDay(date) && minutes < cutoff) return date;
  return nextFedwireBusinessDay(date);
}
