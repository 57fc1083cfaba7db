import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { CORRIDOR_BIN } from '../support/processes.js';

/*
 * The production path: the same payouts as the payouts benchmark's, but on the `sepa_credit` route of
 * the bank connector (ISO 20022 pain.001 files out, pain.002 and camt.054 answers in, the inbound
 * pipeline marking them paid) with its sandbox bank (`corridor bank-sim`) answering in a local
 * folder, and with what an operator runs in production switched on: each process's metrics on
 * METRICS_PORT scraped while the load runs, and OpenTelemetry traces exported by OTLP/HTTP to a local
 * receiver that takes every span in. The folder stands for the bank's SFTP server (the one part
 * left out: an SSH round trip per file and per look at the outbox, a few per second at most).
 */

/** The bank connector's cut-off and outbox look: a file cut at 500 payouts or after 1 s, the outbox read every second. */
export const CUTOFF = { maxPayouts: Number(process.env.BENCH_BANK_FILE_PAYOUTS || 500), maxSeconds: 1 };
export const POLL_SECONDS = 1;
/** The sandbox bank's look at its inbox. */
export const BANK_SIM_INTERVAL_MS = 100;
/** How often each process's metrics are scraped (Prometheus' default is 15 s: this is heavier). */
export const SCRAPE_MS = Number(process.env.BENCH_SCRAPE_MS || 5000);
const ACCOUNT = { id: 'eur-main', iban: 'DE02100100109307118603', bic: 'PBNKDEFFXXX', name: 'Corridor Payments GmbH', currency: 'EUR' };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A connectors file in `dir` routing `sepa_credit` to the bank connector, whose files go to `<dir>/bank` (the sandbox bank's folder): its path. */
export function bankConnectorsFile(dir: string): string {
  const file = path.join(dir, 'connectors.json');
  fs.writeFileSync(file, JSON.stringify({ routes: { sepa_credit: 'bank' }, bank: { directory: path.join(dir, 'bank'), accounts: [ACCOUNT], cutoff: CUTOFF, pollSeconds: POLL_SECONDS } }));
  return file;
}

/** A local OTLP/HTTP receiver: answers every export at once and counts the spans in it (by their span ids, without parsing the rest). */
export async function otlpReceiver(): Promise<{ url: string; spans: () => number; exports: () => number; close: () => Promise<void> }> {
  let spans = 0;
  let exports = 0;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.url === '/v1/traces') {
        exports++;
        spans += Buffer.concat(chunks).toString('utf8').split('"spanId"').length - 1;
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    spans: () => spans,
    exports: () => exports,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** Scrapes `/metrics` at each URL every SCRAPE_MS until stopped, as Prometheus would; counts the scrapes that answered 200 and their bytes. */
export function scraper(urls: () => string[]): { stop: () => Promise<{ ok: number; failed: number; bytes: number }> } {
  const tally = { ok: 0, failed: 0, bytes: 0 };
  let running = true;
  const scrapeAll = async () => {
    for (const url of urls()) {
      try {
        const res = await fetch(url);
        const text = await res.text();
        if (res.ok && text.includes('corridor_')) {
          tally.ok++;
          tally.bytes += text.length;
        } else tally.failed++;
      } catch {
        tally.failed++;
      }
    }
  };
  const loop = (async () => {
    while (running) {
      await scrapeAll();
      await sleep(SCRAPE_MS);
    }
  })();
  let stopped: Promise<typeof tally> | undefined;
  return {
    stop: () =>
      (stopped ??= (async () => {
        running = false;
        await loop;
        await scrapeAll(); // and a last one, so a short (smoke) run scrapes each process at least once with the load behind it
        return tally;
      })()),
  };
}

export function startBankSim(dir: string): ChildProcess {
  return spawn(process.execPath, [CORRIDOR_BIN, 'bank-sim', '--dir', dir, '--interval-ms', String(BANK_SIM_INTERVAL_MS)], { stdio: ['ignore', 'ignore', 'inherit'] });
}

