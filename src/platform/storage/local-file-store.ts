import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { assert } from '../lib/assert.js';
import type { CryptoBox } from '../lib/crypto-box.js';
import type { BlobStore } from './blob-store.js';

const KEY_SHAPE = /^[A-Za-z0-9_-]+(\/[A-Za-z0-9_-]+)*$/;

/** Uploads as files under one directory, each sealed with the data key (AES-256-GCM) and written atomically. */
export class LocalFileStore implements BlobStore {
  readonly kind = 'local' as const;

  constructor(
    private readonly dir: string,
    private readonly box: CryptoBox,
  ) {}

  private fileOf(storageKey: string): string {
    assert(KEY_SHAPE.test(storageKey), `storage key of unexpected shape: ${storageKey}`);
    return path.join(this.dir, ...storageKey.split('/'));
  }

  async put(storageKey: string, bytes: Buffer): Promise<void> {
    const file = this.fileOf(storageKey);
    await fs.mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
    const partial = `${file}.${randomBytes(6).toString('hex')}.partial`;
    await fs.writeFile(partial, this.box.encryptBytes(bytes), { mode: 0o600, flag: 'wx' });
    await fs.rename(partial, file);
  }

  async get(storageKey: string): Promise<Buffer | undefined> {
    try {
      return this.box.decryptBytes(await fs.readFile(this.fileOf(storageKey)));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw err;
    }
  }
}
