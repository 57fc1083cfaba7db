import { fork, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The receiver process and a request/answer over IPC. */
export class Receiver {
  private constructor(
    private readonly child: ChildProcess,
    readonly port: number,
  ) {}

  static async start(certFile: string, keyFile: string): Promise<Receiver> {
    const script = path.join(path.dirname(fileURLToPath(import.meta.url)), 'webhooks-receiver.ts');
    const child = fork(script, [], { execArgv: ['--import', 'tsx'], env: { ...process.env, BENCH_CERT_FILE: certFile, BENCH_KEY_FILE: keyFile } });
    const port = await new Promise<number>((resolve, reject) => {
      child.once('error', reject);
      child.once('message', (m: { port: number }) => resolve(m.port));
    });
    return new Receiver(child, port);
  }

  private asking: Promise<unknown> = Promise.resolve();

  /** One question at a time: each answer is the next message. */
  ask<T>(message: Record<string, unknown>): Promise<T> {
    const answer = this.asking.then(
      () =>
        new Promise<T>((resolve) => {
          this.child.once('message', (m: T) => resolve(m));
          this.child.send(message);
        }),
    );
    this.asking = answer;
    return answer;
  }

  stop(): void {
    this.child.send({ type: 'stop' });
  }
}
