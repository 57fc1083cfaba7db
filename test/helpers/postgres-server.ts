import { execFile, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './processes.js';

/**
 * A PostgreSQL server a test owns (initdb into a temporary directory, pg_ctl on a free port), to
 * stop and start at will without touching the shared test server. PostgreSQL refuses to run as
 * root: as root, its commands run as the `postgres` system user.
 */

const run = promisify(execFile);

/** The directory of initdb and pg_ctl (the newest installed major version), or undefined. */
export function postgresBinDir(): string | undefined {
  const root = '/usr/lib/postgresql';
  if (!fs.existsSync(root)) return undefined;
  const versions = fs
    .readdirSync(root)
    .filter((v) => fs.existsSync(path.join(root, v, 'bin', 'pg_ctl')) && fs.existsSync(path.join(root, v, 'bin', 'initdb')))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] ? path.join(root, versions[0], 'bin') : undefined;
}

function systemUser(name: string): { uid: number; gid: number } | undefined {
  try {
    return { uid: Number(execFileSync('id', ['-u', name]).toString().trim()), gid: Number(execFileSync('id', ['-g', name]).toString().trim()) };
  } catch {
    return undefined;
  }
}

const asRoot = process.getuid?.() === 0;
const runuser = ['/usr/sbin/runuser', '/sbin/runuser', '/usr/bin/runuser'].find((p) => fs.existsSync(p));
/** Whether this machine can run a server of the test's own: the binaries, and a user to run them as. */
export const canRunOwnPostgres = postgresBinDir() !== undefined && (!asRoot || (runuser !== undefined && systemUser('postgres') !== undefined));

export interface OwnPostgres {
  url: string;
  stop: (mode?: 'immediate' | 'fast') => Promise<void>;
  start: () => Promise<void>;
  /** Stops the server if it runs and deletes its files. */
  destroy: () => Promise<void>;
}

export async function startOwnPostgres(): Promise<OwnPostgres> {
  const bin = postgresBinDir();
  if (!bin) throw new Error('no PostgreSQL binaries under /usr/lib/postgresql');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'corridor-pg-'));
  const owner = asRoot ? systemUser('postgres') : undefined;
  if (asRoot && !owner) throw new Error('running as root without a postgres user');
  if (owner) fs.chownSync(dir, owner.uid, owner.gid);
  const pgdata = path.join(dir, 'data');
  const port = await freePort();
  const cmd = (tool: string, args: string[]) =>
    owner && runuser ? run(runuser, ['-u', 'postgres', '--', path.join(bin, tool), ...args]) : run(path.join(bin, tool), args);

  await cmd('initdb', ['-D', pgdata, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync']);
  // fsync=off only risks data when the machine itself crashes; a stopped or killed server loses no
  // acknowledged commit (synchronous_commit stays on: the test counts on exactly that).
  const options = `-p ${port} -c listen_addresses=127.0.0.1 -c unix_socket_directories=${dir} -c fsync=off`;
  const start = async () => {
    await cmd('pg_ctl', ['-D', pgdata, '-l', path.join(dir, 'server.log'), '-o', options, '-w', '-t', '60', 'start']);
  };
  const stop = async (mode: 'immediate' | 'fast' = 'immediate') => {
    await cmd('pg_ctl', ['-D', pgdata, '-m', mode, '-w', 'stop']);
  };
  await start();
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    start,
    stop,
    destroy: async () => {
      await stop('immediate').catch(() => undefined);
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
