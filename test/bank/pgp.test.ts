import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as openpgp from 'openpgp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answerInbox } from '../../src/connectors/bank/bank.simulator.js';
import { decryptAndVerify, encryptAndSign, readKeys, type PgpKeys } from '../../src/connectors/bank/bank.pgp.js';
import { endToEndIdOf } from '../../src/connectors/bank/bank.instructions.js';
import { createRunner } from '../../src/jobs.js';
import type { JobRunner } from '../../src/platform/jobs/runner.js';
import { CryptoBox } from '../../src/platform/lib/crypto-box.js';
import { createTestApp, type Caller, type TestApp } from '../helpers/app.js';
import { bankSection, sshdMissing, startSftpServer, type SftpServer } from '../helpers/sftp-server.js';
import { ADA, fund, payingWorkspace, ref, waitFor } from '../payouts/helpers.js';
import { BANK_ROUTES, connectorsFile } from './helpers.js';

/**
 * PGP over the bank's host-to-host SFTP (a real OpenSSH server): the payout file leaves encrypted to
 * the bank's key and signed with Corridor's, under the bank's file-name template; the sandbox bank
 * decrypts it, verifies Corridor's signature and answers with PGP files, which Corridor decrypts,
 * verifies and applies (the payout is paid by the encrypted camt.054). A file signed by another key,
 * one encrypted to another key, and one in clear are quarantined with their reasons.
 */

async function keyPair(name: string, passphrase?: string) {
  const { privateKey, publicKey } = await openpgp.generateKey({ type: 'ecc', curve: 'curve25519Legacy', userIDs: [{ name, email: `${name.toLowerCase().replace(/\W/g, '')}@example.com` }], ...(passphrase ? { passphrase } : {}), format: 'armored' });
  return { privateKey, publicKey };
}

