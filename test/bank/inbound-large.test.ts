import { once } from 'node:events';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { INBOUND_MAX_FILE_BYTES_DEFAULT } from '../../src/connectors/bank/bank.config.js';
import { pollInbound, takeInFile, type InboundOptions } from '../../src/connectors/bank/inbound/inbound.service.js';
import { LocalDirectorySource } from '../../src/connectors/bank/inbound/inbound.source.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { camt054 } from '../helpers/bank-answers.js';

/*
 * Giant and poisoned bank files (issue 33, point 3): a file of some 20 MB is read while the API goes
 * on answering (streamed, in a process of its own), one that needs more memory than the reader may use
 * is quarantined and the process lives on, one above the size limit is quarantined from its size
 * without a byte of it downloaded, and one whose reading was started and never finished three times
 * (as a process dying of it would leave it) is quarantined instead of read again.
 */

const EUR_MAIN = { iban: 'DE02100100109307118603', currency: 'EUR' };
const ACCOUNTS = [{ id: 'eur-main', iban: EUR_MAIN.iban, currency: 'EUR' }];
/** About 1 KB each: some 20 MB of notification. */
const ENTRIES = 21_000;

/**
 * Writes a camt.054 of `entries` pending credits (valid against the XSD as the test bank writes them;
 * pending, so taking it in posts nothing and the test is about reading), piece by piece.
 */
async function writeLargeNotification(file: string, messageId: string, entries: number): Promise<number> {
  const one = camt054({ account: EUR_MAIN, messageId, entries: [{ direction: 'credit', amount: '1.00', status: 'PDNG', ref: 'REF-X', creditorIban: 'DE89370400440532013000' }] });
  const [head, rest] = one.split('<Ntry>') as [string, string];
  const [body, tail] = rest.split('</Ntry>') as [string, string];
  const out = fs.createWriteStream(file);
  out.write(head);
  for (let i = 0; i < entries; i += 1000) {
    const piece = Array.from({ length: Math.min(1000, entries - i) }, (_, k) => `<Ntry>${body.replace('REF-X', `REF-${i + k}`)}</Ntry>`).join('\n');
    if (!out.write(piece)) await once(out, 'drain');
  }
  out.end(tail);
  await once(out, 'close');
  return fs.statSync(file).size;
}

