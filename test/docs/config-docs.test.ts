import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CONFIG_DOC_PATH, configDocs } from '../../scripts/config-docs.js';
import { ENV_SETTINGS } from '../../src/platform/config.js';

/** The documentation stands alone and says what the code does: generated reference, working links. */

const ROOT = path.resolve(import.meta.dirname, '../..');

describe('docs/configuration.md', () => {
  it('is what `npm run docs:config` writes from src/platform/config.ts (run it after changing a setting)', () => {
    expect(fs.readFileSync(CONFIG_DOC_PATH, 'utf8')).toBe(configDocs());
  });

  it('lists every declared setting, and src/platform/config.ts reads the environment only through that list', () => {
    const doc = fs.readFileSync(CONFIG_DOC_PATH, 'utf8');
    for (const name of Object.keys(ENV_SETTINGS)) expect(doc).toContain(`| \`${name}\` |`);
    const source = fs.readFileSync(path.join(ROOT, 'src/platform/config.ts'), 'utf8');
    expect(source.match(/\benv\.[A-Z][A-Z0-9_]*|\benv\[['"`]/g) ?? []).toEqual([]);
  });
});

/** The Markdown files of the repository's documentation: the README and everything under docs/. */
function markdownFiles(): string[] {
  const walk = (dir: string): string[] =>
    fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(path.join(dir, e.name)) : e.name.endsWith('.md') ? [path.join(dir, e.name)] : []));
  return [path.join(ROOT, 'README.md'), ...walk(path.join(ROOT, 'docs'))];
}

/** Every link target of a Markdown text (inline links and images), code spans and blocks left out. */
function linkTargets(markdown: string): string[] {
  const prose = markdown.replace(/```[\s\S]*?```/g, '').replace(/`[^`\n]*`/g, '');
  return [...prose.matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((m) => m[1] as string);
}

describe('links in README.md and docs/', () => {
  const files = markdownFiles();

  it('finds the documentation', () => {
    expect(files.map((f) => path.relative(ROOT, f))).toEqual(expect.arrayContaining(['README.md', 'docs/configuration.md', 'docs/architecture.md']));
  });

  it('point to files that exist, inside the repository', () => {
    const broken: string[] = [];
    for (const file of files) {
      for (const target of linkTargets(fs.readFileSync(file, 'utf8'))) {
        if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('#')) continue; // URLs and same-page anchors
        const resolved = path.resolve(path.dirname(file), decodeURIComponent(target.split('#')[0] as string));
        const where = `${path.relative(ROOT, file)} → ${target}`;
        if (path.relative(ROOT, resolved).startsWith('..') || path.isAbsolute(path.relative(ROOT, resolved))) broken.push(`${where} (outside the repository)`);
        else if (!fs.existsSync(resolved)) broken.push(`${where} (no such file)`);
      }
    }
    expect(broken).toEqual([]);
  });

  it('name no file outside the repository, linked or not (the spec and design notes are not shipped)', () => {
    const outside = files.filter((f) => /\.\.\/shared\b/.test(fs.readFileSync(f, 'utf8'))).map((f) => path.relative(ROOT, f));
    expect(outside).toEqual([]);
  });
});
