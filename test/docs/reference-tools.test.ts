/**
 * A reference every tool reads (issue 38 point 3): /openapi.json passes Redocly's recommended lint
 * with 0 problems (redocly.yaml, nothing switched off), describes each response and tag, answers
 * errors by concrete statuses (orval and other generators read no `4XX`), puts the OAuth2 flow first,
 * gives each POST's Idempotency-Key an example of its own (Postman copies it: a shared one made the
 * second POST a 422), carries its license and writes one-value enums as `const`.
 */
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.js';

type Json = Record<string, unknown>;

let t: TestApp;
let text: string;
let doc: Json;

beforeAll(async () => {
  t = await createTestApp();
  text = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).body;
  doc = JSON.parse(text) as Json;
}, 300_000);
afterAll(async () => {
  await t.close();
});

interface Problem {
  ruleId: string;
  severity: string;
  message: string;
  location: { pointer?: string }[];
}

/** Redocly's lint engine (@redocly/openapi-core, the one @redocly/cli runs), as Respect (a devDependency) installs it. */
async function redoclyCore(): Promise<{ createConfig: (raw: object) => Promise<unknown>; lintFromString: (o: { source: string; absoluteRef: string; config: unknown }) => Promise<Problem[]>; parseYaml: (text: string) => unknown }> {
  const modules = path.join(import.meta.dirname, '..', '..', 'node_modules');
  const nested = path.join(modules, '@redocly', 'respect-core', 'node_modules', '@redocly', 'openapi-core', 'lib', 'index.js');
  const core = fs.existsSync(nested) ? nested : path.join(modules, '@redocly', 'openapi-core', 'lib', 'index.js');
  return import(pathToFileURL(core).href) as never;
}

const operations = (): { path: string; method: string; op: Json }[] =>
  Object.entries(doc.paths as Record<string, Record<string, Json>>).flatMap(([p, item]) => Object.entries(item).map(([method, op]) => ({ path: p, method, op })));

describe('the reference, as tools read it', () => {
  it('passes Redocly\'s recommended rules with no problem (redocly.yaml justifies each rule it changes)', async () => {
    const { createConfig, lintFromString, parseYaml } = await redoclyCore();
    const raw = fs.readFileSync(path.join(import.meta.dirname, '..', '..', 'redocly.yaml'), 'utf8');
    const settings = parseYaml(raw) as { extends: string[]; rules?: Record<string, string> };
    expect(settings.extends).toEqual(['recommended']);
    // Each rule changed is justified by a comment right above it.
    for (const rule of Object.keys(settings.rules ?? {})) expect(raw, rule).toMatch(new RegExp(`#[^\\n]*\\n\\s*${rule}:`));
    const config = await createConfig(settings);
    const problems = await lintFromString({ source: text, absoluteRef: 'openapi.json', config });
    expect(problems.map((p) => `${p.severity} ${p.ruleId} ${p.location[0]?.pointer ?? ''}: ${p.message}`)).toEqual([]);
  }, 120_000);

  it('has its license and a description on every tag', () => {
    expect((doc.info as Json).license).toEqual({ name: 'Apache-2.0', identifier: 'Apache-2.0' });
    expect((doc.tags as Json[]).filter((tag) => !tag.description).map((tag) => tag.name)).toEqual([]);
  });

  it('answers errors by concrete statuses, each response described in its own words', () => {
    const ranges: string[] = [];
    const undescribed: string[] = [];
    for (const { path: p, method, op } of operations()) {
      for (const [status, response] of Object.entries(op.responses as Record<string, Json>)) {
        if (/X/i.test(status)) ranges.push(`${method} ${p} ${status}`);
        if (!response.description || response.description === 'Default Response') undescribed.push(`${method} ${p} ${status}`);
      }
    }
    expect(ranges).toEqual([]);
    expect(undescribed).toEqual([]);
    const create = (doc.paths as Record<string, Record<string, { responses: Record<string, { description: string }> }>>)['/v1/payouts']?.post;
    expect(Object.keys(create?.responses ?? {})).toEqual(expect.arrayContaining(['201', '400', '401', '403', '404', '409', '422', '429', '500', '503']));
    expect(create?.responses['400']?.description).toMatch(/INSUFFICIENT_BALANCE/);
    expect(create?.responses['400']?.description).toMatch(/UNKNOWN_FIELD/);
  });

  it('lists OAuth2 first, and gives each POST\'s Idempotency-Key an example of its own', () => {
    expect(Object.keys((doc.security as Json[])[0] ?? {})).toEqual(['oauth2']);
    const keys = new Map<string, string>();
    for (const { path: p, method, op } of operations()) {
      if (op.security && (op.security as Json[]).some((r) => 'bearerAuth' in r)) expect(Object.keys((op.security as Json[])[0] ?? {}), `${method} ${p}`).toEqual(['oauth2']);
      const key = ((op.parameters ?? []) as Json[]).find((q) => q.name === 'Idempotency-Key');
      if (!key) continue;
      expect(key.example, `${method} ${p}`).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-8[0-9a-f]{3}-[0-9a-f]{12}$/);
      expect(keys.has(String(key.example)), `${method} ${p} shares ${String(key.example)} with ${keys.get(String(key.example))}`).toBe(false);
      keys.set(String(key.example), `${method} ${p}`);
    }
    expect(keys.size).toBeGreaterThan(50);
  });

  it('writes a one-value enum as const', () => {
    const found: string[] = [];
    JSON.parse(text, (key, value: unknown) => {
      if (value && typeof value === 'object' && Array.isArray((value as Json).enum) && ((value as Json).enum as unknown[]).length === 1) found.push(JSON.stringify(value).slice(0, 80));
      return value;
    });
    expect(found).toEqual([]);
  });
});
