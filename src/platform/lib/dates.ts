import { fullFormats } from 'ajv-formats/dist/formats.js';

/** The RFC 3339 checks the request schemas' `date` and `date-time` formats make (calendar days included). */
const rfc3339 = (name: 'date' | 'date-time') => (fullFormats[name] as { validate: (text: string) => boolean }).validate;
const isRfc3339Day = rfc3339('date');
const isRfc3339DateTime = rfc3339('date-time');

/**
 * RFC 3339 takes the year 0000; PostgreSQL has no year 0 (1 BC comes before AD 1) and refuses it,
 * so a date of year 0 would reach the database and fail there. Dates on the wire are AD 0001-9999.
 */
const inRange = (text: string): boolean => Number(text.slice(0, 4)) >= 1;

/** `2025-01-31T12:00:00Z`: an RFC 3339 date-time the database can compare with (the one check of every date-time filter). */
export function isDateTime(text: string): boolean {
  return isRfc3339DateTime(text) && inRange(text);
}

/** `2025-01-31`: an RFC 3339 full date the database can store. */
export function isDay(text: string): boolean {
  return isRfc3339Day(text) && inRange(text);
}

/** A day's bounds in UTC: its first instant, and the first instant of the next day (the last day of year 9999 ends at its last millisecond). */
export function dayBounds(day: string): { instant: string; nextInstant: string } {
  const next = new Date(`${day}T00:00:00.000Z`);
  next.setUTCDate(next.getUTCDate() + 1);
  return { instant: `${day}T00:00:00.000Z`, nextInstant: day === '9999-12-31' ? '9999-12-31T23:59:59.999Z' : next.toISOString() };
}
