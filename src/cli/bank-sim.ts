import path from 'node:path';
import { answerInbox, runSandboxBank } from '../connectors/bank/bank.simulator.js';

/**
 * `corridor bank-sim --dir DIR [--interval-ms N] [--once]`: the sandbox bank (bank.simulator.ts) as
 * its own process. It answers the pain.001 files the bank connector writes into DIR/in (the
 * connectors file's `"bank": { "directory": DIR }`, sandbox only) into DIR/out, by magic amounts
 * (docs/guides/bank-rails.md, "Sandbox bank"). Runs until SIGINT or SIGTERM; --once answers what
 * waits and exits.
 */
export async function bankSim(options: { dir: string; intervalMs: number; once: boolean }): Promise<void> {
  const dir = path.resolve(options.dir);
  const log = (line: string) => process.stdout.write(`${new Date().toISOString()} bank-sim ${line}\n`);
  if (options.once) {
    await answerInbox({ dir, log });
    return;
  }
  const controller = new AbortController();
  process.once('SIGINT', () => controller.abort());
  process.once('SIGTERM', () => controller.abort());
  log(`answering ${path.join(dir, 'in')} into ${path.join(dir, 'out')} every ${options.intervalMs} ms`);
  await runSandboxBank({ dir, log, intervalMs: options.intervalMs, signal: controller.signal });
}
