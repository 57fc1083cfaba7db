import { unstorable } from '../lib/text.js';
import { isUtf8 } from 'node:buffer';
import type { FastifyRequest } from 'fastify';
import { AppError } from './errors.js';
import { fieldError } from '../lib/errors.js';

/**
 * What every request's input must be before any route sees it, whatever the route (issue 14.5):
 * JSON bodies are UTF-8 (the only charset taken), valid UTF-8 bytes, nested at most `depthMax`
 * levels, with no key given twice in one object (a proxy or a signer may read the first one, we
 * would read the last); and no string of the body, query string or path, nor any key, holds a NUL
 * (PostgreSQL refuses the byte) or an unpaired UTF-16 surrogate (`\udfff`: JSON.parse keeps it,
 * PostgreSQL would refuse it or store U+FFFD in its place). Each is a 400 naming the field.
 */

/** `application/json; charset=...`: anything but UTF-8 is refused (the body is decoded as UTF-8). */
export function assertUtf8Charset(contentType: string | undefined): void {
  const charset = /;\s*charset\s*=\s*"?([^";\s]*)"?/i.exec(contentType ?? '')?.[1];
  if (charset !== undefined && !/^utf-?8$/i.test(charset)) {
    throw new AppError({ status: 415, code: 'UNSUPPORTED_MEDIA_TYPE', message: `Content-Type charset must be utf-8, got "${charset}"` });
  }
}

/** The body's bytes as text; bytes that are not UTF-8 are refused rather than turned into U+FFFD. */
export function utf8Text(bytes: Buffer): string {
  if (!isUtf8(bytes)) throw fieldError('body', 'body is not valid UTF-8');
  return bytes.toString('utf8');
}

/** A key written with escapes, as the parser will read it; a malformed one is the body's syntax error. */
function escapedKey(quoted: string): string {
  try {
    return JSON.parse(quoted) as string;
  } catch {
    throw fieldError('body', 'body is not valid JSON');
  }
}

type Frame = { object: true; keys: Set<string> | undefined; key: string; expectKey: boolean } | { object: false; index: number };

const pathOf = (frames: Frame[]): string[] => frames.map((f) => (f.object ? f.key : String(f.index)));
const fieldOf = (path: string[]): string => path.map(printable).join('.') || 'body';

/**
 * One pass over JSON text before it is parsed (so a deep body costs nothing past `depthMax`
 * levels): refuses nesting deeper than `depthMax` and a key given twice in one object (at any
 * depth; `"a"` and `"\u0061"` are the same key). Whatever else is wrong is left to the parser.
 */
export function assertJsonShape(text: string, depthMax: number): void {
  const frames: Frame[] = [];
  const n = text.length;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      const start = i;
      let escaped = false;
      for (i++; i < n; i++) {
        const d = text.charCodeAt(i);
        if (d === 0x5c) {
          escaped = true;
          i++;
        } else if (d === 0x22) break;
      }
      const top = frames[frames.length - 1];
      if (top?.object && top.expectKey) {
        const key = escaped ? escapedKey(text.slice(start, i + 1)) : text.slice(start + 1, i);
        top.keys ??= new Set();
        if (top.keys.has(key)) {
          const field = fieldOf([...pathOf(frames.slice(0, -1)), key]);
          throw fieldError(field, `${field} is given more than once`);
        }
        top.keys.add(key);
        top.key = key;
        top.expectKey = false;
      }
    } else if (c === 0x7b || c === 0x5b) {
      if (frames.length >= depthMax) {
        const field = fieldOf(pathOf(frames));
        throw fieldError(field, `${field} is nested deeper than ${depthMax} levels`);
      }
      frames.push(c === 0x7b ? { object: true, keys: undefined, key: '', expectKey: true } : { object: false, index: 0 });
    } else if (c === 0x7d || c === 0x5d) {
      frames.pop();
    } else if (c === 0x2c) {
      const top = frames[frames.length - 1];
      if (top?.object) top.expectKey = true;
      else if (top) top.index++;
    }
  }
}

/** A key as it can be shown in a field name (its NULs and unpaired surrogates escaped). */
const printable = (key: string): string => (unstorable(key) ? JSON.stringify(key).slice(1, -1) : key);

/** Parsed JSON, form or query objects; not bytes or a stream a route may take as its body. */
const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !ArrayBuffer.isView(value) && typeof (value as { pipe?: unknown }).pipe !== 'function';

/** Depth-first over a parsed value (its depth is bounded by assertJsonShape); throws at the first bad string. */
function assertStorable(value: unknown, path: string[], root: string): void {
  if (typeof value === 'string') {
    const why = unstorable(value);
    if (why) {
      const field = path.map(printable).join('.') || root;
      throw fieldError(field, `${field} ${why}`);
    }
  } else if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      path.push(String(i));
      assertStorable(value[i], path, root);
      path.pop();
    }
  } else if (isPlainObject(value)) {
    for (const [key, v] of Object.entries(value)) {
      path.push(key);
      const why = unstorable(key);
      if (why) {
        const field = path.map(printable).join('.');
        throw fieldError(field, `${field}: the key ${why}`);
      }
      assertStorable(v, path, root);
      path.pop();
    }
  }
}

/** JSON text that may hold a NUL or a surrogate: only an escape can put one there (raw ones are invalid JSON or UTF-8). */
const MAY_HOLD_UNSTORABLE = /\\u(?:0000|[dD][89a-fA-F])/;

/** A query string's percent-escapes must decode as UTF-8; the name of the first parameter that does not. */
function undecodableParameter(query: string): string | undefined {
  for (const part of query.split('&')) {
    try {
      decodeURIComponent(part.replace(/\+/g, ' '));
    } catch {
      const name = part.split('=')[0] ?? '';
      try {
        return printable(decodeURIComponent(name)) || 'query';
      } catch {
        return 'query';
      }
    }
  }
  return undefined;
}

/** The one check of every string a request carries: body, query string and path parameters. */
export async function assertStorableInput(req: FastifyRequest): Promise<void> {
  const q = req.url.indexOf('?');
  if (q >= 0 && req.url.includes('%', q)) {
    const name = undecodableParameter(req.url.slice(q + 1));
    if (name !== undefined) throw fieldError(name, `${name} is not valid percent-encoded UTF-8`);
  }
  assertStorable(req.params, [], 'path');
  assertStorable(req.query, [], 'query');
  if (req.body !== undefined && (req.rawBody === undefined || MAY_HOLD_UNSTORABLE.test(req.rawBody))) assertStorable(req.body, [], 'body');
}
