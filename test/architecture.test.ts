import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/** Rules of the code's shape that a reviewer would otherwise have to check by hand. */

const SRC = path.resolve(import.meta.dirname, '../src');

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(full);
    return e.name.endsWith('.ts') ? [full] : [];
  });
}

/** The files a file imports (static imports and re-exports of relative paths; type-only imports included). */
function importsOf(file: string): string[] {
  const text = fs.readFileSync(file, 'utf8');
  const specifiers = [...text.matchAll(/(?:^|\n)\s*(?:import|export)\s[^;]*?from\s+'(\.[^']+)'/g)].map((m) => m[1] as string);
  return specifiers.map((s) => path.resolve(path.dirname(file), s.replace(/\.js$/, '.ts')));
}

/** Every import cycle among `files`, each as a path relative to `root` (a → b → a). */
function importCycles(files: string[], root: string): string[] {
  const graph = new Map(files.map((f) => [f, importsOf(f).filter((i) => fs.existsSync(i))]));
  const cycles: string[] = [];
  const state = new Map<string, 'visiting' | 'done'>();
  const stack: string[] = [];
  const visit = (f: string) => {
    state.set(f, 'visiting');
    stack.push(f);
    for (const next of graph.get(f) ?? []) {
      if (state.get(next) === 'visiting') cycles.push([...stack.slice(stack.indexOf(next)), next].map((p) => path.relative(root, p)).join(' → '));
      else if (!state.has(next)) visit(next);
    }
    stack.pop();
    state.set(f, 'done');
  };
  for (const f of files) if (!state.has(f)) visit(f);
  return cycles;
}

describe('the shape of src/', () => {
  const files = sourceFiles(SRC);

  it('has no import cycle', () => {
    expect(importCycles(files, SRC)).toEqual([]);
  });

  it('keeps requests and replies in routes and the HTTP layer: no service or repository takes them', () => {
    const offenders = files.filter((f) => {
      const rel = path.relative(SRC, f);
      // The web layer (src/web) is HTTP too, and the dashboard and console modules hold page routes only.
      const httpLayer = [`http${path.sep}`, `web${path.sep}`, `modules${path.sep}dashboard${path.sep}`, `modules${path.sep}console${path.sep}`];
      if (httpLayer.some((dir) => rel.startsWith(dir)) || rel.endsWith('.routes.ts') || rel === 'app.ts') return false;
      return /\bFastify(Request|Reply)\b/.test(fs.readFileSync(f, 'utf8'));
    });
    expect(offenders.map((f) => path.relative(SRC, f))).toEqual([]);
  });

  it('keeps Idempotency-Keys in the HTTP layer: no service, rule or repository of a module imports http/idempotency', () => {
    const idempotency = path.join(SRC, 'http', 'idempotency.ts');
    const offenders = files.filter((f) => f.startsWith(path.join(SRC, 'modules')) && !f.endsWith('.routes.ts') && importsOf(f).includes(idempotency));
    expect(offenders.map((f) => path.relative(SRC, f))).toEqual([]);
  });

  it('keeps every function of the payout creation path within 70 lines', () => {
    const payoutPath = ['modules/payouts/payouts.service.ts', 'modules/payouts/payouts.plan.ts', 'modules/payouts/payouts.routes.ts', 'http/idempotent-batcher.ts'];
    const long: string[] = [];
    for (const rel of payoutPath) {
      const file = path.join(SRC, rel);
      const source = ts.createSourceFile(file, fs.readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
      const visit = (node: ts.Node) => {
        if (ts.isFunctionLike(node) && 'body' in node && node.body) {
          const lines = source.getLineAndCharacterOfPosition(node.getEnd()).line - source.getLineAndCharacterOfPosition(node.getStart()).line + 1;
          if (lines > 70) long.push(`${rel}:${source.getLineAndCharacterOfPosition(node.getStart()).line + 1} (${lines} lines)`);
        }
        ts.forEachChild(node, visit);
      };
      visit(source);
    }
    expect(long).toEqual([]);
  });
});

describe('the shape of bench/', () => {
  const BENCH = path.resolve(import.meta.dirname, '../bench');
  const TEST = path.resolve(import.meta.dirname);
  const files = sourceFiles(BENCH);

  it('imports nothing from test/ (test code pulls in vitest, which crashes outside a test run)', () => {
    const offenders = files.flatMap((f) => importsOf(f).filter((i) => i.startsWith(`${TEST}${path.sep}`)).map((i) => `${path.relative(BENCH, f)} → ${path.relative(TEST, i)}`));
    expect(offenders).toEqual([]);
  });

  it('has no import cycle', () => {
    expect(importCycles(files, BENCH)).toEqual([]);
  });
});
