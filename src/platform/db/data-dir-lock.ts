import fs from 'node:fs';
import path from 'node:path';

/**
 * One process at a time on an embedded data directory. Two PGlite instances on the same files do not
 * see each other's writes and the last to close overwrites the other's, so a `corridor workspaces
 * create` run beside `corridor start` lost its workspace silently. The lock is a file naming the
 * holder's pid and command; a lock whose pid is no longer running (a crash, a SIGKILL) is taken over.
 */

export const LOCK_FILE = 'corridor.lock';

interface Holder {
  pid: number;
  command: string;
  startedAt: string;
}

export interface DataDirLock {
  release(): void;
}

function readHolder(file: string): Holder | undefined {
  try {
    const parsed = JSON.parse(fs.readFileSync(file, 'utf8')) as Partial<Holder>;
    return Number.isInteger(parsed.pid) ? { pid: parsed.pid as number, command: String(parsed.command ?? ''), startedAt: String(parsed.startedAt ?? '') } : undefined;
  } catch {
    return undefined; // gone, or half written by a process that died while writing it
  }
}

/** True when a process of that pid is running (EPERM: running, under another user). */
function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function inUse(dataDir: string, file: string, holder: Holder): Error {
  const who = `pid ${holder.pid}${holder.command ? `, "corridor ${holder.command}"` : ''}${holder.startedAt ? `, since ${holder.startedAt}` : ''}`;
  return new Error(
    `The data directory ${dataDir} is in use by another Corridor process (${who}). ` +
      'The embedded database takes one process at a time: stop that process first, or use the operator API of the running server. ' +
      `If no such process is Corridor, delete ${file}.`,
  );
}

/** A lock file too new to be read yet (another process is writing it): held, by a pid not known yet. */
function justCreated(file: string): Holder | undefined {
  const stat = fs.statSync(file, { throwIfNoEntry: false });
  return stat && Date.now() - stat.mtimeMs < 2000 ? { pid: process.pid, command: '', startedAt: '' } : undefined;
}

function tryCreate(file: string, holder: Holder): boolean {
  try {
    fs.writeFileSync(file, JSON.stringify(holder), { flag: 'wx' });
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  }
}

/** Takes the lock of `dataDir` for this process, or throws naming the process that holds it. */
export function lockDataDir(dataDir: string): DataDirLock {
  fs.mkdirSync(dataDir, { recursive: true });
  const file = path.join(dataDir, LOCK_FILE);
  const mine: Holder = { pid: process.pid, command: process.argv.slice(2).join(' '), startedAt: new Date().toISOString() };
  while (!tryCreate(file, mine)) {
    const holder = readHolder(file) ?? justCreated(file);
    if (holder && isRunning(holder.pid)) throw inUse(dataDir, file, holder);
    fs.rmSync(file, { force: true }); // stale: its process is gone
  }
  return {
    release() {
      if (readHolder(file)?.pid === process.pid) fs.rmSync(file, { force: true });
    },
  };
}
