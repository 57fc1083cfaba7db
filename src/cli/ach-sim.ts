import fs from 'node:fs';
import path from 'node:path';
import { SandboxAchBank, type SandboxRule } from '../connectors/ach/sandbox.js';

/** Reads a rules file: a JSON array of rules in the ach-test-harness shape (`{ "match": {…}, "action": {…} }`), or an object with them under `responses`. */
export function readSandboxRules(file: string): SandboxRule[] {
  const parsed: unknown = JSON.parse(fs.readFileSync(file, 'utf8'));
  const list = Array.isArray(parsed) ? parsed : (parsed as { responses?: unknown })?.responses;
  if (!Array.isArray(list)) throw new Error(`${file}: must hold a JSON array of rules, or { "responses": [...] }`);
  for (const [i, rule] of list.entries()) {
    const r = rule as Partial<SandboxRule> | null;
    if (!r || typeof r.match !== 'object' || r.match === null || typeof r.action !== 'object' || r.action === null) throw new Error(`${file}: rule ${i} needs a "match" object and an "action" object`);
  }
  return list as SandboxRule[];
}

/**
 * `corridor ach-sim --dir DIR [--rules FILE.json] [--interval-ms N] [--once]`: the sandbox ACH bank
 * (src/connectors/ach/sandbox.ts) as its own process, as `bank-sim` is for the bank connector. It
 * answers the NACHA files the ACH connector writes into DIR/in (the connectors file's
 * `"ach": { "directory": DIR }`, sandbox only) into DIR/out as the rules say (a return or a
 * notification of change, after an optional delay); entries no rule matches settle without an
 * answer. Runs until SIGINT or SIGTERM; --once answers what waits and exits.
 */
export async function achSim(options: { dir: string; rules: SandboxRule[]; intervalMs: number; once: boolean }): Promise<void> {
  const dir = path.resolve(options.dir);
  const log = (line: string) => process.stdout.write(`${new Date().toISOString()} ach-sim ${line}\n`);
  const bank = SandboxAchBank.onDirectory(dir, options.rules);
  const tick = () => {
    for (const name of bank.tick()) log(`answered: ${path.join(dir, 'out', name)}`);
  };
  if (options.once) return tick();
  const stopped = new Promise<void>((resolve) => {
    process.once('SIGINT', () => resolve());
    process.once('SIGTERM', () => resolve());
  });
  log(`answering ${path.join(dir, 'in')} into ${path.join(dir, 'out')} every ${options.intervalMs} ms with ${options.rules.length} rules`);
  const timer = setInterval(() => {
    try {
      tick();
    } catch (err) {
      log(`error: ${err instanceof Error ? err.message : String(err)}`);
    }
  }, options.intervalMs);
  tick();
  await stopped;
  clearInterval(timer);
}
