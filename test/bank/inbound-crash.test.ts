import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { bankConnectorOf } from '../../src/connectors/bank/bank.connector.js';
import { runPoll } from '../../src/connectors/bank/bank.service.js';
import { ledgerInvariantViolations } from '../../src/domains/ledger/ledger.service.js';
import { createTestApp, onPostgres, type TestApp } from '../helpers/app.js';
import { camt054 } from '../helpers/bank-answers.js';
import { corridorFreeEnv } from '../helpers/processes.js';
import { SftpBank } from '../helpers/sftp-bank.js';
import { bankSection, sshdMissing, startSftpServer } from '../helpers/sftp-server.js';
import { activeAccount, approveOnboarding } from '../virtual-accounts/helpers.js';
import { payingWorkspace } from '../payouts/helpers.js';
import { BANK_ROUTES, connectorsFile } from './helpers.js';

/**
 * A notification of a few thousand credits, taken in over the real SFTP server in chunks, by processes
 * killed with SIGKILL in the middle of a chunk, twice: each committed chunk stays, the killed one
 * posts nothing, the next process goes on from the first chunk not committed, and in the end every
 * entry is one deposit. Two processes on one database: PostgreSQL only.
 */

const ROOT = path.join(path.dirname(fileURLToPath(import.meta.url)), '../..');
const EUR_MAIN = { iban: 'DE02100100109307118603', currency: 'EUR' };
const CREDITS = 2000;
const CHUNK = 250;
const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c().catch(() => undefined);
});

describe.skipIf(!onPostgres || Boolean(sshdMissing))('inbound files under a crash (PostgreSQL, SFTP)', () => {
  it('kill -9 twice in the middle of a chunk of a 2,000-credit camt.054: committed chunks stay, the rest is applied on restart, exactly one deposit per entry', async () => {
    const server = await startSftpServer();
    cleanups.push(server.stop);
    const section = { ...bankSection(server), inbound: { chunkEntries: CHUNK } };
    const t: TestApp = await createTestApp({ env: { CORRIDOR_CONNECTORS_FILE: connectorsFile({ routes: BANK_ROUTES, bank: section }) } });
    cleanups.push(t.close);
    const c = await payingWorkspace(t);
    await approveOnboarding(t.app, c);
    const account = await activeAccount(c, 'EUR');
    const iban = (await c.request('GET', '/v1/virtual-accounts')).json<{ data: { id: string; iban?: string }[] }>().data.find((v) => v.id === account.id)?.iban as string;
    const bank = await SftpBank.connect(server);
    cleanups.push(() => bank.end());
    await bank.answer('camt054-credits.xml', camt054({ account: EUR_MAIN, entries: Array.from({ length: CREDITS }, (_, i) => ({ direction: 'credit' as const, amount: `${1 + (i % 7)}.00`, ref: `CRASH-${i}`, creditorIban: iban })) }));

    /** A process taking the outbox in, killed with SIGKILL once it has applied entry `stopAfter` of the file (its chunk still open). */
    const killedAt = async (stopAfter: number) => {
      const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'test/helpers/bank-inbound-child.ts')], {
        cwd: ROOT,
        env: { ...corridorFreeEnv(), ...t.env, LOG_LEVEL: 'silent', BANK_SECTION: JSON.stringify(section), BANK_STOP_AFTER: String(stopAfter) },
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      cleanups.push(async () => void child.kill('SIGKILL'));
      const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on('exit', (_code, signal) => resolve(signal)));
      await new Promise<void>((resolve, reject) => {
        let out = '';
        child.stdout.on('data', (chunk: Buffer) => {
          out += chunk.toString();
          if (out.includes('HALFWAY')) resolve();
          if (out.includes('FINISHED')) reject(new Error('the child finished the file'));
        });
        child.on('exit', () => reject(new Error(`the child exited before halfway: ${out}`)));
      });
      child.kill('SIGKILL');
      expect(await exited).toBe('SIGKILL');
    };
    const deposits = async () => (await t.ctx.db.query<{ n: number }>("SELECT count(*)::int AS n FROM deposits WHERE client_ref LIKE 'bank:CRASH-%'"))[0]?.n;
    const file = async () => (await t.ctx.db.query<{ status: string; units_applied: number; entries: number }>('SELECT status, units_applied, entries FROM bank_inbound_files'))[0];

    // Killed in the fourth chunk: three chunks committed, nothing of the fourth.
    await killedAt(3 * CHUNK + 150);
    expect(await file()).toEqual({ status: 'applying', units_applied: 3 * CHUNK, entries: 3 * CHUNK });
    expect(await deposits()).toBe(3 * CHUNK);
    // The next process goes on from the fourth chunk and is killed in the sixth.
    await killedAt(5 * CHUNK + 100);
    expect(await file()).toEqual({ status: 'applying', units_applied: 5 * CHUNK, entries: 5 * CHUNK });
    expect(await deposits()).toBe(5 * CHUNK);
    expect(await bank.takenIn('camt054-credits.xml')).toBeUndefined();

    // The connector's own poll finishes the file.
    const connector = bankConnectorOf(t.ctx);
    await runPoll(t.ctx, connector?.runtime as NonNullable<typeof connector>['runtime'], 'bank');
    expect(await file()).toEqual({ status: 'processed', units_applied: CREDITS, entries: CREDITS });
    expect(await bank.takenIn('camt054-credits.xml')).toBe('archive');
    const perEntry = await t.ctx.db.query<{ client_ref: string; n: number }>("SELECT client_ref, count(*)::int AS n FROM deposits WHERE client_ref LIKE 'bank:CRASH-%' GROUP BY client_ref");
    expect(perEntry).toHaveLength(CREDITS);
    expect(perEntry.every((d) => d.n === 1)).toBe(true);
    expect((await t.ctx.db.query<{ n: number }>("SELECT count(*)::int AS n FROM bank_movements WHERE kind = 'deposit'"))[0]?.n).toBe(CREDITS);
    expect(await t.ctx.db.query('SELECT code FROM bank_exceptions')).toEqual([]);
    expect(await ledgerInvariantViolations(t.ctx.db)).toEqual([]);
  }, 900_000);
});
