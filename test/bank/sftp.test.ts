import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectToBank, deliverToInbox, HostKeyMismatchError } from '../../src/connectors/bank/bank.sftp.js';
import { parseBankConfig, type BankSftp } from '../../src/connectors/bank/bank.config.js';
import { bankSection, sshdMissing, startSftpServer, type SftpServer } from '../helpers/sftp-server.js';

/** The transport against a real OpenSSH server (test/helpers/sftp-server.ts). */
describe.skipIf(sshdMissing)(`bank SFTP transport${sshdMissing ? ` (${sshdMissing})` : ''}`, () => {
  let server: SftpServer;
  beforeAll(async () => {
    server = await startSftpServer();
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('writes under a temporary name, renames, and finds a file already delivered by its listing (same bytes: not sent again)', async () => {
    const config = parseBankConfig(bankSection(server));
    const sftp = config.sftp as BankSftp;
    const key = fs.readFileSync(sftp.privateKeyFile);
    const client = await connectToBank(sftp, key);
    try {
      const bytes = Buffer.from('<Document/>');
      expect(await deliverToInbox(client, server.inbox, 'a.xml', bytes)).toBe('uploaded');
      expect(fs.readdirSync(server.inbox)).toEqual(['a.xml']);
      expect(fs.readFileSync(path.join(server.inbox, 'a.xml'))).toEqual(bytes);
      const before = fs.statSync(path.join(server.inbox, 'a.xml')).mtimeMs;
      expect(await deliverToInbox(client, server.inbox, 'a.xml', bytes)).toBe('already_there');
      expect(fs.statSync(path.join(server.inbox, 'a.xml')).mtimeMs).toBe(before);
      await expect(deliverToInbox(client, server.inbox, 'a.xml', Buffer.from('<Other/>'))).rejects.toThrow(/different file named a.xml/);
      // A half-written temporary file of an interrupted upload is replaced.
      fs.writeFileSync(path.join(server.inbox, 'b.xml.part'), 'half');
      expect(await deliverToInbox(client, server.inbox, 'b.xml', bytes)).toBe('uploaded');
      expect(fs.readdirSync(server.inbox).sort()).toEqual(['a.xml', 'b.xml']);
    } finally {
      await client.end();
    }
  });

  it('refuses to connect when the server presents another host key than the pinned one', async () => {
    const sftp = parseBankConfig(bankSection(server, { hostKeySha256: server.otherHostKeySha256 })).sftp as BankSftp;
    const err = await connectToBank(sftp, fs.readFileSync(sftp.privateKeyFile)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(HostKeyMismatchError);
    expect((err as Error).message).toContain(`the server presented SHA256:${server.hostKeySha256}`);
  });
});
