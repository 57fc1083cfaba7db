/** Text as PostgreSQL can store it: no NUL characters, no unpaired surrogates. */

const wellFormed = (s: string): boolean => (s as unknown as { isWellFormed(): boolean }).isWellFormed();

/** Why a string cannot be stored as sent, or undefined when it can. */
export function unstorable(s: string): string | undefined {
  if (s.includes('\u0000')) return 'must not contain a NUL character (U+0000)';
  if (!wellFormed(s)) return 'must not contain an unpaired surrogate (it is not valid Unicode)';
  return undefined;
}

/**
 * Text as it can be stored: NULs and unpaired surrogates replaced by U+FFFD. Only for records of
 * what was refused (the audit log of a refused call); input itself is refused, never changed.
 */
export function storableText(s: string): string {
  return unstorable(s) ? (s.replaceAll('\u0000', '\ufffd') as unknown as { toWellFormed(): string }).toWellFormed() : s;
}
