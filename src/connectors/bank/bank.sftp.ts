import { createHash } from 'node:crypto';
import fs from 'node:fs';
import SftpClient from 'ssh2-sftp-client';
import type { BankSftp } from './bank.config.js';
import { xmlNames, type InboundSource, type WaitingFile } from './inbound/inbound.source.js';

/**
 * The host-to-host transport: the bank's SFTP server (ssh2-sftp-client), key authentication only,
 * the bank's host key pinned by its SHA-256 fingerprint. A file is written under a temporary name
 * (`<name>.part`) and renamed, so the bank never picks up half a file.
 */

/** The fingerprint of a host key blob as OpenSSH prints it (base64 of its SHA-256, no padding). */
export function hostKeyFingerprint(key: Buffer): string {
  return createHash('sha256').update(key).digest('base64').replace(/=+$/, '');
}

/** The bank presented another host key than the pinned one: nothing is sent, the operator must look. */
export class HostKeyMismatchError extends Error {
  constructor(
    readonly expected: string,
    readonly presented: string,
  ) {
    super(`bank SFTP host key mismatch: pinned SHA256:${expected}, the server presented SHA256:${presented}; refusing to connect`);
  }
}

/** How long connecting may take before the attempt fails (and the job retries). */
const READY_TIMEOUT_MS = 20_000;

/** A connection to the bank's SFTP server; the caller ends it. */
export async function connectToBank(sftp: BankSftp, privateKey: Buffer): Promise<SftpClient> {
  const client = new SftpClient('corridor-bank');
  let presented: string | undefined;
  try {
    await client.connect({
      host: sftp.host,
      port: sftp.port,
      username: sftp.username,
      privateKey,
      readyTimeout: READY_TIMEOUT_MS,
      // Only the key is offered: no password, no agent, no keyboard-interactive.
      authHandler: ['publickey'],
      hostVerifier: (key: Buffer) => {
        presented = hostKeyFingerprint(key);
        return presented === sftp.hostKeySha256;
      },
    });
  } catch (err) {
    await client.end().catch(() => undefined);
    if (presented !== undefined && presented !== sftp.hostKeySha256) throw new HostKeyMismatchError(sftp.hostKeySha256, presented);
    throw err;
  }
  return client;
}

export const TEMPORARY_SUFFIX = '.part';

/**
 * Puts a file in the bank's inbox unless it is there already under its final name (a delivery
 * interrupted after its rename): 'already_there' when the remote copy has the same SHA-256, an
 * Error when a different file has that name (it is never overwritten).
 */
export async function deliverToInbox(client: SftpClient, inbox: string, fileName: string, bytes: Buffer): Promise<'uploaded' | 'already_there'> {
  const dir = inbox.replace(/\/+$/, '') || '/';
  const path = (name: string) => `${dir === '/' ? '' : dir}/${name}`;
  const names = new Set((await client.list(dir)).map((entry) => entry.name));
  if (names.has(fileName)) {
    const remote = (await client.get(path(fileName))) as Buffer;
    const same = createHash('sha256').update(remote).digest('hex') === createHash('sha256').update(bytes).digest('hex');
    if (!same) throw new Error(`the bank's inbox holds a different file named ${fileName}; not overwritten`);
    return 'already_there';
  }
  const temporary = `${fileName}${TEMPORARY_SUFFIX}`;
  if (names.has(temporary)) await client.delete(path(temporary));
  await client.put(bytes, path(temporary));
  await client.rename(path(temporary), path(fileName));
  return 'uploaded';
}

/**
 * The bank's outbox over SFTP, as the inbound side reads it (inbound/inbound.source.ts): the files
 * `accepts` takes (`*.xml` by default, the bank's `fileNames.inbound`), oldest name first; a file taken in is moved into `archive/` beside them, one that could not
 * be read into `quarantine/` (both created when missing).
 */
export class SftpOutboxSource implements InboundSource {
  private readonly dir: string;

  constructor(
    private readonly client: SftpClient,
    outbox: string,
    private readonly accepts: (name: string) => boolean = xmlNames,
  ) {
    this.dir = outbox.replace(/\/+$/, '') || '/';
  }

  private path(...parts: string[]): string {
    return [this.dir === '/' ? '' : this.dir, ...parts].join('/');
  }

  /** The listing's stat of each file gives its size: a file too large is known before any byte of it is downloaded. */
  async list(): Promise<WaitingFile[]> {
    const entries = await this.client.list(this.dir);
    return entries
      .filter((e) => e.type === '-' && this.accepts(e.name))
      .map((e) => ({ name: e.name, size: e.size }))
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  /** Streams the file to the local path, piece by piece (an empty file too: its local copy is empty). */
  async download(name: string, to: string): Promise<void> {
    const out = fs.createWriteStream(to);
    // The client resolves when the remote stream ends; the local file is complete when it closes.
    const closed = new Promise<void>((resolve, reject) => out.on('close', resolve).on('error', reject));
    try {
      await this.client.get(this.path(basename(name)), out);
    } catch (err) {
      out.destroy();
      throw err;
    }
    await closed;
  }

  archive(name: string): Promise<void> {
    return this.moveTo('archive', name);
  }

  quarantine(name: string): Promise<void> {
    return this.moveTo('quarantine', name);
  }

  private async moveTo(folder: string, name: string): Promise<void> {
    if (!(await this.client.exists(this.path(folder)))) await this.client.mkdir(this.path(folder), true);
    await this.client.rename(this.path(basename(name)), this.path(folder, basename(name)));
  }
}

const basename = (name: string): string => name.split('/').pop() ?? name;
