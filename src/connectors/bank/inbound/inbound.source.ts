import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

/**
 * Where a bank's answers are picked up: the bank's outbox folder. The local directory below is what
 * tests and a mounted share use; the SFTP source (ssh2-sftp-client on the "bank".sftp.outbox folder)
 * implements the same calls. A file is downloaded to a local file, never into memory whole. A file is archived only after the transaction that applied it
 * committed; a file read again later is recognised by its hash and applies nothing.
 */
/** A file waiting in the outbox, with its size as the listing reports it (nothing read yet). */
export interface WaitingFile {
  name: string;
  size: number;
}

export interface InboundSource {
  /** The files waiting, in the order to take them in. */
  list(): Promise<WaitingFile[]>;
  /** Copies a waiting file to a local path (streamed, never held in memory whole). */
  download(name: string, to: string): Promise<void>;
  /** Moves a taken-in file out of the way (optional: without it the hash keeps it from applying twice). */
  archive?(name: string): Promise<void>;
  /** Moves a file that could not be taken in aside (optional: without it the file stays, recorded as quarantined). */
  quarantine?(name: string): Promise<void>;
}

/** The names taken from an outbox unless the bank's `fileNames.inbound` says otherwise. */
export const xmlNames = (name: string): boolean => name.toLowerCase().endsWith('.xml');

/** The bank's outbox as a local folder: the files `accepts` takes (`*.xml` by default), oldest name first; archived into `archive/` beside them, quarantined into `quarantine/`. */
export class LocalDirectorySource implements InboundSource {
  constructor(
    readonly dir: string,
    private readonly archiveDir: string | undefined = path.join(dir, 'archive'),
    private readonly accepts: (name: string) => boolean = xmlNames,
  ) {}

  async list(): Promise<WaitingFile[]> {
    const entries = await fs.readdir(this.dir, { withFileTypes: true });
    const names = entries.filter((e) => e.isFile() && this.accepts(e.name)).map((e) => e.name).sort();
    return Promise.all(names.map(async (name) => ({ name, size: (await fs.stat(path.join(this.dir, name))).size })));
  }

  download(name: string, to: string): Promise<void> {
    return fs.copyFile(path.join(this.dir, path.basename(name)), to);
  }

  async archive(name: string): Promise<void> {
    if (this.archiveDir) await this.moveTo(this.archiveDir, name);
  }

  async quarantine(name: string): Promise<void> {
    await this.moveTo(path.join(this.dir, 'quarantine'), name);
  }

  private async moveTo(folder: string, name: string): Promise<void> {
    await fs.mkdir(folder, { recursive: true });
    await fs.rename(path.join(this.dir, path.basename(name)), path.join(folder, path.basename(name)));
  }
}

/**
 * A waiting file's bytes whole, for the readers of small files (NACHA, Fedwire answers, each held to
 * its own size limit before this): downloaded to a temporary file, read, the file removed. The bank's
 * own ISO 20022 reader streams instead.
 */
export async function readWhole(source: InboundSource, name: string): Promise<Buffer> {
  const folder = await fs.mkdtemp(path.join(os.tmpdir(), 'corridor-inbound-'));
  try {
    const to = path.join(folder, 'file');
    await source.download(name, to);
    return await fs.readFile(to);
  } finally {
    await fs.rm(folder, { recursive: true, force: true });
  }
}
