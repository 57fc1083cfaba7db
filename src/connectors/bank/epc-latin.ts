import anyAscii from 'any-ascii';

/**
 * Text a bank file can carry: the EPC's basic Latin character set (EPC132-08 SCT C2PSP implementation
 * guidelines; see ../shared/real-world/epc/NOTES.md), which every SEPA bank must take and which is a
 * subset of the CBPR+ set, so one conversion serves both rails:
 *
 *   a-z A-Z 0-9 / - ? : ( ) . , ' + and space
 *
 * Anything else is converted as the EPC's conversion table (EPC217-08) does: letters and digits of
 * other scripts to their Latin transliteration (ä to a, ß to ss, Ł to L, Greek and Cyrillic letters to
 * Latin ones) through any-ascii, other spaces to a space, quotation marks to an apostrophe, the
 * ampersand to a plus sign, and other punctuation to a full stop. What has no Latin equivalent is
 * refused, never dropped: control and format characters (U+0001, ESC, a vertical tab, a zero-width
 * joiner), non-characters (U+FFFF), private-use and unassigned code points, and emoji.
 *
 * Text is read code point by code point, so a character is never cut in half.
 */

const BASIC = /^[A-Za-z0-9/\-?:().,'+ ]$/u;
/** Characters no file may carry: controls, formats, surrogates, private use, unassigned (U+FFFF among them), line and paragraph separators. */
const UNCARRIABLE = /^[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}]$/u;
const SPACE = /^\p{Zs}$/u;
/** Combining marks left after NFC (a stray accent or a variation selector): the letter they sit on carries the meaning. */
const MARK = /^\p{M}$/u;
/** ASCII punctuation outside the basic set, as the EPC table converts it; the rest becomes a full stop. */
const PUNCTUATION: Readonly<Record<string, string>> = { '&': '+', '"': "'", '`': "'" };

/** A code point as U+XXXX. */
export const codePoint = (ch: string): string => `U+${(ch.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}`;

function describe(ch: string): string {
  const cp = ch.codePointAt(0) ?? 0;
  if (/^\p{Cc}$/u.test(ch)) return `a control character (${codePoint(ch)})`;
  if (/^\p{Cf}$/u.test(ch)) return `an invisible format character (${codePoint(ch)})`;
  if ((cp & 0xfffe) === 0xfffe || (cp >= 0xfdd0 && cp <= 0xfdef)) return `${codePoint(ch)}, which is not a character`;
  return `a character a bank file cannot carry (${codePoint(ch)})`;
}

/** The basic-set form of ASCII text (any-ascii's output): the set's own characters kept, the others converted. */
const basicOf = (ascii: string): string => [...ascii].map((c) => (BASIC.test(c) ? c : (PUNCTUATION[c] ?? '.'))).join('');

export type Converted = { ok: true; text: string } | { ok: false; reason: string };

/** The text in the EPC basic Latin set, or why it cannot be converted (naming the first character at fault). */
export function toEpcLatin(value: string): Converted {
  let text = '';
  for (const ch of value.normalize('NFC')) {
    if (BASIC.test(ch)) text += ch;
    else if (UNCARRIABLE.test(ch)) return { ok: false, reason: `contains ${describe(ch)}` };
    else if (SPACE.test(ch)) text += ' ';
    else if (MARK.test(ch)) continue;
    else if (ch.charCodeAt(0) < 0x80) text += basicOf(ch);
    else {
      const ascii = anyAscii(ch);
      // any-ascii writes an emoji as its name between colons (":grinning:"): no Latin equivalent.
      if (ascii === '' || /^:.+:$/.test(ascii)) return { ok: false, reason: `contains ${/^\p{Extended_Pictographic}$/u.test(ch) ? 'an emoji' : 'a character with no Latin equivalent'} (${codePoint(ch)})` };
      text += basicOf(ascii);
    }
  }
  return { ok: true, text };
}
