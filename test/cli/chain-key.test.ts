import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { CryptoBox } from '../../src/lib/crypto-box.js';
import { corridorFreeEnv, CORRIDOR_BIN } from '../../support/processes.js';

describe('corridor chain encrypt-key', () => {
  it('seals a hot wallet key read from standard input under CORRIDOR_ENCRYPTION_KEY, naming its address (never the key) on stderr', () => {
    const key = randomBytes(32).toString('base64');
    const secret = 'ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80';
    const run = spawnSync(process.execPath, [CORRIDOR_BIN, 'chain', 'encrypt-key'], { input: `${secret}\n`, env: { ...corridorFreeEnv(), CORRIDOR_ENCRYPTION_KEY: key }, encoding: 'utf8' });
    expect(run.status, run.stderr).toBe(0);
    const sealed = run.stdout.trim();
    expect(sealed).toMatch(/^v1\./);
    expect(run.stdout + run.stderr).not.toContain(secret);
    expect(run.stderr).toContain('0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266');
    expect(CryptoBox.fromKey(Buffer.from(key, 'base64')).decrypt(sealed)).toBe(secret);
  });
});
