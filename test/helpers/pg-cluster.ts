import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

/**
 * PostgreSQL clusters made with Debian's postgresql-common (`pg_createcluster`, `pg_ctlcluster`,
 * `pg_dropcluster`), as an operator runs them, on loopback ports: for the failover and the backup
 * drill (test/operations/). The commands need root (CI runs the tests as root) or passwordless sudo;
 * the server and its tools (pg_basebackup, pgbackrest) run as the `postgres` system user. Missing
 * packages are installed with apt-get, as .ci/run installs sshd.
 */

const asRoot = process.getuid?.() === 0;

export interface Ran {
  stdout: string;
  stderr: string;
}

/** Runs a command; rejects with its output when it exits non-zero. */
export function run(cmd: string, args: readonly string[], options: { input?: string; timeoutMs?: number } = {}): Promise<Ran> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { stdio: [options.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout?.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 300_000);
    child.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      if (code === 0) resolve({ stdout, stderr });
      else reject(new Error(`${cmd} ${args.join(' ')} exited ${code ?? signal}: ${stderr.trim() || stdout.trim()}`));
    });
    if (child.stdin) {
      child.stdin.on('error', () => undefined); // a command that exits without reading all of it
      child.stdin.end(options.input);
    }
  });
}

/** A command as root (directly in CI, else through passwordless sudo). */
export function asAdmin(cmd: string, args: readonly string[], options: { input?: string; timeoutMs?: number } = {}): Promise<Ran> {
  return asRoot ? run(cmd, args, options) : run('sudo', ['-n', cmd, ...args], options);
}

/** A command as the postgres system user. */
export function asPostgres(cmd: string, args: readonly string[], options: { input?: string; timeoutMs?: number } = {}): Promise<Ran> {
  return asRoot ? run('runuser', ['-u', 'postgres', '--', cmd, ...args], options) : run('sudo', ['-n', '-u', 'postgres', cmd, ...args], options);
}

/** Writes a file as root (configuration under /etc/postgresql, owned by postgres: its owner is kept). */
async function writeAdminFile(file: string, text: string): Promise<void> {
  await asAdmin('tee', [file], { input: text });
}

/**
 * Makes sure the Debian packages whose commands are named are installed (apt-get as root), and
 * answers why not when that cannot be done (no apt-get, neither root nor passwordless sudo), so the
 * test can say why it skips. `wanted`: command → package.
 */
export async function ensureDebianPackages(wanted: Record<string, string>): Promise<string | undefined> {
  const has = (command: string) => ['/usr/bin', '/usr/sbin', '/bin', '/sbin'].some((dir) => fs.existsSync(path.join(dir, command)));
  const missing = [...new Set(Object.entries(wanted).flatMap(([command, pkg]) => (has(command) ? [] : [pkg])))];
  if (missing.length === 0) return undefined;
  if (!has('apt-get')) return `no apt-get to install ${missing.join(', ')}`;
  if (!asRoot) {
    try {
      await run('sudo', ['-n', 'true']);
    } catch {
      return `installing ${missing.join(', ')} needs root or passwordless sudo`;
    }
  }
  await asAdmin('apt-get', ['update', '-q'], { timeoutMs: 600_000 });
  await asAdmin('env', ['DEBIAN_FRONTEND=noninteractive', 'apt-get', 'install', '-y', '-q', ...missing], { timeoutMs: 900_000 });
  const still = Object.entries(wanted).filter(([command]) => !has(command));
  return still.length > 0 ? `apt-get did not install ${still.map(([, pkg]) => pkg).join(', ')}` : undefined;
}

/** The newest PostgreSQL major version installed (Debian's /usr/lib/postgresql/<major>), or undefined. */
export function installedMajor(): string | undefined {
  const root = '/usr/lib/postgresql';
  if (!fs.existsSync(root)) return undefined;
  return fs
    .readdirSync(root)
    .filter((v) => fs.existsSync(path.join(root, v, 'bin', 'postgres')))
    .sort((a, b) => Number(b) - Number(a))[0];
}

/** Whether this process can run the cluster commands at all (root, or passwordless sudo). */
export async function canAdminister(): Promise<string | undefined> {
  if (asRoot) return undefined;
  try {
    await run('sudo', ['-n', 'true']);
    return undefined;
  } catch {
    return 'the cluster commands need root or passwordless sudo';
  }
}

export interface Cluster {
  version: string;
  name: string;
  port: number;
  dataDir: string;
  /** A URL on the loopback address (trust authentication: a throwaway test cluster). */
  url: (database?: string) => string;
}

/** Trust on loopback and the local socket, replication included: a throwaway cluster only the test reaches. */
const HBA = `local all all trust
local replication all trust
host all all 127.0.0.1/32 trust
host replication all 127.0.0.1/32 trust
`;

function describeCluster(version: string, name: string, port: number): Cluster {
  return {
    version,
    name,
    port,
    dataDir: `/var/lib/postgresql/${version}/${name}`,
    url: (database = 'postgres') => `postgres://postgres@127.0.0.1:${port}/${database}`,
  };
}

/**
 * `pg_createcluster <version> <name> -p <port>` with the given settings (in its conf.d), loopback
 * only and trust authentication, then started unless `start` is false. fsync is off: what the
 * tests kill are processes, not the machine, and the OS keeps what was written.
 */