describe('giant and poisoned bank files', () => {
  let t: TestApp;
  let root: string;
  /** The API over HTTP, as a load balancer's health check reaches it. */
  let base: string;
  beforeAll(async () => {
    t = await createTestApp();
    base = await t.app.listen({ host: '127.0.0.1', port: 0 });
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'corridor-inbound-large-'));
  }, 300_000);
  afterAll(async () => {
    await t?.close();
    if (root) fs.rmSync(root, { recursive: true, force: true });
  }, 120_000);

  /** GET /healthz over a connection of its own, as a load balancer's health check asks it: the status. */
  const healthz = () =>
    new Promise<number>((resolve, reject) => {
      http
        .get(`${base}/healthz`, { agent: false }, (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode ?? 0));
        })
        .on('error', reject);
    });

  /** A bank outbox of its own for one test. */
  const outbox = (name: string) => {
    const dir = path.join(root, name);
    fs.mkdirSync(dir);
    return { dir, source: new LocalDirectorySource(dir) };
  };
  const options = (more: Partial<InboundOptions> = {}): InboundOptions => ({ accounts: ACCOUNTS, ...more });
  const fileRow = async (name: string) =>
    (await t.ctx.db.query<{ status: string; reason: string | null; sha256: string | null; size_bytes: string; attempts: number; entries: number }>('SELECT status, reason, sha256, size_bytes::text AS size_bytes, attempts, entries FROM bank_inbound_files WHERE name = $1', [name]))[0];

  it('/healthz answers while a 20 MB camt.054 is being read, between the reader\'s progress reports; the file is then taken in whole', async () => {
    const { dir, source } = outbox('large');
    const size = await writeLargeNotification(path.join(dir, 'camt054-large.xml'), 'LARGE-1', ENTRIES);
    expect(size).toBeGreaterThan(20_000_000);

    // What happens, in the order it happens: the reader's progress (bytes read) and each /healthz answered.
    const events: string[] = [];
    let reading = true;
    const taken = takeInFile(t.ctx, source, { name: 'camt054-large.xml', size }, options({ maxFileBytes: 64 * 1024 * 1024, chunkEntries: 10_000, onReadProgress: (bytes) => events.push(`read ${bytes}`) })).finally(() => {
      reading = false;
    });
    while (reading) {
      expect(await healthz()).toBe(200);
      events.push('healthz');
    }
    expect(await taken).toMatchObject({ outcome: 'processed', messageType: 'camt.054', entries: ENTRIES, exceptions: 0 });

    const first = events.findIndex((e) => e.startsWith('read '));
    const last = events.findLastIndex((e) => e.startsWith('read '));
    expect(first).toBeGreaterThanOrEqual(0);
    // The whole file was read, in pieces...
    expect(events[last]).toBe(`read ${size}`);
    expect(last).toBeGreaterThan(first);
    // ...and the API answered between the first piece and the last: the event loop was never held by the reading.
    expect(events.slice(first, last).filter((e) => e === 'healthz').length).toBeGreaterThan(0);
    expect(await fileRow('camt054-large.xml')).toMatchObject({ status: 'processed', entries: ENTRIES, attempts: 1 });
  }, 600_000);

  it('a file that needs more memory than the reader may use (one batch entry of a million transactions) is quarantined with the reason; the process and the API live on', async () => {
    const { dir, source } = outbox('memory');
    const batch = camt054({ account: EUR_MAIN, messageId: 'HEAVY-1', entries: [{ direction: 'credit', amount: '1.00', status: 'PDNG', ref: 'HEAVY-1' }] });
    const [head, tail] = batch.split('</NtryDtls>') as [string, string];
    const out = fs.createWriteStream(path.join(dir, 'camt054-heavy.xml'));
    out.write(head);
    const thousand = '<TxDtls><Refs/></TxDtls>'.repeat(1000);
    for (let i = 0; i < 1000; i += 1) if (!out.write(thousand)) await once(out, 'drain');
    out.end(`</NtryDtls>${tail}`);
    await once(out, 'close');
    const size = fs.statSync(path.join(dir, 'camt054-heavy.xml')).size;
    const [result] = await pollInbound(t.ctx, source, options({ maxFileBytes: 64 * 1024 * 1024, readMemoryMb: 32 }));
    expect(result).toMatchObject({ name: 'camt054-heavy.xml', outcome: 'quarantined' });
    expect(await fileRow('camt054-heavy.xml')).toMatchObject({ status: 'quarantined', size_bytes: String(size), reason: expect.stringContaining('needed more than the 32 MB the reader may use ("bank".inbound.readMemoryMb)') });
    expect(fs.existsSync(path.join(dir, 'quarantine', 'camt054-heavy.xml'))).toBe(true);
    expect(await healthz()).toBe(200);
  }, 600_000);

  it('a file above the size limit (a sparse 2 GiB file) is quarantined from its size with the reason, not one byte of it downloaded', async () => {
    const { dir, source } = outbox('sparse');
    const huge = 2 * 1024 * 1024 * 1024;
    fs.writeFileSync(path.join(dir, 'camt053-huge.xml'), '');
    fs.truncateSync(path.join(dir, 'camt053-huge.xml'), huge);
    const downloads: string[] = [];
    const watched = Object.assign(Object.create(source) as LocalDirectorySource, {
      download: (name: string, to: string) => {
        downloads.push(name);
        return source.download(name, to);
      },
    });
    const [result] = await pollInbound(t.ctx, watched, options());
    expect(result).toMatchObject({ name: 'camt053-huge.xml', outcome: 'quarantined', reason: expect.stringContaining(`above the limit of ${INBOUND_MAX_FILE_BYTES_DEFAULT} bytes`) });
    expect(downloads).toEqual([]);
    // No hash: it was never read.
    expect(await fileRow('camt053-huge.xml')).toMatchObject({ status: 'quarantined', sha256: null, size_bytes: String(huge), reason: expect.stringContaining('"bank".inbound.maxFileBytes') });
    expect(fs.existsSync(path.join(dir, 'quarantine', 'camt053-huge.xml'))).toBe(true);
  });

  it('a file whose reading was started three times and never finished (the process stopped each time) is quarantined, not read a fourth time; the file after it goes through', async () => {
    const { dir, source } = outbox('interrupted');
    fs.writeFileSync(path.join(dir, 'a-poison.xml'), camt054({ account: EUR_MAIN, messageId: 'POISON-1', entries: [{ direction: 'credit', amount: '9.00', status: 'PDNG', ref: 'POISON-9' }] }));
    const stopped = options({
      onReadStart: () => {
        throw new Error('the process stopped while reading');
      },
    });
    for (const attempt of [1, 2, 3]) {
      const [result] = await pollInbound(t.ctx, source, stopped);
      expect(result, `attempt ${attempt}`).toMatchObject({ name: 'a-poison.xml', outcome: 'failed' });
      expect(await fileRow('a-poison.xml')).toMatchObject({ status: 'received', attempts: attempt });
    }
    fs.writeFileSync(path.join(dir, 'b-good.xml'), camt054({ account: EUR_MAIN, messageId: 'GOOD-1', entries: [{ direction: 'credit', amount: '1.00', status: 'PDNG', ref: 'GOOD-1' }] }));
    const starts: string[] = [];
    const results = await pollInbound(t.ctx, source, options({ onReadStart: (fileId) => void starts.push(fileId) }));
    expect(results.map((r) => [r.name, r.outcome])).toEqual([['a-poison.xml', 'quarantined'], ['b-good.xml', 'processed']]);
    expect(await fileRow('a-poison.xml')).toMatchObject({ status: 'quarantined', attempts: 4, reason: 'reading the file was started 3 times and never finished (the process stopped while reading it): not read again' });
    // Only the good file was read.
    expect(starts).toHaveLength(1);
    expect(fs.existsSync(path.join(dir, 'quarantine', 'a-poison.xml'))).toBe(true);
    expect(fs.existsSync(path.join(dir, 'archive', 'b-good.xml'))).toBe(true);
  });
});
