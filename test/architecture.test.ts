import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/** Rules of the code's shape that a reviewer would otherwise have to check by hand. */

const SRC = path.resolve(import.meta.dirname, '../src');
/** The kinds src/ is grouped by (docs/architecture.md, Layout). */
const KINDS = ['platform', 'domains', 'controls', 'connectors', 'faces'];

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

/** Every function in `files` longer than `linesMax` lines, as file:line (n lines), the path relative to src/. */
function longFunctions(files: string[], linesMax: number): string[] {
  const long: string[] = [];
  for (const file of files) {
    const source = ts.createSourceFile(file, fs.readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
    const visit = (node: ts.Node) => {
      if (ts.isFunctionLike(node) && 'body' in node && node.body) {
        const lines = source.getLineAndCharacterOfPosition(node.getEnd()).line - source.getLineAndCharacterOfPosition(node.getStart()).line + 1;
        if (lines > linesMax) long.push(`${path.relative(SRC, file)}:${source.getLineAndCharacterOfPosition(node.getStart()).line + 1} (${lines} lines)`);
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return long;
}

describe('the shape of src/', () => {
  const files = sourceFiles(SRC);

  it('has no import cycle', () => {
    expect(importCycles(files, SRC)).toEqual([]);
  });

  it('keeps requests and replies in routes and the HTTP layer: no service or repository takes them', () => {
    const offenders = files.filter((f) => {
      const rel = path.relative(SRC, f);
      // The faces (src/faces: the page kit, the dashboard, the console, the docs) are HTTP too, and so are pages wherever they live.
      const httpLayer = [path.join('platform', 'http') + path.sep, `faces${path.sep}`];
      if (httpLayer.some((dir) => rel.startsWith(dir)) || rel.endsWith('.routes.ts') || rel.endsWith('.pages.ts') || rel === 'app.ts') return false;
      return /\bFastify(Request|Reply)\b/.test(fs.readFileSync(f, 'utf8'));
    });
    expect(offenders.map((f) => path.relative(SRC, f))).toEqual([]);
  });

  it('keeps Idempotency-Keys in the HTTP layer: no service, rule or repository imports platform/http/idempotency', () => {
    const idempotency = path.join(SRC, 'platform', 'http', 'idempotency.ts');
    const moduleKinds = ['domains', 'controls', 'connectors', 'platform'].map((k) => path.join(SRC, k) + path.sep);
    const offenders = files.filter(
      (f) => moduleKinds.some((k) => f.startsWith(k)) && !f.startsWith(path.join(SRC, 'platform', 'http') + path.sep) && !f.endsWith('.routes.ts') && importsOf(f).includes(idempotency),
    );
    expect(offenders.map((f) => path.relative(SRC, f))).toEqual([]);
  });

  it('keeps SQL in repositories: no statement, query call or list query outside *.repository.ts, platform/db/ and platform/jobs/queue.ts', () => {
    const statement = /[`'"]\s*(SELECT|INSERT INTO|UPDATE [a-z_]+ SET|DELETE FROM|WITH [a-z_]+ AS|LISTEN|NOTIFY)\b/;
    const queryCall = /\.query\s*(<[^>()]*>)?\(|\b(paginate|listFilters|maybeOne)\s*(<[^>()]*>)?\(|\bone(<[^>()]*>)?\(\s*(sql|tx|db|ctx\.db)\b/;
    const offenders = files.filter((f) => {
      const rel = path.relative(SRC, f);
      if (rel.endsWith('.repository.ts') || rel.startsWith(path.join('platform', 'db') + path.sep) || rel === path.join('platform', 'jobs', 'queue.ts')) return false;
      const text = fs.readFileSync(f, 'utf8');
      return statement.test(text) || queryCall.test(text);
    });
    expect(offenders.map((f) => path.relative(SRC, f))).toEqual([]);
  });

  it('keeps each table with one module: no file imports the repository of another module', () => {
    // The owner of a file is its module (the folder under src/<kind>: domains/payouts, connectors/bank), or its folder elsewhere in src.
    const ownerOf = (f: string) => {
      const parts = path.relative(SRC, f).split(path.sep);
      return KINDS.includes(parts[0] as string) && parts.length > 2 ? parts.slice(0, 2).join('/') : parts.slice(0, -1).join('/');
    };
    const offenders = files.flatMap((f) =>
      importsOf(f)
        .filter((i) => i.endsWith('.repository.ts') && ownerOf(i) !== ownerOf(f))
        .map((i) => `${path.relative(SRC, f)} → ${path.relative(SRC, i)}`),
    );
    expect(offenders).toEqual([]);
  });

  it('keeps platform/http/ for the HTTP side: only routes, pages, the faces and app.ts import it', () => {
    const http = path.join(SRC, 'platform', 'http') + path.sep;
    const httpSide = (rel: string) =>
      rel.endsWith('.routes.ts') || rel.endsWith('.pages.ts') || rel === 'app.ts' || [path.join('platform', 'http'), 'faces'].some((dir) => rel.startsWith(dir + path.sep));
    const offenders = files.flatMap((f) =>
      httpSide(path.relative(SRC, f)) ? [] : importsOf(f).filter((i) => i.startsWith(http)).map((i) => `${path.relative(SRC, f)} → ${path.relative(SRC, i)}`),
    );
    expect(offenders).toEqual([]);
  });

  it('keeps every function of the payout creation path within 70 lines', () => {
    const payoutPath = ['domains/payouts/payouts.service.ts', 'domains/payouts/payouts.plan.ts', 'domains/payouts/payouts.routes.ts', 'platform/http/idempotent-batcher.ts'];
    expect(longFunctions(payoutPath.map((rel) => path.join(SRC, rel)), 70)).toEqual([]);
  });

  it('keeps route registration short: no function in a *.routes.ts file is over 80 lines (handlers are named)', () => {
    expect(longFunctions(files.filter((f) => f.endsWith('.routes.ts')), 80)).toEqual([]);
  });
});

describe('the shape of test/', () => {
  const TEST = path.resolve(import.meta.dirname);
  const folders = (dir: string) => fs.readdirSync(dir, { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name);
  // A folder per module of src/<kind> (test/payouts for src/domains/payouts, test/http for src/platform/http,
  // test/bank for src/connectors/bank), test/connectors for what all connectors share, and the tests of the
  // documentation and the helpers; at the root only this file, whose rules are about the whole tree.
  const allowed = new Set([...KINDS.flatMap((k) => folders(path.join(SRC, k))), 'connectors', 'docs', 'helpers']);

  it('mirrors the code: every test file sits in a folder named after a module of src/, or a cross-cutting one', () => {
    const misplaced = sourceFiles(TEST)
      .map((f) => path.relative(TEST, f))
      .filter((rel) => rel.endsWith('.test.ts') && rel !== 'architecture.test.ts')
      .filter((rel) => {
        const parts = rel.split(path.sep);
        return parts.length !== 2 || !allowed.has(parts[0] as string);
      });
    expect(misplaced).toEqual([]);
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
