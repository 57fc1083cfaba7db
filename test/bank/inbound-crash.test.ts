import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { pollInbound } from '../../src/modules/bank/inbound/inbound.service.js';
import { LocalDirectorySource } from '../../src/modules/bank/inbound/inbound.source.js';
import { ledgerInvariantViolations } from '../../src/modules/ledger/ledger.service.js';
import { createTestApp, onPostgres, operator, type TestApp } from '../helpers/app.js';
import { camt054, writeAnswer } from '../helpers/bank-answers.js';
import { corridorFreeEnv } from '../helpers/processes.js';
import { fund, payingWorkspace, ref, saveBeneficiary } from '../payouts/helpers.js';

/** A process killed with SIGKILL halfway through an inbound file: after a restart each entry is posted exactly once. Two processes on one database: PostgreSQL only. */

const ROOT = path.join(path.dirname(fileURLToPath(import.meta.url)), '../..');
const SETTLEMENT = { id: 'main-eur', iban: 'DE02100100100006820101', currency: 'EUR' };
const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c().catch(() => undefined);
});

describe.skipIf(!onPostgres)('inbound files under a crash (PostgreSQL)', () => {
  it('kill -9 halfway through a camt.054 posts nothing; taken in again, every entry is posted exactly once', async () => {
    const t: TestApp = await createTestApp({ env: { SANDBOX_STEP_MS: '600000' } });
    cleanups.push(t.close);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'corridor-bank-crash-'));
    cleanups.push(async () => fs.rmSync(dir, { recursive: true, force: true }));
    const c = await payingWorkspace(t);
    await fund(c, 'EUR', '100.00');
    const beneficiaryId = await saveBeneficiary(c);
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) {
      const res = await c.request('POST', '/v1/payouts', { clientRef: ref('crash'), amount: '5.00', currency: 'EUR', beneficiary: { id: beneficiaryId } });
      expect(res.statusCode, res.body).toBe(201);
      const id = res.json<{ id: string }>().id;
      expect((await operator(t.app, 'POST', `/operator/v1/payouts/${id}/process`)).statusCode).toBe(200);
      ids.push(id);
    }
    writeAnswer(dir, 'camt054-six.xml', camt054({ account: SETTLEMENT, entries: ids.map((id) => ({ direction: 'debit' as const, amount: '5.00', endToEndId: id })) }));

    const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'test/helpers/bank-inbound-child.ts')], {
      cwd: ROOT,
      env: { ...corridorFreeEnv(), ...t.env, LOG_LEVEL: 'silent', BANK_OUTBOX: dir, BANK_STOP_AFTER: '3', BANK_ACCOUNTS: JSON.stringify([SETTLEMENT]) },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
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

    const statuses = async () => (await t.ctx.db.query<{ status: string }>('SELECT status FROM payouts WHERE id = ANY($1::uuid[])', [ids])).map((r) => r.status);
    expect(await statuses()).toEqual(ids.map(() => 'processing'));
    expect(await t.ctx.db.query('SELECT 1 FROM bank_inbound_files')).toHaveLength(0);

    const results = await pollInbound(t.ctx, new LocalDirectorySource(dir), { accounts: [SETTLEMENT] });
    expect(results).toMatchObject([{ outcome: 'processed', entries: 6, exceptions: 0 }]);
    expect(await statuses()).toEqual(ids.map(() => 'paid'));
    const movements = await t.ctx.db.query<{ object_id: string; n: number }>('SELECT object_id, count(*)::int AS n FROM bank_movements GROUP BY object_id');
    expect(movements).toHaveLength(6);
    expect(movements.every((m) => m.n === 1)).toBe(true);
    const paidEvents = await t.ctx.db.query<{ n: number }>("SELECT count(*)::int AS n FROM events WHERE type = 'payout.paid' AND data->>'id' = ANY($1)", [ids]);
    expect(paidEvents[0]?.n).toBe(6);
    // Taken in once more (the file put back): nothing changes.
    writeAnswer(dir, 'camt054-six.xml', fs.readFileSync(path.join(dir, 'archive', 'camt054-six.xml'), 'utf8'));
    expect(await pollInbound(t.ctx, new LocalDirectorySource(dir), { accounts: [SETTLEMENT] })).toMatchObject([{ outcome: 'duplicate' }]);
    expect(await ledgerInvariantViolations(t.ctx.db)).toEqual([]);
  });
});