async function waitUntil<T>(what: string, look: () => Promise<T | undefined>, timeoutMs = 180_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = await look();
    if (found !== undefined) return found;
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe.skipIf(sshdMissing)(`bank files with PGP over SFTP${sshdMissing ? ` (${sshdMissing})` : ''}`, () => {
  let server: SftpServer;
  let t: TestApp;
  let runner: JobRunner;
  let c: Caller;
  /** The sandbox bank's keys: its private key, Corridor's public key. */
  let bankKeys: PgpKeys;
  /** Another party's private key, Corridor's public key: what a forged file is signed with. */
  let forgerKeys: PgpKeys;
  /** The bank's keys, but encrypting to a key that is not Corridor's. */
  let misaddressedKeys: PgpKeys;

  beforeAll(async () => {
    const corridor = await keyPair('Corridor Payments GmbH', 'corridor passphrase');
    const bank = await keyPair('Sandbox Bank');
    const forger = await keyPair('Somebody Else');
    bankKeys = await readKeys(corridor.publicKey, bank.privateKey, undefined);
    forgerKeys = await readKeys(corridor.publicKey, forger.privateKey, undefined);
    misaddressedKeys = await readKeys(forger.publicKey, bank.privateKey, undefined);
    const keyDir = fs.mkdtempSync(path.join(os.tmpdir(), 'corridor-pgp-'));
    fs.writeFileSync(path.join(keyDir, 'bank.asc'), bank.publicKey);
    const key = randomBytes(32).toString('base64');
    const box = CryptoBox.fromKey(Buffer.from(key, 'base64'));
    server = await startSftpServer();
    const section = {
      ...bankSection(server, { pollSeconds: 1 }),
      pgp: { bankPublicKeyFile: path.join(keyDir, 'bank.asc'), privateKey: box.encrypt(corridor.privateKey), passphrase: box.encrypt('corridor passphrase') },
      fileNames: { outbound: '{bic}_{date:yyyyMMdd}_{seq:4}.xml' },
    };
    t = await createTestApp({ env: { CORRIDOR_ENCRYPTION_KEY: key, CORRIDOR_CONNECTORS_FILE: connectorsFile({ routes: BANK_ROUTES, bank: section }), JOB_POLL_MS: '20' } });
    runner = createRunner(t.ctx);
    runner.start();
    c = await payingWorkspace(t);
    await fund(c, 'EUR', '500.00');
  }, 300_000);

  afterAll(async () => {
    await runner?.stop();
    await t?.close();
    await server?.stop();
  }, 120_000);

  const inboundFile = (name: string) => t.ctx.db.query<{ status: string; reason: string | null }>('SELECT status, reason FROM bank_inbound_files WHERE name = $1', [name]).then((rows) => rows[0]);

  it('sends the payout file encrypted and signed under the bank’s name, and is paid by the sandbox bank’s encrypted answers', async () => {
    const created = await c.request('POST', '/v1/payouts', { clientRef: ref('pgp'), amount: '12.00', currency: 'EUR', route: 'sepa_credit', beneficiary: ADA });
    expect(created.statusCode, created.body).toBe(201);
    const payoutId = created.json<{ id: string }>().id;

    const name = await waitUntil('the payout file in the bank inbox', async () => fs.readdirSync(server.inbox).find((n) => !n.endsWith('.part') && fs.statSync(path.join(server.inbox, n)).isFile()));
    expect(name).toMatch(/^PBNKDEFFXXX_\d{8}_0001\.xml\.pgp$/);
    const sent = fs.readFileSync(path.join(server.inbox, name));
    expect(sent.includes(Buffer.from('CstmrCdtTrfInitn'))).toBe(false);
    const opened = await decryptAndVerify(bankKeys, sent);
    expect(opened.ok).toBe(true);
    expect(opened.ok && opened.plain.toString('utf8')).toContain(`<EndToEndId>${endToEndIdOf(payoutId)}</EndToEndId>`);
    // What was recorded is what was sent: the same bytes, the same hash.
    const [file] = await t.ctx.db.query<{ file_name: string; sha256: string; byte_size: number }>('SELECT file_name, sha256, byte_size FROM bank_files WHERE file_name = $1', [name]);
    expect(file).toMatchObject({ file_name: name, byte_size: sent.length, sha256: createHash('sha256').update(sent).digest('hex') });

    const [answered] = await answerInbox({ dir: server.dir, pgp: bankKeys });
    expect(answered).toMatchObject({ file: name, answers: [expect.stringMatching(/pain002.*\.xml\.pgp$/), expect.stringMatching(/camt054.*\.xml\.pgp$/)] });

    expect(await waitFor(c, payoutId, (p) => p.status === 'paid', 180_000)).toMatchObject({ status: 'paid' });
    for (const answer of answered?.answers ?? []) expect(await inboundFile(answer)).toMatchObject({ status: 'processed' });
  }, 300_000);

  it('quarantines a file signed by another key, one it cannot decrypt, and one in clear, each with its reason', async () => {
    const xml = Buffer.from('<?xml version="1.0"?><Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.054.001.08"/>', 'utf8');
    fs.writeFileSync(path.join(server.outbox, 'forged.xml.pgp'), await encryptAndSign(forgerKeys, xml));
    fs.writeFileSync(path.join(server.outbox, 'misaddressed.xml.pgp'), await encryptAndSign(misaddressedKeys, xml));
    fs.writeFileSync(path.join(server.outbox, 'clear.xml'), xml);

    const forged = await waitUntil('the forged file quarantined', () => inboundFile('forged.xml.pgp').then((f) => (f?.status === 'quarantined' ? f : undefined)));
    expect(forged.reason).toMatch(/^the file's signature does not verify with the sender's public key [0-9A-F]{40} \(.+\): not read; the file may not come from the sender$/);
    const misaddressed = await waitUntil('the misaddressed file quarantined', () => inboundFile('misaddressed.xml.pgp').then((f) => (f?.status === 'quarantined' ? f : undefined)));
    expect(misaddressed.reason).toMatch(/^the file cannot be decrypted with our private key \(.+\): not read; ask the bank which key it encrypted to$/);
    const clear = await waitUntil('the file in clear quarantined', () => inboundFile('clear.xml').then((f) => (f?.status === 'quarantined' ? f : undefined)));
    expect(clear.reason).toBe('the file is not PGP-encrypted, and "bank".pgp.requireIncoming asks every file from the bank to be encrypted and signed: not read');
    await waitUntil('the files moved aside', async () => (['forged.xml.pgp', 'misaddressed.xml.pgp', 'clear.xml'].every((n) => fs.existsSync(path.join(server.outbox, 'quarantine', n))) ? true : undefined));
  }, 300_000);
});
