import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseBankConfig } from '../../src/connectors/bank/bank.config.js';
import { parseOutboundTemplate, renderFileName, type OutboundTemplate } from '../../src/connectors/bank/bank.filenames.js';
import { LocalDirectorySource } from '../../src/connectors/bank/inbound/inbound.source.js';

/** The bank's own file names: the outbound template and the inbound patterns, checked at start. */

const SSH_KEY = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'corridor-ssh-key-')), 'bank-key');
fs.writeFileSync(SSH_KEY, 'an SSH private key');

const SECTION = {
  sftp: { host: 'sftp.bank.example', port: 22, username: 'corridor', privateKeyFile: SSH_KEY, hostKeySha256: `SHA256:${'A'.repeat(43)}`, inbox: '/in', outbox: '/out' },
  accounts: [{ id: 'eur-main', iban: 'DE02100100109307118603', bic: 'PBNKDEFFXXX', name: 'Corridor Payments GmbH', currency: 'EUR' }],
};

const withNames = (fileNames: unknown) => parseBankConfig({ ...SECTION, fileNames });

describe('the outbound file-name template', () => {
  const parts = { account: 'eur-main', bic: 'PBNKDEFFXXX', scheme: 'sepa', msgId: '0f5c7e2a9b1d4c3e8f6a2b1c0d9e8f7a', at: new Date('2026-03-03T23:30:00Z'), timeZone: 'Europe/Berlin', seq: 7 };

  it('writes the placeholders, the date in the bank’s time zone and the sequence padded', () => {
    const template = withNames({ outbound: '{bic}_{date:yyyyMMdd}_{seq:4}.xml' }).fileNames.outbound;
    // 23:30 UTC on 3 March is 00:30 on 4 March in Berlin.
    expect(renderFileName(template, parts)).toBe('PBNKDEFFXXX_20260304_0007.xml');
    expect(renderFileName(parseOutboundTemplate('CT.{account}.{scheme}.{date:yyMMddHHmmss}.{msgId}.xml') as OutboundTemplate, parts)).toBe('CT.eur-main.sepa.260304003000.0f5c7e2a9b1d4c3e8f6a2b1c0d9e8f7a.xml');
  });

  it('keeps the name Corridor always wrote when none is configured', () => {
    expect(renderFileName(parseBankConfig(SECTION).fileNames.outbound, parts)).toBe('pain001-sepa-eur-main-0f5c7e2a9b1d4c3e8f6a2b1c0d9e8f7a.xml');
  });

  it('refuses to start on a template that is unknown, unsafe or not unique, naming the setting', () => {
    expect(() => withNames({ outbound: '{bic}_{when}.xml' })).toThrow('connectors file: bank.fileNames.outbound has the placeholder {when}, which is not one of {account}, {bic}, {scheme}, {msgId}, {date:<yyyy MM dd HH mm ss>}, {seq} or {seq:<width 1-9>}');
    expect(() => withNames({ outbound: '../{msgId}.xml' })).toThrow('connectors file: bank.fileNames.outbound has "../" outside a placeholder');
    expect(() => withNames({ outbound: '{bic}_{date:yyyyMMdd}.xml' })).toThrow('connectors file: bank.fileNames.outbound must make every file name unique: give {msgId}, or {seq} with a {date:…} holding the year, month and day (yyyyMMdd)');
    expect(() => withNames({ outbound: '{bic}_{seq}.xml' })).toThrow(/must make every file name unique/);
    expect(() => withNames({ outbound: '{msgId.xml' })).toThrow('connectors file: bank.fileNames.outbound has a "{" without its "}"');
  });
});

describe('the inbound name patterns', () => {
  let dir: string;
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'corridor-names-'));
    for (const name of ['CAMT054_0001.xml.pgp', 'camt053_0001.XML', 'PAIN002_42.xml', 'PAIN002_x.xml', 'readme.txt', 'statement.xml']) fs.writeFileSync(path.join(dir, name), 'x');
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('takes the names matching a glob or a regular expression, and leaves the others where they lie', async () => {
    const { fileNames } = withNames({ inbound: ['CAMT05?_*.xml*', 're:^PAIN002_[0-9]+\\.xml$'] });
    const listed = await new LocalDirectorySource(dir, undefined, fileNames.inbound).list();
    expect(listed.map((f) => f.name)).toEqual(['CAMT054_0001.xml.pgp', 'PAIN002_42.xml', 'camt053_0001.XML']);
  });

  it('takes *.xml (any case) by default', async () => {
    const listed = await new LocalDirectorySource(dir, undefined, parseBankConfig(SECTION).fileNames.inbound).list();
    expect(listed.map((f) => f.name)).toEqual(['PAIN002_42.xml', 'PAIN002_x.xml', 'camt053_0001.XML', 'statement.xml']);
  });

  it('refuses to start on a pattern that is not one, naming it', () => {
    expect(() => withNames({ inbound: [] })).toThrow('connectors file: bank.fileNames.inbound must be a non-empty array of name patterns');
    expect(() => withNames({ inbound: ['*.xml', 're:(unclosed'] })).toThrow(/^connectors file: bank.fileNames.inbound.1 is not a regular expression \(/);
    expect(() => withNames({ inbound: ['archive/*.xml'] })).toThrow('connectors file: bank.fileNames.inbound.0 names a file, never a folder: no "/"');
  });
});

describe('the pgp settings', () => {
  it('refuse to start with a key in clear or a public key file that is not one', () => {
    const keyFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'corridor-pgp-conf-')), 'bank.asc');
    fs.writeFileSync(keyFile, '-----BEGIN PGP PUBLIC KEY BLOCK-----\n\n-----END PGP PUBLIC KEY BLOCK-----\n');
    expect(() => parseBankConfig({ ...SECTION, pgp: { bankPublicKeyFile: keyFile, privateKey: '-----BEGIN PGP PRIVATE KEY BLOCK-----' } })).toThrow(
      'connectors file: bank.pgp.privateKey must be sealed with `corridor bank encrypt-secret` (a value starting "v1."), never the key or passphrase in clear',
    );
    expect(() => parseBankConfig({ ...SECTION, pgp: { bankPublicKeyFile: '/nonexistent/bank.asc', privateKey: 'v1.x' } })).toThrow('connectors file: bank.pgp.bankPublicKeyFile names a file that cannot be read: /nonexistent/bank.asc');
    fs.writeFileSync(keyFile, 'not a key');
    expect(() => parseBankConfig({ ...SECTION, pgp: { bankPublicKeyFile: keyFile, privateKey: 'v1.x' } })).toThrow(/bank.pgp.bankPublicKeyFile must hold the bank's armored OpenPGP public key/);
  });
});
