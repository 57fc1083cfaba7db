import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect } from '../../src/platform/db/db.js';
import { freshPostgresDatabase, onPostgres } from '../helpers/app.js';
import { CORRIDOR_BIN, corridorFreeEnv } from '../helpers/processes.js';

/** `corridor screening load`: the real command in a child process, on a database of its own. */

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const FIXTURES = path.join(ROOT, 'test', 'fixtures', 'sanctions');
const cleanups: (() => Promise<void>)[] = [];
let env: Record<string, string>;

beforeAll(async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'corridor-cli-screening-'));
  cleanups.push(async () => fs.rmSync(dir, { recursive: true, force: true }));
  env = { CORRIDOR_DATA_DIR: dir, LOG_LEVEL: 'warn' };
  if (onPostgres) {
    const pgdb = await freshPostgresDatabase();
    cleanups.push(pgdb.drop);
    env.DATABASE_URL = pgdb.url;
  }
});
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
});

function runCli(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [CORRIDOR_BIN, ...args], { cwd: ROOT, env: { ...corridorFreeEnv(), ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  // A first run creates the database (initdb and every migration on PGlite): slow on a busy machine.
  const timer = setTimeout(() => child.kill('SIGKILL'), 180_000);
  return new Promise((resolve) =>
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    }),
  );
}

describe('corridor screening load', () => {
  it('loads OFAC’s CSV set from its three files as one version and prints its counts', async () => {
    const files = ['SDN.CSV', 'ALT.CSV', 'ADD.CSV'].flatMap((f) => ['--file', path.join(FIXTURES, 'ofac', f)]);
    const res = await runCli(['screening', 'load', '--list', 'ofac-sdn', ...files]);
    expect(res.code, res.stderr).toBe(0);
    expect(JSON.parse(res.stdout)).toMatchObject({ list: 'ofac-sdn', format: 'ofac-csv', entries: 5, individuals: 2, entities: 3, loadedBy: 'cli' });
  }, 240_000);

  it('loads the UK list; the versions and the audit entries are kept', async () => {
    const res = await runCli(['screening', 'load', '--list', 'uk-ofsi', '--file', path.join(FIXTURES, 'uk', 'ConList.csv')]);
    expect(res.code, res.stderr).toBe(0);
    expect(JSON.parse(res.stdout)).toMatchObject({ list: 'uk-ofsi', entries: 3 });
    const db = await connect({ databaseUrl: env.DATABASE_URL, dataDir: env.CORRIDOR_DATA_DIR as string });
    try {
      const versions = await db.query<{ list: string; entries: number }>('SELECT list, entries FROM screening_list_versions ORDER BY loaded_at');
      expect(versions).toEqual([{ list: 'ofac-sdn', entries: 5 }, { list: 'uk-ofsi', entries: 3 }]);
      const audit = await db.query<{ actor: string; path: string }>("SELECT actor, path FROM operator_audit_log WHERE method = 'CLI' ORDER BY at");
      expect(audit).toEqual([
        { actor: 'cli', path: 'corridor screening load --list ofac-sdn' },
        { actor: 'cli', path: 'corridor screening load --list uk-ofsi' },
      ]);
    } finally {
      await db.close();
    }
  }, 240_000);

  it('refuses a file that is not the list, and bad arguments, with exit code 2', async () => {
    const wrong = await runCli(['screening', 'load', '--list', 'un', '--file', path.join(FIXTURES, 'eu', 'sanctions.xml')]);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toMatch(/not a un list/);
    const noList = await runCli(['screening', 'load', '--list', 'interpol', '--file', path.join(FIXTURES, 'eu', 'sanctions.xml')]);
    expect(noList.code).toBe(2);
    expect(noList.stderr).toMatch(/--list must be one of/);
    expect((await runCli(['screening', 'load', '--list', 'eu', '--file', '/no/such/file.xml'])).stderr).toMatch(/no file/);
  }, 240_000);
});