export async function createCluster(version: string, name: string, port: number, settings: Record<string, string> = {}, options: { start?: boolean } = {}): Promise<Cluster> {
  const all: Record<string, string> = { listen_addresses: '127.0.0.1', fsync: 'off', max_connections: '60', shared_buffers: '32MB', ...settings };
  await asAdmin('pg_createcluster', [version, name, '-p', String(port), '--start-conf=manual', '--', '--auth=trust', '--no-sync']);
  // In conf.d (Debian's postgresql.conf includes it), each value quoted: pg_createcluster's -o leaves
  // a value such as 127.0.0.1 unquoted, which the server refuses.
  const conf = Object.entries(all).map(([k, v]) => `${k} = '${v.replace(/'/g, "''")}'\n`);
  await writeAdminFile(`/etc/postgresql/${version}/${name}/conf.d/corridor-test.conf`, conf.join(''));
  await writeAdminFile(`/etc/postgresql/${version}/${name}/pg_hba.conf`, HBA);
  const cluster = describeCluster(version, name, port);
  if (options.start !== false) await startCluster(cluster);
  return cluster;
}

export async function startCluster(cluster: Cluster): Promise<void> {
  await asAdmin('pg_ctlcluster', ['--skip-systemctl-redirect', cluster.version, cluster.name, 'start'], { timeoutMs: 120_000 });
}

export async function stopCluster(cluster: Cluster, mode: 'fast' | 'immediate' = 'fast'): Promise<void> {
  await asAdmin('pg_ctlcluster', ['--skip-systemctl-redirect', cluster.version, cluster.name, 'stop', '-m', mode], { timeoutMs: 120_000 });
}

/** Empties a stopped cluster's data directory (to fill it from a base backup or a restore). */
export async function emptyDataDir(cluster: Cluster): Promise<void> {
  await asAdmin('find', [cluster.dataDir, '-mindepth', '1', '-delete']);
}

/**
 * A streaming standby of `primary`: a cluster made by pg_createcluster whose data directory is
 * replaced by `pg_basebackup -R` (standby.signal and primary_conninfo), then started. Its WAL
 * receiver names itself `application_name` (matched by the primary's synchronous_standby_names).
 */
export async function createStandby(primary: Cluster, name: string, port: number, applicationName: string): Promise<Cluster> {
  const standby = await createCluster(primary.version, name, port, {}, { start: false });
  await emptyDataDir(standby);
  const conninfo = `host=127.0.0.1 port=${primary.port} user=postgres application_name=${applicationName}`;
  await asPostgres('pg_basebackup', ['-d', conninfo, '-D', standby.dataDir, '-R', '-X', 'stream', '-c', 'fast', '--no-sync'], { timeoutMs: 300_000 });
  await startCluster(standby);
  return standby;
}

/** The postmaster's pid (first line of postmaster.pid), or undefined when it has none. */
export async function postmasterPid(cluster: Cluster): Promise<number | undefined> {
  try {
    const { stdout } = await asAdmin('head', ['-n', '1', path.join(cluster.dataDir, 'postmaster.pid')]);
    const pid = Number(stdout.trim());
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

/** The processes a postmaster started (its backends and auxiliary processes), from /proc. */
function childrenOf(pid: number): number[] {
  const children: number[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // pid (comm) state ppid …: the command may hold spaces and parentheses, so read after the last ')'.
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === pid) children.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return children;
}

/** Processes of killed postmasters, by cluster name: ended by their pids when the cluster is dropped. */
const orphans = new Map<string, number[]>();

/**
 * kill -9 of the postmaster: the server dies as on a crash; its backends exit as they notice (their
 * pids are kept, so that dropCluster ends any left by their ids).
 */
export async function killPostmaster(cluster: Cluster): Promise<number> {
  const pid = await postmasterPid(cluster);
  if (pid === undefined) throw new Error(`cluster ${cluster.name} has no postmaster.pid`);
  orphans.set(cluster.name, childrenOf(pid));
  await asAdmin('kill', ['-9', String(pid)]);
  return pid;
}

/** Promotes a standby (`pg_ctlcluster … promote`, which waits until it accepts writes). */
export async function promote(cluster: Cluster): Promise<void> {
  await asAdmin('pg_ctlcluster', ['--skip-systemctl-redirect', cluster.version, cluster.name, 'promote'], { timeoutMs: 120_000 });
}

/**
 * Removes a cluster: `pg_dropcluster --stop`; a killed one's leftover processes (by pid) and stale
 * postmaster.pid go first.
 */
export async function dropCluster(cluster: Cluster): Promise<void> {
  const left = orphans.get(cluster.name) ?? [];
  orphans.delete(cluster.name);
  if (left.length > 0) {
    for (const pid of left) await asAdmin('kill', ['-9', String(pid)]).catch(() => undefined);
    await asAdmin('rm', ['-f', path.join(cluster.dataDir, 'postmaster.pid')]).catch(() => undefined);
  }
  await asAdmin('pg_dropcluster', ['--stop', cluster.version, cluster.name], { timeoutMs: 120_000 });
}
