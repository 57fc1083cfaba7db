import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CryptoBox } from '../../src/platform/lib/crypto-box.js';
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
    // It names the key it used: where it came from and its id (never the key).
    expect(run.stderr).toContain(`under: CORRIDOR_ENCRYPTION_KEY, key id ${CryptoBox.fromKey(Buffer.from(key, 'base64')).keyId}`);
    expect(run.stderr).not.toContain(key);
  });

  it('without CORRIDOR_ENCRYPTION_KEY, uses the data directory key file only if it exists, and says so', () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'corridor-chain-key-'));
    try {
      const secret = 'ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80';
      const env = { ...corridorFreeEnv(), CORRIDOR_DATA_DIR: dataDir };
      const refused = spawnSync(process.execPath, [CORRIDOR_BIN, 'chain', 'encrypt-key'], { input: `${secret}\n`, env, encoding: 'utf8' });
      expect(refused.status).toBe(1);
      expect(refused.stderr).toMatch(/CORRIDOR_ENCRYPTION_KEY is unset and there is no key file at /);
      expect(fs.existsSync(path.join(dataDir, 'encryption.key'))).toBe(false);

      const key = randomBytes(32).toString('base64');
      fs.writeFileSync(path.join(dataDir, 'encryption.key'), key, { mode: 0o600 });
      const run = spawnSync(process.execPath, [CORRIDOR_BIN, 'chain', 'encrypt-key'], { input: `${secret}\n`, env, encoding: 'utf8' });
      expect(run.status, run.stderr).toBe(0);
      const box = CryptoBox.fromKey(Buffer.from(key, 'base64'));
      expect(box.decrypt(run.stdout.trim())).toBe(secret);
      expect(run.stderr).toContain(`under: the key file ${path.join(dataDir, 'encryption.key')} (CORRIDOR_ENCRYPTION_KEY is unset), key id ${box.keyId}`);
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
