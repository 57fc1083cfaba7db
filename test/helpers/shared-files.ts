import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository's root, from this file. */
const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** A path under ../shared/real-world/ beside the repository (published files, see its SOURCES.md): read where it is, never copied into the repository. */
export function realWorldFile(...parts: string[]): string {
  return path.resolve(REPO_ROOT, '../shared/real-world', ...parts);
}
