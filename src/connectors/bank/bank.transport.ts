import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { BankConfig } from './bank.config.js';
import type { NameFilter } from './bank.filenames.js';
import { connectToBank, deliverToInbox, SftpOutboxSource, TEMPORARY_SUFFIX } from './bank.sftp.js';
import { LocalDirectorySource, type InboundSource } from './inbound/inbound.source.js';

/**
 * How files reach the bank and come back: its SFTP server (host-to-host, bank.sftp.ts), or, in the
 * sandbox only, a local folder the sandbox bank answers in (`"directory"`, bank.simulator.ts). The
 * two behave alike: a file is written under `<name>.part` and renamed, one already there under its
 * final name with the same bytes is not written again, a different one is never overwritten.
 */
export interface BankTransport {
  /** Puts a file in the bank's inbox (or finds it there already, delivered before a crash). */
  deliver(fileName: string, bytes: Buffer): Promise<'uploaded' | 'already_there'>;
  /** Opens the bank's outbox for one look, and closes it after. */
  withOutbox<T>(look: (source: InboundSource) => Promise<T>): Promise<T>;
}

class SftpTransport implements BankTransport {
  constructor(
    private readonly sftp: NonNullable<BankConfig['sftp']>,
    private readonly privateKey: Buffer,
    private readonly accepts: NameFilter | undefined,
  ) {}

  async deliver(fileName: string, bytes: Buffer): Promise<'uploaded' | 'already_there'> {
    const client = await connectToBank(this.sftp, this.privateKey);
    try {
      return await deliverToInbox(client, this.sftp.inbox, fileName, bytes);
    } finally {
      await client.end().catch(() => undefined);
    }
  }

  async withOutbox<T>(look: (source: InboundSource) => Promise<T>): Promise<T> {
    const client = await connectToBank(this.sftp, this.privateKey);
    try {
      return await look(new SftpOutboxSource(client, this.sftp.outbox, this.accepts));
    } finally {
      await client.end().catch(() => undefined);
    }
  }
}

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

/** The sandbox bank's folder: `<dir>/in` (Corridor writes), `<dir>/out` (the sandbox bank writes), both made when missing. */
export class DirectoryTransport implements BankTransport {
  readonly inbox: string;
  readonly outbox: string;

  constructor(
    dir: string,
    private readonly accepts?: NameFilter,
  ) {
    this.inbox = path.join(dir, 'in');
    this.outbox = path.join(dir, 'out');
  }

  async deliver(fileName: string, bytes: Buffer): Promise<'uploaded' | 'already_there'> {
    await fs.promises.mkdir(this.inbox, { recursive: true });
    const final = path.join(this.inbox, path.basename(fileName));
    const existing = await fs.promises.readFile(final).catch((err: NodeJS.ErrnoException) => {
      if (err.code === 'ENOENT') return undefined;
      throw err;
    });
    if (existing) {
      if (sha256(existing) !== sha256(bytes)) throw new Error(`the bank's inbox holds a different file named ${fileName}; not overwritten`);
      return 'already_there';
    }
    const temporary = `${final}${TEMPORARY_SUFFIX}`;
    await fs.promises.writeFile(temporary, bytes);
    await fs.promises.rename(temporary, final);
    return 'uploaded';
  }

  async withOutbox<T>(look: (source: InboundSource) => Promise<T>): Promise<T> {
    await fs.promises.mkdir(this.outbox, { recursive: true });
    return look(new LocalDirectorySource(this.outbox, undefined, this.accepts));
  }
}

/** The transport the validated section names (the bank's, or another file connector's with the same `sftp` or `directory` settings: fedwire). */
export function transportOf(config: Pick<BankConfig, 'directory' | 'sftp'>, accepts?: NameFilter): BankTransport {
  if (config.directory !== undefined) return new DirectoryTransport(config.directory, accepts);
  const sftp = config.sftp as NonNullable<BankConfig['sftp']>;
  return new SftpTransport(sftp, fs.readFileSync(sftp.privateKeyFile), accepts);
}
