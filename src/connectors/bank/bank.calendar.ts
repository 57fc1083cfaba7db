/**
 * The bank's calendar: the execution date a file asks for (ReqdExctnDt) is a day the bank executes
 * payments, taken in the bank's time zone: not a Saturday or Sunday, not a TARGET2 closing day (1
 * January, Good Friday, Easter Monday, 1 May, 25 and 26 December, as the ECB publishes them), and not
 * today once the bank's cut-off time has passed.
 */

export interface BankCalendar {
  /** The bank's IANA time zone (`Europe/Berlin`). */
  timeZone: string;
  /** The bank's cut-off time for same-day execution, `HH:MM` in its time zone; a file cut at or after it asks for the next business day. */
  cutoffTime: string;
}

const pad = (n: number): string => String(n).padStart(2, '0');

/** Easter Sunday of a Gregorian year (the anonymous Gregorian algorithm, Meeus/Jones/Butcher), as YYYY-MM-DD. */
export function easterSunday(year: number): string {
  const a = year % 19;
  const b = Math.floor(year / 100);
  const c = year % 100;
  const d = Math.floor(b / 4);
  const e = b % 4;
  const f = Math.floor((b + 8) / 25);
  const g = Math.floor((b - f + 1) / 3);
  const h = (19 * a + b - d - g + 15) % 30;
  const i = Math.floor(c / 4);
  const k = c % 4;
  const l = (32 + 2 * e + 2 * i - h - k) % 7;
  const m = Math.floor((a + 11 * h + 22 * l) / 451);
  const month = Math.floor((h + l - 7 * m + 114) / 31);
  const day = ((h + l - 7 * m + 114) % 31) + 1;
  return `${year}-${pad(month)}-${pad(day)}`;
}

/** A YYYY-MM-DD date moved by whole days. */
export function addDays(date: string, days: number): string {
  const d = new Date(`${date}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + days);
  return d.toISOString().slice(0, 10);
}

/** TARGET2 closing days of the date's year. */
function targetClosingDays(year: number): Set<string> {
  const easter = easterSunday(year);
  return new Set([`${year}-01-01`, addDays(easter, -2), addDays(easter, 1), `${year}-05-01`, `${year}-12-25`, `${year}-12-26`]);
}

/** Whether the bank executes payments on the date (YYYY-MM-DD): a weekday that is not a TARGET2 closing day. */
export function isBusinessDay(date: string): boolean {
  const weekday = new Date(`${date}T00:00:00Z`).getUTCDay();
  return weekday !== 0 && weekday !== 6 && !targetClosingDays(Number(date.slice(0, 4))).has(date);
}

/** The date and the time (HH:MM) at `now` in the time zone. */
function localNow(now: Date, timeZone: string): { date: string; time: string } {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' })
      .formatToParts(now)
      .map((p) => [p.type, p.value]),
  );
  return { date: `${parts.year}-${parts.month}-${parts.day}`, time: `${parts.hour}:${parts.minute}` };
}

/** The execution date a file cut at `now` asks for: today in the bank's time zone before its cut-off, else the next business day. */
export function executionDate(now: Date, calendar: BankCalendar): string {
  const local = localNow(now, calendar.timeZone);
  let date = local.time >= calendar.cutoffTime ? addDays(local.date, 1) : local.date;
  while (!isBusinessDay(date)) date = addDays(date, 1);
  return date;
}

