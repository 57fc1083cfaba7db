import { spawn, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { freePort } from './processes.js';

/** A running `prism proxy`: its URL, what it logged, the violations it found, and how to stop it. */
export interface PrismProxy {
  url: string;
  /** Every line Prism wrote. */
  log(): string;
  /** The request and response violations (and errors) Prism logged since it started, or since `from` (a `log().length`). */
  violations(from?: number): string[];
  stop(): Promise<void>;
}

/**
 * Starts Stoplight Prism (the devDependency's own bin) in validating proxy mode: `prism proxy
 * <definition> <upstream> --errors`. Every request through it is checked against the published
 * definition (a violation is refused with a 422 and never reaches the upstream), and every answer of
 * the upstream too (a violation is answered as an error); both are logged, and `violations()` lists
 * them. Resolves once Prism listens (generous: a loaded machine takes long to load a large definition).
 */
export async function startPrismProxy(definition: string, upstream: string, timeoutMs = 180_000): Promise<PrismProxy> {
  const port = await freePort();
  const bin = path.join(path.dirname(createRequire(import.meta.url).resolve('@stoplight/prism-cli/package.json')), 'dist', 'index.js');
  const child: ChildProcess = spawn(process.execPath, [bin, 'proxy', definition, upstream, '--errors', '--host', '127.0.0.1', '--port', String(port)], { stdio: ['ignore', 'pipe', 'pipe'] });
  let text = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`prism did not listen within ${timeoutMs} ms:\n${text}`)), timeoutMs);
    const onData = (chunk: Buffer) => {
      text += chunk.toString('utf8');
      if (text.includes('Prism is listening')) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`prism exited (${String(code)}) before listening:\n${text}`));
    });
  });
  const listening = text.indexOf('Prism is listening');
  return {
    url: `http://127.0.0.1:${port}`,
    log: () => text,
    // Only what Prism wrote after it listened: its start-up lists the definition's routes, some with `error` in a query.
    violations: (from = listening) =>
      text
        .slice(Math.max(from, listening))
        .split('\n')
        .filter((line) => /violation|✖|\berror\b.*›|›.*\berror\b/i.test(line) && !/ℹ +info/.test(line)),
    stop: async () => {
      if (child.exitCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    },
  };
}
