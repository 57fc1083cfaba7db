import { spawn, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { freePort } from './processes.js';

/**
 * Stoplight Prism (`@stoplight/prism-cli`, a devDependency) as a validating proxy between Corridor and
 * a provider's simulator: `prism proxy <definition> <upstream> --errors`. Every request Corridor sends
 * and every answer the upstream gives is checked against the provider's published definition; a
 * violation is answered with an error status (a request Prism refuses never reaches the upstream) and
 * written to Prism's log. `violations()` lists what it found (since `from`, an offset in the log), so
 * a test ends with `expect(prism.violations()).toEqual([])`.
 */
export interface PrismProxy {
  /** Where to send requests instead of the upstream. */
  url: string;
  /** Everything Prism wrote so far. */
  log(): string;
  /** The violation lines of the log since `from` (0: all). */
  violations(from?: number): string[];
  stop(): Promise<void>;
}

export async function startPrism(definition: string, upstream: string, options: { timeoutMs?: number } = {}): Promise<PrismProxy> {
  const bin = path.join(path.dirname(createRequire(import.meta.url).resolve('@stoplight/prism-cli/package.json')), 'dist', 'index.js');
  const port = await freePort();
  const child: ChildProcess = spawn(process.execPath, [bin, 'proxy', definition, upstream, '--errors', '--host', '127.0.0.1', '--port', String(port)], { stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`prism did not listen within ${options.timeoutMs ?? 120_000} ms:\n${log}`)), options.timeoutMs ?? 120_000);
    const onData = (chunk: Buffer) => {
      log += chunk.toString('utf8');
      if (log.includes('Prism is listening')) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`prism exited (${String(code)}) before listening:\n${log}`));
    });
  });
  return {
    url: `http://127.0.0.1:${port}`,
    log: () => log,
    violations: (from = 0) =>
      log
        .slice(from)
        .split('\n')
        .filter((line) => /violation|✖/i.test(line)),
    stop: async () => {
      if (child.exitCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    },
  };
}
