import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { freePort } from './processes.js';

/**
 * A real bank SFTP server for tests: Debian's OpenSSH `sshd` on a free loopback port, in a temporary
 * directory with its own host key, configuration and one authorized client key (ssh-keygen), running
 * as the current user with `internal-sftp` only (no shell). The bank's folders are `<dir>/in` and
 * `<dir>/out`. `.ci/run` installs openssh-server when it is missing; without it the tests that need
 * it are skipped with a message saying so.
 */

export const SSHD = '/usr/sbin/sshd';
const SSH_KEYGEN = '/usr/bin/ssh-keygen';

export const sshdMissing: string | false =
  fs.existsSync(SSHD) && fs.existsSync(SSH_KEYGEN) ? false : `skipped: ${SSHD} or ${SSH_KEYGEN} is missing (apt-get install openssh-server, as .ci/run does)`;

export interface SftpServer {
  host: string;
  port: number;
  username: string;
  dir: string;
  /** Where Corridor writes (the bank's inbox), and where the bank writes for Corridor. */
  inbox: string;
  outbox: string;
  privateKeyFile: string;
  /** The server's host key fingerprint (base64 SHA-256, as `ssh-keygen -l` prints it after `SHA256:`). */
  hostKeySha256: string;
  /** Another key's fingerprint: what a wrong pin looks like. */
  otherHostKeySha256: string;
  /** The sshd listening process. */
  process: ChildProcess;
  stop(): Promise<void>;
}

/** The fingerprint of an OpenSSH public key file's key blob. */
export function publicKeyFingerprint(pubFile: string): string {
  const blob = Buffer.from((fs.readFileSync(pubFile, 'utf8').split(/\s+/)[1] ?? ''), 'base64');
  return createHash('sha256').update(blob).digest('base64').replace(/=+$/, '');
}

function keygen(file: string): void {
  execFileSync(SSH_KEYGEN, ['-q', '-t', 'ed25519', '-N', '', '-C', 'corridor-test', '-f', file]);
}

async function accepting(port: number, child: ChildProcess, log: () => string): Promise<void> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`sshd exited with ${child.exitCode}: ${log()}`);
    const ok = await new Promise<boolean>((resolve) => {
      const socket = net.connect(port, '127.0.0.1', () => {
        socket.destroy();
        resolve(true);
      });
      socket.on('error', () => resolve(false));
    });
    if (ok) return;
    if (Date.now() > deadline) throw new Error(`sshd did not listen on ${port}: ${log()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

export async function startSftpServer(): Promise<SftpServer> {
  if (sshdMissing) throw new Error(sshdMissing);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'corridor-sftp-'));
  const inbox = path.join(dir, 'in');
  const outbox = path.join(dir, 'out');
  fs.mkdirSync(inbox);
  fs.mkdirSync(outbox);
  keygen(path.join(dir, 'host_key'));
  keygen(path.join(dir, 'other_host_key'));
  keygen(path.join(dir, 'client_key'));
  fs.copyFileSync(path.join(dir, 'client_key.pub'), path.join(dir, 'authorized_keys'));
  fs.chmodSync(path.join(dir, 'authorized_keys'), 0o600);
  // sshd started by root needs its privilege separation directory.
  if (process.getuid?.() === 0) fs.mkdirSync('/run/sshd', { recursive: true, mode: 0o755 });
  const username = os.userInfo().username;
  const port = await freePort();
  const config = [
    `Port ${port}`,
    'ListenAddress 127.0.0.1',
    `HostKey ${path.join(dir, 'host_key')}`,
    `PidFile ${path.join(dir, 'sshd.pid')}`,
    `AuthorizedKeysFile ${path.join(dir, 'authorized_keys')}`,
    'PubkeyAuthentication yes',
    'PasswordAuthentication no',
    'KbdInteractiveAuthentication no',
    'UsePAM no',
    'StrictModes no',
    'PermitRootLogin prohibit-password',
    `AllowUsers ${username}`,
    'Subsystem sftp internal-sftp',
    'ForceCommand internal-sftp',
    'AllowTcpForwarding no',
    'X11Forwarding no',
    'LogLevel ERROR',
  ].join('\n');
  fs.writeFileSync(path.join(dir, 'sshd_config'), `${config}\n`);
  let stderr = '';
  const child = spawn(SSHD, ['-D', '-e', '-f', path.join(dir, 'sshd_config')], { stdio: ['ignore', 'ignore', 'pipe'] });
  child.stderr?.on('data', (d: Buffer) => {
    stderr = (stderr + d.toString()).slice(-4000);
  });
  await accepting(port, child, () => stderr);
  return {
    host: '127.0.0.1',
    port,
    username,
    dir,
    inbox,
    outbox,
    privateKeyFile: path.join(dir, 'client_key'),
    hostKeySha256: publicKeyFingerprint(path.join(dir, 'host_key.pub')),
    otherHostKeySha256: publicKeyFingerprint(path.join(dir, 'other_host_key.pub')),
    process: child,
    stop: async () => {
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        await exited;
      }
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The `bank` section of a connectors file pointing at this server. */
export function bankSection(server: SftpServer, overrides: { cutoff?: { maxPayouts: number; maxSeconds: number }; hostKeySha256?: string; accounts?: unknown[]; pollSeconds?: number } = {}) {
  return {
    sftp: {
      host: server.host,
      port: server.port,
      username: server.username,
      privateKeyFile: server.privateKeyFile,
      hostKeySha256: `SHA256:${overrides.hostKeySha256 ?? server.hostKeySha256}`,
      inbox: server.inbox,
      outbox: server.outbox,
    },
    accounts: overrides.accounts ?? [
      { id: 'eur-main', iban: 'DE02100100109307118603', bic: 'PBNKDEFFXXX', name: 'Corridor Payments GmbH', currency: 'EUR' },
      { id: 'usd-main', iban: 'DE75512108001245126199', bic: 'PBNKDEFFXXX', name: 'Corridor Payments GmbH', currency: 'USD' },
    ],
    cutoff: overrides.cutoff ?? { maxPayouts: 500, maxSeconds: 1 },
    pollSeconds: overrides.pollSeconds ?? 30,
  };
}

/** The pain.001 files in the server's inbox (final names only), with their text. */
export function inboxFiles(server: SftpServer): { name: string; xml: string }[] {
  return fs
    .readdirSync(server.inbox)
    .filter((name) => name.endsWith('.xml'))
    .sort()
    .map((name) => ({ name, xml: fs.readFileSync(path.join(server.inbox, name), 'utf8') }));
}
