import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { readNacha } from '../../src/connectors/ach/nacha.js';
import { CORRIDOR_BIN, corridorFreeEnv } from '../helpers/processes.js';
import { realWorldFile } from '../helpers/real-world.js';

const run = promisify(execFile);

describe('corridor ach-sim', () => {
  it('answers the NACHA files in DIR/in into DIR/out as its rules file says, once', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'corridor-ach-sim-'));
    try {
      fs.mkdirSync(path.join(dir, 'in'));
      fs.writeFileSync(path.join(dir, 'in', 'utility-bill.ach'), realWorldFile('ach/ach-test-harness-utility-bill.ach'));
      const rules = path.join(dir, 'rules.json');
      fs.writeFileSync(rules, JSON.stringify({ responses: [{ match: { amount: { min: 0, max: 100000 } }, action: { return: { code: 'R03' } } }] }));
      const { stdout } = await run(process.execPath, [CORRIDOR_BIN, 'ach-sim', '--dir', dir, '--rules', rules, '--once'], { env: corridorFreeEnv() });
      const written = fs.readdirSync(path.join(dir, 'out'));
      expect(written).toHaveLength(1);
      expect(stdout).toContain(`answered: ${path.join(dir, 'out', written[0] as string)}`);
      const returns = readNacha(fs.readFileSync(path.join(dir, 'out', written[0] as string), 'latin1')).batches.flatMap((b) => b.entries.flatMap((e) => e.returns));
      expect(returns.length).toBeGreaterThan(0);
      expect(new Set(returns.map((r) => r.code))).toEqual(new Set(['R03']));
      expect(fs.readdirSync(path.join(dir, 'in', 'answered'))).toEqual(['utility-bill.ach']);
      await expect(run(process.execPath, [CORRIDOR_BIN, 'ach-sim', '--once'], { env: corridorFreeEnv() })).rejects.toMatchObject({ stderr: expect.stringContaining('--dir DIR is required') });
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 300_000);
});
