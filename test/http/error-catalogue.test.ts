/**
 * The error-code catalogue (src/platform/http/error-catalogue.ts) lists every code the source can answer with:
 * codes passed to lib/errors.ts helpers and AppError/DomainError (`code: '…'`), as read from src/.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../../src/platform/http/error-catalogue.js';

const src = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'src');

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}

/** Places a code is given: `code: 'X'`, refusal/forbidden/conflict('X'), a fieldError's third argument, a refusal(category, 'X'). */
const PATTERNS = [
  /\bcode:\s*'([A-Za-z_]+)'/g,
  /\b(?:refusal|forbidden|conflict)\(\s*'([A-Za-z_]+)'/g,
  /\brefusal\(\s*'[a-z_]+',\s*'([A-Z_]+)'/g,
  /\bfieldError\([^;]*?,\s*'([A-Z][A-Z0-9_]+)'\s*\)/g,
  /\bentry\([^;]*?,\s*'([A-Z][A-Z0-9_]+)'\s*\)/g,
];
/**
 * Not error codes: OAuth errors of the token endpoint (their own RFC 6749 shape), the web pages' own
 * refusals (HTML, not the API), and ISO 20022 scheme codes written into a provider's request (BBAN).
 */
const NOT_API_CODES = new Set(['ENOTFOUND', 'CSRF_REJECTED', 'SIGNED_OUT', 'CODE_MISMATCH', 'PASSWORD_MISMATCH', 'WHEN_REQUIRED', 'BBAN']);
/** Files whose codes are not answered by the API (a provider's simulator answers in the provider's codes). */
const NOT_API = /[\\/](web|cli)[\\/]|\.pages\.ts$|[\\/]config\.ts$|[\\/]currencies\.ts$|[\\/]simulator\.ts$/;

function thrownCodes(): Map<string, string> {
  const codes = new Map<string, string>();
  for (const file of sourceFiles(src)) {
    const text = fs.readFileSync(file, 'utf8');
    for (const pattern of PATTERNS) {
      for (const match of text.matchAll(pattern)) {
        const code = match[1] as string;
        if (NOT_API_CODES.has(code) || code === '') continue;
        // Ledger account codes (`code: row.route`) and other non-error `code` fields are lower case words, not refusals.
        if (NOT_API.test(file)) continue;
        // Lower-case codes exist only as forbidden()/conflict() codes (not_account_owner); elsewhere they are categories.
        if (!/^[A-Z][A-Z0-9_]+$/.test(code) && !/^(forbidden|conflict)\(/.test(match[0])) continue;
        if (!codes.has(code)) codes.set(code, path.relative(src, file));
      }
    }
  }
  return codes;
}

describe('the error-code catalogue', () => {
  it('lists every code thrown in src (add the missing ones to src/platform/http/error-catalogue.ts)', () => {
    const listed = new Set(ERROR_CODES.map((e) => e.code));
    const missing = [...thrownCodes()].filter(([code]) => !listed.has(code)).map(([code, file]) => `${code} (${file})`);
    expect(missing).toEqual([]);
  });

  it('finds the codes it should (the extraction works)', () => {
    const codes = thrownCodes();
    for (const code of ['INSUFFICIENT_BALANCE', 'IDEMPOTENCY_KEY_REUSED', 'UPLOAD_URL_USED', 'not_account_owner', 'SENDER_INFO_INVALID', 'UNSUPPORTED_CURRENCY']) expect(codes.has(code), code).toBe(true);
  });

  it('has each code once, with a status, a meaning and what to do', () => {
    const codes = ERROR_CODES.map((e) => e.code);
    expect(codes.length - new Set(codes).size).toBe(0);
    for (const entry of ERROR_CODES) {
      expect(entry.status.length, entry.code).toBeGreaterThan(0);
      expect(entry.meaning.length, entry.code).toBeGreaterThan(5);
      expect(entry.action.length, entry.code).toBeGreaterThan(3);
    }
  });

  it('lists the codes answered without a code of their own (by status)', () => {
    const listed = new Set(ERROR_CODES.map((e) => e.code));
    for (const code of ['VALIDATION_ERROR', 'NOT_FOUND', 'PAYLOAD_TOO_LARGE', 'RATE_LIMITED', 'INTERNAL_ERROR', 'CONFLICT', 'FORBIDDEN', 'UNPROCESSABLE_ENTITY']) expect(listed.has(code), code).toBe(true);
  });
});
