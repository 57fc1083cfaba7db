import { spawn, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import net from 'node:net';
import path from 'node:path';

/**
 * Stoplight Prism in validating proxy mode (`prism proxy <definition> <upstream> --errors`) between
 * Corridor and a provider's simulator: every request Corridor sends and every answer the simulator
 * gives is checked against the provider's published definition. With `--errors` a request that
 * breaks the definition is answered 422 by Prism (it never reaches the upstream), and an answer that
 * breaks it 500; both are also written to Prism's log, which `violations()` reads.
 */
export interface PrismProxy {
  url: string;
  /** The violation lines Prism logged since start (or since `from`, a `log.length` taken earlier). */
  violations(from?: number): string[];
  log(): string;
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const port = (server.address() as net.AddressInfo).port;
      server.close(() => resolve(port));
    });
  });
}

export async function startPrismProxy(definition: string, upstream: string, timeoutMs = 180_000): Promise<PrismProxy> {
  const port = await freePort();
  const bin = path.join(path.dirname(createRequire(import.meta.url).resolve('@stoplight/prism-cli/package.json')), 'dist', 'index.js');
  const child: ChildProcess = spawn(process.execPath, [bin, 'proxy', definition, upstream, '--errors', '--host', '127.0.0.1', '--port', String(port)], { stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`prism did not listen within ${timeoutMs} ms:\n${log}`)), timeoutMs);
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
  child.removeAllListeners('exit');
  return {
    url: `http://127.0.0.1:${port}`,
    log: () => log,
    violations: (from = 0) => log.slice(from).split('\n').filter((line) => /violation|✖|error/i.test(line) && !/Prism is listening/.test(line)),
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}
