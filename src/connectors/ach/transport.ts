import fs from 'node:fs';
import path from 'node:path';
import type { BankSftp } from '../bank/bank.config.js';
import { connectToBank, deliverToInbox, SftpOutboxSource } from '../bank/bank.sftp.js';
import { DirectoryTransport } from '../bank/bank.transport.js';
import { LocalDirectorySource, type InboundSource, type WaitingFile } from '../bank/inbound/inbound.source.js';
import type { AchConfig } from './config.js';

/**
 * The way to the ODFI: the bank connector's SFTP transport (connectToBank: key authentication, the
 * host key pinned; deliverToInbox: written under `.part` and renamed, a file already there with the
 * same bytes not written again, a different one never overwritten), or in the sandbox the same local
 * folder transport. Only the outbox listing differs: NACHA files (`.ach`, `.txt`), not `.xml`.
 */
export interface AchTransport {
  deliver(fileName: string, bytes: Buffer): Promise<'uploaded' | 'already_there'>;
  withOutbox<T>(look: (source: InboundSource) => Promise<T>): Promise<T>;
}

/** What the ODFI sends back: NACHA returns and corrections (`.ach`, `.txt`) and BAI2 statements (`.bai`, `.bai2`, or `.txt`). */
const isNachaName = (name: string): boolean => /\.(ach|txt|bai2?)$/i.test(name);

/** An outbox source that lists NACHA files and reads, archives and quarantines them as the bank's source does. */
function nachaSource(inner: InboundSource, list: () => Promise<WaitingFile[]>): InboundSource {
  return {
    list: async () => (await list()).filter((f) => isNachaName(f.name)).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)),
    download: (name, to) => inner.download(name, to),
    archive: (name) => inner.archive?.(name) ?? Promise.resolve(),
    quarantine: (name) => inner.quarantine?.(name) ?? Promise.resolve(),
  };
}

class SftpAchTransport implements AchTransport {
  constructor(
    private readonly sftp: BankSftp,
    private readonly privateKey: Buffer,
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
      const dir = this.sftp.outbox.replace(/\/+$/, '') || '/';
      const list = async () => (await client.list(dir)).filter((e) => e.type === '-').map((e) => ({ name: e.name, size: e.size }));
      return await look(nachaSource(new SftpOutboxSource(client, this.sftp.outbox), list));
    } finally {
      await client.end().catch(() => undefined);
    }
  }
}

class DirectoryAchTransport implements AchTransport {
  private readonly files: DirectoryTransport;

  constructor(dir: string) {
    this.files = new DirectoryTransport(dir);
  }

  deliver(fileName: string, bytes: Buffer): Promise<'uploaded' | 'already_there'> {
    return this.files.deliver(fileName, bytes);
  }

  async withOutbox<T>(look: (source: InboundSource) => Promise<T>): Promise<T> {
    const outbox = this.files.outbox;
    await fs.promises.mkdir(outbox, { recursive: true });
    const list = async () => {
      const entries = await fs.promises.readdir(outbox, { withFileTypes: true });
      return Promise.all(entries.filter((e) => e.isFile()).map(async (e) => ({ name: e.name, size: (await fs.promises.stat(path.join(outbox, e.name))).size })));
    };
    return look(nachaSource(new LocalDirectorySource(outbox), list));
  }
}

export function achTransportOf(config: AchConfig): AchTransport {
  if (config.directory !== undefined) return new DirectoryAchTransport(config.directory);
  const sftp = config.sftp as BankSftp;
  return new SftpAchTransport(sftp, fs.readFileSync(sftp.privateKeyFile));
}
