import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';

/** The esbuild tsx itself transforms with (its dependency), so the transpiled files are what tsx runs. */
const { transform } = createRequire(createRequire(import.meta.url).resolve('tsx/package.json'))('esbuild') as typeof import('esbuild');

/**
 * The `corridor` command with its TypeScript transpiled ahead of time, for the tests that start it in
 * child processes (test/global-setup.ts builds it once per run and names it in CORRIDOR_TEST_BIN).
 *
 * bin/corridor.js loads the sources through tsx's loader hooks, which run on a thread of their own:
 * every one of the ~1,000 modules a start imports (ours and node_modules') is resolved and loaded by a
 * round trip to it, which costs a process 4-5 s of CPU more than loading the same modules natively
 * (measured: `corridor --help` 7.5-8.6 s of CPU through tsx, 3.6-3.7 s from this tree). The tree is
 * what tsx would run: the same esbuild transform of each file (tsconfig.json's settings, this node's
 * target), ours and the SDK's, beside copies of every other file the sources read next to themselves
 * (migrations, XSDs, web assets, the bank reader's child, package.json). bin/corridor.js itself stays
 * covered: test/cli/cli.test.ts starts a first instance through it.
 */
export async function buildPrebuiltBin(root: string): Promise<{ bin: string; dir: string }> {
  // Inside the repository, so that the copies resolve their packages from its node_modules.
  const cache = path.join(root, 'node_modules', '.cache', 'corridor-test-bin');
  fs.mkdirSync(cache, { recursive: true });
  // A run removes its own at exit; one killed first leaves it, removed here a day later.
  for (const old of fs.readdirSync(cache)) {
    const stale = path.join(cache, old);
    if (Date.now() - fs.statSync(stale).mtimeMs > 86_400_000) fs.rmSync(stale, { recursive: true, force: true });
  }
  const dir = fs.mkdtempSync(path.join(cache, 'run-'));
  const tsconfigRaw = fs.readFileSync(path.join(root, 'tsconfig.json'), 'utf8');
  const target = `node${process.versions.node}`;
  const jobs: Promise<void>[] = [];
  for (const top of ['src', 'packages/sdk/src']) {
    for (const entry of fs.readdirSync(path.join(root, top), { recursive: true, withFileTypes: true })) {
      if (!entry.isFile()) continue;
      const from = path.join(entry.parentPath, entry.name);
      const to = path.join(dir, path.relative(root, from));
      fs.mkdirSync(path.dirname(to), { recursive: true });
      // The .ts files stay too: the bank reader's child (an .mjs) loads its .ts through tsx, as in the repository.
      fs.copyFileSync(from, to);
      if (!entry.name.endsWith('.ts') || entry.name.endsWith('.d.ts')) continue;
      jobs.push(
        (async () => {
          const source = fs.readFileSync(from, 'utf8');
          const out = await transform(source, { loader: 'ts', format: 'esm', target, tsconfigRaw, sourcefile: from, sourcemap: 'inline' });
          fs.writeFileSync(to.replace(/\.ts$/, '.js'), out.code);
        })(),
      );
    }
  }
  await Promise.all(jobs);
  // The version `corridor` prints, and "type": "module" for the .js files.
  fs.copyFileSync(path.join(root, 'package.json'), path.join(dir, 'package.json'));
  // bin/corridor.js without tsx: the same tracing set-up, then the transpiled entry point.
  const original = fs.readFileSync(path.join(root, 'bin', 'corridor.js'), 'utf8');
  let bin = original;
  const replace = (from: RegExp, to: string) => {
    const next = bin.replace(from, to);
    if (next === bin) throw new Error(`bin/corridor.js changed shape: ${from} not found; update test/helpers/prebuilt-bin.ts`);
    bin = next;
  };
  replace(/^import \{ register \} from 'tsx\/esm\/api';\n/m, '');
  replace(/^register\(\);\n/m, 'process.setSourceMapsEnabled(true);\n');
  replace(/\.\.\/src\/platform\/observability\/tracing\.ts'/, "../src/platform/observability/tracing.js'");
  replace(/\.\.\/src\/main\.ts'/, "../src/main.js'");
  if (/\.ts'/.test(bin) || /tsx/.test(bin.replace(/^\/\/.*$/gm, ''))) throw new Error('bin/corridor.js changed shape: update test/helpers/prebuilt-bin.ts');
  fs.mkdirSync(path.join(dir, 'bin'));
  fs.writeFileSync(path.join(dir, 'bin', 'corridor.js'), bin);
  return { bin: path.join(dir, 'bin', 'corridor.js'), dir };
}
